//! Pixel-perfect collision: 1-bit masks, packed 64 pixels to a word.
//!
//! The layout is pygame's: the mask is cut into vertical stripes 64 pixels
//! wide, and a stripe's words are stored top to bottom (`bits[stripe · h +
//! y]`), pixel `x` of a stripe in bit `x % 64` (the lowest bit is the
//! leftmost pixel). Testing two masks at an offset then walks each stripe
//! down its rows, shifting the other mask's words into place: one shift and
//! one AND per 64 pixels. Bits right of the width are always zero.
//!
//! Results are pygame-ce's (`pygame.mask`), bit for bit: a differential test
//! runs pygame-ce on 10⁴ random cases. That includes *which* point
//! [`Mask::overlap`] returns, since pygame scans in a fixed order (see there).

use crate::error::{CollideError, try_reserve_exact};

const W: usize = 64;

/// A 2-D bit mask: which pixels of a sprite are solid.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Mask {
    width: usize,
    height: usize,
    /// `stripes · height` words; see the module docs.
    bits: Vec<u64>,
    /// Per stripe, the rows from its first to past its last non-empty word
    /// (`0..0` when empty). The scans only visit rows where both masks have
    /// something, which changes no answer and skips most of two discs'
    /// corners. Kept exact by every mutation.
    spans: Vec<(u32, u32)>,
}

impl std::fmt::Debug for Mask {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(f, "Mask {}x{}", self.width, self.height)?;
        for y in 0..self.height.min(64) {
            let row: String = (0..self.width.min(128))
                .map(|x| if self.get(x, y) { '#' } else { '.' })
                .collect();
            writeln!(f, "{row}")?;
        }
        Ok(())
    }
}

/// An axis-aligned rectangle of pixels: `x..x + w`, `y..y + h`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PixelRect {
    /// Left column.
    pub x: usize,
    /// Top row.
    pub y: usize,
    /// Width in pixels.
    pub w: usize,
    /// Height in pixels.
    pub h: usize,
}

impl Mask {
    /// The largest side a mask may have (pygame takes C ints; a side this
    /// long is already a 64 MiB mask when square).
    pub const MAX_SIDE: u32 = 1 << 15;

    /// An empty (all clear) mask. Zero-sized masks are allowed, as in pygame.
    pub fn new(width: usize, height: usize) -> Result<Mask, CollideError> {
        if width > Self::MAX_SIDE as usize || height > Self::MAX_SIDE as usize {
            return Err(CollideError::MaskTooLarge {
                width: width as u64,
                height: height as u64,
                limit: Self::MAX_SIDE,
            });
        }
        let len = width.div_ceil(W) * height;
        let mut bits = Vec::new();
        try_reserve_exact(&mut bits, len, "mask bits")?;
        bits.resize(len, 0);
        let mut spans = Vec::new();
        try_reserve_exact(&mut spans, width.div_ceil(W), "mask spans")?;
        spans.resize(width.div_ceil(W), (0, 0));
        Ok(Mask {
            width,
            height,
            bits,
            spans,
        })
    }

    /// A mask with every pixel set.
    pub fn full(width: usize, height: usize) -> Result<Mask, CollideError> {
        let mut m = Mask::new(width, height)?;
        m.fill();
        Ok(m)
    }

    /// A mask set where `solid(x, y)` says so.
    pub fn from_fn(
        width: usize,
        height: usize,
        mut solid: impl FnMut(usize, usize) -> bool,
    ) -> Result<Mask, CollideError> {
        let mut m = Mask::new(width, height)?;
        for s in 0..m.stripes() {
            for y in 0..height {
                let mut word = 0u64;
                for b in 0..W.min(width - s * W) {
                    word |= u64::from(solid(s * W + b, y)) << b;
                }
                m.bits[s * height + y] = word;
            }
        }
        m.respan();
        Ok(m)
    }

    /// The seed's alpha test, as pygame's `from_surface`: a pixel is set
    /// where its alpha is *above* `threshold` (127 by default in pygame).
    /// `pixels` holds `width × height` pixels of `stride` bytes each, row
    /// by row, alpha at byte `alpha_at` of each pixel.
    pub fn from_alpha(
        width: usize,
        height: usize,
        pixels: &[u8],
        stride: usize,
        alpha_at: usize,
        threshold: u8,
    ) -> Result<Mask, CollideError> {
        let expected = width.saturating_mul(height).saturating_mul(stride);
        if pixels.len() != expected || alpha_at >= stride.max(1) {
            return Err(CollideError::MaskBufferSize {
                expected,
                got: pixels.len(),
            });
        }
        Mask::from_fn(width, height, |x, y| {
            pixels[(y * width + x) * stride + alpha_at] > threshold
        })
    }

    /// Width in pixels.
    pub fn width(&self) -> usize {
        self.width
    }
    /// Height in pixels.
    pub fn height(&self) -> usize {
        self.height
    }
    fn stripes(&self) -> usize {
        self.width.div_ceil(W)
    }
    /// The bits of the last stripe that lie inside the width.
    fn edge(&self) -> u64 {
        match self.width % W {
            0 => !0,
            r => (1u64 << r) - 1,
        }
    }

    /// Whether pixel (x, y) is set; outside the mask is clear.
    pub fn get(&self, x: usize, y: usize) -> bool {
        x < self.width
            && y < self.height
            && self.bits[(x / W) * self.height + y] >> (x % W) & 1 == 1
    }

    /// Sets or clears pixel (x, y); outside the mask nothing happens.
    pub fn set(&mut self, x: usize, y: usize, value: bool) {
        if x < self.width && y < self.height {
            let s = x / W;
            let w = &mut self.bits[s * self.height + y];
            let bit = 1u64 << (x % W);
            if value {
                *w |= bit;
                let (a, b) = self.spans[s];
                let y = y as u32;
                self.spans[s] = if a == b {
                    (y, y + 1)
                } else {
                    (a.min(y), b.max(y + 1))
                };
            } else {
                *w &= !bit;
                self.respan_stripe(s);
            }
        }
    }

    /// Recomputes every stripe's span of non-empty rows.
    fn respan(&mut self) {
        for s in 0..self.stripes() {
            self.respan_stripe(s);
        }
    }

    fn respan_stripe(&mut self, s: usize) {
        let col = &self.bits[s * self.height..(s + 1) * self.height];
        self.spans[s] = match col.iter().position(|&w| w != 0) {
            None => (0, 0),
            Some(first) => {
                let last = col.iter().rposition(|&w| w != 0).unwrap_or(first);
                (first as u32, last as u32 + 1)
            }
        };
    }

    /// Whether every stripe's span is exactly its non-empty rows (for the
    /// tests: the spans are an invariant every mutation keeps).
    #[doc(hidden)]
    pub fn spans_are_exact(&self) -> bool {
        let mut copy = self.clone();
        copy.respan();
        copy.spans == self.spans
    }

    /// Stripe `s`'s span of non-empty rows, in `self`'s rows.
    fn span(&self, s: usize) -> std::ops::Range<usize> {
        let (a, b) = self.spans[s];
        a as usize..b as usize
    }

    /// Number of set pixels.
    pub fn count(&self) -> u64 {
        self.bits.iter().map(|w| u64::from(w.count_ones())).sum()
    }

    /// Sets every pixel.
    pub fn fill(&mut self) {
        let (h, edge, last) = (self.height, self.edge(), self.stripes().saturating_sub(1));
        for (i, w) in self.bits.iter_mut().enumerate() {
            *w = if i / h.max(1) == last { edge } else { !0 };
        }
        self.respan();
    }

    /// Clears every pixel.
    pub fn clear(&mut self) {
        self.bits.fill(0);
        self.spans.fill((0, 0));
    }

    /// Flips every pixel.
    pub fn invert(&mut self) {
        let (h, edge, last) = (self.height, self.edge(), self.stripes().saturating_sub(1));
        for (i, w) in self.bits.iter_mut().enumerate() {
            *w = !*w & if i / h.max(1) == last { edge } else { !0 };
        }
        self.respan();
    }

    /// The 64 pixels of row `y` starting at column `x0` (which may be
    /// negative or past the edge: pixels outside read clear).
    #[inline]
    fn word_at(&self, x0: i64, y: usize) -> u64 {
        let s = x0.div_euclid(W as i64);
        let r = x0.rem_euclid(W as i64) as u32;
        let stripe = |k: i64| -> u64 {
            if k >= 0 && (k as usize) < self.stripes() {
                self.bits[k as usize * self.height + y]
            } else {
                0
            }
        };
        if r == 0 {
            stripe(s)
        } else {
            (stripe(s) >> r) | (stripe(s + 1) << (W as u32 - r))
        }
    }

    /// Rows `r` of stripe `s`, or nothing past the last stripe.
    fn column(&self, s: usize, r: &std::ops::Range<usize>) -> &[u64] {
        if s < self.stripes() {
            &self.bits[s * self.height..(s + 1) * self.height][r.clone()]
        } else {
            &[]
        }
    }

    /// Whether `other` at `(dx, dy)` lies wholly outside `self` (checked
    /// first, so that no offset, however large, can overflow below).
    fn apart(&self, other: &Mask, dx: i64, dy: i64) -> bool {
        dx >= self.width as i64
            || dy >= self.height as i64
            || dx <= -(other.width as i64)
            || dy <= -(other.height as i64)
    }

    /// The rows of `self` that `other` at vertical offset `dy` covers.
    fn rows(&self, other: &Mask, dy: i64) -> std::ops::Range<usize> {
        let top = dy.max(0);
        let bottom = (dy + other.height as i64).min(self.height as i64);
        if bottom <= top {
            0..0
        } else {
            top as usize..bottom as usize
        }
    }

    /// Applies `op(word of self, word of other shifted into place)` to every
    /// word of `self` that `other`, placed with its top-left corner at
    /// `(dx, dy)`, can reach.
    fn combine(&mut self, other: &Mask, dx: i64, dy: i64, op: impl Fn(u64, u64) -> u64) {
        if self.apart(other, dx, dy) {
            return;
        }
        let rows = self.rows(other, dy);
        let (h, last, edge) = (self.height, self.stripes().saturating_sub(1), self.edge());
        for s in 0..self.stripes() {
            let x0 = (s * W) as i64 - dx;
            if x0 >= other.width as i64 || x0 + (W as i64) <= 0 {
                continue;
            }
            // Pixels of `other` right of our width must not land in the
            // last stripe's spare bits.
            let keep = if s == last { edge } else { !0 };
            for y in rows.clone() {
                let o = other.word_at(x0, (y as i64 - dy) as usize) & keep;
                let w = &mut self.bits[s * h + y];
                *w = op(*w, o);
            }
            self.respan_stripe(s);
        }
    }

    /// Sets the pixels `other` covers at offset `(dx, dy)` (pygame's `draw`:
    /// bitwise OR).
    pub fn draw(&mut self, other: &Mask, dx: i64, dy: i64) {
        self.combine(other, dx, dy, |a, b| a | b);
    }

    /// Clears the pixels `other` covers at the offset (pygame's `erase`:
    /// AND NOT).
    pub fn erase(&mut self, other: &Mask, dx: i64, dy: i64) {
        self.combine(other, dx, dy, |a, b| a & !b);
    }

    /// Flips the pixels `other` covers at the offset (bitwise XOR).
    pub fn xor(&mut self, other: &Mask, dx: i64, dy: i64) {
        self.combine(other, dx, dy, |a, b| a ^ b);
    }

    /// Keeps only the pixels `other` covers at the offset (bitwise AND; the
    /// part of `self` that `other` does not reach is cleared).
    pub fn and(&mut self, other: &Mask, dx: i64, dy: i64) {
        let far = self.apart(other, dx, dy);
        let rows = if far { 0..0 } else { self.rows(other, dy) };
        let h = self.height;
        for s in 0..self.stripes() {
            // (Not computed when far: the offset may be anything.)
            let x0 = if far { 0 } else { (s * W) as i64 - dx };
            let reached = !far && x0 < other.width as i64 && x0 + (W as i64) > 0;
            for y in 0..h {
                let o = if reached && rows.contains(&y) {
                    other.word_at(x0, (y as i64 - dy) as usize)
                } else {
                    0
                };
                self.bits[s * h + y] &= o;
            }
            self.respan_stripe(s);
        }
    }

    /// Number of pixels set in both `self` and `other` placed at `(dx, dy)`
    /// (pygame's `overlap_area`).
    pub fn overlap_area(&self, other: &Mask, dx: i64, dy: i64) -> u64 {
        if self.apart(other, dx, dy) {
            return 0;
        }
        // Symmetric, so scan from whichever mask has the other to its right.
        let (a, b, dx, dy) = if dx >= 0 {
            (self, other, dx, dy)
        } else {
            (other, self, -dx, -dy)
        };
        let dx = dx as usize;
        let (xbase, shift) = (dx / W, (dx % W) as u32);
        let rows = a.rows(b, dy);
        let mut total = 0u64;
        // Order does not matter here, so each of b's stripes is read once for
        // both a stripes it lands in.
        for ib in 0..b.stripes() {
            let sa = xbase + ib;
            if sa >= a.stripes() {
                break;
            }
            // Only rows where b's stripe and one of the two a stripes have
            // something.
            let spill = shift != 0 && sa + 1 < a.stripes();
            let a_span = if spill {
                union(a.span(sa), a.span(sa + 1))
            } else {
                a.span(sa)
            };
            let r = meet(meet(rows.clone(), shifted(b.span(ib), dy)), a_span);
            if r.is_empty() {
                continue;
            }
            let (col_a, col_b) = (a.column(sa, &r), b.column(ib, &shifted(r.clone(), -dy)));
            let next = if spill { a.column(sa + 1, &r) } else { &[][..] };
            total += count_and(col_a, next, col_b, shift);
        }
        total
    }

    /// The pixels set in both, as a mask the size of `self` (pygame's
    /// `overlap_mask`).
    pub fn overlap_mask(&self, other: &Mask, dx: i64, dy: i64) -> Result<Mask, CollideError> {
        let mut out = Mask::new(self.width, self.height)?;
        out.bits.copy_from_slice(&self.bits);
        out.and(other, dx, dy);
        Ok(out)
    }

    /// The first pixel, in `self`'s coordinates, set in both `self` and
    /// `other` placed at `(dx, dy)`, or `None` (pygame's `overlap`).
    ///
    /// "First" is pygame's scan order, kept so that results match: with
    /// `dx ≥ 0`, `self` is scanned; with `dx < 0`, `other` is, and the point
    /// is mapped back. The scanned mask's pixels are ordered by the other
    /// mask's 64-pixel stripe, then the scanned mask's stripe, then row, then
    /// column. Within one stripe pair that is the topmost, then leftmost,
    /// overlapping pixel.
    pub fn overlap(&self, other: &Mask, dx: i64, dy: i64) -> Option<(usize, usize)> {
        if self.apart(other, dx, dy) {
            return None;
        }
        if dx >= 0 {
            first_overlap(self, other, dx, dy)
        } else {
            first_overlap(other, self, -dx, -dy)
                .map(|(x, y)| ((x as i64 + dx) as usize, (y as i64 + dy) as usize))
        }
    }

    /// The mask resized to `width × height` as pygame's `scale` does: output
    /// pixel (x, y) copies source pixel `(⌊x·W/w⌋, ⌊y·H/h⌋)`.
    pub fn scale(&self, width: usize, height: usize) -> Result<Mask, CollideError> {
        let (sw, sh) = (self.width, self.height);
        if sw == 0 || sh == 0 {
            return Mask::new(width, height);
        }
        let xs: Vec<usize> = (0..width).map(|x| x * sw / width).collect();
        Mask::from_fn(width, height, |x, y| self.get(xs[x], y * sh / height))
    }

    /// The mask of the sprite turned by `angle` radians (counter-clockwise
    /// on screen, where y points down: the seed's and pygame's convention)
    /// and scaled by `scale`, about its centre.
    ///
    /// Sampling rule: the output is the smallest pixel grid holding the
    /// turned rectangle, centred on the source's centre; an output pixel is
    /// set when its centre, mapped back into the source, falls inside a set
    /// source pixel (nearest, by containment; centres exactly on a pixel edge
    /// belong to the pixel right of or below it). The grid is every whole
    /// pixel the turned rectangle meets, so its centre may sit up to half a
    /// pixel off the source's. The second value is where the output's
    /// top-left corner lies relative to the source's, in pixels (add it to
    /// the sprite's position to place the mask).
    pub fn rotated(&self, angle: f64, scale: f64) -> Result<(Mask, (i64, i64)), CollideError> {
        if !(angle.is_finite() && scale.is_finite() && scale > 0.0) {
            return Err(CollideError::InvalidShapeParameter {
                name: "mask rotation angle or scale",
                value: if angle.is_finite() {
                    scale as crate::Real
                } else {
                    angle as crate::Real
                },
                expected: "finite angle, scale > 0",
            });
        }
        let (w, h) = (self.width as f64, self.height as f64);
        let (sin, cos) = angle.sin_cos();
        let (cx, cy) = (w / 2.0, h / 2.0);
        // The turned rectangle's extent about the centre, and the whole
        // pixels that meet it.
        let half_w = (w * cos.abs() + h * sin.abs()) * scale / 2.0;
        let half_h = (w * sin.abs() + h * cos.abs()) * scale / 2.0;
        // (1e-9 absorbs the rounding of sin and cos at quarter turns.)
        let (ox, oy) = ((cx - half_w + 1e-9).floor(), (cy - half_h + 1e-9).floor());
        let out_w = (cx + half_w - 1e-9).ceil() - ox;
        let out_h = (cy + half_h - 1e-9).ceil() - oy;
        if out_w > f64::from(Self::MAX_SIDE) || out_h > f64::from(Self::MAX_SIDE) {
            return Err(CollideError::MaskTooLarge {
                width: out_w as u64,
                height: out_h as u64,
                limit: Self::MAX_SIDE,
            });
        }
        let inv = 1.0 / scale;
        let m = Mask::from_fn(out_w as usize, out_h as usize, |u, v| {
            // Output pixel centre in source coordinates, relative to the centre.
            let (px, py) = (ox + u as f64 + 0.5 - cx, oy + v as f64 + 0.5 - cy);
            // Undo the turn (screen y down: a counter-clockwise turn on
            // screen is clockwise in these axes).
            let sx = (cos * px - sin * py) * inv + cx;
            let sy = (sin * px + cos * py) * inv + cy;
            sx >= 0.0 && sy >= 0.0 && self.get(sx as usize, sy as usize)
        })?;
        Ok((m, (ox as i64, oy as i64)))
    }

    /// The smallest rectangle holding every set pixel, or `None` when the
    /// mask is empty.
    pub fn bounding_rect(&self) -> Option<PixelRect> {
        let (mut x0, mut y0, mut x1, mut y1) = (usize::MAX, usize::MAX, 0, 0);
        for s in 0..self.stripes() {
            for y in 0..self.height {
                let w = self.bits[s * self.height + y];
                if w != 0 {
                    x0 = x0.min(s * W + w.trailing_zeros() as usize);
                    x1 = x1.max(s * W + (W - 1 - w.leading_zeros() as usize));
                    y0 = y0.min(y);
                    y1 = y1.max(y);
                }
            }
        }
        (x0 != usize::MAX).then(|| PixelRect {
            x: x0,
            y: y0,
            w: x1 - x0 + 1,
            h: y1 - y0 + 1,
        })
    }

    /// The 8-connected components with at least `min_size` pixels, each as
    /// a mask the size of this one, ordered by their first pixel in row-major
    /// order (pygame's `connected_components`).
    pub fn connected_components(&self, min_size: u64) -> Result<Vec<Mask>, CollideError> {
        let (labels, sizes) = self.label()?;
        let mut out = Vec::new();
        for (label, &size) in sizes.iter().enumerate() {
            if size >= min_size.max(1) {
                let l = label as u32 + 1;
                out.push(Mask::from_fn(self.width, self.height, |x, y| {
                    labels[y * self.width + x] == l
                })?);
            }
        }
        Ok(out)
    }

    /// The bounding rectangles of the 8-connected components, in the same
    /// order (pygame's `get_bounding_rects`).
    pub fn bounding_rects(&self) -> Result<Vec<PixelRect>, CollideError> {
        let (labels, sizes) = self.label()?;
        let mut rects: Vec<Option<(usize, usize, usize, usize)>> = vec![None; sizes.len()];
        for y in 0..self.height {
            for x in 0..self.width {
                let l = labels[y * self.width + x];
                if l > 0 {
                    let r = &mut rects[l as usize - 1];
                    *r = Some(match *r {
                        None => (x, y, x, y),
                        Some((a, b, c, d)) => (a.min(x), b.min(y), c.max(x), d.max(y)),
                    });
                }
            }
        }
        Ok(rects
            .into_iter()
            .flatten()
            .map(|(a, b, c, d)| PixelRect {
                x: a,
                y: b,
                w: c - a + 1,
                h: d - b + 1,
            })
            .collect())
    }

    /// 8-connected labels, 1-based in order of each component's first pixel
    /// in row-major order (0 = clear), and each label's pixel count.
    fn label(&self) -> Result<(Vec<u32>, Vec<u64>), CollideError> {
        let n = self.width * self.height;
        let mut labels = Vec::new();
        try_reserve_exact(&mut labels, n, "component labels")?;
        labels.resize(n, 0u32);
        let mut sizes = Vec::new();
        let mut stack = Vec::new();
        for y in 0..self.height {
            for x in 0..self.width {
                if !self.get(x, y) || labels[y * self.width + x] != 0 {
                    continue;
                }
                let l = sizes.len() as u32 + 1;
                let mut size = 0u64;
                labels[y * self.width + x] = l;
                stack.push((x, y));
                while let Some((cx, cy)) = stack.pop() {
                    size += 1;
                    for ny in cy.saturating_sub(1)..=(cy + 1).min(self.height - 1) {
                        for nx in cx.saturating_sub(1)..=(cx + 1).min(self.width - 1) {
                            let i = ny * self.width + nx;
                            if labels[i] == 0 && self.get(nx, ny) {
                                labels[i] = l;
                                stack.push((nx, ny));
                            }
                        }
                    }
                }
                sizes.push(size);
            }
        }
        Ok((labels, sizes))
    }
}

/// How a word of the other mask is shifted into place.
#[derive(Clone, Copy)]
enum Place {
    /// Its pixels move right by this many (the part in the same stripe).
    Left(u32),
    /// Its pixels move left by this many (the part in the next stripe).
    Right(u32),
}

/// Σ popcount(a & (b << s)) + popcount(next & (b >> (64 − s))) down the
/// columns: `b`'s words land in stripe `a` and spill into `next` (empty
/// when nothing spills).
#[inline(always)]
fn count_and_portable(a: &[u64], next: &[u64], b: &[u64], s: u32) -> u64 {
    let here: u64 = a
        .iter()
        .zip(b)
        .map(|(&x, &y)| u64::from((x & (y << s)).count_ones()))
        .sum();
    if next.is_empty() {
        return here;
    }
    let r = W as u32 - s;
    here + next
        .iter()
        .zip(b)
        .map(|(&n, &y)| u64::from((n & (y >> r)).count_ones()))
        .sum::<u64>()
}

/// The scan loops compiled for AVX2 (and POPCNT), where the compiler turns
/// them into vector code (the baseline x86-64 has neither, and pygame's SWAR
/// bit count is what a portable build gets). The count also has an AVX-512
/// variant for CPUs with a vector popcount (VPOPCNTQ).
#[cfg(target_arch = "x86_64")]
mod avx512 {
    #[target_feature(enable = "avx512f,avx512vpopcntdq,popcnt")]
    pub(super) fn count(a: &[u64], next: &[u64], b: &[u64], s: u32) -> u64 {
        super::count_and_portable(a, next, b, s)
    }
}

#[cfg(target_arch = "x86_64")]
mod avx2 {
    #[target_feature(enable = "avx2,popcnt")]
    pub(super) fn count(a: &[u64], next: &[u64], b: &[u64], s: u32) -> u64 {
        super::count_and_portable(a, next, b, s)
    }
    #[target_feature(enable = "avx2")]
    pub(super) fn first_left(a: &[u64], b: &[u64], s: u32) -> Option<(usize, u64)> {
        super::first_and_portable(a, b, |y| y << s)
    }
    #[target_feature(enable = "avx2")]
    pub(super) fn first_right(a: &[u64], b: &[u64], s: u32) -> Option<(usize, u64)> {
        super::first_and_portable(a, b, |y| y >> s)
    }
}

/// The vector instructions this CPU offers the scans, detected once.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Simd {
    Portable,
    Avx2,
    Avx512,
}

fn simd() -> Simd {
    static FOUND: std::sync::OnceLock<Simd> = std::sync::OnceLock::new();
    *FOUND.get_or_init(|| {
        // `COLLIDE_MASK_SIMD=avx2` or `=portable` caps the choice, so the
        // benchmark can show each path on one machine.
        let cap = std::env::var("COLLIDE_MASK_SIMD").unwrap_or_default();
        if cap == "portable" {
            return Simd::Portable;
        }
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::is_x86_feature_detected as has;
            if cap == "avx2" && has!("avx2") && has!("popcnt") {
                return Simd::Avx2;
            }
            if has!("avx512f") && has!("avx512vpopcntdq") && has!("avx2") && has!("popcnt") {
                return Simd::Avx512;
            }
            if has!("avx2") && has!("popcnt") {
                return Simd::Avx2;
            }
        }
        Simd::Portable
    })
}

/// [`count_and_portable`] on the fastest path this CPU has.
#[inline]
fn count_and(a: &[u64], next: &[u64], b: &[u64], s: u32) -> u64 {
    match simd() {
        // SAFETY: `simd()` found these target features on this CPU, which
        // is all `#[target_feature]` functions require of their callers.
        #[cfg(target_arch = "x86_64")]
        Simd::Avx512 => unsafe { avx512::count(a, next, b, s) },
        // SAFETY: as above.
        #[cfg(target_arch = "x86_64")]
        Simd::Avx2 => unsafe { avx2::count(a, next, b, s) },
        _ => count_and_portable(a, next, b, s),
    }
}

/// The first row where a & (b placed) is non-zero, and that word, on the
/// fastest path this CPU has.
#[inline]
fn first_and(a: &[u64], b: &[u64], place: Place) -> Option<(usize, u64)> {
    #[cfg(target_arch = "x86_64")]
    if simd() != Simd::Portable {
        // SAFETY: `simd()` found AVX2 on this CPU.
        return unsafe {
            match place {
                Place::Left(s) => avx2::first_left(a, b, s),
                Place::Right(s) => avx2::first_right(a, b, s),
            }
        };
    }
    match place {
        Place::Left(s) => first_and_portable(a, b, |y| y << s),
        Place::Right(s) => first_and_portable(a, b, |y| y >> s),
    }
}

/// [`first_and`]'s loop: four rows are tested at a time, with one branch.
#[inline(always)]
fn first_and_portable(a: &[u64], b: &[u64], place: impl Fn(u64) -> u64) -> Option<(usize, u64)> {
    let (ca, cb) = (a.chunks_exact(4), b.chunks_exact(4));
    let done = ca.len() * 4;
    for (k, (x, y)) in ca.zip(cb).enumerate() {
        let w = [
            x[0] & place(y[0]),
            x[1] & place(y[1]),
            x[2] & place(y[2]),
            x[3] & place(y[3]),
        ];
        if (w[0] | w[1] | w[2] | w[3]) != 0 {
            return w.iter().position(|&v| v != 0).map(|i| (k * 4 + i, w[i]));
        }
    }
    a[done..]
        .iter()
        .zip(&b[done..])
        .map(|(&x, &y)| x & place(y))
        .enumerate()
        .find(|&(_, w)| w != 0)
        .map(|(i, w)| (done + i, w))
}

/// The stripe pairs pygame's scans visit, in its order, for `b` placed at
/// `(dx ≥ 0, dy)` over `a`: for each of `b`'s stripes, the part that lands
/// in `a`'s stripe `dx / 64 + i`, then the part that spills into the next.
/// `visit(a's stripe, a's rows, b's matching rows, shift into place)`
/// returns true to stop.
#[inline]
fn stripe_pairs(
    a: &Mask,
    b: &Mask,
    dx: usize,
    dy: i64,
    mut visit: impl FnMut(usize, usize, &[u64], &[u64], Place) -> bool,
) {
    let xbase = dx / W;
    let shift = (dx % W) as u32;
    let rows = a.rows(b, dy);
    if rows.is_empty() {
        return;
    }
    for ib in 0..b.stripes() {
        let b_rows = meet(rows.clone(), shifted(b.span(ib), dy));
        for part in 0..2usize {
            if part == 1 && shift == 0 {
                break;
            }
            let sa = xbase + ib + part;
            if sa >= a.stripes() {
                return;
            }
            // Rows where both stripes have something: skipping the others
            // changes no answer, not even which point is first.
            let r = meet(b_rows.clone(), a.span(sa));
            if r.is_empty() {
                continue;
            }
            let col_a = a.column(sa, &r);
            let col_b = b.column(ib, &shifted(r.clone(), -dy));
            let place = if part == 0 {
                Place::Left(shift)
            } else {
                Place::Right(W as u32 - shift)
            };
            if visit(sa, r.start, col_a, col_b, place) {
                return;
            }
        }
    }
}

/// pygame's scan for the first overlapping pixel, with `dx ≥ 0`.
fn first_overlap(a: &Mask, b: &Mask, dx: i64, dy: i64) -> Option<(usize, usize)> {
    if a.apart(b, dx, dy) || a.width == 0 || a.height == 0 || b.width == 0 || b.height == 0 {
        return None;
    }
    let mut found = None;
    stripe_pairs(a, b, dx as usize, dy, |sa, row0, col_a, col_b, place| {
        if let Some((k, word)) = first_and(col_a, col_b, place) {
            found = Some((sa * W + word.trailing_zeros() as usize, row0 + k));
            return true;
        }
        false
    });
    found
}

/// The rows both ranges hold.
fn meet(a: std::ops::Range<usize>, b: std::ops::Range<usize>) -> std::ops::Range<usize> {
    let (start, end) = (a.start.max(b.start), a.end.min(b.end));
    if end > start { start..end } else { 0..0 }
}

/// The smallest range holding both (either may be empty).
fn union(a: std::ops::Range<usize>, b: std::ops::Range<usize>) -> std::ops::Range<usize> {
    if a.is_empty() {
        b
    } else if b.is_empty() {
        a
    } else {
        a.start.min(b.start)..a.end.max(b.end)
    }
}

/// A range of one mask's rows in the other's, `by` rows down (clipped at 0).
fn shifted(r: std::ops::Range<usize>, by: i64) -> std::ops::Range<usize> {
    if r.is_empty() {
        return 0..0;
    }
    let (start, end) = ((r.start as i64 + by).max(0), (r.end as i64 + by).max(0));
    start as usize..end as usize
}
