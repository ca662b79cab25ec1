//! The setup of Tom Moertel's 1994 timing experiment, so that anyone can
//! rerun it: 30×30 sprites at random on a 640×480 screen, 64-pixel sectors,
//! 0, 50, 100 and 200 objects, "full checks per second".
//!
//! His sprites are integer rectangles `[x, x+30)`; as closed [`Aabb`]s they
//! are `[x, x+29]` (the last pixel), which makes [`Aabb::intersects`] his
//! `|dx| < 30 && |dy| < 30` exactly.

use std::time::{Duration, Instant};

use crate::{Aabb, BroadPhase, CollideError, Pair};

/// Screen width in pixels (`kScreenWidth`).
pub const SCREEN_WIDTH: i32 = 640;
/// Screen height in pixels (`kScreenHeight`).
pub const SCREEN_HEIGHT: i32 = 480;
/// Side of every sprite in pixels (`kRectSize`).
pub const RECT_SIZE: i32 = 30;
/// Side of a sector in pixels (`kSectorSize`).
pub const SECTOR_SIZE: f32 = 64.0;
/// Iterations between re-randomisations in his timing loop (`kCycleLength`).
pub const CYCLE_LENGTH: usize = 50;

/// His results, "tests/s" (complete checks of all objects per second):
/// `(objects, 25 MHz 68040, 80 MHz PowerPC 601)`.
pub const RESULTS_1994: [(usize, f64, f64); 4] = [
    (0, 611.0, 7640.0),
    (50, 340.0, 4020.0),
    (100, 189.0, 2060.0),
    (200, 81.0, 788.0),
];

/// The ANSI C reference `rand()` (`RAND_MAX` = 32767), so that runs repeat
/// on every machine.
#[derive(Clone, Debug)]
pub struct CRand {
    next: u32,
}

impl CRand {
    /// `RAND_MAX`.
    pub const RAND_MAX: u32 = 32767;

    /// The generator after `srand(seed)`.
    pub fn new(seed: u32) -> Self {
        Self { next: seed }
    }

    /// The next value in `0..=RAND_MAX`.
    pub fn rand(&mut self) -> u32 {
        self.next = self.next.wrapping_mul(1_103_515_245).wrapping_add(12345);
        (self.next / 65536) % 32768
    }

    /// His `_RandScalar(max)`: `(max * rand()) / (RAND_MAX + 1)`, in `0..max`.
    pub fn scalar(&mut self, max: i32) -> i32 {
        ((i64::from(max) * i64::from(self.rand())) / i64::from(Self::RAND_MAX + 1)) as i32
    }
}

/// His `_RandomizeObjects(n)`: upper-left corners uniform in
/// `0..SCREEN_WIDTH-1` × `0..SCREEN_HEIGHT-1`, as pixel-inclusive boxes.
pub fn random_sprites(rng: &mut CRand, n: usize) -> Vec<Aabb> {
    (0..n)
        .map(|_| {
            let x = rng.scalar(SCREEN_WIDTH - 1);
            let y = rng.scalar(SCREEN_HEIGHT - 1);
            sprite(x, y)
        })
        .collect()
}

/// The box of a sprite whose upper-left pixel is `(x, y)`.
pub fn sprite(x: i32, y: i32) -> Aabb {
    let (x0, y0) = (x as f32, y as f32);
    let (x1, y1) = ((x + RECT_SIZE - 1) as f32, (y + RECT_SIZE - 1) as f32);
    match Aabb::new([x0, y0], [x1, y1]) {
        Ok(b) => b,
        // Integer pixel coordinates are finite and ordered.
        Err(_) => unreachable!("sprite corners are finite and ordered"),
    }
}

/// What [`run_experiment`] measured.
#[derive(Clone, Debug)]
pub struct Experiment {
    /// Complete checks of all objects performed.
    pub checks: u64,
    /// Time spent in them (re-randomising not counted).
    pub seconds: f64,
    /// The boxes of the last check.
    pub last: Vec<Aabb>,
    /// Per box of the last check: whether it collided (his `gCollisionArray`).
    pub collided: Vec<bool>,
}

impl Experiment {
    /// His figure of merit: complete checks per second.
    pub fn checks_per_second(&self) -> f64 {
        self.checks as f64 / self.seconds.max(f64::MIN_POSITIVE)
    }
}

/// His `_RunExperiment(n)` for one broad phase: checks `n` random sprites
/// over and over for about `seconds`, re-randomising every
/// [`CYCLE_LENGTH`] checks outside the timed time; each check clears and
/// fills the collision array from the reported pairs.
///
/// # Errors
/// Whatever the broad phase returns.
pub fn run_experiment(
    bp: &mut dyn BroadPhase,
    n: usize,
    seconds: f64,
    rng: &mut CRand,
) -> Result<Experiment, CollideError> {
    let mut pairs: Vec<Pair> = Vec::with_capacity(4 * n);
    let mut collided = vec![false; n];
    let budget = Duration::from_secs_f64(seconds.max(0.0));
    let mut spent = Duration::ZERO;
    let mut checks = 0u64;
    let mut boxes = Vec::new();
    while spent < budget || checks == 0 {
        boxes = random_sprites(rng, n);
        let t0 = Instant::now();
        for _ in 0..CYCLE_LENGTH {
            collided.fill(false);
            pairs.clear();
            bp.find_pairs(&boxes, &mut pairs)?;
            for p in &pairs {
                collided[p.a as usize] = true;
                collided[p.b as usize] = true;
            }
            checks += 1;
        }
        spent += t0.elapsed();
    }
    Ok(Experiment {
        checks,
        seconds: spent.as_secs_f64(),
        last: boxes,
        collided,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ansi_c_rand_sequence() {
        // The first values of the C standard's example generator after srand(1).
        let mut r = CRand::new(1);
        let v: Vec<u32> = (0..5).map(|_| r.rand()).collect();
        assert_eq!(v, [16838, 5758, 10113, 17515, 31051]);
    }

    #[test]
    fn sprites_intersect_as_his_test() {
        // |dx| < 30 && |dy| < 30.
        assert!(sprite(0, 0).intersects(&sprite(29, 29)));
        assert!(!sprite(0, 0).intersects(&sprite(30, 0)));
        assert!(!sprite(0, 0).intersects(&sprite(0, 30)));
    }
}
