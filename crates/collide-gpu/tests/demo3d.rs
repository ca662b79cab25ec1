#![allow(clippy::unwrap_used, clippy::expect_used)]
//! The 3-D demo as a smoke test (lavapipe in CI): a few frames render,
//! the models touch in some and not in others, and touching frames show red.

#[allow(dead_code)]
#[path = "../examples/meshes3d.rs"]
mod demo;

#[test]
fn the_demo_renders_touching_frames_in_red() {
    let dir = std::env::temp_dir().join(format!("collide-gpu-demo-{}", std::process::id()));
    let Some(run) = demo::run(&dir, 6).unwrap() else {
        return;
    };
    assert!(run.gif.exists());
    let any_touch = run.touching.iter().any(|t| t.iter().any(|&h| h));
    assert!(any_touch, "the models should meet in some frame");
    for (t, red) in run.touching.iter().zip(&run.red_pixels) {
        assert_eq!(
            t.iter().any(|&h| h),
            *red > 0,
            "red pixels exactly where a pair touches: {t:?}, {red}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}
