//! `retarget-bench memory`: the `retarget` command's peak resident memory
//! per mode, on generated photographs (smooth colour, edges and noise) of
//! one size, 8- and 16-bit RGBA PNG, at a few targets, beside
//! [`retarget::peak_memory`]'s estimate (which the command checks against
//! the memory available before it reads the pixels). Each run is a child
//! process, its peak taken from `wait4`'s resource usage.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result, bail};
use retarget::io::{self, AnyRaster};
use retarget::{Mode, Raster};

/// A `side × side` RGBA photograph-like image.
fn photo(side: u32) -> Result<Raster<u16>> {
    let n = side as usize;
    let mut data = Vec::with_capacity(n * n * 4);
    let mut state = 0x9E37_79B9u32;
    for y in 0..n {
        for x in 0..n {
            let base = ((x as f64 / 97.0).sin() + (y as f64 / 61.0).cos()) * 60.0 + 128.0;
            for k in 0..3 {
                state ^= state << 13;
                state ^= state >> 17;
                state ^= state << 5;
                let edge = if (x / 200 + y / 150 + k) % 2 == 0 {
                    40.0
                } else {
                    -40.0
                };
                let noise = f64::from(state % 17) - 8.0;
                let v = (base + edge + noise).clamp(0.0, 255.0);
                data.push((v * 257.0) as u16);
            }
            data.push(u16::MAX);
        }
    }
    Ok(Raster::from_vec(side, side, 4, data)?)
}

/// The peak resident set of one run of the command, in bytes.
#[cfg(target_os = "linux")]
fn peak_of(cmd: &mut Command) -> Result<u64> {
    let child = cmd.spawn().context("running retarget")?;
    let pid = child.id() as libc::pid_t;
    let mut status = 0;
    // SAFETY: an all-zero rusage is a valid value of the C struct, which
    // wait4 fills for this child.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: pid is our child's; the pointers are to live locals.
    let r = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    if r != pid {
        bail!("waiting for retarget failed");
    }
    if !(libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0) {
        bail!("retarget failed (status {status})");
    }
    Ok(usage.ru_maxrss as u64 * 1024)
}

#[cfg(not(target_os = "linux"))]
fn peak_of(_: &mut Command) -> Result<u64> {
    bail!("the memory table needs Linux (wait4's peak resident set)")
}

/// Writes the 8- and 16-bit test images (`photo-8.png`, `photo-16.png`)
/// into `dir`.
pub fn write_images(side: u32, dir: &Path) -> Result<()> {
    std::fs::create_dir_all(dir)?;
    let p16 = photo(side)?;
    let p8 = Raster::from_vec(
        side,
        side,
        4,
        p16.as_slice().iter().map(|&v| (v >> 8) as u8).collect(),
    )?;
    io::write(&dir.join("photo-8.png"), &AnyRaster::U8(p8), None, None)?;
    io::write(&dir.join("photo-16.png"), &AnyRaster::U16(p16), None, None)?;
    Ok(())
}

/// Runs the table for one image size.
pub fn run(side: u32, dir: &Path) -> Result<()> {
    let exe = std::env::current_exe()?.with_file_name("retarget");
    if !exe.exists() {
        bail!(
            "{} is missing: cargo build --release -p retarget",
            exe.display()
        );
    }
    std::fs::create_dir_all(dir)?;
    let files: [(&str, PathBuf, u8); 2] = [
        ("8-bit RGBA", dir.join("photo-8.png"), 1),
        ("16-bit RGBA", dir.join("photo-16.png"), 2),
    ];
    // The images are made by a child of their own: a command started from
    // this process counts this process's high-water mark as its own
    // (posix_spawn shares the memory map until exec), so this process must
    // never hold an image.
    let made = Command::new(std::env::current_exe()?)
        .args(["memory-images", "--side", &side.to_string(), "--dir"])
        .arg(dir)
        .status()
        .context("making the images")?;
    if !made.success() {
        bail!("making the images failed ({made})");
    }
    let pixels = f64::from(side) * f64::from(side);
    println!(
        "{side} × {side} pixels; peak resident memory of `retarget`, in bytes per source pixel:\n"
    );
    println!("| image | mode | target | measured | estimate | measured ÷ estimate |");
    println!("|---|---|---|---:|---:|---:|");
    for (name, path, bytes) in &files {
        let bytes = *bytes;
        for mode in [Mode::Separable, Mode::Mesh, Mode::Parallax] {
            for (w, h) in [(50u32, 100u32), (50, 70), (150, 100)] {
                let out = dir.join("out.png");
                let peak = peak_of(
                    Command::new(&exe)
                        .arg(path)
                        .args(["--width", &format!("{w}%"), "--height", &format!("{h}%")])
                        .args(["--mode", mode.name(), "--max-memory", "1T"])
                        .arg("-o")
                        .arg(&out),
                )?;
                let tw = (f64::from(side) * f64::from(w) / 100.0).round() as u32;
                let th = (f64::from(side) * f64::from(h) / 100.0).round() as u32;
                let est = retarget::peak_memory(mode, (side, side), 4, bytes, (tw, th));
                println!(
                    "| {name} | {} | {w}% × {h}% | {:.1} | {:.1} | {:.2} |",
                    mode.name(),
                    peak as f64 / pixels,
                    est as f64 / pixels,
                    peak as f64 / est as f64
                );
            }
        }
    }
    Ok(())
}
