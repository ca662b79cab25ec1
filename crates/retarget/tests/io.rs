#![allow(clippy::unwrap_used, clippy::expect_used)]
//! Files and the command line: bad input gets a clear error and never a
//! panic or a half-written output; depth, orientation and ICC survive.

use std::path::{Path, PathBuf};
use std::process::Command;

use image::{ImageEncoder, codecs::png::PngEncoder};
use retarget::io::{self, AnyRaster, IoError};
use retarget::{Limits, RetargetError};

fn tmp() -> tempfile::TempDir {
    tempfile::tempdir().unwrap()
}

fn png_bytes(w: u32, h: u32, icc: Option<Vec<u8>>) -> Vec<u8> {
    let data: Vec<u8> = (0..w * h * 3).map(|i| (i * 7 % 256) as u8).collect();
    let mut out = Vec::new();
    let mut enc = PngEncoder::new(&mut out);
    if let Some(p) = icc {
        enc.set_icc_profile(p).unwrap();
    }
    enc.write_image(&data, w, h, image::ExtendedColorType::Rgb8)
        .unwrap();
    out
}

fn cli() -> Command {
    Command::new(env!("CARGO_BIN_EXE_retarget"))
}

fn run(args: &[&str]) -> (bool, String) {
    let o = cli().args(args).output().unwrap();
    (
        o.status.success(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

/// A PNG header claiming 100,000 × 100,000: refused before decoding, with
/// the size in the message.
#[test]
fn huge_header_is_refused_before_allocating() {
    let dir = tmp();
    let mut bytes = png_bytes(4, 4, None);
    // IHDR's width and height are bytes 16..24; its CRC covers 12..29.
    bytes[16..20].copy_from_slice(&100_000u32.to_be_bytes());
    bytes[20..24].copy_from_slice(&100_000u32.to_be_bytes());
    let crc = crc32(&bytes[12..29]);
    bytes[29..33].copy_from_slice(&crc.to_be_bytes());
    let p = dir.path().join("huge.png");
    std::fs::write(&p, &bytes).unwrap();
    let err = io::read(&p, &Limits::default()).unwrap_err();
    assert!(
        matches!(
            err,
            IoError::Image {
                source: RetargetError::TooLarge {
                    width: 100_000,
                    height: 100_000,
                    ..
                },
                ..
            }
        ),
        "{err:?}"
    );
    assert!(err.to_string().contains("100000x100000"), "{err}");
}

fn crc32(data: &[u8]) -> u32 {
    let mut c = 0xffff_ffffu32;
    for &b in data {
        c ^= u32::from(b);
        for _ in 0..8 {
            c = if c & 1 != 0 {
                0xedb8_8320 ^ (c >> 1)
            } else {
                c >> 1
            };
        }
    }
    !c
}

#[test]
fn truncated_and_garbage_files_are_errors() {
    let dir = tmp();
    let full = png_bytes(64, 64, None);
    for cut in [0, 8, 20, 40, full.len() / 2, full.len() - 5] {
        let p = dir.path().join(format!("cut{cut}.png"));
        std::fs::write(&p, &full[..cut]).unwrap();
        let err = io::read(&p, &Limits::default()).unwrap_err();
        assert!(err.to_string().contains(&format!("cut{cut}.png")), "{err}");
    }
    let p = dir.path().join("text.png");
    std::fs::write(&p, b"this is not an image at all").unwrap();
    assert!(io::read(&p, &Limits::default()).is_err());
    let missing = dir.path().join("missing.png");
    assert!(matches!(
        io::read(&missing, &Limits::default()),
        Err(IoError::File { .. })
    ));
}

/// A failed write leaves the old output in place and no stray file.
#[test]
fn writes_are_atomic() {
    let dir = tmp();
    let out = dir.path().join("out.jpg");
    std::fs::write(&out, b"previous contents").unwrap();
    // JPEG cannot hold 70,000 columns: the encoder fails mid-way.
    let wide = retarget::Raster::from_vec(70_000, 1, 1, vec![0u8; 70_000]).unwrap();
    let err = io::write(&out, &AnyRaster::U8(wide), None, None).unwrap_err();
    assert!(err.to_string().contains("out.jpg"), "{err}");
    assert_eq!(std::fs::read(&out).unwrap(), b"previous contents");
    let names: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names.len(), 1, "left behind: {names:?}");
    // A successful write replaces the file and keeps its permissions.
    let png = dir.path().join("ok.png");
    std::fs::write(&png, b"old").unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&png, std::fs::Permissions::from_mode(0o640)).unwrap();
        let small = retarget::Raster::from_vec(2, 2, 1, vec![0u8; 4]).unwrap();
        io::write(&png, &AnyRaster::U8(small.clone()), None, None).unwrap();
        assert_eq!(
            std::fs::metadata(&png).unwrap().permissions().mode() & 0o777,
            0o640
        );
        let fresh = dir.path().join("fresh.png");
        io::write(&fresh, &AnyRaster::U8(small), None, None).unwrap();
        assert_eq!(
            std::fs::metadata(&fresh).unwrap().permissions().mode() & 0o777,
            0o644
        );
    }
    // An unknown extension is refused up front.
    let small = retarget::Raster::from_vec(1, 1, 1, vec![0u8]).unwrap();
    let err = io::write(&dir.path().join("x.xyz"), &AnyRaster::U8(small), None, None).unwrap_err();
    assert!(matches!(err, IoError::UnknownFormat { .. }));
}

#[test]
fn sixteen_bit_png_round_trips_as_sixteen_bit() {
    let dir = tmp();
    let src =
        retarget::Raster::from_vec(50, 20, 3, (0..3000u32).map(|i| (i * 21) as u16).collect())
            .unwrap();
    let p = dir.path().join("deep.png");
    io::write(&p, &AnyRaster::U16(src), None, None).unwrap();
    let out = dir.path().join("deep_out.png");
    let (ok, err) = run(&[
        p.to_str().unwrap(),
        "--width",
        "25",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert!(ok, "{err}");
    match io::read(&out, &Limits::default()).unwrap().raster {
        AnyRaster::U16(r) => assert_eq!((r.width(), r.height(), r.channels()), (25, 20, 3)),
        other => panic!("came back 8-bit: {:?}", other.width()),
    }
}

#[test]
fn icc_profile_is_carried() {
    let dir = tmp();
    let icc: Vec<u8> = (0..200u32).map(|i| (i * 13) as u8).collect();
    let p = dir.path().join("icc.png");
    std::fs::write(&p, png_bytes(40, 30, Some(icc.clone()))).unwrap();
    let out = dir.path().join("icc_out.png");
    let (ok, err) = run(&[
        p.to_str().unwrap(),
        "--width",
        "50%",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert!(ok, "{err}");
    let pic = io::read(&out, &Limits::default()).unwrap();
    assert_eq!(pic.icc.as_deref(), Some(&icc[..]));
    assert_eq!(pic.raster.width(), 20);
}

/// A JPEG whose EXIF says "rotate 90° clockwise" is read upright, and the
/// output's EXIF says 1 so no viewer turns it again.
#[test]
fn exif_orientation_is_honoured() {
    let dir = tmp();
    // Big-endian TIFF, IFD0 with one entry: Orientation (0x0112) = 6.
    let exif: Vec<u8> = vec![
        b'M', b'M', 0, 42, 0, 0, 0, 8, 0, 1, 0x01, 0x12, 0, 3, 0, 0, 0, 1, 0, 6, 0, 0, 0, 0, 0, 0,
    ];
    let data = vec![128u8; 40 * 30 * 3];
    let mut bytes = Vec::new();
    let mut enc = image::codecs::jpeg::JpegEncoder::new_with_quality(&mut bytes, 90);
    enc.set_exif_metadata(exif).unwrap();
    enc.write_image(&data, 40, 30, image::ExtendedColorType::Rgb8)
        .unwrap();
    let p = dir.path().join("turned.jpg");
    std::fs::write(&p, &bytes).unwrap();
    let pic = io::read(&p, &Limits::default()).unwrap();
    assert_eq!((pic.raster.width(), pic.raster.height()), (30, 40));
    let out = dir.path().join("turned_out.jpg");
    let (ok, err) = run(&[
        p.to_str().unwrap(),
        "--height",
        "20",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert!(ok, "{err}");
    let back = io::read(&out, &Limits::default()).unwrap();
    assert_eq!(
        (back.raster.width(), back.raster.height()),
        (30, 20),
        "turned twice?"
    );
}

#[test]
fn command_line_errors_are_clear() {
    let dir = tmp();
    let p = dir.path().join("in.png");
    std::fs::write(&p, png_bytes(40, 30, None)).unwrap();
    let o = dir.path().join("o.png");
    let (i, o) = (p.to_str().unwrap(), o.to_str().unwrap());
    let cases: &[(&[&str], &str)] = &[
        (&[i, "--width", "0", "-o", o], "at least 1 pixel"),
        (&[i, "--width", "abc", "-o", o], "not a whole number"),
        (&[i, "--width=-5%", "-o", o], "must be above 0"),
        (&[i, "--width", "x%", "-o", o], "not a percentage"),
        (&[i, "--width", "70000", "-o", o], "over the limit"),
        (&[i, "-o", o], "give --width, --height or both"),
        (
            &[i, "--width", "10", "--mode", "mesh", "--k", "0.5", "-o", o],
            "out of reach",
        ),
        (
            &[i, "--width", "20", "--strength", "2", "-o", o],
            "strength",
        ),
        (&[i, "--width", "20", "--protect", i, "-o", o], ""),
    ];
    for (args, want) in cases {
        let (ok, err) = run(args);
        if want.is_empty() {
            assert!(ok, "{args:?}: {err}");
        } else {
            assert!(!ok, "{args:?} succeeded");
            assert!(err.contains(want), "{args:?}: {err}");
            assert!(!err.contains("panicked"), "{args:?}: {err}");
        }
    }
    // A mask of the wrong size names both sizes.
    let m = dir.path().join("mask.png");
    std::fs::write(&m, png_bytes(10, 10, None)).unwrap();
    let (ok, err) = run(&[
        i,
        "--width",
        "20",
        "--remove",
        m.to_str().unwrap(),
        "-o",
        o,
        "--force",
    ]);
    assert!(
        !ok && err.contains("10x10") && err.contains("40x30"),
        "{err}"
    );
}

/// Every mode through the command line, in each format we write.
#[test]
fn modes_and_formats() {
    let dir = tmp();
    let p = dir.path().join("in.png");
    std::fs::write(&p, png_bytes(48, 32, None)).unwrap();
    for mode in ["separable", "mesh", "parallax"] {
        for ext in ["png", "jpg", "tif", "webp", "bmp"] {
            let out: PathBuf = dir.path().join(format!("{mode}.{ext}"));
            let (ok, err) = run(&[
                p.to_str().unwrap(),
                "--width",
                "30",
                "--height",
                "40",
                "--mode",
                mode,
                "-o",
                out.to_str().unwrap(),
            ]);
            assert!(ok, "{mode} {ext}: {err}");
            let back = io::read(Path::new(&out), &Limits::default()).unwrap();
            assert_eq!(
                (back.raster.width(), back.raster.height()),
                (30, 40),
                "{mode} {ext}"
            );
        }
    }
}

mod hostile {
    use super::*;
    use proptest::prelude::*;

    /// Valid small files in every format we read, to mutate.
    fn seeds() -> Vec<(&'static str, Vec<u8>)> {
        let dir = tmp();
        let img =
            retarget::Raster::from_vec(9, 7, 3, (0..189u32).map(|i| (i * 37) as u8).collect())
                .unwrap();
        let mut out = vec![("png", png_bytes(9, 7, None))];
        for ext in ["jpg", "tif", "webp", "bmp"] {
            let p = dir.path().join(format!("s.{ext}"));
            io::write(&p, &AnyRaster::U8(img.clone()), None, None).unwrap();
            out.push((ext, std::fs::read(&p).unwrap()));
        }
        out
    }

    proptest! {
        /// Corrupted files of every format: an error or a picture, never a
        /// panic.
        #[test]
        fn corrupt_files_never_panic(which in 0usize..5, flips in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..12), cut in any::<prop::sample::Index>()) {
            let seeds = seeds();
            let (ext, mut bytes) = seeds[which].clone();
            for (at, v) in flips {
                let i = at.index(bytes.len());
                bytes[i] = v;
            }
            let keep = cut.index(bytes.len() + 1);
            if keep > 8 {
                bytes.truncate(keep);
            }
            let dir = tmp();
            let p = dir.path().join(format!("bad.{ext}"));
            std::fs::write(&p, &bytes).unwrap();
            let _ = io::read(&p, &Limits::default());
        }
    }
}

/// The header alone gives the size, channels and depth that reading gives,
/// for 8- and 16-bit PNG and for JPEG.
#[test]
fn header_agrees_with_the_pixels() {
    let dir = tmp();
    let deep = retarget::Raster::from_vec(7, 5, 4, (0..140u32).map(|i| (i * 401) as u16).collect())
        .unwrap();
    let p16 = dir.path().join("h16.png");
    io::write(&p16, &AnyRaster::U16(deep), None, None).unwrap();
    let p8 = dir.path().join("h8.png");
    std::fs::write(&p8, png_bytes(9, 4, None)).unwrap();
    let jpg = dir.path().join("h.jpg");
    let small = retarget::Raster::from_vec(6, 3, 3, vec![90u8; 54]).unwrap();
    io::write(&jpg, &AnyRaster::U8(small), None, None).unwrap();
    for (p, bytes) in [(&p16, 2), (&p8, 1), (&jpg, 1)] {
        let head = io::header(p, &Limits::default()).unwrap();
        let pic = io::read(p, &Limits::default()).unwrap();
        assert_eq!(
            (
                head.width,
                head.height,
                head.channels,
                head.bytes_per_sample
            ),
            (
                pic.raster.width(),
                pic.raster.height(),
                pic.raster.channels(),
                bytes
            ),
            "{}",
            p.display()
        );
    }
}

/// A resize that would take more memory than allowed is refused before the
/// pixels are read, with the size, the mode, the need and the allowance in
/// the message, and nothing written; the same file goes through with room.
#[test]
fn a_resize_beyond_the_memory_allowed_is_refused_up_front() {
    let dir = tmp();
    let p = dir.path().join("big.png");
    let flat = retarget::Raster::from_vec(1500, 1200, 3, vec![120u8; 1500 * 1200 * 3]).unwrap();
    io::write(&p, &AnyRaster::U8(flat), None, None).unwrap();
    let out = dir.path().join("out.png");
    let args = |mem: &'static str| {
        vec![
            p.to_str().unwrap().to_owned(),
            "--width".into(),
            "60%".into(),
            "--mode".into(),
            "mesh".into(),
            "--max-memory".into(),
            mem.into(),
            "-o".into(),
            out.to_str().unwrap().to_owned(),
        ]
    };
    let o = cli().args(args("20M")).output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success());
    for part in [
        "1500 × 1200",
        "mesh",
        "more than the 21 MB allowed",
        "--max-memory",
    ] {
        assert!(err.contains(part), "{part:?} missing from: {err}");
    }
    assert!(!err.contains("panicked"), "{err}");
    assert!(!out.exists());
    // The estimate for this resize is under 100 MB.
    let need = retarget::peak_memory(retarget::Mode::Mesh, (1500, 1200), 3, 1, (900, 1200));
    assert!(need > 20 << 20 && need < 100 << 20, "{need}");
    let o = cli().args(args("100M")).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(io::header(&out, &Limits::default()).unwrap().width, 900);
    // Sizes that are not sizes are named.
    for (bad, says) in [
        ("lots", "not a size"),
        ("5Q", "the unit must be"),
        ("0", "above 0"),
    ] {
        let o = cli()
            .args([
                p.to_str().unwrap(),
                "--width",
                "50%",
                "--max-memory",
                bad,
                "-o",
            ])
            .arg(&out)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(!o.status.success() && err.contains(says), "{bad}: {err}");
    }
}

/// `--gpu` on a machine without a hardware GPU (a software renderer does
/// not count) says so in one line, and nothing else (no "XDG_RUNTIME_DIR
/// is invalid" from the Vulkan layers), and resizes on the CPU: exit 0,
/// output written.
/// A 16-bit image with `--gpu` does the same, saying why.
#[test]
fn gpu_without_a_gpu_falls_back_to_the_cpu_and_says_so() {
    let dir = tmp();
    let p = dir.path().join("in.png");
    std::fs::write(&p, png_bytes(60, 40, None)).unwrap();
    let out = dir.path().join("out.png");
    let o = cli()
        .args([p.to_str().unwrap(), "--width", "30", "--gpu", "-o"])
        .arg(&out)
        // As over ssh or in cron: no session, so no runtime folder.
        .env_remove("XDG_RUNTIME_DIR")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    assert_eq!(io::header(&out, &Limits::default()).unwrap().width, 30);
    match retarget::gpu::Gpu::hardware() {
        Ok(g) => eprintln!(
            "a hardware GPU is here ({}): no fallback to see",
            g.adapter()
        ),
        Err(_) => assert!(
            err.contains("resizing on the CPU instead") && err.lines().count() == 1,
            "{err}"
        ),
    }
    let deep = retarget::Raster::from_vec(8, 8, 3, vec![4000u16; 192]).unwrap();
    let p16 = dir.path().join("deep.png");
    io::write(&p16, &AnyRaster::U16(deep), None, None).unwrap();
    let o = cli()
        .args([
            p16.to_str().unwrap(),
            "--width",
            "4",
            "--gpu",
            "--force",
            "-o",
        ])
        .arg(&out)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success() && err.contains("16-bit"), "{err}");
}
