//! What the server is and how much context one request may use, asked of the server itself.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::client::Client;
use crate::error::{Error, Result};

pub use engines::Engine;

/// The most tokens (prompt + generated) one request may hold, and where that figure came from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ContextLimit {
    pub tokens: u64,
    pub source: String,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ServerInfo {
    /// None: no endpoint said which engine this is (`"unknown"` in documents).
    #[serde(
        serialize_with = "engine_or_unknown",
        deserialize_with = "unknown_or_engine"
    )]
    pub engine: Option<Engine>,
    /// The served model's name (first entry of `/v1/models`).
    pub model: Option<String>,
    pub context: Option<ContextLimit>,
    /// llama.cpp `total_slots` (= `--parallel`).
    pub slots: Option<u64>,
}

fn engine_or_unknown<S: serde::Serializer>(
    e: &Option<Engine>,
    s: S,
) -> std::result::Result<S::Ok, S::Error> {
    s.serialize_str(e.map_or("unknown", Engine::as_str))
}

fn unknown_or_engine<'de, D: serde::Deserializer<'de>>(
    d: D,
) -> std::result::Result<Option<Engine>, D::Error> {
    use serde::de::IntoDeserializer;
    let s = String::deserialize(d)?;
    if s == "unknown" {
        return Ok(None);
    }
    Engine::deserialize(s.as_str().into_deserializer()).map(Some)
}

/// Ask `/v1/models`, then the engine's own endpoint (llama.cpp `/props`, TGI `/info`).
/// An unreachable server is an error; endpoints a server lacks are skipped.
pub async fn discover(client: &Client) -> Result<ServerInfo> {
    let mut info = ServerInfo {
        engine: None,
        model: None,
        context: None,
        slots: None,
    };
    match client.get_json("/v1/models").await {
        Ok(v) => read_models(&v, &mut info),
        Err(e @ (Error::Unreachable { .. } | Error::Timeout { .. })) => return Err(e),
        Err(_) => {}
    }
    if matches!(info.engine, Some(Engine::LlamaCpp) | None) {
        if let Ok(props) = client.get_json("/props").await {
            read_llama_props(&props, &mut info);
        }
    }
    if info.engine.is_none() {
        if let Ok(v) = client.get_json("/info").await {
            read_tgi_info(&v, &mut info);
        }
    }
    Ok(info)
}

/// `/v1/models`: `data[0].id`, `owned_by` names the engine, `max_model_len` (vLLM, SGLang),
/// `meta.n_ctx` (llama.cpp: the per-slot context).
pub fn read_models(v: &Value, info: &mut ServerInfo) {
    let Some(first) = v.pointer("/data/0") else {
        return;
    };
    info.model = first.get("id").and_then(Value::as_str).map(str::to_string);
    info.engine = first
        .get("owned_by")
        .and_then(Value::as_str)
        .and_then(Engine::of_owned_by)
        .or(info.engine);
    if let Some(n) = first.get("max_model_len").and_then(Value::as_u64) {
        info.context = Some(ContextLimit {
            tokens: n,
            source: "GET /v1/models max_model_len".into(),
        });
    } else if let Some(n) = first.pointer("/meta/n_ctx").and_then(Value::as_u64) {
        info.context = Some(ContextLimit {
            tokens: n,
            source: "llama.cpp GET /v1/models meta.n_ctx, per slot".into(),
        });
    }
}

/// llama.cpp `/props`. `default_generation_settings.n_ctx` is a slot's context: the server fills
/// it from the slot (n_ctx / --parallel, or the whole pool with --kv-unified, capped at the
/// model's training context), so it is used as is, never divided again by `total_slots`.
pub fn read_llama_props(v: &Value, info: &mut ServerInfo) {
    let Some(n_ctx) = v
        .pointer("/default_generation_settings/n_ctx")
        .and_then(Value::as_u64)
    else {
        return;
    };
    info.engine = Some(Engine::LlamaCpp);
    info.slots = v.get("total_slots").and_then(Value::as_u64);
    let slots = info
        .slots
        .map(|s| format!("; {s} slot(s)"))
        .unwrap_or_default();
    info.context = Some(ContextLimit {
        tokens: n_ctx,
        source: format!("llama.cpp GET /props default_generation_settings.n_ctx, per slot{slots}"),
    });
    if info.model.is_none() {
        info.model = v
            .get("model_alias")
            .and_then(Value::as_str)
            .map(str::to_string);
    }
}

/// TGI `/info`: `max_total_tokens` bounds prompt + generated tokens.
pub fn read_tgi_info(v: &Value, info: &mut ServerInfo) {
    if let Some(n) = v.get("max_total_tokens").and_then(Value::as_u64) {
        info.engine = Some(Engine::Tgi);
        info.context = Some(ContextLimit {
            tokens: n,
            source: "TGI GET /info max_total_tokens".into(),
        });
        if info.model.is_none() {
            info.model = v
                .get("model_id")
                .and_then(Value::as_str)
                .map(str::to_string);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn blank() -> ServerInfo {
        ServerInfo {
            engine: None,
            model: None,
            context: None,
            slots: None,
        }
    }

    #[test]
    fn vllm_models() {
        let mut i = blank();
        read_models(
            &json!({"object":"list","data":[{"id":"Qwen/Qwen3-8B","object":"model",
                "owned_by":"vllm","root":"Qwen/Qwen3-8B","max_model_len":32768}]}),
            &mut i,
        );
        assert_eq!(i.engine, Some(Engine::Vllm));
        assert_eq!(i.model.as_deref(), Some("Qwen/Qwen3-8B"));
        assert_eq!(i.context.unwrap().tokens, 32768);
    }

    #[test]
    fn llama_props_per_slot() {
        let mut i = blank();
        read_models(
            &json!({"data":[{"id":"smol.gguf","owned_by":"llamacpp","meta":{"n_ctx":4096}}]}),
            &mut i,
        );
        read_llama_props(
            &json!({"default_generation_settings":{"n_ctx":4096},"total_slots":2}),
            &mut i,
        );
        assert_eq!(i.engine, Some(Engine::LlamaCpp));
        assert_eq!(i.slots, Some(2));
        let c = i.context.unwrap();
        assert_eq!(c.tokens, 4096);
        assert!(c.source.contains("per slot; 2 slot(s)"), "{}", c.source);
    }

    #[test]
    fn tgi_info_and_empty_models() {
        let mut i = blank();
        read_models(&json!({"data":[]}), &mut i);
        assert_eq!(i.engine, None);
        read_tgi_info(
            &json!({"model_id":"m","max_input_tokens":4095,"max_total_tokens":4096}),
            &mut i,
        );
        assert_eq!(i.engine, Some(Engine::Tgi));
        assert_eq!(i.context.unwrap().tokens, 4096);
    }
}
