//! Busy time: the length of the union of device intervals, so that work overlapping on several
//! streams is counted once.
//!
//! Kineto writes device events in a few time-sorted runs, not in one order, so the union cannot
//! be swept on the fly. Intervals are appended and compacted (sorted, overlaps merged) whenever
//! the list doubles since the last compaction: memory is bounded by about twice the number of
//! disjoint busy stretches (16 bytes each, one per idle gap on the device) plus a fixed batch,
//! not by the number of events.

/// Appended intervals compact once this many are pending, at least.
const MIN_BATCH: usize = 1 << 16;

#[derive(Debug, Default, Clone)]
pub struct IntervalUnion {
    v: Vec<(i64, i64)>,
    compacted: usize,
}

impl IntervalUnion {
    pub fn push(&mut self, start: i64, end: i64) {
        if end <= start {
            return;
        }
        self.v.push((start, end));
        if self.v.len() >= (2 * self.compacted).max(MIN_BATCH) {
            self.compact();
        }
    }

    fn compact(&mut self) {
        self.v.sort_unstable();
        let mut w = 0;
        for r in 1..self.v.len() {
            let (s, e) = self.v[r];
            if s <= self.v[w].1 {
                self.v[w].1 = self.v[w].1.max(e);
            } else {
                w += 1;
                self.v[w] = (s, e);
            }
        }
        self.v.truncate(if self.v.is_empty() { 0 } else { w + 1 });
        self.compacted = self.v.len();
    }

    /// Total length of the union.
    pub fn total(&mut self) -> i64 {
        self.compact();
        self.v.iter().map(|(s, e)| e - s).sum()
    }

    /// Disjoint busy stretches (after compaction).
    pub fn stretches(&mut self) -> usize {
        self.compact();
        self.v.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn union_cases() {
        let cases: &[(&[(i64, i64)], i64)] = &[
            (&[], 0),
            (&[(0, 10)], 10),
            (&[(0, 10), (5, 15)], 15),
            (&[(0, 10), (10, 20)], 20),
            (&[(0, 10), (20, 30)], 20),
            (&[(20, 30), (0, 10), (5, 25)], 30),
            (&[(0, 100), (10, 20), (30, 40)], 100),
            (&[(5, 5), (7, 3)], 0),
        ];
        for (iv, want) in cases {
            let mut u = IntervalUnion::default();
            for &(s, e) in *iv {
                u.push(s, e);
            }
            assert_eq!(u.total(), *want, "{iv:?}");
        }
    }

    #[test]
    fn compaction_during_pushes_matches_a_single_sort() {
        // Three interleaved sorted runs, like Kineto's buffers, large enough to compact often.
        let mut u = IntervalUnion::default();
        let mut all = vec![];
        for run in 0..3i64 {
            for k in 0..100_000i64 {
                let s = k * 30 + run * 7;
                let e = s + 5 + (k % 4) * 6;
                u.push(s, e);
                all.push((s, e));
            }
        }
        all.sort();
        let mut total = 0;
        let (mut cs, mut ce) = all[0];
        for &(s, e) in &all[1..] {
            if s > ce {
                total += ce - cs;
                cs = s;
                ce = e;
            } else {
                ce = ce.max(e);
            }
        }
        total += ce - cs;
        assert_eq!(u.total(), total);
        assert!(
            u.v.capacity() < 700_000,
            "memory follows stretches, not pushes"
        );
    }
}
