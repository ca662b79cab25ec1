//! Three generated models — a torus knot, a lathe-turned pot and a
//! subdivided box — turning and passing through each other. Each frame the
//! three pairs are tested on the GPU (screen rectangles, depth slabs,
//! occlusion queries) and the scene is drawn by the same renderer in normal
//! mode, with the pixels where two models meet in red. Writes PNG frames and
//! an animated GIF, and prints each frame's answers and times.
//!
//! `cargo run --release -p collide-gpu --example meshes3d -- [OUT_DIR] [FRAMES]`

use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{Context, Result};
use collide::{DepthRange, Mat4, Viewport, mat4_mul, perspective};
use collide_gpu::{DepthSlabs, GpuCollider, Mesh3Id, Mesh3Pair, PathChoice};
use image::codecs::gif::{GifEncoder, Repeat};
use image::{Delay, Frame, RgbaImage};

const W: u32 = 360;
const H: u32 = 240;

fn translate(x: f32, y: f32, z: f32) -> Mat4 {
    [
        [1.0, 0.0, 0.0, 0.0],
        [0.0, 1.0, 0.0, 0.0],
        [0.0, 0.0, 1.0, 0.0],
        [x, y, z, 1.0],
    ]
}

/// A turn about the y axis, then about the x axis.
fn turn(yaw: f32, pitch: f32) -> Mat4 {
    let (sy, cy) = yaw.sin_cos();
    let (sp, cp) = pitch.sin_cos();
    let y = [
        [cy, 0.0, -sy, 0.0],
        [0.0, 1.0, 0.0, 0.0],
        [sy, 0.0, cy, 0.0],
        [0.0, 0.0, 0.0, 1.0],
    ];
    let x = [
        [1.0, 0.0, 0.0, 0.0],
        [0.0, cp, sp, 0.0],
        [0.0, -sp, cp, 0.0],
        [0.0, 0.0, 0.0, 1.0],
    ];
    mat4_mul(&x, &y)
}

type Model = (Vec<[f32; 3]>, Vec<[u32; 3]>);

/// Quads between rings of `m` points, `n` rings; closed along the rings
/// and, with `wrap`, from the last ring back to the first.
fn rings(points: Vec<[f32; 3]>, n: usize, m: usize, wrap: bool) -> Model {
    let mut t = Vec::new();
    let rows = if wrap { n } else { n - 1 };
    for i in 0..rows {
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
    (points, t)
}

/// A (2, 3) torus knot: a tube of radius 0.3 around the knot's curve.
fn torus_knot() -> Model {
    let (n, m) = (180, 12);
    let curve = |t: f32| {
        let r = 2.0 + (3.0 * t).cos();
        [
            0.6 * r * (2.0 * t).cos(),
            0.6 * r * (2.0 * t).sin(),
            0.6 * (3.0 * t).sin(),
        ]
    };
    let mut points = Vec::with_capacity(n * m);
    for i in 0..n {
        let t = i as f32 / n as f32 * std::f32::consts::TAU;
        let (p, q) = (curve(t), curve(t + 1e-3));
        let tangent = norm([q[0] - p[0], q[1] - p[1], q[2] - p[2]]);
        let normal = norm(cross(tangent, [0.0, 0.0, 1.0]));
        let binormal = cross(tangent, normal);
        for j in 0..m {
            let a = j as f32 / m as f32 * std::f32::consts::TAU;
            let (s, c) = a.sin_cos();
            points.push([0, 1, 2].map(|k| p[k] + 0.3 * (c * normal[k] + s * binormal[k])));
        }
    }
    rings(points, n, m, true)
}

/// A pot turned on a lathe: a profile revolved about the y axis.
fn lathe() -> Model {
    let profile = [
        (0.05, -1.0),
        (0.8, -1.0),
        (1.1, -0.6),
        (1.2, 0.0),
        (1.0, 0.6),
        (0.6, 0.9),
        (0.35, 1.0),
        (0.05, 1.1),
    ];
    let m = 32;
    let mut points = Vec::new();
    for (r, y) in profile {
        for j in 0..m {
            let (s, c) = (j as f32 / m as f32 * std::f32::consts::TAU).sin_cos();
            points.push([r * c, y, r * s]);
        }
    }
    rings(points, profile.len(), m, false)
}

/// A box of side 1.4, each face cut into 8 × 8 squares.
fn subdivided_box() -> Model {
    let k = 8;
    let (mut points, mut tris) = (Vec::new(), Vec::new());
    for axis in 0..3 {
        for side in [-0.7f32, 0.7] {
            let base = points.len() as u32;
            for i in 0..=k {
                for j in 0..=k {
                    let (u, v) = (
                        -0.7 + 1.4 * i as f32 / k as f32,
                        -0.7 + 1.4 * j as f32 / k as f32,
                    );
                    let mut p = [0.0; 3];
                    p[axis] = side;
                    p[(axis + 1) % 3] = u;
                    p[(axis + 2) % 3] = v;
                    points.push(p);
                }
            }
            for i in 0..k {
                for j in 0..k {
                    let a = base + (i * (k + 1) + j) as u32;
                    let (b, c, d) = (a + 1, a + (k + 1) as u32, a + (k + 2) as u32);
                    tris.push([a, b, d]);
                    tris.push([a, d, c]);
                }
            }
        }
    }
    (points, tris)
}

fn cross(a: [f32; 3], b: [f32; 3]) -> [f32; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

fn norm(a: [f32; 3]) -> [f32; 3] {
    let l = (a[0] * a[0] + a[1] * a[1] + a[2] * a[2]).sqrt().max(1e-9);
    a.map(|x| x / l)
}

/// What a run saw: per frame, which of the three pairs touched, and how
/// many red pixels the frame has.
pub struct Run {
    /// Per frame: knot and pot, knot and box, pot and box.
    pub touching: Vec<[bool; 3]>,
    /// Per frame: the red pixels drawn.
    pub red_pixels: Vec<usize>,
    /// The animated GIF.
    pub gif: PathBuf,
}

/// Renders `frames` frames into `out` (PNG frames and `meshes3d.gif`).
pub fn run(out: &Path, frames: usize) -> Result<Option<Run>> {
    let mut gpu = match GpuCollider::new(512) {
        Ok(g) => g,
        Err(e @ (collide_gpu::GpuError::NoAdapter(_) | collide_gpu::GpuError::Device(_))) => {
            assert!(
                std::env::var("REQUIRE_GPU").as_deref() != Ok("1"),
                "REQUIRE_GPU=1 but {e}"
            );
            eprintln!("SKIPPED: the 3-D demo: {e}");
            return Ok(None);
        }
        Err(e) => return Err(e.into()),
    };
    std::fs::create_dir_all(out).with_context(|| format!("making {}", out.display()))?;
    let models = [torus_knot(), lathe(), subdivided_box()];
    let ids: Vec<Mesh3Id> = models
        .iter()
        .map(|(v, t)| gpu.add_mesh_3d(v, t))
        .collect::<Result<_, _>>()?;
    let counts: Vec<usize> = models.iter().map(|(_, t)| t.len()).collect();
    println!(
        "{}: a torus knot ({} triangles), a pot ({}) and a box ({})",
        gpu.adapter(),
        counts[0],
        counts[1],
        counts[2]
    );
    let colours = [
        [0.35, 0.65, 0.95, 1.0],
        [0.95, 0.75, 0.3, 1.0],
        [0.45, 0.85, 0.5, 1.0],
    ];
    let camera = mat4_mul(
        &perspective(0.8, W as f32 / H as f32, 0.5, 60.0, DepthRange::ZeroToOne),
        &mat4_mul(&turn(0.0, 0.02), &translate(0.0, -0.2, -11.0)),
    );
    let viewport = Viewport {
        x: 0.0,
        y: 0.0,
        width: W as f32,
        height: H as f32,
        y_down: true,
    };
    let mut gif_frames = Vec::new();
    let mut run = Run {
        touching: Vec::new(),
        red_pixels: Vec::new(),
        gif: out.join("meshes3d.gif"),
    };
    for f in 0..frames {
        let t = f as f32 / frames as f32 * std::f32::consts::TAU;
        let places = [
            mat4_mul(&translate(0.0, 0.0, 0.0), &turn(t, 0.3)),
            mat4_mul(&translate(4.0 * t.cos(), 0.2, 0.3), &turn(-2.0 * t, 0.0)),
            mat4_mul(
                &translate(0.6, 3.0 * (t + 1.0).sin(), -0.4),
                &turn(1.5 * t, t),
            ),
        ];
        let mvp: Vec<Mat4> = places.iter().map(|m| mat4_mul(&camera, m)).collect();
        let pairs = [(0, 1), (0, 2), (1, 2)].map(|(a, b)| Mesh3Pair {
            a: ids[a],
            mvp_a: mvp[a],
            b: ids[b],
            mvp_b: mvp[b],
        });
        let start = Instant::now();
        // The GPU's answers, to show them (the cost model may take the CPU
        // for three pairs).
        let hits = gpu.test_mesh_3d_pairs_on(&pairs, &viewport, DepthSlabs::On, PathChoice::Gpu)?;
        let test_time = start.elapsed();
        let red = [1.0, 0.1, 0.1, 1.0];
        let touching: Vec<(usize, usize, [f32; 4])> = [(0, 1), (0, 2), (1, 2)]
            .iter()
            .zip(&hits)
            .filter(|(_, h)| h.hit)
            .map(|(&(a, b), _)| (a, b, red))
            .collect();
        let objects: Vec<_> = (0..3).map(|k| (ids[k], mvp[k], colours[k])).collect();
        let pixels = gpu.render_meshes_3d(W, H, [0.08, 0.08, 0.1, 1.0], &objects, &touching)?;
        let image = RgbaImage::from_raw(W, H, pixels).context("frame size")?;
        let reds = image
            .pixels()
            .filter(|p| p[0] > 200 && p[1] < 60 && p[2] < 60)
            .count();
        println!(
            "frame {f:2}: knot-pot {:5}  knot-box {:5}  pot-box {:5}  (tested in {:.2} ms)",
            hits[0].hit,
            hits[1].hit,
            hits[2].hit,
            test_time.as_secs_f64() * 1e3
        );
        image.save(out.join(format!("frame_{f:02}.png")))?;
        run.touching.push([hits[0].hit, hits[1].hit, hits[2].hit]);
        run.red_pixels.push(reds);
        gif_frames.push(Frame::from_parts(
            image,
            0,
            0,
            Delay::from_numer_denom_ms(80, 1),
        ));
    }
    let file = std::fs::File::create(&run.gif)
        .with_context(|| format!("writing {}", run.gif.display()))?;
    let mut encoder = GifEncoder::new_with_speed(file, 10);
    encoder.set_repeat(Repeat::Infinite)?;
    encoder.encode_frames(gif_frames)?;
    println!("wrote {} frames and {}", frames, run.gif.display());
    Ok(Some(run))
}

/// The depth slabs' documented false hit, drawn: two slanted rods that
/// cross on screen 0.2 apart at overlapping depths (left, red where the
/// rule says they meet), and a cube held 0.3 above a floor whose far part
/// is behind it on screen (right: no red, the slabs keep the far floor
/// out). Writes `slab_limits.png` into `out`.
pub fn limits(out: &Path) -> Result<Option<PathBuf>> {
    let Ok(mut gpu) = GpuCollider::new(512) else {
        eprintln!("SKIPPED: no GPU adapter for the limits picture");
        return Ok(None);
    };
    let (v, t) = subdivided_box();
    let cube = gpu.add_mesh_3d(
        &v.iter().map(|p| p.map(|c| c / 1.4)).collect::<Vec<_>>(),
        &t,
    )?;
    let floor = gpu.add_mesh_3d(
        &[
            [-50.0, 0.0, 0.0],
            [50.0, 0.0, 0.0],
            [50.0, 0.0, -100.0],
            [-50.0, 0.0, -100.0],
        ],
        &[[0, 1, 2], [0, 2, 3]],
    )?;
    let scale = |x: f32, y: f32, z: f32| -> Mat4 {
        [
            [x, 0.0, 0.0, 0.0],
            [0.0, y, 0.0, 0.0],
            [0.0, 0.0, z, 0.0],
            [0.0, 0.0, 0.0, 1.0],
        ]
    };
    let roll = |a: f32| -> Mat4 {
        let (s, c) = a.sin_cos();
        [
            [c, s, 0.0, 0.0],
            [-s, c, 0.0, 0.0],
            [0.0, 0.0, 1.0, 0.0],
            [0.0, 0.0, 0.0, 1.0],
        ]
    };
    let projection = perspective(1.0, W as f32 / H as f32, 0.5, 200.0, DepthRange::ZeroToOne);
    let level = mat4_mul(&projection, &translate(0.0, -0.5, -5.0));
    let rod = |z: f32, tilt: f32, slant: f32| {
        mat4_mul(
            &level,
            &mat4_mul(
                &translate(0.0, 0.5, z),
                &mat4_mul(
                    &roll(tilt),
                    &mat4_mul(&turn(slant, 0.0), &scale(4.0, 0.15, 0.15)),
                ),
            ),
        )
    };
    let (ra, rb) = (rod(-0.5, 0.5, 0.6), rod(-0.8, -0.5, -0.6));
    let lifted = mat4_mul(
        &level,
        &mat4_mul(&translate(0.0, 0.8, -5.0), &turn(0.4, 0.0)),
    );
    let viewport = Viewport {
        x: 0.0,
        y: 0.0,
        width: W as f32,
        height: H as f32,
        y_down: true,
    };
    let red = [1.0, 0.1, 0.1, 1.0];
    let mut pictures = Vec::new();
    for (a, b, ma, mb, colours) in [
        (
            cube,
            cube,
            ra,
            rb,
            [[0.35, 0.65, 0.95, 1.0], [0.45, 0.85, 0.5, 1.0]],
        ),
        (
            floor,
            cube,
            level,
            lifted,
            [[0.5, 0.45, 0.4, 1.0], [0.95, 0.75, 0.3, 1.0]],
        ),
    ] {
        let hit = gpu.test_mesh_3d_pairs_on(
            &[Mesh3Pair {
                a,
                mvp_a: ma,
                b,
                mvp_b: mb,
            }],
            &viewport,
            DepthSlabs::On,
            PathChoice::Gpu,
        )?[0]
            .hit;
        let touching: Vec<(usize, usize, [f32; 4])> =
            if hit { vec![(0, 1, red)] } else { Vec::new() };
        let pixels = gpu.render_meshes_3d(
            W,
            H,
            [0.08, 0.08, 0.1, 1.0],
            &[(a, ma, colours[0]), (b, mb, colours[1])],
            &touching,
        )?;
        pictures.push(RgbaImage::from_raw(W, H, pixels).context("picture size")?);
    }
    let mut both = RgbaImage::new(2 * W + 8, H);
    image::imageops::overlay(&mut both, &pictures[0], 0, 0);
    image::imageops::overlay(&mut both, &pictures[1], i64::from(W) + 8, 0);
    std::fs::create_dir_all(out)?;
    let path = out.join("slab_limits.png");
    both.save(&path)?;
    Ok(Some(path))
}

#[allow(dead_code)]
fn main() -> Result<()> {
    let mut args = std::env::args().skip(1);
    let out = PathBuf::from(args.next().unwrap_or_else(|| "target/meshes3d".into()));
    if let Some(path) = limits(&out)? {
        println!("wrote {}", path.display());
    }
    let frames = args
        .next()
        .map(|f| f.parse())
        .transpose()
        .context("FRAMES must be a number")?
        .unwrap_or(30);
    run(&out, frames).map(|_| ())
}
