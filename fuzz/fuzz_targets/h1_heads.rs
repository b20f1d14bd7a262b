//! The router's HTTP/1.1 request and response heads: whatever the bytes, a head parses to
//! ranges inside the buffer or is refused; the headers forwarded are whole `name: value` lines
//! (nothing a peer sends can start a header of its own), and any prefix of a whole head is
//! "incomplete", never a different answer.
#![no_main]
use libfuzzer_sys::fuzz_target;
use router::h1;

fn check_forwarded(out: &[u8]) {
    for line in out.split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
        let line = line.strip_suffix(b"\r").expect("every forwarded line ends in CRLF");
        assert!(!line.contains(&b'\r'), "a bare CR inside a forwarded header");
        let colon = line.iter().position(|&b| b == b':').expect("name: value");
        assert!(colon > 0, "an empty header name");
        assert!(
            line[..colon].iter().all(|b| b.is_ascii_graphic()),
            "a header name with a space or control byte"
        );
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((&sel, buf)) = data.split_first() else {
        return;
    };
    let mut spare = Vec::new();
    let mut out = Vec::new();
    let len = if sel & 1 == 0 {
        match h1::parse_request(buf, &mut spare) {
            Ok(Some(h)) => {
                for r in [&h.method, &h.target] {
                    assert!(r.end <= h.common.len);
                }
                let _ = h.framing();
                h1::forward_headers(&mut out, buf, &h.common, true, false);
                Some(h.common.len)
            }
            _ => None,
        }
    } else {
        match h1::parse_response(buf, &mut spare) {
            Ok(Some(h)) => {
                assert!(h.reason.end <= h.common.len);
                assert!(!buf[h.reason.clone()].contains(&b'\n'));
                let _ = h.framing(sel & 2 == 0);
                h1::forward_headers(&mut out, buf, &h.common, false, sel & 4 == 0);
                Some(h.common.len)
            }
            _ => None,
        }
    };
    let Some(len) = len else { return };
    assert!(len <= buf.len() && len <= h1::MAX_HEAD);
    check_forwarded(&out);
    // A prefix of a whole head is incomplete (the router waits for more), never refused.
    let cut = (sel as usize >> 3).min(len.saturating_sub(1));
    let partial = if sel & 1 == 0 {
        h1::parse_request(&buf[..cut], &mut spare).map(|h| h.is_some())
    } else {
        h1::parse_response(&buf[..cut], &mut spare).map(|h| h.is_some())
    };
    assert_eq!(partial, Ok(false), "the first {cut} bytes of a {len}-byte head");
});
