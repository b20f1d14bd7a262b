//! `headroom ceiling` end to end: the spec's two worked examples as exact command lines, the
//! JSON schemas, name lookup at the CLI, a user catalog, and the real SmolLM2 GGUF file.

use std::path::PathBuf;
use std::process::Command;

use crate::util::headroom_output as headroom;
use physics::doc::{CeilingDoc, DutyDoc, ListDoc, RamDoc};
use physics::{BitsSource, Mark, Provenance};
use serde::de::DeserializeOwned;

fn ok_stdout(args: &[&str]) -> String {
    let out = headroom(args);
    assert!(
        out.status.success(),
        "headroom {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("utf-8 stdout")
}

/// The `--json` document, read back as its typed form (physics::doc).
fn ok_json<T: DeserializeOwned>(args: &[&str]) -> T {
    serde_json::from_str(&ok_stdout(args)).expect("stdout is the typed document")
}

/// Three significant figures, in scientific notation: 11.302 → "1.13e1".
fn s3(v: f64) -> String {
    format!("{v:.2e}")
}

use testpeers::peer;

const RAM: &[&str] = &[
    "ceiling",
    "ram",
    "--experts-per-token",
    "240",
    "--expert-params",
    "35.4e6",
    "--bits",
    "3",
    "--shared-gb",
    "0.53",
    "--bandwidth-gbps",
    "42",
];

const DUTY: &[&str] = &[
    "ceiling",
    "duty",
    "--arena-slots",
    "6574",
    "--experts",
    "24576",
    "--miss-rate",
    "0.73",
    "--lookups",
    "480",
    "--slab-mib",
    "2.344",
    "--compute-ms",
    "100",
    "--wait-ms",
    "400",
];

/// The worked example's exact line: 3.7 GB/token and 11.3 tok/s.
#[test]
fn ram_worked_example_prints_the_spec_figures() {
    let out = ok_stdout(RAM);
    assert!(out.contains("3.7 GB/token"), "{out}");
    assert!(out.contains("11.3 tok/s (est)"), "{out}");
    assert!(out.contains("8.5 B"), "{out}");
    let mut args = RAM.to_vec();
    args.push("--json");
    let j: RamDoc = ok_json(&args);
    assert_eq!(j.schema, physics::doc::RAM);
    let r = &j.ram_bound;
    assert_eq!(s3(r.bytes_per_token.value), "3.72e9");
    assert_eq!(r.bytes_per_token.unit, "bytes/token");
    assert_eq!(s3(r.ceiling_tps.value), "1.13e1");
    assert_eq!(r.ceiling_tps.mark, Mark::Est);
    assert_eq!(r.routed_params_per_token.value, 240.0 * 35.4e6);
}

/// The worked example's exact line: ≈27 % resident, 821 MiB (0.861 GB) per token over PCIe,
/// 20 % duty.
#[test]
fn duty_worked_example_prints_the_spec_figures() {
    let out = ok_stdout(DUTY);
    assert!(out.contains("≈27 %"), "{out}");
    assert!(out.contains("821 MiB/token"), "{out}");
    assert!(out.contains("0.861 GB"), "{out}");
    assert!(out.contains("20 %"), "{out}");
    let mut args = DUTY.to_vec();
    args.push("--json");
    let j: DutyDoc = ok_json(&args);
    assert_eq!(j.schema, physics::doc::DUTY);
    let d = &j.duty;
    assert_eq!(s3(d.resident.value), "2.67e1");
    assert_eq!(s3(d.pcie_mib_per_token), "8.21e2");
    assert_eq!(s3(d.pcie_bytes_per_token.value), "8.61e8");
    assert_eq!(d.predicted_duty.value, 20.0);
}

#[test]
fn ordinary_form_human() {
    let out = ok_stdout(&[
        "ceiling",
        "--gpu",
        "H100-SXM",
        "--model",
        "llama-3.1-8b",
        "--prompt-tokens",
        "2048",
        "--context",
        "8192",
    ]);
    for want in [
        "223 tok/s (est)",
        "31.1 prompts/s (est)",
        "295 sequences (est)",
        "~65,900 tok/s",
        "16.1 GB",
        "131 kB/token",
        "~57 sequences at 8192 tokens",
        "catalog",
        "source: catalog default",
    ] {
        assert!(out.contains(want), "missing {want:?} in\n{out}");
    }
    assert!(!out.contains("Hardware ceiling unknown"));
}

#[test]
fn ordinary_form_json_with_tp_and_dtype() {
    let j: CeilingDoc = ok_json(&[
        "ceiling",
        "--gpu",
        "h100 sxm",
        "--model",
        "Llama-3.1-8B-Instruct",
        "--tp",
        "2",
        "--dtype",
        "fp8",
        "--prompt-tokens",
        "2048",
        "--price-per-hour",
        "2.5",
        "--json",
    ]);
    assert_eq!(j.schema, physics::doc::CEILING);
    assert_eq!(j.gpu.get().unwrap().id, "h100-sxm");
    assert_eq!(j.model.get().unwrap().name, "Llama 3.1 8B");
    let mf = j.model_figures.as_ref().unwrap();
    assert_eq!(mf.bits.source, BitsSource::DtypeFlag);
    assert_eq!(mf.bits.bits, 8.0);
    let c = j.ceilings.get().unwrap();
    // 3350 × 2 × 8e9 / (7.505e9 read per token × 8) = 893 tok/s.
    assert_eq!(s3(c.decode_tps.value), "8.93e2");
    assert_eq!(c.decode_tps.mark, Mark::Est);
    assert_eq!(c.compute.get().unwrap().precision, "FP8");
    assert!(c.tp_assumption.as_deref().unwrap().contains("tp 2"));
    let prefill = c.prefill.get().unwrap();
    assert!(prefill.prompts_per_s.value > 0.0);
    assert_eq!(prefill.seq_len_from, "prompt tokens");
    assert!(c.memory.fits);
    // $5/h for two GPUs at 893 tok/s: $1.56 per million.
    assert_eq!(
        s3(c.cost.get().unwrap().per_million_at_decode.value),
        "1.56e0"
    );
    assert!(j.ram_bound.is_none());
}

#[test]
fn no_prompt_length_says_why() {
    let j: CeilingDoc = ok_json(&["ceiling", "--gpu", "L40S", "--model", "qwen3-8b", "--json"]);
    let why = j.ceilings.get().unwrap().prefill.reason().unwrap();
    assert!(why.contains("--prompt-tokens"), "{why}");
    let out = ok_stdout(&["ceiling", "--gpu", "L40S", "--model", "qwen3-8b"]);
    assert!(out.contains("prefill ceiling"), "{out}");
    assert!(out.contains("no prompt length"), "{out}");
}

#[test]
fn unknown_gpu_is_an_error_never_a_neighbour() {
    // A typo: the near names are offered, as different cards with their bandwidth.
    let out = headroom(&["ceiling", "--gpu", "H10O", "--model", "llama-3.1-8b"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("near names are different entries"), "{err}");
    assert!(err.contains("H100 SXM5 80GB (80 GiB, 3350 GB/s)"), "{err}");
    assert!(out.stdout.is_empty(), "no ceiling may print");
    // A loose name is never a neighbour: M40 was the A100 40GB, 5.4x too fast; now it asks
    // which M40 (24 or 12 GB), and no ceiling prints.
    let out = headroom(&[
        "ceiling",
        "--gpu",
        "M40",
        "--model",
        "llama-3.1-8b",
        "--json",
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    // Without --gpu the model's own figures still print, and the ceiling says why it is unknown.
    let j: CeilingDoc = ok_json(&["ceiling", "--model", "llama-3.1-8b", "--json"]);
    assert_eq!(j.ceilings.reason(), Some("no --gpu given"));
    assert!(j.model_figures.unwrap().weight_footprint.value > 1.6e10);
}

#[test]
fn unknown_model_is_an_error() {
    let out = headroom(&["ceiling", "--gpu", "H200", "--model", "llama-9000"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("--model \"llama-9000\": model 'llama-9000' is not in the catalog"),
        "{err}"
    );
}

#[test]
fn ambiguous_names_fail_with_candidates() {
    let out = headroom(&["ceiling", "--gpu", "H100", "--model", "llama-3.1-8b"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("is ambiguous"), "{err}");
    assert!(
        err.contains("H100 PCIe 80GB (80 GiB, 2000 GB/s)")
            && err.contains("H100 NVL 94GB (94 GiB, 3900 GB/s)"),
        "{err}"
    );
}

#[test]
fn token_counts_take_k_suffixes() {
    let k: CeilingDoc = ok_json(&[
        "ceiling",
        "--gpu",
        "L40S",
        "--model",
        "qwen3-8b",
        "--prompt-tokens",
        "2k",
        "--context",
        "8k",
        "--json",
    ]);
    let n: CeilingDoc = ok_json(&[
        "ceiling",
        "--gpu",
        "L40S",
        "--model",
        "qwen3-8b",
        "--prompt-tokens",
        "2048",
        "--context",
        "8192",
        "--json",
    ]);
    let prefill = |d: &CeilingDoc| {
        let p = d.ceilings.get().unwrap().prefill.get().unwrap();
        (p.seq_len.value, p.prompts_per_s.value)
    };
    assert_eq!(prefill(&k), prefill(&n));
    assert_eq!(prefill(&k).0, 2048.0);
    assert_eq!(k.options.context, Some(8192));
}

#[test]
fn bad_flags_are_errors() {
    for (args, want) in [
        (
            vec![
                "ceiling", "--gpu", "H200", "--model", "qwen3-8b", "--dtype", "bf17",
            ],
            "--dtype 'bf17'",
        ),
        (
            vec![
                "ceiling", "--gpu", "H200", "--model", "qwen3-8b", "--tp", "0",
            ],
            "--tp",
        ),
        (vec!["ceiling", "--gpu", "H200"], "--model"),
        (
            vec![
                "ceiling",
                "ram",
                "--experts-per-token",
                "240",
                "--expert-params",
                "1e6",
                "--bits",
                "0",
                "--bandwidth-gbps",
                "42",
            ],
            "--bits",
        ),
        (
            vec![
                "ceiling",
                "duty",
                "--arena-slots",
                "9",
                "--experts",
                "8",
                "--lookups",
                "1",
                "--slab-mib",
                "1",
                "--compute-ms",
                "1",
                "--wait-ms",
                "1",
            ],
            "exceeds",
        ),
    ] {
        let out = headroom(&args);
        assert!(!out.status.success(), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(want), "{args:?}: {err}");
    }
}

#[test]
fn model_form_ram_bound() {
    let j: CeilingDoc = ok_json(&[
        "ceiling",
        "--model",
        "deepseek-v3",
        "--ram-bandwidth",
        "42",
        "--json",
    ]);
    let r = j.ram_bound.unwrap();
    let r = r.get().unwrap();
    assert_eq!(r.experts_per_token.as_ref().unwrap().value, 464.0);
    assert_eq!(s3(r.ceiling_tps.value), "1.15e0");
    let out = ok_stdout(&[
        "ceiling",
        "--model",
        "deepseek-v3",
        "--ram-bandwidth",
        "42",
        "--shared-gb",
        "0",
    ]);
    assert!(out.contains("2.06 tok/s (est)"), "{out}");
}

#[test]
fn list_shows_the_catalogs() {
    let out = ok_stdout(&["ceiling", "--list"]);
    for name in [
        "H100 SXM5 80GB",
        "MI325X",
        "RX 9070 XT",
        "SmolLM2-135M",
        "gpt-oss-120b",
        "DeepSeek-V3",
    ] {
        assert!(out.contains(name), "{name} missing");
    }
    let j: ListDoc = ok_json(&["ceiling", "--list", "--json"]);
    assert_eq!(j.schema, physics::doc::LIST);
    assert!(j.gpus.len() >= 21);
    assert!(j.gpus[0].bandwidth_gbps.source.contains("datasheet"));
}

/// `--list WORDS` keeps the entries whose id, name or an alias holds the words, in any case and
/// spacing; words nothing holds are an error, not an empty table.
#[test]
fn list_with_words_shows_the_entries_holding_them() {
    let j: ListDoc = ok_json(&["ceiling", "--list", "rtx-3090", "--json"]);
    let ids: Vec<&str> = j.gpus.iter().map(|g| g.id.as_str()).collect();
    assert_eq!(ids, ["rtx-3090", "rtx-3090-ti"]);
    assert!(j.models.is_empty());
    let j: ListDoc = ok_json(&["ceiling", "--list", "QWEN3 30B", "--json"]);
    assert!(j.gpus.is_empty());
    assert_eq!(j.models.len(), 1);
    let out = ok_stdout(&["ceiling", "--list", "Qwen3"]);
    assert!(out.contains("Qwen3-8B") && !out.contains("GPUs"), "{out}");
    let err = headroom(&["ceiling", "--list", "no-such-card"]);
    assert!(!err.status.success());
    let stderr = String::from_utf8_lossy(&err.stderr);
    assert!(
        stderr.contains("no catalogued GPU or model holds"),
        "{stderr}"
    );
}

/// A scratch file removed when the test ends.
struct TempFile(PathBuf);

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

#[test]
fn user_catalog_adds_a_gpu() {
    let f = TempFile(
        std::env::temp_dir().join(format!("headroom-ceiling-{}.toml", std::process::id())),
    );
    std::fs::write(
        &f.0,
        "[[gpu]]\nid = 'lab-card'\nname = 'Lab Card'\nvendor = 'Acme'\nmemory_gib = 16\n\
         bandwidth_gbps = 500\nbf16_tflops = 50\n",
    )
    .unwrap();
    let path = f.0.to_str().unwrap();
    let j: CeilingDoc = ok_json(&[
        "ceiling",
        "--catalog",
        path,
        "--gpu",
        "lab card",
        "--model",
        "smollm2-135m",
        "--json",
    ]);
    assert_eq!(
        j.gpu.get().unwrap().bandwidth_gbps.source,
        format!("user catalog {path}")
    );
    // 500 × 8e9 / (134.5e6 × 16) = 1859 tok/s.
    assert_eq!(s3(j.ceilings.get().unwrap().decode_tps.value), "1.86e3");
    std::fs::write(&f.0, "[[gpu]]\nid = 'x'\nbogus = 1\n").unwrap();
    let out = headroom(&["ceiling", "--catalog", path, "--list"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains(path) && err.contains("line"), "{err}");
}

/// The real SmolLM2-135M Q4_1 file: the figures come from the file, its bytes agree with what
/// gguf-py says the tensor data spans, and the KV size with the model's config.
#[test]
fn gguf_model_on_rtx_3090() {
    let Some(model) = peer("HEADROOM_MODEL") else {
        return;
    };
    let Some(py) = peer("HEADROOM_PY") else {
        return;
    };
    let j: CeilingDoc = ok_json(&[
        "ceiling",
        "--gguf",
        &model,
        "--gpu",
        "RTX-3090",
        "--max-model-len",
        "2048",
        "--json",
    ]);
    assert_eq!(j.model.get().unwrap().provenance, Provenance::ModelFile);
    let mf = j.model_figures.as_ref().unwrap();
    assert_eq!(mf.bits.source, BitsSource::ModelFile);
    assert_eq!(mf.params_total.value, 134_515_008.0);
    // 30 layers × 3 kv heads × 64 × 2 × 2 bytes.
    assert_eq!(mf.kv.get().unwrap().bytes_per_token.value, 23_040.0);

    // gguf-py: the tensor data runs from the first tensor's data offset to the end of the file.
    let script = "import gguf, os, sys\n\
                  r = gguf.GGUFReader(sys.argv[1])\n\
                  start = min(int(t.data_offset) for t in r.tensors)\n\
                  print(os.path.getsize(sys.argv[1]) - start)\n";
    let out = Command::new(&py)
        .args(["-c", script, &model])
        .output()
        .expect("run gguf-py");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let data_bytes: f64 = String::from_utf8_lossy(&out.stdout).trim().parse().unwrap();
    assert_eq!(mf.weight_footprint.value, data_bytes);
    // Dense: decode streams every byte; 936 GB/s over them.
    let decode = j.ceilings.get().unwrap().decode_tps.value;
    assert_eq!(s3(decode), s3(936e9 / data_bytes));

    let human = ok_stdout(&["ceiling", "--gguf", &model, "--gpu", "RTX-3090"]);
    assert!(human.contains("source: model file tensor types"), "{human}");
    assert!(human.contains("tok/s (est)"), "{human}");
    assert!(!human.contains("Hardware ceiling unknown"), "{human}");
}

/// `--quantization Q4_1` for the catalogued SmolLM2-135M gives the bytes of the real Q4_1 file:
/// llama-quantize's rules put its tied table at Q8_0 (576 columns are no multiple of Q6_K's
/// 256), where the 5.11-bit average of 7-8B files would be 11 % short. Measured: 96.6 MB both.
#[test]
fn file_type_by_name_sizes_the_real_smollm2_file() {
    let Some(model) = peer("HEADROOM_MODEL") else {
        return;
    };
    let footprint = |args: &[&str]| {
        let mut a = vec!["ceiling", "--gpu", "RTX-3090", "--json"];
        a.extend_from_slice(args);
        let j: CeilingDoc = ok_json(&a);
        j.model_figures.as_ref().unwrap().weight_footprint.value
    };
    let file = footprint(&["--gguf", &model]);
    let named = footprint(&["--model", "smollm2-135m", "--quantization", "q4_1"]);
    assert!(
        (named / file - 1.0).abs() < 0.005,
        "{named} vs the file's {file}"
    );
}

/// A qwen3moe-shaped GGUF written by gguf-py's GGUFWriter: the expert accounting reaches the
/// ceiling (footprint from every expert, decode stream and RAM-bound bytes from the used ones)
/// and agrees with gguf-py's own parameter count.
#[test]
fn gguf_moe_written_by_gguf_py() {
    let Some(py) = peer("HEADROOM_PY") else {
        return;
    };
    let path =
        std::env::temp_dir().join(format!("headroom-ceiling-moe-{}.gguf", std::process::id()));
    let _cleanup = TempFile(path.clone());
    let script = r#"
import json, sys
import numpy as np
import gguf
w = gguf.GGUFWriter(sys.argv[1], "qwen3moe")
w.add_block_count(2)
w.add_context_length(4096)
w.add_embedding_length(256)
w.add_feed_forward_length(512)
w.add_head_count(4)
w.add_head_count_kv(2)
w.add_expert_count(8)
w.add_expert_used_count(2)
w.add_expert_feed_forward_length(64)
h = np.float16
w.add_tensor("token_embd.weight", np.zeros((100, 256), h))
for b in range(2):
    w.add_tensor(f"blk.{b}.attn_q.weight", np.zeros((256, 256), h))
    w.add_tensor(f"blk.{b}.ffn_gate_inp.weight", np.zeros((8, 256), np.float32))
    w.add_tensor(f"blk.{b}.ffn_gate_exps.weight", np.zeros((8, 64, 256), h))
    w.add_tensor(f"blk.{b}.ffn_up_exps.weight", np.zeros((8, 64, 256), h))
    w.add_tensor(f"blk.{b}.ffn_down_exps.weight", np.zeros((8, 256, 64), h))
w.add_tensor("output.weight", np.zeros((100, 256), h))
total, shared, per_expert, n_experts = w.get_total_parameter_count()
w.write_header_to_file()
w.write_kv_data_to_file()
w.write_tensors_to_file()
w.close()
print(json.dumps({"total": total, "per_expert": per_expert, "n_experts": n_experts}))
"#;
    let out = Command::new(&py)
        .args(["-c", script, path.to_str().unwrap()])
        .output()
        .expect("run gguf-py");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    /// What the script above prints (gguf-py's parameter count).
    #[derive(serde::Deserialize)]
    struct GgufPyCount {
        total: f64,
        per_expert: f64,
    }
    let want: GgufPyCount = serde_json::from_slice(&out.stdout).unwrap();
    let per_expert = want.per_expert;
    assert_eq!(per_expert, 2.0 * 3.0 * 64.0 * 256.0);

    let j: CeilingDoc = ok_json(&[
        "ceiling",
        "--gguf",
        path.to_str().unwrap(),
        "--gpu",
        "H100-SXM",
        "--ram-bandwidth",
        "42",
        "--json",
    ]);
    let m = j.model.get().unwrap();
    assert_eq!(m.params_total, want.total);
    let moe = m.moe.as_ref().unwrap();
    assert_eq!((moe.experts, moe.experts_used), (8, 2));
    assert_eq!(moe.routed_params_total, 8.0 * per_expert);
    let mf = j.model_figures.as_ref().unwrap();
    let footprint = mf.weight_footprint.value;
    let stream = mf.decode_stream.value;
    // Six of the eight experts' f16 bytes are not read per token, nor the input embedding: the
    // file has its own output.weight, so token_embd (100 × 256 f16) is a row lookup.
    assert_eq!(m.params_gathered, Some(100.0 * 256.0));
    assert_eq!(
        footprint - stream,
        6.0 * per_expert * 2.0 + 100.0 * 256.0 * 2.0
    );
    // 2 layers × 2 kv heads × 64 (256 / 4 heads) × 2 × 2 bytes.
    assert_eq!(mf.kv.get().unwrap().bytes_per_token.value, 1024.0);
    let r = j.ram_bound.as_ref().unwrap().get().unwrap();
    assert_eq!(r.routed_params_per_token.value, 2.0 * per_expert);
    assert_eq!(r.bytes_per_token.value, stream);
    assert_eq!(s3(r.ceiling_tps.value), s3(42e9 / stream));
    assert!(r.notes[0].contains("average"));
}

/// CPU-only serving: `--gpu none` with a RAM bandwidth gives the decode ceiling from host RAM
/// (every active weight streams from it); without a bandwidth it is an error that says how.
#[test]
fn cpu_only_decode_ceiling_from_ram_bandwidth() {
    let j: CeilingDoc = ok_json(&[
        "ceiling",
        "--gpu",
        "none",
        "--model",
        "llama-3.1-8b",
        "--quantization",
        "q4_k_m",
        "--ram-bandwidth",
        "80",
        "--json",
    ]);
    assert!(j.options.cpu_only);
    assert!(j.gpu.reason().unwrap().contains("CPU only"));
    let r = j.ram_bound.unwrap();
    let r = r.get().unwrap();
    // 80 GB/s over the 4.62 GB a token reads of a Q4_K_M file by llama-quantize's rules (4.91
    // GB in all, less the 0.295 GB Q4_K input embedding, a row lookup): 17.3 tok/s.
    assert_eq!(s3(r.ceiling_tps.value), "1.73e1");
    assert_eq!(r.bandwidth.provenance, Provenance::EngineFlag);
    let out = ok_stdout(&[
        "ceiling",
        "--gpu",
        "CPU",
        "--model",
        "llama-3.1-8b",
        "--quantization",
        "Q4_K_M",
        "--ram-bandwidth",
        "80",
    ]);
    assert!(out.contains("CPU only"), "{out}");
    assert!(!out.contains("Hardware ceiling unknown"), "{out}");
    assert!(out.contains("17.3 tok/s"), "{out}");
    let out = headroom(&["ceiling", "--gpu", "none", "--model", "llama-3.1-8b"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("--ram-bandwidth") && err.contains("--measure"),
        "{err}"
    );
}

/// A card users post llama.cpp scoreboards for resolves, takes a GGUF file type by name, and
/// its ceiling says what llama.cpp reaches on its class of card.
#[test]
fn consumer_card_with_gguf_file_type_and_llamacpp_band() {
    let j: CeilingDoc = ok_json(&[
        "ceiling",
        "--gpu",
        "RTX 3060 12GB",
        "--model",
        "llama-2-7b",
        "--quantization",
        "Q4_0",
        "--json",
    ]);
    assert_eq!(j.gpu.get().unwrap().id, "rtx-3060-12gb");
    let c = j.ceilings.get().unwrap();
    // 360 GB/s over the 3.75 GB a token reads of the file llama-quantize's rules give
    // (output.weight at Q6_K, the rest Q4_0; 3.825 GB in all, the 3.56 GiB llama-bench prints,
    // less the 0.074 GB input embedding, a row lookup): 96.0 tok/s.
    assert_eq!(s3(c.decode_tps.value), "9.60e1");
    assert!(
        j.notes
            .iter()
            .any(|n| n.contains("llama.cpp on NVIDIA GeForce/RTX") && n.contains("CUDA")),
        "{:?}",
        j.notes
    );
    // The two RTX 3060s differ: the bare name is ambiguous.
    let out = headroom(&["ceiling", "--gpu", "RTX 3060", "--model", "llama-2-7b"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("RTX 3060 8GB") && err.contains("RTX 3060 12GB"),
        "{err}"
    );
}
