//! DNGs laid out as Adobe's converter and cameras write them, for the RAW
//! tests of photo and viewer2: the first directory a 128 × 96 JPEG
//! preview (with the camera's orientation, make and model), the raw
//! colour-filter samples (RGGB, 12 bits) in a sub-directory.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

const SHORT: u16 = 3;
const LONG: u16 = 4;
const BYTE: u16 = 1;
const ASCII: u16 = 2;
const SRATIONAL: u16 = 10;
const RATIONAL: u16 = 5;

/// One directory entry: tag, type, count and the value's bytes
/// (little-endian).
struct Entry(u16, u16, u32, Vec<u8>);

fn shorts(v: &[u16]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}
fn longs(v: &[u32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}
fn ascii(s: &str) -> (u32, Vec<u8>) {
    let mut b = s.as_bytes().to_vec();
    b.push(0);
    (b.len() as u32, b)
}

/// Lays out a little-endian TIFF of two directories (the second named by
/// the first's SubIFDs) and two blobs each names by StripOffsets.
fn tiff(ifd0: Vec<Entry>, blob0: &[u8], ifd1: Vec<Entry>, blob1: &[u8]) -> Vec<u8> {
    // Sizes first: header, IFD0, its out-of-line values, IFD1, its
    // values, then the blobs.
    // Each directory gains StripOffsets, the first SubIFDs too.
    let ifd_size = |e: &[Entry], added: usize| 2 + 12 * (e.len() + added) + 4;
    let extra = |e: &[Entry]| {
        e.iter()
            .map(|x| {
                if x.3.len() > 4 {
                    x.3.len().next_multiple_of(2)
                } else {
                    0
                }
            })
            .sum::<usize>()
    };
    let at0 = 8;
    let at1 = at0 + ifd_size(&ifd0, 2) + extra(&ifd0);
    let blob0_at = at1 + ifd_size(&ifd1, 1) + extra(&ifd1);
    let blob1_at = blob0_at + blob0.len().next_multiple_of(2);
    let mut out = b"II*\0".to_vec();
    out.extend_from_slice(&(at0 as u32).to_le_bytes());
    let write = |out: &mut Vec<u8>,
                 mut entries: Vec<Entry>,
                 at: usize,
                 blob_at: usize,
                 sub: Option<usize>| {
        if let Some(sub) = sub {
            entries.push(Entry(330, LONG, 1, longs(&[sub as u32])));
        }
        entries.push(Entry(273, LONG, 1, longs(&[blob_at as u32])));
        entries.sort_by_key(|e| e.0);
        assert_eq!(out.len(), at);
        let mut values_at = at + ifd_size(&entries, 0);
        let mut values = Vec::new();
        out.extend_from_slice(&(entries.len() as u16).to_le_bytes());
        for e in &entries {
            out.extend_from_slice(&e.0.to_le_bytes());
            out.extend_from_slice(&e.1.to_le_bytes());
            out.extend_from_slice(&e.2.to_le_bytes());
            if e.3.len() <= 4 {
                let mut v = e.3.clone();
                v.resize(4, 0);
                out.extend_from_slice(&v);
            } else {
                out.extend_from_slice(&(values_at as u32).to_le_bytes());
                values.extend_from_slice(&e.3);
                if e.3.len() % 2 == 1 {
                    values.push(0);
                }
                values_at += e.3.len().next_multiple_of(2);
            }
        }
        out.extend_from_slice(&0u32.to_le_bytes());
        out.extend_from_slice(&values);
    };
    write(&mut out, ifd0, at0, blob0_at, Some(at1));
    write(&mut out, ifd1, at1, blob1_at, None);
    assert_eq!(out.len(), blob0_at);
    out.extend_from_slice(blob0);
    if blob0.len() % 2 == 1 {
        out.push(0);
    }
    out.extend_from_slice(blob1);
    out
}

/// A `w`×`h` scene whose red grows to the right, green downwards, with a
/// blue block in its top-left corner.
pub fn scene_of(x: u32, y: u32, w: u32, h: u32) -> [u8; 3] {
    let corner = x < w / 4 && y < h / 4;
    [
        (x * 255 / (w - 1)) as u8,
        (y * 255 / (h - 1)) as u8,
        if corner { 230 } else { 30 },
    ]
}

/// The 256 × 192 scene of [`dng`].
pub fn scene(x: u32, y: u32) -> [u8; 3] {
    scene_of(x, y, 256, 192)
}

/// A DNG of the 256 × 192 scene: RGGB samples at 12 bits; with
/// `preview`, a 128 × 96 JPEG of it as the first directory.
pub fn dng(orientation: u16, preview: Option<&[u8]>) -> Vec<u8> {
    dng_of((256, 192), orientation, preview.map(|p| (p, (128, 96))))
}

/// A DNG of the `w`×`h` scene, with a preview JPEG of its size.
pub fn dng_of(
    (w, h): (u32, u32),
    orientation: u16,
    preview: Option<(&[u8], (u32, u32))>,
) -> Vec<u8> {
    let mut samples = Vec::new();
    for y in 0..h {
        for x in 0..w {
            let c = scene_of(x, y, w, h);
            let v = match (y % 2, x % 2) {
                (0, 0) => c[0],
                (1, 1) => c[2],
                _ => c[1],
            };
            samples.extend_from_slice(&(u16::from(v) * 16).to_le_bytes());
        }
    }
    let (make_n, make) = ascii("Testcam");
    let (model_n, model) = ascii("Testcam Model 1");
    let identity: Vec<u8> = [1i32, 0, 0, 0, 1, 0, 0, 0, 1]
        .iter()
        .flat_map(|&n| [n.to_le_bytes(), 1i32.to_le_bytes()].concat())
        .collect();
    let mut ifd0 = vec![
        Entry(271, ASCII, make_n, make),
        Entry(272, ASCII, model_n, model),
        Entry(274, SHORT, 1, shorts(&[orientation])),
        Entry(50706, BYTE, 4, vec![1, 4, 0, 0]),
        Entry(50721, SRATIONAL, 9, identity),
        Entry(50778, SHORT, 1, shorts(&[21])),
        Entry(50728, RATIONAL, 3, longs(&[1, 1, 1, 1, 1, 1])),
    ];
    let (jpeg, (pw, ph)) = preview.unwrap_or((&[], (0, 0)));
    if preview.is_some() {
        ifd0.extend([
            Entry(254, LONG, 1, longs(&[1])),
            Entry(256, LONG, 1, longs(&[pw])),
            Entry(257, LONG, 1, longs(&[ph])),
            Entry(258, SHORT, 3, shorts(&[8, 8, 8])),
            Entry(259, SHORT, 1, shorts(&[7])),
            Entry(262, SHORT, 1, shorts(&[6])),
            Entry(277, SHORT, 1, shorts(&[3])),
            Entry(278, LONG, 1, longs(&[ph])),
            Entry(279, LONG, 1, longs(&[jpeg.len() as u32])),
        ]);
    } else {
        // A tiny uncompressed thumbnail, as a DNG without a preview has.
        ifd0.extend([
            Entry(254, LONG, 1, longs(&[1])),
            Entry(256, LONG, 1, longs(&[1])),
            Entry(257, LONG, 1, longs(&[1])),
            Entry(258, SHORT, 3, shorts(&[8, 8, 8])),
            Entry(259, SHORT, 1, shorts(&[1])),
            Entry(262, SHORT, 1, shorts(&[2])),
            Entry(277, SHORT, 1, shorts(&[3])),
            Entry(278, LONG, 1, longs(&[1])),
            Entry(279, LONG, 1, longs(&[3])),
        ]);
    }
    let raw = vec![
        Entry(254, LONG, 1, longs(&[0])),
        Entry(256, LONG, 1, longs(&[w])),
        Entry(257, LONG, 1, longs(&[h])),
        Entry(258, SHORT, 1, shorts(&[16])),
        Entry(259, SHORT, 1, shorts(&[1])),
        Entry(262, SHORT, 1, shorts(&[32803])),
        Entry(277, SHORT, 1, shorts(&[1])),
        Entry(278, LONG, 1, longs(&[h])),
        Entry(279, LONG, 1, longs(&[samples.len() as u32])),
        Entry(284, SHORT, 1, shorts(&[1])),
        Entry(33421, SHORT, 2, shorts(&[2, 2])),
        Entry(33422, BYTE, 4, vec![0, 1, 1, 2]),
        Entry(50717, LONG, 1, longs(&[4095])),
    ];
    let blob0 = if preview.is_some() {
        jpeg.to_vec()
    } else {
        vec![128, 128, 128]
    };
    tiff(ifd0, &blob0, raw, &samples)
}

pub fn preview_jpeg() -> Vec<u8> {
    let (w, h) = (128u16, 96u16);
    let rgb: Vec<u8> = (0..u32::from(h))
        .flat_map(|y| (0..u32::from(w)).flat_map(move |x| scene(x * 2, y * 2)))
        .collect();
    let mut out = Vec::new();
    jpeg_encoder::Encoder::new(&mut out, 90)
        .encode(&rgb, w, h, jpeg_encoder::ColorType::Rgb)
        .unwrap();
    out
}
