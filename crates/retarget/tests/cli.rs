//! The command on a batch: one output per input in the folder, a broken
//! input named and the others still written, the exit code saying so.

use std::process::Command;

#[test]
fn a_batch_writes_each_image_and_names_the_one_that_failed() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let mut inputs = Vec::new();
    for k in 0..3u32 {
        let path = dir.path().join(format!("in{k}.png"));
        let img = image::RgbImage::from_fn(40 + k, 30, |x, y| {
            image::Rgb([(x * 6) as u8, (y * 8) as u8, (k * 60) as u8])
        });
        img.save(&path).unwrap_or_else(|e| panic!("{e}"));
        inputs.push(path);
    }
    let broken = dir.path().join("broken.png");
    std::fs::write(&broken, b"not a png").unwrap_or_else(|e| panic!("{e}"));
    let out_dir = dir.path().join("out");
    let out = Command::new(env!("CARGO_BIN_EXE_retarget"))
        .args(&inputs)
        .arg(&broken)
        .args(["--width", "50%", "-o"])
        .arg(&out_dir)
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("broken.png"), "{stderr}");
    assert!(stderr.contains("1 of 4 images failed"), "{stderr}");
    for (k, input) in inputs.iter().enumerate() {
        let written = out_dir.join(input.file_name().unwrap_or_default());
        let img = image::open(&written).unwrap_or_else(|e| panic!("{}: {e}", written.display()));
        assert_eq!(img.width(), ((40 + k as u32) as f64 * 0.5).round() as u32);
        assert_eq!(img.height(), 30);
    }
}

/// `--gpu` on a batch resizes the first image both ways and sends the rest
/// the faster way, saying which (on lavapipe, a software GPU: the CPU).
#[test]
fn a_gpu_batch_keeps_the_faster_path() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let inputs: Vec<std::path::PathBuf> = (0..3u32)
        .map(|k| {
            let path = dir.path().join(format!("p{k}.png"));
            image::RgbImage::from_fn(120, 80, |x, y| {
                image::Rgb([(x * 2) as u8, (y * 3) as u8, (k * 70) as u8])
            })
            .save(&path)
            .unwrap_or_else(|e| panic!("{e}"));
            path
        })
        .collect();
    let out_dir = dir.path().join("out");
    let out = Command::new(env!("CARGO_BIN_EXE_retarget"))
        .args(&inputs)
        .args(["--width", "60%", "--gpu", "--any-adapter", "-o"])
        .arg(&out_dir)
        .env("NODEVICE_SELECT", "1")
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let chose = stderr.contains("the rest on the GPU") || stderr.contains("the rest on the CPU");
    if std::env::var("REQUIRE_GPU").as_deref() == Ok("1") {
        assert!(chose, "{stderr}");
    } else if !chose {
        eprintln!("SKIPPED: no GPU adapter for the batch choice: {stderr}");
    }
    for input in &inputs {
        let written = out_dir.join(input.file_name().unwrap_or_default());
        let img = image::open(&written).unwrap_or_else(|e| panic!("{}: {e}", written.display()));
        assert_eq!((img.width(), img.height()), (72, 80));
    }
}
