//! Test photos made in memory: a textured picture, JPEG bytes, and EXIF
//! segments with an orientation and an embedded preview. Shared by the
//! thumbnail, loader and window tests.
#![allow(dead_code)]

/// A textured test picture (smooth gradients and some edges).
pub fn picture(w: u32, h: u32) -> image::RgbImage {
    image::RgbImage::from_fn(w, h, |x, y| {
        let fx = x as f32 / w as f32;
        let fy = y as f32 / h as f32;
        let stripe = if (x / 37 + y / 53) % 2 == 0 {
            40.0
        } else {
            0.0
        };
        image::Rgb([
            (fx * 200.0 + stripe) as u8,
            (fy * 200.0 + stripe) as u8,
            ((1.0 - fx) * 150.0 + 50.0) as u8,
        ])
    })
}

pub fn jpeg(img: &image::RgbImage, quality: u8) -> Vec<u8> {
    let mut out = Vec::new();
    let mut enc = image::codecs::jpeg::JpegEncoder::new_with_quality(&mut out, quality);
    enc.encode_image(img)
        .unwrap_or_else(|e| panic!("encoding: {e}"));
    out
}

/// An EXIF APP1 segment: orientation in IFD0, and an IFD1 thumbnail when
/// given.
pub fn exif_app1(orientation: u16, preview: Option<&[u8]>) -> Vec<u8> {
    let mut tiff = b"MM\0\x2a\0\0\0\x08".to_vec();
    // IFD0: one entry, then the offset of IFD1 (or 0).
    tiff.extend_from_slice(&1u16.to_be_bytes());
    tiff.extend_from_slice(&0x0112u16.to_be_bytes());
    tiff.extend_from_slice(&3u16.to_be_bytes());
    tiff.extend_from_slice(&1u32.to_be_bytes());
    tiff.extend_from_slice(&orientation.to_be_bytes());
    tiff.extend_from_slice(&[0, 0]);
    let ifd1 = 8 + 2 + 12 + 4;
    tiff.extend_from_slice(&(if preview.is_some() { ifd1 as u32 } else { 0 }).to_be_bytes());
    if let Some(p) = preview {
        let data = ifd1 + 2 + 2 * 12 + 4;
        tiff.extend_from_slice(&2u16.to_be_bytes());
        for (tag, value) in [(0x0201u16, data as u32), (0x0202, p.len() as u32)] {
            tiff.extend_from_slice(&tag.to_be_bytes());
            tiff.extend_from_slice(&4u16.to_be_bytes());
            tiff.extend_from_slice(&1u32.to_be_bytes());
            tiff.extend_from_slice(&value.to_be_bytes());
        }
        tiff.extend_from_slice(&0u32.to_be_bytes());
        tiff.extend_from_slice(p);
    }
    let mut seg = vec![0xFF, 0xE1];
    seg.extend_from_slice(&((tiff.len() + 8) as u16).to_be_bytes());
    seg.extend_from_slice(b"Exif\0\0");
    seg.extend_from_slice(&tiff);
    seg
}

/// `jpeg` with an APP1 segment right after its SOI marker.
pub fn with_app1(jpeg: &[u8], app1: &[u8]) -> Vec<u8> {
    let mut out = jpeg[..2].to_vec();
    out.extend_from_slice(app1);
    out.extend_from_slice(&jpeg[2..]);
    out
}

/// An EXIF APP1 segment holding `fields` (kamadak-exif's writer puts each
/// in its IFD: IFD0, the Exif IFD or the GPS IFD).
pub fn exif_fields(fields: &[exif::Field]) -> Vec<u8> {
    let mut w = exif::experimental::Writer::new();
    for f in fields {
        w.push_field(f);
    }
    let mut tiff = std::io::Cursor::new(Vec::new());
    w.write(&mut tiff, false)
        .unwrap_or_else(|e| panic!("writing EXIF: {e}"));
    let tiff = tiff.into_inner();
    let mut seg = vec![0xFF, 0xE1];
    seg.extend_from_slice(&((tiff.len() + 8) as u16).to_be_bytes());
    seg.extend_from_slice(b"Exif\0\0");
    seg.extend_from_slice(&tiff);
    seg
}

/// An ASCII EXIF field of the primary image.
pub fn ascii(tag: exif::Tag, text: &str) -> exif::Field {
    exif::Field {
        tag,
        ifd_num: exif::In::PRIMARY,
        value: exif::Value::Ascii(vec![text.as_bytes().to_vec()]),
    }
}
