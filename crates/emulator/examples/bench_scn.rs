use emulator::hardware::configure;
use emulator::scenario::find;
use emulator::sim::{run_virtual, VirtualOptions};
fn main() {
    let name = std::env::args().nth(1).unwrap();
    let s = find(&name).unwrap();
    let c = configure(s.gpu, s.model, &s.args).unwrap();
    let t = std::time::Instant::now();
    let run = run_virtual(
        c.engine(),
        &s.load,
        s.seed,
        &VirtualOptions {
            epoch_unix_s: 1.75e9,
            warmup_s: s.warmup_s,
            window_s: s.window_s,
            interval_s: s.interval_s,
        },
    );
    println!(
        "{} steps {} submitted in {:.2}s",
        run.steps,
        run.submitted,
        t.elapsed().as_secs_f64()
    );
}
