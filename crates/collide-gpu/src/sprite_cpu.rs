//! The CPU path for sprite pairs: `collide::mask`'s masks, turned by
//! `Mask::rotated` (the rule the fragment shader follows), then ANDed. The
//! cost model ([`crate::cost`]) sends a batch here when it is cheaper:
//! unturned sprites on every adapter measured so far (a bit-mask AND takes
//! a fraction of a microsecond; a submission and its read-back, hundreds).

use std::borrow::Cow;

use collide::mask::Mask;

use crate::{GpuCollider, GpuError, Hit, Pair, Path, Placement, SpriteId};

/// Neither turned nor scaled: the mask as it is.
pub(crate) fn unturned(p: Placement) -> bool {
    p.angle == 0.0 && p.scale == 1.0
}

/// Whether two pixel boxes (x0, y0, x1, y1) share a pixel.
pub(crate) fn boxes_meet(a: [i64; 4], b: [i64; 4]) -> bool {
    a[0] < b[2] && b[0] < a[2] && a[1] < b[3] && b[1] < a[3]
}

impl GpuCollider {
    /// What the shader's alpha test keeps of a sprite at `threshold`: the
    /// mask made at upload when the texels are only 0 and 255 (any
    /// threshold below 255 keeps the same), else made now.
    fn sprite_mask(&self, id: SpriteId, threshold: u8) -> Result<Cow<'_, Mask>, GpuError> {
        let s = self.sprite(id)?;
        if threshold == crate::DEFAULT_THRESHOLD || (s.binary && threshold < u8::MAX) {
            return Ok(Cow::Borrowed(&s.mask));
        }
        Mask::from_alpha(s.width, s.height, &s.texels, 1, 0, threshold)
            .map(Cow::Owned)
            .map_err(|e| GpuError::Mask(e.to_string()))
    }

    /// A placed sprite's mask, turned and scaled as drawn, and where its
    /// top-left pixel lies.
    fn placed_mask(
        &self,
        id: SpriteId,
        p: Placement,
    ) -> Result<(Cow<'_, Mask>, [i64; 2]), GpuError> {
        let mask = self.sprite_mask(id, p.threshold)?;
        let (x, y) = (i64::from(p.x), i64::from(p.y));
        if unturned(p) {
            return Ok((mask, [x, y]));
        }
        let (turned, (dx, dy)) = mask
            .rotated(f64::from(p.angle), f64::from(p.scale))
            .map_err(|e| GpuError::Mask(e.to_string()))?;
        Ok((Cow::Owned(turned), [x + dx, y + dy]))
    }

    /// Tests pairs on the CPU: the same boxes, errors and pixel rule as
    /// the GPU path; each count is exact ([`Path::CpuMasks`]).
    pub(crate) fn test_pairs_cpu(&self, pairs: &[Pair]) -> Result<Vec<Hit>, GpuError> {
        let mut out = Vec::with_capacity(pairs.len());
        for (index, pair) in pairs.iter().enumerate() {
            let (_, ba) = self.draw(index, pair.a, pair.at_a)?;
            let (_, bb) = self.draw(index, pair.b, pair.at_b)?;
            if !boxes_meet(ba, bb) {
                out.push(crate::boxes_apart());
                continue;
            }
            // The GPU path's size check, so both paths refuse alike (and a
            // turned mask's memory is bounded by the target's side).
            self.place(index, pair)?;
            let count = if pair.at_a.layer == pair.at_b.layer {
                let (ma, [ax, ay]) = self.placed_mask(pair.a, pair.at_a)?;
                let (mb, [bx, by]) = self.placed_mask(pair.b, pair.at_b)?;
                ma.overlap_area(&mb, bx - ax, by - ay)
            } else {
                0
            };
            out.push(Hit {
                hit: count > 0,
                query: count,
                path: Path::CpuMasks,
            });
        }
        Ok(out)
    }
    /// One sprite against many on the CPU: the first turned once, each
    /// candidate whose box meets it turned and ANDed with it.
    pub(crate) fn test_group_cpu(
        &self,
        first: SpriteId,
        at: Placement,
        others: &[(SpriteId, Placement)],
    ) -> Result<Vec<Hit>, GpuError> {
        let (_, b0) = self.draw(0, first, at)?;
        let shift = self.group_shift(b0);
        let mut placed_first = None;
        let mut out = Vec::with_capacity(others.len());
        for (k, &(id, p)) in others.iter().enumerate() {
            let (_, b) = self.draw(k, id, p)?;
            if !boxes_meet(b0, b) {
                out.push(crate::boxes_apart());
                continue;
            }
            self.check_group_fit(k, b, shift)?;
            let count = if p.layer == at.layer {
                // Turned once, when a candidate first needs it.
                let (m0, [x0, y0]) = match placed_first.take() {
                    Some(f) => f,
                    None => self.placed_mask(first, at)?,
                };
                let (m, [x, y]) = self.placed_mask(id, p)?;
                let count = m0.overlap_area(&m, x - x0, y - y0);
                placed_first = Some((m0, [x0, y0]));
                count
            } else {
                0
            };
            out.push(Hit {
                hit: count > 0,
                query: count,
                path: Path::CpuMasks,
            });
        }
        Ok(out)
    }
}
