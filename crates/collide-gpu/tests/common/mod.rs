//! What the GPU tests share: the collider, or the skip line.

use collide_gpu::{GpuCollider, GpuError};

/// A collider on whatever adapter wgpu finds (lavapipe in CI); `None`
/// with a skip line when there is none, a failure under `REQUIRE_GPU=1`.
pub fn gpu(what: &str) -> Option<GpuCollider> {
    match GpuCollider::new(512) {
        Ok(g) => {
            eprintln!(
                "{what} on {}, occlusion queries give {:?}",
                g.adapter(),
                g.occlusion()
            );
            Some(g)
        }
        Err(e @ (GpuError::NoAdapter(_) | GpuError::Device(_))) => {
            assert!(
                std::env::var("REQUIRE_GPU").as_deref() != Ok("1"),
                "REQUIRE_GPU=1 but {e}"
            );
            eprintln!("SKIPPED: {what}: {e}");
            None
        }
        Err(e) => panic!("{e}"),
    }
}

/// A small seeded generator (splitmix64), the same stream everywhere.
#[allow(dead_code)]
pub struct Rng(pub u64);

#[allow(dead_code)]
impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Below `n`.
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    /// In 0..1.
    pub fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// How a pair stands against a CPU oracle's bounds.
#[allow(dead_code)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bounds {
    /// Some pixel is shared for sure.
    Touching,
    /// No pixel can be shared.
    Apart,
    /// Only pixels at the band: either answer is right.
    AtTheBand,
}

/// Checks the GPU's answer for pair `k` against an oracle that shares
/// `surely` pixels for sure and `possibly` at most: a sure pixel must be
/// a hit, no possible one must not, and a sample count must lie between.
#[allow(dead_code)]
pub fn judge(
    k: usize,
    hit: &collide_gpu::Hit,
    surely: u64,
    possibly: u64,
    occlusion: collide_gpu::Occlusion,
) -> Bounds {
    if occlusion == collide_gpu::Occlusion::SampleCount && hit.hit {
        assert!(
            (surely..=possibly).contains(&hit.query),
            "pair {k}: the GPU counted {}, the CPU {surely}..={possibly}",
            hit.query
        );
    }
    if surely > 0 {
        assert!(
            hit.hit,
            "pair {k}: {surely} pixels shared for sure, the GPU saw none"
        );
        Bounds::Touching
    } else if possibly == 0 {
        assert!(
            !hit.hit,
            "pair {k}: nothing shared, the GPU saw {}",
            hit.query
        );
        Bounds::Apart
    } else {
        Bounds::AtTheBand
    }
}
