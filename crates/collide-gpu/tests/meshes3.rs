#![allow(clippy::unwrap_used, clippy::expect_used)]
//! 3-D meshes on the GPU: the perspective floor (the seed's footnote), the
//! documented limits of depth slabs, 1,000 random box pairs against a CPU
//! rasteriser of the same rule (each pixel surely in, surely out, or
//! within a band of an edge or of a slab's end), 1,000 against collide's
//! convex query where slabs change nothing, and the same answers later, in
//! a group and on the path the cost model picks. Without an adapter: a
//! skip line, and a failure under `REQUIRE_GPU=1`.

mod common;

use collide::{DepthRange, Mat4, Viewport, mat4_mul, perspective};
use collide_gpu::{DepthSlabs, GpuCollider, Mesh3Id, Mesh3Pair, Occlusion, Path, PathChoice};

fn gpu() -> Option<GpuCollider> {
    common::gpu("collide-gpu 3-D mesh tests")
}

const SCREEN: Viewport = Viewport {
    x: 0.0,
    y: 0.0,
    width: 400.0,
    height: 400.0,
    y_down: true,
};

/// Translation, then a turn about a unit axis, then a scale per axis.
fn model(at: [f32; 3], axis: [f32; 3], angle: f32, scale: [f32; 3]) -> Mat4 {
    let (s, c) = angle.sin_cos();
    let [x, y, z] = axis;
    let t = 1.0 - c;
    let r = [
        [t * x * x + c, t * x * y + s * z, t * x * z - s * y],
        [t * x * y - s * z, t * y * y + c, t * y * z + s * x],
        [t * x * z + s * y, t * y * z - s * x, t * z * z + c],
    ];
    [
        [
            r[0][0] * scale[0],
            r[0][1] * scale[0],
            r[0][2] * scale[0],
            0.0,
        ],
        [
            r[1][0] * scale[1],
            r[1][1] * scale[1],
            r[1][2] * scale[1],
            0.0,
        ],
        [
            r[2][0] * scale[2],
            r[2][1] * scale[2],
            r[2][2] * scale[2],
            0.0,
        ],
        [at[0], at[1], at[2], 1.0],
    ]
}

/// The unit cube from -0.5 to 0.5: 8 corners, 12 triangles.
fn cube(g: &mut GpuCollider) -> Mesh3Id {
    let v: Vec<[f32; 3]> = (0..8)
        .map(|k| {
            [
                if k & 1 == 0 { -0.5 } else { 0.5 },
                if k & 2 == 0 { -0.5 } else { 0.5 },
                if k & 4 == 0 { -0.5 } else { 0.5 },
            ]
        })
        .collect();
    let faces = [
        [0, 1, 3, 2],
        [4, 6, 7, 5],
        [0, 4, 5, 1],
        [2, 3, 7, 6],
        [0, 2, 6, 4],
        [1, 5, 7, 3],
    ];
    let t: Vec<[u32; 3]> = faces
        .iter()
        .flat_map(|f| [[f[0], f[1], f[2]], [f[0], f[2], f[3]]])
        .collect();
    g.add_mesh_3d(&v, &t).unwrap()
}

/// A floor: the square y = 0, x in -50..50, z in -100..0.
fn floor(g: &mut GpuCollider) -> Mesh3Id {
    g.add_mesh_3d(
        &[
            [-50.0, 0.0, 0.0],
            [50.0, 0.0, 0.0],
            [50.0, 0.0, -100.0],
            [-50.0, 0.0, -100.0],
        ],
        &[[0, 1, 2], [0, 2, 3]],
    )
    .unwrap()
}

/// The camera at (0, 0.5, 5) looking down -z, level.
fn camera() -> Mat4 {
    let view = model([0.0, -0.5, -5.0], [0.0, 1.0, 0.0], 0.0, [1.0; 3]);
    mat4_mul(
        &perspective(1.0, 1.0, 0.5, 200.0, DepthRange::ZeroToOne),
        &view,
    )
}

/// A cube standing on a floor meets it; lifted a little it does not, though
/// the floor's far part is behind it on screen (and meets it without slabs).
#[test]
fn the_perspective_floor() {
    let Some(mut g) = gpu() else { return };
    let (box_mesh, floor_mesh) = (cube(&mut g), floor(&mut g));
    let vp = camera();
    let cube_at = |lift: f32| {
        mat4_mul(
            &vp,
            &model([0.0, 0.5 + lift, -5.0], [0.0, 1.0, 0.0], 0.4, [1.0; 3]),
        )
    };
    let pair = |lift| Mesh3Pair {
        a: floor_mesh,
        mvp_a: vp,
        b: box_mesh,
        mvp_b: cube_at(lift),
    };
    let pairs = [pair(-0.05), pair(0.3)];
    let on = g
        .test_mesh_3d_pairs_on(&pairs, &SCREEN, DepthSlabs::On, PathChoice::Gpu)
        .unwrap();
    let off = g
        .test_mesh_3d_pairs_on(&pairs, &SCREEN, DepthSlabs::Off, PathChoice::Gpu)
        .unwrap();
    assert!(on[0].hit, "standing on the floor");
    assert!(!on[1].hit, "0.3 above the floor: {} pixels", on[1].query);
    assert!(
        off[1].hit,
        "without slabs the far floor behind the cube counts"
    );
}

/// The limits, as the README states them: two slanted rods crossing on
/// screen 0.3 apart, at overlapping depths, are a false hit; a cube wholly
/// inside a larger one touches no surface and is no hit.
#[test]
fn the_documented_limits_of_depth_slabs() {
    let Some(mut g) = gpu() else { return };
    let rod = cube(&mut g);
    let vp = camera();
    // Each rod tilted on screen (about z) and slanted in depth (about y);
    // the second 0.3 behind the first: an X on screen, never touching.
    let slanted = |z: f32, tilt: f32, slant: f32| {
        let tilted = model([0.0, 0.5, z], [0.0, 0.0, 1.0], tilt, [1.0; 3]);
        mat4_mul(
            &vp,
            &mat4_mul(
                &tilted,
                &model([0.0; 3], [0.0, 1.0, 0.0], slant, [4.0, 0.1, 0.1]),
            ),
        )
    };
    let crossing = Mesh3Pair {
        a: rod,
        mvp_a: slanted(-8.0, 0.5, 0.6),
        b: rod,
        mvp_b: slanted(-8.3, -0.5, -0.6),
    };
    let big = mat4_mul(
        &vp,
        &model([0.0, 0.5, -8.0], [0.0, 1.0, 0.0], 0.2, [3.0; 3]),
    );
    let small = mat4_mul(
        &vp,
        &model([0.0, 0.5, -8.0], [1.0, 0.0, 0.0], 0.7, [0.5; 3]),
    );
    let inside = Mesh3Pair {
        a: rod,
        mvp_a: big,
        b: rod,
        mvp_b: small,
    };
    let hits = g
        .test_mesh_3d_pairs_on(
            &[crossing, inside],
            &SCREEN,
            DepthSlabs::On,
            PathChoice::Gpu,
        )
        .unwrap();
    assert!(hits[0].hit, "the rods' false hit is documented; it changed");
    assert!(
        !hits[1].hit,
        "containment is documented as no hit; it changed"
    );
}

#[derive(Clone, Copy, PartialEq)]
enum Cover {
    Out,
    Unsure,
    In,
}

/// A placed mesh's pixels on the screen, each in, out or unsure, kept to
/// the depth slab `slab` (clip depth).
fn classify(
    g: &GpuCollider,
    id: Mesh3Id,
    mvp: &Mat4,
    slab: [f32; 2],
    rect: [i64; 4],
) -> Vec<Cover> {
    let model = g.mesh_3d_model(id).unwrap();
    let (vertices, triangles) = (model.vertices, model.triangles);
    let project = |p: [f32; 3]| {
        let row = |r: usize| {
            (0..3)
                .map(|c| f64::from(mvp[c][r]) * f64::from(p[c]))
                .sum::<f64>()
                + f64::from(mvp[3][r])
        };
        let w = row(3);
        assert!(
            w > 0.1,
            "the test keeps every vertex in front of the camera"
        );
        let (x, y, z) = (row(0) / w, row(1) / w, row(2) / w);
        [(x + 1.0) * 200.0, (1.0 - y) * 200.0, z]
    };
    let (w, h) = ((rect[2] - rect[0]) as usize, (rect[3] - rect[1]) as usize);
    let mut out = vec![Cover::Out; w * h];
    let band = 1.0 / 64.0;
    let depth_band = 2e-5;
    for t in triangles {
        let [a, b, c] = t.map(|i| project(vertices[i as usize]));
        let area = (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]);
        if area.abs() < 1e-9 {
            continue;
        }
        let [a, b, c] = if area > 0.0 { [a, b, c] } else { [a, c, b] };
        let area = area.abs();
        let lo_x = (a[0].min(b[0]).min(c[0]) - 1.0).floor() as i64;
        let hi_x = (a[0].max(b[0]).max(c[0]) + 1.0).ceil() as i64;
        let lo_y = (a[1].min(b[1]).min(c[1]) - 1.0).floor() as i64;
        let hi_y = (a[1].max(b[1]).max(c[1]) + 1.0).ceil() as i64;
        for y in lo_y.max(rect[1])..hi_y.min(rect[3]) {
            for x in lo_x.max(rect[0])..hi_x.min(rect[2]) {
                let p = [x as f64 + 0.5, y as f64 + 0.5];
                let mut weights = [0.0; 3];
                let mut inside = true;
                let mut sure = true;
                for (k, (e0, e1)) in [(b, c), (c, a), (a, b)].into_iter().enumerate() {
                    let (dx, dy) = (e1[0] - e0[0], e1[1] - e0[1]);
                    let e = dx * (p[1] - e0[1]) - dy * (p[0] - e0[0]);
                    weights[k] = e / area;
                    let dist = e / dx.hypot(dy);
                    if dist < -band {
                        inside = false;
                    } else if dist <= band {
                        sure = false;
                    }
                }
                if !inside {
                    continue;
                }
                let z = weights[0] * a[2] + weights[1] * b[2] + weights[2] * c[2];
                let (lo, hi) = (f64::from(slab[0]), f64::from(slab[1]));
                let here = if z < lo - depth_band || z > hi + depth_band {
                    Cover::Out
                } else if sure && z > lo + depth_band && z < hi - depth_band {
                    Cover::In
                } else {
                    Cover::Unsure
                };
                let slot = &mut out[(y - rect[1]) as usize * w + (x - rect[0]) as usize];
                *slot = match (*slot, here) {
                    (Cover::In, _) | (_, Cover::In) => Cover::In,
                    (Cover::Unsure, _) | (_, Cover::Unsure) => Cover::Unsure,
                    _ => Cover::Out,
                };
            }
        }
    }
    out
}

struct Rng(u64);
impl Rng {
    fn unit(&mut self) -> f32 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        ((z ^ (z >> 31)) >> 40) as f32 / (1u64 << 24) as f32
    }
}

#[test]
fn random_box_pairs_agree_with_the_cpu_rasteriser() {
    let Some(mut g) = gpu() else { return };
    let mesh = cube(&mut g);
    let vp = camera();
    let mut rng = Rng(3);
    let place = |rng: &mut Rng| {
        let axis = [rng.unit() - 0.5, rng.unit() - 0.5, rng.unit() - 0.5];
        let n = (axis[0] * axis[0] + axis[1] * axis[1] + axis[2] * axis[2])
            .sqrt()
            .max(1e-3);
        mat4_mul(
            &vp,
            &model(
                [
                    rng.unit() * 2.0 - 1.0,
                    rng.unit() * 2.0 - 0.5,
                    -6.0 - rng.unit() * 3.0,
                ],
                [axis[0] / n, axis[1] / n, axis[2] / n],
                rng.unit() * std::f32::consts::TAU,
                [0.3 + rng.unit(), 0.3 + rng.unit(), 0.3 + rng.unit()],
            ),
        )
    };
    let pairs: Vec<Mesh3Pair> = (0..1000)
        .map(|_| Mesh3Pair {
            a: mesh,
            mvp_a: place(&mut rng),
            b: mesh,
            mvp_b: place(&mut rng),
        })
        .collect();
    let hits = g
        .test_mesh_3d_pairs_on(&pairs, &SCREEN, DepthSlabs::On, PathChoice::Gpu)
        .unwrap();
    let cpu = g
        .test_mesh_3d_pairs_on(&pairs, &SCREEN, DepthSlabs::On, PathChoice::Cpu)
        .unwrap();
    let (mut touching, mut apart, mut unsure) = (0, 0, 0);
    for (k, (p, hit)) in pairs.iter().zip(&hits).enumerate() {
        let rect = [0, 0, 400, 400];
        let ca = classify(
            &g,
            p.a,
            &p.mvp_a,
            g.depth_slab(p.b, &p.mvp_b).unwrap(),
            rect,
        );
        let cb = classify(
            &g,
            p.b,
            &p.mvp_b,
            g.depth_slab(p.a, &p.mvp_a).unwrap(),
            rect,
        );
        let surely = ca
            .iter()
            .zip(&cb)
            .filter(|(x, y)| **x == Cover::In && **y == Cover::In)
            .count() as u64;
        let possibly = ca
            .iter()
            .zip(&cb)
            .filter(|(x, y)| **x != Cover::Out && **y != Cover::Out)
            .count() as u64;
        // The CPU path: the same rule, in f64, so within the same bounds.
        assert!(matches!(cpu[k].path, Path::CpuRaster | Path::BoundingBoxes));
        assert!(
            (surely..=possibly).contains(&cpu[k].query),
            "pair {k}: CPU path {} against {surely}..={possibly}",
            cpu[k].query
        );
        match common::judge(k, hit, surely, possibly, g.occlusion()) {
            common::Bounds::Touching => touching += 1,
            common::Bounds::Apart => apart += 1,
            common::Bounds::AtTheBand => unsure += 1,
        }
    }
    eprintln!("1,000 box pairs: {touching} touching, {apart} apart, {unsure} decided at a band");
    assert!(touching > 100 && apart > 100, "both answers tested");
}

/// Stacked boxes: one resting on another meets it; lifted 0.3 it does not.
#[test]
fn stacked_boxes() {
    let Some(mut g) = gpu() else { return };
    let cube = cube(&mut g);
    let vp = camera();
    let at =
        |y: f32, turn: f32| mat4_mul(&vp, &model([0.0, y, -5.0], [0.0, 1.0, 0.0], turn, [1.0; 3]));
    let pairs = [
        Mesh3Pair {
            a: cube,
            mvp_a: at(0.5, 0.0),
            b: cube,
            mvp_b: at(1.5, 0.5),
        },
        Mesh3Pair {
            a: cube,
            mvp_a: at(0.5, 0.0),
            b: cube,
            mvp_b: at(1.8, 0.5),
        },
    ];
    for path in [PathChoice::Gpu, PathChoice::Cpu] {
        let hits = g
            .test_mesh_3d_pairs_on(&pairs, &SCREEN, DepthSlabs::On, path)
            .unwrap();
        assert!(hits[0].hit, "{path:?}: resting on the lower box");
        assert!(!hits[1].hit, "{path:?}: 0.3 above it");
    }
}

/// The same pairs answered later (`submit_mesh_3d_pairs`), as one group
/// (`test_mesh_3d_group`), and on the path the cost model picks: the same
/// answers; told that one path is free, the model takes it; with occlusion
/// queries off the CPU answers.
#[test]
fn later_grouped_and_chosen_answers_are_the_same() {
    let Some(mut g) = gpu() else { return };
    let mesh = cube(&mut g);
    let vp = camera();
    let mut rng = Rng(17);
    let first = mat4_mul(
        &vp,
        &model([0.0, 0.0, -7.0], [0.0, 1.0, 0.0], 0.4, [1.0; 3]),
    );
    let others: Vec<(Mesh3Id, Mat4)> = (0..200)
        .map(|_| {
            let at = [
                rng.unit() * 3.0 - 1.5,
                rng.unit() * 3.0 - 1.5,
                -7.0 + rng.unit() * 3.0 - 1.5,
            ];
            let turn = rng.unit() * 6.0;
            (
                mesh,
                mat4_mul(&vp, &model(at, [0.0, 0.0, 1.0], turn, [0.6; 3])),
            )
        })
        .collect();
    let pairs: Vec<Mesh3Pair> = others
        .iter()
        .map(|&(b, mvp_b)| Mesh3Pair {
            a: mesh,
            mvp_a: first,
            b,
            mvp_b,
        })
        .collect();
    let now = g
        .test_mesh_3d_pairs_on(&pairs, &SCREEN, DepthSlabs::On, PathChoice::Gpu)
        .unwrap();
    let touching = now.iter().filter(|h| h.hit).count();
    assert!(touching > 20 && touching < 180, "{touching} of 200 touch");
    let mut pending = g
        .submit_mesh_3d_pairs(&pairs, &SCREEN, DepthSlabs::On)
        .unwrap();
    let later = loop {
        if let Some(h) = pending.try_take(&g).unwrap() {
            break h;
        }
        std::thread::sleep(std::time::Duration::from_millis(1));
    };
    let yes = |hits: &[collide_gpu::Hit]| hits.iter().map(|h| h.hit).collect::<Vec<_>>();
    assert_eq!(yes(&later), yes(&now));
    let free_gpu = collide_gpu::MeshCosts {
        gpu_batch: 0.0,
        gpu_pair: 0.0,
        gpu_triangle: 0.0,
        cpu_pair: 1.0,
        ..g.mesh_costs()
    };
    g.set_mesh_costs(free_gpu);
    let grouped = g
        .test_mesh_3d_group(mesh, &first, &others, &SCREEN, DepthSlabs::On)
        .unwrap();
    assert_eq!(yes(&grouped), yes(&now));
    assert!(
        grouped
            .iter()
            .all(|h| matches!(h.path, Path::Occlusion(_) | Path::BoundingBoxes))
    );
    let free_cpu = collide_gpu::MeshCosts {
        gpu_batch: 1.0,
        cpu_pair: 0.0,
        cpu_triangle: 0.0,
        cpu_pixel: 0.0,
        ..free_gpu
    };
    g.set_mesh_costs(free_cpu);
    let chosen = g
        .test_mesh_3d_pairs(&pairs, &SCREEN, DepthSlabs::On)
        .unwrap();
    assert!(chosen.iter().any(|h| h.path == Path::CpuRaster));
    assert!(
        chosen
            .iter()
            .all(|h| matches!(h.path, Path::CpuRaster | Path::BoundingBoxes))
    );
    // The CPU path's rule differs from the GPU's only within a band.
    let differ = chosen
        .iter()
        .zip(&now)
        .filter(|(a, b)| a.hit != b.hit)
        .count();
    assert!(differ <= 2, "{differ} answers differ");
    g.set_mesh_costs(free_gpu);
    g.set_occlusion_queries(false);
    let without = g
        .test_mesh_3d_pairs(&pairs, &SCREEN, DepthSlabs::On)
        .unwrap();
    assert!(
        without
            .iter()
            .all(|h| matches!(h.path, Path::CpuRaster | Path::BoundingBoxes))
    );
    assert_eq!(yes(&without), yes(&chosen));
}

/// Against collide's convex queries (`intersects_polyhedra`) outside a
/// band, where the depth slabs change nothing: boxes of one depth range
/// (the same depth and thickness, turned about the view axis only) seen
/// through an orthographic camera, so each box's pixels are its cross
/// section's. Boxes that still meet when both are shrunk by 1.5 pixels
/// must hit; boxes still apart when both grow by 1.5 pixels must not. (In
/// general poses the slabs' false hits and nested or contained objects
/// make the rule differ from exact geometry by design: the tests above.)
#[test]
fn box_pairs_agree_with_collides_convex_query_outside_a_band() {
    use collide::{ConvexPolyhedron, Rot3, Transform3, Vec3, intersects_polyhedra};
    let Some(mut g) = gpu() else { return };
    let mesh = cube(&mut g);
    // x and y in -4..4 onto the 400-pixel screen: 0.02 a pixel; depth
    // from -1 (0) to -21 (1).
    let (half_view, near, far) = (4.0f32, 1.0f32, 21.0f32);
    let ortho: Mat4 = [
        [1.0 / half_view, 0.0, 0.0, 0.0],
        [0.0, 1.0 / half_view, 0.0, 0.0],
        [0.0, 0.0, -1.0 / (far - near), 0.0],
        [0.0, 0.0, -near / (far - near), 1.0],
    ];
    let band = 1.5 * 2.0 * half_view / SCREEN.width;
    let mut rng = Rng(29);
    let mut poses = Vec::new();
    for _ in 0..1000 {
        let mut pose = || {
            let at = [
                rng.unit() * 2.0 - 1.0,
                rng.unit() * 2.0 - 1.0,
                -10.0, // one depth for all: one depth range
            ];
            let half = [0.1 + rng.unit() * 0.6, 0.1 + rng.unit() * 0.6, 0.5];
            (at, half, rng.unit() * std::f32::consts::TAU)
        };
        poses.push([pose(), pose()]);
    }
    let pairs: Vec<Mesh3Pair> = poses
        .iter()
        .map(|[(pa, ha, ta), (pb, hb, tb)]| {
            let place = |at: [f32; 3], half: [f32; 3], turn: f32| {
                mat4_mul(
                    &ortho,
                    &model(at, [0.0, 0.0, 1.0], turn, half.map(|h| 2.0 * h)),
                )
            };
            Mesh3Pair {
                a: mesh,
                mvp_a: place(*pa, *ha, *ta),
                b: mesh,
                mvp_b: place(*pb, *hb, *tb),
            }
        })
        .collect();
    let hits = g
        .test_mesh_3d_pairs_on(&pairs, &SCREEN, DepthSlabs::On, PathChoice::Gpu)
        .unwrap();
    let exact = |(at, half, turn): &([f32; 3], [f32; 3], f32), grow: f32| {
        let shape =
            ConvexPolyhedron::cuboid(Vec3::new(half[0] + grow, half[1] + grow, half[2])).unwrap();
        let x = Transform3 {
            rotation: Rot3::from_axis_angle(Vec3::new(0.0, 0.0, 1.0), *turn).unwrap(),
            translation: Vec3::new(at[0], at[1], at[2]),
        };
        (shape, x)
    };
    let (mut meet, mut apart, mut band_pairs) = (0, 0, 0);
    for (k, ([a, b], hit)) in poses.iter().zip(&hits).enumerate() {
        let query = |grow: f32| {
            let ((sa, xa), (sb, xb)) = (exact(a, grow), exact(b, grow));
            intersects_polyhedra(&sa, &xa, &sb, &xb).unwrap()
        };
        if query(-band) {
            assert!(
                hit.hit,
                "pair {k}: the boxes meet by more than the band; no hit"
            );
            meet += 1;
        } else if !query(band) {
            assert!(
                !hit.hit,
                "pair {k}: the boxes are apart by more than the band; a hit"
            );
            apart += 1;
        } else {
            band_pairs += 1;
        }
    }
    eprintln!(
        "against collide's convex query: {meet} meet, {apart} apart, {band_pairs} within the band"
    );
    assert!(meet > 100 && apart > 100, "both answers tested");
}

/// Two unit cubes side by side as one mesh: not on its hull.
fn two_cubes(g: &mut GpuCollider) -> Mesh3Id {
    let mut v: Vec<[f32; 3]> = Vec::new();
    let mut t: Vec<[u32; 3]> = Vec::new();
    for dx in [-1.0f32, 1.0] {
        let base = v.len() as u32;
        v.extend((0..8).map(|k| {
            [
                dx + if k & 1 == 0 { -0.5 } else { 0.5 },
                if k & 2 == 0 { -0.5 } else { 0.5 },
                if k & 4 == 0 { -0.5 } else { 0.5 },
            ]
        }));
        for f in [
            [0, 1, 3, 2],
            [4, 6, 7, 5],
            [0, 4, 5, 1],
            [2, 3, 7, 6],
            [0, 2, 6, 4],
            [1, 5, 7, 3],
        ] {
            t.push([base + f[0], base + f[1], base + f[2]]);
            t.push([base + f[0], base + f[2], base + f[3]]);
        }
    }
    g.add_mesh_3d(&v, &t).unwrap()
}

/// A group whose first mesh lies on its hull is drawn once (nearest and
/// farthest depths) and gives the pair test's answers and counts: a box
/// against 300 turned boxes, slabs on and off, and the perspective floor;
/// a first mesh off its hull (two boxes) is tested as pairs, the same.
#[test]
fn a_group_with_a_convex_first_gives_the_pairs_answers() {
    let Some(mut g) = gpu() else { return };
    let (cube_mesh, floor_mesh, pair_mesh) = (cube(&mut g), floor(&mut g), two_cubes(&mut g));
    assert!(g.mesh_3d_model(cube_mesh).unwrap().on_hull);
    assert!(g.mesh_3d_model(floor_mesh).unwrap().on_hull);
    assert!(!g.mesh_3d_model(pair_mesh).unwrap().on_hull);
    let vp = camera();
    let mut rng = Rng(31);
    let others: Vec<(Mesh3Id, Mat4)> = (0..300)
        .map(|_| {
            let at = [
                rng.unit() * 4.0 - 2.0,
                rng.unit() * 3.0 - 1.5,
                -7.0 + rng.unit() * 4.0 - 2.0,
            ];
            let axis = [rng.unit() - 0.5, rng.unit() - 0.5, rng.unit() - 0.5];
            let n = (axis[0] * axis[0] + axis[1] * axis[1] + axis[2] * axis[2])
                .sqrt()
                .max(1e-3);
            let turn = rng.unit() * 6.0;
            let size = [0.3 + rng.unit(), 0.3 + rng.unit(), 0.3 + rng.unit()];
            let mesh = if rng.unit() < 0.2 {
                pair_mesh
            } else {
                cube_mesh
            };
            let axis = [axis[0] / n, axis[1] / n, axis[2] / n];
            (mesh, mat4_mul(&vp, &model(at, axis, turn, size)))
        })
        .collect();
    for first in [cube_mesh, pair_mesh] {
        let mvp = mat4_mul(
            &vp,
            &model([0.0, 0.0, -7.0], [0.0, 1.0, 0.0], 0.5, [1.5, 1.0, 2.0]),
        );
        for slabs in [DepthSlabs::On, DepthSlabs::Off] {
            let grouped = g
                .test_mesh_3d_group_on(first, &mvp, &others, &SCREEN, slabs, PathChoice::Gpu)
                .unwrap();
            let pairs: Vec<Mesh3Pair> = others
                .iter()
                .map(|&(b, mvp_b)| Mesh3Pair {
                    a: first,
                    mvp_a: mvp,
                    b,
                    mvp_b,
                })
                .collect();
            let paired = g
                .test_mesh_3d_pairs_on(&pairs, &SCREEN, slabs, PathChoice::Gpu)
                .unwrap();
            let touching = paired.iter().filter(|h| h.hit).count();
            assert!(touching > 30 && touching < 270, "{touching} of 300 touch");
            for (k, (x, y)) in grouped.iter().zip(&paired).enumerate() {
                assert_eq!(
                    x.hit, y.hit,
                    "{slabs:?} candidate {k}: group {x:?}, pair {y:?}"
                );
                if g.occlusion() == Occlusion::SampleCount && g.adapter().contains("llvmpipe") {
                    assert_eq!(x.query, y.query, "{slabs:?} candidate {k}: pixels");
                }
            }
        }
    }
    // The floor as the first mesh: a cube standing on it meets it, one
    // lifted 0.3 does not (its far part behind the cube on screen is at
    // other depths).
    let cube_at = |lift: f32| {
        mat4_mul(
            &vp,
            &model([0.0, 0.5 + lift, -5.0], [0.0, 1.0, 0.0], 0.4, [1.0; 3]),
        )
    };
    let floor_at = mat4_mul(&vp, &model([0.0, 0.0, 0.0], [0.0, 1.0, 0.0], 0.0, [1.0; 3]));
    let hits = g
        .test_mesh_3d_group_on(
            floor_mesh,
            &floor_at,
            &[(cube_mesh, cube_at(0.0)), (cube_mesh, cube_at(0.3))],
            &SCREEN,
            DepthSlabs::On,
            PathChoice::Gpu,
        )
        .unwrap();
    assert!(hits[0].hit, "standing on the floor");
    assert!(!hits[1].hit, "0.3 above the floor");
}
