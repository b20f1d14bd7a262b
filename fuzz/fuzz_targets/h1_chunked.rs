//! The router's chunked-body decoder: fed in one piece or split at any byte, it finds the same
//! end, the same data, or the same refusal; it never takes more bytes than it is given.
#![no_main]
use libfuzzer_sys::fuzz_target;
use router::h1::Chunked;

fn run(parts: &[&[u8]]) -> (Result<usize, ()>, Vec<u8>, bool) {
    let mut c = Chunked::default();
    let mut data = Vec::new();
    let mut used = 0;
    for p in parts {
        if c.is_done() {
            break;
        }
        match c.feed(p, Some(&mut data)) {
            Ok(n) => {
                assert!(n <= p.len());
                used += n;
            }
            Err(_) => return (Err(()), data, false),
        }
    }
    (Ok(used), data, c.is_done())
}

fuzz_target!(|input: &[u8]| {
    let Some((&cut, body)) = input.split_first() else {
        return;
    };
    let at = if body.is_empty() { 0 } else { cut as usize % body.len() };
    let whole = run(&[body]);
    let split = run(&[&body[..at], &body[at..]]);
    match (&whole.0, &split.0) {
        (Ok(_), Ok(_)) => assert_eq!(whole, split, "split at {at}"),
        (Err(()), Err(())) => {}
        _ => panic!("split at {at}: {:?} against {:?}", whole.0, split.0),
    }
    if let Ok(n) = whole.0 {
        assert!(whole.1.len() <= n);
    }
});
