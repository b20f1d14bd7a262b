//! One file per subcommand: its clap arguments, its run function, its renderers.
pub mod ceiling;
pub mod gguf;
pub mod logs;
pub mod trace;
