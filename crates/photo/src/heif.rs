//! HEIF files (HEIC from phones, AVIF) through libheif, the library
//! digiKam, GIMP and gThumb read them with.
//!
//! libheif is built by the `libheif-sys` crate from its own sources (1.23;
//! Debian 12 ships 1.15, older than any binding supports), linked with the
//! system's libde265 (HEVC) and dav1d (AV1) decoders. It applies the
//! file's `irot`, `imir` and `clap` to what it decodes, so a HEIF's EXIF
//! orientation is never applied again (as ImageMagick and libvips do).
//! Only the primary image is decoded: burst frames, depth maps, gain maps
//! and alpha are auxiliary items it leaves alone.
//!
//! Files are read through a seekable reader, so libheif takes only the
//! boxes it needs and the coded data of the one image decoded (a
//! thumbnail's few kilobytes, for the grid), never the whole file.

use std::io::{Read, Seek, SeekFrom};

use libheif_rs::{
    ColorSpace, DecodingOptions, HeifContext, ImageHandle, LibHeif, RgbChroma, StreamReader,
};

use crate::{Limits, PhotoError};

/// The compression inside a HEIF file, from its `ftyp` brands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HeifKind {
    /// HEVC: the iPhone's and most Android phones' HEIC.
    Heic,
    /// AV1: AVIF.
    Avif,
    /// A HEIF of another codec (JPEG, uncompressed, VVC).
    Other,
}

impl HeifKind {
    /// How people name it: "HEIC", "AVIF", "HEIF".
    pub fn name(self) -> &'static str {
        match self {
            HeifKind::Heic => "HEIC",
            HeifKind::Avif => "AVIF",
            HeifKind::Other => "HEIF",
        }
    }
}

/// The HEIF kind a file's first bytes announce (an ISO-BMFF `ftyp` box
/// whose brands name a HEIF image), `None` for anything else: MP4 and
/// QuickTime videos share the box but not the brands.
pub fn heif_kind(head: &[u8]) -> Option<HeifKind> {
    if head.len() < 16 || &head[4..8] != b"ftyp" {
        return None;
    }
    let size = u32::from_be_bytes([head[0], head[1], head[2], head[3]]) as usize;
    let end = size.clamp(16, head.len());
    // The major brand, then the compatible brands after the minor version.
    let brands = std::iter::once(&head[8..12]).chain(head[16..end].chunks_exact(4));
    let mut kind = None;
    for brand in brands {
        match brand {
            b"heic" | b"heix" | b"heim" | b"heis" | b"hevc" | b"hevx" => {
                return Some(HeifKind::Heic);
            }
            b"avif" | b"avis" => return Some(HeifKind::Avif),
            b"mif1" | b"msf1" | b"mif2" => kind = Some(HeifKind::Other),
            _ => {}
        }
    }
    kind
}

/// What a HEIF file's primary image is, read from its boxes (nothing
/// decoded).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HeifInfo {
    /// Which codec its brands name.
    pub kind: HeifKind,
    /// The primary image's width as shown (after rotation and cropping):
    /// its true size, whatever EXIF says.
    pub width: u32,
    /// Its height as shown.
    pub height: u32,
    /// Bits per luma sample (8, 10 or 12).
    pub bit_depth: u8,
    /// Whether it has an alpha plane.
    pub has_alpha: bool,
    /// The sizes of its embedded thumbnails.
    pub thumbnails: Vec<(u32, u32)>,
    /// How many top-level images the file holds (a burst holds several;
    /// only the primary is shown).
    pub images: usize,
    /// The size of its ICC colour profile, if it carries one.
    pub icc_bytes: Option<usize>,
}

/// A decoded image: 8-bit RGBA, rows top to bottom, the right way up.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RgbaImage {
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// `width × height × 4` bytes.
    pub rgba: Vec<u8>,
    /// The image it stands for is this size (a thumbnail's primary image
    /// is larger than the thumbnail).
    pub full_size: (u32, u32),
    /// The ICC profile it carries, if any (within [`crate::MAX_ICC_BYTES`]).
    pub icc: Option<Vec<u8>>,
}

fn corrupt(detail: impl std::fmt::Display) -> PhotoError {
    PhotoError::Corrupt {
        format: "HEIF",
        detail: detail.to_string(),
    }
}

/// Parses the file `reader` holds, with libheif's limits set from ours.
fn context<'a, R: Read + Seek + 'a>(
    mut reader: R,
    limits: &Limits,
) -> Result<(HeifKind, HeifContext<'a>), PhotoError> {
    let mut head = [0u8; 64];
    let got = read_up_to(&mut reader, &mut head)?;
    let kind = heif_kind(&head[..got]).ok_or_else(|| corrupt("no HEIF brand in its first box"))?;
    let size = reader.seek(SeekFrom::End(0))?;
    reader.seek(SeekFrom::Start(0))?;
    let mut ctx = HeifContext::new().map_err(corrupt)?;
    let mut security = ctx.security_limits();
    security.set_max_image_size_pixels(limits.max_pixels);
    ctx.set_security_limits(&security).map_err(corrupt)?;
    ctx.read_reader(Box::new(StreamReader::new(reader, size)))
        .map_err(corrupt)?;
    Ok((kind, ctx))
}

fn read_up_to(reader: &mut impl Read, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut got = 0;
    while got < buf.len() {
        match reader.read(&mut buf[got..]) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(got)
}

/// What the HEIF file `reader` holds (see [`HeifInfo`]), from its boxes.
pub fn heif_info<R: Read + Seek>(reader: R) -> Result<HeifInfo, PhotoError> {
    let (kind, ctx) = context(reader, &Limits::default())?;
    let primary = ctx.primary_image_handle().map_err(corrupt)?;
    Ok(info_of(kind, &ctx, &primary))
}

/// The primary image's thumbnails that libheif opens, with their sizes.
fn thumbnails_of(primary: &ImageHandle) -> Vec<(libheif_rs::ItemId, (u32, u32))> {
    let mut ids = vec![0; primary.number_of_thumbnails()];
    let n = primary.thumbnail_ids(&mut ids);
    ids.truncate(n);
    ids.into_iter()
        .filter_map(|id| {
            primary
                .thumbnail(id)
                .ok()
                .map(|t| (id, (t.width(), t.height())))
        })
        .collect()
}

/// Which of `sizes` [`decode_heif`] decodes for `cover`: the smallest of
/// the primary's shape (a thumbnail of another shape is a crop, not this
/// photo) whose longer side reaches `cover`.
fn pick_thumbnail(sizes: &[(u32, u32)], full: (u32, u32), cover: Option<u32>) -> Option<usize> {
    let cover = cover?;
    sizes
        .iter()
        .enumerate()
        .filter(|(_, (w, h))| (*w).max(*h) >= cover && same_shape((*w, *h), full))
        .min_by_key(|(_, (w, h))| u64::from(*w) * u64::from(*h))
        .map(|(i, _)| i)
}

impl HeifInfo {
    /// The size [`decode_heif`] decodes for `cover`: a thumbnail's, or
    /// the primary image's.
    pub fn decoded_size(&self, cover: Option<u32>) -> (u32, u32) {
        let full = (self.width, self.height);
        pick_thumbnail(&self.thumbnails, full, cover).map_or(full, |i| self.thumbnails[i])
    }
}

fn info_of(kind: HeifKind, ctx: &HeifContext<'_>, primary: &ImageHandle) -> HeifInfo {
    let thumbnails = thumbnails_of(primary)
        .into_iter()
        .map(|(_, size)| size)
        .collect();
    HeifInfo {
        kind,
        width: primary.width(),
        height: primary.height(),
        bit_depth: primary.luma_bits_per_pixel(),
        has_alpha: primary.has_alpha_channel(),
        thumbnails,
        images: ctx.image_ids().len(),
        icc_bytes: primary.color_profile_raw().map(|p| p.data.len()),
    }
}

/// The memory [`decode_heif`] holds at its peak for a `width`×`height`
/// image decoded from `file_bytes` of file: its coded data, the decoder's
/// planes (4:4:4 at 16 bits at worst, with grid tiles composed into
/// them) and the RGBA copy. An upper bound from the header alone.
pub fn heif_decode_peak(file_bytes: u64, width: u32, height: u32) -> u64 {
    let pixels = u64::from(width) * u64::from(height);
    file_bytes + pixels * (3 * 2 + 4) + pixels * 4 + (4 << 20)
}

/// Decodes the primary image of the HEIF file `reader` holds (or, when
/// `cover` is given, its smallest embedded thumbnail of the same shape
/// whose longer side reaches `cover`: a grid of that size needs no more),
/// to 8-bit RGBA with its rotation and mirroring applied. 10- and 12-bit images are reduced to 8 bits. Sizes over
/// `limits` are refused before anything is decoded.
pub fn decode_heif<R: Read + Seek>(
    reader: R,
    limits: &Limits,
    cover: Option<u32>,
) -> Result<RgbaImage, PhotoError> {
    let lib = LibHeif::new_checked().map_err(corrupt)?;
    let (kind, ctx) = context(reader, limits)?;
    let primary = ctx.primary_image_handle().map_err(corrupt)?;
    let full_size = (primary.width(), primary.height());
    limits.check(full_size.0, full_size.1)?;
    let thumbnails = thumbnails_of(&primary);
    let sizes: Vec<(u32, u32)> = thumbnails.iter().map(|t| t.1).collect();
    let chosen = pick_thumbnail(&sizes, full_size, cover)
        .and_then(|i| primary.thumbnail(thumbnails[i].0).ok());
    let handle = chosen.as_ref().unwrap_or(&primary);
    let (w, h) = (handle.width(), handle.height());
    limits.check(w, h)?;
    let icc = handle
        .color_profile_raw()
        .map(|p| p.data)
        .filter(|d| d.len() <= crate::MAX_ICC_BYTES);
    let mut options = DecodingOptions::new().ok_or(PhotoError::OutOfMemory {
        bytes: std::mem::size_of::<usize>() as u64,
    })?;
    options.set_convert_hdr_to_8bit(true);
    let image = lib
        .decode(handle, ColorSpace::Rgb(RgbChroma::Rgba), Some(options))
        .map_err(|e| cannot_decode(kind, e))?;
    let planes = image.planes();
    let plane = planes
        .interleaved
        .ok_or_else(|| corrupt("libheif gave no interleaved RGBA plane"))?;
    let (pw, ph) = (plane.width as usize, plane.height as usize);
    let row = pw * 4;
    let n = row
        .checked_mul(ph)
        .ok_or_else(|| corrupt(format!("{pw}×{ph} decoded")))?;
    let mut rgba = Vec::new();
    rgba.try_reserve_exact(n)
        .map_err(|_| PhotoError::OutOfMemory { bytes: n as u64 })?;
    for y in 0..ph {
        let start = y * plane.stride;
        let line = plane
            .data
            .get(start..start + row)
            .ok_or_else(|| corrupt("libheif's plane is shorter than its size"))?;
        rgba.extend_from_slice(line);
    }
    Ok(RgbaImage {
        width: pw as u32,
        height: ph as u32,
        rgba,
        full_size,
        icc,
    })
}

/// Whether a `w`×`h` thumbnail has the shape of a `fw`×`fh` image (within
/// a pixel's rounding on its shorter side).
fn same_shape((w, h): (u32, u32), (fw, fh): (u32, u32)) -> bool {
    let (w, h, fw, fh) = (w as u64, h as u64, fw as u64, fh as u64);
    // |w/h − fw/fh| within one pixel of the thumbnail's size.
    (w * fh).abs_diff(h * fw) <= fw.max(fh)
}

/// libheif's refusal, saying which format this build could not decode.
fn cannot_decode(kind: HeifKind, e: libheif_rs::HeifError) -> PhotoError {
    PhotoError::Corrupt {
        format: "HEIF",
        detail: format!("an {} this build cannot decode because {e}", kind.name()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ftyp(major: &[u8; 4], compatible: &[&[u8; 4]]) -> Vec<u8> {
        let size = 16 + 4 * compatible.len();
        let mut b = (size as u32).to_be_bytes().to_vec();
        b.extend_from_slice(b"ftyp");
        b.extend_from_slice(major);
        b.extend_from_slice(&[0, 0, 0, 0]);
        for c in compatible {
            b.extend_from_slice(*c);
        }
        b
    }

    #[test]
    fn brands_tell_heic_from_avif_from_video() {
        assert_eq!(heif_kind(&ftyp(b"heic", &[b"mif1"])), Some(HeifKind::Heic));
        assert_eq!(
            heif_kind(&ftyp(b"mif1", &[b"mif1", b"heic"])),
            Some(HeifKind::Heic)
        );
        assert_eq!(heif_kind(&ftyp(b"avif", &[b"mif1"])), Some(HeifKind::Avif));
        assert_eq!(heif_kind(&ftyp(b"mif1", &[b"jpeg"])), Some(HeifKind::Other));
        // An iPhone video and an MP4: the same box, not an image.
        assert_eq!(heif_kind(&ftyp(b"qt  ", &[b"qt  "])), None);
        assert_eq!(heif_kind(&ftyp(b"isom", &[b"iso2", b"mp41"])), None);
        assert_eq!(heif_kind(b"\xFF\xD8\xFF\xE0"), None);
    }

    #[test]
    fn broken_bytes_are_an_error_naming_heif() {
        let mut b = ftyp(b"heic", &[b"mif1"]);
        b.extend_from_slice(&[0u8; 64]);
        let e = decode_heif(std::io::Cursor::new(&b), &Limits::default(), None).unwrap_err();
        assert!(e.to_string().starts_with("HEIF"), "{e}");
        assert!(heif_info(std::io::Cursor::new(&b)).is_err());
        assert!(heif_info(std::io::Cursor::new(b"\xFF\xD8")).is_err());
    }

    #[test]
    fn thumbnail_shapes() {
        assert!(same_shape((320, 240), (4032, 3024)));
        assert!(same_shape((240, 320), (3024, 4032)));
        assert!(!same_shape((320, 320), (4032, 3024)));
    }
}
