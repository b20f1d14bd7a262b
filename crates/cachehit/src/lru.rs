//! A least-recently-used set of block hashes with a fixed capacity: the prefix cache of one KV
//! pool, as far as hits are concerned. An intrusive doubly linked list over a slab, so a touch
//! is one hash lookup and four index writes.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// Block hashes are already uniform: the map needs no second hash over them.
#[derive(Default, Clone, Copy)]
pub(crate) struct PassHasher(u64);

impl Hasher for PassHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(8) ^ u64::from(b)).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        }
    }
    fn write_u64(&mut self, n: u64) {
        self.0 = n;
    }
}

pub(crate) type HashIndex<V> = HashMap<u64, V, BuildHasherDefault<PassHasher>>;

const NIL: u32 = u32::MAX;

#[derive(Clone, Copy)]
struct Node {
    hash: u64,
    prev: u32,
    next: u32,
}

/// Most recent at `head`, eviction at `tail`.
pub(crate) struct Lru {
    capacity: usize,
    index: HashIndex<u32>,
    nodes: Vec<Node>,
    head: u32,
    tail: u32,
}

impl Lru {
    /// `capacity` blocks; `usize::MAX` is a cache that never evicts.
    pub(crate) fn new(capacity: usize) -> Lru {
        Lru {
            capacity,
            index: HashIndex::default(),
            nodes: Vec::new(),
            head: NIL,
            tail: NIL,
        }
    }

    pub(crate) fn contains(&self, h: u64) -> bool {
        self.index.contains_key(&h)
    }

    /// Leading blocks of `chain` present (a prefix hit stops at the first miss).
    pub(crate) fn leading(&self, chain: &[u64]) -> usize {
        chain.iter().take_while(|h| self.contains(**h)).count()
    }

    fn unlink(&mut self, i: u32) {
        let Node { prev, next, .. } = self.nodes[i as usize];
        if prev == NIL {
            self.head = next;
        } else {
            self.nodes[prev as usize].next = next;
        }
        if next == NIL {
            self.tail = prev;
        } else {
            self.nodes[next as usize].prev = prev;
        }
    }

    fn push_front(&mut self, i: u32) {
        self.nodes[i as usize].prev = NIL;
        self.nodes[i as usize].next = self.head;
        if self.head != NIL {
            self.nodes[self.head as usize].prev = i;
        }
        self.head = i;
        if self.tail == NIL {
            self.tail = i;
        }
    }

    /// Makes `h` the most recent block, inserting it (and evicting the least recent) if absent.
    pub(crate) fn touch(&mut self, h: u64) {
        if self.capacity == 0 {
            return;
        }
        if let Some(&i) = self.index.get(&h) {
            self.unlink(i);
            self.push_front(i);
            return;
        }
        let i = if self.index.len() >= self.capacity {
            // Reuse the evicted node's slot.
            let t = self.tail;
            self.unlink(t);
            self.index.remove(&self.nodes[t as usize].hash);
            self.nodes[t as usize].hash = h;
            t
        } else {
            self.nodes.push(Node {
                hash: h,
                prev: NIL,
                next: NIL,
            });
            (self.nodes.len() - 1) as u32
        };
        self.index.insert(h, i);
        self.push_front(i);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_least_recent_block_is_evicted() {
        let mut l = Lru::new(2);
        l.touch(1);
        l.touch(2);
        l.touch(1); // 2 is now the least recent
        l.touch(3);
        assert!(l.contains(1) && l.contains(3) && !l.contains(2));
        assert_eq!(l.leading(&[1, 3, 2]), 2);
        assert_eq!(l.leading(&[2, 1]), 0);
    }

    #[test]
    fn zero_capacity_holds_nothing_and_unbounded_holds_everything() {
        let mut z = Lru::new(0);
        z.touch(7);
        assert!(!z.contains(7));
        let mut u = Lru::new(usize::MAX);
        for h in 0..10_000 {
            u.touch(h);
        }
        assert_eq!(u.leading(&(0..10_000).collect::<Vec<_>>()), 10_000);
    }
}
