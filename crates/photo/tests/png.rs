#![allow(clippy::unwrap_used, clippy::expect_used)]
//! PNG decoding against the samples that were encoded: every colour type
//! and depth, palettes and transparency expanded as the spec says,
//! interlaced or not; the header read without inflating matches the
//! decode; broken files are errors, never panics.

use std::io::Cursor;

use photo::{Icc, Limits, PhotoError, Samples, decode_png, png_header};
use proptest::prelude::*;

/// An encoded PNG and the samples a decoder must give back.
#[derive(Debug, Clone)]
struct Case {
    bytes: Vec<u8>,
    width: u32,
    height: u32,
    channels: u8,
    expected: Samples,
}

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

/// Adam7's passes: (x start, y start, x step, y step).
const ADAM7: [(usize, usize, usize, usize); 7] = [
    (0, 0, 8, 8),
    (4, 0, 8, 8),
    (0, 4, 4, 8),
    (2, 0, 4, 4),
    (0, 2, 2, 4),
    (1, 0, 2, 2),
    (0, 1, 1, 2),
];

/// A PNG written by hand from the spec (not by the crate under test):
/// `pixels` holds each pixel's samples at `depth` bits, rows are packed,
/// filtered with filter 0, split into Adam7 passes when `interlaced`.
#[allow(clippy::too_many_arguments)]
fn write_png(
    width: usize,
    height: usize,
    colour: u8,
    depth: u32,
    pixels: &[Vec<u16>],
    plte: Option<&[u8]>,
    trns: Option<&[u8]>,
    interlaced: bool,
    icc: Option<&[u8]>,
) -> Vec<u8> {
    let pack_row = |row: &[&Vec<u16>], out: &mut Vec<u8>| {
        out.push(0);
        let mut acc: u32 = 0;
        let mut bits = 0;
        for p in row {
            for &v in p.iter() {
                if depth == 16 {
                    out.extend_from_slice(&v.to_be_bytes());
                } else {
                    acc = (acc << depth) | u32::from(v);
                    bits += depth;
                    if bits == 8 {
                        out.push(acc as u8);
                        acc = 0;
                        bits = 0;
                    }
                }
            }
        }
        if bits > 0 {
            out.push((acc << (8 - bits)) as u8);
        }
    };
    let mut raw = Vec::new();
    let passes: Vec<(usize, usize, usize, usize)> = if interlaced {
        ADAM7.to_vec()
    } else {
        vec![(0, 0, 1, 1)]
    };
    for (x0, y0, dx, dy) in passes {
        if x0 >= width || y0 >= height {
            continue;
        }
        for y in (y0..height).step_by(dy) {
            let row: Vec<&Vec<u16>> = (x0..width)
                .step_by(dx)
                .map(|x| &pixels[y * width + x])
                .collect();
            pack_row(&row, &mut raw);
        }
    }
    let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::fast());
    std::io::Write::write_all(&mut z, &raw).unwrap();
    let idat = z.finish().unwrap();
    let mut out = vec![0x89, b'P', b'N', b'G', 0x0D, 0x0A, 0x1A, 0x0A];
    let mut ihdr = Vec::new();
    ihdr.extend_from_slice(&(width as u32).to_be_bytes());
    ihdr.extend_from_slice(&(height as u32).to_be_bytes());
    ihdr.extend_from_slice(&[depth as u8, colour, 0, 0, u8::from(interlaced)]);
    chunk(&mut out, b"IHDR", &ihdr);
    if let Some(p) = icc {
        let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::fast());
        std::io::Write::write_all(&mut z, p).unwrap();
        let mut data = b"profile\0\0".to_vec();
        data.extend_from_slice(&z.finish().unwrap());
        chunk(&mut out, b"iCCP", &data);
    }
    if let Some(p) = plte {
        chunk(&mut out, b"PLTE", p);
    }
    if let Some(t) = trns {
        chunk(&mut out, b"tRNS", t);
    }
    chunk(&mut out, b"IDAT", &idat);
    chunk(&mut out, b"IEND", &[]);
    out
}

/// A random image of a random colour type and depth, with what it
/// decodes to: grey below 8 bits scaled to 8 (v × 255 / max, the spec's
/// exact scaling), palettes looked up, transparency as alpha.
fn case() -> impl Strategy<Value = Case> {
    (1u32..40, 1u32..30, 0usize..8, any::<bool>(), any::<u64>()).prop_map(
        |(width, height, kind, interlaced, seed)| {
            let mut s = seed | 1;
            let mut next = move || {
                s ^= s << 13;
                s ^= s >> 7;
                s ^= s << 17;
                s
            };
            let (w, h) = (width as usize, height as usize);
            let n = w * h;
            match kind {
                // RGB and RGBA, 8 and 16 bits: samples as given.
                0..=3 => {
                    let (colour, channels) = if kind % 2 == 0 { (2u8, 3usize) } else { (6, 4) };
                    let depth = if kind >= 2 { 16 } else { 8 };
                    let mask = if depth == 16 { 0xFFFF } else { 0xFF };
                    let pixels: Vec<Vec<u16>> = (0..n)
                        .map(|_| (0..channels).map(|_| (next() & mask) as u16).collect())
                        .collect();
                    let flat = pixels.iter().flatten().copied();
                    let expected = if depth == 16 {
                        Samples::U16(flat.collect())
                    } else {
                        Samples::U8(flat.map(|v| v as u8).collect())
                    };
                    Case {
                        bytes: write_png(
                            w, h, colour, depth, &pixels, None, None, interlaced, None,
                        ),
                        width,
                        height,
                        channels: channels as u8,
                        expected,
                    }
                }
                // Grey at 1, 2 and 4 bits.
                4..=6 => {
                    let bits = [1u32, 2, 4][kind - 4];
                    let max = (1u64 << bits) - 1;
                    let pixels: Vec<Vec<u16>> =
                        (0..n).map(|_| vec![(next() & max) as u16]).collect();
                    let expected = pixels
                        .iter()
                        .map(|p| (u64::from(p[0]) * 255 / max) as u8)
                        .collect();
                    Case {
                        bytes: write_png(w, h, 0, bits, &pixels, None, None, interlaced, None),
                        width,
                        height,
                        channels: 1,
                        expected: Samples::U8(expected),
                    }
                }
                // A palette, some entries with transparency: RGBA.
                _ => {
                    let entries = 1 + (next() % 16) as usize;
                    let palette: Vec<u8> = (0..entries * 3).map(|_| next() as u8).collect();
                    let alphas: Vec<u8> = (0..entries / 2).map(|_| next() as u8).collect();
                    let pixels: Vec<Vec<u16>> = (0..n)
                        .map(|_| vec![(next() % entries as u64) as u16])
                        .collect();
                    let (channels, trns) = if alphas.is_empty() {
                        (3, None)
                    } else {
                        (4, Some(&alphas[..]))
                    };
                    let expected = pixels
                        .iter()
                        .flat_map(|p| {
                            let i = usize::from(p[0]);
                            let rgb = [palette[3 * i], palette[3 * i + 1], palette[3 * i + 2]];
                            let a = alphas.get(i).copied().unwrap_or(255);
                            rgb.into_iter().chain((channels == 4).then_some(a))
                        })
                        .collect();
                    Case {
                        bytes: write_png(
                            w,
                            h,
                            3,
                            8,
                            &pixels,
                            Some(&palette),
                            trns,
                            interlaced,
                            None,
                        ),
                        width,
                        height,
                        channels,
                        expected: Samples::U8(expected),
                    }
                }
            }
        },
    )
}

proptest! {
    #[test]
    fn decodes_to_the_samples_encoded(c in case()) {
        let header = png_header(&mut Cursor::new(&c.bytes)).unwrap();
        let image = decode_png(Cursor::new(&c.bytes), &Limits::default()).unwrap();
        prop_assert_eq!((image.width, image.height, image.channels), (c.width, c.height, c.channels));
        prop_assert_eq!((header.width, header.height, header.channels), (c.width, c.height, c.channels));
        let bytes = match &image.samples { Samples::U8(_) => 1, Samples::U16(_) => 2 };
        prop_assert_eq!(header.bytes_per_sample, bytes);
        prop_assert_eq!(&image.samples, &c.expected);
        prop_assert_eq!(image.icc, Icc::None);
    }

    /// Cut short or with bytes changed: an error or an image of the
    /// header's size, never a panic.
    #[test]
    fn broken_files_are_errors(c in case(), cut in any::<prop::sample::Index>(), flips in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 0..6)) {
        let mut bytes = c.bytes.clone();
        for (at, v) in flips {
            let i = at.index(bytes.len());
            bytes[i] = v;
        }
        bytes.truncate(cut.index(bytes.len()));
        if let Ok(image) = decode_png(Cursor::new(&bytes), &Limits::default()) {
            let len = match &image.samples { Samples::U8(s) => s.len(), Samples::U16(s) => s.len() };
            prop_assert_eq!(len, (image.width * image.height) as usize * usize::from(image.channels));
        }
    }
}

#[test]
fn a_profile_comes_back_as_written() {
    let profile: Vec<u8> = (0..3000u32).map(|i| (i * 31 % 251) as u8).collect();
    let pixels = vec![vec![7u16; 3]; 6];
    let bytes = write_png(3, 2, 2, 8, &pixels, None, None, false, Some(&profile));
    let image = decode_png(Cursor::new(&bytes), &Limits::default()).unwrap();
    assert_eq!(image.icc, Icc::Profile(profile));
}

#[test]
fn sizes_over_the_limits_are_refused_from_the_header() {
    let pixels = vec![vec![0u16; 3]; 60_000];
    let bytes = write_png(300, 200, 2, 8, &pixels, None, None, false, None);
    let limits = Limits {
        max_side: 65_535,
        max_pixels: 50_000,
    };
    match decode_png(Cursor::new(&bytes), &limits) {
        Err(PhotoError::TooLarge {
            width: 300,
            height: 200,
            ..
        }) => {}
        other => panic!("{other:?}"),
    }
}
