//! The GGUF header and tensor infos, then the model accounting built on them: any bytes give a
//! shard or an error naming an offset inside the input, never a panic or a huge allocation.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let len = data.len() as u64;
    let opts = gguf::ReadOptions::default();
    match gguf::read_shard_from(std::io::Cursor::new(data), len, "fuzz.gguf", &opts) {
        Ok(shard) => {
            let _ = shard.tensor_bytes();
            let _ = shard.data_bytes();
            if let Ok(model) = gguf::Model::from_shards(vec![shard]) {
                let _ = model.accounting();
                let _ = model.facts();
            }
        }
        Err(e) => {
            if let Some(at) = e.offset() {
                assert!(at <= len, "error offset {at} past the end ({len}): {e}");
            }
        }
    }
});
