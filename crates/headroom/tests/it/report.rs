//! `headroom report` and `--html`, opened in a real browser: Debian's chromium, headless, with
//! name resolution and the proxy pointed nowhere. Each kind of page (diagnose, remeasure, bench,
//! regress) is made from a real run (the emulator stands in for vLLM and serves the bench), then
//! opened: no console message, no request leaves the page, the screenshot is not blank, and
//! each plot has as many marks as its table has values. A hostile run (model, evidence, metric
//! names holding markup) renders as text.
//!
//! The harness checks are shown to fail: a page with a script that logs and an image from the
//! network is caught by both (`the_harness_sees_console_messages_and_requests`).

use diagnose::report::Report;
use diagnose::{Boundary, BoundaryKind};
use loadgen::bench_doc::BenchDoc;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::util::Headroom;
use std::time::Duration;

/// Debian's chromium, or None (the test says SKIPPED; under HEADROOM_REQUIRE_PEERS=1 it fails).
fn chromium() -> Option<PathBuf> {
    let found = std::env::var_os("PATH").and_then(|p| {
        std::env::split_paths(&p)
            .map(|d| d.join("chromium"))
            .find(|c| c.is_file())
    });
    if found.is_none() {
        if std::env::var("HEADROOM_REQUIRE_PEERS").as_deref() == Ok("1") {
            panic!("chromium is not installed: run scripts/peers.sh");
        }
        eprintln!("SKIPPED: chromium is not installed (scripts/peers.sh installs it)");
    }
    found
}

/// What the browser saw of a page.
struct Opened {
    dom: String,
    /// Console messages (the pages carry no script, so any message is a fault: a CSP
    /// violation, a script that ran).
    console: Vec<String>,
    /// URLs the page asked the network for (requests keyed to the file:// origin; the
    /// browser's own background requests are not the page's).
    requests: Vec<String>,
    /// Share of the screenshot's pixels that differ from its top-left pixel, and how many
    /// distinct colours it holds.
    inked: f64,
    colours: usize,
}

const QUIET: &[&str] = &[
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--hide-scrollbars",
    "--no-first-run",
    "--disable-extensions",
    "--disable-sync",
    "--disable-background-networking",
    "--disable-component-update",
    "--host-resolver-rules=MAP * ~NOTFOUND",
    "--proxy-server=127.0.0.1:9",
    "--enable-logging=stderr",
    "--v=0",
];

fn open(chrome: &Path, page: &Path, dir: &Path) -> Opened {
    let url = format!("file://{}", page.canonicalize().unwrap().display());
    let net = dir.join("net.json");
    let _ = std::fs::remove_file(&net);
    let out = Command::new(chrome)
        .args(QUIET)
        .arg(format!(
            "--user-data-dir={}",
            dir.join("profile-dom").display()
        ))
        .arg(format!("--log-net-log={}", net.display()))
        .arg("--dump-dom")
        .arg(&url)
        .output()
        .expect("run chromium --dump-dom");
    assert!(
        out.status.success(),
        "chromium: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let dom = String::from_utf8(out.stdout).expect("DOM is UTF-8");
    let console = String::from_utf8_lossy(&out.stderr)
        .lines()
        .filter(|l| l.contains(":CONSOLE"))
        .map(str::to_string)
        .collect();
    // Chromium's NetLog: the browser's own format, walked as JSON.
    let log: Value = serde_json::from_slice(&std::fs::read(&net).expect("net log written"))
        .expect("net log is JSON");
    let mut requests: Vec<String> = Vec::new();
    for e in log["events"].as_array().into_iter().flatten() {
        let p = &e["params"];
        let page_owned = p["network_isolation_key"]
            .as_str()
            .is_some_and(|k| k.starts_with("file://"));
        if let Some(u) = p["url"].as_str() {
            if page_owned && !u.starts_with("file:") && !requests.iter().any(|r| r == u) {
                requests.push(u.to_string());
            }
        }
    }
    // Requests keyed to the page by their source id (the URL and the isolation key are on
    // different events of the same request).
    let page_ids: Vec<u64> = log["events"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|e| {
            e["params"]["network_isolation_key"]
                .as_str()
                .is_some_and(|k| k.starts_with("file://"))
        })
        .filter_map(|e| e["source"]["id"].as_u64())
        .collect();
    for e in log["events"].as_array().into_iter().flatten() {
        if let (Some(id), Some(u)) = (e["source"]["id"].as_u64(), e["params"]["url"].as_str()) {
            if page_ids.contains(&id) && !u.starts_with("file:") && !requests.iter().any(|r| r == u)
            {
                requests.push(u.to_string());
            }
        }
    }
    let shot = dir.join("shot.png");
    let _ = std::fs::remove_file(&shot);
    let out = Command::new(chrome)
        .args(QUIET)
        .arg(format!(
            "--user-data-dir={}",
            dir.join("profile-shot").display()
        ))
        .arg("--window-size=1100,1400")
        .arg(format!("--screenshot={}", shot.display()))
        .arg(&url)
        .output()
        .expect("run chromium --screenshot");
    assert!(
        out.status.success(),
        "chromium: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let (inked, colours) = ink(&std::fs::read(&shot).expect("screenshot written"));
    Opened {
        dom,
        console,
        requests,
        inked,
        colours,
    }
}

/// Decodes an 8-bit RGB or RGBA PNG (what chromium writes) far enough to count its ink.
fn ink(png: &[u8]) -> (f64, usize) {
    use std::io::Read;
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n", "not a PNG");
    let (mut i, mut w, mut h, mut channels) = (8, 0usize, 0usize, 0usize);
    let mut idat = Vec::new();
    while i + 8 <= png.len() {
        let len = u32::from_be_bytes(png[i..i + 4].try_into().unwrap()) as usize;
        let kind = &png[i + 4..i + 8];
        let data = &png[i + 8..i + 8 + len];
        match kind {
            b"IHDR" => {
                w = u32::from_be_bytes(data[0..4].try_into().unwrap()) as usize;
                h = u32::from_be_bytes(data[4..8].try_into().unwrap()) as usize;
                assert_eq!(data[8], 8, "bit depth");
                channels = match data[9] {
                    2 => 3,
                    6 => 4,
                    t => panic!("colour type {t}"),
                };
            }
            b"IDAT" => idat.extend_from_slice(data),
            _ => {}
        }
        i += 12 + len;
    }
    let mut raw = Vec::new();
    flate2::read::ZlibDecoder::new(&idat[..])
        .read_to_end(&mut raw)
        .expect("IDAT inflates");
    let stride = w * channels;
    let mut img = vec![0u8; h * stride];
    for y in 0..h {
        let f = raw[y * (stride + 1)];
        let line = &raw[y * (stride + 1) + 1..(y + 1) * (stride + 1)];
        for x in 0..stride {
            let a = if x >= channels {
                img[y * stride + x - channels]
            } else {
                0
            };
            let b = if y > 0 { img[(y - 1) * stride + x] } else { 0 };
            let c = if x >= channels && y > 0 {
                img[(y - 1) * stride + x - channels]
            } else {
                0
            };
            let pred = match f {
                0 => 0,
                1 => a,
                2 => b,
                3 => ((a as u16 + b as u16) / 2) as u8,
                4 => {
                    let p = a as i16 + b as i16 - c as i16;
                    let (pa, pb, pc) = (
                        (p - a as i16).abs(),
                        (p - b as i16).abs(),
                        (p - c as i16).abs(),
                    );
                    if pa <= pb && pa <= pc {
                        a
                    } else if pb <= pc {
                        b
                    } else {
                        c
                    }
                }
                f => panic!("filter {f}"),
            };
            img[y * stride + x] = line[x].wrapping_add(pred);
        }
    }
    let bg = &img[..channels];
    let px: Vec<&[u8]> = img.chunks(channels).collect();
    let inked = px.iter().filter(|p| p != &&bg).count() as f64 / px.len() as f64;
    let mut colours: Vec<&[u8]> = px.clone();
    colours.sort();
    colours.dedup();
    (inked, colours.len())
}

/// The value of `name="..."` inside a tag's text.
fn attr<'a>(tag: &'a str, name: &str) -> Option<&'a str> {
    let k = format!(" {name}=\"");
    let i = tag.find(&k)? + k.len();
    Some(&tag[i..i + tag[i..].find('"')?])
}

/// For every plot: each series' marks (polyline vertices, circles and bars) against the values in
/// its column of the plot's table. Returns how many series were checked.
fn marks_match_tables(dom: &str) -> usize {
    let mut checked = 0;
    for (start, _) in dom.match_indices("<svg") {
        let tag = &dom[start..start + dom[start..].find('>').unwrap()];
        let Some(id) = attr(tag, "data-chart") else {
            continue;
        };
        let body = &dom[start..start + dom[start..].find("</svg>").unwrap()];
        let table = dom
            .find(&format!("data-for=\"{id}\""))
            .map(|i| &dom[i..i + dom[i..].find("</table>").unwrap()])
            .unwrap_or_else(|| panic!("plot {id} has no table"));
        // Header cells (`<th …>`, not `<thead>`).
        let heads: Vec<&str> = table
            .split("<th")
            .skip(1)
            .filter(|t| t.starts_with([' ', '>']))
            .map(|t| &t[..t.find('>').unwrap()])
            .collect();
        let series: Vec<usize> = body
            .match_indices("<g class=\"series")
            .map(|m| m.0)
            .collect();
        for (k, &s) in series.iter().enumerate() {
            let seg = &body[s..series.get(k + 1).copied().unwrap_or(body.len())];
            let name = attr(&seg[..seg.find('>').unwrap()], "data-series").expect("series named");
            let vertices: usize = seg
                .split("<polyline")
                .skip(1)
                .map(|p| attr(p, "points").unwrap().split_whitespace().count())
                .sum();
            let marks = vertices
                + seg.matches("<circle").count()
                + seg.matches("<rect class=\"bar\"").count();
            let col = heads
                .iter()
                .position(|h| attr(h, "data-series") == Some(name))
                .unwrap_or_else(|| panic!("plot {id}: no column for series {name}"));
            // Body rows only: a `<tfoot>` (a fleet median) is not a plotted value.
            let tbody = &table[table.find("<tbody").unwrap()..];
            let tbody = &tbody[..tbody.find("</tbody>").unwrap_or(tbody.len())];
            let values = tbody
                .split("<tr")
                .skip(1)
                .filter(|row| {
                    let cell = row.split("<td").nth(col + 1).unwrap_or("");
                    let text = &cell[cell.find('>').unwrap() + 1..cell.find("</td>").unwrap()];
                    !text.trim().is_empty()
                })
                .count();
            assert_eq!(
                marks, values,
                "plot {id}, series {name}: marks against table values"
            );
            checked += 1;
        }
    }
    checked
}

/// The checks every page passes.
fn check(chrome: &Path, page: &Path, dir: &Path, min_series: usize) -> Opened {
    // HEADROOM_KEEP_PAGES=DIR keeps a copy of each page, to look at.
    if let Some(keep) = std::env::var_os("HEADROOM_KEEP_PAGES") {
        let _ = std::fs::copy(page, Path::new(&keep).join(page.file_name().unwrap()));
    }
    let o = open(chrome, page, dir);
    let what = page.display();
    assert!(o.console.is_empty(), "{what}: console said {:?}", o.console);
    assert!(
        o.requests.is_empty(),
        "{what}: requests left the page: {:?}",
        o.requests
    );
    // A rendered page inks far more than 2 % of the screen in many colours (text antialiasing
    // alone gives dozens); a blank or failed render is one colour.
    assert!(
        o.inked > 0.02 && o.colours > 16,
        "{what}: screenshot looks blank ({:.3} inked, {} colours)",
        o.inked,
        o.colours
    );
    assert!(
        !o.dom.contains("<script"),
        "{what}: a script element in the page"
    );
    let n = marks_match_tables(&o.dom);
    assert!(
        n >= min_series,
        "{what}: {n} series checked, expected at least {min_series}"
    );
    o
}

/// The kv-pressure scenario, driven in simulated time at 20× (preemptions, a full KV pool).
fn emulate() -> (crate::util::EmulateProc, String) {
    let emu = crate::util::EmulateProc::driven("kv-pressure", "20", "240s", &[]);
    let url = emu.url.clone();
    (emu, url)
}

#[test]
fn diagnose_and_remeasure_pages_in_a_browser() {
    let Some(chrome) = chromium() else { return };
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let db = d.join("h.sqlite");
    let (emu, url) = emulate();
    // Warm-up: the scenario's load needs a minute of simulated time (3 s at 20×).
    std::thread::sleep(Duration::from_secs(4));
    let diag = d.join("diagnose.html");
    let doc: Report = serde_json::from_str(
        &Headroom::cmd(&[
            "diagnose",
            "--url",
            &url,
            "--gpu",
            "H100-SXM",
            "--model",
            "llama-3.1-8b",
            "--duration",
            "6s",
            "--interval",
            "100ms",
            "--save",
            "--db",
            db.to_str().unwrap(),
            "--html",
            diag.to_str().unwrap(),
            "--json",
            "--quiet",
        ])
        .stdout(),
    )
    .unwrap();
    let points = doc.timeline.points.len();
    assert!(points >= 10, "{points} timeline points");
    let rem = d.join("remeasure.html");
    Headroom::cmd(&[
        "remeasure",
        "--db",
        db.to_str().unwrap(),
        "--html",
        rem.to_str().unwrap(),
        "--json",
        "--quiet",
    ])
    .stdout();
    drop(emu);

    // diagnose: five timeline plots (generation, prompt, running + waiting, KV, preemptions).
    let o = check(&chrome, &diag, d, 6);
    let primary = doc.primary_rule().map_or("none", |r| r.as_str());
    assert!(
        o.dom.contains(&format!("data-primary=\"{primary}\"")),
        "the page names the primary {primary}"
    );
    for rule in ["R1", "R2", "R2b", "R3", "R4", "R5", "R6", "R7"] {
        assert!(
            o.dom.contains(&format!("data-rule=\"{rule}\"")),
            "scoreboard row {rule}"
        );
    }
    // The same run from the history is the same page (the document round-trips).
    let again = d.join("again.html");
    let id = doc.saved_run_id.unwrap().to_string();
    Headroom::cmd(&[
        "report",
        &id,
        "--db",
        db.to_str().unwrap(),
        "-o",
        again.to_str().unwrap(),
    ])
    .stdout();
    assert_eq!(
        std::fs::read_to_string(&again).unwrap(),
        std::fs::read_to_string(&diag).unwrap()
    );

    // remeasure: before and after on the same axes, and the sub-window medians.
    let o = check(&chrome, &rem, d, 4);
    assert!(o.dom.contains("data-series=\"before\"") && o.dom.contains("data-series=\"after\""));
    // `report --latest` finds the remeasure run and shows it against the run it re-measured.
    let latest = d.join("latest.html");
    Headroom::cmd(&[
        "report",
        "--latest",
        "--db",
        db.to_str().unwrap(),
        "-o",
        latest.to_str().unwrap(),
    ])
    .stdout();
    assert!(std::fs::read_to_string(&latest)
        .unwrap()
        .contains("data-schema=\"headroom.remeasure/1\""));
    eprintln!(
        "diagnose page: {} bytes for {points} points; remeasure page: {} bytes",
        std::fs::metadata(&diag).unwrap().len(),
        std::fs::metadata(&rem).unwrap().len()
    );
}

#[test]
fn bench_and_regress_pages_in_a_browser() {
    let Some(chrome) = chromium() else { return };
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let db = d.join("h.sqlite");
    let (_emu, url) = serve();
    let bench = d.join("bench.html");
    let quick = ["--quick", "--repeats", "3", "--quiet", "--json", "--db"];
    let first: BenchDoc = serde_json::from_str(
        &Headroom::cmd(
            &[
                &["bench", "--url", &url, "--label", "baseline"][..],
                &quick[..],
                &[db.to_str().unwrap(), "--html", bench.to_str().unwrap()],
            ]
            .concat(),
        )
        .stdout(),
    )
    .unwrap();
    let metrics = first.metrics.len();
    let o = check(&chrome, &bench, d, metrics);
    assert!(o.dom.matches("<section data-metric=").count() == metrics);
    let second: BenchDoc = serde_json::from_str(
        &Headroom::cmd(
            &[
                &["bench", "--url", &url, "--label", "latest"][..],
                &quick[..],
                &[db.to_str().unwrap()],
            ]
            .concat(),
        )
        .stdout(),
    )
    .unwrap();
    let id = second.saved_run_id.flatten().unwrap().to_string();
    let reg = d.join("regress.html");
    Headroom::cmd(&[
        "report",
        &id,
        "--against",
        "baseline",
        "--db",
        db.to_str().unwrap(),
        "-o",
        reg.to_str().unwrap(),
    ])
    .stdout();
    let o = check(&chrome, &reg, d, 1);
    assert!(o.dom.contains("noise floor"));
    // regress --html writes the same comparison.
    let reg2 = d.join("regress2.html");
    Headroom::cmd(&[
        "regress",
        "--baseline",
        "baseline",
        "--latest",
        "latest",
        "--db",
        db.to_str().unwrap(),
        "--html",
        reg2.to_str().unwrap(),
    ])
    .stdout();
    assert_eq!(
        std::fs::read_to_string(&reg).unwrap(),
        std::fs::read_to_string(&reg2).unwrap()
    );
}

const HOSTILE: &str =
    "<script>console.error(\"pwned\")</script><img src=\"http://evil.invalid/x.png\">";

#[test]
fn a_hostile_run_renders_as_text() {
    let Some(chrome) = chromium() else { return };
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let db = d.join("h.sqlite");
    // A real document (a short window of the emulator) with hostile strings where a server or
    // a file supplies them.
    let (emu, url) = emulate();
    let mut doc: Report = serde_json::from_str(
        &Headroom::cmd(&[
            "diagnose",
            "--url",
            &url,
            "--duration",
            "2s",
            "--interval",
            "100ms",
            "--json",
            "--quiet",
        ])
        .stdout(),
    )
    .unwrap();
    drop(emu);
    doc.model = Some(HOSTILE.into());
    doc.served_model = Some(HOSTILE.into());
    doc.scrapes.errors = vec![HOSTILE.into()];
    doc.boundary = Some(Boundary {
        kind: BoundaryKind::Declined,
        text: HOSTILE.into(),
    });
    doc.primary = None;
    let doc = serde_json::to_value(&doc).unwrap();
    let st = store::Store::open(&db).unwrap();
    let id = st
        .save(
            &store::NewRun {
                kind: "diagnose",
                created: 1.0,
                model: Some(HOSTILE),
                ..Default::default()
            },
            &doc,
        )
        .unwrap();
    let page = d.join("hostile.html");
    Headroom::cmd(&[
        "report",
        &id.to_string(),
        "--db",
        db.to_str().unwrap(),
        "-o",
        page.to_str().unwrap(),
    ])
    .stdout();
    let o = check(&chrome, &page, d, 1);
    assert!(
        o.dom
            .contains("&lt;script&gt;console.error(\"pwned\")&lt;/script&gt;"),
        "the model name shows as text"
    );
    assert!(
        !o.dom.contains("<img"),
        "no image element from the run's strings"
    );
}

#[test]
fn trace_page_in_a_browser() {
    let Some(chrome) = chromium() else { return };
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // A real Kineto trace (an H100 profile from TraceLens: 58 names, kernels, copies and sets,
    // one gpu_user_annotation span wrapping the step).
    let trace = testpeers::fixture("traces/tracelens_h100_owlv2.json.gz");
    let page = d.join("trace.html");
    let doc: trace::doc::TraceDoc = serde_json::from_str(
        &Headroom::cmd(&[
            "trace",
            trace.to_str().unwrap(),
            "--html",
            page.to_str().unwrap(),
            "--json",
        ])
        .stdout(),
    )
    .unwrap();
    // Kernels, families, categories and the annotation trap.
    let o = check(&chrome, &page, d, 4);
    let total = doc.kernels_total;
    assert!(total > 20, "{total} names: the page shows the top 20");
    let kernels = &o.dom[o.dom.find("data-chart=\"kernels\"").unwrap()..];
    let kernels = &kernels[..kernels.find("</svg>").unwrap()];
    assert_eq!(kernels.matches("<rect class=\"bar\"").count(), 20);
    let top = &doc.kernels[0].name;
    assert!(o.dom.contains(
        &top.replace('&', "&amp;")
            .replace('<', "&lt;")
            .replace('>', "&gt;")
    ));
    assert!(
        o.dom.contains("data-chart=\"trap\""),
        "the annotation trap figure"
    );
    assert!(o.dom.contains("data-chart=\"categories\""));

    // Kernel names are untrusted: the same trace with its top kernel renamed to markup.
    let mut json = String::new();
    std::io::Read::read_to_string(
        &mut flate2::read::GzDecoder::new(std::fs::File::open(&trace).unwrap()),
        &mut json,
    )
    .unwrap();
    let quoted = serde_json::to_string(top).unwrap();
    assert!(
        json.contains(&quoted),
        "the top kernel's name is in the trace as written"
    );
    let hostile = d.join("hostile.pt.trace.json");
    std::fs::write(
        &hostile,
        json.replace(&quoted, &serde_json::to_string(HOSTILE).unwrap()),
    )
    .unwrap();
    let page = d.join("hostile-trace.html");
    Headroom::cmd(&[
        "trace",
        hostile.to_str().unwrap(),
        "--html",
        page.to_str().unwrap(),
    ])
    .stdout();
    let o = check(&chrome, &page, d, 4);
    assert!(
        o.dom
            .contains("&lt;script&gt;console.error(\"pwned\")&lt;/script&gt;"),
        "the kernel name shows as text"
    );
    assert!(
        !o.dom.contains("<img"),
        "no image element from a kernel name"
    );
}

#[test]
fn the_harness_sees_console_messages_and_requests() {
    let Some(chrome) = chromium() else { return };
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("bad.html");
    std::fs::write(
        &page,
        format!("<!doctype html><html><body><h1>x</h1>{HOSTILE}</body></html>"),
    )
    .unwrap();
    let o = open(&chrome, &page, dir.path());
    assert!(
        o.console.iter().any(|c| c.contains("pwned")),
        "console: {:?}",
        o.console
    );
    assert!(
        o.requests.iter().any(|r| r.contains("evil.invalid")),
        "requests: {:?}",
        o.requests
    );
}

/// The emulator serving OpenAI requests at 10× (for the probes), killed when dropped.
fn serve() -> (crate::util::EmulateProc, String) {
    let emu = crate::util::EmulateProc::start(&["--speed", "10", "--duration", "300"]);
    let url = emu.url.clone();
    (emu, url)
}

/// Reads a printed document as its library type, checks that it prints back the same, and
/// that docs/json/<page> names every key.
fn typed<T: serde::de::DeserializeOwned + serde::Serialize>(
    text: &str,
    page: &str,
    maps: &[&str],
) -> T {
    let doc: T = serde_json::from_str(text).unwrap_or_else(|e| panic!("{page}: {e}"));
    assert_eq!(
        serde_json::to_string_pretty(&doc).unwrap() + "\n",
        text,
        "{page}: the typed document prints what was printed"
    );
    // The schema-doc check reads the wire format's keys.
    let value: Value = serde_json::from_str(text).unwrap();
    let missing = testpeers::schema::undocumented(&value, page, maps);
    assert!(
        missing.is_empty(),
        "docs/json/{page} does not name {missing:?}"
    );
    doc
}

#[test]
fn probe_pages_in_a_browser() {
    let Some(chrome) = chromium() else { return };
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (emu, url) = serve();
    // (probe, its arguments, plotted series: depth's cold and warm rates and TTFTs; prefix's
    // TTFT bars; turns' first and warm TTFTs and the per-turn tokens)
    let probes: [(&str, &[&str], usize); 3] = [
        (
            "depth",
            &["--depths", "256,1k,2k", "--gen", "16", "--repeats", "2"],
            4,
        ),
        ("prefix", &["--tokens", "1k", "--repeats", "2"], 1),
        (
            "turns",
            &[
                "--turns",
                "3",
                "--conversations",
                "2",
                "--context",
                "512",
                "--gen",
                "8",
            ],
            4,
        ),
    ];
    let mut depth = None;
    for (probe, args, series) in probes {
        let page = d.join(format!("probe-{probe}.html"));
        let text = Headroom::cmd(
            &[
                &["probe", probe, "--url", &url, "--json", "--quiet", "--html"][..],
                &[page.to_str().unwrap()],
                args,
            ]
            .concat(),
        )
        .stdout();
        let doc: loadgen::probe::ProbeDoc = typed(&text, "probe.md", &[]);
        assert_eq!(doc.probe(), probe);
        // The page is the one the library makes from the document --json printed.
        assert_eq!(std::fs::read_to_string(&page).unwrap(), report::probe(&doc));
        let o = check(&chrome, &page, d, series);
        assert!(o.dom.contains("data-verdict="), "{probe}: a verdict");
        eprintln!(
            "probe {probe} page: {} bytes",
            std::fs::metadata(&page).unwrap().len()
        );
        if probe == "depth" {
            assert!(o.dom.contains("class=\"fit\"") && o.dom.contains("class=\"fitband\""));
            depth = Some(doc);
        }
    }
    drop(emu);
    // A hostile server: its model name and the verdict's words hold markup.
    let mut doc = depth.unwrap();
    if let loadgen::probe::ProbeReport::Depth(r) = &mut doc.report {
        r.server.model = Some(HOSTILE.into());
        r.reason = HOSTILE.into();
    }
    let page = d.join("hostile-probe.html");
    std::fs::write(&page, report::probe(&doc)).unwrap();
    let o = check(&chrome, &page, d, 4);
    assert!(o
        .dom
        .contains("&lt;script&gt;console.error(\"pwned\")&lt;/script&gt;"));
    assert!(!o.dom.contains("<img"));
}

#[test]
fn logs_pages_in_a_browser() {
    let Some(chrome) = chromium() else { return };
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // Real logs: llama-server 11434 across a restart (two instances of timed requests), and
    // vLLM 0.32's stats lines.
    let llama = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../telemetry/tests/data/llama-server-11434-restart.log");
    let vllm = testpeers::fixture("vllm-0.32/serve.log");
    let mut docs = Vec::new();
    for (name, log, series) in [("llama", &llama, 4), ("vllm", &vllm, 5)] {
        let page = d.join(format!("logs-{name}.html"));
        let text = Headroom::cmd(&[
            "logs",
            "--file",
            log.to_str().unwrap(),
            "--json",
            "--html",
            page.to_str().unwrap(),
        ])
        .stdout();
        let doc: telemetry::doc::LogsDoc = typed(&text, "logs.md", &[]);
        assert_eq!(std::fs::read_to_string(&page).unwrap(), report::logs(&doc));
        let o = check(&chrome, &page, d, series);
        assert_eq!(
            o.dom.matches("<section data-instance=").count(),
            doc.instances.len()
        );
        eprintln!(
            "logs {name} page: {} bytes",
            std::fs::metadata(&page).unwrap().len()
        );
        docs.push(doc);
    }
    // llama-server: one prompt point per timed request, in the band or not.
    let timed: usize = docs[0]
        .instances
        .iter()
        .map(|i| {
            i.instance
                .requests
                .iter()
                .filter(|r| r.prompt_tokens.is_some() && r.prompt_tps.is_some())
                .count()
        })
        .sum();
    assert!(timed >= 4, "{timed} timed requests");
    // vLLM: one point per stats line.
    let v = &docs[1].instances[0].vllm_stats[0];
    assert_eq!(v.intervals.len(), v.lines);
    // Log lines and file names are untrusted.
    let mut doc = docs.swap_remove(0);
    doc.source = telemetry::doc::Source::File {
        path: HOSTILE.into(),
    };
    doc.instances[0].warnings.push(HOSTILE.into());
    let page = d.join("hostile-logs.html");
    std::fs::write(&page, report::logs(&doc)).unwrap();
    let o = check(&chrome, &page, d, 4);
    assert!(o
        .dom
        .contains("&lt;script&gt;console.error(\"pwned\")&lt;/script&gt;"));
    assert!(!o.dom.contains("<img"));
}

#[test]
fn fleet_page_in_a_browser() {
    let Some(chrome) = chromium() else { return };
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // A real `headroom fleet --json` over Prometheus scraping three emulated vLLM replicas,
    // one without prefix caching (crates/report/tests/fixtures/SOURCES.md).
    let text = include_str!("../../../report/tests/fixtures/fleet-three-replicas.json");
    let doc: fleet::FleetDoc = typed(text, "fleet.md", &["/imbalance/shares"]);
    assert!(!doc.outliers.is_empty(), "the fixture names an outlier");
    let page = d.join("fleet.html");
    std::fs::write(&page, report::fleet(&doc)).unwrap();
    // Generation, per-sequence and finished-request bars.
    let o = check(&chrome, &page, d, 3);
    assert_eq!(
        o.dom.matches("<tr data-replica=").count(),
        doc.replicas.len()
    );
    for out in &doc.outliers {
        assert!(o.dom.contains(&format!("data-outlier=\"{}\"", out.replica)));
    }
    assert!(o.dom.contains("fleet median"));
    // Replica labels come from the store: untrusted.
    let mut doc = doc;
    doc.replicas[0].replica = HOSTILE.into();
    doc.selector = HOSTILE.into();
    let page = d.join("hostile-fleet.html");
    std::fs::write(&page, report::fleet(&doc)).unwrap();
    let o = check(&chrome, &page, d, 3);
    assert!(o
        .dom
        .contains("&lt;script&gt;console.error(\"pwned\")&lt;/script&gt;"));
    assert!(!o.dom.contains("<img"));
}

#[test]
fn census_page_in_a_browser() {
    let Some(chrome) = chromium() else { return };
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // A real `headroom census --prometheus … --json` over a backfilled day with planted
    // step-time contention behind a restart (crates/report/tests/fixtures/SOURCES.md).
    let text = include_str!("../../../report/tests/fixtures/census-contention.json");
    let doc: census::CensusDoc = typed(text, "census.md", &[]);
    let page = d.join("census.html");
    std::fs::write(&page, report::census(&doc)).unwrap();
    // The bucket plot (one series) and the lag plot (r and its excess).
    let o = check(&chrome, &page, d, 3);
    let v = doc.verdict.as_ref().expect("the fixture has a verdict");
    assert!(o
        .dom
        .contains(&format!("data-verdict=\"{}\"", v.shape.name())));
    assert!(o.dom.contains("≤ "), "a bucket-bound TTFT keeps its ≤");
    // The selector and the instance come from the command line and the store: untrusted.
    let mut doc = doc;
    doc.source.instance = Some(HOSTILE.into());
    doc.source.selector = Some(HOSTILE.into());
    doc.unavailable.push(HOSTILE.into());
    let page = d.join("hostile-census.html");
    std::fs::write(&page, report::census(&doc)).unwrap();
    let o = check(&chrome, &page, d, 3);
    assert!(o
        .dom
        .contains("&lt;script&gt;console.error(\"pwned\")&lt;/script&gt;"));
    assert!(!o.dom.contains("<img"));
}

/// Pages in a PDF that chromium prints.
fn printed_pages(chrome: &Path, page: &Path, dir: &Path) -> usize {
    let pdf = dir.join("print.pdf");
    let _ = std::fs::remove_file(&pdf);
    let out = Command::new(chrome)
        .args(QUIET)
        .arg(format!(
            "--user-data-dir={}",
            dir.join("profile-print").display()
        ))
        .arg("--no-pdf-header-footer")
        .arg(format!("--print-to-pdf={}", pdf.display()))
        .arg(format!("file://{}", page.canonicalize().unwrap().display()))
        .output()
        .expect("run chromium --print-to-pdf");
    assert!(
        out.status.success(),
        "chromium: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let bytes = std::fs::read(&pdf).expect("PDF written");
    // Each page object is `/Type /Page` (the tree's root is `/Type /Pages`).
    let text = String::from_utf8_lossy(&bytes);
    text.matches("/Type /Page")
        .count()
        .saturating_sub(text.matches("/Type /Pages").count())
}

#[test]
fn printed_pages_show_the_numbers_tables() {
    let Some(chrome) = chromium() else { return };
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // A real diagnose window (the emulator's kv-pressure scenario): five plots, each with a
    // table of its 60 points folded under a <details> on screen.
    let r: diagnose::Report = serde_json::from_str(include_str!(
        "../../../report/tests/fixtures/diagnose-kv-pressure.json"
    ))
    .unwrap();
    let html = report::diagnose(&r);
    let rule = "@media print{details::details-content{content-visibility:visible;display:block}}";
    assert!(html.contains(rule), "the print rule is in the page");
    let page = d.join("print.html");
    std::fs::write(&page, &html).unwrap();
    let unfolded = printed_pages(&chrome, &page, d);
    // The same page without the rule prints the tables folded away: the rule is what shows
    // them (5 tables × 60 rows is several pages).
    std::fs::write(&page, html.replace(rule, "")).unwrap();
    let folded = printed_pages(&chrome, &page, d);
    assert!(
        unfolded >= folded + 2,
        "printed with tables {unfolded} pages, folded {folded}"
    );
}
