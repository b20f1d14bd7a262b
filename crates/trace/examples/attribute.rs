//! Runs the attribution core on one file and prints its headline figures: a quick way to time
//! the library alone (`cargo run --release -p trace --example attribute -- FILE`).
fn main() {
    let path = std::env::args().nth(1).expect("usage: attribute FILE");
    let (src, enc) = trace::input::open(path.as_ref()).expect("open");
    let t = std::time::Instant::now();
    let r = trace::analyze(src, &trace::Options::default()).expect("analyze");
    let s = t.elapsed().as_secs_f64();
    println!(
        "{} {}: {} events, {:.1} MB JSON in {:.3} s = {:.0} MB/s; device sum {} ns, busy {} ns, {} names, stopped {:?}",
        enc.as_str(),
        path,
        r.events,
        r.bytes as f64 / 1e6,
        s,
        r.bytes as f64 / 1e6 / s,
        r.device_total_ns,
        r.busy_ns,
        r.names.len(),
        r.stopped.map(|x| x.to_string())
    );
}
