//! One file per subcommand: its clap arguments, its run function, its renderers.
pub mod ceiling;
pub mod diagnose;
pub mod gguf;
pub mod history;
pub mod logs;
pub mod probe;
pub mod route;
pub mod trace;
