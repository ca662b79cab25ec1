//! Random worlds for the property tests: one strategy per workload family of
//! the benchmark, plus the edge families (cell borders, touching edges,
//! identical objects, huge and tiny coordinates).
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use collide::{Aabb, BroadPhase, BruteForce, Pair};
use proptest::collection::vec;
use proptest::prelude::*;

/// A box from corners, clamping so that no coordinate overflows to infinity.
pub fn bx(x0: f32, y0: f32, x1: f32, y1: f32) -> Aabb {
    let c = |v: f32| v.clamp(-f32::MAX, f32::MAX);
    Aabb::from_corners([c(x0), c(y0)], [c(x1), c(y1)]).expect("finite corners")
}

fn side_for(n: usize, area_per_object: f32) -> f32 {
    ((n.max(1) as f32) * area_per_object).sqrt().max(1.0)
}

/// Moertel-like density (1,536 px² per object), integer corners, sides 1..=40.
pub fn dense() -> impl Strategy<Value = Vec<Aabb>> {
    (0usize..260).prop_flat_map(|n| {
        let side = side_for(n, 1536.0) as i32;
        vec((0..side, 0..side, 1i32..=40, 1i32..=40), n).prop_map(|v| {
            v.into_iter()
                .map(|(x, y, w, h)| bx(x as f32, y as f32, (x + w) as f32, (y + h) as f32))
                .collect()
        })
    })
}

/// Moertel's 50-object density (6,144 px² per object), float corners.
pub fn sparse() -> impl Strategy<Value = Vec<Aabb>> {
    (0usize..260).prop_flat_map(|n| {
        let side = side_for(n, 6144.0);
        vec((0.0..side, 0.0..side, 0.0f32..40.0, 0.0f32..40.0), n).prop_map(|v| {
            v.into_iter()
                .map(|(x, y, w, h)| bx(x, y, x + w, y + h))
                .collect()
        })
    })
}

/// Mostly 4–30 px, a few 30–300 px ("1% of objects 10× larger", denser).
pub fn mixed() -> impl Strategy<Value = Vec<Aabb>> {
    (0usize..260).prop_flat_map(|n| {
        let side = side_for(n, 1536.0) as i32;
        vec(
            (
                0..side,
                0..side,
                4i32..=30,
                4i32..=30,
                0u8..20,
                30i32..=300,
                30i32..=300,
            ),
            n,
        )
        .prop_map(|v| {
            v.into_iter()
                .map(|(x, y, w, h, big, bw, bh)| {
                    let (w, h) = if big == 0 { (bw, bh) } else { (w, h) };
                    bx(x as f32, y as f32, (x + w) as f32, (y + h) as f32)
                })
                .collect()
        })
    })
}

/// BEPU's size law: side 1 + 99·X¹⁰.
pub fn heavy_tailed() -> impl Strategy<Value = Vec<Aabb>> {
    (0usize..260).prop_flat_map(|n| {
        let side = side_for(n, 1536.0);
        vec((0.0..side, 0.0..side, 0.0f32..1.0, 0.0f32..1.0), n).prop_map(|v| {
            v.into_iter()
                .map(|(x, y, u, t)| {
                    let w = 1.0 + 99.0 * u.powi(10);
                    let h = 1.0 + 99.0 * t.powi(10);
                    bx(x, y, x + w, y + h)
                })
                .collect()
        })
    })
}

/// A few tight blobs (sums of uniforms approximate a normal).
pub fn clustered() -> impl Strategy<Value = Vec<Aabb>> {
    (1usize..6, 0usize..260).prop_flat_map(|(k, n)| {
        (
            vec((-5000.0f32..5000.0, -5000.0f32..5000.0), k),
            vec(
                (
                    0usize..k,
                    -1.0f32..1.0,
                    -1.0f32..1.0,
                    -1.0f32..1.0,
                    1.0f32..30.0,
                ),
                n,
            ),
        )
            .prop_map(|(centres, pts)| {
                pts.into_iter()
                    .map(|(c, a, b, d, s)| {
                        let (cx, cy) = centres[c];
                        let x = cx + 80.0 * (a + b);
                        let y = cy + 80.0 * (b - d);
                        bx(x, y, x + s, y + s)
                    })
                    .collect()
            })
    })
}

/// Long thin objects: lasers (wide, flat), walls (narrow, tall), and specks.
pub fn thin() -> impl Strategy<Value = Vec<Aabb>> {
    (0usize..200).prop_flat_map(|n| {
        let side = side_for(n, 4000.0) as i32;
        vec(
            (0..side, 0..side, 0u8..3, 100i32..1000, 0i32..=3, 1i32..20),
            n,
        )
        .prop_map(|v| {
            v.into_iter()
                .map(|(x, y, kind, long, short, speck)| {
                    let (w, h) = match kind {
                        0 => (long, short),
                        1 => (short, long),
                        _ => (speck, speck),
                    };
                    bx(x as f32, y as f32, (x + w) as f32, (y + h) as f32)
                })
                .collect()
        })
    })
}

/// Corners and sizes on multiples of 8 in a small area: objects on cell
/// borders, touching edges and corners, zero-size points and lines.
pub fn borders() -> impl Strategy<Value = Vec<Aabb>> {
    vec(
        (
            -32i32..32,
            -32i32..32,
            prop::sample::select(vec![0i32, 1, 2, 4, 8, 16]),
            prop::sample::select(vec![0i32, 1, 2, 4, 8, 16]),
        ),
        0..200,
    )
    .prop_map(|v| {
        v.into_iter()
            .map(|(x, y, w, h)| {
                let (x, y) = (x as f32 * 8.0, y as f32 * 8.0);
                bx(x, y, x + w as f32 * 8.0, y + h as f32 * 8.0)
            })
            .collect()
    })
}

/// A handful of distinct boxes, each repeated many times.
pub fn identical() -> impl Strategy<Value = Vec<Aabb>> {
    (
        vec((0i32..200, 0i32..200, 0i32..50, 0i32..50), 1..5),
        vec(0usize..5, 0..120),
    )
        .prop_map(|(protos, picks)| {
            picks
                .into_iter()
                .map(|k| {
                    let (x, y, w, h) = protos[k % protos.len()];
                    bx(x as f32, y as f32, (x + w) as f32, (y + h) as f32)
                })
                .collect()
        })
}

/// Huge and tiny, negative and positive: coordinates near ±1e30 and near 0,
/// sizes from 0 to 1e35.
pub fn extreme() -> impl Strategy<Value = Vec<Aabb>> {
    let scale = prop::sample::select(vec![0.0f32, 1e-30, 1e-3, 1.0, 1e3, 1e10, 1e20, 1e30]);
    let size = prop::sample::select(vec![0.0f32, 1e-30, 1e-10, 1.0, 30.0, 1e10, 1e30, 1e35]);
    vec(
        (
            scale.clone(),
            -1.0f32..1.0,
            scale,
            -1.0f32..1.0,
            size.clone(),
            size,
            0.0f32..1.0,
        ),
        0..150,
    )
    .prop_map(|v| {
        v.into_iter()
            .map(|(sx, ux, sy, uy, w, h, f)| {
                let (x, y) = (sx * ux, sy * uy);
                bx(x, y, x + w * f, y + h * (1.0 - f))
            })
            .collect()
    })
}

/// Every family, and mixtures of two.
pub fn any_world() -> impl Strategy<Value = Vec<Aabb>> {
    let one = prop_oneof![
        dense(),
        sparse(),
        mixed(),
        heavy_tailed(),
        clustered(),
        thin(),
        borders(),
        identical(),
        extreme(),
    ];
    prop_oneof![
        4 => one.clone(),
        1 => (one.clone(), one).prop_map(|(mut a, b)| { a.extend(b); a }),
    ]
}

/// The brute-force pair set, sorted.
pub fn oracle(boxes: &[Aabb]) -> Vec<Pair> {
    let mut out = Vec::new();
    BruteForce::new()
        .find_pairs(boxes, &mut out)
        .expect("brute force");
    out.sort_unstable();
    out
}

/// Sorted copy.
pub fn sorted(pairs: &[Pair]) -> Vec<Pair> {
    let mut v = pairs.to_vec();
    v.sort_unstable();
    v
}

/// Longest side over all boxes, rounded up.
pub fn max_extent(boxes: &[Aabb]) -> f64 {
    boxes
        .iter()
        .map(|b| {
            let w = f64::from(b.max().x) - f64::from(b.min().x);
            let h = f64::from(b.max().y) - f64::from(b.min().y);
            w.max(h).next_up()
        })
        .fold(0.0, f64::max)
}

/// The smallest power of two `s` (as f32) with `s > factor * extent`.
pub fn pow2_above(extent: f64, factor: f64) -> f32 {
    let mut s = 2f64.powi(-140);
    while s <= factor * extent {
        s *= 2.0;
    }
    s as f32
}

/// A tiny deterministic generator (SplitMix64) for fixed-seed worlds.
pub struct SplitMix(pub u64);

impl SplitMix {
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in [0, 1).
    pub fn unit(&mut self) -> f32 {
        (self.next_u64() >> 40) as f32 / (1u64 << 24) as f32
    }
}

/// A fixed dense world of `n` 30×30 boxes at Moertel's density.
pub fn fixed_dense_world(n: usize, seed: u64) -> Vec<Aabb> {
    let mut rng = SplitMix(seed);
    let side = side_for(n, 1536.0);
    (0..n)
        .map(|_| {
            let (x, y) = (rng.unit() * side, rng.unit() * side);
            bx(x, y, x + 30.0, y + 30.0)
        })
        .collect()
}

/// A fixed mixed world: 1% of boxes ten times larger.
pub fn fixed_mixed_world(n: usize, seed: u64) -> Vec<Aabb> {
    let mut rng = SplitMix(seed);
    let side = side_for(n, 1536.0);
    (0..n)
        .map(|_| {
            let (x, y) = (rng.unit() * side, rng.unit() * side);
            let big = rng.unit() < 0.01;
            let (lo, hi) = if big { (30.0, 300.0) } else { (4.0, 30.0) };
            let w = lo + rng.unit() * (hi - lo);
            let h = lo + rng.unit() * (hi - lo);
            bx(x, y, x + w, y + h)
        })
        .collect()
}
