#![allow(clippy::unwrap_used, clippy::expect_used)]
//! Files that end before their image does are errors in every format we
//! read, never a picture with a grey or black remainder; `--partial`
//! writes a truncated JPEG anyway, with a warning and exit code 2.

use std::process::Command;

use proptest::prelude::*;
use retarget::io::{self, AnyRaster, IoError};
use retarget::{Limits, Raster};

/// A photo-like image (smooth, with detail), so that every format's data
/// runs long enough to be cut anywhere.
fn picture(w: u32, h: u32) -> Raster<u8> {
    let data = (0..w * h)
        .flat_map(|i| {
            let (x, y) = (i % w, i / w);
            [(x * 3 + y) as u8, ((y * 5) ^ x) as u8, ((x * y) / 7) as u8]
        })
        .collect();
    Raster::from_vec(w, h, 3, data).unwrap()
}

fn encoded(ext: &str) -> Vec<u8> {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join(format!("whole.{ext}"));
    io::write(&p, &AnyRaster::U8(picture(64, 48)), None, None).unwrap();
    std::fs::read(&p).unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    /// Cut anywhere from the first byte to the last but one, a JPEG is
    /// `Truncated`, and the others are errors of some kind.
    #[test]
    fn a_cut_file_is_an_error(which in 0usize..5, cut in any::<prop::sample::Index>()) {
        let ext = ["jpg", "png", "tif", "webp", "bmp"][which];
        let whole = encoded(ext);
        let keep = 1 + cut.index(whole.len() - 1);
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join(format!("cut.{ext}"));
        std::fs::write(&p, &whole[..keep]).unwrap();
        match io::read(&p, &Limits::default()) {
            Ok(_) => prop_assert!(false, "{ext} cut at {keep} of {} read as a picture", whole.len()),
            Err(IoError::Truncated { .. }) => {}
            Err(e) => prop_assert!(ext != "jpg" || keep < 3, "{ext} cut at {keep}: {e}"),
        }
    }
}

fn retarget(args: &[&std::ffi::OsStr]) -> (Option<i32>, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_retarget"))
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The report's case: a JPEG cut after 222 bytes (its header only) is an
/// error naming the file and where it ends, not a flat grey picture.
/// `--partial` resizes a JPEG cut in its scan, says so and exits 2.
#[test]
fn the_command_refuses_a_cut_jpeg_unless_partial() {
    let dir = tempfile::tempdir().unwrap();
    let whole = encoded("jpg");
    let head = dir.path().join("head.jpg");
    std::fs::write(&head, &whole[..222]).unwrap();
    let out = dir.path().join("out.png");
    let (code, err) = retarget(&[
        head.as_os_str(),
        "--width".as_ref(),
        "50%".as_ref(),
        "-o".as_ref(),
        out.as_os_str(),
    ]);
    assert_eq!(code, Some(1), "{err}");
    assert!(
        err.contains("head.jpg: the file ends before its image does (after 222 bytes"),
        "{err}"
    );
    assert!(!out.exists());

    let half = dir.path().join("half.jpg");
    std::fs::write(&half, &whole[..whole.len() * 2 / 3]).unwrap();
    let (code, err) = retarget(&[
        half.as_os_str(),
        "--width".as_ref(),
        "50%".as_ref(),
        "-o".as_ref(),
        out.as_os_str(),
    ]);
    assert_eq!(code, Some(1), "{err}");
    assert!(!out.exists());
    let (code, err) = retarget(&[
        half.as_os_str(),
        "--width".as_ref(),
        "50%".as_ref(),
        "--partial".as_ref(),
        "-o".as_ref(),
        out.as_os_str(),
    ]);
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("warning: ") && err.contains("half.jpg") && err.contains("--partial"),
        "{err}"
    );
    let img = image::open(&out).unwrap();
    assert_eq!((img.width(), img.height()), (32, 48));
}

/// Not files: a link to `/dev/zero` named like a photo, a FIFO (which
/// would wait for a writer forever), a folder: each refused at once,
/// saying what it is.
#[cfg(unix)]
#[test]
fn devices_fifos_and_folders_are_refused_by_what_they_are() {
    let dir = tempfile::tempdir().unwrap();
    let zero = dir.path().join("y.jpg");
    std::os::unix::fs::symlink("/dev/zero", &zero).unwrap();
    let fifo = dir.path().join("f.png");
    let made = Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(made.success());
    let folder = dir.path().join("d.png");
    std::fs::create_dir(&folder).unwrap();
    let out = dir.path().join("o.png");
    for (input, says) in [
        (&zero, "a device"),
        (&fifo, "a FIFO"),
        (&folder, "a folder"),
    ] {
        let (code, err) = retarget(&[
            input.as_os_str(),
            "--width".as_ref(),
            "5".as_ref(),
            "-o".as_ref(),
            out.as_os_str(),
        ]);
        assert_eq!(code, Some(1), "{err}");
        assert!(
            err.contains(says) && err.contains("not a photo file"),
            "{}: {err}",
            input.display()
        );
    }
}
