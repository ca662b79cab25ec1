//! Polygon input hygiene, concave decomposition, and no panic on any input.

#![allow(clippy::unwrap_used, clippy::expect_used)] // tests may panic on failure

mod narrow;

use collide::{
    Circle, CollideError, ConvexPolygon, Shape, Transform, Vec2, closest_points, contact,
    intersects, time_of_impact,
};
use narrow::cases;
use proptest::prelude::*;

fn v(x: f32, y: f32) -> Vec2 {
    Vec2::new(x, y)
}

#[test]
fn too_few_points_name_the_counts() {
    let e = ConvexPolygon::new(&[v(0.0, 0.0), v(1.0, 0.0)]).unwrap_err();
    assert_eq!(
        e,
        CollideError::TooFewPoints {
            given: 2,
            distinct: 2
        }
    );
    // Four points, two of them the same up to 1e-9: three distinct, but on a line.
    let e = ConvexPolygon::new(&[v(0.0, 0.0), v(1.0, 0.0), v(1.0 + 1e-9, 0.0), v(2.0, 0.0)])
        .unwrap_err();
    assert!(
        matches!(e, CollideError::TooFewPoints { given: 4, .. }),
        "{e:?}"
    );
}

#[test]
fn a_nan_names_its_point() {
    let e = ConvexPolygon::new(&[v(0.0, 0.0), v(1.0, 0.0), v(f32::NAN, 1.0)]).unwrap_err();
    assert!(
        matches!(e, CollideError::NonFinitePoint { index: 2, .. }),
        "{e:?}"
    );
    assert!(e.to_string().contains("point 2"), "{e}");
    let e = Shape::polygon(&[v(0.0, 0.0), v(f32::INFINITY, 0.0), v(1.0, 1.0)]).unwrap_err();
    assert!(
        matches!(e, CollideError::NonFinitePoint { index: 1, .. }),
        "{e:?}"
    );
}

#[test]
fn clockwise_input_is_reversed_and_near_duplicates_welded() {
    let cw = [
        v(0.0, 0.0),
        v(0.0, 1.0),
        v(1e-7, 1.0),
        v(1.0, 1.0),
        v(1.0, 0.0),
    ];
    let p = ConvexPolygon::new(&cw).unwrap();
    assert_eq!(p.points().len(), 4);
    let area: f32 = (0..4)
        .map(|i| p.points()[i].cross(p.points()[(i + 1) % 4]))
        .sum();
    assert!(
        (area - 2.0).abs() < 1e-5,
        "counter-clockwise, area 1: {area}"
    );
}

#[test]
fn collinear_points_are_dropped() {
    let square_with_midpoints = [
        v(0.0, 0.0),
        v(1.0, 0.0),
        v(2.0, 0.0),
        v(2.0, 1.0),
        v(2.0, 2.0),
        v(1.0, 2.0),
        v(0.0, 2.0),
        v(0.0, 1.0),
    ];
    let p = ConvexPolygon::new(&square_with_midpoints).unwrap();
    assert_eq!(p.points().len(), 4, "{:?}", p.points());
}

#[test]
fn a_reflex_corner_is_named() {
    // An arrow head: the corner at input index 3 turns the wrong way.
    let arrow = [
        v(0.0, 0.0),
        v(4.0, 0.0),
        v(4.0, 4.0),
        v(2.0, 1.0),
        v(0.0, 4.0),
    ];
    let e = ConvexPolygon::new(&arrow).unwrap_err();
    assert_eq!(e, CollideError::NotConvex { vertex: 3 });
    // The same outline is accepted as a polygon, decomposed into convex parts.
    let Shape::Compound(c) = Shape::polygon(&arrow).unwrap() else {
        panic!("a concave polygon becomes a compound");
    };
    // Hertel–Mehlhorn promises at most four times the fewest parts (2 here).
    assert!(
        (2..=3).contains(&c.parts().len()),
        "{} parts",
        c.parts().len()
    );
}

#[test]
fn self_intersections_are_named() {
    // A bow tie: edge 0 (from point 0) crosses edge 2 (from point 2).
    let bow_tie = [v(0.0, 0.0), v(2.0, 2.0), v(2.0, 0.0), v(0.0, 2.0)];
    let e = Shape::polygon(&bow_tie).unwrap_err();
    assert_eq!(
        e,
        CollideError::SelfIntersecting {
            edge_a: 0,
            edge_b: 2
        }
    );
    // A pentagram turns left at every corner but winds twice.
    let star: Vec<Vec2> = (0..5)
        .map(|k| {
            let a = (k * 2) as f32 * std::f32::consts::TAU / 5.0;
            v(a.cos(), a.sin())
        })
        .collect();
    assert!(matches!(
        ConvexPolygon::new(&star),
        Err(CollideError::SelfIntersecting { .. })
    ));
    assert!(matches!(
        Shape::polygon(&star),
        Err(CollideError::SelfIntersecting { .. })
    ));
}

#[test]
fn bad_shape_parameters_are_errors() {
    assert!(matches!(
        Circle::new(-1.0),
        Err(CollideError::InvalidShapeParameter { name: "radius", .. })
    ));
    assert!(collide::Rect::new(0.0, 1.0).is_err());
    assert!(collide::Capsule::along_x(f32::NAN, 1.0).is_err());
    let x = Transform {
        translation: v(f32::NAN, 0.0),
        rotation: collide::Rot::IDENTITY,
    };
    let c = Shape::Circle(Circle::new(1.0).unwrap());
    assert!(matches!(
        intersects(&c, &x, &c, &Transform::IDENTITY),
        Err(CollideError::NonFiniteTransform { .. })
    ));
}

/// A star-shaped polygon: corners at sorted angles with random radii, so
/// it is simple and usually concave.
fn star(radii: &[f32]) -> Vec<Vec2> {
    let n = radii.len();
    radii
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let a = i as f32 * std::f32::consts::TAU / n as f32;
            v(r * a.cos(), r * a.sin())
        })
        .collect()
}

/// Winding-number point-in-polygon, and the distance to the outline.
fn inside_and_edge_distance(poly: &[Vec2], p: Vec2) -> (bool, f32) {
    let n = poly.len();
    let mut winding = 0;
    let mut dist = f32::INFINITY;
    for i in 0..n {
        let (a, b) = (poly[i], poly[(i + 1) % n]);
        if a.y <= p.y && b.y > p.y && (b - a).cross(p - a) > 0.0 {
            winding += 1;
        } else if a.y > p.y && b.y <= p.y && (b - a).cross(p - a) < 0.0 {
            winding -= 1;
        }
        let e = b - a;
        let t = ((p - a).dot(e) / e.length_squared()).clamp(0.0, 1.0);
        dist = dist.min((p - (a + e * t)).length());
    }
    (winding != 0, dist)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases(300)))]

    /// The parts are convex, cover the polygon's area exactly, and a small
    /// circle touches the compound exactly where it touches the outline.
    #[test]
    fn decomposition_covers_the_polygon(
        radii in prop::collection::vec(0.3f32..3.0, 3..40),
        probes in prop::collection::vec((-3.5f32..3.5, -3.5f32..3.5), 40),
    ) {
        let outline = star(&radii);
        let shape = Shape::polygon(&outline).unwrap();
        let area = |p: &[Vec2]| -> f32 {
            (0..p.len()).map(|i| p[i].cross(p[(i + 1) % p.len()])).sum::<f32>() * 0.5
        };
        let total: f32 = match &shape {
            Shape::Polygon(p) => area(p.points()),
            Shape::Compound(c) => c.parts().iter().map(|part| match &part.shape {
                collide::ConvexShape::Polygon(p) => {
                    let pts = p.points();
                    for i in 0..pts.len() {
                        let (a, b, c) = (pts[i], pts[(i + 1) % pts.len()], pts[(i + 2) % pts.len()]);
                        assert!((b - a).cross(c - b) > 0.0, "part is convex");
                    }
                    area(pts)
                }
                other => panic!("parts of a polygon are polygons: {other:?}"),
            }).sum(),
            other => panic!("unexpected shape {other:?}"),
        };
        let want = area(&outline);
        prop_assert!((total - want).abs() <= 1e-4 * want.abs().max(1.0), "area {total} vs {want}");

        let dot = Shape::Circle(Circle::new(0.01).unwrap());
        for (x, y) in probes {
            let p = v(x, y);
            let (inside, edge) = inside_and_edge_distance(&outline, p);
            if edge < 0.02 {
                continue;
            }
            let at = Transform::translation(p).unwrap();
            let hit = intersects(&shape, &Transform::IDENTITY, &dot, &at).unwrap();
            prop_assert_eq!(hit, inside, "probe {:?}", p);
            let touching = contact(&shape, &Transform::IDENTITY, &dot, &at).unwrap().is_some();
            prop_assert_eq!(touching, inside);
            if !inside {
                let cp = closest_points(&shape, &Transform::IDENTITY, &dot, &at).unwrap().unwrap();
                prop_assert!((cp.distance - (edge - 0.01)).abs() < 1e-3, "{} vs {}", cp.distance, edge);
            }
        }
    }

    /// The hull's corners are input points, it turns left at every corner,
    /// and every input point lies inside or on it.
    #[test]
    fn hull_holds_every_point(pts in prop::collection::vec((-5.0f32..5.0, -5.0f32..5.0), 3..60)) {
        let pts: Vec<Vec2> = pts.into_iter().map(|(x, y)| v(x, y)).collect();
        let Ok(hull) = ConvexPolygon::hull(&pts) else {
            return Ok(()); // collinear draws: refused, as the error tests check
        };
        let h = hull.points();
        for (i, &c) in h.iter().enumerate() {
            prop_assert!(pts.contains(&c), "corner {c:?} is an input point");
            let (a, b) = (h[(i + h.len() - 1) % h.len()], h[(i + 1) % h.len()]);
            prop_assert!((c - a).cross(b - c) > 0.0, "left turn at {i}");
        }
        // Points within 2⁻¹⁷ of the outline's size of the line through
        // their neighbours count as on it and are dropped; a run of such
        // drops can leave one up to twice that outside.
        let (lo, hi) = pts.iter().fold(
            (v(f32::MAX, f32::MAX), v(f32::MIN, f32::MIN)),
            |(lo, hi), p| (v(lo.x.min(p.x), lo.y.min(p.y)), v(hi.x.max(p.x), hi.y.max(p.y))),
        );
        let weld = f64::from(hi.x - lo.x + (hi.y - lo.y)) / 131_072.0;
        for &p in &pts {
            for i in 0..h.len() {
                let (a, b) = (h[i], h[(i + 1) % h.len()]);
                let side = f64::from(b.x - a.x) * f64::from(p.y - a.y) - f64::from(b.y - a.y) * f64::from(p.x - a.x);
                prop_assert!(side >= -2.0 * weld * f64::from((b - a).length()), "{p:?} outside edge {i}");
            }
        }
    }

    /// Whatever the numbers, constructors return a value or an error, and
    /// the queries on what they return never panic.
    #[test]
    fn no_panic_on_any_input(
        raw in prop::collection::vec((any::<f32>(), any::<f32>()), 0..12),
        scale in prop_oneof![Just(1.0f32), Just(1e30), Just(1e-30), any::<f32>()],
        pose in (any::<f32>(), any::<f32>(), any::<f32>()),
    ) {
        let pts: Vec<Vec2> = raw.iter().map(|&(x, y)| v(x * scale, y * scale)).collect();
        let shapes: Vec<Shape> = [
            ConvexPolygon::new(&pts).map(Shape::Polygon),
            ConvexPolygon::hull(&pts).map(Shape::Polygon),
            Shape::polygon(&pts),
        ]
        .into_iter()
        .filter_map(Result::ok)
        .chain([Shape::Circle(Circle::new(1.0).unwrap())])
        .collect();
        let xs = [Transform::IDENTITY, Transform::new([pose.0, pose.1], pose.2).unwrap_or_default()];
        for a in &shapes {
            for b in &shapes {
                for xa in &xs {
                    for xb in &xs {
                        let _ = intersects(a, xa, b, xb);
                        let _ = contact(a, xa, b, xb);
                        let _ = closest_points(a, xa, b, xb);
                        let _ = collide::separating_axis(a, xa, b, xb);
                        let _ = time_of_impact(a, xa, v(pose.0, 1.0), b, xb, v(0.0, pose.1), 1.0);
                        let _ = a.aabb(xa);
                    }
                }
            }
        }
    }

    /// Two concave compounds, paired through their circle trees, against
    /// every pair of parts: the same yes/no, and the contact is the deepest
    /// part pair's.
    #[test]
    fn compound_pairs_match_every_part_pair(
        ra in prop::collection::vec(0.3f32..2.0, 5..40),
        rb in prop::collection::vec(0.3f32..2.0, 5..40),
        (x, y, turn_a, turn_b) in (-3.0f32..3.0, -3.0f32..3.0, -3.2f32..3.2, -3.2f32..3.2),
    ) {
        let (a, b) = (Shape::polygon(&star(&ra)).unwrap(), Shape::polygon(&star(&rb)).unwrap());
        let (xa, xb) = (Transform::new([0.0, 0.0], turn_a).unwrap(), Transform::new([x, y], turn_b).unwrap());
        let parts = |s: &Shape, x: &Transform| -> Vec<(Shape, Transform)> {
            match s {
                Shape::Compound(c) => c.parts().iter().map(|part| {
                    let collide::ConvexShape::Polygon(p) = &part.shape else { panic!("polygon parts") };
                    (Shape::Polygon(p.clone()), x.compose(&part.transform))
                }).collect(),
                other => vec![(other.clone(), *x)],
            }
        };
        let (pa, pb) = (parts(&a, &xa), parts(&b, &xb));
        let mut any = false;
        let mut deepest = f32::NEG_INFINITY;
        for (sa, ta) in &pa {
            for (sb, tb) in &pb {
                if intersects(sa, ta, sb, tb).unwrap() {
                    any = true;
                }
                if let Some(c) = contact(sa, ta, sb, tb).unwrap() {
                    deepest = deepest.max(c.depth);
                }
            }
        }
        prop_assert_eq!(intersects(&a, &xa, &b, &xb).unwrap(), any);
        let c = contact(&a, &xa, &b, &xb).unwrap();
        prop_assert_eq!(c.is_some(), deepest > f32::NEG_INFINITY);
        if let Some(c) = c {
            prop_assert!((c.depth - deepest).abs() <= 1e-5 * (1.0 + deepest), "{} vs {}", c.depth, deepest);
        }
    }
}
