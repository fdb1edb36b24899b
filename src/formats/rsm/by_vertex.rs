//! A map keyed by a vertex index and a second key: how lowering finds
//! the vertex a face corner became, or a vertex's normal sum in a
//! smoothing group, without hashing every corner.
//!
//! A real mesh gives a vertex a handful of entries (one per texture seam,
//! normal or smoothing group it sits on), so each vertex keeps a short
//! chain of its entries, found by indexing. A crafted file could pile
//! thousands of entries on one vertex; past [`CHAIN`] entries a vertex's
//! further ones go to a hash map (std's, keyed at random, so collisions
//! cannot be planned), and no lookup costs more than `CHAIN` comparisons
//! and one hash.

use std::collections::HashMap;
use std::hash::Hash;

/// Entries a vertex keeps in its chain before the rest go to the map.
const CHAIN: u8 = 16;
const NONE: u32 = u32::MAX;

pub struct ByVertex<K, V> {
    /// Per vertex: its chain's first entry, or [`NONE`].
    head: Vec<u32>,
    /// Per vertex: the entries in its chain.
    chained: Vec<u8>,
    entries: Vec<Entry<K, V>>,
    /// Entries of vertices whose chain is full, or past `head`.
    overflow: HashMap<(usize, K), u32>,
}

struct Entry<K, V> {
    key: K,
    value: V,
    next: u32,
}

impl<K: Copy + Eq + Hash, V> ByVertex<K, V> {
    /// A map for vertices `0..vertices` (others work, through the map).
    pub fn new(vertices: usize) -> Self {
        ByVertex {
            head: vec![NONE; vertices],
            chained: vec![0; vertices],
            entries: Vec::new(),
            overflow: HashMap::new(),
        }
    }

    fn find(&self, vertex: usize, key: K) -> Option<u32> {
        let mut at = self.head.get(vertex).copied().unwrap_or(NONE);
        while let Some(e) = self.entries.get(at as usize) {
            if e.key == key {
                return Some(at);
            }
            at = e.next;
        }
        if self.overflow.is_empty() {
            return None;
        }
        self.overflow.get(&(vertex, key)).copied()
    }

    pub fn get(&self, vertex: usize, key: K) -> Option<&V> {
        let at = self.find(vertex, key)?;
        self.entries.get(at as usize).map(|e| &e.value)
    }

    /// The value of `(vertex, key)`, made by `make` if it has none yet.
    pub fn get_or_insert_with(
        &mut self,
        vertex: usize,
        key: K,
        make: impl FnOnce() -> V,
    ) -> &mut V {
        let at = match self.find(vertex, key) {
            Some(at) => at,
            None => {
                let at = self.entries.len() as u32;
                let next = match self.chained.get_mut(vertex) {
                    Some(n) if *n < CHAIN => {
                        *n += 1;
                        std::mem::replace(&mut self.head[vertex], at)
                    }
                    _ => {
                        self.overflow.insert((vertex, key), at);
                        NONE
                    }
                };
                self.entries.push(Entry {
                    key,
                    value: make(),
                    next,
                });
                at
            }
        };
        &mut self.entries[at as usize].value
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_every_entry_in_chains_and_past_them() {
        // Vertex 3 gets far more entries than a chain holds, vertex 9 is
        // past the table; every key keeps the value it was first given,
        // and asking again makes nothing.
        let mut m: ByVertex<u32, usize> = ByVertex::new(5);
        let value = |v: usize, k: u32| v * 1000 + k as usize;
        let mut keys = vec![(0, 7)];
        for k in 0..40 {
            keys.extend([(3, k), (9, k)]);
        }
        for &(v, k) in &keys {
            assert_eq!(*m.get_or_insert_with(v, k, || value(v, k)), value(v, k));
        }
        assert_eq!(m.entries.len(), 81);
        assert_eq!(m.overflow.len(), 40 - CHAIN as usize + 40);
        for &(v, k) in &keys {
            assert_eq!(m.get(v, k), Some(&value(v, k)), "vertex {v} key {k}");
            *m.get_or_insert_with(v, k, || unreachable!("{v} {k} made twice")) += 1;
            assert_eq!(m.get(v, k), Some(&(value(v, k) + 1)));
        }
        assert_eq!(m.entries.len(), 81);
        assert_eq!(m.get(0, 8), None);
        assert_eq!(m.get(3, 40), None);
        assert_eq!(m.get(4, 0), None);
    }
}
