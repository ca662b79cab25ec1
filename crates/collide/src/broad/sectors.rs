//! Tom Moertel's sector method (comp.graphics.algorithms, June 1994), as he
//! wrote it, plus an exact mode.
//!
//! Objects are filed into square sectors by their upper-left (minimum)
//! corner, each sector's objects are tested pairwise, and the whole thing is
//! done four times with the grid shifted by half a sector in x, in y, and in
//! both. Two intersecting objects whose sides are shorter than half a sector
//! share a sector in at least one of the four shifts (in 1-D, two corners less
//! than half a sector apart cannot straddle both a whole-sector boundary and a
//! half-sector boundary), so nothing is missed. A pair can share a sector in
//! up to four shifts and is then reported up to four times.

use super::{BroadPhase, check_count};
use crate::error::{try_fill, try_reserve};
use crate::math::{extent_up, floor_i64};
use crate::pair::PairSink;
use crate::{Aabb, CollideError, Pair, QueryStats, Real};

/// How [`Sectors`] reports a pair found in several shifts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SectorMode {
    /// As Moertel's code: once per shift in which both objects share a
    /// sector, so up to four times (two coincident objects: exactly four).
    Raw,
    /// Once: a pair is tested and reported only in the first shift, in the
    /// fixed order of the four, in which both corners fall in one sector.
    /// No hash set: that "first shift" is recomputed from the two corners.
    Exact,
}

/// The four grid offsets, in sectors, in the order of Moertel's
/// `_DetermineCollisions`: `(0,0)`, `(0,½)`, `(½,0)`, `(½,½)` as `(x, y)`.
const SHIFTS: [[f64; 2]; 4] = [[0.0, 0.0], [0.0, 0.5], [0.5, 0.0], [0.5, 0.5]];

const NONE: u32 = u32::MAX;

/// Moertel's four-shift sector grid: objects filed into square sectors by
/// their minimum corner, tested pairwise per sector, four times with the
/// grid shifted by half a sector in x, in y and in both. Two intersecting
/// objects whose sides are shorter than half a sector share a sector in at
/// least one shift, so nothing is missed; a pair can be reported up to four
/// times ([`SectorMode::Raw`]) or once ([`SectorMode::Exact`]).
///
/// Every side of every object must be shorter than half a sector ("sector >
/// 2× the largest object"), else [`find_pairs`](BroadPhase::find_pairs)
/// returns [`CollideError::ObjectTooLarge`]. Where his code indexes a
/// fixed screen-sized array of sector lists, this one hashes sector
/// coordinates into a table of about 2n list heads, so any coordinates work;
/// sectors that share a list head are told apart before any test is counted,
/// so the tests and reports are his.
#[derive(Clone, Debug)]
pub struct Sectors {
    sector_size: Real,
    /// 1 / sector size, exact (a power of two).
    inv_size: f64,
    mode: SectorMode,
    /// Per object: its minimum corner in sector units, exact.
    corner: Vec<[f64; 2]>,
    /// Per object: its sector in the current shift.
    sector: Vec<[i64; 2]>,
    /// Per object: the next object in the same list (Moertel's `sector_link`).
    next: Vec<u32>,
    /// List heads, indexed by a hash of the sector.
    heads: Vec<u32>,
    stats: QueryStats,
}

impl Sectors {
    /// A four-shift grid with square sectors of side `sector_size`
    /// (Moertel: 64 for 30×30 sprites).
    ///
    /// # Errors
    /// [`CollideError::InvalidSectorSize`] unless `sector_size` is a positive,
    /// finite power of two (his code shifts by `log2(kSectorSize)`; a power of
    /// two also keeps the half-sector shift exact in floating point).
    pub fn new(sector_size: Real, mode: SectorMode) -> Result<Self, CollideError> {
        let inv_size = checked_pow2_inverse(sector_size)?;
        Ok(Self {
            sector_size,
            inv_size,
            mode,
            corner: Vec::new(),
            sector: Vec::new(),
            next: Vec::new(),
            heads: Vec::new(),
            stats: QueryStats::default(),
        })
    }

    /// The side of a sector.
    pub fn sector_size(&self) -> Real {
        self.sector_size
    }

    /// The reporting mode.
    pub fn mode(&self) -> SectorMode {
        self.mode
    }

    fn prepare(&mut self, boxes: &[Aabb]) -> Result<(), CollideError> {
        check_count(boxes.len())?;
        let limit = f64::from(self.sector_size) * 0.5;
        self.corner.clear();
        try_reserve(&mut self.corner, boxes.len(), "sector corners")?;
        for (index, b) in boxes.iter().enumerate() {
            let extent = extent_up(b.min().x, b.max().x).max(extent_up(b.min().y, b.max().y));
            if extent >= limit {
                return Err(CollideError::ObjectTooLarge {
                    index,
                    extent,
                    limit,
                });
            }
            self.corner.push([
                f64::from(b.min().x) * self.inv_size,
                f64::from(b.min().y) * self.inv_size,
            ]);
        }
        try_fill(
            &mut self.sector,
            boxes.len(),
            [0, 0],
            "sector of each object",
        )?;
        try_fill(&mut self.next, boxes.len(), NONE, "sector links")?;
        let buckets = (boxes.len() * 2).max(16).next_power_of_two();
        try_fill(&mut self.heads, buckets, NONE, "sector list heads")?;
        Ok(())
    }
}

/// `1 / size` if `size` is a positive finite power of two.
pub(crate) fn checked_pow2_inverse(size: Real) -> Result<f64, CollideError> {
    let ok = size.is_finite() && size > 0.0 && {
        let bits = size.to_bits();
        let exp = (bits >> 23) & 0xff;
        let mantissa = bits & 0x7f_ffff;
        // A normal with zero mantissa, or a subnormal with one bit set.
        (exp != 0 && mantissa == 0) || (exp == 0 && mantissa.is_power_of_two())
    };
    if !ok {
        return Err(CollideError::InvalidSectorSize { size });
    }
    Ok(1.0 / f64::from(size))
}

/// The sector holding a corner (in sector units) under grid shift `shift`.
#[inline]
fn sector_of(corner: [f64; 2], shift: [f64; 2]) -> [i64; 2] {
    // `as` saturates: far-away corners share an extreme sector and are then
    // tested, never missed.
    [
        floor_i64(corner[0] + shift[0]),
        floor_i64(corner[1] + shift[1]),
    ]
}

#[inline]
fn bucket_of(sector: [i64; 2], mask: usize) -> usize {
    let h = (sector[0] as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)
        ^ (sector[1] as u64).wrapping_mul(0xC2B2_AE3D_27D4_EB4F);
    ((h ^ (h >> 29)) as usize) & mask
}

impl BroadPhase for Sectors {
    fn find_pairs(&mut self, boxes: &[Aabb], out: &mut Vec<Pair>) -> Result<(), CollideError> {
        self.prepare(boxes)?;
        let mask = self.heads.len() - 1;
        let mut sink = PairSink::new(out);
        let before = sink.len();
        let mut tests = 0u64;
        for (shift_index, &shift) in SHIFTS.iter().enumerate() {
            // UpdateSectors: reset the lists, then push each object on the
            // front of its sector's list.
            self.heads.fill(NONE);
            for (o, &corner) in self.corner.iter().enumerate() {
                let s = sector_of(corner, shift);
                self.sector[o] = s;
                let head = &mut self.heads[bucket_of(s, mask)];
                self.next[o] = *head;
                *head = o as u32;
            }
            // _UpdateCollisionArray: brute force inside each sector.
            for &head in &self.heads {
                let mut o0 = head;
                while o0 != NONE {
                    let i = o0 as usize;
                    let mut ox = self.next[i];
                    while ox != NONE {
                        let j = ox as usize;
                        ox = self.next[j];
                        if self.sector[i] != self.sector[j] {
                            continue; // another sector hashed to the same list
                        }
                        if self.mode == SectorMode::Exact
                            && SHIFTS[..shift_index].iter().any(|&earlier| {
                                sector_of(self.corner[i], earlier)
                                    == sector_of(self.corner[j], earlier)
                            })
                        {
                            continue; // already tested in an earlier shift
                        }
                        tests += 1;
                        if boxes[i].intersects(&boxes[j]) {
                            sink.push(Pair::ordered(i as u32, j as u32))?;
                        }
                    }
                    o0 = self.next[i];
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sector_size_must_be_a_power_of_two() {
        assert!(Sectors::new(64.0, SectorMode::Raw).is_ok());
        assert!(Sectors::new(0.5, SectorMode::Raw).is_ok());
        assert!(Sectors::new(f32::from_bits(1), SectorMode::Raw).is_ok());
        for bad in [0.0, -64.0, 48.0, f32::NAN, f32::INFINITY] {
            assert!(
                matches!(
                    Sectors::new(bad, SectorMode::Raw),
                    Err(CollideError::InvalidSectorSize { .. })
                ),
                "{bad}"
            );
        }
    }

    #[test]
    fn half_a_sector_is_too_large() {
        let mut s = Sectors::new(64.0, SectorMode::Exact).unwrap();
        let ok = Aabb::new([0.0, 0.0], [31.99, 31.99]).unwrap();
        let big = Aabb::new([0.0, 0.0], [32.0, 1.0]).unwrap();
        let mut out = Vec::new();
        assert!(s.find_pairs(&[ok, ok], &mut out).is_ok());
        assert_eq!(
            s.find_pairs(&[ok, big], &mut out),
            Err(CollideError::ObjectTooLarge {
                index: 1,
                extent: 32.0,
                limit: 32.0
            })
        );
    }
}
