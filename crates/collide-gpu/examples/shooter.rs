//! A small shooter scene where the broad phase (collide's `Grid`), the masks
//! and the GPU decide hits: a turning boss with holes in it, a player, and
//! hundreds of bullets. The frame is drawn by the same renderer in normal
//! mode; bullets that hit are marked where they touch (red pixels, from the
//! CPU masks) and then removed. Writes an animated GIF and a strip of
//! frames, and prints per-frame timings.
//!
//! `cargo run --release -p collide-gpu --example shooter -- [OUT.gif]`

use std::time::Instant;

use anyhow::Result;
use collide::mask::Mask;
use collide::{Aabb, BroadPhase, Grid};
use collide_gpu::{GpuCollider, Pair, PathChoice, Placement, SpriteId};
use image::codecs::gif::{GifEncoder, Repeat};
use image::{Delay, Frame, Rgba, RgbaImage};

const W: u32 = 480;
const H: u32 = 320;

struct Thing {
    sprite: usize,
    x: f64,
    y: f64,
    vx: f64,
    vy: f64,
    angle: f64,
    colour: [u8; 4],
}

impl Thing {
    fn placement(&self) -> Placement {
        Placement {
            x: self.x.round() as i32,
            y: self.y.round() as i32,
            angle: self.angle as f32,
            scale: 1.0,
            ..Placement::at(0, 0)
        }
    }
}

/// The boss: a ring with spokes and round holes, 150 × 120.
fn boss() -> Result<Mask> {
    Ok(Mask::from_fn(150, 120, |x, y| {
        let (u, v) = ((x as f64 - 75.0) / 75.0, (y as f64 - 60.0) / 60.0);
        let r = (u * u + v * v).sqrt();
        let a = v.atan2(u);
        let ring = (0.55..0.95).contains(&r);
        let spokes = r < 0.95 && (a * 3.0).sin().abs() < 0.18;
        let core = r < 0.25;
        let holes = ((u - 0.45).powi(2) + v.powi(2)).sqrt() < 0.12
            || ((u + 0.45).powi(2) + v.powi(2)).sqrt() < 0.12;
        (ring || spokes || core) && !holes
    })?)
}

fn ship() -> Result<Mask> {
    Ok(Mask::from_fn(28, 20, |x, y| {
        let (fx, fy) = (x as f64 + 0.5, y as f64 + 0.5 - 10.0);
        fy.abs() < 10.0 * (1.0 - fx / 28.0) && !(fx < 6.0 && fy.abs() < 3.0)
    })?)
}

fn bullet(r: f64) -> Result<Mask> {
    let d = (2.0 * r).ceil() as usize;
    Ok(Mask::from_fn(d, d, |x, y| {
        (x as f64 + 0.5 - r).powi(2) + (y as f64 + 0.5 - r).powi(2) < r * r
    })?)
}

fn main() -> Result<()> {
    let out = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "target/shooter.gif".into());
    let mut gpu = GpuCollider::new(512)?;
    println!("GPU: {}", gpu.adapter());
    let masks = [boss()?, ship()?, bullet(3.0)?, bullet(5.0)?];
    let ids: Vec<SpriteId> = masks
        .iter()
        .map(|m| gpu.add_sprite(m))
        .collect::<Result<_, _>>()?;
    let mut things = vec![
        Thing {
            sprite: 0,
            x: 300.0,
            y: 100.0,
            vx: 0.0,
            vy: 0.0,
            angle: 0.0,
            colour: [120, 200, 255, 255],
        },
        Thing {
            sprite: 1,
            x: 40.0,
            y: 150.0,
            vx: 0.0,
            vy: 0.0,
            angle: 0.0,
            colour: [130, 255, 130, 255],
        },
    ];
    let mut seed = 2009u64;
    let mut rand = move || {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (seed >> 33) as f64 / (1u64 << 31) as f64
    };
    if let Some(dir) = std::path::Path::new(&out).parent() {
        std::fs::create_dir_all(dir)?;
    }
    let mut gif = GifEncoder::new_with_speed(std::fs::File::create(&out)?, 10);
    gif.set_repeat(Repeat::Infinite)?;
    let mut strip = Vec::new();
    let (mut t_broad, mut t_gpu, mut t_cpu, mut t_render) = (0.0, 0.0, 0.0, 0.0);
    let (mut hits_total, mut frames) = (0usize, 0usize);
    for frame in 0..90 {
        // Move: the boss turns, the player bobs, both fire.
        things[0].angle = frame as f64 * 0.035;
        things[1].y = 150.0 + 90.0 * (frame as f64 * 0.07).sin();
        for _ in 0..4 {
            let (py, by) = (things[1].y + 8.0, things[0].y + 60.0);
            things.push(Thing {
                sprite: 2,
                x: 68.0,
                y: py + rand() * 4.0,
                vx: 7.0,
                vy: rand() * 2.0 - 1.0,
                angle: 0.0,
                colour: [255, 240, 120, 255],
            });
            let a = rand() * std::f64::consts::TAU;
            things.push(Thing {
                sprite: 3,
                x: 300.0,
                y: by,
                vx: 2.5 * a.cos() - 3.0,
                vy: 2.5 * a.sin(),
                angle: 0.0,
                colour: [255, 150, 220, 255],
            });
        }
        for t in things.iter_mut().skip(2) {
            t.x += t.vx;
            t.y += t.vy;
        }
        things.retain(|t| {
            t.x > -20.0 && t.x < f64::from(W) + 20.0 && t.y > -20.0 && t.y < f64::from(H) + 20.0
        });

        // Broad phase over every thing's turned box.
        let t0 = Instant::now();
        let boxes: Vec<Aabb> = things
            .iter()
            .map(|t| {
                let m = &masks[t.sprite];
                let r = ((m.width() * m.width() + m.height() * m.height()) as f64).sqrt() / 2.0;
                let (cx, cy) = (
                    t.x.round() + m.width() as f64 / 2.0,
                    t.y.round() + m.height() as f64 / 2.0,
                );
                Aabb::new(
                    [(cx - r) as f32, (cy - r) as f32],
                    [(cx + r) as f32, (cy + r) as f32],
                )
            })
            .collect::<Result<_, _>>()?;
        let mut candidates = Vec::new();
        Grid::new().find_pairs(&boxes, &mut candidates)?;
        // Only the player's bullets against the boss, and the boss's against
        // the player.
        let candidates: Vec<(usize, usize)> = candidates
            .iter()
            .map(|p| (p.a as usize, p.b as usize))
            .filter(|&(a, b)| (a < 2) != (b < 2))
            .map(|(a, b)| if a < 2 { (a, b) } else { (b, a) })
            .filter(|&(target, shot)| things[shot].sprite == if target == 0 { 2 } else { 3 })
            .collect();
        t_broad += t0.elapsed().as_secs_f64();

        // The GPU decides; the CPU masks check it and find the pixels to paint.
        let t1 = Instant::now();
        let pairs: Vec<Pair> = candidates
            .iter()
            .map(|&(a, b)| Pair {
                a: ids[things[a].sprite],
                at_a: things[a].placement(),
                b: ids[things[b].sprite],
                at_b: things[b].placement(),
            })
            .collect();
        // The GPU's answers, to show them (the cost model would take the
        // CPU masks on a software adapter).
        let hits = gpu.test_pairs_on(&pairs, PathChoice::Gpu)?;
        t_gpu += t1.elapsed().as_secs_f64();
        let t2 = Instant::now();
        let mut img = RgbaImage::from_pixel(W, H, Rgba([16, 16, 32, 255]));
        let paint = |m: &Mask, ox: i64, oy: i64, colour: [u8; 4], img: &mut RgbaImage| {
            for y in 0..m.height() {
                for x in 0..m.width() {
                    let (px, py) = (ox + x as i64, oy + y as i64);
                    if m.get(x, y) && px >= 0 && py >= 0 && px < i64::from(W) && py < i64::from(H) {
                        img.put_pixel(px as u32, py as u32, Rgba(colour));
                    }
                }
            }
        };
        let mut turned = Vec::with_capacity(things.len());
        for t in &things {
            let (m, (ox, oy)) = masks[t.sprite].rotated(t.angle, 1.0)?;
            turned.push((
                m,
                i64::from(t.placement().x) + ox,
                i64::from(t.placement().y) + oy,
            ));
        }
        let mut dead = vec![false; things.len()];
        let mut touching = Vec::new();
        for (&(a, b), hit) in candidates.iter().zip(&hits) {
            let ((ma, ax, ay), (mb, bx, by)) = (&turned[a], &turned[b]);
            let both = ma.overlap_mask(mb, bx - ax, by - ay)?;
            assert_eq!(
                hit.hit,
                both.count() > 0,
                "GPU and CPU disagree on frame {frame}"
            );
            if hit.hit {
                dead[b] = true;
                touching.push((both, *ax, *ay));
            }
        }
        t_cpu += t2.elapsed().as_secs_f64();
        // The visible scene comes from the same renderer as the tests
        // (normal mode), so what is seen is what collides.
        let t3 = Instant::now();
        let objects: Vec<(SpriteId, Placement, [f32; 4])> = things
            .iter()
            .map(|t| {
                (
                    ids[t.sprite],
                    t.placement(),
                    t.colour.map(|c| f32::from(c) / 255.0),
                )
            })
            .collect();
        let pixels = gpu.render(
            W,
            H,
            [16.0 / 255.0, 16.0 / 255.0, 32.0 / 255.0, 1.0],
            &objects,
        )?;
        t_render += t3.elapsed().as_secs_f64();
        for (i, p) in pixels.chunks_exact(4).enumerate() {
            img.put_pixel(i as u32 % W, i as u32 / W, Rgba([p[0], p[1], p[2], p[3]]));
        }
        for (m, x, y) in &touching {
            paint(m, *x, *y, [255, 40, 40, 255], &mut img);
        }
        hits_total += touching.len();
        frames += 1;
        if frame % 22 == 11 {
            strip.push(img.clone());
        }
        gif.encode_frame(Frame::from_parts(
            img,
            0,
            0,
            Delay::from_numer_denom_ms(40, 1),
        ))?;
        let mut i = 0;
        things.retain(|_| {
            i += 1;
            !dead[i - 1]
        });
    }
    drop(gif);
    let gap = 6;
    let mut sheet = RgbaImage::from_pixel(
        strip.len() as u32 * (W + gap) - gap,
        H,
        Rgba([0, 0, 0, 255]),
    );
    for (k, f) in strip.iter().enumerate() {
        image::imageops::replace(&mut sheet, f, i64::from(k as u32 * (W + gap)), 0);
    }
    let strip_path = std::path::Path::new(&out).with_extension("png");
    sheet.save(&strip_path)?;
    let n = frames as f64;
    println!(
        "{frames} frames, {hits_total} hits; {} things on the last frame",
        things.len()
    );
    println!("| per frame | ms |");
    println!("|---|---|");
    println!("| broad phase (Grid) | {:.3} |", t_broad * 1e3 / n);
    println!("| GPU stencil + queries | {:.3} |", t_gpu * 1e3 / n);
    println!(
        "| CPU masks (turn, overlap, the check) | {:.3} |",
        t_cpu * 1e3 / n
    );
    println!(
        "| GPU normal mode (the visible frame, read back) | {:.3} |",
        t_render * 1e3 / n
    );
    println!("wrote {out} and {}", strip_path.display());
    Ok(())
}
