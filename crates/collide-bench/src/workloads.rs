//! The benchmark's worlds, from fixed seeds: the same boxes for every engine
//! and every run.

use collide::Aabb;

/// SplitMix64: tiny, fast, and the same on every machine.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Self(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in [0, 1).
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Uniform in [lo, hi).
    pub fn range(&mut self, lo: f64, hi: f64) -> f32 {
        (lo + (hi - lo) * self.unit()) as f32
    }

    /// Standard normal (Box–Muller).
    pub fn normal(&mut self) -> f64 {
        let u = self.unit().max(1e-300);
        let v = self.unit();
        (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()
    }
}

/// Workload families.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, clap::ValueEnum, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Family {
    /// 30×30 boxes at Moertel's 200-object density (1,536 px² per object).
    Dense,
    /// 30×30 boxes at his 50-object density (6,144 px² per object).
    Sparse,
    /// 99% of boxes 4–30 px a side, 1% 30–300 px; 1,536 px² per object.
    Mixed,
    /// Sides 1 + 99·X¹⁰ (BEPU's size law), 1,536 px² per object.
    HeavyTailed,
    /// 4–30 px boxes in Gaussian blobs of about 1,000 objects.
    Clustered,
    /// Lasers and walls: half 10–300 × 1–3 px, half 1–3 × 10–300 px; 6,144 px² per object.
    Thin,
    /// 1,500 players (30×30) against 50,000 bullets (4×4); pairs between the sets only.
    /// (At other sizes, the same proportions.)
    Bipartite,
    /// Dense, with 10% of objects moving up to 2 px per frame.
    Motion10,
    /// Dense, with every object moving up to 2 px per frame.
    Motion100,
}

impl Family {
    /// Every family, in the order the benchmark runs them.
    pub const ALL: [Family; 9] = [
        Family::Dense,
        Family::Sparse,
        Family::Mixed,
        Family::HeavyTailed,
        Family::Clustered,
        Family::Thin,
        Family::Bipartite,
        Family::Motion10,
        Family::Motion100,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Self::Dense => "dense",
            Self::Sparse => "sparse",
            Self::Mixed => "mixed",
            Self::HeavyTailed => "heavy-tailed",
            Self::Clustered => "clustered",
            Self::Thin => "thin",
            Self::Bipartite => "bipartite",
            Self::Motion10 => "motion-10%",
            Self::Motion100 => "motion-100%",
        }
    }

    pub fn is_motion(self) -> bool {
        matches!(self, Self::Motion10 | Self::Motion100)
    }
}

/// Constant-velocity motion, bouncing off the world's edges.
#[derive(Clone, Debug)]
pub struct Motion {
    /// Indices of the objects that move.
    pub moving: Vec<u32>,
    velocity: Vec<[f32; 2]>,
    side: f32,
}

impl Motion {
    /// A `share` of the `n` objects of a dense world, each with its own
    /// velocity of 0.1–2 px per frame in a random direction.
    pub fn random(rng: &mut Rng, n: usize, share: f64) -> Self {
        let moving: Vec<u32> = (0..n as u32).filter(|_| rng.unit() < share).collect();
        let velocity = moving
            .iter()
            .map(|_| {
                let a = rng.unit() * std::f64::consts::TAU;
                let s = 0.1 + 1.9 * rng.unit();
                [(s * a.cos()) as f32, (s * a.sin()) as f32]
            })
            .collect();
        Motion {
            moving,
            velocity,
            side: side(n, 1536.0) as f32 + 30.0,
        }
    }

    /// Moves every moving object one frame; `moved` receives their indices.
    pub fn step(&mut self, boxes: &mut [Aabb], moved: &mut Vec<u32>) {
        moved.clear();
        for (k, &i) in self.moving.iter().enumerate() {
            let b = boxes[i as usize];
            let v = &mut self.velocity[k];
            let (mut lo, mut hi) = (b.min(), b.max());
            lo.x += v[0];
            hi.x += v[0];
            lo.y += v[1];
            hi.y += v[1];
            if lo.x < 0.0 || hi.x > self.side {
                v[0] = -v[0];
            }
            if lo.y < 0.0 || hi.y > self.side {
                v[1] = -v[1];
            }
            if let Ok(nb) = Aabb::new(lo, hi) {
                boxes[i as usize] = nb;
            }
            moved.push(i);
        }
    }
}

/// A generated world.
#[derive(Clone, Debug)]
pub struct World {
    pub family: Family,
    pub boxes: Vec<Aabb>,
    /// The second set of a bipartite world.
    pub others: Vec<Aabb>,
    pub motion: Option<Motion>,
}

fn bx(x: f32, y: f32, w: f32, h: f32) -> Aabb {
    Aabb::new([x, y], [x + w, y + h]).unwrap_or_else(|_| unreachable!("generated boxes are finite"))
}

fn side(n: usize, area_per_object: f64) -> f64 {
    (n as f64 * area_per_object).sqrt()
}

/// `n` square boxes of side `s`, uniform in a square sized by density.
fn uniform(rng: &mut Rng, n: usize, s: f32, area: f64) -> Vec<Aabb> {
    let side = side(n, area);
    (0..n)
        .map(|_| bx(rng.range(0.0, side), rng.range(0.0, side), s, s))
        .collect()
}

/// The world of `family` with about `n` objects (bipartite ignores `n`).
pub fn generate(family: Family, n: usize, seed: u64) -> World {
    let mut rng = Rng::new(seed ^ (family as u64).wrapping_mul(0x1000_0000_01B3));
    let mut others = Vec::new();
    let mut motion = None;
    let boxes = match family {
        Family::Dense => uniform(&mut rng, n, 30.0, 1536.0),
        Family::Sparse => uniform(&mut rng, n, 30.0, 6144.0),
        Family::Mixed => {
            let side = side(n, 1536.0);
            (0..n)
                .map(|_| {
                    let (x, y) = (rng.range(0.0, side), rng.range(0.0, side));
                    let (lo, hi) = if rng.unit() < 0.01 {
                        (30.0, 300.0)
                    } else {
                        (4.0, 30.0)
                    };
                    bx(x, y, rng.range(lo, hi), rng.range(lo, hi))
                })
                .collect()
        }
        Family::HeavyTailed => {
            let side = side(n, 1536.0);
            (0..n)
                .map(|_| {
                    let (x, y) = (rng.range(0.0, side), rng.range(0.0, side));
                    let w = 1.0 + 99.0 * rng.unit().powi(10);
                    let h = 1.0 + 99.0 * rng.unit().powi(10);
                    bx(x, y, w as f32, h as f32)
                })
                .collect()
        }
        Family::Clustered => {
            let side = side(n, 1536.0);
            let clusters = (n / 1000).max(1);
            let centres: Vec<(f64, f64)> = (0..clusters)
                .map(|_| (rng.unit() * side, rng.unit() * side))
                .collect();
            (0..n)
                .map(|_| {
                    let (cx, cy) = centres[(rng.next_u64() % clusters as u64) as usize];
                    let x = cx + 250.0 * rng.normal();
                    let y = cy + 250.0 * rng.normal();
                    let s = rng.range(4.0, 30.0);
                    bx(x as f32, y as f32, s, s)
                })
                .collect()
        }
        Family::Thin => {
            let side = side(n, 6144.0);
            (0..n)
                .map(|i| {
                    let (x, y) = (rng.range(0.0, side), rng.range(0.0, side));
                    let (long, short) = (rng.range(10.0, 300.0), rng.range(1.0, 3.0));
                    if i % 2 == 0 {
                        bx(x, y, long, short)
                    } else {
                        bx(x, y, short, long)
                    }
                })
                .collect()
        }
        Family::Bipartite => {
            // 1,500 against 50,000 at n = 51,500; the same proportions below.
            let players = (n * 1500 / 51_500).max(1);
            let bullets = n.saturating_sub(players);
            let side = side(players + bullets, 1536.0);
            others = (0..bullets)
                .map(|_| bx(rng.range(0.0, side), rng.range(0.0, side), 4.0, 4.0))
                .collect();
            (0..players)
                .map(|_| bx(rng.range(0.0, side), rng.range(0.0, side), 30.0, 30.0))
                .collect()
        }
        Family::Motion10 | Family::Motion100 => {
            let boxes = uniform(&mut rng, n, 30.0, 1536.0);
            let share = if family == Family::Motion10 { 0.1 } else { 1.0 };
            motion = Some(Motion::random(&mut rng, n, share));
            boxes
        }
    };
    World {
        family,
        boxes,
        others,
        motion,
    }
}

/// Longest side of any box (rounded up): sizes the fixed sector grids.
pub fn max_extent(boxes: &[Aabb]) -> f64 {
    boxes
        .iter()
        .map(|b| {
            let w = f64::from(b.max().x) - f64::from(b.min().x);
            let h = f64::from(b.max().y) - f64::from(b.min().y);
            w.max(h).next_up()
        })
        .fold(0.0, f64::max)
}

/// The smallest power of two strictly above `factor * extent`.
pub fn pow2_above(extent: f64, factor: f64) -> f32 {
    let mut s = 1.0f64 / 1024.0;
    while s <= factor * extent {
        s *= 2.0;
    }
    s as f32
}
