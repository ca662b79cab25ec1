#![allow(clippy::unwrap_used, clippy::expect_used)]
//! The two paths for sprites and the cost model between them: the CPU
//! masks give the exact count of `Mask::rotated`'s rule (per-draw alpha
//! thresholds and layers too), agree with the GPU's queries, refuse what
//! the GPU path refuses, and the model sends each batch where its costs
//! say. Runs on whatever adapter wgpu finds (lavapipe in CI).

mod common;

use collide::mask::Mask;
use collide_gpu::{
    GpuCollider, GpuError, Hit, Pair, Path, PathChoice, Placement, SpriteCosts, SpriteId,
};

fn gpu() -> Option<GpuCollider> {
    common::gpu("sprite path tests")
}

use common::Rng;

/// A sprite's width, height and alpha channel.
type Alpha = (usize, usize, Vec<u8>);

/// An alpha channel: a disc fading out, with noise (so every threshold
/// keeps a different shape).
fn alpha(rng: &mut Rng) -> Alpha {
    let (w, h) = (6 + rng.below(50) as usize, 6 + rng.below(50) as usize);
    let (cx, cy) = (w as f64 / 2.0, h as f64 / 2.0);
    let r = cx.min(cy);
    let a = (0..w * h)
        .map(|i| {
            let (x, y) = ((i % w) as f64 + 0.5, (i / w) as f64 + 0.5);
            let d = ((x - cx).powi(2) + (y - cy).powi(2)).sqrt() / r;
            let v = 255.0 * (1.0 - d) + rng.unit() * 60.0 - 30.0;
            v.clamp(0.0, 255.0) as u8
        })
        .collect();
    (w, h, a)
}

/// The oracle: the alpha thresholded, both masks turned by
/// `Mask::rotated`, ANDed; 0 across layers.
fn oracle(sprites: &[Alpha], ids: &[SpriteId], p: &Pair) -> u64 {
    if p.at_a.layer != p.at_b.layer {
        return 0;
    }
    let place = |id: SpriteId, at: Placement| {
        let (w, h, a) = &sprites[ids.iter().position(|&i| i == id).unwrap()];
        let m = Mask::from_alpha(*w, *h, a, 1, 0, at.threshold).unwrap();
        let (m, (dx, dy)) = m.rotated(f64::from(at.angle), f64::from(at.scale)).unwrap();
        (m, i64::from(at.x) + dx, i64::from(at.y) + dy)
    };
    let (ma, ax, ay) = place(p.a, p.at_a);
    let (mb, bx, by) = place(p.b, p.at_b);
    ma.overlap_area(&mb, bx - ax, by - ay)
}

fn random_pairs(rng: &mut Rng, ids: &[SpriteId], n: usize) -> Vec<Pair> {
    (0..n)
        .map(|_| {
            let place = |rng: &mut Rng, x: i32, y: i32| {
                let turned = rng.below(2) == 0;
                Placement {
                    x,
                    y,
                    angle: if turned {
                        (rng.unit() * 7.0 - 3.5) as f32
                    } else {
                        0.0
                    },
                    scale: if turned {
                        (0.5 + rng.unit() * 1.5) as f32
                    } else {
                        1.0
                    },
                    layer: u8::from(rng.below(8) == 0),
                    threshold: [0u8, 60, 127, 127, 127, 200, 254][rng.below(7) as usize],
                }
            };
            let (x, y) = (rng.below(200) as i32 - 100, rng.below(200) as i32 - 100);
            let at_a = place(rng, x, y);
            let (ox, oy) = (rng.below(60) as i32 - 30, rng.below(60) as i32 - 30);
            let at_b = place(rng, x + ox, y + oy);
            let a = ids[rng.below(ids.len() as u64) as usize];
            let b = ids[rng.below(ids.len() as u64) as usize];
            Pair { a, at_a, b, at_b }
        })
        .collect()
}

fn setup(gpu: &mut GpuCollider, rng: &mut Rng) -> (Vec<Alpha>, Vec<SpriteId>) {
    let mut sprites: Vec<Alpha> = (0..24).map(|_| alpha(rng)).collect();
    // Masks too (only 0 and 255).
    for _ in 0..8 {
        let (w, h, a) = alpha(rng);
        sprites.push((
            w,
            h,
            a.iter().map(|&v| if v > 127 { 255 } else { 0 }).collect(),
        ));
    }
    let ids = sprites
        .iter()
        .map(|(w, h, a)| gpu.add_alpha_sprite(*w, *h, a).unwrap())
        .collect();
    (sprites, ids)
}

/// The CPU path's counts are the oracle's, exactly, on turned, scaled,
/// alpha-tested and layered pairs; its yes/no is the GPU's but where a
/// pixel centre lies within float error of a texel edge (the GPU maps in
/// f32).
#[test]
fn the_cpu_masks_count_exactly_and_agree_with_the_queries() {
    let Some(mut gpu) = gpu() else { return };
    let mut rng = Rng(41);
    let (sprites, ids) = setup(&mut gpu, &mut rng);
    let pairs = random_pairs(&mut rng, &ids, 4000);
    let on_cpu = gpu.test_pairs_on(&pairs, PathChoice::Cpu).unwrap();
    let on_gpu = gpu.test_pairs_on(&pairs, PathChoice::Gpu).unwrap();
    let (mut touching, mut differ) = (0, 0);
    for (k, p) in pairs.iter().enumerate() {
        let want = oracle(&sprites, &ids, p);
        let h = on_cpu[k];
        assert_eq!(h.query, want, "pair {k} {p:?}: {h:?}");
        assert_eq!(h.hit, want > 0);
        assert!(
            matches!(h.path, Path::CpuMasks | Path::BoundingBoxes),
            "pair {k}: {h:?}"
        );
        assert!(matches!(
            on_gpu[k].path,
            Path::Occlusion(_) | Path::BoundingBoxes
        ));
        touching += usize::from(want > 0);
        differ += usize::from(on_gpu[k].hit != h.hit);
    }
    eprintln!(
        "{} pairs, {touching} touch; GPU and CPU yes/no differ in {differ}",
        pairs.len()
    );
    assert!(touching > pairs.len() / 10 && touching < pairs.len() * 9 / 10);
    assert!(differ * 1000 <= pairs.len(), "{differ} answers differ");
}

/// One against many on the CPU: the pairwise oracle's counts, and the
/// GPU group test's answers.
#[test]
fn a_group_on_the_cpu_matches_the_pairs() {
    let Some(mut gpu) = gpu() else { return };
    let mut rng = Rng(43);
    let (sprites, ids) = setup(&mut gpu, &mut rng);
    let pairs = random_pairs(&mut rng, &ids, 1500);
    // One first sprite for all: pair 0's.
    let (first, at) = (pairs[0].a, pairs[0].at_a);
    let others: Vec<(SpriteId, Placement)> = pairs
        .iter()
        .map(|p| {
            (
                p.b,
                Placement {
                    x: at.x + (p.at_b.x - p.at_a.x),
                    y: at.y + (p.at_b.y - p.at_a.y),
                    ..p.at_b
                },
            )
        })
        .collect();
    let on_cpu = gpu
        .test_group_on(first, at, &others, PathChoice::Cpu)
        .unwrap();
    let on_gpu = gpu
        .test_group_on(first, at, &others, PathChoice::Gpu)
        .unwrap();
    let mut differ = 0;
    for (k, &(id, p)) in others.iter().enumerate() {
        let pair = Pair {
            a: first,
            at_a: at,
            b: id,
            at_b: p,
        };
        assert_eq!(
            on_cpu[k].query,
            oracle(&sprites, &ids, &pair),
            "candidate {k}"
        );
        differ += usize::from(on_cpu[k].hit != on_gpu[k].hit);
    }
    assert!(on_cpu.iter().filter(|h| h.hit).count() > 20);
    assert!(differ * 500 <= others.len(), "{differ} answers differ");
}

/// Told that one path is free, the model takes it, for pairs and for
/// groups; with this adapter's starting figures it sends unturned pairs
/// to the CPU masks when the adapter is a software one.
#[test]
fn the_model_sends_each_batch_where_its_costs_say() {
    let Some(mut gpu) = gpu() else { return };
    let mut rng = Rng(47);
    let (_, ids) = setup(&mut gpu, &mut rng);
    let pairs = random_pairs(&mut rng, &ids, 300);
    let started = gpu.sprite_costs();
    let paths = |hits: &[Hit]| -> Vec<Path> {
        let mut p: Vec<Path> = hits
            .iter()
            .map(|h| h.path)
            .filter(|p| *p != Path::BoundingBoxes)
            .collect();
        p.dedup();
        p
    };
    let free_gpu = SpriteCosts {
        gpu_batch: 0.0,
        gpu_pair: 0.0,
        gpu_member: 0.0,
        cpu_pair: 1.0,
        ..started
    };
    gpu.set_sprite_costs(free_gpu);
    let hits = gpu.test_pairs(&pairs).unwrap();
    assert!(
        matches!(paths(&hits)[..], [Path::Occlusion(_)]),
        "{:?}",
        paths(&hits)
    );
    let others: Vec<(SpriteId, Placement)> = pairs.iter().map(|p| (p.b, p.at_b)).collect();
    let group = gpu.test_group(pairs[0].a, pairs[0].at_a, &others).unwrap();
    assert!(matches!(paths(&group)[..], [Path::Occlusion(_)]));
    let free_cpu = SpriteCosts {
        gpu_batch: 1.0,
        cpu_pair: 0.0,
        cpu_pixel: 0.0,
        cpu_turned_pixel: 0.0,
        ..started
    };
    gpu.set_sprite_costs(free_cpu);
    assert_eq!(paths(&gpu.test_pairs(&pairs).unwrap()), [Path::CpuMasks]);
    assert_eq!(
        paths(&gpu.test_group(pairs[0].a, pairs[0].at_a, &others).unwrap()),
        [Path::CpuMasks]
    );
    // The starting figures: on a software adapter the CPU masks win for
    // unturned sprites by hundreds of times (the benchmark's table).
    gpu.set_sprite_costs(started);
    if started == SpriteCosts::default_for(true) {
        let unturned: Vec<Pair> = pairs
            .iter()
            .map(|p| Pair {
                at_a: Placement::at(p.at_a.x, p.at_a.y),
                at_b: Placement::at(p.at_b.x, p.at_b.y),
                ..*p
            })
            .collect();
        assert_eq!(paths(&gpu.test_pairs(&unturned).unwrap()), [Path::CpuMasks]);
    }
    // Calibrated here: every coefficient a finite time, none negative.
    let c = gpu.calibrate_sprite_costs().unwrap();
    for v in [
        c.gpu_batch,
        c.gpu_pair,
        c.gpu_member,
        c.cpu_pair,
        c.cpu_pixel,
        c.cpu_turned_pixel,
    ] {
        assert!(v.is_finite() && v >= 0.0, "{c:?}");
    }
    assert!(c.gpu_batch + c.gpu_pair > 0.0, "{c:?}");
    eprintln!("calibrated on {}: {c:?}", gpu.adapter());
    // The calibration's sprites are gone; ours still answer.
    assert_eq!(gpu.test_pairs(&pairs).unwrap().len(), pairs.len());
}

/// Both paths refuse the same input with the same error.
#[test]
fn both_paths_refuse_alike() {
    let Some(mut gpu) = gpu() else { return };
    let id = gpu.add_sprite(&Mask::full(4, 4).unwrap()).unwrap();
    let big = gpu.add_sprite(&Mask::full(400, 400).unwrap()).unwrap();
    let wide = Pair {
        a: big,
        at_a: Placement::at(0, 0),
        b: big,
        at_b: Placement::at(200, 0),
    };
    let nan = Pair {
        a: id,
        at_a: Placement {
            angle: f32::NAN,
            ..Placement::at(0, 0)
        },
        b: id,
        at_b: Placement::at(0, 0),
    };
    for path in [PathChoice::Cpu, PathChoice::Gpu, PathChoice::Auto] {
        assert!(
            matches!(
                gpu.test_pairs_on(&[wide], path),
                Err(GpuError::PairTooLarge { index: 0, .. })
            ),
            "{path:?}"
        );
        assert!(
            matches!(
                gpu.test_pairs_on(&[nan, nan], path),
                Err(GpuError::BadPlacement { index: 0, .. })
            ),
            "{path:?}"
        );
        // Far apart: the boxes settle it on either path.
        let far = Pair {
            at_b: Placement::at(10_000, 0),
            ..wide
        };
        let h = gpu.test_pairs_on(&[far], path).unwrap()[0];
        assert_eq!(h.path, Path::BoundingBoxes);
        let off_target = [(big, Placement::at(300, 0))];
        assert!(
            matches!(
                gpu.test_group_on(big, Placement::at(0, 0), &off_target, path),
                Err(GpuError::PairTooLarge { .. })
            ),
            "{path:?}"
        );
    }
}
