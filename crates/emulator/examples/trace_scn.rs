use emulator::hardware::configure;
use emulator::scenario::find;
use emulator::sim::SimLoad;
fn main() {
    let name = std::env::args().nth(1).unwrap();
    let s = find(&name).unwrap();
    let c = configure(s.gpu, s.model, &s.args).unwrap();
    let mut e = c.engine();
    let mut load = SimLoad::new(&s.load, s.seed, 0.0);
    for _ in 0..400 {
        let now = e.now();
        load.submit_due(&mut e, now);
        if !e.has_work() {
            e.advance_to(load.next_time().unwrap());
            continue;
        }
        let out = e.step();
        let m = e.metrics();
        if out.preempted > 0 || out.prefill_chunks > 0 {
            println!(
                "t={:.3} dt={:.4} sched={} chunks={} pre={} run={} wait={} kv={:.3} fin={}",
                e.now(),
                out.dt,
                out.scheduled,
                out.prefill_chunks,
                out.preempted,
                m.running,
                m.waiting,
                m.kv_usage,
                out.finished.len()
            );
        }
    }
}
