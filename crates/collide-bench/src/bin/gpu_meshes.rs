//! collide-gpu's 2-D meshes (stencil + occlusion queries) against the CPU
//! rasteriser (`collide::raster`, the same pixel rule) and collide's narrow
//! phase (exact geometry, no pixels), in one run: pairs per second for
//! meshes of 16, 256 and 4,096 triangles, batched.
//!
//! Then 3-D: torus-knot tubes of 1,000 and 100,000 triangles turning
//! through each other, GPU against the CPU path (the same projection,
//! slabs and rule), and subdivided boxes (convex) against collide's 3-D
//! narrow phase.
//!
//! `cargo run --release -p collide-bench --bin gpu_meshes`

use std::time::Instant;

use anyhow::{Result, bail};
use collide::raster::rasterize;
use collide::{
    ConvexPolyhedron, DepthRange, Mat4, Rot3, Shape, Transform, Transform3, Vec2, Vec3, Viewport,
    intersects, intersects_polyhedra, mat4_mul, perspective,
};
use collide_gpu::{
    DepthSlabs, GpuCollider, Hit, Mesh3Id, Mesh3Pair, MeshId, MeshPair, MeshPlacement, PathChoice,
    Resolution,
};

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
        let hits = gpu.test_mesh_pairs_on(&gpu_pairs, PathChoice::Gpu)?;
        let gpu_s = t.elapsed().as_secs_f64();
        // Lower resolutions: the same pairs drawn at half and a quarter.
        for resolution in [Resolution::Half, Resolution::Quarter] {
            gpu.set_resolution(resolution);
            gpu.test_mesh_pairs_on(&gpu_pairs[..gpu_pairs.len().min(64)], PathChoice::Gpu)?;
            let t = Instant::now();
            let low = gpu.test_mesh_pairs_on(&gpu_pairs, PathChoice::Gpu)?;
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
    three_d(&mut gpu, &mut rng)?;
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

/// A model matrix: a turn then a move.
fn placed(rot: Rot3, at: Vec3) -> Mat4 {
    let m = |v: Vec3| rot.apply(v);
    let (x, y, z) = (
        m(Vec3::new(1.0, 0.0, 0.0)),
        m(Vec3::new(0.0, 1.0, 0.0)),
        m(Vec3::new(0.0, 0.0, 1.0)),
    );
    [
        [x.x, x.y, x.z, 0.0],
        [y.x, y.y, y.z, 0.0],
        [z.x, z.y, z.z, 0.0],
        [at.x, at.y, at.z, 1.0],
    ]
}

type Model3 = (Vec<[f32; 3]>, Vec<[u32; 3]>);

/// A (2, 3) torus-knot tube of `n × m` quads (2·n·m triangles).
fn knot(n: usize, m: usize) -> Model3 {
    let curve = |t: f32| {
        let r = 2.0 + (3.0 * t).cos();
        [
            0.5 * r * (2.0 * t).cos(),
            0.5 * r * (2.0 * t).sin(),
            0.5 * (3.0 * t).sin(),
        ]
    };
    let mut v = Vec::with_capacity(n * m);
    for i in 0..n {
        let t = i as f32 / n as f32 * std::f32::consts::TAU;
        let (p, q) = (curve(t), curve(t + 1e-3));
        let d = [q[0] - p[0], q[1] - p[1], q[2] - p[2]];
        let l = (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt();
        let tn = d.map(|x| x / l);
        let nn = {
            let c = [tn[1], -tn[0], 0.0];
            let l = (c[0] * c[0] + c[1] * c[1]).sqrt().max(1e-6);
            c.map(|x| x / l)
        };
        let bn = [
            tn[1] * nn[2] - tn[2] * nn[1],
            tn[2] * nn[0] - tn[0] * nn[2],
            tn[0] * nn[1] - tn[1] * nn[0],
        ];
        for j in 0..m {
            let (s, c) = (j as f32 / m as f32 * std::f32::consts::TAU).sin_cos();
            v.push([0, 1, 2].map(|k| p[k] + 0.25 * (c * nn[k] + s * bn[k])));
        }
    }
    let mut t = Vec::with_capacity(2 * n * m);
    for i in 0..n {
        for j in 0..m {
            let (a, b) = ((i * m + j) as u32, (i * m + (j + 1) % m) as u32);
            let (c, d) = (
                (((i + 1) % n) * m + j) as u32,
                (((i + 1) % n) * m + (j + 1) % m) as u32,
            );
            t.push([a, b, d]);
            t.push([a, d, c]);
        }
    }
    (v, t)
}

/// A cube of half-side `h`, each face cut into `k × k` squares.
fn cube(h: f32, k: usize) -> Model3 {
    let (mut v, mut t) = (Vec::new(), Vec::new());
    for axis in 0..3 {
        for side in [-h, h] {
            let base = v.len() as u32;
            for i in 0..=k {
                for j in 0..=k {
                    let mut p = [0.0; 3];
                    p[axis] = side;
                    p[(axis + 1) % 3] = -h + 2.0 * h * i as f32 / k as f32;
                    p[(axis + 2) % 3] = -h + 2.0 * h * j as f32 / k as f32;
                    v.push(p);
                }
            }
            for i in 0..k {
                for j in 0..k {
                    let a = base + (i * (k + 1) + j) as u32;
                    t.push([a, a + 1, a + k as u32 + 2]);
                    t.push([a, a + k as u32 + 2, a + k as u32 + 1]);
                }
            }
        }
    }
    (v, t)
}

fn three_d(gpu: &mut GpuCollider, rng: &mut Rng) -> Result<()> {
    let projection = perspective(0.9, 1.0, 0.5, 60.0, DepthRange::ZeroToOne);
    let camera = mat4_mul(
        &projection,
        &placed(Rot3::IDENTITY, Vec3::new(0.0, 0.0, -12.0)),
    );
    let viewport = Viewport {
        x: 0.0,
        y: 0.0,
        width: 480.0,
        height: 480.0,
        y_down: true,
    };
    let random_pose = |rng: &mut Rng| {
        let axis = Vec3::new(
            rng.unit() as f32 - 0.5,
            rng.unit() as f32 - 0.5,
            rng.unit() as f32 - 0.5,
        );
        let rot = Rot3::from_axis_angle(axis, (rng.unit() * std::f64::consts::TAU) as f32)
            .unwrap_or(Rot3::IDENTITY);
        let at = Vec3::new(
            (rng.unit() * 2.0 - 1.0) as f32,
            (rng.unit() * 2.0 - 1.0) as f32,
            (rng.unit() * 2.0 - 1.0) as f32,
        );
        (rot, at)
    };
    println!(
        "\n3-D meshes, a 480 × 480 view, depth slabs on (the GPU against the CPU path; convex boxes also against collide's narrow phase):\n"
    );
    println!(
        "| mesh | triangles | pairs | GPU µs/pair | CPU µs/pair | CPU ÷ GPU | the model chose | GPU and CPU agree | narrow phase µs/pair | GPU and narrow agree |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|");
    for (n, m, pairs_n) in [(50usize, 10usize, 400usize), (2500, 20, 20)] {
        let (v, t) = knot(n, m);
        let id = gpu.add_mesh_3d(&v, &t)?;
        let pairs: Vec<Mesh3Pair> = (0..pairs_n)
            .map(|_| {
                let (ra, pa) = random_pose(rng);
                let (rb, pb) = random_pose(rng);
                Mesh3Pair {
                    a: id,
                    mvp_a: mat4_mul(&camera, &placed(ra, pa)),
                    b: id,
                    mvp_b: mat4_mul(&camera, &placed(rb, pb)),
                }
            })
            .collect();
        gpu.test_mesh_3d_pairs_on(&pairs[..2], &viewport, DepthSlabs::On, PathChoice::Gpu)?;
        let t0 = Instant::now();
        let g = gpu.test_mesh_3d_pairs_on(&pairs, &viewport, DepthSlabs::On, PathChoice::Gpu)?;
        let gpu_s = t0.elapsed().as_secs_f64();
        let t0 = Instant::now();
        let c = gpu.test_mesh_3d_pairs_on(&pairs, &viewport, DepthSlabs::On, PathChoice::Cpu)?;
        let cpu_s = t0.elapsed().as_secs_f64();
        let agree = g.iter().zip(&c).filter(|(x, y)| x.hit == y.hit).count();
        println!(
            "| torus knot | {} | {pairs_n} | {:.1} | {:.1} | {:.1}× | {} | {:.1}% | — | — |",
            t.len(),
            gpu_s * 1e6 / pairs_n as f64,
            cpu_s * 1e6 / pairs_n as f64,
            cpu_s / gpu_s,
            chose_3d(gpu, &pairs, &viewport)?,
            100.0 * agree as f64 / pairs_n as f64
        );
    }
    // Convex: subdivided boxes, where collide's narrow phase applies.
    let (v, t) = cube(1.0, 13);
    let id = gpu.add_mesh_3d(&v, &t)?;
    let hull = ConvexPolyhedron::cuboid(Vec3::new(1.0, 1.0, 1.0))?;
    let poses: Vec<[(Rot3, Vec3); 2]> = (0..400)
        .map(|_| [random_pose(rng), random_pose(rng)])
        .collect();
    let pairs: Vec<Mesh3Pair> = poses
        .iter()
        .map(|[(ra, pa), (rb, pb)]| Mesh3Pair {
            a: id,
            mvp_a: mat4_mul(&camera, &placed(*ra, *pa)),
            b: id,
            mvp_b: mat4_mul(&camera, &placed(*rb, *pb)),
        })
        .collect();
    gpu.test_mesh_3d_pairs_on(&pairs[..2], &viewport, DepthSlabs::On, PathChoice::Gpu)?;
    let t0 = Instant::now();
    let g = gpu.test_mesh_3d_pairs_on(&pairs, &viewport, DepthSlabs::On, PathChoice::Gpu)?;
    let gpu_s = t0.elapsed().as_secs_f64();
    let t0 = Instant::now();
    let c = gpu.test_mesh_3d_pairs_on(&pairs, &viewport, DepthSlabs::On, PathChoice::Cpu)?;
    let cpu_s = t0.elapsed().as_secs_f64();
    let t0 = Instant::now();
    let mut narrow = Vec::with_capacity(poses.len());
    for [(ra, pa), (rb, pb)] in &poses {
        let xa = Transform3 {
            rotation: *ra,
            translation: *pa,
        };
        let xb = Transform3 {
            rotation: *rb,
            translation: *pb,
        };
        narrow.push(intersects_polyhedra(&hull, &xa, &hull, &xb)?);
    }
    let narrow_s = t0.elapsed().as_secs_f64();
    let n = pairs.len() as f64;
    let agree = g.iter().zip(&c).filter(|(x, y)| x.hit == y.hit).count();
    let agree_narrow = g.iter().zip(&narrow).filter(|(x, y)| x.hit == **y).count();
    println!(
        "| subdivided box (convex) | {} | {} | {:.1} | {:.1} | {:.1}× | {} | {:.1}% | {:.2} | {:.1}% |",
        t.len(),
        pairs.len(),
        gpu_s * 1e6 / n,
        cpu_s * 1e6 / n,
        cpu_s / gpu_s,
        chose_3d(gpu, &pairs, &viewport)?,
        100.0 * agree as f64 / n,
        narrow_s * 1e6 / n,
        100.0 * agree_narrow as f64 / n
    );
    // One against many: the box (on its hull: drawn once) against 1,000
    // torus knots around it.
    let (kv, kt) = knot(50, 10);
    let knot_id = gpu.add_mesh_3d(&kv, &kt)?;
    let (rf, pf) = random_pose(rng);
    let first = mat4_mul(&camera, &placed(rf, pf));
    let others: Vec<(Mesh3Id, Mat4)> = (0..1000)
        .map(|_| {
            // Spread wider than the pairs above, so some miss.
            let (r, p) = random_pose(rng);
            let p = Vec3::new(p.x * 3.0, p.y * 3.0, p.z);
            (knot_id, mat4_mul(&camera, &placed(r, p)))
        })
        .collect();
    let time = |f: &dyn Fn() -> Result<Vec<Hit>>| -> Result<(f64, Vec<Hit>)> {
        f()?;
        let t0 = Instant::now();
        let hits = f()?;
        Ok((t0.elapsed().as_secs_f64() * 1e6 / others.len() as f64, hits))
    };
    let (group_us, grouped) = time(&|| {
        Ok(gpu.test_mesh_3d_group_on(
            id,
            &first,
            &others,
            &viewport,
            DepthSlabs::On,
            PathChoice::Gpu,
        )?)
    })?;
    let pairs: Vec<Mesh3Pair> = others
        .iter()
        .map(|&(b, mvp_b)| Mesh3Pair {
            a: id,
            mvp_a: first,
            b,
            mvp_b,
        })
        .collect();
    let (pairs_us, paired) = time(&|| {
        Ok(gpu.test_mesh_3d_pairs_on(&pairs, &viewport, DepthSlabs::On, PathChoice::Gpu)?)
    })?;
    let (cpu_us, _) = time(&|| {
        Ok(gpu.test_mesh_3d_pairs_on(&pairs, &viewport, DepthSlabs::On, PathChoice::Cpu)?)
    })?;
    let agree = grouped
        .iter()
        .zip(&paired)
        .filter(|(a, b)| a.hit == b.hit)
        .count();
    let touching = paired.iter().filter(|h| h.hit).count();
    println!(
        "\nOne against many: the subdivided box ({} triangles, on its hull: drawn once) against {} torus knots ({} triangles), {touching} touching:\n",
        t.len(),
        others.len(),
        kt.len()
    );
    println!(
        "| group, GPU µs/candidate | pairs, GPU µs/pair | pairs, CPU µs/pair | group and pairs agree |"
    );
    println!("|---|---|---|---|");
    println!(
        "| {group_us:.1} | {pairs_us:.1} | {cpu_us:.1} | {agree}/{} |",
        others.len()
    );
    Ok(())
}

/// Which path the cost model takes for a batch of 3-D pairs.
fn chose_3d(gpu: &GpuCollider, pairs: &[Mesh3Pair], viewport: &Viewport) -> Result<&'static str> {
    let work = gpu.mesh_3d_work(pairs, viewport)?;
    let costs = gpu.mesh_costs();
    Ok(if costs.gpu(&work) <= costs.cpu(&work) {
        "GPU"
    } else {
        "CPU"
    })
}
