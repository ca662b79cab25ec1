//! PNG files through the `png` crate, with the colour profile bounded.
//!
//! A PNG's `iCCP` chunk holds a deflated profile; a few hundred kilobytes
//! of it can inflate to gigabytes. The chunk list is read first (lengths
//! and types, seeking past the data), the profile's inflated size counted
//! on the way into no memory and no further than [`MAX_ICC_BYTES`]; a
//! profile over that is skipped by the decoder, and the image says so.

use std::io::{BufRead, Read, Seek, SeekFrom};

use crate::{Limits, PhotoError};

/// `len` zeros, or an error if the memory cannot be had.
fn try_zeroed<T: Clone + Default>(len: usize) -> Result<Vec<T>, PhotoError> {
    let mut v = Vec::new();
    v.try_reserve_exact(len)
        .map_err(|_| PhotoError::OutOfMemory {
            bytes: (len as u64).saturating_mul(std::mem::size_of::<T>() as u64),
        })?;
    v.resize(len, T::default());
    Ok(v)
}

/// The largest colour profile inflated. Display P3 and Adobe RGB profiles
/// take under 4 KB, camera and printer profiles with large tables up to a
/// few megabytes.
pub const MAX_ICC_BYTES: usize = 16 << 20;

/// Room beside the profile for the decoder's own row buffers and the
/// EXIF chunk, which count against the same limit.
const DECODER_SLACK: usize = 2 << 20;

/// A PNG's colour profile.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Icc {
    /// None in the file.
    None,
    /// The profile, inflated.
    Profile(Vec<u8>),
    /// One is there but was not inflated: over [`MAX_ICC_BYTES`] or
    /// broken. The pixels are read as sRGB.
    Skipped {
        /// Its compressed size in the file.
        compressed: u32,
    },
}

/// Decoded samples: 8 or 16 bits each.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Samples {
    /// 8-bit samples.
    U8(Vec<u8>),
    /// 16-bit samples.
    U16(Vec<u16>),
}

/// A decoded PNG (its first frame, for an animated one). Palettes are
/// expanded to RGB, a transparency chunk to alpha, and grey below 8 bits
/// to 8 bits.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PngImage {
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// 1 (grey), 2 (grey, alpha), 3 (RGB) or 4 (RGBA).
    pub channels: u8,
    /// `width × height × channels` samples, rows top to bottom.
    pub samples: Samples,
    /// The colour profile.
    pub icc: Icc,
    /// The `eXIf` chunk (a TIFF structure), if any.
    pub exif: Option<Vec<u8>>,
}

/// The largest `eXIf` chunk read with the header.
const MAX_EXIF_BYTES: u32 = 4 << 20;

/// What a PNG's chunk list says, read without inflating anything.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PngHeader {
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// Channels once decoded (after expanding palettes and transparency).
    pub channels: u8,
    /// Bytes a sample takes once decoded (1 or 2).
    pub bytes_per_sample: u8,
    /// Whether the rows are interlaced (Adam7).
    pub interlaced: bool,
    /// The compressed size of its `iCCP` chunk, if it has one.
    pub icc_compressed: Option<u32>,
    /// Whether that profile inflates within [`MAX_ICC_BYTES`] (counted
    /// while reading the header, into no memory).
    pub icc_fits: bool,
    /// The `eXIf` chunk before the image data (a TIFF structure), if any
    /// and under 4 MiB.
    pub exif: Option<Vec<u8>>,
}

fn corrupt(detail: impl Into<String>) -> PhotoError {
    PhotoError::Corrupt {
        format: "PNG",
        detail: detail.into(),
    }
}

impl PngHeader {
    /// The bytes [`decode_png`] holds at its peak for this image: the
    /// decoded samples, two rows of the decoder's own, the profile at most.
    pub fn decode_peak(&self) -> u64 {
        let row =
            u64::from(self.width) * u64::from(self.channels) * u64::from(self.bytes_per_sample);
        let icc = if self.icc_fits {
            2 * MAX_ICC_BYTES as u64
        } else {
            0
        };
        row * u64::from(self.height) + 4 * row + icc + (64 << 10)
    }
}

/// Reads a PNG's chunk list up to its first image data, seeking past each
/// chunk's data; leaves the reader anywhere.
pub fn png_header<R: Read + Seek>(r: &mut R) -> Result<PngHeader, PhotoError> {
    let mut sig = [0u8; 8];
    r.read_exact(&mut sig)
        .map_err(|_| corrupt("the file ends inside its signature"))?;
    if sig != [0x89, b'P', b'N', b'G', 0x0D, 0x0A, 0x1A, 0x0A] {
        return Err(corrupt("no PNG signature"));
    }
    let mut ihdr: Option<[u8; 13]> = None;
    let mut has_trns = false;
    let mut icc = None;
    let mut exif = None;
    loop {
        let mut head = [0u8; 8];
        if r.read_exact(&mut head).is_err() {
            if ihdr.is_some() {
                return Err(corrupt("the file ends before its image data"));
            }
            return Err(corrupt("the file ends before its header"));
        }
        let len = u32::from_be_bytes([head[0], head[1], head[2], head[3]]);
        let kind = [head[4], head[5], head[6], head[7]];
        match &kind {
            b"IHDR" => {
                let mut data = [0u8; 13];
                if len != 13 || r.read_exact(&mut data).is_err() {
                    return Err(corrupt("a broken header chunk"));
                }
                ihdr = Some(data);
                r.seek(SeekFrom::Current(4))?;
                continue;
            }
            b"IDAT" | b"IEND" => break,
            b"iCCP" => {
                // Inflated here into nothing, only counted, and no further
                // than the bound: the decoder inflates it (again) only if
                // it fits.
                let mut data = Read::take(&mut *r, u64::from(len));
                let mut name = 0;
                let mut b = [0u8; 1];
                while name < 81 && data.read(&mut b)? == 1 && b[0] != 0 {
                    name += 1;
                }
                // The compression method, then the zlib stream.
                let _method = data.read(&mut b)?;
                let inflated = std::io::copy(
                    &mut Read::take(
                        flate2::read::ZlibDecoder::new(&mut data),
                        MAX_ICC_BYTES as u64 + 1,
                    ),
                    &mut std::io::sink(),
                );
                let fits = matches!(inflated, Ok(n) if n <= MAX_ICC_BYTES as u64);
                icc = Some((len, fits));
                // Past what the inflater left unread, and the CRC.
                let rest = data.limit();
                r.seek(SeekFrom::Current(rest as i64 + 4))?;
                continue;
            }
            b"tRNS" => has_trns = true,
            b"eXIf" if len <= MAX_EXIF_BYTES => {
                let mut data = vec![0u8; len as usize];
                r.read_exact(&mut data)
                    .map_err(|_| corrupt("the file ends inside its EXIF chunk"))?;
                exif = Some(data);
                r.seek(SeekFrom::Current(4))?;
                continue;
            }
            _ => {}
        }
        r.seek(SeekFrom::Current(i64::from(len) + 4))?;
    }
    let Some(h) = ihdr else {
        return Err(corrupt("no header chunk before the image data"));
    };
    let width = u32::from_be_bytes([h[0], h[1], h[2], h[3]]);
    let height = u32::from_be_bytes([h[4], h[5], h[6], h[7]]);
    let (depth, colour, interlace) = (h[8], h[9], h[12]);
    let channels = match (colour, has_trns) {
        (0, false) => 1,
        (0, true) | (4, _) => 2,
        (2, false) | (3, false) => 3,
        (2, true) | (3, true) | (6, _) => 4,
        _ => return Err(corrupt(format!("colour type {colour} is not one PNG has"))),
    };
    // Palettes expand to 8 bits, and so does grey below 8.
    let bytes_per_sample = if depth == 16 { 2 } else { 1 };
    Ok(PngHeader {
        width,
        height,
        channels,
        bytes_per_sample,
        interlaced: interlace != 0,
        icc_compressed: icc.map(|(len, _)| len),
        icc_fits: icc.is_some_and(|(_, fits)| fits),
        exif,
    })
}

/// Decodes a PNG with its size checked against `limits` before the pixels
/// are allocated, and its colour profile inflated only if it fits
/// [`MAX_ICC_BYTES`]. Text chunks are not read.
pub fn decode_png<R: BufRead + Seek>(mut r: R, limits: &Limits) -> Result<PngImage, PhotoError> {
    let start = r.stream_position()?;
    let header = png_header(&mut r)?;
    limits.check(header.width, header.height)?;
    r.seek(SeekFrom::Start(start))?;
    let mut decoder = png::Decoder::new_with_limits(
        r,
        png::Limits {
            bytes: MAX_ICC_BYTES + DECODER_SLACK,
        },
    );
    decoder.set_ignore_text_chunk(true);
    decoder.set_ignore_iccp_chunk(!header.icc_fits);
    decoder.set_transformations(png::Transformations::EXPAND);
    let mut reader = decoder.read_info().map_err(|e| corrupt(e.to_string()))?;
    let info = reader.info();
    if (info.width, info.height) != (header.width, header.height) {
        return Err(corrupt("two header chunks"));
    }
    let icc = match (&info.icc_profile, header.icc_compressed) {
        (Some(p), _) => Icc::Profile(p.to_vec()),
        (None, Some(compressed)) => Icc::Skipped { compressed },
        (None, None) => Icc::None,
    };
    let exif = info.exif_metadata.as_ref().map(|e| e.to_vec());
    let (colour, depth) = reader.output_color_type();
    let channels = match colour {
        png::ColorType::Grayscale => 1,
        png::ColorType::GrayscaleAlpha => 2,
        png::ColorType::Rgb => 3,
        png::ColorType::Rgba => 4,
        png::ColorType::Indexed => return Err(corrupt("a palette left unexpanded")),
    };
    let len = reader
        .output_buffer_size()
        .ok_or_else(|| corrupt("an image too large to address"))?;
    let samples = if depth == png::BitDepth::Sixteen {
        // Decoded straight into the 16-bit buffer, then turned from big-
        // endian in place: one buffer, never two.
        let mut words = try_zeroed::<u16>(len / 2)?;
        let frame = reader
            .next_frame(bytemuck::cast_slice_mut(&mut words))
            .map_err(|e| corrupt(e.to_string()))?;
        words.truncate(frame.buffer_size() / 2);
        for w in &mut words {
            *w = u16::from_be(*w);
        }
        Samples::U16(words)
    } else {
        let mut bytes = try_zeroed::<u8>(len)?;
        let frame = reader
            .next_frame(&mut bytes)
            .map_err(|e| corrupt(e.to_string()))?;
        bytes.truncate(frame.buffer_size());
        Samples::U8(bytes)
    };
    Ok(PngImage {
        width: header.width,
        height: header.height,
        channels,
        samples,
        icc,
        exif,
    })
}
