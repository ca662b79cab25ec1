//! Shared by the metadata tests: small real files of each format, and
//! exiftool (the field's oracle) run with its arguments on stdin.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

/// Whether exiftool runs here; without it the test says SKIPPED, and
/// fails under REQUIRE_EXIFTOOL=1 (which CI sets).
pub fn exiftool_present(test: &str) -> bool {
    let ok = Command::new("exiftool")
        .arg("-ver")
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        assert!(
            std::env::var_os("REQUIRE_EXIFTOOL").is_none(),
            "exiftool is required (REQUIRE_EXIFTOOL is set): apt-get install libimage-exiftool-perl"
        );
        eprintln!(
            "SKIPPED {test}: exiftool is not installed (Debian package libimage-exiftool-perl)"
        );
    }
    ok
}

/// Runs exiftool with these arguments (one per line on stdin, so any
/// character but a newline passes unchanged); panics on failure.
pub fn exiftool(args: &[String]) -> String {
    let mut child = Command::new("exiftool")
        .args(["-charset", "utf8", "-@", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    {
        let mut stdin = child.stdin.take().unwrap();
        for a in args {
            assert!(!a.contains('\n'), "an argument with a newline: {a:?}");
            writeln!(stdin, "{a}").unwrap();
        }
    }
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success() && !stderr.contains("Error"),
        "exiftool {args:?}: {stderr}"
    );
    String::from_utf8(out.stdout).unwrap()
}

/// exiftool's JSON reading of one file (`-j -struct -G1`), as a map.
pub fn exiftool_json(path: &Path) -> serde_json::Map<String, serde_json::Value> {
    let out = exiftool(&[
        "-j".into(),
        "-struct".into(),
        "-G1".into(),
        "-XMP:all".into(),
        "-IPTC:all".into(),
        path.display().to_string(),
    ]);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    v.as_array().unwrap()[0].as_object().unwrap().clone()
}

/// A small JPEG.
pub fn jpeg(path: &Path) {
    let (w, h) = (16u16, 12u16);
    let pixels: Vec<u8> = (0..u32::from(w) * u32::from(h) * 3)
        .map(|i| (i * 7 % 251) as u8)
        .collect();
    let enc = jpeg_encoder::Encoder::new_file(path, 90).unwrap();
    enc.encode(&pixels, w, h, jpeg_encoder::ColorType::Rgb)
        .unwrap();
}

/// A small PNG.
pub fn png(path: &Path) {
    let f = std::fs::File::create(path).unwrap();
    let mut enc = png::Encoder::new(f, 4, 3);
    enc.set_color(png::ColorType::Rgb);
    let data: Vec<u8> = (0..36).map(|i| (i * 13) as u8).collect();
    enc.write_header().unwrap().write_image_data(&data).unwrap();
}

/// A small baseline TIFF (uncompressed RGB, little-endian).
pub fn tiff(path: &Path) {
    let (w, h) = (4u32, 3u32);
    let pixels: Vec<u8> = (0..w * h * 3).map(|i| (i * 17) as u8).collect();
    let entries: Vec<(u16, u16, u32, u32)> = {
        // (tag, type, count, value or offset); offsets filled below.
        let bps_at = 8 + 2 + 10 * 12 + 4;
        let data_at = bps_at + 6;
        vec![
            (256, 4, 1, w),
            (257, 4, 1, h),
            (258, 3, 3, bps_at as u32),
            (259, 3, 1, 1),
            (262, 3, 1, 2),
            (273, 4, 1, data_at as u32),
            (277, 3, 1, 3),
            (278, 4, 1, h),
            (279, 4, 1, w * h * 3),
            (284, 3, 1, 1),
        ]
    };
    let mut out = b"II*\0".to_vec();
    out.extend(8u32.to_le_bytes());
    out.extend((entries.len() as u16).to_le_bytes());
    for (tag, kind, count, value) in &entries {
        out.extend(tag.to_le_bytes());
        out.extend(kind.to_le_bytes());
        out.extend(count.to_le_bytes());
        if *kind == 3 && *count == 1 {
            out.extend((*value as u16).to_le_bytes());
            out.extend([0, 0]);
        } else {
            out.extend(value.to_le_bytes());
        }
    }
    out.extend(0u32.to_le_bytes());
    for _ in 0..3 {
        out.extend(8u16.to_le_bytes());
    }
    out.extend(&pixels);
    std::fs::write(path, out).unwrap();
}
