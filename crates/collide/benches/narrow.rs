//! Narrow-phase benchmark: our tests against parry2d / parry3d on the same
//! shapes and poses, in one run. Each measurement runs a batch of 256 pose
//! pairs (about half of them overlapping) and is reported per batch; divide
//! by 256 for one test.
//!
//! `cargo bench -p collide --bench narrow`

#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

use std::hint::black_box;

use collide::{
    Capsule, Circle, ConvexPolygon, ConvexPolyhedron, Rect, Rot3, Shape, Transform, Transform3,
    Vec2, Vec3,
};
use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use parry2d::math::{Pose, Vec2 as PVec2};
use parry2d::shape::SharedShape;

const BATCH: usize = 256;

/// A tiny deterministic generator, so both libraries see the same poses.
struct Lcg(u64);
impl Lcg {
    fn next(&mut self) -> f32 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 40) as f32) / ((1u64 << 24) as f32)
    }
    fn range(&mut self, lo: f32, hi: f32) -> f32 {
        lo + (hi - lo) * self.next()
    }
}

/// x, y and angle.
type PoseNumbers = (f32, f32, f32);

fn poses(seed: u64, spread: f32) -> Vec<(PoseNumbers, PoseNumbers)> {
    let mut r = Lcg(seed);
    (0..BATCH)
        .map(|_| {
            let mut p = || {
                (
                    r.range(-spread, spread),
                    r.range(-spread, spread),
                    r.range(-3.1, 3.1),
                )
            };
            ((0.0, 0.0, p().2), p())
        })
        .collect()
}

fn regular(n: usize, radius: f32) -> Vec<Vec2> {
    (0..n)
        .map(|k| {
            let a = k as f32 * std::f32::consts::TAU / n as f32;
            Vec2::new(radius * a.cos(), radius * a.sin())
        })
        .collect()
}

#[derive(Clone, Copy)]
enum Kind {
    Circle,
    Capsule,
    Rect,
    Polygon(usize),
    /// Corners on a 3:1 ellipse: far from a disc, so bounding discs settle
    /// fewer poses than on regular polygons.
    Elongated(usize),
    /// A concave star of n corners (radii 1 and 0.55 in turn), decomposed
    /// into convex parts; parry gets a compound of the same parts, so the
    /// rows time the pairing of parts, not the decompositions.
    Star(usize),
}

fn build(k: Kind) -> (Shape, SharedShape) {
    match k {
        Kind::Circle => (
            Shape::Circle(Circle::new(1.0).unwrap()),
            SharedShape::ball(1.0),
        ),
        Kind::Capsule => (
            Shape::Capsule(Capsule::along_x(0.8, 0.5).unwrap()),
            SharedShape::capsule(PVec2::new(-0.8, 0.0), PVec2::new(0.8, 0.0), 0.5),
        ),
        Kind::Rect => (
            Shape::Rect(Rect::new(1.0, 0.6).unwrap()),
            SharedShape::cuboid(1.0, 0.6),
        ),
        Kind::Star(n) => {
            let pts: Vec<Vec2> = regular(n, 1.0)
                .into_iter()
                .enumerate()
                .map(|(k, p)| {
                    if k % 2 == 0 {
                        p
                    } else {
                        Vec2::new(0.55 * p.x, 0.55 * p.y)
                    }
                })
                .collect();
            let ours = Shape::polygon(&pts).unwrap();
            let Shape::Compound(compound) = &ours else {
                panic!("a star is concave");
            };
            let parts = compound
                .parts()
                .iter()
                .map(|part| {
                    let collide::ConvexShape::Polygon(p) = &part.shape else {
                        panic!("parts of a polygon are polygons");
                    };
                    let corners: Vec<PVec2> =
                        p.points().iter().map(|q| PVec2::new(q.x, q.y)).collect();
                    let t = part.transform;
                    (
                        Pose::new(
                            PVec2::new(t.translation.x, t.translation.y),
                            t.rotation.angle(),
                        ),
                        SharedShape::convex_polyline_unmodified(corners).unwrap(),
                    )
                })
                .collect();
            (ours, SharedShape::compound(parts))
        }
        Kind::Polygon(_) | Kind::Elongated(_) => {
            let pts = match k {
                Kind::Elongated(n) => regular(n, 1.0)
                    .into_iter()
                    .map(|p| Vec2::new(1.5 * p.x, 0.5 * p.y))
                    .collect(),
                Kind::Polygon(n) => regular(n, 1.0),
                _ => unreachable!(),
            };
            let theirs: Vec<PVec2> = pts.iter().map(|p| PVec2::new(p.x, p.y)).collect();
            (
                Shape::Polygon(ConvexPolygon::new(&pts).unwrap()),
                SharedShape::convex_polyline_unmodified(theirs).unwrap(),
            )
        }
    }
}

fn pair_2d(c: &mut Criterion, name: &str, ka: Kind, kb: Kind) {
    let (oa, ta) = build(ka);
    let (ob, tb) = build(kb);
    let ps = poses(7, 2.2);
    let ours: Vec<(Transform, Transform)> = ps
        .iter()
        .map(|&(a, b)| {
            (
                Transform::new([a.0, a.1], a.2).unwrap(),
                Transform::new([b.0, b.1], b.2).unwrap(),
            )
        })
        .collect();
    let theirs: Vec<(Pose, Pose)> = ps
        .iter()
        .map(|&(a, b)| {
            (
                Pose::new(PVec2::new(a.0, a.1), a.2),
                Pose::new(PVec2::new(b.0, b.1), b.2),
            )
        })
        .collect();
    let mut g = c.benchmark_group(format!("2d/{name}"));
    g.bench_function(BenchmarkId::new("intersects", "collide"), |bch| {
        bch.iter(|| {
            let mut hits = 0;
            for (xa, xb) in &ours {
                hits += usize::from(collide::intersects(&oa, xa, &ob, xb).unwrap());
            }
            black_box(hits)
        })
    });
    g.bench_function(BenchmarkId::new("intersects", "parry2d"), |bch| {
        bch.iter(|| {
            let mut hits = 0;
            for (xa, xb) in &theirs {
                hits += usize::from(
                    parry2d::query::intersection_test(xa, ta.as_ref(), xb, tb.as_ref())
                        .unwrap()
                        .intersecting,
                );
            }
            black_box(hits)
        })
    });
    g.bench_function(BenchmarkId::new("contact", "collide"), |bch| {
        bch.iter(|| {
            let mut depth = 0.0;
            for (xa, xb) in &ours {
                if let Some(c) = collide::contact(&oa, xa, &ob, xb).unwrap() {
                    depth += c.depth;
                }
            }
            black_box(depth)
        })
    });
    g.bench_function(BenchmarkId::new("contact", "parry2d"), |bch| {
        bch.iter(|| {
            let mut depth = 0.0;
            for (xa, xb) in &theirs {
                if let Some(c) =
                    parry2d::query::contact(xa, ta.as_ref(), xb, tb.as_ref(), 0.0).unwrap()
                {
                    depth -= c.dist;
                }
            }
            black_box(depth)
        })
    });
    g.finish();
}

fn two_d(c: &mut Criterion) {
    for n in [4, 8, 64, 1024] {
        pair_2d(
            c,
            &format!("polygon{n}-polygon{n}"),
            Kind::Polygon(n),
            Kind::Polygon(n),
        );
    }
    pair_2d(c, "circle-circle", Kind::Circle, Kind::Circle);
    pair_2d(c, "circle-polygon8", Kind::Circle, Kind::Polygon(8));
    pair_2d(c, "capsule-capsule", Kind::Capsule, Kind::Capsule);
    pair_2d(c, "capsule-polygon8", Kind::Capsule, Kind::Polygon(8));
    pair_2d(c, "rect-rect", Kind::Rect, Kind::Rect);
    pair_2d(c, "circle-polygon1024", Kind::Circle, Kind::Polygon(1024));
    for n in [8, 64, 1024] {
        pair_2d(
            c,
            &format!("elongated{n}-elongated{n}"),
            Kind::Elongated(n),
            Kind::Elongated(n),
        );
    }
    pair_2d(
        c,
        "circle-elongated1024",
        Kind::Circle,
        Kind::Elongated(1024),
    );
    for n in [16, 64, 1024] {
        pair_2d(c, &format!("star{n}-star{n}"), Kind::Star(n), Kind::Star(n));
    }
}

fn three_d(c: &mut Criterion) {
    use parry3d::math::{Pose as Pose3, Vec3 as PVec3};
    use parry3d::shape::SharedShape as Shared3;
    let mut r = Lcg(11);
    let mut sphere_points = |n: usize| -> Vec<Vec3> {
        (0..n)
            .map(|_| {
                let (z, a) = (r.range(-1.0, 1.0), r.range(0.0, std::f32::consts::TAU));
                let s = (1.0 - z * z).sqrt();
                Vec3::new(s * a.cos(), s * a.sin(), z)
            })
            .collect()
    };
    let mut hull = |name: &'static str, n: usize| {
        let pts = sphere_points(n);
        let theirs: Vec<PVec3> = pts.iter().map(|p| PVec3::new(p.x, p.y, p.z)).collect();
        (
            name,
            ConvexPolyhedron::hull(&pts).unwrap(),
            Shared3::convex_hull(&theirs).unwrap(),
        )
    };
    let solids: Vec<(&str, ConvexPolyhedron, Shared3)> = vec![
        hull("hull4-hull4", 4),
        hull("hull8-hull8", 8),
        (
            "box-box",
            ConvexPolyhedron::cuboid(Vec3::new(1.0, 0.7, 0.5)).unwrap(),
            Shared3::cuboid(1.0, 0.7, 0.5),
        ),
        hull("hull16-hull16", 16),
        hull("hull64-hull64", 64),
        hull("hull1024-hull1024", 1024),
    ];
    let mut r = Lcg(13);
    let ps: Vec<([f32; 3], [f32; 3])> = (0..BATCH)
        .map(|_| {
            let t = [r.range(-1.9, 1.9), r.range(-1.9, 1.9), r.range(-1.9, 1.9)];
            let a = [r.range(-2.0, 2.0), r.range(-2.0, 2.0), r.range(-2.0, 2.0)];
            (t, a)
        })
        .collect();
    let ours: Vec<Transform3> = ps
        .iter()
        .map(|(t, a)| {
            let axis = Vec3::from(*a);
            Transform3 {
                translation: Vec3::from(*t),
                rotation: Rot3::from_axis_angle(axis, axis.length()).unwrap(),
            }
        })
        .collect();
    let theirs: Vec<Pose3> = ps
        .iter()
        .map(|(t, a)| Pose3::new(PVec3::new(t[0], t[1], t[2]), PVec3::new(a[0], a[1], a[2])))
        .collect();
    // For distance: the same turns, translations spread so most are apart.
    let spread = 2.4;
    let ours_far: Vec<Transform3> = ours
        .iter()
        .map(|x| Transform3 {
            translation: x.translation * spread,
            rotation: x.rotation,
        })
        .collect();
    let theirs_far: Vec<Pose3> = ps
        .iter()
        .map(|(t, a)| {
            Pose3::new(
                PVec3::new(t[0], t[1], t[2]) * spread,
                PVec3::new(a[0], a[1], a[2]),
            )
        })
        .collect();
    for (name, ours_shape, their_shape) in &solids {
        let mut g = c.benchmark_group(format!("3d/{name}"));
        g.bench_function(BenchmarkId::new("intersects", "collide"), |b| {
            b.iter(|| {
                let mut hits = 0;
                for x in &ours {
                    hits += usize::from(
                        collide::intersects_polyhedra(
                            ours_shape,
                            &Transform3::IDENTITY,
                            ours_shape,
                            x,
                        )
                        .unwrap(),
                    );
                }
                black_box(hits)
            })
        });
        g.bench_function(BenchmarkId::new("intersects", "parry3d"), |b| {
            let id = Pose3::IDENTITY;
            b.iter(|| {
                let mut hits = 0;
                for x in &theirs {
                    hits += usize::from(
                        parry3d::query::intersection_test(
                            &id,
                            their_shape.as_ref(),
                            x,
                            their_shape.as_ref(),
                        )
                        .unwrap()
                        .intersecting,
                    );
                }
                black_box(hits)
            })
        });
        g.bench_function(BenchmarkId::new("contact", "collide"), |b| {
            b.iter(|| {
                let mut depth = 0.0;
                for x in &ours {
                    if let Some(c) =
                        collide::contact_polyhedra(ours_shape, &Transform3::IDENTITY, ours_shape, x)
                            .unwrap()
                    {
                        depth += c.depth;
                    }
                }
                black_box(depth)
            })
        });
        g.bench_function(BenchmarkId::new("contact", "parry3d"), |b| {
            let id = Pose3::IDENTITY;
            b.iter(|| {
                let mut depth = 0.0;
                for x in &theirs {
                    if let Some(c) = parry3d::query::contact(
                        &id,
                        their_shape.as_ref(),
                        x,
                        their_shape.as_ref(),
                        0.0,
                    )
                    .unwrap()
                    {
                        depth -= c.dist;
                    }
                }
                black_box(depth)
            })
        });
        g.bench_function(BenchmarkId::new("distance", "collide"), |b| {
            b.iter(|| {
                let mut total = 0.0;
                for x in &ours_far {
                    total += collide::distance_polyhedra(
                        ours_shape,
                        &Transform3::IDENTITY,
                        ours_shape,
                        x,
                    )
                    .unwrap();
                }
                black_box(total)
            })
        });
        g.bench_function(BenchmarkId::new("distance", "parry3d"), |b| {
            let id = Pose3::IDENTITY;
            b.iter(|| {
                let mut total = 0.0;
                for x in &theirs_far {
                    total += parry3d::query::distance(
                        &id,
                        their_shape.as_ref(),
                        x,
                        their_shape.as_ref(),
                    )
                    .unwrap()
                    .distance;
                }
                black_box(total)
            })
        });
        g.finish();
    }
}

fn config() -> Criterion {
    Criterion::default()
        .sample_size(20)
        .warm_up_time(std::time::Duration::from_millis(300))
        .measurement_time(std::time::Duration::from_millis(1200))
}

criterion_group! { name = benches; config = config(); targets = two_d, three_d }
criterion_main!(benches);
