#![allow(clippy::unwrap_used, clippy::expect_used)]
//! Meshes on the GPU against the CPU rasteriser: random polygon pairs
//! (concave stars and convex polygons, turned, scaled), each pixel
//! classified on the CPU as surely in, surely out, or within the GPU's
//! sub-pixel snapping of an edge (either way is right there). Runs on
//! whatever adapter wgpu finds (lavapipe in CI); without one it prints a
//! skip line, and fails when `REQUIRE_GPU=1`.

mod common;

use collide::Vec2;
use collide::raster::rasterize;
use collide_gpu::{
    GpuCollider, GpuError, MeshCosts, MeshId, MeshPair, MeshPlacement, Occlusion, Path, PathChoice,
};

fn gpu() -> Option<GpuCollider> {
    common::gpu("collide-gpu mesh tests")
}

use common::Rng;

/// A star (concave) or a regular polygon (convex) about the origin.
fn polygon(rng: &mut Rng) -> Vec<Vec2> {
    let points = 3 + (rng.unit() * 9.0) as usize;
    let star = rng.unit() < 0.6;
    let outer = 4.0 + rng.unit() * 12.0;
    let inner = outer * (0.25 + rng.unit() * 0.6);
    let n = if star { 2 * points } else { points };
    (0..n)
        .map(|k| {
            let a = k as f64 * std::f64::consts::TAU / n as f64;
            let r = if star && k % 2 == 1 { inner } else { outer };
            Vec2::new((r * a.cos()) as f32, (r * a.sin()) as f32)
        })
        .collect()
}

/// How sure the CPU is of one pixel.
#[derive(Clone, Copy, PartialEq)]
enum Cover {
    Out,
    Unsure,
    In,
}

/// Each pixel of `rect` (`[x0, y0, x1, y1)`) classified against placed
/// triangles: in or out when its centre is farther than `band` pixels
/// from every edge that could decide it.
fn classify(triangles: &[[[f64; 2]; 3]], rect: [i64; 4], band: f64) -> Vec<Cover> {
    let (w, h) = ((rect[2] - rect[0]) as usize, (rect[3] - rect[1]) as usize);
    let mut out = vec![Cover::Out; w * h];
    for t in triangles {
        let [a, b, c] = *t;
        let area = (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]);
        if area.abs() < 1e-12 {
            continue;
        }
        let [a, b, c] = if area > 0.0 { [a, b, c] } else { [a, c, b] };
        let lo_x = (a[0].min(b[0]).min(c[0]) - 1.0).floor() as i64;
        let hi_x = (a[0].max(b[0]).max(c[0]) + 1.0).ceil() as i64;
        let lo_y = (a[1].min(b[1]).min(c[1]) - 1.0).floor() as i64;
        let hi_y = (a[1].max(b[1]).max(c[1]) + 1.0).ceil() as i64;
        for y in lo_y.max(rect[1])..hi_y.min(rect[3]) {
            for x in lo_x.max(rect[0])..hi_x.min(rect[2]) {
                let p = [x as f64 + 0.5, y as f64 + 0.5];
                let mut inside = true;
                let mut sure = true;
                for (e0, e1) in [(a, b), (b, c), (c, a)] {
                    let (dx, dy) = (e1[0] - e0[0], e1[1] - e0[1]);
                    let dist = (dx * (p[1] - e0[1]) - dy * (p[0] - e0[0])) / dx.hypot(dy);
                    if dist < -band {
                        inside = false;
                        sure = true;
                        break;
                    }
                    if dist <= band {
                        sure = false;
                    }
                }
                let here = if !inside {
                    Cover::Out
                } else if sure {
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

/// The shared pixels' count bounds `[surely, possibly]`, and the CPU
/// rasteriser's own count (the top-left rule, no band).
fn oracle(a: &[[[f64; 2]; 3]], b: &[[[f64; 2]; 3]]) -> (u64, u64, u64) {
    let bounds = |ts: &[[[f64; 2]; 3]]| {
        ts.iter()
            .flatten()
            .fold([f64::MAX, f64::MAX, f64::MIN, f64::MIN], |r, p| {
                [
                    r[0].min(p[0]),
                    r[1].min(p[1]),
                    r[2].max(p[0]),
                    r[3].max(p[1]),
                ]
            })
    };
    let (ba, bb) = (bounds(a), bounds(b));
    let rect = [
        ba[0].max(bb[0]).floor() as i64 - 1,
        ba[1].max(bb[1]).floor() as i64 - 1,
        ba[2].min(bb[2]).ceil() as i64 + 1,
        ba[3].min(bb[3]).ceil() as i64 + 1,
    ];
    if rect[0] >= rect[2] || rect[1] >= rect[3] {
        return (0, 0, 0);
    }
    // The GPU snaps to 1/256 pixel; its f32 transform is within 1e-4 here.
    let band = 1.0 / 64.0;
    let (ca, cb) = (classify(a, rect, band), classify(b, rect, band));
    let surely = ca
        .iter()
        .zip(&cb)
        .filter(|(x, y)| **x == Cover::In && **y == Cover::In)
        .count();
    let possibly = ca
        .iter()
        .zip(&cb)
        .filter(|(x, y)| **x != Cover::Out && **y != Cover::Out)
        .count();
    // The rasteriser on the same window (moved to the origin).
    let shift = |ts: &[[[f64; 2]; 3]]| -> Vec<[[f64; 2]; 3]> {
        ts.iter()
            .map(|t| t.map(|p| [p[0] - rect[0] as f64, p[1] - rect[1] as f64]))
            .collect()
    };
    let (w, h) = ((rect[2] - rect[0]) as usize, (rect[3] - rect[1]) as usize);
    let ma = rasterize(w, h, shift(a)).unwrap();
    let mb = rasterize(w, h, shift(b)).unwrap();
    (surely as u64, possibly as u64, ma.overlap_area(&mb, 0, 0))
}

#[test]
fn random_polygon_pairs_agree_with_the_cpu_rasteriser() {
    let Some(mut g) = gpu() else { return };
    let mut rng = Rng(37);
    let meshes: Vec<MeshId> = (0..64)
        .map(|_| g.add_polygon(&polygon(&mut rng)).unwrap())
        .collect();
    let mut pairs = Vec::new();
    for _ in 0..10_000 {
        let pick = |rng: &mut Rng| meshes[(rng.unit() * meshes.len() as f64) as usize];
        let place = |rng: &mut Rng| MeshPlacement {
            x: (100.0 + rng.unit() * 30.0) as f32,
            y: (100.0 + rng.unit() * 30.0) as f32,
            angle: (rng.unit() * std::f64::consts::TAU) as f32,
            scale: (0.5 + rng.unit() * 1.5) as f32,
            layer: 0,
        };
        pairs.push(MeshPair {
            a: pick(&mut rng),
            at_a: place(&mut rng),
            b: pick(&mut rng),
            at_b: place(&mut rng),
        });
    }
    let hits = g.test_mesh_pairs_on(&pairs, PathChoice::Gpu).unwrap();
    let cpu_hits = g.test_mesh_pairs_on(&pairs, PathChoice::Cpu).unwrap();
    let (mut touching, mut apart, mut unsure) = (0, 0, 0);
    for (k, (pair, hit)) in pairs.iter().zip(&hits).enumerate() {
        let ta = g.placed_triangles(pair.a, pair.at_a).unwrap();
        let tb = g.placed_triangles(pair.b, pair.at_b).unwrap();
        let (surely, possibly, cpu) = oracle(&ta, &tb);
        assert!(
            (surely..=possibly).contains(&cpu),
            "pair {k}: the CPU rasteriser's {cpu} is outside {surely}..={possibly}"
        );
        // The CPU path is that rasteriser, its count exact.
        assert_eq!(cpu_hits[k].query, cpu, "pair {k}: the CPU path");
        assert!(matches!(
            cpu_hits[k].path,
            Path::CpuRaster | Path::BoundingBoxes
        ));
        match common::judge(k, hit, surely, possibly, g.occlusion()) {
            common::Bounds::Touching => touching += 1,
            common::Bounds::Apart => apart += 1,
            common::Bounds::AtTheBand => unsure += 1,
        }
    }
    eprintln!(
        "10,000 pairs: {touching} touching, {apart} apart, {unsure} decided by edge pixels alone"
    );
    assert!(
        touching > 1000 && apart > 1000,
        "the pairs should test both answers"
    );
}

/// A concave L with a square in its notch: the boxes meet, the shapes
/// do not; squares sharing an edge share no pixel; layers never meet.
#[test]
fn concave_shapes_edges_and_layers() {
    let Some(mut g) = gpu() else { return };
    let v = |pts: &[(f32, f32)]| {
        pts.iter()
            .map(|&(x, y)| Vec2::new(x, y))
            .collect::<Vec<_>>()
    };
    let l = g
        .add_polygon(&v(&[
            (0.0, 0.0),
            (30.0, 0.0),
            (30.0, 10.0),
            (10.0, 10.0),
            (10.0, 30.0),
            (0.0, 30.0),
        ]))
        .unwrap();
    let square = g
        .add_polygon(&v(&[(0.0, 0.0), (10.0, 0.0), (10.0, 10.0), (0.0, 10.0)]))
        .unwrap();
    let at = MeshPlacement::at;
    let pair = |a, at_a, b, at_b| MeshPair { a, at_a, b, at_b };
    let hits = g
        .test_mesh_pairs_on(
            &[
                pair(l, at(50.0, 50.0), square, at(65.0, 65.0)),
                pair(l, at(50.0, 50.0), square, at(55.0, 55.0)),
                pair(square, at(50.0, 50.0), square, at(60.0, 50.0)),
                pair(square, at(50.0, 50.0), square, at(59.0, 50.0)),
                pair(
                    square,
                    at(50.0, 50.0),
                    square,
                    MeshPlacement {
                        layer: 1,
                        ..at(52.0, 52.0)
                    },
                ),
                pair(square, at(50.0, 50.0), square, at(300.0, 300.0)),
            ],
            PathChoice::Gpu,
        )
        .unwrap();
    let got: Vec<bool> = hits.iter().map(|h| h.hit).collect();
    assert_eq!(got, [false, true, false, true, false, false]);
    if g.occlusion() == Occlusion::SampleCount {
        assert_eq!(hits[1].query, 75);
        assert_eq!(hits[3].query, 10);
    }
    assert_eq!(hits[5].path, collide_gpu::Path::BoundingBoxes);
}

#[test]
fn bad_meshes_are_refused_with_what_was_wrong() {
    let Some(mut g) = gpu() else { return };
    let e = g
        .add_mesh(&[[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]], &[[0, 1, 3]])
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "bad mesh: triangle 0 uses vertex 3; there are 3"
    );
    let e = g
        .add_mesh(&[[0.0, f32::NAN], [1.0, 0.0], [0.0, 1.0]], &[[0, 1, 2]])
        .unwrap_err();
    assert!(e.to_string().contains("vertex 0 is not finite"), "{e}");
    let bow_tie =
        [(0.0, 0.0), (10.0, 10.0), (10.0, 0.0), (0.0, 10.0)].map(|(x, y)| Vec2::new(x, y));
    assert!(matches!(g.add_polygon(&bow_tie), Err(GpuError::Polygon(_))));
    let m = g
        .add_mesh(&[[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]], &[[0, 1, 2]])
        .unwrap();
    let bad = MeshPlacement {
        scale: 0.0,
        ..MeshPlacement::at(5.0, 5.0)
    };
    assert!(matches!(
        g.test_mesh_pairs(&[MeshPair {
            a: m,
            at_a: bad,
            b: m,
            at_b: bad
        }]),
        Err(GpuError::BadPlacement { .. })
    ));
}

/// The cost model: calibrated on this machine, it picks a path per batch;
/// told that one path is free, it takes that one; asked, either path gives
/// the same answers.
#[test]
fn the_cost_model_picks_a_path_per_batch() {
    let Some(mut g) = gpu() else { return };
    let costs = g.calibrate_mesh_costs().unwrap();
    for c in [
        costs.gpu_batch,
        costs.gpu_pair,
        costs.gpu_triangle,
        costs.cpu_pair,
        costs.cpu_triangle,
        costs.cpu_pixel,
    ] {
        assert!(c.is_finite() && c >= 0.0, "{costs:?}");
    }
    eprintln!("calibrated on {}: {costs:?}", g.adapter());
    let mut rng = Rng(5);
    let meshes: Vec<MeshId> = (0..8)
        .map(|_| g.add_polygon(&polygon(&mut rng)).unwrap())
        .collect();
    let pairs: Vec<MeshPair> = (0..200)
        .map(|k| MeshPair {
            a: meshes[k % 8],
            at_a: MeshPlacement::at(100.0, 100.0),
            b: meshes[(k * 3 + 1) % 8],
            at_b: MeshPlacement {
                angle: k as f32 * 0.05,
                ..MeshPlacement::at(100.0 + (k % 20) as f32, 100.0)
            },
        })
        .collect();
    let free_gpu = MeshCosts {
        gpu_batch: 0.0,
        gpu_pair: 0.0,
        gpu_triangle: 0.0,
        cpu_pair: 1.0,
        ..costs
    };
    g.set_mesh_costs(free_gpu);
    let on_gpu = g.test_mesh_pairs(&pairs).unwrap();
    assert!(
        on_gpu
            .iter()
            .all(|h| matches!(h.path, Path::Occlusion(_) | Path::BoundingBoxes))
    );
    let free_cpu = MeshCosts {
        cpu_pair: 0.0,
        cpu_triangle: 0.0,
        cpu_pixel: 0.0,
        gpu_pair: 1.0,
        ..costs
    };
    g.set_mesh_costs(free_cpu);
    let on_cpu = g.test_mesh_pairs(&pairs).unwrap();
    assert!(on_cpu.iter().any(|h| h.path == Path::CpuRaster));
    let differ = on_gpu
        .iter()
        .zip(&on_cpu)
        .filter(|(a, b)| a.hit != b.hit)
        .count();
    assert!(
        differ <= 2,
        "{differ} of 200 answers differ between the paths (edge pixels only)"
    );
    // Without occlusion queries even a GPU request is answered on the CPU,
    // and says so.
    g.set_occlusion_queries(false);
    let fallback = g.test_mesh_pairs_on(&pairs, PathChoice::Gpu).unwrap();
    assert!(
        fallback
            .iter()
            .all(|h| matches!(h.path, Path::CpuRaster | Path::BoundingBoxes))
    );
    assert_eq!(fallback, on_cpu);
    g.set_occlusion_queries(true);
    // A single small pair: the calibrated model prefers the CPU (a
    // submission costs more than rasterising a few hundred pixels).
    g.set_mesh_costs(costs);
    let one = g.test_mesh_pairs(&pairs[..1]).unwrap();
    eprintln!("one pair went to {:?}", one[0].path);
}

/// At half and quarter resolution the same overlap covers a quarter and a
/// sixteenth of the pixels; 3-D pairs shrink with their viewport.
#[test]
fn a_lower_resolution_draws_fewer_pixels() {
    let Some(mut g) = gpu() else { return };
    let square = g
        .add_polygon(
            &[(0.0, 0.0), (40.0, 0.0), (40.0, 40.0), (0.0, 40.0)].map(|(x, y)| Vec2::new(x, y)),
        )
        .unwrap();
    let pair = MeshPair {
        a: square,
        at_a: MeshPlacement::at(100.0, 100.0),
        b: square,
        at_b: MeshPlacement::at(120.0, 120.0),
    };
    let mut counts = Vec::new();
    for r in [
        collide_gpu::Resolution::Full,
        collide_gpu::Resolution::Half,
        collide_gpu::Resolution::Quarter,
    ] {
        g.set_resolution(r);
        for path in [PathChoice::Gpu, PathChoice::Cpu] {
            let h = g.test_mesh_pairs_on(&[pair], path).unwrap()[0];
            assert!(h.hit);
            if path == PathChoice::Cpu || g.occlusion() == Occlusion::SampleCount {
                counts.push(h.query);
            }
        }
    }
    assert!(
        counts
            .chunks(counts.len() / 3)
            .zip([400, 100, 25])
            .all(|(c, want)| c.iter().all(|&n| n == want)),
        "{counts:?}"
    );
}

/// The group test (one mesh in the stencil, each candidate in its own
/// query) and the asynchronous pairs give the answers the CPU allows.
#[test]
fn groups_and_later_answers_agree_with_the_cpu() {
    let Some(mut g) = gpu() else { return };
    let mut rng = Rng(21);
    let pool: Vec<MeshId> = (0..16)
        .map(|_| g.add_polygon(&polygon(&mut rng)).unwrap())
        .collect();
    let boss = g
        .add_polygon(
            &[
                (0.0, 0.0),
                (60.0, 0.0),
                (60.0, 20.0),
                (20.0, 20.0),
                (20.0, 60.0),
                (0.0, 60.0),
            ]
            .map(|(x, y)| Vec2::new(x, y)),
        )
        .unwrap();
    let at = MeshPlacement {
        angle: 0.3,
        ..MeshPlacement::at(200.0, 200.0)
    };
    let others: Vec<(MeshId, MeshPlacement)> = (0..600)
        .map(|_| {
            let id = pool[(rng.unit() * 16.0) as usize];
            (
                id,
                MeshPlacement {
                    angle: (rng.unit() * 6.0) as f32,
                    ..MeshPlacement::at(
                        (170.0 + rng.unit() * 100.0) as f32,
                        (170.0 + rng.unit() * 100.0) as f32,
                    )
                },
            )
        })
        .collect();
    let group = g.test_mesh_group(boss, at, &others).unwrap();
    let boss_triangles = g.placed_triangles(boss, at).unwrap();
    let mut touching = 0;
    for (k, (&(id, p), hit)) in others.iter().zip(&group).enumerate() {
        let (surely, possibly, _) = oracle(&boss_triangles, &g.placed_triangles(id, p).unwrap());
        if surely > 0 {
            assert!(
                hit.hit,
                "candidate {k}: {surely} sure pixels, the group test saw none"
            );
            touching += 1;
        } else if possibly == 0 {
            assert!(
                !hit.hit,
                "candidate {k}: the group test saw a hit with nothing shared"
            );
        }
    }
    assert!(touching > 50 && touching < 550, "{touching} of 600 touch");
    // Later answers: the same queries as the waiting path, read when back.
    let pairs: Vec<MeshPair> = others
        .iter()
        .map(|&(b, at_b)| MeshPair {
            a: boss,
            at_a: at,
            b,
            at_b,
        })
        .collect();
    let now = g.test_mesh_pairs_on(&pairs, PathChoice::Gpu).unwrap();
    let mut pending = g.submit_mesh_pairs(&pairs).unwrap();
    let later = loop {
        if let Some(h) = pending.try_take(&g).unwrap() {
            break h;
        }
        std::thread::sleep(std::time::Duration::from_millis(1));
    };
    let same = now
        .iter()
        .zip(&later)
        .filter(|(a, b)| a.hit == b.hit)
        .count();
    assert_eq!(
        same,
        pairs.len(),
        "later answers differ from the waiting path's"
    );
    assert!(
        g.submit_mesh_pairs(&[])
            .unwrap()
            .wait(&g)
            .unwrap()
            .is_empty()
    );
}

/// Normal mode draws exactly what collides: a turned star's painted pixels
/// are the CPU rasteriser's (but for centres on an edge), an L's its area.
#[test]
fn normal_mode_draws_what_collides() {
    let Some(mut g) = gpu() else { return };
    let l = g
        .add_polygon(
            &[
                (0.0, 0.0),
                (30.0, 0.0),
                (30.0, 10.0),
                (10.0, 10.0),
                (10.0, 30.0),
                (0.0, 30.0),
            ]
            .map(|(x, y)| Vec2::new(x, y)),
        )
        .unwrap();
    let mut rng = Rng(9);
    let star = g.add_polygon(&polygon(&mut rng)).unwrap();
    let star_at = MeshPlacement {
        angle: 0.7,
        scale: 2.0,
        ..MeshPlacement::at(90.0, 40.0)
    };
    let white = [1.0, 1.0, 1.0, 1.0];
    let image = g
        .render_meshes(
            128,
            80,
            [0.0, 0.0, 0.0, 1.0],
            &[
                (l, MeshPlacement::at(5.0, 5.0), white),
                (star, star_at, white),
            ],
        )
        .unwrap();
    let lit = |x0: usize, x1: usize| {
        (0..80)
            .flat_map(|y| (x0..x1).map(move |x| (x, y)))
            .filter(|&(x, y)| image[(y * 128 + x) * 4] > 128)
            .count() as u64
    };
    assert_eq!(lit(0, 50), 500, "the L's area");
    let (surely, possibly, cpu) = oracle(
        &g.placed_triangles(star, star_at).unwrap(),
        &g.placed_triangles(star, star_at).unwrap(),
    );
    let star_pixels = lit(50, 128);
    assert!(
        (surely..=possibly).contains(&star_pixels),
        "{star_pixels} painted, the CPU {surely}..={possibly} ({cpu})"
    );
}
