//! 3-D separating axes against parry3d on random hulls and boxes, and the
//! screen-space rectangle against dense sampling of the clipped box.
//!
//! Case count: the defaults below or `PROPTEST_CASES`.

#![allow(clippy::unwrap_used, clippy::expect_used)] // tests may panic on failure

mod narrow;

use collide::{
    ConvexPolyhedron, DepthRange, Rot3, Transform3, Vec3, Viewport, closest_points_polyhedra,
    contact_polyhedra, contact_polyhedra_by_axes, distance_polyhedra, intersects_polyhedra,
    mat4_mul, perspective, screen_rect_of_box, screen_rect_unclipped, separating_axis_polyhedra,
};
use narrow::cases;
use parry3d::math::{Pose, Vec3 as PVec3};
use parry3d::shape::SharedShape;
use proptest::prelude::*;

const BAND: f32 = 1e-3;

#[derive(Clone, Debug)]
enum Solid {
    Cuboid([f32; 3]),
    Hull(Vec<[f32; 3]>),
}

fn solid() -> impl Strategy<Value = Solid> {
    prop_oneof![
        [0.1f32..2.0, 0.1f32..2.0, 0.1f32..2.0].prop_map(Solid::Cuboid),
        prop::collection::vec([-1.5f32..1.5, -1.5f32..1.5, -1.5f32..1.5], 4..24)
            .prop_map(Solid::Hull),
    ]
}

/// Translation and axis-angle vector.
fn pose3() -> impl Strategy<Value = ([f32; 3], [f32; 3])> {
    (
        [-2.5f32..2.5, -2.5f32..2.5, -2.5f32..2.5],
        [-2.0f32..2.0, -2.0f32..2.0, -2.0f32..2.0],
    )
}

fn ours(s: &Solid) -> Option<ConvexPolyhedron> {
    match s {
        Solid::Cuboid(h) => Some(ConvexPolyhedron::cuboid(Vec3::from(*h)).unwrap()),
        Solid::Hull(p) => {
            let pts: Vec<Vec3> = p.iter().map(|&q| Vec3::from(q)).collect();
            ConvexPolyhedron::hull(&pts).ok()
        }
    }
}

fn theirs(s: &Solid) -> Option<SharedShape> {
    match s {
        Solid::Cuboid(h) => Some(SharedShape::cuboid(h[0], h[1], h[2])),
        Solid::Hull(p) => {
            let pts: Vec<PVec3> = p.iter().map(|q| PVec3::new(q[0], q[1], q[2])).collect();
            SharedShape::convex_hull(&pts)
        }
    }
}

fn our_pose((t, r): ([f32; 3], [f32; 3])) -> Transform3 {
    let axis = Vec3::from(r);
    let rotation = match axis.normalized() {
        Some(_) => Rot3::from_axis_angle(axis, axis.length()).unwrap(),
        None => Rot3::IDENTITY,
    };
    Transform3 {
        translation: Vec3::from(t),
        rotation,
    }
}

fn their_pose((t, r): ([f32; 3], [f32; 3])) -> Pose {
    Pose::new(PVec3::new(t[0], t[1], t[2]), PVec3::new(r[0], r[1], r[2]))
}

fn parry_hit(sa: &SharedShape, pa: &Pose, sb: &SharedShape, pb: &Pose) -> bool {
    parry3d::query::intersection_test(pa, sa.as_ref(), pb, sb.as_ref())
        .unwrap()
        .intersecting
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases(1500)))]

    #[test]
    fn polyhedra_agree_with_parry3d(a in solid(), pa in pose3(), b in solid(), pb in pose3()) {
        let (Some(oa), Some(ob), Some(ta), Some(tb)) = (ours(&a), ours(&b), theirs(&a), theirs(&b)) else {
            return Ok(()); // flat point sets: both refuse (checked below)
        };
        let (xa, xb) = (our_pose(pa), our_pose(pb));
        let (qa, qb) = (their_pose(pa), their_pose(pb));
        let hit = intersects_polyhedra(&oa, &xa, &ob, &xb).unwrap();
        let c = contact_polyhedra(&oa, &xa, &ob, &xb).unwrap();
        let by_axes = contact_polyhedra_by_axes(&oa, &xa, &ob, &xb).unwrap();
        prop_assert_eq!(hit, c.is_some());
        prop_assert_eq!(hit, by_axes.is_some());
        let dist = parry3d::query::distance(&qa, ta.as_ref(), &qb, tb.as_ref()).unwrap().distance;
        let pc = parry3d::query::contact(&qa, ta.as_ref(), &qb, tb.as_ref(), 0.0).unwrap();
        let depth = pc.filter(|c| c.dist < 0.0).map_or(0.0, |c| -c.dist);
        if dist > BAND {
            prop_assert!(!hit, "parry: apart by {}", dist);
        }
        // Closest points: on the shapes (so never nearer than the truth)
        // and no farther apart than parry's.
        let near = closest_points_polyhedra(&oa, &xa, &ob, &xb).unwrap();
        prop_assert_eq!(near.is_none(), hit);
        if let Some(cp) = near {
            // (parry's hull of near-flat point sets can differ from ours
            // by ~10⁻⁴, hence the band here.)
            let tol = BAND * (1.0 + cp.distance);
            let on = |p: Vec3| PVec3::new(p.x, p.y, p.z);
            let (off_a, off_b) = (ta.distance_to_point(&qa, on(cp.on_a), true), tb.distance_to_point(&qb, on(cp.on_b), true));
            prop_assert!(off_a <= tol && off_b <= tol, "{:?}: {} off a, {} off b", cp, off_a, off_b);
            prop_assert!(cp.distance <= dist + tol, "ours {} parry {}", cp.distance, dist);
            prop_assert!((distance_polyhedra(&oa, &xa, &ob, &xb).unwrap() - cp.distance).abs() == 0.0);
        }
        // The separating axis really separates the projections.
        let axis = separating_axis_polyhedra(&oa, &xa, &ob, &xb).unwrap();
        prop_assert!(axis.is_none() || near.is_some(), "an axis for overlapping shapes");
        if near.is_some_and(|c| c.distance > BAND) {
            prop_assert!(axis.is_some(), "apart by {:?} and no axis", near);
        }
        if let Some(axis) = axis {
            let placed = |s: &ConvexPolyhedron, x: &Transform3| -> Vec<f32> {
                s.vertices().iter().map(|&v| axis.dot(x.apply(v))).collect()
            };
            let high_a = placed(&oa, &xa).into_iter().fold(f32::NEG_INFINITY, f32::max);
            let low_b = placed(&ob, &xb).into_iter().fold(f32::INFINITY, f32::min);
            prop_assert!(high_a <= low_b + 1e-5, "axis {:?}: a reaches {}, b starts at {}", axis, high_a, low_b);
        }
        if depth > BAND {
            prop_assert!(hit, "parry: overlapping by {}", depth);
        }
        // Contact points lie where the shapes overlap, grown by the depth
        // (on a deep overlap, a clipped corner may have passed through the
        // other shape), and no deeper than the contact.
        let both = [("EPA", c), ("every axis", by_axes)];
        for (method, c) in both.into_iter().filter_map(|(m, c)| Some((m, c?))) {
            prop_assert!(!c.points().is_empty(), "{}: no contact points: {:?}", method, c);
            for p in c.points() {
                let at = PVec3::new(p.point.x, p.point.y, p.point.z);
                let reach = c.depth + BAND * (1.0 + c.depth);
                let (da, db) = (ta.distance_to_point(&qa, at, true), tb.distance_to_point(&qb, at, true));
                prop_assert!(da <= reach && db <= reach, "{}: {:?} is {} from a, {} from b; {:?}", method, p, da, db, c);
                prop_assert!(p.depth <= c.depth, "{}: {:?} deeper than {}", method, p, c.depth);
            }
        }
        // EPA's depth and the exact one by every axis, each on its own.
        for c in [c, by_axes].into_iter().flatten().filter(|c| c.depth > BAND) {
            // Our translation separates (by parry's judgement) and is minimal.
            let mv = |by: f32| {
                let t = xb.translation + c.normal * by;
                Pose::new(PVec3::new(t.x, t.y, t.z), PVec3::new(pb.1[0], pb.1[1], pb.1[2]))
            };
            // (parry's intersection test can disagree with its own contact
            // query right at touching; agreeing with that contact is enough.)
            let same_as_parry = pc.is_some_and(|p| {
                let n = Vec3::new(p.normal1.x, p.normal1.y, p.normal1.z);
                (c.depth + p.dist).abs() < 1e-3 && n.dot(c.normal) > 1.0 - 1e-4
            });
            prop_assert!(
                same_as_parry || !parry_hit(&ta, &qa, &tb, &mv(c.depth + BAND)),
                "MTV {:?} does not separate",
                c
            );
            prop_assert!(parry_hit(&ta, &qa, &tb, &mv(c.depth - BAND)), "MTV {:?} is not minimal", c);
            if depth > BAND && c.depth > depth + BAND {
                // Deeper than parry's: fine only if parry's own translation
                // fails to separate (its EPA stops short; see the README).
                let n = pc.unwrap().normal1;
                let t = xb.translation + Vec3::new(n.x, n.y, n.z) * (depth + BAND);
                let moved = Pose::new(PVec3::new(t.x, t.y, t.z), PVec3::new(pb.1[0], pb.1[1], pb.1[2]));
                prop_assert!(
                    parry_hit(&ta, &qa, &tb, &moved),
                    "ours {} deeper than parry {} and parry's translation separates",
                    c.depth,
                    depth
                );
            }
        }
    }

    /// The rectangle holds every visible point of the box and is no bigger
    /// than needed; with every corner in front it is the seed's rectangle.
    #[test]
    fn screen_rect_is_the_clipped_projection(
        centre in [-6.0f32..6.0, -6.0f32..6.0, -12.0f32..4.0],
        half in [0.1f32..3.0, 0.1f32..3.0, 0.1f32..3.0],
        gl in any::<bool>(),
    ) {
        let depth = if gl { DepthRange::NegativeOneToOne } else { DepthRange::ZeroToOne };
        let m = perspective(1.0, 1.5, 0.5, 100.0, depth);
        let vp = Viewport { x: 0.0, y: 0.0, width: 800.0, height: 600.0, y_down: false };
        let min = Vec3::new(centre[0] - half[0], centre[1] - half[1], centre[2] - half[2]);
        let max = Vec3::new(centre[0] + half[0], centre[1] + half[1], centre[2] + half[2]);
        let rect = screen_rect_of_box(min, max, &m, &vp, depth).unwrap();
        // Dense samples over the box's surface, kept where in front of the near plane.
        let n = 24;
        let mut lo = [f32::INFINITY; 2];
        let mut hi = [f32::NEG_INFINITY; 2];
        let mut all_front = true;
        for face in 0..6 {
            for i in 0..=n {
                for j in 0..=n {
                    let (u, v) = (i as f32 / n as f32, j as f32 / n as f32);
                    let axis = face / 2;
                    let side = (face % 2) as f32;
                    let mut p = [0.0f32; 3];
                    let (k1, k2) = ((axis + 1) % 3, (axis + 2) % 3);
                    let lerp = |k: usize, t: f32| [min.x, min.y, min.z][k] + t * ([max.x, max.y, max.z][k] - [min.x, min.y, min.z][k]);
                    p[axis] = lerp(axis, side);
                    p[k1] = lerp(k1, u);
                    p[k2] = lerp(k2, v);
                    let c = clip(&m, p);
                    let s = if gl { c[2] + c[3] } else { c[2] };
                    if s < 0.0 {
                        all_front = false;
                        continue;
                    }
                    let x = (c[0] / c[3] + 1.0) * 0.5 * 800.0;
                    let y = (c[1] / c[3] + 1.0) * 0.5 * 600.0;
                    lo = [lo[0].min(x), lo[1].min(y)];
                    hi = [hi[0].max(x), hi[1].max(y)];
                }
            }
        }
        match rect {
            None => prop_assert!(lo[0].is_infinite(), "samples in front but no rectangle"),
            Some(r) => {
                let tol = 1e-3 * (1.0 + r.width().max(r.height()));
                prop_assert!(r.min().x <= lo[0] + tol && r.min().y <= lo[1] + tol, "{r:?} vs {lo:?}");
                prop_assert!(r.max().x >= hi[0] - tol && r.max().y >= hi[1] - tol, "{r:?} vs {hi:?}");
                if all_front {
                    let corners: Vec<Vec3> = (0..8).map(|k| Vec3::new(
                        if k & 1 == 0 { min.x } else { max.x },
                        if k & 2 == 0 { min.y } else { max.y },
                        if k & 4 == 0 { min.z } else { max.z })).collect();
                    let seed = screen_rect_unclipped(&corners, &m, &vp).unwrap();
                    prop_assert!((seed.min().x - r.min().x).abs() <= tol && (seed.max().y - r.max().y).abs() <= tol);
                    prop_assert!((lo[0] - r.min().x).abs() <= tol && (hi[1] - r.max().y).abs() <= tol, "tight");
                }
            }
        }
    }
}

fn clip(m: &collide::Mat4, p: [f32; 3]) -> [f32; 4] {
    std::array::from_fn(|r| m[0][r] * p[0] + m[1][r] * p[1] + m[2][r] * p[2] + m[3][r])
}

#[test]
fn a_box_straddling_the_camera_gets_no_wrong_rectangle() {
    // A long wall from in front of the camera to behind it, off to the right.
    let m = perspective(1.0, 1.0, 0.5, 100.0, DepthRange::ZeroToOne);
    let vp = Viewport {
        x: 0.0,
        y: 0.0,
        width: 100.0,
        height: 100.0,
        y_down: false,
    };
    let (min, max) = (Vec3::new(1.0, -0.5, -10.0), Vec3::new(1.2, 0.5, 10.0));
    let corners: Vec<Vec3> = (0..8)
        .map(|k| {
            Vec3::new(
                if k & 1 == 0 { min.x } else { max.x },
                if k & 2 == 0 { min.y } else { max.y },
                if k & 4 == 0 { min.z } else { max.z },
            )
        })
        .collect();
    let seed = screen_rect_unclipped(&corners, &m, &vp).unwrap();
    let ours = screen_rect_of_box(min, max, &m, &vp, DepthRange::ZeroToOne)
        .unwrap()
        .unwrap();
    // The wall is right of centre: the seed's rectangle reaches left of centre
    // (corners behind the eye flip sides); the clipped one stays right.
    assert!(seed.min().x < 45.0, "{seed:?}");
    assert!(ours.min().x > 50.0, "{ours:?}");
    // Entirely behind: nothing.
    let behind = screen_rect_of_box(
        Vec3::new(-1.0, -1.0, 1.0),
        Vec3::new(1.0, 1.0, 2.0),
        &m,
        &vp,
        DepthRange::ZeroToOne,
    );
    assert_eq!(behind.unwrap(), None);
}

#[test]
fn flat_point_sets_are_refused() {
    let flat: Vec<Vec3> = (0..10)
        .map(|k| Vec3::new(k as f32, (k * k) as f32, 0.0))
        .collect();
    assert!(matches!(
        ConvexPolyhedron::hull(&flat),
        Err(collide::CollideError::Degenerate { .. })
    ));
    let cube = ConvexPolyhedron::cuboid(Vec3::new(1.0, 1.0, 1.0)).unwrap();
    assert_eq!(
        (cube.vertices().len(), cube.face_count(), cube.edge_count()),
        (8, 6, 12)
    );
}

/// A small box sunk 0.1 into a big one's top face: four points, at the
/// small box's bottom corners lifted halfway out, each 0.1 deep.
#[test]
fn a_box_on_a_box_touches_at_its_four_bottom_corners() {
    let big = ConvexPolyhedron::cuboid(Vec3::new(5.0, 5.0, 1.0)).unwrap();
    let small = ConvexPolyhedron::cuboid(Vec3::new(1.0, 0.5, 0.5)).unwrap();
    let on_top = Transform3 {
        translation: Vec3::new(0.3, -0.2, 1.4),
        rotation: Rot3::from_axis_angle(Vec3::new(0.0, 0.0, 1.0), 0.4).unwrap(),
    };
    let c = contact_polyhedra(&big, &Transform3::IDENTITY, &small, &on_top)
        .unwrap()
        .unwrap();
    assert!(
        (c.depth - 0.1).abs() < 1e-5 && c.normal.z > 1.0 - 1e-6,
        "{c:?}"
    );
    assert_eq!(c.points().len(), 4);
    for p in c.points() {
        assert!(
            (p.depth - 0.1).abs() < 1e-5 && (p.point.z - 0.95).abs() < 1e-5,
            "{p:?}"
        );
        let local = on_top.rotation.apply_inverse(p.point - on_top.translation);
        assert!(
            (local.x.abs() - 1.0).abs() < 1e-4 && (local.y.abs() - 0.5).abs() < 1e-4,
            "{local:?}"
        );
    }
}

/// Two long bars crossed at right angles, each turned 45° about its
/// length so that edge meets edge: one point, where the edges cross.
#[test]
fn crossed_bars_touch_at_one_point() {
    let along_x = ConvexPolyhedron::cuboid(Vec3::new(3.0, 0.2, 0.2)).unwrap();
    let along_y = ConvexPolyhedron::cuboid(Vec3::new(0.2, 3.0, 0.2)).unwrap();
    let quarter = std::f32::consts::FRAC_PI_4;
    let reach = 0.2 * std::f32::consts::SQRT_2; // centre to edge
    let xa = Transform3 {
        translation: Vec3::ZERO,
        rotation: Rot3::from_axis_angle(Vec3::new(1.0, 0.0, 0.0), quarter).unwrap(),
    };
    let xb = Transform3 {
        translation: Vec3::new(0.1, 0.2, 2.0 * reach - 0.05),
        rotation: Rot3::from_axis_angle(Vec3::new(0.0, 1.0, 0.0), quarter).unwrap(),
    };
    for c in [
        contact_polyhedra(&along_x, &xa, &along_y, &xb)
            .unwrap()
            .unwrap(),
        contact_polyhedra_by_axes(&along_x, &xa, &along_y, &xb)
            .unwrap()
            .unwrap(),
    ] {
        assert!((c.depth - 0.05).abs() < 1e-3 && c.normal.z > 0.999, "{c:?}");
        assert_eq!(c.points().len(), 1, "{c:?}");
        let p = c.points()[0].point;
        // Above a's top edge (y = 0) at b's bottom edge (x = 0.1), halfway.
        let expected = Vec3::new(0.1, 0.0, reach - 0.025);
        assert!((p - expected).length() < 1e-3, "{p:?}");
    }
}

/// `mat4_mul(a, b)` applies `b` first: on random matrices and points it
/// gives `a` of `b` of the point; `perspective` puts the near plane at its
/// depth range's start and the far plane at 1.
#[test]
fn matrices_compose_and_perspective_maps_its_planes() {
    let mut seed = 0x2545_F491_4F6C_DD1Du64;
    let mut unit = || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed >> 40) as f32 / (1u64 << 24) as f32 * 2.0 - 1.0
    };
    for _ in 0..200 {
        let a: collide::Mat4 = std::array::from_fn(|_| std::array::from_fn(|_| unit()));
        let b: collide::Mat4 = std::array::from_fn(|_| std::array::from_fn(|_| unit()));
        let p = [unit(), unit(), unit()];
        let bp = clip(&b, p);
        let a_of_bp: [f32; 4] = std::array::from_fn(|r| (0..4).map(|k| a[k][r] * bp[k]).sum());
        let ab_p = clip(&mat4_mul(&a, &b), p);
        for r in 0..4 {
            assert!(
                (a_of_bp[r] - ab_p[r]).abs() < 1e-4,
                "{a_of_bp:?} against {ab_p:?}"
            );
        }
    }
    for (depth, start) in [
        (DepthRange::ZeroToOne, 0.0),
        (DepthRange::NegativeOneToOne, -1.0),
    ] {
        let m = perspective(1.0, 1.5, 0.5, 200.0, depth);
        let ndc = |z: f32| {
            let c = clip(&m, [0.0, 0.0, z]);
            c[2] / c[3]
        };
        assert!((ndc(-0.5) - start).abs() < 1e-5, "{depth:?} near");
        assert!((ndc(-200.0) - 1.0).abs() < 1e-5, "{depth:?} far");
    }
}
