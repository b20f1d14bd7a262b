//! Mines a log file with the library alone (no CLI, no rendering): for profiling the parser.
//!
//!     cargo run --release -p telemetry --example mine -- server.log [THREADS]
//!
//! THREADS = 0 runs the sequential miner; otherwise that many parser threads, folding each
//! request into its envelope as `headroom logs --file` does without `--json`.

fn main() {
    let path = std::env::args().nth(1).expect("usage: mine LOG [THREADS]");
    let threads: usize = std::env::args()
        .nth(2)
        .map_or(2, |t| t.parse().expect("THREADS is a number"));
    let f = std::fs::File::open(&path).expect("open the log");
    let t = std::time::Instant::now();
    let r = if threads == 0 {
        telemetry::mine(f).expect("read the log")
    } else {
        let stop = std::sync::atomic::AtomicBool::new(false);
        telemetry::mine_file_into(telemetry::Miner::folding(), f, threads, &stop)
            .expect("read the log")
            .0
    };
    let requests: usize = r.instances.iter().map(|i| i.envelope.requests_seen).sum();
    println!(
        "{} lines, {} instances, {requests} requests, {} unparsed, {:.3} s",
        r.lines,
        r.instances.len(),
        r.unparsed_lines,
        t.elapsed().as_secs_f64()
    );
}
