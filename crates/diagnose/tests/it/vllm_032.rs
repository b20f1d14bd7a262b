//! The families real vLLM 0.32 sends beside the ones every version did, through the whole judge,
//! on two real captures of one starved server (fixtures/vllm-0.32/SOURCES.md): a KV pool of four
//! blocks, two seats and a queue limit of three in flight, under eight clients. vLLM preempted
//! requests (`request_num_preemptions`, a histogram per finished request) and refused others
//! with HTTP 503 (`admission_rejections_total`). Every figure the document and the evidence
//! print is recomputed here from the raw text, without the project's parser.

use diagnose::{judge, Report, RuleId, Target};
use engines::{RawScrape, Recording, RecordingHeader, ScrapeRecord};

const A: &str = include_str!("../../../../fixtures/vllm-0.32/metrics-starved-a.prom");
const B: &str = include_str!("../../../../fixtures/vllm-0.32/metrics-starved-b.prom");
/// Seconds between the two scrapes, as taken (SOURCES.md).
const GAP_S: f64 = 30.23;
const CMDLINE: &str = "python -m vllm.entrypoints.openai.api_server --model /m \
--served-model-name smollm2-135m --max-model-len 256 --dtype bfloat16 --enforce-eager \
--num-gpu-blocks-override 4 --max-num-seqs 2 --max-num-queued-reqs 3";

/// A series summed over its label sets, optionally only where a label has a value.
fn raw(body: &str, name: &str, label: Option<&str>) -> f64 {
    body.lines()
        .filter(|l| !l.starts_with('#'))
        .filter_map(|l| {
            let rest = l.strip_prefix(name)?;
            let (labels, value) = match rest.strip_prefix('{') {
                Some(r) => r.split_once('}')?,
                None if rest.starts_with(' ') => ("", rest),
                None => return None,
            };
            if label.is_some_and(|want| !labels.contains(want)) {
                return None;
            }
            value.split_whitespace().next()?.parse::<f64>().ok()
        })
        .sum()
}

fn report() -> Report {
    let mut header = RecordingHeader::new("http://127.0.0.1:18433", 1.0, 1000.0);
    header.cmdline = Some(CMDLINE.split_whitespace().map(str::to_string).collect());
    header.vllm_on_cpu = Some(true);
    judged(header, [(1000.0, A), (1000.0 + GAP_S, B)])
}

/// The whole judge over two scrapes of vLLM 0.32 (as `diagnose --replay` reads a recording),
/// the window between them, no GPU or model named.
fn judged(mut header: RecordingHeader, scrapes: [(f64, &str); 2]) -> Report {
    header.version = Some(serde_json::json!({ "version": "0.32.0" }));
    let scrape = |(t, body): (f64, &str)| {
        ScrapeRecord::from_fetch(
            &Ok(RawScrape {
                t,
                body: body.to_string(),
                elapsed_s: 0.01,
            }),
            t,
        )
    };
    let gap = scrapes[1].0 - scrapes[0].0;
    let rec = Recording {
        header,
        scrapes: scrapes.map(scrape).to_vec(),
        truncated_tail: None,
    };
    let shape = crate::shape(gap, None);
    let catalog = physics::Catalog::embedded().unwrap();
    judge(
        &rec,
        &Target {
            shape,
            replay: None,
        },
        &catalog,
    )
    .unwrap()
    .report
}

/// Every evidence line of `rule`, wherever it sits in the document.
fn evidence(doc: &Report, rule: RuleId) -> Vec<String> {
    doc.primary
        .iter()
        .chain(&doc.held)
        .filter(|f| f.rule == rule)
        .flat_map(|f| f.evidence.clone())
        .chain(
            doc.quiet
                .iter()
                .filter(|q| q.rule == rule)
                .flat_map(|q| q.evidence.clone()),
        )
        .collect()
}

fn fired(doc: &Report, rule: RuleId) -> bool {
    doc.primary.iter().chain(&doc.held).any(|f| f.rule == rule)
        || doc.silenced.iter().any(|s| s.rule == rule)
}

#[test]
fn per_request_preemptions_are_the_histograms_own_deltas() {
    let doc = report();
    let d = |name: &str, label: Option<&str>| raw(B, name, label) - raw(A, name, label);
    let finished = d("vllm:request_num_preemptions_count", None);
    let sum = d("vllm:request_num_preemptions_sum", None);
    let le1 = d("vllm:request_num_preemptions_bucket", Some("le=\"1.0\""));
    assert!(finished > 0.0 && sum > 0.0, "the capture shows preemptions");
    let p = doc
        .requests
        .preemptions_per_request
        .expect("vLLM 0.32 exports request_num_preemptions");
    assert_eq!(p.finished, finished);
    assert_eq!(p.preemptions, sum);
    assert_eq!(p.mean, Some(sum / finished));
    assert_eq!(p.at_least_twice, Some(finished - le1));
    // The histogram counts the same requests vLLM's success counter does.
    assert_eq!(finished, d("vllm:request_success_total", None));

    // R2's line states the mean against its gate, with the counts it came from.
    let line = evidence(&doc, RuleId::R2)
        .into_iter()
        .find(|e| e.starts_with("preemptions per finished request "))
        .expect("R2 states the per-request figure");
    let mean = sum / finished;
    let is = if mean >= 0.1 { "is" } else { "is not" };
    assert_eq!(
        line,
        format!(
            "preemptions per finished request {mean:.2} ({sum:.0} over {finished:.0} finished, {:.0} preempted twice or more) {is} at least 0.1",
            finished - le1
        )
    );
    // The KV line: the gauge's mean and peak over the two scrapes, against 88%.
    let (ka, kb) = (
        raw(A, "vllm:kv_cache_usage_perc", None),
        raw(B, "vllm:kv_cache_usage_perc", None),
    );
    let (mean, peak) = ((ka + kb) / 2.0, ka.max(kb));
    let full = mean >= 0.88 || peak >= 0.88;
    let kv_line = format!(
        "KV mean {} peak {}: {} at least 88 %",
        numbers::fmt::percent(mean),
        numbers::fmt::percent(peak),
        if full { "one is" } else { "neither is" }
    );
    assert!(
        evidence(&doc, RuleId::R2).contains(&kv_line),
        "{kv_line} in {:?}",
        evidence(&doc, RuleId::R2)
    );
    // And the counter's rate line is the counter's own rate, against its gate.
    let rate = d("vllm:num_preemptions_total", None) / GAP_S;
    let is = if rate > 0.02 { "is" } else { "is not" };
    assert!(
        evidence(&doc, RuleId::R2)
            .iter()
            .any(|e| e.starts_with(&format!("preemptions {rate:.3}/s {is} above 0.02/s"))),
        "{:?}",
        evidence(&doc, RuleId::R2)
    );
}

#[test]
fn admission_rejections_are_counted_and_fire_r5_with_every_seat_taken() {
    let doc = report();
    let rejected = raw(B, "vllm:admission_rejections_total", None)
        - raw(A, "vllm:admission_rejections_total", None);
    let by_queue = raw(
        B,
        "vllm:admission_rejections_total",
        Some("reason=\"max_num_queued_reqs\""),
    ) - raw(
        A,
        "vllm:admission_rejections_total",
        Some("reason=\"max_num_queued_reqs\""),
    );
    assert!(rejected > 0.0, "the capture shows refusals");
    // Only the in-flight limit was set: every refusal is that one.
    assert_eq!(by_queue, rejected);
    assert_eq!(doc.requests.admission_rejections, Some(rejected));
    assert_eq!(doc.requests.max_num_seqs, Some(2.0));

    let ev = evidence(&doc, RuleId::R5);
    let line = format!(
        "admission rejections {rejected:.0} ({:.3}/s, refused with HTTP 503 at the server's queue limit) is above 0",
        rejected / GAP_S
    );
    assert!(ev.contains(&line), "{line} in {ev:?}");
    // Two seats: the band is one seat, so a scrape with either one or two running fills it.
    let peak =
        raw(A, "vllm:num_requests_running", None).max(raw(B, "vllm:num_requests_running", None));
    let full = peak >= 1.0;
    let seats = format!(
        "running peak {peak:.0} {} within 1 of max_num_seqs 2",
        if full { "is" } else { "is not" }
    );
    assert!(ev.contains(&seats), "{seats} in {ev:?}");
    // A queue the limit cuts at three in flight cannot hold the two waiting R5's queue path
    // needs; the refusals with the seats taken are what fire it.
    assert_eq!(fired(&doc, RuleId::R5), full, "{ev:?}");
    // Its fix says what was seen: seats taken and requests turned away, not a queue.
    let r5 = doc
        .primary
        .iter()
        .chain(&doc.held)
        .find(|f| f.rule == RuleId::R5)
        .expect("R5 fired");
    let step = &r5.fix[0];
    assert_eq!(step.flag.as_deref(), Some("--max-num-seqs"), "{step:?}");
    assert!(
        step.text.contains(&format!(
            "every seat (2) is busy and the server refused {rejected:.0} requests at its queue limit"
        )),
        "{step:?}"
    );
}

/// The committed capture of a healthy run (no limit set, nothing preempted): the figures read
/// as zeros, and neither new line claims anything.
#[test]
fn a_healthy_capture_reads_zeros() {
    let idle = include_str!("../../../../fixtures/vllm-0.32/metrics-idle.prom");
    let busy = include_str!("../../../../fixtures/vllm-0.32/metrics-8-clients.prom");
    let header = RecordingHeader::new("http://127.0.0.1:18100", 1.0, 1000.0);
    let doc = judged(header, [(1000.0, idle), (1040.0, busy)]);
    let p = doc.requests.preemptions_per_request.unwrap();
    assert_eq!(
        p.finished,
        raw(busy, "vllm:request_num_preemptions_count", None)
    );
    assert_eq!(
        (p.preemptions, p.mean, p.at_least_twice),
        (0.0, Some(0.0), Some(0.0))
    );
    assert_eq!(doc.requests.admission_rejections, Some(0.0));
}
