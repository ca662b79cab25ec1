#![allow(clippy::unwrap_used, clippy::expect_used)]
//! The GPU path against collide's CPU masks on random sprite pairs
//! (blobby shapes with holes, turned and scaled, alpha-tested into masks).
//! Runs on whatever adapter wgpu finds (lavapipe in CI). Without one it
//! prints a skip line, and fails when `REQUIRE_GPU=1`.

mod common;

use collide::mask::Mask;
use collide_gpu::{GpuCollider, GpuError, Occlusion, Pair, PathChoice, Placement, SpriteId};

fn gpu() -> Option<GpuCollider> {
    common::gpu("collide-gpu tests")
}

use common::Rng;

/// A blob: a few discs, minus a hole, as an alpha channel thresholded at
/// 127 (the seed's alpha test).
fn sprite(rng: &mut Rng) -> Mask {
    let (w, h) = (4 + rng.below(60) as usize, 4 + rng.below(60) as usize);
    let discs: Vec<(f64, f64, f64)> = (0..1 + rng.below(4))
        .map(|_| {
            (
                rng.unit() * w as f64,
                rng.unit() * h as f64,
                2.0 + rng.unit() * w.min(h) as f64 / 2.0,
            )
        })
        .collect();
    let hole = (
        rng.unit() * w as f64,
        rng.unit() * h as f64,
        rng.unit() * 4.0,
    );
    let mut alpha = vec![0u8; w * h];
    for y in 0..h {
        for x in 0..w {
            let (fx, fy) = (x as f64 + 0.5, y as f64 + 0.5);
            let inside = discs
                .iter()
                .any(|&(cx, cy, r)| (fx - cx).powi(2) + (fy - cy).powi(2) < r * r);
            let in_hole = (fx - hole.0).powi(2) + (fy - hole.1).powi(2) < hole.2 * hole.2;
            alpha[y * w + x] = if inside && !in_hole { 200 } else { 40 };
        }
    }
    Mask::from_alpha(w, h, &alpha, 1, 0, 127).unwrap()
}

/// The CPU's answer: both masks turned by `Mask::rotated`, then overlapped.
fn cpu_area(a: &Mask, pa: Placement, b: &Mask, pb: Placement) -> u64 {
    let (ma, (ax, ay)) = a.rotated(f64::from(pa.angle), f64::from(pa.scale)).unwrap();
    let (mb, (bx, by)) = b.rotated(f64::from(pb.angle), f64::from(pb.scale)).unwrap();
    let dx = (i64::from(pb.x) + bx) - (i64::from(pa.x) + ax);
    let dy = (i64::from(pb.y) + by) - (i64::from(pa.y) + ay);
    ma.overlap_area(&mb, dx, dy)
}

fn random_pairs(
    rng: &mut Rng,
    masks: &[Mask],
    ids: &[SpriteId],
    n: usize,
    turned: bool,
) -> Vec<Pair> {
    (0..n)
        .map(|_| {
            let (ia, ib) = (
                rng.below(masks.len() as u64) as usize,
                rng.below(masks.len() as u64) as usize,
            );
            let place = |rng: &mut Rng, x: i32, y: i32| {
                if turned {
                    Placement {
                        x,
                        y,
                        angle: (rng.unit() * 7.0 - 3.5) as f32,
                        scale: (0.5 + rng.unit() * 1.5) as f32,
                        ..Placement::at(0, 0)
                    }
                } else {
                    Placement::at(x, y)
                }
            };
            let (x, y) = (rng.below(200) as i32 - 100, rng.below(200) as i32 - 100);
            let at_a = place(rng, x, y);
            let (ox, oy) = (rng.below(60) as i32 - 30, rng.below(60) as i32 - 30);
            let at_b = place(rng, at_a.x + ox, at_a.y + oy);
            Pair {
                a: ids[ia],
                at_a,
                b: ids[ib],
                at_b,
            }
        })
        .collect()
}

fn cases() -> usize {
    std::env::var("GPU_PAIRS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(10_000)
}

#[test]
fn unturned_pairs_agree_exactly() {
    let Some(mut gpu) = gpu() else { return };
    let mut rng = Rng(7);
    let masks: Vec<Mask> = (0..64).map(|_| sprite(&mut rng)).collect();
    let ids: Vec<SpriteId> = masks.iter().map(|m| gpu.add_sprite(m).unwrap()).collect();
    let pairs = random_pairs(&mut rng, &masks, &ids, cases(), false);
    let hits = gpu.test_pairs_on(&pairs, PathChoice::Gpu).unwrap();
    let counts = gpu.count_pairs(&pairs).unwrap();
    let mut touching = 0;
    for (k, p) in pairs.iter().enumerate() {
        let (a, b) = (
            &masks[ids.iter().position(|&i| i == p.a).unwrap()],
            &masks[ids.iter().position(|&i| i == p.b).unwrap()],
        );
        let area = cpu_area(a, p.at_a, b, p.at_b);
        touching += usize::from(area > 0);
        assert_eq!(
            hits[k].hit,
            area > 0,
            "pair {k}: GPU says {:?}, CPU area {area}",
            hits[k]
        );
        assert_eq!(counts[k], area, "pair {k}: exact count");
        if gpu.occlusion() == Occlusion::SampleCount && gpu.adapter().contains("llvmpipe") {
            // Lavapipe's queries count every sample.
            assert_eq!(hits[k].query, area, "pair {k}: lavapipe's occlusion count");
        }
        if gpu.occlusion() == Occlusion::AnySamplesPassed {
            // GL: "any samples passed", a boolean.
            assert!(
                hits[k].query <= 1,
                "pair {k}: GL query gave {}",
                hits[k].query
            );
        }
    }
    eprintln!("{} unturned pairs agree ({touching} touching)", pairs.len());
    assert!(
        touching > pairs.len() / 10 && touching < pairs.len() * 9 / 10,
        "the pairs should be a mix: {touching} touch"
    );
}

#[test]
fn turned_and_scaled_pairs_agree() {
    let Some(mut gpu) = gpu() else { return };
    let mut rng = Rng(11);
    let masks: Vec<Mask> = (0..64).map(|_| sprite(&mut rng)).collect();
    let ids: Vec<SpriteId> = masks.iter().map(|m| gpu.add_sprite(m).unwrap()).collect();
    let pairs = random_pairs(&mut rng, &masks, &ids, cases(), true);
    let hits = gpu.test_pairs_on(&pairs, PathChoice::Gpu).unwrap();
    let counts = gpu.count_pairs(&pairs).unwrap();
    let (mut yes_no_differ, mut count_differ, mut pixels_off) = (0, 0, 0u64);
    for (k, p) in pairs.iter().enumerate() {
        let (a, b) = (&masks[p_index(&ids, p.a)], &masks[p_index(&ids, p.b)]);
        let area = cpu_area(a, p.at_a, b, p.at_b);
        yes_no_differ += usize::from(hits[k].hit != (area > 0));
        count_differ += usize::from(counts[k] != area);
        pixels_off += counts[k].abs_diff(area);
    }
    eprintln!(
        "{} turned pairs: yes/no differs in {yes_no_differ}, exact counts in {count_differ} ({pixels_off} pixels in all)",
        pairs.len()
    );
    // The GPU maps pixel centres in f32, the CPU in f64: a centre within
    // ~1e-5 px of a texel edge can fall on either side. That may move a
    // pixel, never a whole overlap.
    assert!(
        yes_no_differ * 1000 <= pairs.len(),
        "{yes_no_differ} yes/no answers differ"
    );
    assert!(
        pixels_off as usize * 200 <= pairs.len(),
        "{pixels_off} pixels differ"
    );
}

fn p_index(ids: &[SpriteId], id: SpriteId) -> usize {
    ids.iter().position(|&i| i == id).unwrap()
}

/// The seed's OpenGL note: two objects drawn in one batch with different
/// parameters must not come out the same (parameters are copied per draw).
#[test]
fn per_draw_parameters_are_not_shared() {
    let Some(mut gpu) = gpu() else { return };
    let square = Mask::full(10, 10).unwrap();
    let id = gpu.add_sprite(&square).unwrap();
    let pairs = [
        Pair {
            a: id,
            at_a: Placement::at(0, 0),
            b: id,
            at_b: Placement::at(5, 5),
        },
        Pair {
            a: id,
            at_a: Placement::at(0, 0),
            b: id,
            at_b: Placement::at(30, 0),
        },
        Pair {
            a: id,
            at_a: Placement::at(0, 0),
            b: id,
            at_b: Placement::at(9, 9),
        },
    ];
    let hits = gpu.test_pairs_on(&pairs, PathChoice::Gpu).unwrap();
    assert_eq!(
        hits.iter().map(|h| h.hit).collect::<Vec<_>>(),
        [true, false, true]
    );
    assert_eq!(gpu.count_pairs(&pairs).unwrap(), [25, 0, 1]);
}

#[test]
fn bad_input_is_an_error() {
    let Some(mut gpu) = gpu() else { return };
    let id = gpu.add_sprite(&Mask::full(4, 4).unwrap()).unwrap();
    // Far apart: the bounding boxes settle it, nothing is drawn.
    let far = Pair {
        a: id,
        at_a: Placement::at(0, 0),
        b: id,
        at_b: Placement::at(10_000, 0),
    };
    assert!(!gpu.test_pairs_on(&[far], PathChoice::Gpu).unwrap()[0].hit);
    // Overlapping but wider together than the 512-pixel target.
    let big = gpu.add_sprite(&Mask::full(400, 400).unwrap()).unwrap();
    let wide = Pair {
        a: big,
        at_a: Placement::at(0, 0),
        b: big,
        at_b: Placement::at(200, 0),
    };
    assert!(matches!(
        gpu.test_pairs_on(&[wide], PathChoice::Gpu),
        Err(GpuError::PairTooLarge { .. })
    ));
    let nan = Pair {
        a: id,
        at_a: Placement {
            x: 0,
            y: 0,
            angle: f32::NAN,
            scale: 1.0,
            ..Placement::at(0, 0)
        },
        b: id,
        at_b: Placement::at(0, 0),
    };
    assert!(matches!(
        gpu.count_pairs(&[nan]),
        Err(GpuError::BadPlacement { .. })
    ));
    assert!(gpu.add_sprite(&Mask::new(0, 3).unwrap()).is_err());
    let one: Vec<(SpriteId, Placement)> = vec![(id, Placement::at(0, 0))];
    let many: Vec<&[(SpriteId, Placement)]> = vec![one.as_slice(); 4097];
    assert!(matches!(
        gpu.submit_group_tests((id, Placement::at(0, 0)), &many),
        Err(GpuError::TooManyGroups { given: 4097, .. })
    ));
    assert!(matches!(
        gpu.add_alpha_sprite(4, 4, &[0; 15]),
        Err(GpuError::AlphaSize {
            expected: 16,
            got: 15,
            ..
        })
    ));
}

/// The group test (one sprite against many in one pass) gives the pairwise
/// answers.
#[test]
fn group_test_matches_the_cpu() {
    let Some(mut gpu) = gpu() else { return };
    let mut rng = Rng(23);
    let player = sprite(&mut rng);
    let bullets: Vec<Mask> = (0..16).map(|_| sprite(&mut rng)).collect();
    let pid = gpu.add_sprite(&player).unwrap();
    let bids: Vec<SpriteId> = bullets.iter().map(|m| gpu.add_sprite(m).unwrap()).collect();
    let at = Placement {
        x: 100,
        y: 80,
        angle: 0.4,
        scale: 1.3,
        ..Placement::at(0, 0)
    };
    let others: Vec<(SpriteId, Placement)> = (0..3000)
        .map(|_| {
            let i = rng.below(bids.len() as u64) as usize;
            let p = Placement {
                x: 100 + rng.below(140) as i32 - 70,
                y: 80 + rng.below(140) as i32 - 70,
                angle: (rng.unit() * 6.0) as f32,
                scale: (0.5 + rng.unit()) as f32,
                ..Placement::at(0, 0)
            };
            (bids[i], p)
        })
        .collect();
    let hits = gpu
        .test_group_on(pid, at, &others, PathChoice::Gpu)
        .unwrap();
    let mut touching = 0;
    for (k, (&(id, p), h)) in others.iter().zip(&hits).enumerate() {
        let area = cpu_area(&player, at, &bullets[p_index(&bids, id)], p);
        touching += usize::from(area > 0);
        assert_eq!(h.hit, area > 0, "bullet {k}: GPU {h:?}, CPU area {area}");
    }
    eprintln!("group: {} bullets, {touching} hit", others.len());
    assert!(touching > 100);
}

/// The seed's depth ranges: the same sprites on different layers never
/// collide, on either path.
#[test]
fn layers_never_collide() {
    let Some(mut gpu) = gpu() else { return };
    let id = gpu.add_sprite(&Mask::full(10, 10).unwrap()).unwrap();
    let on = |layer| Placement {
        layer,
        ..Placement::at(5, 5)
    };
    let pairs = [
        Pair {
            a: id,
            at_a: Placement::at(0, 0),
            b: id,
            at_b: on(0),
        },
        Pair {
            a: id,
            at_a: Placement::at(0, 0),
            b: id,
            at_b: on(1),
        },
        Pair {
            a: id,
            at_a: Placement {
                layer: 7,
                ..Placement::at(0, 0)
            },
            b: id,
            at_b: on(7),
        },
    ];
    assert_eq!(
        gpu.test_pairs_on(&pairs, PathChoice::Gpu)
            .unwrap()
            .iter()
            .map(|h| h.hit)
            .collect::<Vec<_>>(),
        [true, false, true]
    );
    assert_eq!(gpu.count_pairs(&pairs).unwrap(), [25, 0, 25]);
}

/// Per-draw alpha thresholds on one alpha sprite, in one batch: each draw
/// uses its own (the CPU's `from_alpha` with the same threshold agrees).
#[test]
fn per_draw_thresholds_are_per_draw() {
    let Some(mut gpu) = gpu() else { return };
    let (w, h) = (16usize, 16usize);
    let alpha: Vec<u8> = (0..w * h).map(|i| ((i % w) * 16) as u8).collect();
    let id = gpu.add_alpha_sprite(w, h, &alpha).unwrap();
    let full = gpu.add_sprite(&Mask::full(w, h).unwrap()).unwrap();
    let pairs: Vec<Pair> = [0u8, 50, 127, 200, 239, 240, 255]
        .iter()
        .map(|&t| Pair {
            a: full,
            at_a: Placement::at(0, 0),
            b: id,
            at_b: Placement {
                threshold: t,
                ..Placement::at(0, 0)
            },
        })
        .collect();
    let counts = gpu.count_pairs(&pairs).unwrap();
    let hits = gpu.test_pairs_on(&pairs, PathChoice::Gpu).unwrap();
    for (k, p) in pairs.iter().enumerate() {
        let cpu = Mask::from_alpha(w, h, &alpha, 1, 0, p.at_b.threshold)
            .unwrap()
            .count();
        assert_eq!(counts[k], cpu, "threshold {}", p.at_b.threshold);
        assert_eq!(hits[k].hit, cpu > 0);
        if gpu.occlusion() == Occlusion::SampleCount && gpu.adapter().contains("llvmpipe") {
            assert_eq!(hits[k].query, cpu);
        }
    }
}

/// Normal mode draws exactly the pixels the collision modes test.
#[test]
fn normal_mode_draws_what_collides() {
    let Some(mut gpu) = gpu() else { return };
    let mut rng = Rng(31);
    let masks: Vec<Mask> = (0..6).map(|_| sprite(&mut rng)).collect();
    let ids: Vec<SpriteId> = masks.iter().map(|m| gpu.add_sprite(m).unwrap()).collect();
    let (w, h) = (160u32, 120u32);
    let objects: Vec<(SpriteId, Placement, [f32; 4])> = ids
        .iter()
        .enumerate()
        .map(|(k, &id)| {
            let p = Placement {
                x: rng.below(120) as i32,
                y: rng.below(80) as i32,
                angle: (rng.unit() * 6.0) as f32,
                scale: (0.6 + rng.unit()) as f32,
                ..Placement::at(0, 0)
            };
            (id, p, [(k as f32 + 1.0) / 8.0, 1.0, 0.0, 1.0])
        })
        .collect();
    let image = gpu.render(w, h, [0.0, 0.0, 0.0, 1.0], &objects).unwrap();
    // The CPU's picture: each turned mask painted in order.
    let mut expect = vec![0u8; (w * h) as usize];
    for (k, (_, p, _)) in objects.iter().enumerate() {
        let (m, (ox, oy)) = masks[k]
            .rotated(f64::from(p.angle), f64::from(p.scale))
            .unwrap();
        for y in 0..m.height() {
            for x in 0..m.width() {
                let (px, py) = (
                    i64::from(p.x) + ox + x as i64,
                    i64::from(p.y) + oy + y as i64,
                );
                if m.get(x, y) && px >= 0 && py >= 0 && px < i64::from(w) && py < i64::from(h) {
                    expect[(py as u32 * w + px as u32) as usize] = k as u8 + 1;
                }
            }
        }
    }
    for (i, px) in image.chunks_exact(4).enumerate() {
        let drawn = if px[1] == 0 {
            0
        } else {
            (f32::from(px[0]) / 255.0 * 8.0).round() as u8
        };
        assert_eq!(
            drawn,
            expect[i],
            "pixel ({}, {})",
            i as u32 % w,
            i as u32 / w
        );
    }
}

/// One stencil per group, one query per group, all submitted together and
/// read later: each answer says whether the probe touches any member.
#[test]
fn group_stencils_answer_later() {
    let Some(mut gpu) = gpu() else { return };
    let mut rng = Rng(41);
    let masks: Vec<Mask> = (0..8).map(|_| sprite(&mut rng)).collect();
    let ids: Vec<SpriteId> = masks.iter().map(|m| gpu.add_sprite(m).unwrap()).collect();
    let probe_mask = sprite(&mut rng);
    let probe_id = gpu.add_sprite(&probe_mask).unwrap();
    let probe_at = Placement {
        x: 200,
        y: 200,
        angle: 0.5,
        ..Placement::at(0, 0)
    };
    let groups: Vec<Vec<(usize, Placement)>> = (0..40)
        .map(|_| {
            (0..1 + rng.below(12))
                .map(|_| {
                    let p = Placement {
                        x: 200 + rng.below(160) as i32 - 80,
                        y: 200 + rng.below(160) as i32 - 80,
                        angle: (rng.unit() * 6.0) as f32,
                        layer: u8::from(rng.below(5) == 0),
                        ..Placement::at(0, 0)
                    };
                    (rng.below(8) as usize, p)
                })
                .collect()
        })
        .collect();
    let as_ids: Vec<Vec<(SpriteId, Placement)>> = groups
        .iter()
        .map(|g| g.iter().map(|&(i, p)| (ids[i], p)).collect())
        .collect();
    let refs: Vec<&[(SpriteId, Placement)]> = as_ids.iter().map(Vec::as_slice).collect();
    let mut pending = gpu.submit_group_tests((probe_id, probe_at), &refs).unwrap();
    // The caller carries on; the answers are picked up when they are there.
    let mut polls = 0;
    let hits = loop {
        if let Some(h) = pending.try_take(&gpu).unwrap() {
            break h;
        }
        polls += 1;
        std::thread::sleep(std::time::Duration::from_millis(1));
        assert!(polls < 10_000, "the answers never came");
    };
    let mut touching = 0;
    for (g, group) in groups.iter().enumerate() {
        let cpu = group.iter().any(|&(i, p)| {
            p.layer == probe_at.layer && cpu_area(&probe_mask, probe_at, &masks[i], p) > 0
        });
        touching += usize::from(cpu);
        assert_eq!(hits[g].hit, cpu, "group {g}");
    }
    eprintln!(
        "groups: {} of {} touch the probe ({polls} polls before the answers)",
        touching,
        groups.len()
    );
    assert!(touching > 5 && touching < groups.len());
}

/// With occlusion queries off (an adapter whose queries are missing or not
/// trusted), the same pairs get the same answers through the compute count,
/// and each answer says so.
#[test]
fn without_queries_the_compute_count_answers_the_same() {
    let Some(mut gpu) = gpu() else { return };
    let mut rng = Rng(11);
    let masks: Vec<Mask> = (0..32).map(|_| sprite(&mut rng)).collect();
    let ids: Vec<SpriteId> = masks.iter().map(|m| gpu.add_sprite(m).unwrap()).collect();
    let pairs = random_pairs(&mut rng, &masks, &ids, 2000, true);
    let with = gpu.test_pairs_on(&pairs, PathChoice::Gpu).unwrap();
    gpu.set_occlusion_queries(false);
    let without = gpu.test_pairs_on(&pairs, PathChoice::Gpu).unwrap();
    assert!(
        without
            .iter()
            .all(|h| h.path == collide_gpu::Path::ComputeCount)
    );
    let differ = with
        .iter()
        .zip(&without)
        .filter(|(a, b)| a.hit != b.hit)
        .count();
    // The compute pass and the rasteriser map pixel centres alike; f32
    // rounding may move a pixel in rare pairs.
    assert!(differ <= 2, "{differ} of 2000 answers differ");
}
