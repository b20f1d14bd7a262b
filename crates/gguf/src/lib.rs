//! GGUF reader: header and tensor infos only, never the data.
