//! Time of impact against dense sampling with the brute-force oracle, and
//! against the exact swept-box test.

#![allow(clippy::unwrap_used, clippy::expect_used)] // tests may panic on failure

mod narrow;

use collide::{Aabb, Rect, Shape, Transform, Vec2, time_of_impact};
use narrow::*;
use proptest::prelude::*;

fn at(x: &Transform, v: Vec2, t: f32) -> Transform {
    Transform {
        translation: x.translation + v * t,
        rotation: x.rotation,
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases(1000)))]

    /// Never later than the first touch, never reported without a touch,
    /// and no overlap anywhere on the path when no impact is reported.
    #[test]
    fn impact_is_the_first_touch(
        a in spec(), pa in pose(2.0), b in spec(), pb in pose(2.0),
        (vx, vy) in (-40.0f32..40.0, -40.0f32..40.0),
    ) {
        let (sa, sb) = (ours(&a), ours(&b));
        let (xa, mut xb) = (our_pose(pa), our_pose(pb));
        // Start B well away, moving through A's neighbourhood.
        let v = Vec2::new(vx, vy);
        xb.translation -= v * 0.5;
        let hit = time_of_impact(&sa, &xa, Vec2::ZERO, &sb, &xb, v, 1.0).unwrap();
        let samples = 400;
        let first_overlap = (0..=samples)
            .map(|k| k as f32 / samples as f32)
            .find(|&t| oracle_distance(&a, &xa, &b, &at(&xb, v, t)) == 0.0);
        match hit {
            Some(h) => {
                let d = oracle_distance(&a, &xa, &b, &at(&xb, v, h.time));
                prop_assert!(d <= 1e-3, "at the impact time the gap is {}", d);
                if let Some(t) = first_overlap {
                    prop_assert!(h.time <= t + 1e-5, "impact {} after an overlap at {}", h.time, t);
                }
                prop_assert!((h.normal.length() - 1.0).abs() < 1e-3);
            }
            None => prop_assert!(first_overlap.is_none(), "overlap at {:?} but no impact", first_overlap),
        }
    }

    /// Unrotated rectangles: conservative advancement agrees with the exact slab sweep.
    #[test]
    fn rectangles_agree_with_the_slab_sweep(
        (ax, ay, ahx, ahy) in (-5.0f32..5.0, -5.0f32..5.0, 0.1f32..2.0, 0.1f32..2.0),
        (bx, by, bhx, bhy) in (-5.0f32..5.0, -5.0f32..5.0, 0.1f32..2.0, 0.1f32..2.0),
        (vx, vy) in (-30.0f32..30.0, -30.0f32..30.0),
    ) {
        let box_a = Aabb::new([ax - ahx, ay - ahy], [ax + ahx, ay + ahy]).unwrap();
        let box_b = Aabb::new([bx - bhx, by - bhy], [bx + bhx, by + bhy]).unwrap();
        let v = Vec2::new(vx, vy);
        let exact = box_a.sweep(v, &box_b);
        let (ra, xa) = Rect::from_aabb(&box_a).unwrap();
        let (rb, xb) = Rect::from_aabb(&box_b).unwrap();
        let toi = time_of_impact(&Shape::Rect(ra), &xa, v, &Shape::Rect(rb), &xb, Vec2::ZERO, 1.0).unwrap();
        // The boxes' signed gap when A has moved for time `s`.
        let gap = |s: f32| {
            let moved = Aabb::new(box_a.min() + v * s, box_a.max() + v * s).unwrap();
            let dx = (moved.min().x - box_b.max().x).max(box_b.min().x - moved.max().x);
            let dy = (moved.min().y - box_b.max().y).max(box_b.min().y - moved.max().y);
            dx.max(dy)
        };
        match (exact, toi) {
            // Agree in time, or, where the boxes close slowly (a time error
            // is a distance error over the closing speed), in distance: at
            // the reported time the boxes touch within the method's
            // tolerance (conservative advancement stops just short).
            (Some((t, _)), Some(h)) => prop_assert!(
                (t - h.time).abs() < 1e-3 || gap(h.time).abs() < 1e-3,
                "{} vs {}: gap {}", t, h.time, gap(h.time)
            ),
            (None, None) => {}
            // Grazing contacts may land either side of the tolerance.
            (Some((t, _)), None) | (None, Some(collide::Impact { time: t, .. })) => {
                prop_assert!(gap(t).abs() < 1e-3 || t > 0.999, "disagree at {}: gap {}", t, gap(t));
            }
        }
    }
}
