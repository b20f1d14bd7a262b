use super::*;

const MODEL: &str = "/models/moe.gguf";

/// Two MoE blocks of 4 experts (each tensor 4 × 1000 bytes + 24 padding), a dense tensor, and
/// a header of 4096 bytes.
fn part() -> Part {
    let mut ex = vec![Extent {
        name: "token_embd.weight".into(),
        start: 4096,
        len: 2000,
        layer: None,
        experts: None,
    }];
    let mut at = 6096;
    for l in 0..2u32 {
        for t in ["ffn_up_exps", "ffn_down_exps"] {
            ex.push(Extent {
                name: format!("blk.{l}.{t}.weight"),
                start: at,
                len: 4000,
                layer: Some(l),
                experts: Some(4),
            });
            at += 4000;
        }
    }
    Part::new(MODEL, ex)
}

/// The file mapped in two VMAs (0x10000..+0x3000 at offset 0, and the rest at 0x3000).
fn maps() -> Vec<Vma> {
    parse_maps(
        &format!(
            "55d0a0000000-55d0a0001000 r-xp 00000000 fe:00 1 /usr/bin/server\n\
             7f0000010000-7f0000013000 r--s 00000000 fe:00 9 {MODEL}\n\
             7f0000100000-7f0000105000 r--s 00003000 fe:00 9 {MODEL}\n\
             7ffd00000000-7ffd00021000 rw-p 00000000 00:00 0                          [stack]\n"
        ),
        "maps",
    )
    .unwrap()
}

/// The address at which file offset `foff` is mapped.
fn addr(foff: u64) -> u64 {
    if foff < 0x3000 {
        0x7f0000010000 + foff
    } else {
        0x7f0000100000 + foff - 0x3000
    }
}

fn run(addrs: &[u64], p: Part) -> Report {
    let mut a = Attributor::new(&maps(), vec![p]).unwrap();
    let text: String = addrs.iter().map(|x| format!("{x:16x}\n")).collect();
    let stats = parse_addresses(text.as_bytes(), "addrs", |x| a.add(x)).unwrap();
    a.report(Event::describe("page-faults"), stats)
}

#[test]
fn maps_lines_parse_and_bad_ones_name_the_line() {
    let m = maps();
    assert_eq!(m.len(), 4);
    assert_eq!(m[2].pgoff, 0x3000);
    assert_eq!(m[2].path, MODEL);
    assert_eq!(m[3].path, "[stack]");
    let e = parse_maps("7f00-7e00 r--p 0 0 0 /x\n", "m")
        .unwrap_err()
        .to_string();
    assert!(e.contains("line 1") && e.contains("end below start"), "{e}");
    let e = parse_maps("\nzz-7e00 r--p 0 0 0\n", "m")
        .unwrap_err()
        .to_string();
    assert!(e.contains("line 2") && e.contains("bad start"), "{e}");
}

#[test]
fn addresses_text_forms() {
    let mut got = Vec::new();
    let s = parse_addresses(
        &b"    7f0000010010\n0x10\n\n0\n   ffffffffffffffff"[..],
        "a",
        |x| got.push(x),
    )
    .unwrap();
    assert_eq!(got, [0x7f0000010010, 0x10, u64::MAX]);
    assert_eq!((s.addresses, s.zero), (3, 1));
    let e = parse_addresses(&b"10\nfoo\n"[..], "a", |_| {})
        .unwrap_err()
        .to_string();
    assert!(e.contains("a line 2") && e.contains("'o'"), "{e}");
    for bad in [
        &b"12345678901234567"[..],
        b"12 34",
        b"0x",
        b"0x0x1",
        b"x1",
        b"1x",
    ] {
        assert!(parse_addresses(bad, "a", |_| {}).is_err(), "{bad:?}");
    }
    let mut got = Vec::new();
    parse_addresses(&b" 0X1f \r\n\t2\n0x0\n"[..], "a", |x| got.push(x)).unwrap();
    assert_eq!(got, [0x1f, 2]);
}

#[test]
fn a_line_cut_across_reads_is_whole() {
    // A reader that returns one byte at a time.
    struct Drip<'a>(&'a [u8]);
    impl std::io::Read for Drip<'_> {
        fn read(&mut self, b: &mut [u8]) -> std::io::Result<usize> {
            if self.0.is_empty() {
                return Ok(0);
            }
            b[0] = self.0[0];
            self.0 = &self.0[1..];
            Ok(1)
        }
    }
    let mut got = Vec::new();
    parse_addresses(Drip(b"abc\ndef\n"), "d", |x| got.push(x)).unwrap();
    assert_eq!(got, [0xabc, 0xdef]);
}

#[test]
fn offsets_go_through_the_right_vma_to_tensor_and_expert() {
    // Expert 1 of blk.0 up (second VMA: 6096 + 1000..), expert 3 of blk.1 down (last bytes),
    // the dense tensor, the header, the stack, and an address just past the last VMA.
    let r = run(
        &[
            addr(6096 + 1500),
            addr(6096 + 4000 * 3 + 3999),
            addr(4096),
            addr(100),
            0x7ffd00000100,
            0x7f0000105000,
        ],
        part(),
    );
    assert_eq!(r.outside, 2);
    assert_eq!(r.parts[0].header, 1);
    assert_eq!(r.parts[0].vmas, 2);
    assert_eq!(r.attributed, 3);
    let blocks = r.touched_experts();
    assert_eq!(blocks[&0], [1]);
    assert_eq!(blocks[&1], [3]);
    assert_eq!(r.tensors.len(), 3);
    assert_eq!(
        r.layers.iter().map(|l| l.samples).collect::<Vec<_>>(),
        [1, 1]
    );
}

/// Expert `k` of every expert tensor, `n` samples spread across its slice.
fn touch(p: &Part, k: u64, n: u64) -> Vec<u64> {
    let mut out = Vec::new();
    for e in p.extents.iter().filter(|e| e.experts.is_some()) {
        let slice = e.len / 4;
        for i in 0..n {
            out.push(addr(e.start + k * slice + i * slice / n));
        }
    }
    out
}

#[test]
fn chosen_experts_come_back_and_the_checks_pass() {
    let p = part();
    let mut a = touch(&p, 1, 30);
    a.extend(touch(&p, 2, 30));
    let r = run(&a, p);
    for c in &r.checks {
        assert_eq!(c.status, CheckStatus::Pass, "{c:?}");
    }
    assert!(r.trusted);
    assert_eq!(
        r.touched_experts().into_values().collect::<Vec<_>>(),
        [vec![1, 2], vec![1, 2]]
    );
    assert_eq!(r.expert_totals, [0, 120, 120, 0]);
}

#[test]
fn an_under_covering_table_fails_the_gap_check() {
    let p = part();
    let a = touch(&p, 3, 30);
    // Every expert tensor 20 % short: expert 3's tail falls outside every tensor.
    let mut short = p.clone();
    for e in &mut short.extents {
        e.len = e.len * 8 / 10;
    }
    let r = run(&a, short);
    assert_eq!(r.checks[0].status, CheckStatus::Fail, "{:?}", r.checks[0]);
    assert!(!r.trusted);
}

#[test]
fn a_shifted_table_fails_the_flatness_check() {
    let p = part();
    let a = touch(&p, 0, 30);
    // blk.1's extents moved onto blk.0's bytes (offsets summed from a wrong size): blk.0 gets
    // both blocks' samples and blk.1 none.
    let mut wrong = p.clone();
    for e in wrong.extents.iter_mut().filter(|e| e.layer == Some(1)) {
        e.start -= 10_000;
    }
    wrong.extents.sort_by_key(|e| e.start);
    let r = run(&a, wrong);
    let flat = r
        .checks
        .iter()
        .find(|c| c.name == "moe_blocks_flat")
        .unwrap();
    assert_eq!(flat.status, CheckStatus::Fail, "{flat:?}");
    assert!(!r.trusted);
}

#[test]
fn a_model_the_maps_do_not_show_is_an_error_naming_what_is_mapped() {
    let e = Attributor::new(&maps(), vec![Part::new("/other.gguf", vec![])])
        .err()
        .unwrap()
        .to_string();
    assert!(e.contains("/other.gguf") && e.contains(MODEL), "{e}");
}

#[test]
fn layers_from_names() {
    assert_eq!(extents::layer_of("blk.12.ffn_up_exps.weight"), Some(12));
    assert_eq!(extents::layer_of("output.weight"), None);
    assert_eq!(extents::layer_of("blk.x.attn"), None);
}

#[test]
fn the_document_reads_back() {
    let p = part();
    let r = run(&touch(&p, 1, 30), p);
    let back: Report = serde_json::from_str(&serde_json::to_string(&r).unwrap()).unwrap();
    assert_eq!(back, r);
}
