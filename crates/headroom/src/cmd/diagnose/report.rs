//! One diagnosis, ready to print or store: what was sampled, against what ceiling, and the
//! verdict. `to_json` is the documented `headroom.diagnose/1` document (docs/json/diagnose.md).

use super::physics::CeilingInfo;
use diagnose::{Finding, Inputs, Verdict};
use serde_json::{json, Value};
use std::collections::BTreeMap;

pub const SCHEMA: &str = "headroom.diagnose/1";

/// How the window was taken, so a re-measure can take the same shape again.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize, PartialEq)]
pub struct Shape {
    pub url: Option<String>,
    pub duration_s: f64,
    pub interval_s: f64,
    pub gpu: Option<String>,
    pub model: Option<String>,
    pub gguf: Option<String>,
    pub engine_args: Option<String>,
    pub tp: Option<u32>,
    pub dtype: Option<String>,
    pub quantization: Option<String>,
    pub price_per_hour: Option<f64>,
    pub sub_windows: usize,
}

/// What happened to the window on its way in.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct Coverage {
    pub ok: usize,
    pub failed: usize,
    /// First failure messages (a few), for the report.
    pub errors: Vec<String>,
    /// Scrapes dropped because a counter reset (engine restart) split the window.
    pub cut_by_reset: usize,
    pub resets: usize,
    /// Families cut from truncated scrapes, e.g. "vllm:iteration_tokens_total (line 88)".
    pub truncated: Vec<String>,
    /// Unix seconds of the first and last scrape used.
    pub start: Option<f64>,
    pub end: Option<f64>,
}

/// A config value with where it came from ("engine_args", "metrics_labels", ...).
#[derive(Debug, Clone, serde::Serialize, PartialEq)]
pub struct Sourced {
    pub value: Value,
    pub source: String,
}

pub struct Report {
    pub shape: Shape,
    pub engine_version: Option<String>,
    pub coverage: Coverage,
    pub served_model: Option<String>,
    pub ceiling: CeilingInfo,
    pub config_sources: BTreeMap<String, Sourced>,
    pub inputs: Inputs,
    pub verdict: Verdict,
}

fn finding(f: &Finding) -> Value {
    json!({
        "rule": f.rule.as_str(),
        "title": f.rule.title(),
        "variant": f.variant,
        "evidence": f.evidence,
        "fix": f.fix,
        "seen_in": f.seen_in,
    })
}

impl Report {
    /// Dollars per million output tokens at the measured throughput, only when enough
    /// completions cover mean running (the turnover gate).
    pub fn cost(&self) -> (Option<f64>, Option<String>) {
        let Some(price) = self.shape.price_per_hour else {
            return (None, Some("no --price-per-hour".into()));
        };
        let w = &self.inputs.window;
        let (Some(gen), Some(fin), Some(run)) = (w.generation_tps, w.finished, w.running) else {
            return (
                None,
                Some("throughput, completions or running not measured".into()),
            );
        };
        if fin < run.mean.max(1.0) {
            return (
                None,
                Some(format!(
                    "turnover gate: {fin:.0} completions do not cover mean running {:.1}",
                    run.mean
                )),
            );
        }
        if gen <= 0.0 {
            return (None, Some("no tokens generated".into()));
        }
        (Some(physics::ceilings::cost_per_million(price, gen)), None)
    }

    pub fn to_json(&self) -> Value {
        let w = &self.inputs.window;
        let v = &self.verdict;
        let d = &v.derived;
        let (cost, cost_reason) = self.cost();
        let g =
            |x: Option<diagnose::GaugeStats>| x.map(|g| json!({"mean": g.mean, "peak": g.peak}));
        let dist = |x: Option<diagnose::Dist>| {
            x.filter(|d| d.count > 0.0)
                .map(|d| json!({"count": d.count, "mean": d.mean, "p50": d.p50, "p95": d.p95}))
        };
        json!({
            "schema": SCHEMA,
            "engine": self.inputs.engine,
            "engine_version": self.engine_version,
            "model": self.ceiling.model.clone().or(self.served_model.clone()),
            "served_model": self.served_model,
            "gpu": self.ceiling.gpu,
            "shape": self.shape,
            "window": {
                "start": self.coverage.start,
                "end": self.coverage.end,
                "duration_s": w.duration_s,
                "sub_windows": self.inputs.sub_windows.len(),
                "resets": self.coverage.resets,
                "cut_by_reset": self.coverage.cut_by_reset,
                "truncated": self.coverage.truncated,
            },
            "scrapes": {"ok": self.coverage.ok, "failed": self.coverage.failed, "errors": self.coverage.errors},
            "ceiling": self.ceiling,
            "efficiency": {
                "efficiency": d.efficiency,
                "config_relative": d.config_efficiency,
                "speculation_suspected": d.speculation_suspected,
                "occupancy": d.occupancy,
                "occupancy_wall": d.occupancy_wall,
                "soft_field": d.soft_field,
                "seat_target": d.seat_target,
                "prompt_gen_ratio": d.prompt_gen_ratio,
            },
            "cost": {"per_million_output_tokens": cost, "reason": cost_reason},
            "requests": {
                "running": g(w.running),
                "waiting": g(w.waiting),
                "swapped": g(w.swapped),
                "max_num_seqs": self.inputs.config.max_num_seqs,
                "queue_ratio": w.queue_ratio,
                "finished_per_s": w.finished_per_s,
                "finished": w.finished,
            },
            "latency": {"ttft_s": dist(w.ttft), "tpot_s": dist(w.itl), "e2e_s": dist(w.e2e), "queue_s": dist(w.queue_time)},
            "kv": {"usage": g(w.kv_usage), "capacity_tokens": self.inputs.config.kv_capacity_tokens},
            "prefix": {"hit_rate": w.prefix_hit_rate, "hit_tokens_per_s": w.prefix_hit_tps, "caching": self.inputs.config.prefix_caching},
            "throughput": {"generation_tokens_per_s": w.generation_tps, "prompt_tokens_per_s": w.prompt_tps},
            "traffic": {"mean_prompt_tokens": w.mean_prompt_tokens(), "mean_output_tokens": w.mean_gen_tokens()},
            "config": self.config_sources,
            "primary": v.primary.as_ref().map(finding),
            "held": v.held.iter().map(finding).collect::<Vec<_>>(),
            "next": v.next.as_ref().map(finding),
            "silenced": v.silenced.iter().map(|s| json!({"rule": s.rule.as_str(), "by": s.by.as_str(), "why": s.why})).collect::<Vec<_>>(),
            "quiet": v.quiet.iter().map(|f| json!({"rule": f.rule.as_str(), "silent_reason": f.silent_reason, "evidence": f.evidence})).collect::<Vec<_>>(),
            "fallback": v.fallback,
            "boundary": v.boundary,
            "sub_window_generation_tps": self.inputs.sub_windows.iter().map(|s| s.generation_tps).collect::<Vec<_>>(),
        })
    }
}
