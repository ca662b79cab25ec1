#![allow(clippy::unwrap_used, clippy::expect_used)]
//! A PNG whose colour profile inflates to 64 MiB (four times what is
//! inflated at most): it decodes, says the profile was skipped, and the
//! decode's peak memory stays near the bound, measured by counting every
//! allocation of this test binary.

use std::alloc::{GlobalAlloc, Layout, System};
use std::io::{Cursor, Write};
use std::sync::atomic::{AtomicUsize, Ordering};

use photo::{Icc, Limits, MAX_ICC_BYTES, decode_png};

struct Counting;
static NOW: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

// SAFETY: forwards to the system allocator, only counting.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's contract is passed on unchanged.
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            let now = NOW.fetch_add(layout.size(), Ordering::SeqCst) + layout.size();
            PEAK.fetch_max(now, Ordering::SeqCst);
        }
        p
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        NOW.fetch_sub(layout.size(), Ordering::SeqCst);
        // SAFETY: as above.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static COUNTING: Counting = Counting;

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
fn a_profile_bomb_is_skipped_within_the_bound() {
    // An 8 × 8 RGB image with a profile of 64 MiB of zeros.
    let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::best());
    let zeros = vec![0u8; 1 << 20];
    for _ in 0..64 {
        z.write_all(&zeros).unwrap();
    }
    let bomb = z.finish().unwrap();
    let mut pixels = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::fast());
    for _ in 0..8 {
        pixels.write_all(&[0; 25]).unwrap();
    }
    let pixels = pixels.finish().unwrap();
    let mut png = vec![0x89, b'P', b'N', b'G', 0x0D, 0x0A, 0x1A, 0x0A];
    let mut ihdr = Vec::new();
    ihdr.extend_from_slice(&8u32.to_be_bytes());
    ihdr.extend_from_slice(&8u32.to_be_bytes());
    ihdr.extend_from_slice(&[8, 2, 0, 0, 0]);
    chunk(&mut png, b"IHDR", &ihdr);
    let mut iccp = b"bomb\0\0".to_vec();
    iccp.extend_from_slice(&bomb);
    chunk(&mut png, b"iCCP", &iccp);
    chunk(&mut png, b"IDAT", &pixels);
    chunk(&mut png, b"IEND", &[]);
    drop(zeros);

    let before = NOW.load(Ordering::SeqCst);
    PEAK.store(before, Ordering::SeqCst);
    let image = decode_png(Cursor::new(&png), &Limits::default()).unwrap();
    let peak = PEAK.load(Ordering::SeqCst) - before;
    assert_eq!((image.width, image.height), (8, 8));
    assert!(matches!(image.icc, Icc::Skipped { .. }), "{:?}", image.icc);
    assert!(
        peak < MAX_ICC_BYTES + (8 << 20),
        "the decode took {peak} bytes at its peak"
    );
}
