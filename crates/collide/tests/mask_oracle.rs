#![allow(clippy::unwrap_used, clippy::expect_used)]
// The oracle reads the array and the mask at the same (x, y): index loops
// say that most plainly.
#![allow(clippy::needless_range_loop)]
//! Masks against a plain 2-D array of booleans: every operation at every
//! offset, including the order `overlap` promises.

use collide::mask::Mask;
use proptest::prelude::*;

type Grid = Vec<Vec<bool>>;

fn grid() -> impl Strategy<Value = Grid> {
    (
        prop_oneof![1usize..8, 60usize..70, 120usize..135, Just(192)],
        1usize..20,
        0u32..4,
    )
        .prop_flat_map(|(w, h, density)| {
            prop::collection::vec(
                prop::collection::vec(
                    prop::bool::weighted([0.02, 0.3, 0.7, 0.98][density as usize]),
                    w,
                ),
                h,
            )
        })
}

fn mask(g: &Grid) -> Mask {
    Mask::from_fn(g[0].len(), g.len(), |x, y| g[y][x]).unwrap()
}

fn at(g: &Grid, x: i64, y: i64) -> bool {
    x >= 0
        && y >= 0
        && (y as usize) < g.len()
        && (x as usize) < g[0].len()
        && g[y as usize][x as usize]
}

/// pygame's scan order for `a` scanned with `b` at `dx ≥ 0`: `b`'s stripe,
/// then `a`'s stripe, then row, then column.
fn first_by_key(a: &Grid, b: &Grid, dx: i64, dy: i64) -> Option<(usize, usize)> {
    type Key = (i64, i64, i64, i64);
    let mut best: Option<(Key, (usize, usize))> = None;
    for (y, row) in a.iter().enumerate() {
        for (x, &set) in row.iter().enumerate() {
            let (xb, yb) = (x as i64 - dx, y as i64 - dy);
            if set && at(b, xb, yb) {
                let key = (xb / 64, x as i64 / 64, y as i64, x as i64 % 64);
                if best.is_none_or(|(k, _)| key < k) {
                    best = Some((key, (x, y)));
                }
            }
        }
    }
    best.map(|(_, p)| p)
}

proptest! {
    #[test]
    fn operations_match_the_array(a in grid(), b in grid(), fx in 0.0..1.0f64, fy in 0.0..1.0f64) {
        let (wa, ha, wb, hb) = (a[0].len() as i64, a.len() as i64, b[0].len() as i64, b.len() as i64);
        let dx = (fx * (wa + wb + 4) as f64) as i64 - wb - 2;
        let dy = (fy * (ha + hb + 4) as f64) as i64 - hb - 2;
        let (ma, mb) = (mask(&a), mask(&b));
        let both = |x: usize, y: usize| a[y][x] && at(&b, x as i64 - dx, y as i64 - dy);
        let area = (0..ha as usize).flat_map(|y| (0..wa as usize).map(move |x| (x, y))).filter(|&(x, y)| both(x, y)).count() as u64;
        prop_assert_eq!(ma.overlap_area(&mb, dx, dy), area);
        // The overlap point: in pygame's order, scanning `a` or (dx < 0) `b`.
        let expected = if dx >= 0 {
            first_by_key(&a, &b, dx, dy)
        } else {
            first_by_key(&b, &a, -dx, -dy).map(|(x, y)| ((x as i64 + dx) as usize, (y as i64 + dy) as usize))
        };
        prop_assert_eq!(ma.overlap(&mb, dx, dy), expected);
        if let Some((x, y)) = expected {
            prop_assert!(both(x, y));
        }
        let om = ma.overlap_mask(&mb, dx, dy).unwrap();
        let mut drawn = ma.clone();
        drawn.draw(&mb, dx, dy);
        let mut erased = ma.clone();
        erased.erase(&mb, dx, dy);
        let mut flipped = ma.clone();
        flipped.xor(&mb, dx, dy);
        let mut inverted = ma.clone();
        inverted.invert();
        for y in 0..ha as usize {
            for x in 0..wa as usize {
                let o = at(&b, x as i64 - dx, y as i64 - dy);
                prop_assert_eq!(om.get(x, y), a[y][x] && o);
                prop_assert_eq!(drawn.get(x, y), a[y][x] || o);
                prop_assert_eq!(erased.get(x, y), a[y][x] && !o);
                prop_assert_eq!(flipped.get(x, y), a[y][x] != o);
                prop_assert_eq!(inverted.get(x, y), !a[y][x]);
            }
        }
        // Nothing ever leaks outside the mask (counts see every stored bit).
        let inside = |m: &Mask| (0..ha as usize).map(|y| (0..wa as usize).filter(|&x| m.get(x, y)).count() as u64).sum::<u64>();
        let mut anded = ma.clone();
        anded.and(&mb, dx, dy);
        let mut single = ma.clone();
        single.set(0, 0, false);
        single.set((wa - 1) as usize, (ha - 1) as usize, true);
        for m in [&om, &drawn, &erased, &flipped, &inverted, &anded, &single] {
            prop_assert_eq!(m.count(), inside(m));
            prop_assert!(m.spans_are_exact());
        }
        prop_assert_eq!(&anded, &om);
    }

    #[test]
    fn scale_and_components(a in grid(), sw in 1usize..150, sh in 1usize..40) {
        let m = mask(&a);
        let (w, h) = (a[0].len(), a.len());
        let s = m.scale(sw, sh).unwrap();
        for y in 0..sh {
            for x in 0..sw {
                prop_assert_eq!(s.get(x, y), a[y * h / sh][x * w / sw]);
            }
        }
        // Components: they partition the set pixels, and no two touch.
        let comps = m.connected_components(0).unwrap();
        prop_assert_eq!(comps.iter().map(Mask::count).sum::<u64>(), m.count());
        for (i, c) in comps.iter().enumerate() {
            for d in &comps[i + 1..] {
                let mut grown = c.clone();
                for (ox, oy) in [(-1i64, -1i64), (0, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (0, 1), (1, 1)] {
                    grown.draw(c, ox, oy);
                }
                prop_assert_eq!(grown.overlap_area(d, 0, 0), 0, "two components touch");
            }
        }
        let rects = m.bounding_rects().unwrap();
        prop_assert_eq!(rects.len(), comps.len());
        for (r, c) in rects.iter().zip(&comps) {
            prop_assert_eq!(Some(*r), c.bounding_rect());
        }
    }
}

#[test]
fn edges() {
    let a = Mask::full(65, 3).unwrap();
    assert_eq!(a.count(), 195);
    let empty = Mask::new(0, 0).unwrap();
    assert_eq!(a.overlap(&empty, 0, 0), None);
    assert_eq!(a.overlap_area(&empty, 0, 0), 0);
    assert!(Mask::new(40_000, 1).is_err());
    assert!(Mask::from_alpha(2, 2, &[0; 15], 4, 3, 127).is_err());
    let m = Mask::from_alpha(2, 1, &[0, 0, 0, 128, 0, 0, 0, 127], 4, 3, 127).unwrap();
    assert!(
        m.get(0, 0) && !m.get(1, 0),
        "alpha above the threshold is solid, equal is not"
    );
    // Far offsets are no overlap, not an overflow.
    assert_eq!(a.overlap(&a, i64::MAX / 2, 0), None);
    assert_eq!(a.overlap_area(&a, i64::MIN / 2, i64::MIN / 2), 0);
    for (dx, dy) in [
        (i64::MIN, 0),
        (0, i64::MIN),
        (i64::MAX, i64::MAX),
        (i64::MIN, i64::MIN),
    ] {
        assert_eq!(a.overlap(&a, dx, dy), None);
        assert_eq!(a.overlap_area(&a, dx, dy), 0);
        let mut b = a.clone();
        b.draw(&a, dx, dy);
        b.and(&a, dx, dy);
        assert_eq!(
            b.count(),
            0,
            "and with a mask placed far away clears everything"
        );
    }
}

proptest! {
    /// Turned and scaled masks follow the documented rule: each output
    /// pixel's centre, mapped back, lands in a set source pixel. Checked
    /// against the rule computed here independently, in the forward
    /// direction's terms.
    #[test]
    fn rotation_follows_the_sampling_rule(a in grid(), angle in -7.0..7.0f64, scale in 0.3..3.0f64) {
        let m = mask(&a);
        let (r, (ox, oy)) = m.rotated(angle, scale).unwrap();
        let (w, h) = (a[0].len() as f64, a.len() as f64);
        let (cx, cy) = (w / 2.0, h / 2.0);
        for v in 0..r.height() {
            for u in 0..r.width() {
                let (px, py) = (ox as f64 + u as f64 + 0.5 - cx, oy as f64 + v as f64 + 0.5 - cy);
                // Rotating (sx, sy) by `angle` (screen, y down) and scaling
                // must give (px, py).
                let (s, c) = angle.sin_cos();
                let sx = (c * px - s * py) / scale + cx;
                let sy = (s * px + c * py) / scale + cy;
                let fx = (c * (sx - cx) + s * (sy - cy)) * scale;
                let fy = (-s * (sx - cx) + c * (sy - cy)) * scale;
                prop_assert!((fx - px).abs() < 1e-9 && (fy - py).abs() < 1e-9);
                let expect = sx >= 0.0 && sy >= 0.0 && at(&a, sx.floor() as i64, sy.floor() as i64);
                prop_assert_eq!(r.get(u, v), expect, "pixel ({}, {})", u, v);
            }
        }
        // Every set source pixel whose turned centre lands inside the grid is
        // drawn near there: nothing is cut off at the grid's edge.
        prop_assert!(r.width() as f64 >= (w * angle.cos().abs() + h * angle.sin().abs()) * scale - 1e-9);
    }
}

#[test]
fn quarter_turns_and_doubling_are_exact() {
    // 10 × 6: the turned box lands on whole pixels (10 − 6 is even).
    let g: Grid = (0..6)
        .map(|y| (0..10).map(|x| (x * 3 + y * 5) % 4 == 0).collect())
        .collect();
    let m = mask(&g);
    let (same, o) = m.rotated(0.0, 1.0).unwrap();
    assert_eq!((same.clone(), o), (m.clone(), (0, 0)));
    // A quarter turn counter-clockwise on screen: (x, y) -> (y, w - 1 - x).
    let (q, _) = m.rotated(std::f64::consts::FRAC_PI_2, 1.0).unwrap();
    assert_eq!((q.width(), q.height()), (6, 10));
    for y in 0..6 {
        for x in 0..10 {
            assert_eq!(q.get(y, 9 - x), g[y][x], "({x}, {y})");
        }
    }
    let (d, _) = m.rotated(0.0, 2.0).unwrap();
    assert_eq!((d.width(), d.height()), (20, 12));
    assert_eq!(d.count(), 4 * m.count());
    assert!(
        m.rotated(f64::NAN, 1.0).is_err()
            && m.rotated(0.0, 0.0).is_err()
            && m.rotated(0.0, 1e9).is_err()
    );
}
