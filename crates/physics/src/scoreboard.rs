//! Published llama.cpp decode measurements held against headroom's ceilings.
//!
//! fixtures/scoreboards/llamacpp_decode.toml holds published single-sequence llama.cpp decode
//! rates (full offload): `llama-bench` tg128 results users posted to llama.cpp's scoreboard
//! threads for the CUDA, Vulkan, ROCm and Apple Silicon backends on the threads' fixed model
//! (Llama 2 7B Q4_0), the Apple thread's F16 and Q8_0 columns, and other public pages (other
//! tests, models and file types, each row saying which). Each run is scored against the decode
//! ceiling headroom computes for its card, model and file type: a run above its ceiling would
//! mean a wrong bandwidth, bits per weight or card. The fractions of the fixed run (Llama 2 7B
//! Q4_0, tg128) give, per backend and class of card, the share of the ceiling llama.cpp reaches
//! (median and range), which `headroom ceiling` quotes.
//!
//! fixtures/scoreboards/serving_decode.toml holds published single-stream decode rates of
//! serving engines (vLLM, SGLang, TensorRT-LLM, Ollama): one request at a time (concurrency 1
//! or batch 1), each with its card, model, weight format and tensor-parallel size. They are
//! held against the same decode ceiling (weights through the same `--quantization` path) in
//! their own test and are kept out of the llama.cpp bands.

use numbers::fmt::percent;
use serde::{Deserialize, Serialize};

use crate::catalog::{Catalog, Gpu, Index};
use crate::ceilings::Ceilings;
use crate::spec::{ModelSpec, Options};
use crate::PhysicsError;

const RUNS: &str = include_str!("../../../fixtures/scoreboards/llamacpp_decode.toml");
const SERVING_RUNS: &str = include_str!("../../../fixtures/scoreboards/serving_decode.toml");

/// One published measurement.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Run {
    /// The card, as catalog/gpus.toml names it.
    pub card: String,
    /// llama.cpp backend: CUDA, Vulkan, ROCm, Metal.
    pub backend: String,
    /// Catalog model id.
    pub model: String,
    /// GGUF file type (`--quantization` name).
    pub file_type: String,
    /// The `llama-bench` test the figure is from (`tg128` unless the row says, e.g. `tg512`), or
    /// `eval` for a decode rate not measured with llama-bench.
    #[serde(default = "default_test")]
    pub test: String,
    /// Published decode rate, tokens/s (tg128 unless `test` says otherwise).
    pub decode_tps: f64,
    /// Flash attention on or off; `None` where the page does not say.
    #[serde(default)]
    pub flash_attn: Option<bool>,
    /// The public page the figure was read in.
    pub source: String,
    /// How the figure was quoted where it was read.
    pub quoted: String,
}

fn default_test() -> String {
    "tg128".to_string()
}

impl Run {
    /// The scoreboards' fixed run (Llama 2 7B Q4_0, llama-bench tg128): the rows the bands are
    /// computed from. Other rows are held against their ceiling only.
    pub fn is_fixed_run(&self) -> bool {
        self.model == "llama-2-7b" && self.file_type == "Q4_0" && self.test == "tg128"
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RunsFile {
    run: Vec<Run>,
}

/// A run with the ceiling headroom computes for it.
#[derive(Debug, Clone, PartialEq)]
pub struct Scored {
    pub run: Run,
    pub gpu_id: String,
    pub class: &'static str,
    /// One-sequence decode ceiling, tok/s.
    pub ceiling_tps: f64,
    /// tg128 / ceiling.
    pub fraction: f64,
}

/// The share of the ceiling one backend reaches on one class of card.
#[derive(Debug, Clone, PartialEq)]
pub struct Band {
    pub backend: String,
    pub class: &'static str,
    pub n: usize,
    pub median: f64,
    pub min: f64,
    pub max: f64,
}

/// The published runs (embedded).
pub fn runs() -> Result<Vec<Run>, PhysicsError> {
    let f: RunsFile = fixture(RUNS, "llamacpp_decode.toml")?;
    Ok(f.run)
}

/// An embedded fixture, parsed; a parse error names the file.
fn fixture<T: serde::de::DeserializeOwned>(text: &str, file: &str) -> Result<T, PhysicsError> {
    toml::from_str(text)
        .map_err(|e| PhysicsError::InvalidInput(format!("fixtures/scoreboards/{file}: {e}")))
}

/// The one-sequence decode ceiling of a published run, and the card's entry; `None` when its
/// card or model is not catalogued (such a run cannot be checked).
fn run_ceiling<'a>(
    catalog: &Index<'a>,
    card: &str,
    model: &str,
    opts: &Options,
) -> Result<Option<(&'a Gpu, f64)>, PhysicsError> {
    let (Ok(g), Ok(m)) = (catalog.gpu(card), catalog.model(model)) else {
        return Ok(None);
    };
    let c = Ceilings::compute(g.entry, &ModelSpec::from_catalog(m.entry), opts)?;
    Ok(Some((g.entry, c.figures.decode_tps.value)))
}

/// The class of card a band is kept for. Cards of one class share a memory system and the
/// kernels llama.cpp runs on them, so their runs reach similar shares of the ceiling.
pub fn card_class(gpu: &Gpu) -> &'static str {
    let id = gpu.id.as_str();
    match gpu.vendor.as_str() {
        "Apple" => "Apple M-series (unified memory)",
        "AMD" if id.starts_with("mi") => "AMD Instinct (HBM)",
        // Ryzen iGPUs (Strix Halo's Radeon 8060S) share the CPU's LPDDR5X, not GDDR.
        "AMD" if gpu.name.contains("Ryzen") => "AMD Ryzen iGPU (unified memory)",
        "AMD" => "AMD Radeon (GDDR)",
        // Ponte Vecchio: HBM2e, not an Arc card's GDDR6.
        "Intel" if id.starts_with("intel-max") => "Intel Data Center GPU Max (HBM)",
        // Lunar Lake's Arc 140V/130V read on-package LPDDR5X shared with the CPU.
        "Intel" if gpu.name.contains("Core Ultra") => "Intel iGPU (unified memory)",
        "Intel" => "Intel Arc",
        "Qualcomm" => "Qualcomm Adreno (unified memory)",
        "Moore Threads" => "Moore Threads MTT (GDDR)",
        // A vendor with no class of its own is never taken for NVIDIA.
        v if v != "NVIDIA" => "other vendors",
        // Jetson modules share the CPU's LPDDR5, not GDDR or HBM.
        _ if id.starts_with("jetson") => "NVIDIA Jetson (unified memory)",
        // Mining cards (P102-100 and kin, CMP HX) are GeForce dies on GDDR.
        _ if ["rtx", "gtx", "titan", "quadro", "p10", "cmp"]
            .iter()
            .any(|p| id.starts_with(p)) =>
        {
            "NVIDIA GeForce/RTX (GDDR)"
        }
        _ => "NVIDIA datacenter",
    }
}

/// Every published run whose card and model are catalogued, with its ceiling. Runs whose card
/// is not catalogued are skipped (they cannot be checked).
pub fn score(catalog: &Catalog) -> Result<Vec<Scored>, PhysicsError> {
    let index = catalog.index();
    let mut out = Vec::new();
    for run in runs()? {
        let opts = Options {
            quantization: Some(run.file_type.clone()),
            ..Options::default()
        };
        let Some((g, ceiling_tps)) = run_ceiling(&index, &run.card, &run.model, &opts)? else {
            continue;
        };
        out.push(Scored {
            fraction: run.decode_tps / ceiling_tps,
            gpu_id: g.id.clone(),
            class: card_class(g),
            ceiling_tps,
            run,
        });
    }
    Ok(out)
}

/// Median and range of the fraction per backend and class of card, over the fixed-run rows
/// (Llama 2 7B Q4_0, tg128; [`Run::is_fixed_run`]).
pub fn bands(scored: &[Scored]) -> Vec<Band> {
    let fixed: Vec<&Scored> = scored.iter().filter(|s| s.run.is_fixed_run()).collect();
    let mut keys: Vec<(String, &'static str)> = fixed
        .iter()
        .map(|s| (s.run.backend.clone(), s.class))
        .collect();
    keys.sort();
    keys.dedup();
    keys.into_iter()
        .map(|(backend, class)| {
            let mut f: Vec<f64> = fixed
                .iter()
                .filter(|s| s.run.backend == backend && s.class == class)
                .map(|s| s.fraction)
                .collect();
            f.sort_by(f64::total_cmp);
            let n = f.len();
            let median = if n % 2 == 1 {
                f[n / 2]
            } else {
                (f[n / 2 - 1] + f[n / 2]) / 2.0
            };
            Band {
                backend,
                class,
                n,
                median,
                min: f[0],
                max: f[n - 1],
            }
        })
        .collect()
}

/// The sentence `headroom ceiling` prints for a card: what llama.cpp's published runs reach
/// on its class, per backend. `None` when no published run is of that class.
pub fn band_note(catalog: &Catalog, gpu: &Gpu) -> Option<String> {
    let scored = score(catalog).ok()?;
    let class = card_class(gpu);
    let parts: Vec<String> = bands(&scored)
        .into_iter()
        .filter(|b| b.class == class)
        .map(|b| {
            format!(
                "{} {}–{} (median {}, n={})",
                b.backend,
                percent(b.min),
                percent(b.max),
                percent(b.median),
                b.n
            )
        })
        .collect();
    (!parts.is_empty()).then(|| {
        format!(
            "llama.cpp on {class} cards reaches {} of the decode ceiling in published \
             llama-bench tg128 runs (Llama 2 7B Q4_0, one sequence; llama.cpp's scoreboard \
             discussions #15013, #10879, #15021, #4167 and runs posted for them)",
            parts.join("; ")
        )
    })
}

/// One published single-stream decode measurement of a serving engine.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ServingRun {
    /// The card, as catalog/gpus.toml names it.
    pub card: String,
    /// Serving engine: vLLM, SGLang, TensorRT-LLM, Ollama.
    pub engine: String,
    /// Catalog model id.
    pub model: String,
    /// Weight format as `--quantization` takes it (bf16, fp16, fp8, awq, nvfp4); absent where
    /// the checkpoint's own formats apply (gpt-oss: MXFP4 experts, BF16 elsewhere).
    #[serde(default)]
    pub quantization: Option<String>,
    /// Tensor-parallel size (GPUs serving the one request).
    #[serde(default = "default_tp")]
    pub tp: u32,
    /// What was measured: concurrency, prompt and output lengths, and how the rate was derived.
    pub test: String,
    /// Published decode rate of the one request, tokens/s (1000 / TPOT in ms where the page
    /// gives a time per output token).
    pub decode_tps: f64,
    /// The public page the figure was read in.
    pub source: String,
    /// How the figure was quoted where it was read.
    pub quoted: String,
}

fn default_tp() -> u32 {
    1
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ServingRunsFile {
    run: Vec<ServingRun>,
}

/// A serving run with the ceiling headroom computes for it.
#[derive(Debug, Clone, PartialEq)]
pub struct ServingScored {
    pub run: ServingRun,
    pub gpu_id: String,
    /// One-sequence decode ceiling, tok/s (all `tp` cards' bandwidth).
    pub ceiling_tps: f64,
    /// decode_tps / ceiling.
    pub fraction: f64,
}

/// The published serving-engine runs (embedded).
pub fn serving_runs() -> Result<Vec<ServingRun>, PhysicsError> {
    let f: ServingRunsFile = fixture(SERVING_RUNS, "serving_decode.toml")?;
    Ok(f.run)
}

/// Every published serving run whose card and model are catalogued, with its ceiling: the
/// decode ceiling `headroom ceiling` computes for the card, model, `--quantization` and `--tp`.
pub fn score_serving(catalog: &Catalog) -> Result<Vec<ServingScored>, PhysicsError> {
    let index = catalog.index();
    let mut out = Vec::new();
    for run in serving_runs()? {
        let opts = Options {
            quantization: run.quantization.clone(),
            tp: run.tp,
            ..Options::default()
        };
        let Some((g, ceiling_tps)) = run_ceiling(&index, &run.card, &run.model, &opts)? else {
            continue;
        };
        out.push(ServingScored {
            fraction: run.decode_tps / ceiling_tps,
            gpu_id: g.id.clone(),
            ceiling_tps,
            run,
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every published single-stream run whose card is catalogued lies at or below headroom's
    /// ceiling for its model and file type; one above would mean a wrong bandwidth, bits per
    /// weight or card. Prints every run, a count per backend and file type, and the per-backend,
    /// per-class bands of the fixed run (the BENCHMARKS.md table):
    /// cargo test --release -p physics scoreboard -- --nocapture
    #[test]
    fn published_runs_lie_below_the_ceiling() {
        let c = Catalog::embedded().unwrap();
        let all = runs().unwrap();
        let scored = score(&c).unwrap();
        assert_eq!(scored.len(), all.len(), "every fixture card is catalogued");
        for s in &scored {
            println!(
                "{:6} {:26} {:12} {:6} {:5} {:7.2}  ceiling {:7.1}  {:5.1} %",
                s.run.backend,
                s.run.card,
                s.run.model,
                s.run.file_type,
                s.run.test,
                s.run.decode_tps,
                s.ceiling_tps,
                s.fraction * 100.0
            );
            assert!(
                s.fraction <= 1.0,
                "{} ({}) measured {} tok/s above its ceiling {:.1}",
                s.run.card,
                s.run.backend,
                s.run.decode_tps,
                s.ceiling_tps
            );
            // Every row names the public page it was read in.
            assert!(
                s.run.source.contains("https://github.com/"),
                "{}",
                s.run.source
            );
            assert!(s.run.decode_tps > 0.0 && !s.run.quoted.is_empty());
        }
        let mut counts = std::collections::BTreeMap::<(&str, &str), usize>::new();
        for s in &scored {
            *counts
                .entry((s.run.backend.as_str(), s.run.file_type.as_str()))
                .or_default() += 1;
        }
        println!("\nruns: {}", scored.len());
        for ((backend, file_type), n) in &counts {
            println!("  {backend} {file_type}: {n}");
        }
        println!("\n| backend | class of card | n | median | range |\n|---|---|---|---|---|");
        for b in bands(&scored) {
            println!(
                "| {} | {} | {} | {:.0} % | {:.0}-{:.0} % |",
                b.backend,
                b.class,
                b.n,
                b.median * 100.0,
                b.min * 100.0,
                b.max * 100.0
            );
            assert!(b.min <= b.median && b.median <= b.max);
        }
        // A card of a class with runs gets the sentence; a class without runs does not.
        let note = band_note(&c, c.gpu("RTX 4090").unwrap().entry).unwrap();
        assert!(note.contains("CUDA") && note.contains("n="), "{note}");
        assert!(band_note(&c, c.gpu("H100 SXM").unwrap().entry).is_none());
    }

    /// Every published single-stream serving-engine run whose card is catalogued lies at or
    /// below headroom's ceiling for its model, weight format and tensor-parallel size. Prints
    /// every run and, per engine, the count and the share of the ceiling reached:
    /// cargo test --release -p physics scoreboard -- --nocapture
    #[test]
    fn published_serving_runs_lie_below_the_ceiling() {
        let c = Catalog::embedded().unwrap();
        let all = serving_runs().unwrap();
        let scored = score_serving(&c).unwrap();
        assert_eq!(
            scored.len(),
            all.len(),
            "every fixture card and model is catalogued"
        );
        for s in &scored {
            println!(
                "{:12} {:22} {:15} {:6} tp{} {:8.2}  ceiling {:8.1}  {:5.1} %",
                s.run.engine,
                s.run.card,
                s.run.model,
                s.run.quantization.as_deref().unwrap_or("(file)"),
                s.run.tp,
                s.run.decode_tps,
                s.ceiling_tps,
                s.fraction * 100.0
            );
            assert!(
                s.fraction <= 1.0,
                "{} ({}, {}) measured {} tok/s above its ceiling {:.1}",
                s.run.card,
                s.run.engine,
                s.run.model,
                s.run.decode_tps,
                s.ceiling_tps
            );
            assert!(s.run.source.contains("https://"), "{}", s.run.source);
            assert!(s.run.decode_tps > 0.0 && !s.run.quoted.is_empty() && !s.run.test.is_empty());
        }
        let mut engines: Vec<&str> = scored.iter().map(|s| s.run.engine.as_str()).collect();
        engines.sort_unstable();
        engines.dedup();
        println!("\nserving runs: {}", scored.len());
        println!("| engine | n | median | range |\n|---|---|---|---|");
        for e in engines {
            let mut f: Vec<f64> = scored
                .iter()
                .filter(|s| s.run.engine == e)
                .map(|s| s.fraction)
                .collect();
            f.sort_by(f64::total_cmp);
            let n = f.len();
            let median = if n % 2 == 1 {
                f[n / 2]
            } else {
                (f[n / 2 - 1] + f[n / 2]) / 2.0
            };
            println!(
                "| {e} | {n} | {:.0} % | {:.0}-{:.0} % |",
                median * 100.0,
                f[0] * 100.0,
                f[n - 1] * 100.0
            );
        }
    }

    /// Vendors other than Apple, AMD, Intel and NVIDIA get a class of their own, never "NVIDIA
    /// datacenter"; Intel's HBM Data Center GPU Max is not an Arc card.
    #[test]
    fn new_vendors_are_not_taken_for_nvidia() {
        let c = Catalog::embedded().unwrap();
        let class = |name: &str| card_class(c.gpu(name).unwrap().entry);
        assert_eq!(class("MTT S80"), "Moore Threads MTT (GDDR)");
        assert_eq!(
            class("Data Center GPU Max 1550"),
            "Intel Data Center GPU Max (HBM)"
        );
        assert_eq!(class("B580"), "Intel Arc");
        assert_eq!(class("Arc 140V"), "Intel iGPU (unified memory)");
        assert_eq!(class("Radeon 8050S"), "AMD Ryzen iGPU (unified memory)");
        let mut g = c.gpu("MTT S80").unwrap().entry.clone();
        g.vendor = "Acme".into();
        assert_eq!(card_class(&g), "other vendors");
        g.vendor = "Qualcomm".into();
        assert_eq!(card_class(&g), "Qualcomm Adreno (unified memory)");
        assert_eq!(class("H100 SXM"), "NVIDIA datacenter");
    }

    /// Mining cards are GeForce dies on GDDR; Jetson shares LPDDR5 with its CPU; the Tesla
    /// P100 (HBM2) stays a datacenter card though its id holds "p10".
    #[test]
    fn mining_and_jetson_cards_are_classed_by_their_memory() {
        let c = Catalog::embedded().unwrap();
        let class = |name: &str| card_class(c.gpu(name).unwrap().entry);
        assert_eq!(class("P106-100"), "NVIDIA GeForce/RTX (GDDR)");
        assert_eq!(class("CMP 40HX"), "NVIDIA GeForce/RTX (GDDR)");
        assert_eq!(class("Orin Nano"), "NVIDIA Jetson (unified memory)");
        assert_eq!(class("Tesla P100-PCIE-16GB"), "NVIDIA datacenter");
        assert_eq!(class("Tesla K80"), "NVIDIA datacenter");
    }
}
