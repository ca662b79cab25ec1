//! Sweep and prune on one axis: the classic alternative to grids.

use super::{BroadPhase, check_count};
use crate::error::try_reserve;
use crate::pair::PairSink;
use crate::{Aabb, CollideError, Pair, QueryStats};

/// Sorts boxes by their minimum on one axis and sweeps: each box is tested
/// against the boxes that start before it ends. The axis is the one along
/// which the box centres are more spread out, so a world that is wider than
/// tall is swept along x.
///
/// O(n log n + k) where k counts pairs overlapping on the swept axis only: good
/// for a few thousand objects, poor for dense worlds (a whole column of the
/// world overlaps on x).
#[derive(Clone, Debug, Default)]
pub struct SweepAndPrune {
    /// Per box in sweep order: `[min, max, other_min, other_max]` and its index.
    sorted: Vec<([f32; 4], u32)>,
    stats: QueryStats,
}

impl SweepAndPrune {
    /// A sweep-and-prune tester.
    pub fn new() -> Self {
        Self::default()
    }
}

/// True when the centres spread more along y than along x.
fn sweep_along_y(boxes: &[Aabb]) -> bool {
    if boxes.is_empty() {
        return false;
    }
    let n = boxes.len() as f64;
    let (mut sx, mut sy, mut sxx, mut syy) = (0.0f64, 0.0f64, 0.0f64, 0.0f64);
    for b in boxes {
        let cx = (f64::from(b.min().x) + f64::from(b.max().x)) * 0.5;
        let cy = (f64::from(b.min().y) + f64::from(b.max().y)) * 0.5;
        sx += cx;
        sy += cy;
        sxx += cx * cx;
        syy += cy * cy;
    }
    let var_x = sxx / n - (sx / n) * (sx / n);
    let var_y = syy / n - (sy / n) * (sy / n);
    var_y > var_x
}

impl BroadPhase for SweepAndPrune {
    fn find_pairs(&mut self, boxes: &[Aabb], out: &mut Vec<Pair>) -> Result<(), CollideError> {
        check_count(boxes.len())?;
        let along_y = sweep_along_y(boxes);
        self.sorted.clear();
        try_reserve(&mut self.sorted, boxes.len(), "sweep-and-prune order")?;
        self.sorted.extend(boxes.iter().enumerate().map(|(i, b)| {
            let (lo, hi) = (b.min(), b.max());
            let k = if along_y {
                [lo.y, hi.y, lo.x, hi.x]
            } else {
                [lo.x, hi.x, lo.y, hi.y]
            };
            (k, i as u32)
        }));
        // Ties broken by index, so the output order is a function of the input.
        self.sorted
            .sort_unstable_by(|(a, i), (b, j)| a[0].total_cmp(&b[0]).then(i.cmp(j)));

        let mut sink = PairSink::new(out);
        let before = sink.len();
        let mut tests = 0u64;
        for (n, &(a, i)) in self.sorted.iter().enumerate() {
            for &(b, j) in &self.sorted[n + 1..] {
                if b[0] > a[1] {
                    break;
                }
                tests += 1;
                if b[2] <= a[3] && a[2] <= b[3] {
                    sink.push(Pair::ordered(i, j))?;
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
