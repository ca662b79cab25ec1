//! The method Moertel measured his four shifts against: one grid, and each
//! sector tested together with its eight neighbours.
//!
//! His analysis: with K objects per sector on average, this costs
//! L(L-1)/2 tests per sector with L = 9K, against 4·K(K-1)/2 for the four
//! shifts, a ratio tending to 81/4 ≈ 20. This implementation performs exactly
//! those tests (every pair among the objects of the 3×3 block around each
//! sector that has an occupied neighbour), so the benchmark can count them.
//! It reports each intersecting pair once: from the block centred on the
//! sector of the pair's lower-indexed object.

use super::sectors::checked_pow2_inverse;
use super::{BroadPhase, check_count};
use crate::error::try_reserve;
use crate::math::{extent_up, floor_i64};
use crate::pair::PairSink;
use crate::{Aabb, CollideError, Pair, QueryStats, Real};

/// The 9-sector method. Objects are filed by their minimum corner; every side
/// must be at most one sector long, else
/// [`find_pairs`](BroadPhase::find_pairs) returns
/// [`CollideError::ObjectTooLarge`].
#[derive(Clone, Debug)]
pub struct AdjacentSectors {
    sector_size: Real,
    inv_size: f64,
    /// (sector, object), sorted by sector (row-major) then object.
    filed: Vec<([i64; 2], u32)>,
    /// Occupied sectors: (sector, range in `filed`).
    occupied: Vec<([i64; 2], u32, u32)>,
    /// Sectors whose 3×3 block holds any object.
    blocks: Vec<[i64; 2]>,
    /// Scratch: the objects of one block.
    block: Vec<u32>,
    stats: QueryStats,
}

impl AdjacentSectors {
    /// A 9-sector grid with square sectors of side `sector_size`.
    ///
    /// # Errors
    /// [`CollideError::InvalidSectorSize`] unless `sector_size` is a positive,
    /// finite power of two.
    pub fn new(sector_size: Real) -> Result<Self, CollideError> {
        let inv_size = checked_pow2_inverse(sector_size)?;
        Ok(Self {
            sector_size,
            inv_size,
            filed: Vec::new(),
            occupied: Vec::new(),
            blocks: Vec::new(),
            block: Vec::new(),
            stats: QueryStats::default(),
        })
    }

    /// The side of a sector.
    pub fn sector_size(&self) -> Real {
        self.sector_size
    }

    /// Range in `filed` of the objects of `sector` (empty if none).
    fn objects_in(&self, sector: [i64; 2]) -> std::ops::Range<usize> {
        let key = |s: [i64; 2]| (s[1], s[0]);
        match self
            .occupied
            .binary_search_by(|(s, _, _)| key(*s).cmp(&key(sector)))
        {
            Ok(k) => self.occupied[k].1 as usize..self.occupied[k].2 as usize,
            Err(_) => 0..0,
        }
    }
}

impl BroadPhase for AdjacentSectors {
    fn find_pairs(&mut self, boxes: &[Aabb], out: &mut Vec<Pair>) -> Result<(), CollideError> {
        check_count(boxes.len())?;
        let limit = f64::from(self.sector_size);
        self.filed.clear();
        try_reserve(&mut self.filed, boxes.len(), "sector filing")?;
        for (index, b) in boxes.iter().enumerate() {
            let extent = extent_up(b.min().x, b.max().x).max(extent_up(b.min().y, b.max().y));
            if extent > limit {
                return Err(CollideError::ObjectTooLarge {
                    index,
                    extent,
                    limit,
                });
            }
            let sector = [
                floor_i64(f64::from(b.min().x) * self.inv_size),
                floor_i64(f64::from(b.min().y) * self.inv_size),
            ];
            self.filed.push((sector, index as u32));
        }
        self.filed.sort_unstable_by_key(|&(s, i)| (s[1], s[0], i));

        self.occupied.clear();
        let mut start = 0;
        while start < self.filed.len() {
            let sector = self.filed[start].0;
            let end = start
                + self.filed[start..]
                    .iter()
                    .take_while(|(s, _)| *s == sector)
                    .count();
            try_reserve(&mut self.occupied, 1, "occupied sectors")?;
            self.occupied.push((sector, start as u32, end as u32));
            start = end;
        }

        self.blocks.clear();
        try_reserve(
            &mut self.blocks,
            self.occupied.len().saturating_mul(9),
            "sector blocks",
        )?;
        for &(s, _, _) in &self.occupied {
            for dy in -1..=1 {
                for dx in -1..=1 {
                    self.blocks
                        .push([s[0].saturating_add(dx), s[1].saturating_add(dy)]);
                }
            }
        }
        self.blocks.sort_unstable_by_key(|s| (s[1], s[0]));
        self.blocks.dedup();

        let mut sink = PairSink::new(out);
        let before = sink.len();
        let mut tests = 0u64;
        let blocks = std::mem::take(&mut self.blocks);
        for &centre in &blocks {
            self.block.clear();
            for dy in -1..=1 {
                for dx in -1..=1 {
                    let s = [centre[0].saturating_add(dx), centre[1].saturating_add(dy)];
                    let range = self.objects_in(s);
                    try_reserve(&mut self.block, range.len(), "sector block")?;
                    self.block.extend(self.filed[range].iter().map(|&(_, o)| o));
                }
            }
            // Saturation at i64's ends can name one sector twice; keep each
            // object once.
            self.block.sort_unstable();
            self.block.dedup();
            for (n, &i) in self.block.iter().enumerate() {
                for &j in &self.block[n + 1..] {
                    tests += 1;
                    if !boxes[i as usize].intersects(&boxes[j as usize]) {
                        continue;
                    }
                    let home = boxes[i.min(j) as usize].min();
                    let home = [
                        floor_i64(f64::from(home.x) * self.inv_size),
                        floor_i64(f64::from(home.y) * self.inv_size),
                    ];
                    if home == centre {
                        sink.push(Pair::ordered(i, j))?;
                    }
                }
            }
        }
        self.blocks = blocks;
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
