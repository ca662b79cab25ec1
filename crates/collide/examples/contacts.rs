//! Draws what the 2-D narrow phase answers for a dozen random pairs — both
//! shapes, their overlap, the minimum translation from each contact point
//! and the points themselves, or the closest points of apart pairs — into
//! `docs/narrow-contacts.png` (or the path given as the first argument).
//!
//! `cargo run --release -p collide --example contacts`

use std::error::Error;
use std::fs::File;
use std::io::BufWriter;
use std::path::PathBuf;

use collide::moertel::CRand;
use collide::{Capsule, Circle, ConvexPolygon, Rect, Shape, Transform, Vec2};

const PANEL: usize = 240;
const COLUMNS: usize = 4;
const ROWS: usize = 3;
/// World units across a panel.
const SPAN: f32 = 5.0;

/// Uniform in `lo..hi` from the ANSI C generator the demo already uses.
struct Uniform(CRand);
impl Uniform {
    fn next(&mut self) -> f32 {
        self.0.rand() as f32 / CRand::RAND_MAX as f32
    }
    fn range(&mut self, lo: f32, hi: f32) -> f32 {
        lo + (hi - lo) * self.next()
    }
}

fn shape(kind: usize, rng: &mut Uniform) -> Result<Shape, Box<dyn Error>> {
    Ok(match kind % 6 {
        0 => Shape::Circle(Circle::new(rng.range(0.5, 1.0))?),
        1 => Shape::Capsule(Capsule::along_x(rng.range(0.4, 0.9), rng.range(0.25, 0.5))?),
        2 => Shape::Rect(Rect::new(rng.range(0.4, 1.0), rng.range(0.3, 0.8))?),
        3 | 4 => {
            let n = 3 + (rng.next() * 6.0) as usize;
            let pts: Vec<Vec2> = (0..n)
                .map(|k| {
                    let a = k as f32 * std::f32::consts::TAU / n as f32 + rng.range(-0.2, 0.2);
                    let r = rng.range(0.6, 1.1);
                    Vec2::new(r * a.cos(), r * a.sin())
                })
                .collect();
            Shape::Polygon(ConvexPolygon::hull(&pts)?)
        }
        _ => {
            // A concave star: a compound of convex parts.
            let n = 10;
            let pts: Vec<Vec2> = (0..n)
                .map(|k| {
                    let a = k as f32 * std::f32::consts::TAU / n as f32;
                    let r = if k % 2 == 0 { 1.1 } else { 0.5 };
                    Vec2::new(r * a.cos(), r * a.sin())
                })
                .collect();
            Shape::polygon(&pts)?
        }
    })
}

struct Canvas {
    rgb: Vec<u8>,
    width: usize,
}

impl Canvas {
    fn put(&mut self, x: i64, y: i64, c: [u8; 3]) {
        let height = self.rgb.len() / 3 / self.width;
        if x >= 0 && y >= 0 && (x as usize) < self.width && (y as usize) < height {
            let i = 3 * (y as usize * self.width + x as usize);
            self.rgb[i..i + 3].copy_from_slice(&c);
        }
    }

    fn dot(&mut self, (x, y): (f32, f32), r: i64, c: [u8; 3]) {
        for dy in -r..=r {
            for dx in -r..=r {
                if dx * dx + dy * dy <= r * r {
                    self.put(x as i64 + dx, y as i64 + dy, c);
                }
            }
        }
    }

    fn line(&mut self, a: (f32, f32), b: (f32, f32), c: [u8; 3]) {
        let steps = ((b.0 - a.0).abs().max((b.1 - a.1).abs()).ceil() as usize).max(1);
        for s in 0..=steps {
            let t = s as f32 / steps as f32;
            let (x, y) = (a.0 + (b.0 - a.0) * t, a.1 + (b.1 - a.1) * t);
            self.dot((x, y), 1, c);
        }
    }
}

fn main() -> Result<(), Box<dyn Error>> {
    let path: PathBuf = std::env::args().nth(1).map_or_else(
        || PathBuf::from("crates/collide/docs/narrow-contacts.png"),
        PathBuf::from,
    );
    let (width, height) = (COLUMNS * PANEL, ROWS * PANEL);
    let mut canvas = Canvas {
        rgb: vec![255; width * height * 3],
        width,
    };
    let probe = Shape::Circle(Circle::new(1e-3)?);
    let mut rng = Uniform(CRand::new(2026));
    for panel in 0..COLUMNS * ROWS {
        let (ox, oy) = ((panel % COLUMNS) * PANEL, (panel / COLUMNS) * PANEL);
        let a = shape(panel, &mut rng)?;
        let b = shape(panel * 7 + 3, &mut rng)?;
        let xa = Transform::new([-0.6, 0.0], rng.range(-3.1, 3.1))?;
        // Close enough that about half the pairs overlap.
        let xb = Transform::new(
            [rng.range(0.2, 1.6), rng.range(-0.8, 0.8)],
            rng.range(-3.1, 3.1),
        )?;
        let scale = PANEL as f32 / SPAN;
        let to_px = |p: Vec2| {
            (
                ox as f32 + (p.x + SPAN / 2.0) * scale,
                oy as f32 + (SPAN / 2.0 - p.y) * scale,
            )
        };
        for y in 0..PANEL {
            for x in 0..PANEL {
                let world = Vec2::new(
                    (x as f32 + 0.5) / scale - SPAN / 2.0,
                    SPAN / 2.0 - (y as f32 + 0.5) / scale,
                );
                let at = Transform::translation(world)?;
                let in_a = collide::intersects(&a, &xa, &probe, &at)?;
                let in_b = collide::intersects(&b, &xb, &probe, &at)?;
                let colour = match (in_a, in_b) {
                    (true, true) => [150, 90, 190],
                    (true, false) => [120, 170, 230],
                    (false, true) => [245, 180, 110],
                    (false, false) => continue,
                };
                canvas.put((ox + x) as i64, (oy + y) as i64, colour);
            }
        }
        if let Some(c) = collide::contact(&a, &xa, &b, &xb)? {
            for p in c.points() {
                // The translation that would push b clear, drawn from the point.
                let from = p.point;
                let to = from + c.normal * c.depth.max(0.15);
                canvas.line(to_px(from), to_px(to), [20, 20, 20]);
                canvas.dot(to_px(from), 3, [210, 30, 30]);
            }
        } else if let Some(cp) = collide::closest_points(&a, &xa, &b, &xb)? {
            canvas.line(to_px(cp.on_a), to_px(cp.on_b), [30, 150, 60]);
            canvas.dot(to_px(cp.on_a), 3, [30, 150, 60]);
            canvas.dot(to_px(cp.on_b), 3, [30, 150, 60]);
        }
        // Panel frame.
        for k in 0..PANEL {
            canvas.put((ox + k) as i64, oy as i64, [200, 200, 200]);
            canvas.put(ox as i64, (oy + k) as i64, [200, 200, 200]);
        }
    }
    let file = File::create(&path).map_err(|e| format!("cannot create {}: {e}", path.display()))?;
    let mut enc = png::Encoder::new(BufWriter::new(file), width as u32, height as u32);
    enc.set_color(png::ColorType::Rgb);
    enc.set_depth(png::BitDepth::Eight);
    enc.write_header()?.write_image_data(&canvas.rgb)?;
    println!("wrote {}", path.display());
    Ok(())
}
