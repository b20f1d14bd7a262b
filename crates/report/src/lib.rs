//! One self-contained HTML page per run, built from the typed run documents (the same records
//! `--json` prints and the history keeps): `headroom.diagnose/1`, `headroom.remeasure/1`,
//! `headroom.bench/2`, `headroom.regress/3`, `headroom.trace/1`, `headroom.probe/1`, `headroom.logs/1`,
//! `headroom.fleet/1`, `headroom.census/1`.
//!
//! A page opens from a file with no network: inline CSS and SVG, no script, and a
//! Content-Security-Policy that forbids any request and any script, so even a string that slipped
//! past escaping could not run or fetch. Every string from a server or a file (model names,
//! evidence, labels) goes through maud, which escapes it. Every plot has its numbers in a table
//! under it (`data-for` names the plot it belongs to).

mod census;
mod fleet;
mod gpus;
mod logs;
mod pages;
mod probe;
pub mod svg;

pub use census::census;
pub use fleet::fleet;
pub use logs::logs;
pub use pages::{bench, diagnose, regress, remeasure, standing, trace};
pub use probe::probe;

/// The CSS every page carries: light, dark (prefers-color-scheme) and print.
const CSS: &str = r#"
:root{color-scheme:light dark;--bg:#fff;--fg:#1b1d21;--muted:#5f6670;--grid:#e3e5e8;--card:#f5f6f8;--line:#d5d8dc;
--c1:#1f6fb2;--c2:#c8640a;--c3:#2e8b57;--c4:#b03a48;--ref:#7a7f87;--band:rgba(31,111,178,.06);--ok:#2e7d32;--bad:#c62828;--warn:#9a6700}
@media (prefers-color-scheme:dark){:root{--bg:#15171b;--fg:#e4e6ea;--muted:#9aa1ab;--grid:#2c3036;--card:#1e2126;--line:#353a41;
--c1:#6cb4ff;--c2:#ffa657;--c3:#6fd49a;--c4:#ff7b8a;--ref:#a3a9b3;--band:rgba(108,180,255,.07);--ok:#7ee787;--bad:#ff8182;--warn:#e3b341}}
@media print{:root{--bg:#fff;--fg:#000;--muted:#444;--grid:#ccc;--card:#fff;--line:#999;--band:rgba(0,0,0,.05)}
body{max-width:none;margin:0}section,figure{break-inside:avoid}details>summary{display:none}
thead{display:table-header-group}tr{break-inside:avoid}}
@media print{details::details-content{content-visibility:visible;display:block}}
*{box-sizing:border-box}
body{background:var(--bg);color:var(--fg);font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;max-width:1000px;margin:0 auto;padding:18px}
h1{font-size:1.4em;margin:.2em 0}h2{font-size:1.15em;margin:1.4em 0 .4em;border-bottom:1px solid var(--line);padding-bottom:.2em}
h3{font-size:1em;margin:1em 0 .3em}
.sub{color:var(--muted)}
.verdict{background:var(--card);border-left:4px solid var(--c4);padding:10px 14px;margin:12px 0}
.verdict.none{border-left-color:var(--ok)}
.simulated,.incomplete{background:var(--card);border:2px dashed var(--c4);padding:8px 12px;margin:10px 0}
code,pre{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.92em}
pre.fix{background:var(--card);border:1px solid var(--line);padding:8px 10px;user-select:all;white-space:pre-wrap;word-break:break-all}
table{border-collapse:collapse;margin:6px 0;font-size:.9em}
th,td{border-bottom:1px solid var(--grid);padding:3px 8px;text-align:left;vertical-align:top}
td.n,th.n{text-align:right;font-variant-numeric:tabular-nums}
details{margin:4px 0 12px}summary{cursor:pointer;color:var(--muted)}
ul.ev{margin:0;padding-left:1.1em}
.st-primary{color:var(--bad);font-weight:600}.st-held{color:var(--warn);font-weight:600}.st-quiet{color:var(--muted)}
.st-silent,.st-silenced,.st-unjudged{color:var(--muted);font-style:italic}
.better{color:var(--ok)}.worse{color:var(--bad)}.same{color:var(--muted)}
svg.chart{width:100%;height:auto;display:block}
svg text{fill:var(--fg);font-size:11px}
svg .tick{fill:var(--muted)}svg .axislabel{fill:var(--muted);font-size:11.5px}
svg .grid{stroke:var(--grid);stroke-width:1}svg .axis{stroke:var(--muted);stroke-width:1}
svg .band{fill:transparent;stroke:var(--grid);stroke-dasharray:2 3}svg .band.odd{fill:var(--band)}
svg .bandlabel{fill:var(--muted);font-size:10.5px}
svg .ref{stroke:var(--ref);stroke-width:1.5;stroke-dasharray:6 4}svg .reflabel{fill:var(--ref);font-size:10.5px}
svg .median{stroke:var(--fg);stroke-width:2}
svg .series polyline{fill:none;stroke-width:1.6;stroke-linejoin:round}
svg .c1 polyline{stroke:var(--c1)}svg .c1 circle{fill:var(--c1)}
svg .c2 polyline{stroke:var(--c2)}svg .c2 circle{fill:var(--c2)}
svg .c3 polyline{stroke:var(--c3)}svg .c3 circle{fill:var(--c3)}
svg .c4 polyline{stroke:var(--c4)}svg .c4 circle{fill:var(--c4)}
svg .c1 rect.bar{fill:var(--c1)}svg .c2 rect.bar{fill:var(--c2)}svg .c3 rect.bar{fill:var(--c3)}svg .c4 rect.bar{fill:var(--c4)}
svg circle.outlier{fill:none;stroke:var(--c4);stroke-width:2}
svg .noise{fill:var(--band);stroke:var(--grid)}
svg .fit{stroke:var(--fg);stroke-width:1.5}svg .fitband{fill:var(--band);stroke:var(--grid);stroke-dasharray:2 3}
.swatch.fitswatch{background:var(--fg)}
svg .whisker{stroke-width:3}
svg .better .whisker{stroke:var(--ok)}svg .better circle{fill:var(--ok)}
svg .worse .whisker{stroke:var(--bad)}svg .worse circle{fill:var(--bad)}
svg .same .whisker{stroke:var(--muted)}svg .same circle{fill:var(--muted)}
.legend{margin:2px 0 4px;font-size:.88em;color:var(--muted)}.key{margin-right:14px;white-space:nowrap}
.swatch{display:inline-block;width:14px;height:3px;vertical-align:middle;margin-right:5px}
.swatch.c1{background:var(--c1)}.swatch.c2{background:var(--c2)}.swatch.c3{background:var(--c3)}.swatch.c4{background:var(--c4)}
.swatch.refswatch{border-top:2px dashed var(--ref);height:0}
tfoot th,tfoot td{border-top:2px solid var(--line);font-weight:600}
footer{margin-top:2em;color:var(--muted);font-size:.85em}
"#;

/// No request may leave the page and no script may run: styles inline, images only as data.
const CSP: &str = "default-src 'none'; style-src 'unsafe-inline'; img-src data:";

/// The page around a body.
fn page(title: &str, schema: &str, body: maud::Markup) -> String {
    maud::html! {
        (maud::DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                meta http-equiv="Content-Security-Policy" content=(CSP);
                meta name="viewport" content="width=device-width, initial-scale=1";
                meta name="generator" content=(concat!("headroom ", env!("CARGO_PKG_VERSION")));
                title { (title) }
                style { (maud::PreEscaped(CSS)) }
            }
            body data-schema=(schema) {
                (body)
                footer {
                    "Made by headroom " (env!("CARGO_PKG_VERSION")) " from a " code { (schema) }
                    " document. Ceilings marked (est) are upper bounds from published figures."
                }
            }
        }
    }
    .into_string()
}
