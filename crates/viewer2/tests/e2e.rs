#![allow(clippy::unwrap_used, clippy::expect_used)]
//! The real binary under Xvfb: `viewer2 --catalog C DIR --screenshot P`
//! opens the window on a folder of generated photos, indexes it in the
//! background, paints the thumbnails and saves a screenshot. Without Xvfb
//! this is skipped, unless REQUIRE_GPU=1 (CI), where it fails.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

mod photos;

fn find_in_path(name: &str) -> Option<PathBuf> {
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|d| d.join(name))
        .find(|p| p.is_file())
}

/// An X server of its own, killed when dropped.
struct Xvfb(Child, String);

impl Drop for Xvfb {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn start_xvfb(xvfb: &Path) -> Xvfb {
    // `-displayfd 1`: the server picks a free display and prints its
    // number once it accepts connections.
    let mut child = Command::new(xvfb)
        .args([
            "-displayfd",
            "1",
            "-screen",
            "0",
            "1280x800x24",
            "-nolisten",
            "tcp",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let display = format!(":{}", line.trim());
    assert!(line.trim().parse::<u32>().is_ok(), "Xvfb said {line:?}");
    Xvfb(child, display)
}

#[test]
fn the_binary_opens_a_folder_and_paints_it() {
    let Some(xvfb) = find_in_path("Xvfb") else {
        if std::env::var("REQUIRE_GPU").as_deref() == Ok("1") {
            panic!("Xvfb is missing (Debian package xvfb), and REQUIRE_GPU=1");
        }
        eprintln!("SKIPPED the end-to-end window test: no Xvfb (Debian package xvfb)");
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("photos");
    std::fs::create_dir_all(folder.join("Holiday")).unwrap();
    for k in 0..30u32 {
        let mut img = photos::picture(480 + 8 * k, 360);
        for p in img.pixels_mut() {
            p.0[(k % 3) as usize] = p.0[(k % 3) as usize].wrapping_add((k * 37) as u8);
        }
        let name = format!("Holiday/Beach_{k:02}.jpg");
        std::fs::write(folder.join(name), photos::jpeg(&img, 85)).unwrap();
    }
    std::fs::write(folder.join("broken.jpg"), b"not a photo").unwrap();
    let runtime = dir.path().join("runtime");
    std::fs::create_dir_all(&runtime).unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&runtime, std::fs::Permissions::from_mode(0o700)).unwrap();
    }
    let x = start_xvfb(&xvfb);
    let shot = dir.path().join("shot.png");
    let cat = dir.path().join("cat.sqlite");
    let mut child = Command::new(env!("CARGO_BIN_EXE_viewer2"))
        .arg("--catalog")
        .arg(&cat)
        .arg(&folder)
        .arg("--screenshot")
        .arg(&shot)
        .env("DISPLAY", &x.1)
        .env_remove("WAYLAND_DISPLAY")
        .env("XDG_RUNTIME_DIR", &runtime)
        // The thumbnail cache goes here, not in the user's.
        .env("XDG_CACHE_HOME", dir.path().join("cache"))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let started = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if started.elapsed() > Duration::from_secs(180) {
            let _ = child.kill();
            panic!("viewer2 did not finish in 3 minutes");
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(status.success(), "viewer2 failed: {stderr}");
    let img = image::open(&shot)
        .unwrap_or_else(|e| panic!("no screenshot ({e}): {stderr}"))
        .to_rgba8();
    assert_eq!((img.width(), img.height()), (1280, 800));
    // Painted thumbnails, not an empty window: many colours.
    let colours: std::collections::HashSet<[u8; 4]> = img.pixels().map(|p| p.0).collect();
    assert!(colours.len() > 2000, "only {} colours", colours.len());
    // The folder is in the catalogue.
    let c = catalog::Catalog::open(&cat).unwrap();
    assert_eq!(c.len().unwrap(), 31);
    // Kept for a look (the README's screenshot comes from the same run).
    let keep = Path::new(env!("CARGO_TARGET_TMPDIR")).join("viewer2-e2e.png");
    let _ = std::fs::copy(&shot, keep);
}
