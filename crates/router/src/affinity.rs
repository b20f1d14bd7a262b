//! The affinity table: conversation key → replica, bounded, least recently used out first.
//!
//! Unbounded prefix indexes run routers out of memory (production-stack #687), and engines keep
//! a prefix only minutes anyway, so the table holds a fixed number of conversations.
use std::collections::{HashMap, VecDeque};
use std::sync::Mutex;

use crate::fleet::{Counter, Fleet};

/// A bounded LRU map. Recency is kept as a queue of (key, stamp); a queue entry whose stamp is
/// no longer the key's is stale and skipped, so a touch is O(1) and eviction amortised O(1).
#[derive(Debug)]
pub struct Lru {
    map: HashMap<u64, (usize, u64)>,
    order: VecDeque<(u64, u64)>,
    capacity: usize,
    clock: u64,
}

impl Lru {
    pub fn new(capacity: usize) -> Self {
        let capacity = capacity.max(1);
        Lru {
            map: HashMap::new(),
            order: VecDeque::new(),
            capacity,
            clock: 0,
        }
    }

    pub fn len(&self) -> usize {
        self.map.len()
    }

    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }

    /// The replica for `key`, marking it recently used.
    pub fn get(&mut self, key: u64) -> Option<usize> {
        let replica = self.map.get(&key)?.0;
        self.touch(key, replica);
        Some(replica)
    }

    pub fn insert(&mut self, key: u64, replica: usize) {
        self.touch(key, replica);
        while self.map.len() > self.capacity {
            let Some((k, stamp)) = self.order.pop_front() else {
                break;
            };
            if self.map.get(&k).is_some_and(|e| e.1 == stamp) {
                self.map.remove(&k);
            }
        }
    }

    fn touch(&mut self, key: u64, replica: usize) {
        self.clock += 1;
        self.map.insert(key, (replica, self.clock));
        self.order.push_back((key, self.clock));
        if self.order.len() > 2 * self.capacity + 64 {
            self.compact();
        }
    }

    /// Drops stale queue entries: rebuilds the queue from the live stamps, oldest first.
    /// O(n), in place, order kept: the lock is held for one pass, not a sort.
    fn compact(&mut self) {
        let map = &self.map;
        self.order
            .retain(|(k, stamp)| map.get(k).is_some_and(|e| e.1 == *stamp));
    }

    /// Moves every conversation pinned to `from` to `to(key)`, or forgets it when `to` gives
    /// none. Returns how many moved. Recency is kept.
    pub fn repin(&mut self, from: usize, mut to: impl FnMut() -> Option<usize>) -> usize {
        let mut moved = 0;
        self.map.retain(|_, entry| {
            if entry.0 != from {
                return true;
            }
            match to() {
                Some(r) => {
                    entry.0 = r;
                    moved += 1;
                    true
                }
                None => false,
            }
        });
        moved
    }
}

/// The thread-safe table the pinning policies share, with the counter that spreads what it
/// does not hold.
#[derive(Debug)]
pub struct Affinity {
    table: Mutex<Lru>,
}

impl Affinity {
    pub fn new(capacity: usize) -> Self {
        Affinity {
            table: Mutex::new(Lru::new(capacity)),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Lru> {
        // A panic while holding this lock leaves a consistent map; keep serving.
        self.table.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The first key, in order, pinned to a replica the fleet can use now.
    pub fn lookup<'a>(
        &self,
        keys: impl IntoIterator<Item = &'a u64>,
        fleet: &dyn Fleet,
    ) -> Option<usize> {
        let mut table = self.lock();
        keys.into_iter()
            .find_map(|k| table.get(*k).filter(|r| fleet.eligible(*r)))
    }

    pub fn record(&self, key: u64, replica: usize) {
        self.lock().insert(key, replica);
    }

    /// Re-pins the conversations of a demoted replica, spread over the eligible ones.
    pub fn repin(&self, from: usize, spread: &Counter, fleet: &dyn Fleet) -> usize {
        self.lock().repin(from, || spread.next(fleet))
    }

    pub fn len(&self) -> usize {
        self.lock().len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn evicts_least_recently_used() {
        let mut lru = Lru::new(3);
        for k in 1..=3 {
            lru.insert(k, k as usize);
        }
        assert_eq!(lru.get(1), Some(1)); // 1 is now the most recent
        lru.insert(4, 4);
        assert_eq!(lru.len(), 3);
        assert_eq!(lru.get(2), None, "2 was the least recently used");
        assert_eq!(lru.get(1), Some(1));
        assert_eq!(lru.get(3), Some(3));
        assert_eq!(lru.get(4), Some(4));
    }

    #[test]
    fn stays_bounded_under_churn() {
        let mut lru = Lru::new(100);
        for k in 0..100_000u64 {
            lru.insert(k % 150, 0);
            let _ = lru.get(k % 7);
        }
        assert_eq!(lru.len(), 100);
        assert!(
            lru.order.len() <= 2 * 100 + 64 + 1,
            "queue compacted: {}",
            lru.order.len()
        );
    }

    #[test]
    fn overwrite_moves_a_conversation() {
        let mut lru = Lru::new(2);
        lru.insert(7, 0);
        lru.insert(7, 1);
        assert_eq!(lru.get(7), Some(1));
        assert_eq!(lru.len(), 1);
    }

    #[test]
    fn repin_moves_only_the_demoted_replica() {
        let mut lru = Lru::new(10);
        for k in 0..6u64 {
            lru.insert(k, (k % 2) as usize);
        }
        let mut next = 5;
        let moved = lru.repin(1, || {
            next += 1;
            Some(next)
        });
        assert_eq!(moved, 3);
        for k in [0u64, 2, 4] {
            assert_eq!(lru.get(k), Some(0));
        }
        let mut moved_to: Vec<usize> = [1u64, 3, 5].iter().map(|k| lru.get(*k).unwrap()).collect();
        moved_to.sort();
        assert_eq!(moved_to, vec![6, 7, 8]);
        assert_eq!(
            lru.repin(0, || None),
            0,
            "nowhere to go: forgotten, not counted"
        );
        assert_eq!(lru.len(), 3);
    }
}
