//! All n(n-1)/2 pairs: slow, obviously right, the oracle of every test.

use super::{BroadPhase, check_count};
use crate::pair::PairSink;
use crate::{Aabb, CollideError, Pair, QueryStats};

/// Tests every pair of boxes. O(n²); use it as a reference, not in a game.
#[derive(Clone, Debug, Default)]
pub struct BruteForce {
    stats: QueryStats,
}

impl BruteForce {
    /// A brute-force tester.
    pub fn new() -> Self {
        Self::default()
    }
}

impl BroadPhase for BruteForce {
    fn find_pairs(&mut self, boxes: &[Aabb], out: &mut Vec<Pair>) -> Result<(), CollideError> {
        check_count(boxes.len())?;
        let mut sink = PairSink::new(out);
        let before = sink.len();
        let mut tests = 0u64;
        for (i, a) in boxes.iter().enumerate() {
            for (j, b) in boxes.iter().enumerate().skip(i + 1) {
                tests += 1;
                if a.intersects(b) {
                    sink.push(Pair::ordered(i as u32, j as u32))?;
                }
            }
        }
        self.stats = QueryStats {
            tests,
            reported: (sink.len() - before) as u64,
        };
        Ok(())
    }

    fn last_stats(&self) -> QueryStats {
        self.stats
    }
}
