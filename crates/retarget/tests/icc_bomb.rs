#![allow(clippy::unwrap_used, clippy::expect_used)]
//! An 8 × 8 PNG whose colour profile inflates to 256 MiB: the command warns
//! that it left the profile out, resizes the pixels, and its peak memory
//! (the child's maximum resident size) stays far below the profile's.
//! This file's only child process is that one, so the maximum over
//! waited-for children is its own.

use std::io::Write;
use std::process::Command;

fn crc(data: &[u8]) -> u32 {
    let mut c = !0u32;
    for &b in data {
        c ^= u32::from(b);
        for _ in 0..8 {
            c = if c & 1 != 0 {
                0xEDB8_8320 ^ (c >> 1)
            } else {
                c >> 1
            };
        }
    }
    !c
}

fn chunk(out: &mut Vec<u8>, kind: &[u8; 4], data: &[u8]) {
    out.extend_from_slice(&(data.len() as u32).to_be_bytes());
    let start = out.len();
    out.extend_from_slice(kind);
    out.extend_from_slice(data);
    let c = crc(&out[start..]);
    out.extend_from_slice(&c.to_be_bytes());
}

#[test]
fn a_profile_bomb_costs_no_memory() {
    let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::best());
    let zeros = vec![0u8; 1 << 20];
    for _ in 0..256 {
        z.write_all(&zeros).unwrap();
    }
    let bomb = z.finish().unwrap();
    let mut pixels = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::fast());
    for y in 0..8u8 {
        pixels.write_all(&[0]).unwrap();
        pixels.write_all(&[y * 30; 24]).unwrap();
    }
    let pixels = pixels.finish().unwrap();
    let mut png = vec![0x89, b'P', b'N', b'G', 0x0D, 0x0A, 0x1A, 0x0A];
    let mut ihdr = 8u32.to_be_bytes().to_vec();
    ihdr.extend_from_slice(&8u32.to_be_bytes());
    ihdr.extend_from_slice(&[8, 2, 0, 0, 0]);
    chunk(&mut png, b"IHDR", &ihdr);
    let mut iccp = b"bomb\0\0".to_vec();
    iccp.extend_from_slice(&bomb);
    chunk(&mut png, b"iCCP", &iccp);
    chunk(&mut png, b"IDAT", &pixels);
    chunk(&mut png, b"IEND", &[]);
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("bomb.png");
    std::fs::write(&input, &png).unwrap();
    let out = dir.path().join("out.png");
    let o = Command::new(env!("CARGO_BIN_EXE_retarget"))
        .arg(&input)
        .args(["--width", "4", "-o"])
        .arg(&out)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    assert!(
        err.contains("colour profile") && err.contains("left out"),
        "{err}"
    );
    let img = image::open(&out).unwrap();
    assert_eq!((img.width(), img.height()), (4, 8));
    // SAFETY: getrusage writes the struct it is given.
    let usage = unsafe {
        let mut u: libc::rusage = std::mem::zeroed();
        libc::getrusage(libc::RUSAGE_CHILDREN, &mut u);
        u
    };
    let peak_mb = usage.ru_maxrss / 1024;
    assert!(peak_mb < 120, "the command reached {peak_mb} MB");
}
