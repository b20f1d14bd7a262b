//! One file per subcommand: its clap arguments, its run function, its renderers.
pub mod attribute;
pub mod bench;
pub mod ceiling;
pub mod demo;
pub mod diagnose;
pub mod emulate;
pub mod gguf;
pub mod history;
pub mod logs;
pub mod membw;
pub mod pcie;
pub mod probe;
pub mod progress;
pub mod regress;
pub mod route;
pub mod trace;
