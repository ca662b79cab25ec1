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
