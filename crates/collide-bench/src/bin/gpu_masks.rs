//! collide-gpu (stencil + occlusion queries through wgpu) against collide's
//! CPU masks, in one run: pairs per second one query at a time, batched, and
//! as one sprite against 10,000 in one pass.
//!
//! `cargo run --release -p collide-bench --bin gpu_masks`

use std::time::Instant;

use anyhow::{Result, bail};
use collide::mask::Mask;
use collide_gpu::{GpuCollider, Hit, Pair, Path, PathChoice, Placement, SpriteId};

#[path = "../splitmix.rs"]
mod splitmix;
use splitmix::Rng;

fn blob(rng: &mut Rng, size: usize) -> Result<Mask> {
    let discs: Vec<(f64, f64, f64)> = (0..3)
        .map(|_| {
            (
                rng.unit() * size as f64,
                rng.unit() * size as f64,
                3.0 + rng.unit() * size as f64 / 3.0,
            )
        })
        .collect();
    Ok(Mask::from_fn(size, size, |x, y| {
        let (fx, fy) = (x as f64 + 0.5, y as f64 + 0.5);
        discs
            .iter()
            .any(|&(cx, cy, r)| (fx - cx).powi(2) + (fy - cy).powi(2) < r * r)
    })?)
}

fn place(rng: &mut Rng, x: i32, y: i32, turned: bool) -> Placement {
    if turned {
        Placement {
            x,
            y,
            angle: (rng.unit() * 6.3) as f32,
            scale: (0.7 + rng.unit() * 0.6) as f32,
            ..Placement::at(0, 0)
        }
    } else {
        Placement::at(x, y)
    }
}

/// The whole pixels a turned sprite can cover (the grid `Mask::rotated`
/// makes), placed.
fn turned_box(m: &Mask, p: Placement) -> [i64; 4] {
    let (w, h) = (m.width() as f64, m.height() as f64);
    let (s, c) = f64::from(p.angle).sin_cos();
    let k = f64::from(p.scale);
    let (hw, hh) = (
        (w * c.abs() + h * s.abs()) * k / 2.0,
        (w * s.abs() + h * c.abs()) * k / 2.0,
    );
    let (cx, cy) = (f64::from(p.x) + w / 2.0, f64::from(p.y) + h / 2.0);
    [
        (cx - hw).floor() as i64,
        (cy - hh).floor() as i64,
        (cx + hw).ceil() as i64,
        (cy + hh).ceil() as i64,
    ]
}

fn boxes_meet(a: [i64; 4], b: [i64; 4]) -> bool {
    a[0] < b[2] && b[0] < a[2] && a[1] < b[3] && b[1] < a[3]
}

/// The CPU's answer for one pair: bounding boxes first, then the masks
/// (turned first when needed, as a game must every frame).
fn cpu_hit(a: &Mask, pa: Placement, b: &Mask, pb: Placement) -> Result<bool> {
    if !boxes_meet(turned_box(a, pa), turned_box(b, pb)) {
        return Ok(false);
    }
    if pa.angle == 0.0 && pa.scale == 1.0 && pb.angle == 0.0 && pb.scale == 1.0 {
        return Ok(a
            .overlap(b, i64::from(pb.x - pa.x), i64::from(pb.y - pa.y))
            .is_some());
    }
    let (ma, (ax, ay)) = a.rotated(f64::from(pa.angle), f64::from(pa.scale))?;
    let (mb, (bx, by)) = b.rotated(f64::from(pb.angle), f64::from(pb.scale))?;
    Ok(ma
        .overlap(
            &mb,
            i64::from(pb.x) + bx - i64::from(pa.x) - ax,
            i64::from(pb.y) + by - i64::from(pa.y) - ay,
        )
        .is_some())
}

/// Which path the cost model took (the pairs the boxes did not settle).
fn chose(hits: &[Hit]) -> &'static str {
    let (mut gpu, mut cpu) = (false, false);
    for h in hits {
        match h.path {
            Path::Occlusion(_) | Path::ComputeCount => gpu = true,
            Path::CpuMasks | Path::CpuRaster => cpu = true,
            Path::BoundingBoxes => {}
        }
    }
    match (gpu, cpu) {
        (true, false) => "GPU",
        (false, true) => "CPU",
        (true, true) => "both",
        (false, false) => "boxes",
    }
}

fn main() -> Result<()> {
    let mut gpu = match GpuCollider::new(1024) {
        Ok(g) => g,
        Err(e) => bail!("{e}"),
    };
    println!(
        "adapter: {}, occlusion queries give {:?}",
        gpu.adapter(),
        gpu.occlusion()
    );
    let mut rng = Rng(2009);
    let masks: Vec<Mask> = (0..32)
        .map(|i| blob(&mut rng, 32 + (i % 3) * 16))
        .collect::<Result<_>>()?;
    let ids: Vec<SpriteId> = masks
        .iter()
        .map(|m| gpu.add_sprite(m))
        .collect::<Result<_, _>>()?;
    let started = gpu.sprite_costs();
    let costs = gpu.calibrate_sprite_costs()?;
    println!("the cost model's starting figures: {started:?}");
    println!("calibrated here: {costs:?}");
    println!();
    println!(
        "| workload | pairs | GPU µs/pair | CPU µs/pair | GPU time ÷ CPU time | the model chose | its µs/pair | agree |"
    );
    println!("|---|---|---|---|---|---|---|---|");
    for turned in [false, true] {
        let pairs: Vec<(usize, usize, Pair)> = (0..10_000)
            .map(|_| {
                let (ia, ib) = (rng.below(32) as usize, rng.below(32) as usize);
                let at_a = place(&mut rng, 0, 0, turned);
                let (x, y) = (rng.below(80) as i32 - 40, rng.below(80) as i32 - 40);
                let at_b = place(&mut rng, x, y, turned);
                (
                    ia,
                    ib,
                    Pair {
                        a: ids[ia],
                        at_a,
                        b: ids[ib],
                        at_b,
                    },
                )
            })
            .collect();
        let just: Vec<Pair> = pairs.iter().map(|p| p.2).collect();
        let t = Instant::now();
        let cpu: Vec<bool> = pairs
            .iter()
            .map(|&(ia, ib, p)| cpu_hit(&masks[ia], p.at_a, &masks[ib], p.at_b))
            .collect::<Result<_>>()?;
        let cpu_us = t.elapsed().as_secs_f64() * 1e6 / pairs.len() as f64;
        let t = Instant::now();
        let batched = gpu.test_pairs_on(&just, PathChoice::Gpu)?;
        let batch_us = t.elapsed().as_secs_f64() * 1e6 / pairs.len() as f64;
        let t = Instant::now();
        let auto = gpu.test_pairs(&just)?;
        let auto_us = t.elapsed().as_secs_f64() * 1e6 / pairs.len() as f64;
        let agree = batched
            .iter()
            .zip(&cpu)
            .filter(|(g, c)| g.hit == **c)
            .count();
        let kind = if turned {
            "turned and scaled"
        } else {
            "unturned"
        };
        let agree_auto = auto.iter().zip(&cpu).filter(|(g, c)| g.hit == **c).count();
        println!(
            "| batched, {kind} | {} | {batch_us:.2} | {cpu_us:.2} | {:.2} | {} | {auto_us:.2} | GPU {agree}/{n}, model {agree_auto}/{n} |",
            pairs.len(),
            batch_us / cpu_us.max(1e-9),
            chose(&auto),
            n = pairs.len()
        );
        let one = 300;
        let (mut agree_one, mut auto_one, mut one_us) = (0, Vec::new(), 0.0);
        for (k, p) in just.iter().take(one).enumerate() {
            let t = Instant::now();
            agree_one += usize::from(
                gpu.test_pairs_on(std::slice::from_ref(p), PathChoice::Gpu)?[0].hit == cpu[k],
            );
            one_us += t.elapsed().as_secs_f64() * 1e6 / one as f64;
        }
        let t = Instant::now();
        for p in just.iter().take(one) {
            auto_one.push(gpu.test_pairs(std::slice::from_ref(p))?[0]);
        }
        let auto_one_us = t.elapsed().as_secs_f64() * 1e6 / one as f64;
        let agree_auto = auto_one
            .iter()
            .zip(&cpu)
            .filter(|(g, c)| g.hit == **c)
            .count();
        println!(
            "| one per submit, {kind} | {one} | {one_us:.2} | {cpu_us:.2} | {:.2} | {} | {auto_one_us:.2} | GPU {agree_one}/{one}, model {agree_auto}/{one} |",
            one_us / cpu_us.max(1e-9),
            chose(&auto_one),
        );
    }
    // One player against 10,000 bullets around it, one pass.
    let player = blob(&mut rng, 96)?;
    let pid = gpu.add_sprite(&player)?;
    let at = Placement {
        x: 400,
        y: 300,
        angle: 0.3,
        scale: 1.0,
        ..Placement::at(0, 0)
    };
    let bullets: Vec<(usize, Placement)> = (0..10_000)
        .map(|_| {
            let i = rng.below(32) as usize;
            let (x, y) = (
                400 + rng.below(400) as i32 - 200,
                300 + rng.below(400) as i32 - 200,
            );
            (i, place(&mut rng, x, y, true))
        })
        .collect();
    let others: Vec<(SpriteId, Placement)> = bullets.iter().map(|&(i, p)| (ids[i], p)).collect();
    let t = Instant::now();
    let group = gpu.test_group_on(pid, at, &others, PathChoice::Gpu)?;
    let group_us = t.elapsed().as_secs_f64() * 1e6 / others.len() as f64;
    let t = Instant::now();
    let auto = gpu.test_group(pid, at, &others)?;
    let auto_us = t.elapsed().as_secs_f64() * 1e6 / others.len() as f64;
    let t = Instant::now();
    let (pm, (px, py)) = player.rotated(f64::from(at.angle), 1.0)?;
    let pbox = (
        i64::from(at.x) + px,
        i64::from(at.y) + py,
        pm.width() as i64,
        pm.height() as i64,
    );
    let player_box = turned_box(&player, at);
    let mut cpu = Vec::with_capacity(bullets.len());
    for &(i, p) in &bullets {
        if !boxes_meet(player_box, turned_box(&masks[i], p)) {
            cpu.push(false);
            continue;
        }
        let (m, (bx, by)) = masks[i].rotated(f64::from(p.angle), f64::from(p.scale))?;
        let (ox, oy) = (i64::from(p.x) + bx - pbox.0, i64::from(p.y) + by - pbox.1);
        cpu.push(pm.overlap(&m, ox, oy).is_some());
    }
    let cpu_us = t.elapsed().as_secs_f64() * 1e6 / bullets.len() as f64;
    let agree = group.iter().zip(&cpu).filter(|(g, c)| g.hit == **c).count();
    let agree_auto = auto.iter().zip(&cpu).filter(|(g, c)| g.hit == **c).count();
    println!(
        "| 1 player vs 10,000 bullets, one pass | {} | {group_us:.2} | {cpu_us:.2} | {:.2} | {} | {auto_us:.2} | GPU {agree}/{n}, model {agree_auto}/{n} |",
        others.len(),
        group_us / cpu_us.max(1e-9),
        chose(&auto),
        n = others.len()
    );
    Ok(())
}
