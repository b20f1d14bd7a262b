//! A least-recently-used set of block hashes with a fixed capacity: the prefix cache of one KV
//! pool, as far as hits are concerned. A block a running request holds is pinned (vLLM's
//! reference count): it fills the pool but cannot be evicted; unpinned, it joins the most-recent
//! end of the queue. An intrusive doubly linked list over a slab, so a touch is one hash lookup
//! and a few index writes.

pub(crate) use crate::hash::IdMap as HashIndex;

const NIL: u32 = u32::MAX;

#[derive(Clone, Copy)]
struct Node {
    hash: u64,
    prev: u32,
    next: u32,
    /// Running requests holding the block; only unpinned blocks are in the queue.
    refs: u32,
}

/// Most recent at `head`, eviction at `tail`.
pub(crate) struct Lru {
    capacity: usize,
    index: HashIndex<u32>,
    nodes: Vec<Node>,
    /// Slots of blocks evicted by shrinking, for reuse.
    free: Vec<u32>,
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
            free: Vec::new(),
            head: NIL,
            tail: NIL,
        }
    }

    /// Blocks held, pinned or not.
    pub(crate) fn len(&self) -> usize {
        self.index.len()
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
    #[cfg(test)]
    pub(crate) fn touch(&mut self, h: u64) {
        self.pin(h);
        self.unpin(h);
    }

    /// A running request holds `h`: inserted if absent (evicting the least recent unpinned
    /// block; when every block is pinned the pool overflows, where an engine would queue or
    /// preempt), and out of the eviction queue until unpinned.
    pub(crate) fn pin(&mut self, h: u64) {
        if self.capacity == 0 {
            return;
        }
        if let Some(&i) = self.index.get(&h) {
            if self.nodes[i as usize].refs == 0 {
                self.unlink(i);
            }
            self.nodes[i as usize].refs += 1;
            return;
        }
        let node = Node {
            hash: h,
            prev: NIL,
            next: NIL,
            refs: 1,
        };
        let i = if self.index.len() >= self.capacity && self.tail != NIL {
            // Reuse the evicted node's slot.
            let t = self.tail;
            self.unlink(t);
            self.index.remove(&self.nodes[t as usize].hash);
            self.nodes[t as usize] = node;
            t
        } else if let Some(f) = self.free.pop() {
            self.nodes[f as usize] = node;
            f
        } else {
            self.nodes.push(node);
            (self.nodes.len() - 1) as u32
        };
        self.index.insert(h, i);
    }

    /// The request let go of `h`: with no other holder it becomes the most recent block.
    pub(crate) fn unpin(&mut self, h: u64) {
        let Some(&i) = self.index.get(&h) else {
            return;
        };
        let n = &mut self.nodes[i as usize];
        if n.refs == 0 {
            return;
        }
        n.refs -= 1;
        if n.refs == 0 {
            self.push_front(i);
            // A pool that overflowed while every block was held shrinks back as they are let go.
            while self.index.len() > self.capacity && self.tail != NIL {
                let t = self.tail;
                self.unlink(t);
                self.index.remove(&self.nodes[t as usize].hash);
                self.free.push(t);
            }
        }
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

    #[test]
    fn a_pinned_block_survives_and_rejoins_as_the_most_recent() {
        let mut l = Lru::new(2);
        l.pin(1);
        l.touch(2);
        l.touch(3); // evicts 2, not the pinned 1
        assert!(l.contains(1) && l.contains(3) && !l.contains(2));
        l.unpin(1); // now the most recent: 3 goes next
        l.touch(4);
        assert!(l.contains(1) && l.contains(4) && !l.contains(3));
        // Everything pinned: the pool overflows rather than dropping a held block, and shrinks
        // back to its capacity as they are let go (the least recent go first).
        l.pin(1);
        l.pin(4);
        l.pin(5);
        assert!(l.contains(1) && l.contains(4) && l.contains(5));
        l.unpin(5);
        l.unpin(4);
        l.unpin(1);
        assert!(l.contains(1) && l.contains(4) && !l.contains(5));
        l.touch(6); // the freed slot is reused
        assert!(l.contains(6) && l.contains(1) && !l.contains(4));
    }
}
