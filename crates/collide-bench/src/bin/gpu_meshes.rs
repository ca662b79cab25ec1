//! collide-gpu's 2-D meshes (stencil + occlusion queries) against the CPU
//! rasteriser (`collide::raster`, the same pixel rule) and collide's narrow
//! phase (exact geometry, no pixels), in one run: pairs per second for
//! meshes of 16, 256 and 4,096 triangles, batched.
//!
//! `cargo run --release -p collide-bench --bin gpu_meshes`

use std::time::Instant;

use anyhow::{Result, bail};
use collide::raster::rasterize;
use collide::{Shape, Transform, Vec2, intersects};
use collide_gpu::{GpuCollider, MeshId, MeshPair, MeshPath, MeshPlacement, Resolution};

#[path = "../splitmix.rs"]
mod splitmix;
use splitmix::Rng;

/// A star's outline, and the same as vertices and a triangle fan.
struct Star {
    outline: Vec<[f32; 2]>,
    vertices: Vec<[f32; 2]>,
    fan: Vec<[u32; 3]>,
}

/// A star of `spikes` points about the origin, as a fan of `2 × spikes`
/// triangles from the centre.
fn star(rng: &mut Rng, spikes: usize) -> Star {
    let outer = 30.0 + rng.unit() * 30.0;
    let inner = outer * (0.4 + rng.unit() * 0.4);
    let n = 2 * spikes;
    let outline: Vec<[f32; 2]> = (0..n)
        .map(|k| {
            let a = k as f64 * std::f64::consts::TAU / n as f64;
            let r = if k % 2 == 0 { outer } else { inner };
            [(r * a.cos()) as f32, (r * a.sin()) as f32]
        })
        .collect();
    let mut vertices = vec![[0.0f32, 0.0]];
    vertices.extend(&outline);
    let fan = (0..n as u32)
        .map(|k| [0, 1 + k, 1 + (k + 1) % n as u32])
        .collect();
    Star {
        outline,
        vertices,
        fan,
    }
}

fn main() -> Result<()> {
    let mut gpu = match GpuCollider::new(512) {
        Ok(g) => g,
        Err(e) => bail!("no GPU: {e}"),
    };
    println!("# collide-gpu meshes vs the CPU rasteriser and collide's narrow phase\n");
    println!("Adapter: {}\n", gpu.adapter());
    let costs = gpu.calibrate_mesh_costs()?;
    println!(
        "Cost model, calibrated here (µs): GPU {:.0} a batch + {:.2} a pair + {:.4} a triangle; CPU {:.2} a pair + {:.3} a triangle + {:.4} a pixel\n",
        costs.gpu_batch * 1e6,
        costs.gpu_pair * 1e6,
        costs.gpu_triangle * 1e6,
        costs.cpu_pair * 1e6,
        costs.cpu_triangle * 1e6,
        costs.cpu_pixel * 1e6
    );
    println!(
        "| triangles per mesh | pairs | GPU µs/pair | CPU raster µs/pair | narrow phase µs/pair | raster ÷ GPU | the model chose | GPU and raster agree | GPU and narrow agree |"
    );
    println!("|---|---|---|---|---|---|---|---|---|");
    let mut rng = Rng(2026);
    let mut resolution_rows = Vec::new();
    for (triangles, pairs_n) in [(16usize, 20_000usize), (256, 5_000), (4096, 1_000)] {
        let mut meshes: Vec<(MeshId, Vec<[f32; 2]>, Shape)> = Vec::new();
        for _ in 0..16 {
            let Star {
                outline,
                vertices,
                fan,
            } = star(&mut rng, triangles / 2);
            let id = gpu.add_mesh(&vertices, &fan)?;
            let points: Vec<Vec2> = outline.iter().map(|p| Vec2::new(p[0], p[1])).collect();
            meshes.push((id, outline, Shape::polygon(&points)?));
        }
        let pairs: Vec<(usize, MeshPlacement, usize, MeshPlacement)> = (0..pairs_n)
            .map(|_| {
                let place = |rng: &mut Rng| MeshPlacement {
                    x: (200.0 + rng.unit() * 100.0) as f32,
                    y: (200.0 + rng.unit() * 100.0) as f32,
                    angle: (rng.unit() * std::f64::consts::TAU) as f32,
                    ..MeshPlacement::at(0.0, 0.0)
                };
                let a = rng.below(16) as usize;
                let pa = place(&mut rng);
                let b = rng.below(16) as usize;
                (a, pa, b, place(&mut rng))
            })
            .collect();
        let gpu_pairs: Vec<MeshPair> = pairs
            .iter()
            .map(|&(a, at_a, b, at_b)| MeshPair {
                a: meshes[a].0,
                at_a,
                b: meshes[b].0,
                at_b,
            })
            .collect();
        // Warm-up, then the timed batch.
        gpu.test_mesh_pairs(&gpu_pairs[..gpu_pairs.len().min(64)])?;
        let t = Instant::now();
        let hits = gpu.test_mesh_pairs_on(&gpu_pairs, MeshPath::Gpu)?;
        let gpu_s = t.elapsed().as_secs_f64();
        // Lower resolutions: the same pairs drawn at half and a quarter.
        for resolution in [Resolution::Half, Resolution::Quarter] {
            gpu.set_resolution(resolution);
            gpu.test_mesh_pairs_on(&gpu_pairs[..gpu_pairs.len().min(64)], MeshPath::Gpu)?;
            let t = Instant::now();
            let low = gpu.test_mesh_pairs_on(&gpu_pairs, MeshPath::Gpu)?;
            let low_s = t.elapsed().as_secs_f64();
            gpu.set_resolution(Resolution::Full);
            let missed = hits
                .iter()
                .zip(&low)
                .filter(|(f, l)| f.hit && !l.hit)
                .count();
            let extra = hits
                .iter()
                .zip(&low)
                .filter(|(f, l)| !f.hit && l.hit)
                .count();
            let touching = hits.iter().filter(|h| h.hit).count().max(1);
            resolution_rows.push(format!(
                "| {triangles} | {resolution:?} | {:.2} | {:.2}× | {missed} ({:.2}% of the touching pairs) | {extra} ({:.2}%) |",
                low_s * 1e6 / pairs_n as f64,
                gpu_s / low_s,
                100.0 * missed as f64 / touching as f64,
                100.0 * extra as f64 / touching as f64,
            ));
        }
        // The CPU rasteriser: both meshes placed and rasterised over their
        // boxes' overlap, then the masks ANDed.
        let t = Instant::now();
        let mut raster_hits = Vec::with_capacity(pairs.len());
        for p in &gpu_pairs {
            let ta = gpu.placed_triangles(p.a, p.at_a)?;
            let tb = gpu.placed_triangles(p.b, p.at_b)?;
            let bounds = |ts: &[[[f64; 2]; 3]]| {
                ts.iter()
                    .flatten()
                    .fold([f64::MAX, f64::MAX, f64::MIN, f64::MIN], |r, q| {
                        [
                            r[0].min(q[0]),
                            r[1].min(q[1]),
                            r[2].max(q[0]),
                            r[3].max(q[1]),
                        ]
                    })
            };
            let (ba, bb) = (bounds(&ta), bounds(&tb));
            let (x0, y0) = (ba[0].max(bb[0]).floor(), ba[1].max(bb[1]).floor());
            let (x1, y1) = (ba[2].min(bb[2]).ceil(), ba[3].min(bb[3]).ceil());
            if x0 >= x1 || y0 >= y1 {
                raster_hits.push(false);
                continue;
            }
            let shift = |ts: Vec<[[f64; 2]; 3]>| -> Vec<[[f64; 2]; 3]> {
                ts.into_iter()
                    .map(|t| t.map(|q| [q[0] - x0, q[1] - y0]))
                    .collect()
            };
            let (w, h) = ((x1 - x0) as usize, (y1 - y0) as usize);
            let ma = rasterize(w, h, shift(ta))?;
            let mb = rasterize(w, h, shift(tb))?;
            raster_hits.push(ma.overlap(&mb, 0, 0).is_some());
        }
        let raster_s = t.elapsed().as_secs_f64();
        // collide's narrow phase on the same outlines (y-up turns: the
        // screen's counter-clockwise is the negative angle).
        let t = Instant::now();
        let mut narrow_hits = Vec::with_capacity(pairs.len());
        for &(a, pa, b, pb) in &pairs {
            let xa = Transform::new([pa.x, pa.y], -pa.angle)?;
            let xb = Transform::new([pb.x, pb.y], -pb.angle)?;
            narrow_hits.push(intersects(&meshes[a].2, &xa, &meshes[b].2, &xb)?);
        }
        let narrow_s = t.elapsed().as_secs_f64();
        let agree = |other: &[bool]| {
            let same = hits.iter().zip(other).filter(|(h, o)| h.hit == **o).count();
            format!("{:.2}%", 100.0 * same as f64 / hits.len() as f64)
        };
        let per = |s: f64| s * 1e6 / pairs_n as f64;
        let work = gpu.mesh_work(&gpu_pairs)?;
        let chose = if costs.cpu(&work) < costs.gpu(&work) {
            "CPU"
        } else {
            "GPU"
        };
        println!(
            "| {triangles} | {pairs_n} | {:.2} | {:.2} | {:.2} | {:.1}× | {chose} | {} | {} |",
            per(gpu_s),
            per(raster_s),
            per(narrow_s),
            raster_s / gpu_s,
            agree(&raster_hits),
            agree(&narrow_hits),
        );
    }
    println!(
        "\nA lower-resolution collision buffer against full resolution (the same pairs, GPU path):\n"
    );
    println!(
        "| triangles per mesh | resolution | GPU µs/pair | faster than full | missed hits | extra hits |"
    );
    println!("|---|---|---|---|---|---|");
    for row in resolution_rows {
        println!("{row}");
    }
    Ok(())
}
