//! The paged KV pool: fixed-size blocks, reference counts, and the prefix cache, shaped after
//! vLLM V1's `BlockPool` / `KVCacheManager`.
//!
//! - Every free block sits in one LRU queue. Allocation pops the head; a block freed by a
//!   finished or preempted request joins the tail, and a request's blocks are freed in reverse
//!   so its last (least shareable) block is evicted first.
//! - With prefix caching on, a block whose tokens are all computed is registered under a chain
//!   hash of (parent hash, its tokens). A freed block keeps its hash while it waits in the queue,
//!   so a later request with the same prefix takes it back ("touch"); popping it for a new
//!   allocation evicts the hash.
//! - Usage is `1 − free / total`, with cached-but-unreferenced blocks counted as free, as vLLM's
//!   `kv_cache_usage_perc` does.

// One block hash and one id map for the emulator's pool and the hit-rate ladder's replays, so
// a trace the emulator serves hashes the same in both.
pub use cachehit::block_hash;
pub(crate) use cachehit::hash::IdMap;

const NIL: u32 = u32::MAX;

#[derive(Debug, Clone)]
pub struct BlockPool {
    block_size: usize,
    caching: bool,
    ref_cnt: Vec<u32>,
    hash: Vec<Option<u64>>,
    // Doubly linked LRU queue of free blocks: head is evicted first.
    prev: Vec<u32>,
    next: Vec<u32>,
    in_free: Vec<bool>,
    head: u32,
    tail: u32,
    free_len: usize,
    /// Keys are already hashes: the id hasher is enough.
    cached: IdMap<u32>,
    evictions: u64,
}

impl BlockPool {
    pub fn new(num_blocks: usize, block_size: usize, caching: bool) -> BlockPool {
        let n = num_blocks;
        let mut p = BlockPool {
            block_size,
            caching,
            ref_cnt: vec![0; n],
            hash: vec![None; n],
            prev: vec![NIL; n],
            next: vec![NIL; n],
            in_free: vec![false; n],
            head: NIL,
            tail: NIL,
            free_len: 0,
            cached: Default::default(),
            evictions: 0,
        };
        for b in 0..n as u32 {
            p.push_tail(b);
        }
        p
    }

    pub fn block_size(&self) -> usize {
        self.block_size
    }

    pub fn num_blocks(&self) -> usize {
        self.ref_cnt.len()
    }

    /// Blocks an allocation may take (free, including cached blocks nobody references).
    pub fn num_free(&self) -> usize {
        self.free_len
    }

    /// Fraction of blocks referenced by a request, 0–1.
    pub fn usage(&self) -> f64 {
        if self.ref_cnt.is_empty() {
            return 0.0;
        }
        1.0 - self.free_len as f64 / self.ref_cnt.len() as f64
    }

    /// Cached blocks evicted so far (a hash dropped to make room).
    pub fn evictions(&self) -> u64 {
        self.evictions
    }

    pub fn caching(&self) -> bool {
        self.caching
    }

    fn push_tail(&mut self, b: u32) {
        let i = b as usize;
        debug_assert!(!self.in_free[i]);
        self.prev[i] = self.tail;
        self.next[i] = NIL;
        if self.tail != NIL {
            self.next[self.tail as usize] = b;
        } else {
            self.head = b;
        }
        self.tail = b;
        self.in_free[i] = true;
        self.free_len += 1;
    }

    fn unlink(&mut self, b: u32) {
        let i = b as usize;
        debug_assert!(self.in_free[i]);
        let (p, n) = (self.prev[i], self.next[i]);
        if p != NIL {
            self.next[p as usize] = n;
        } else {
            self.head = n;
        }
        if n != NIL {
            self.prev[n as usize] = p;
        } else {
            self.tail = p;
        }
        self.prev[i] = NIL;
        self.next[i] = NIL;
        self.in_free[i] = false;
        self.free_len -= 1;
    }

    /// The longest run of leading blocks found in the cache, for block hashes in prompt order.
    pub fn lookup(&self, hashes: &[u64]) -> Vec<u32> {
        if !self.caching {
            return Vec::new();
        }
        hashes
            .iter()
            .map_while(|h| self.cached.get(h).copied())
            .collect()
    }

    /// New blocks an allocation needs after taking `hits`, and whether the pool can give them:
    /// touched hits that sit in the free queue stop being free.
    pub fn can_allocate(&self, hits: &[u32], new_blocks: usize) -> bool {
        let reclaimed = hits.iter().filter(|&&b| self.in_free[b as usize]).count();
        new_blocks + reclaimed <= self.free_len
    }

    /// Takes a reference on cached blocks (a prefix hit).
    pub fn touch(&mut self, blocks: &[u32]) {
        for &b in blocks {
            if self.in_free[b as usize] {
                self.unlink(b);
            }
            self.ref_cnt[b as usize] += 1;
        }
    }

    /// `n` fresh blocks from the head of the free queue, evicting their cached hashes; None when
    /// the pool has fewer than `n` free.
    pub fn allocate(&mut self, n: usize) -> Option<Vec<u32>> {
        if n > self.free_len {
            return None;
        }
        let mut out = Vec::with_capacity(n);
        for _ in 0..n {
            let b = self.head;
            self.unlink(b);
            if let Some(h) = self.hash[b as usize].take() {
                if self.cached.get(&h) == Some(&b) {
                    self.cached.remove(&h);
                }
                self.evictions += 1;
            }
            self.ref_cnt[b as usize] = 1;
            out.push(b);
        }
        Some(out)
    }

    /// Drops a request's references, last block first, so the tail of a sequence is evicted
    /// before the prefix others may share.
    pub fn free(&mut self, blocks: &[u32]) {
        for &b in blocks.iter().rev() {
            let i = b as usize;
            debug_assert!(self.ref_cnt[i] > 0);
            self.ref_cnt[i] -= 1;
            if self.ref_cnt[i] == 0 {
                self.push_tail(b);
            }
        }
    }

    /// Registers a fully computed block under its chain hash. The first block registered under a
    /// hash keeps it; a duplicate computed meanwhile by another request stays unregistered.
    pub fn cache_block(&mut self, b: u32, h: u64) {
        if !self.caching || self.hash[b as usize].is_some() {
            return;
        }
        if let std::collections::hash_map::Entry::Vacant(e) = self.cached.entry(h) {
            e.insert(b);
            self.hash[b as usize] = Some(h);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hashes(tokens: &[u32], bs: usize) -> Vec<u64> {
        let mut out = Vec::new();
        let mut parent = 0;
        for chunk in tokens.chunks_exact(bs) {
            parent = block_hash(parent, chunk);
            out.push(parent);
        }
        out
    }

    #[test]
    fn usage_counts_referenced_blocks_only() {
        let mut p = BlockPool::new(10, 16, true);
        assert_eq!(p.usage(), 0.0);
        let a = p.allocate(4).unwrap();
        assert_eq!(p.num_free(), 6);
        assert!((p.usage() - 0.4).abs() < 1e-12);
        assert!(p.allocate(7).is_none());
        p.free(&a);
        assert_eq!((p.num_free(), p.usage()), (10, 0.0));
    }

    #[test]
    fn freed_prefix_is_found_again_until_evicted() {
        let bs = 4;
        let mut p = BlockPool::new(6, bs, true);
        let prompt: Vec<u32> = (0..12).collect();
        let hs = hashes(&prompt, bs);
        let blocks = p.allocate(3).unwrap();
        for (b, h) in blocks.iter().zip(&hs) {
            p.cache_block(*b, *h);
        }
        p.free(&blocks);
        // Same prefix: all three blocks come back, even though they are free.
        let hits = p.lookup(&hs);
        assert_eq!(hits, blocks);
        assert!(p.can_allocate(&hits, 3));
        assert!(!p.can_allocate(&hits, 4));
        // A different second block stops the hit run after the first.
        let mut other = prompt.clone();
        other[5] = 99;
        assert_eq!(p.lookup(&hashes(&other, bs)), vec![blocks[0]]);
        // Allocating every free block evicts the cached ones; the prefix is gone.
        let all = p.allocate(6).unwrap();
        assert_eq!(p.evictions(), 3);
        assert!(p.lookup(&hs).is_empty());
        p.free(&all);
    }

    #[test]
    fn eviction_order_is_lru_with_tail_blocks_first() {
        let bs = 2;
        let mut p = BlockPool::new(4, bs, true);
        let a = p.allocate(2).unwrap();
        let b = p.allocate(2).unwrap();
        let ha = hashes(&[1, 2, 3, 4], bs);
        let hb = hashes(&[5, 6, 7, 8], bs);
        for (x, h) in a.iter().zip(&ha).chain(b.iter().zip(&hb)) {
            p.cache_block(*x, *h);
        }
        p.free(&a); // queue: a1, a0
        p.free(&b); // queue: a1, a0, b1, b0
        let one = p.allocate(1).unwrap();
        assert_eq!(one, vec![a[1]], "a's tail block goes first");
        assert_eq!(p.lookup(&ha), vec![a[0]]);
        assert_eq!(p.lookup(&hb), b);
        // Touching a cached free block takes it out of the queue.
        p.touch(&[b[0], b[1]]);
        assert_eq!(p.num_free(), 1);
        assert_eq!(p.allocate(1).unwrap(), vec![a[0]]);
        assert!(p.allocate(1).is_none());
    }

    #[test]
    fn caching_off_never_hits() {
        let mut p = BlockPool::new(4, 2, false);
        let a = p.allocate(2).unwrap();
        let h = hashes(&[1, 2, 3, 4], 2);
        p.cache_block(a[0], h[0]);
        p.free(&a);
        assert!(p.lookup(&h).is_empty());
        assert_eq!(p.evictions(), 0);
    }

    #[test]
    fn shared_blocks_need_every_reference_released() {
        let mut p = BlockPool::new(3, 2, true);
        let a = p.allocate(1).unwrap();
        p.cache_block(a[0], 42);
        p.touch(&a);
        p.free(&a);
        assert_eq!(p.num_free(), 2);
        p.free(&a);
        assert_eq!(p.num_free(), 3);
    }
}
