//! Thumbnails: the fast paths the grid lives on.
//!
//! - **Embedded preview**: the JPEG thumbnail most cameras put in EXIF
//!   (IFD1), read from the first 64 KB of the file, for the first paint.
//! - **JPEG at 1/8 size** (`dc.rs`): where an eighth of the size still
//!   covers the target (a 256 px thumbnail of anything from 2048 px), each
//!   8×8 block's mean is its DC coefficient, so the AC coefficients are
//!   only passed over, never decoded into blocks. Baseline and extended
//!   sequential JPEGs, grey or YCbCr; others go to the next path.
//! - **JPEG at reduced size**: jpeg-decoder's scaled IDCT decodes at 1/2,
//!   1/4 or 1/8 of the size, never below the target, so a 24 MP photo is
//!   decoded as about 0.4 MP; then a Lanczos3 resize (fast_image_resize,
//!   SIMD) to the target. Either way the file is streamed, never read
//!   whole.
//! - **HEIC and AVIF** through libheif ([`photo::decode_heif`]): the
//!   file's own thumbnail when it covers the target (an iPhone's 320 × 240
//!   for the grid), the primary image otherwise; rotation and mirroring
//!   come from the file's `irot`/`imir`, never again from its EXIF.
//! - **JPEG XL** through jxl-oxide ([`photo::decode_jxl`]).
//! - **Camera RAW** through LibRaw ([`photo::raw_picture`]): the camera's
//!   embedded preview, decoded by the JPEG paths above and turned by the
//!   RAW's orientation; a RAW without a preview large enough is developed
//!   at half size.
//! - **Other formats** (PNG, GIF, WebP, TIFF, BMP) through `image`, with
//!   its limits set from ours.
//!
//! Every thumbnail is RGBA, fits a `target`×`target` box, and has the EXIF
//! orientation applied. Sizes from a file's header are checked against
//! [`Limits`] before anything is allocated for them; a broken file is an
//! error naming what was wrong, never a panic.

use std::io::{BufRead, BufReader, Cursor, Read, Seek, SeekFrom};

mod dc;

use fast_image_resize::{FilterType, PixelType, ResizeAlg, ResizeOptions, Resizer, images::Image};

/// How much of a file the embedded-preview path reads.
pub const PREVIEW_HEAD: usize = 64 * 1024;

/// Limits checked against a file's header before decoding.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// The most pixels a source image may have.
    pub max_pixels: u64,
    /// The largest side a source image may have.
    pub max_side: u32,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_pixels: 400_000_000,
            max_side: 65_535,
        }
    }
}

/// Where a thumbnail came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    /// The EXIF thumbnail (small, for the first paint).
    Embedded,
    /// Decoded from the image at `1/scale` of its size, then resized.
    Decoded {
        /// 1, 2, 4 or 8 for JPEG; 1 for other formats.
        scale: u32,
    },
    /// Read back from the thumbnail cache.
    Cached,
}

/// An RGBA thumbnail.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Thumbnail {
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// `width × height × 4` bytes, rows top to bottom.
    pub rgba: Vec<u8>,
    /// The path it took.
    pub source: Source,
    /// The source image's size, after orientation.
    pub full_size: (u32, u32),
    /// What is wrong with the file when what is shown is only part of it
    /// (a JPEG cut short) or its embedded preview; shown under it.
    pub problem: Option<String>,
}

impl Thumbnail {
    /// The thumbnail as a JPEG (alpha dropped) at `quality` (1–100).
    pub fn to_jpeg(&self, quality: u8) -> Result<Vec<u8>, ThumbError> {
        let rgb: Vec<u8> = self
            .rgba
            .chunks_exact(4)
            .flat_map(|p| [p[0], p[1], p[2]])
            .collect();
        let mut out = Vec::new();
        image::codecs::jpeg::JpegEncoder::new_with_quality(&mut out, quality)
            .encode(
                &rgb,
                self.width,
                self.height,
                image::ExtendedColorType::Rgb8,
            )
            .map_err(|e| ThumbError::Decode(format!("encoding a JPEG: {e}")))?;
        Ok(out)
    }
}

/// Why a thumbnail could not be made.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ThumbError {
    /// The file is empty.
    #[error("the file is empty")]
    Empty,
    /// No image signature this viewer decodes: what the file is instead
    /// ("a Photoshop PSD", "a PDF document"), or its first bytes.
    #[error("not an image this viewer reads ({0})")]
    NotAnImage(String),
    /// The header promises more than the limits allow.
    #[error("{width}×{height} is over the limit of {limit} pixels")]
    TooLarge {
        /// The width the header gives.
        width: u32,
        /// The height the header gives.
        height: u32,
        /// The limit in force.
        limit: u64,
    },
    /// Decoding it would need more memory than decodes may hold together
    /// (the loader's budget), even with nothing else in flight.
    #[error("decoding it needs {} MB, more than the {} MB decodes may hold", needs.div_ceil(1 << 20), budget >> 20)]
    OverBudget {
        /// Bytes its decode would hold at its peak.
        needs: u64,
        /// The whole budget, in bytes.
        budget: u64,
    },
    /// The decoder gave up: truncated or corrupt data.
    #[error("cannot decode: {0}")]
    Decode(String),
    /// Reading the file failed.
    #[error("cannot read: {0}")]
    Io(#[from] std::io::Error),
}

/// The format a file's first bytes announce.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Jpeg,
    Heif(photo::HeifKind),
    Jxl,
    Raw,
    Other(image::ImageFormat),
}

fn sniff(head: &[u8]) -> Result<Kind, ThumbError> {
    if head.is_empty() {
        return Err(ThumbError::Empty);
    }
    if head.starts_with(&[0xFF, 0xD8, 0xFF]) {
        return Ok(Kind::Jpeg);
    }
    if let Some(kind) = photo::heif_kind(head) {
        return Ok(Kind::Heif(kind));
    }
    if photo::is_jxl(head) {
        return Ok(Kind::Jxl);
    }
    if photo::raw_kind(head).is_some() {
        return Ok(Kind::Raw);
    }
    match image::guess_format(head) {
        Ok(f) if f != image::ImageFormat::Avif => Ok(Kind::Other(f)),
        _ => Err(ThumbError::NotAnImage(what_it_is(head))),
    }
}

/// What a file this viewer does not decode is, by its signature, for the
/// reason shown under it; its first bytes where nothing is known.
pub fn what_it_is(head: &[u8]) -> String {
    let named: &[(&[u8], usize, &str)] = &[
        (b"8BPS", 0, "a Photoshop PSD"),
        (b"%PDF", 0, "a PDF document"),
        (b"gimp xcf", 0, "a GIMP XCF"),
        (b"\x1A\x45\xDF\xA3", 0, "a Matroska or WebM video"),
        (b"AVI ", 8, "an AVI video"),
        (b"WAVE", 8, "a WAV sound"),
        (b"ID3", 0, "an MP3 sound"),
        (b"OggS", 0, "an Ogg file"),
        (b"fLaC", 0, "a FLAC sound"),
        (b"PK\x03\x04", 0, "a ZIP archive"),
        (b"\x1F\x8B", 0, "a gzip archive"),
        (b"<svg", 0, "an SVG drawing (not a photo)"),
        (b"<?xml", 0, "an XML file"),
        (
            b"ftyp",
            4,
            "a video or other ISO media file (MP4, MOV, 3GP)",
        ),
    ];
    for (magic, at, name) in named {
        if head.get(*at..*at + magic.len()) == Some(*magic) {
            return (*name).to_owned();
        }
    }
    if head.starts_with(&[0x00, 0x00, 0x01, 0xBA]) {
        return "an MPEG video".to_owned();
    }
    if head.get(4) == Some(&0x47) && head.get(192 + 4) == Some(&0x47) {
        return "an MPEG transport stream (AVCHD .mts video)".to_owned();
    }
    if let Ok(f) = image::guess_format(head) {
        return format!("{f:?} images are not decoded by this build");
    }
    format!("starts with {:02x?}", &head[..head.len().min(8)])
}

/// The most of a HEIF or JPEG XL file read into memory for a decode.
const MAX_CODED_BYTES: u64 = 1 << 30;

/// A file's size, refused over `limit` bytes (what is read of it whole);
/// the reader is left at its start.
fn size_within<R: Seek>(reader: &mut R, limit: u64) -> Result<u64, ThumbError> {
    let size = reader.seek(SeekFrom::End(0))?;
    if size > limit {
        return Err(ThumbError::Decode(format!(
            "the file is {size} bytes, more than the {limit} read"
        )));
    }
    reader.seek(SeekFrom::Start(0))?;
    Ok(size)
}

/// A whole file, refused over `limit` bytes before it is read, with room
/// for `extra` bytes more.
fn read_whole<R: Read + Seek>(
    reader: &mut R,
    limit: u64,
    extra: usize,
) -> Result<Vec<u8>, ThumbError> {
    let size = size_within(reader, limit)?;
    let mut bytes = Vec::new();
    bytes
        .try_reserve_exact(size as usize + extra)
        .map_err(|_| ThumbError::Decode(format!("no memory for a file of {size} bytes")))?;
    reader.take(size).read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// A camera RAW: its embedded preview through the JPEG paths (at the
/// reduced size they pick), turned by the RAW's orientation; without a
/// preview that covers the target (or the RAW's own size), the image
/// developed at half size. A TIFF LibRaw does not take is read as a TIFF.
fn raw_thumbnail<R: BufRead + Seek>(
    mut reader: R,
    target: u32,
    limits: Limits,
) -> Result<Thumbnail, ThumbError> {
    let bounds = photo_limits(limits);
    let mut magic = [0u8; 4];
    reader.read_exact(&mut magic)?;
    let tiff = &magic == b"II*\0" || &magic == b"MM\0*";
    let info = match photo::raw_info(&mut reader) {
        Ok(info) => info,
        Err(e) if tiff => {
            tracing::debug!("not a RAW LibRaw reads ({e}); read as a TIFF");
            reader.seek(SeekFrom::Start(0))?;
            let (thumb, icc) = other_thumbnail(reader, image::ImageFormat::Tiff, target, limits)?;
            return Ok(in_srgb(thumb, icc.as_deref()));
        }
        Err(e) => return Err(photo_error(e, limits)),
    };
    let full = (info.width, info.height);
    let wanted = target.min(full.0.max(full.1));
    let preview_covers = info.preview.is_some_and(|(w, h)| w.max(h) >= wanted);
    let (_, picture) = photo::raw_picture(&mut reader, &bounds, !preview_covers)
        .map_err(|e| photo_error(e, limits))?;
    let (tw, th) = fitted(full.0, full.1, target);
    match picture {
        photo::RawPicture::Jpeg(jpeg) => {
            let t = thumbnail(Cursor::new(jpeg), target, limits)?;
            let t = orient(t, info.orientation);
            // The preview's own size is not the photo's.
            let rgba = resize_rgba(t.rgba, (t.width, t.height), (tw, th), true)?;
            Ok(Thumbnail {
                width: tw,
                height: th,
                rgba,
                source: t.source,
                full_size: full,
                problem: None,
            })
        }
        photo::RawPicture::Rgb { width, height, rgb } => {
            let mut rgba = Vec::new();
            rgba.try_reserve_exact(rgb.len() / 3 * 4).map_err(|_| {
                ThumbError::Decode(format!("no memory for a {width}×{height} image"))
            })?;
            widen_to_rgba(&rgb, 3, |v| v, &mut rgba);
            drop(rgb);
            let rgba = resize_rgba(rgba, (width, height), (tw, th), true)?;
            Ok(made(rgba, (tw, th), (full.0 / width.max(1)).max(1), full))
        }
    }
}

/// `photo`'s refusal as ours.
fn photo_error(e: photo::PhotoError, limits: Limits) -> ThumbError {
    match e {
        photo::PhotoError::TooLarge { width, height, .. } => ThumbError::TooLarge {
            width,
            height,
            limit: limits.max_pixels,
        },
        photo::PhotoError::Io(e) => ThumbError::Io(e),
        other => ThumbError::Decode(other.to_string()),
    }
}

fn photo_limits(limits: Limits) -> photo::Limits {
    photo::Limits {
        max_side: limits.max_side,
        max_pixels: limits.max_pixels,
    }
}

/// A HEIF (libheif reads only the boxes and the coded data it needs) or
/// JPEG XL, decoded, then fitted to the target.
fn decoded_thumbnail<R: BufRead + Seek>(
    mut reader: R,
    kind: Kind,
    target: u32,
    limits: Limits,
) -> Result<(Thumbnail, Option<Vec<u8>>), ThumbError> {
    let bounds = photo_limits(limits);
    let image = match kind {
        Kind::Heif(_) => photo::decode_heif(reader, &bounds, Some(target)),
        _ => {
            size_within(&mut reader, MAX_CODED_BYTES)?;
            photo::decode_jxl(reader, &bounds)
        }
    }
    .map_err(|e| photo_error(e, limits))?;
    let (fw, fh) = image.full_size;
    let (tw, th) = fitted(fw, fh, target);
    let scale = (fw / image.width.max(1)).max(1);
    let rgba = resize_rgba(image.rgba, (image.width, image.height), (tw, th), false)?;
    // jxl-oxide renders in sRGB already (or the profile it names).
    let icc = if kind == Kind::Jxl { None } else { image.icc };
    Ok((made(rgba, (tw, th), scale, (fw, fh)), icc))
}

/// A thumbnail decoded from the file at `1/scale` and fitted, whole.
fn made(
    rgba: Vec<u8>,
    (width, height): (u32, u32),
    scale: u32,
    full_size: (u32, u32),
) -> Thumbnail {
    Thumbnail {
        width,
        height,
        rgba,
        source: Source::Decoded { scale },
        full_size,
        problem: None,
    }
}

/// The box-fitted size of a `w`×`h` image for `target`, never 0.
pub fn fitted(w: u32, h: u32, target: u32) -> (u32, u32) {
    let target = target.max(1);
    if w <= target && h <= target {
        return (w.max(1), h.max(1));
    }
    if w >= h {
        let th = ((h as u64 * target as u64 + w as u64 / 2) / w as u64).max(1) as u32;
        (target, th)
    } else {
        let tw = ((w as u64 * target as u64 + h as u64 / 2) / h as u64).max(1) as u32;
        (tw, target)
    }
}

/// A thumbnail of the image `reader` holds, fitting `target`×`target`.
pub fn thumbnail<R: Read + Seek>(
    reader: R,
    target: u32,
    limits: Limits,
) -> Result<Thumbnail, ThumbError> {
    let mut reader = BufReader::with_capacity(64 * 1024, reader);
    let head = reader.fill_buf()?.to_vec();
    let kind = sniff(&head)?;
    // HEIF and JPEG XL decoders apply their own orientation.
    let orientation = match kind {
        Kind::Jpeg => jpeg_orientation(&mut reader)?,
        _ => 1,
    };
    let jpeg_icc = if kind == Kind::Jpeg {
        photo::jpeg_icc(&head)
    } else {
        None
    };
    reader.seek(SeekFrom::Start(0))?;
    if kind == Kind::Jpeg {
        let covers = |w: u32, h: u32| {
            let (tw, th) = fitted(w, h, target);
            w.div_ceil(8) >= tw && h.div_ceil(8) >= th
        };
        match dc::decode(&mut reader, limits, covers) {
            Ok(eighth) => {
                let (w, h) = eighth.full;
                let (tw, th) = fitted(w, h, target);
                let rgba = resize_rgba(eighth.rgba, (eighth.width, eighth.height), (tw, th), true)?;
                let thumb = made(rgba, (tw, th), 8, (w, h));
                return Ok(in_srgb(orient(thumb, orientation), jpeg_icc.as_deref()));
            }
            Err(dc::Declined::Error(e)) => return Err(e),
            Err(dc::Declined::Unsupported(why) | dc::Declined::Broken(why)) => {
                tracing::debug!("1/8 decode declined ({why}); the general decoder takes it");
                reader.seek(SeekFrom::Start(0))?;
            }
        }
    }
    let (thumb, icc) = match kind {
        Kind::Jpeg => match jpeg_thumbnail(&mut reader, target, limits) {
            Ok(t) => (t, jpeg_icc),
            Err(ThumbError::Decode(why)) => match recovered_jpeg(reader, target, limits, why)? {
                Recovered::Part(t) => (t, jpeg_icc),
                // Oriented by its own reading.
                Recovered::Preview(t) => return Ok(in_srgb(t, jpeg_icc.as_deref())),
            },
            Err(e) => return Err(e),
        },
        Kind::Heif(_) | Kind::Jxl => decoded_thumbnail(reader, kind, target, limits)?,
        Kind::Raw => return raw_thumbnail(reader, target, limits),
        Kind::Other(format) => other_thumbnail(reader, format, target, limits)?,
    };
    Ok(in_srgb(orient(thumb, orientation), icc.as_deref()))
}

/// What a JPEG the decoders refuse can still show.
enum Recovered {
    /// The rows before it was cut short, the rest grey (not yet oriented).
    Part(Thumbnail),
    /// Its embedded EXIF preview (oriented).
    Preview(Thumbnail),
}

/// A JPEG the decoder refused (`why`): what ImageMagick and libjpeg show
/// of one cut short (the rows before the cut; the rest grey), or else its
/// embedded preview, with the reason in [`Thumbnail::problem`].
fn recovered_jpeg<R: BufRead + Seek>(
    mut reader: R,
    target: u32,
    limits: Limits,
    why: String,
) -> Result<Recovered, ThumbError> {
    let mut bytes = read_whole(&mut reader, MAX_CODED_BYTES, 64)?;
    // Damage only where the structure says so: a whole, well-formed file
    // the decoder refuses (arithmetic coding, 12 bits) keeps its reason.
    let reason = match photo::jpeg_end(&mut Cursor::new(&bytes)) {
        Ok(end @ photo::JpegEnd::Truncated { .. }) => format!("the file is cut short: {end}"),
        Ok(end @ photo::JpegEnd::Malformed { .. }) => {
            format!("the image data is damaged: {end} ({why})")
        }
        _ => format!("cannot decode: {why}"),
    };
    // An end-of-image marker where the data stops: the decoder finishes
    // the scan with whatever the missing data decodes to. Decoded twice,
    // after two different paddings, the rows from the real data are the
    // same in both; the first row that differs is where the cut is.
    let n = bytes.len();
    bytes.extend_from_slice(&[0xFF, 0xD9]);
    let first = jpeg_thumbnail(Cursor::new(&bytes), target, limits);
    if let Ok(mut t) = first {
        // The second padding: bits the decoder reads as data (a padding
        // that decodes to nothing would fill as the first did); the first
        // one it takes.
        let mut cut_row = None;
        for fill in [0x55u8, 0xAA, 0x33, 0xCC] {
            bytes.truncate(n);
            bytes.extend_from_slice(&[fill; 62]);
            bytes.extend_from_slice(&[0xFF, 0xD9]);
            if let Ok(other) = jpeg_thumbnail(Cursor::new(&bytes), target, limits)
                && other.rgba.len() == t.rgba.len()
            {
                cut_row = first_differing_row(&t, &other);
                if cut_row.is_some() {
                    break;
                }
            }
        }
        if let Some(row) = cut_row {
            let from = row * t.width as usize * 4;
            for px in t.rgba[from..].chunks_exact_mut(4) {
                px.copy_from_slice(&[128, 128, 128, 255]);
            }
        }
        t.problem = Some(format!("{reason}; the part before it is shown"));
        return Ok(Recovered::Part(t));
    }
    let head = &bytes[..bytes.len().min(PREVIEW_HEAD)];
    if let Some(mut preview) = embedded_preview(head) {
        let (tw, th) = fitted(preview.width, preview.height, target);
        preview.rgba = resize_rgba(
            preview.rgba,
            (preview.width, preview.height),
            (tw, th),
            true,
        )?;
        (preview.width, preview.height) = (tw, th);
        preview.source = Source::Decoded { scale: 1 };
        preview.problem = Some(format!("{reason}; its embedded preview is shown"));
        return Ok(Recovered::Preview(preview));
    }
    Err(ThumbError::Decode(reason))
}

/// The first row where two decodes of the same cut-short JPEG differ (by
/// more than the resize's rounding): where the real data ends.
fn first_differing_row(a: &Thumbnail, b: &Thumbnail) -> Option<usize> {
    let row = a.width as usize * 4;
    if row == 0 {
        return None;
    }
    a.rgba
        .chunks_exact(row)
        .zip(b.rgba.chunks_exact(row))
        .position(|(x, y)| x.iter().zip(y).any(|(p, q)| p.abs_diff(*q) > 8))
}

/// The thumbnail's pixels converted from the file's colour profile to
/// sRGB (after the resize: the same colours at a sixty-fourth of the
/// work). A profile Little CMS cannot read leaves them as they are, with
/// a warning.
fn in_srgb(mut thumb: Thumbnail, icc: Option<&[u8]>) -> Thumbnail {
    if let Some(icc) = icc
        && let Err(e) = photo::to_srgb(&mut thumb.rgba, icc)
    {
        tracing::warn!("{e}: its colours are shown as sRGB");
    }
    thumb
}

/// What decoding an embedded preview (at most a megapixel, as
/// [`embedded_preview`] takes) holds: the decoder's output, the RGBA
/// copy and the resize.
const PREVIEW_PEAK: u64 = 1_000_000 * (3 + 4 + 4);

/// Slack for what every path holds besides its images: Huffman and
/// quantisation tables, segment bodies, read buffers, the decoders' own
/// state.
const PEAK_SLACK: u64 = 2 << 20;

/// What the Lanczos resize from `w`×`h` to `tw`×`th` holds besides its
/// source: the destination, the one-pass temporary (whichever way it
/// goes) and, with alpha, a premultiplied copy of the source.
fn resize_peak((w, h): (u64, u64), (tw, th): (u64, u64), opaque: bool) -> u64 {
    if (w, h) == (tw, th) {
        return 0;
    }
    let alpha = if opaque { 0 } else { w * h * 4 };
    tw * th * 4 + (tw * h).max(w * th) * 4 + alpha
}

/// The most memory [`thumbnail`] will hold for this file at `target`,
/// from its header alone (nothing is decoded or inflated): what a decode
/// reserves from a [`photo::MemoryBudget`] before it starts. An upper
/// bound, held to the measured peak by a test that counts allocations.
/// Sizes over `limits` are refused as [`thumbnail`] would refuse them.
pub fn decode_peak<R: Read + Seek>(
    reader: R,
    target: u32,
    limits: Limits,
) -> Result<u64, ThumbError> {
    let mut reader = BufReader::with_capacity(64 * 1024, reader);
    let head = reader.fill_buf()?.to_vec();
    let kind = sniff(&head)?;
    reader.seek(SeekFrom::Start(0))?;
    let px = |w: u32, h: u32| (u64::from(w), u64::from(h));
    match kind {
        Kind::Jpeg => {
            // A file cut short is read whole to show its part (and
            // decoded twice: the first result is held meanwhile).
            let file_bytes = reader.seek(SeekFrom::End(0))? + 64;
            reader.seek(SeekFrom::Start(0))?;
            let mut decoder = jpeg_decoder::Decoder::new(reader);
            // No frame header the decoder takes: thumbnail shows the
            // embedded preview (at most a megapixel) from the file read
            // whole, or says why not.
            let info = match decoder.read_info() {
                Ok(()) => decoder.info(),
                Err(_) => None,
            };
            let Some(info) = info else {
                return Ok(file_bytes + PREVIEW_PEAK + PEAK_SLACK);
            };
            let (w, h) = (u32::from(info.width), u32::from(info.height));
            check_size(w, h, limits)?;
            let (tw, th) = fitted(w, h, target);
            let (comps, bytes) = match info.pixel_format {
                jpeg_decoder::PixelFormat::L8 => (1, 1),
                jpeg_decoder::PixelFormat::L16 => (1, 2),
                jpeg_decoder::PixelFormat::RGB24 => (3, 1),
                jpeg_decoder::PixelFormat::CMYK32 => (4, 1),
            };
            // Blocks cover whole MCUs: up to 16 more pixels a side.
            let (pw, ph) = (u64::from(w) + 16, u64::from(h) + 16);
            let (tw, th) = px(tw, th);
            // The 1/8 path: a byte per block and component, then RGBA.
            let blocks = pw.div_ceil(8) * ph.div_ceil(8);
            let eighth = blocks * (comps + 4) + resize_peak((pw / 8, ph / 8), (tw, th), true);
            // jpeg-decoder at 1/scale: the smallest scale still covering
            // the target; progressive files keep every coefficient.
            let scale = [8u64, 4, 2, 1]
                .into_iter()
                .find(|&s| u64::from(w).div_ceil(s) >= tw && u64::from(h).div_ceil(s) >= th)
                .unwrap_or(1);
            let (sw, sh) = (pw.div_ceil(scale), ph.div_ceil(scale));
            let coefficients = if info.coding_process == jpeg_decoder::CodingProcess::DctProgressive
            {
                pw * ph * 2 * comps
            } else {
                // A row of MCUs per component.
                pw * 16 * 2 * comps
            };
            let planes = sw * sh * comps * bytes;
            let output = sw * sh * comps * bytes;
            let general = file_bytes
                + tw * th * 4
                + coefficients
                + planes
                + output
                + sw * sh * 4
                + resize_peak((sw, sh), (tw, th), true);
            Ok(eighth.max(general) + PEAK_SLACK)
        }
        Kind::Heif(_) => {
            let size = reader.seek(SeekFrom::End(0))?;
            reader.seek(SeekFrom::Start(0))?;
            let info = photo::heif_info(reader).map_err(|e| photo_error(e, limits))?;
            check_size(info.width, info.height, limits)?;
            let (tw, th) = fitted(info.width, info.height, target);
            // The thumbnail decode_heif chooses, or the primary.
            let (dw, dh) = info.decoded_size(Some(target));
            Ok(photo::heif_decode_peak(size, dw, dh)
                + resize_peak(px(dw, dh), px(tw, th), false)
                + PEAK_SLACK)
        }
        Kind::Raw => {
            let size = reader.seek(SeekFrom::End(0))?;
            reader.seek(SeekFrom::Start(0))?;
            match photo::raw_info(&mut reader) {
                Ok(info) => {
                    check_size(info.width, info.height, limits)?;
                    let (tw, th) = fitted(info.width, info.height, target);
                    // The preview's JPEG decode, or the development.
                    let preview = info
                        .preview
                        .map_or(0, |(w, h)| u64::from(w) * u64::from(h) * 8);
                    Ok(
                        photo::raw_decode_peak(size, info.width, info.height).max(preview)
                            + resize_peak(px(info.width / 2, info.height / 2), px(tw, th), true)
                            + PEAK_SLACK,
                    )
                }
                // Read as a TIFF instead (see raw_thumbnail).
                Err(_) => {
                    reader.seek(SeekFrom::Start(0))?;
                    other_peak(reader, image::ImageFormat::Tiff, target, limits)
                }
            }
        }
        Kind::Jxl => {
            let size = reader.seek(SeekFrom::End(0))?;
            reader.seek(SeekFrom::Start(0))?;
            let (w, h) = photo::jxl_size(reader).map_err(|e| photo_error(e, limits))?;
            check_size(w, h, limits)?;
            let (tw, th) = fitted(w, h, target);
            Ok(photo::jxl_decode_peak(size, w, h)
                + resize_peak(px(w, h), px(tw, th), false)
                + PEAK_SLACK)
        }
        Kind::Other(image::ImageFormat::Png) => {
            let header =
                photo::png_header(&mut reader).map_err(|e| ThumbError::Decode(e.to_string()))?;
            check_size(header.width, header.height, limits)?;
            let (w, h) = px(header.width, header.height);
            let (tw, th) = fitted(header.width, header.height, target);
            let opaque = header.channels % 2 == 1;
            Ok(header.decode_peak()
                + w * h * 4
                + resize_peak((w, h), px(tw, th), opaque)
                + PEAK_SLACK)
        }
        Kind::Other(format) => other_peak(reader, format, target, limits),
    }
}

/// [`decode_peak`] for the formats `image` decodes.
fn other_peak<R: BufRead + Seek>(
    reader: R,
    format: image::ImageFormat,
    target: u32,
    limits: Limits,
) -> Result<u64, ThumbError> {
    use image::ImageDecoder;
    let px = |w: u32, h: u32| (u64::from(w), u64::from(h));
    let decoder = image::ImageReader::with_format(reader, format)
        .into_decoder()
        .map_err(|e| ThumbError::Decode(e.to_string()))?;
    let (w, h) = decoder.dimensions();
    check_size(w, h, limits)?;
    let (tw, th) = fitted(w, h, target);
    let native = decoder.total_bytes();
    let (w, h) = px(w, h);
    // The decoder's own frame or canvas, as large as its output (GIF and
    // WebP compose into one; TIFF reads whole strips), then the RGBA copy.
    Ok(2 * native + w * h * 4 + resize_peak((w, h), px(tw, th), false) + PEAK_SLACK)
}

/// The embedded EXIF thumbnail of a JPEG, from the first bytes of the file
/// (up to [`PREVIEW_HEAD`]); `None` when there is none.
pub fn embedded_preview(head: &[u8]) -> Option<Thumbnail> {
    let head = &head[..head.len().min(PREVIEW_HEAD)];
    if !head.starts_with(&[0xFF, 0xD8]) {
        return None;
    }
    let exif = exif::Reader::new()
        .read_from_container(&mut Cursor::new(head))
        .ok()?;
    let field = |tag| {
        exif.get_field(tag, exif::In::THUMBNAIL)
            .and_then(|f| f.value.get_uint(0))
    };
    let offset = field(exif::Tag::JPEGInterchangeFormat)? as usize;
    let length = field(exif::Tag::JPEGInterchangeFormatLength)? as usize;
    let data = exif.buf().get(offset..offset.checked_add(length)?)?;
    let orientation = exif
        .get_field(exif::Tag::Orientation, exif::In::PRIMARY)
        .and_then(|f| f.value.get_uint(0))
        .unwrap_or(1);
    let mut decoder = jpeg_decoder::Decoder::new(Cursor::new(data));
    decoder.read_info().ok()?;
    let info = decoder.info()?;
    // A preview is small; refuse one that claims otherwise.
    if u32::from(info.width) * u32::from(info.height) > 1_000_000 {
        return None;
    }
    let pixels = decoder.decode().ok()?;
    let rgba = to_rgba(&pixels, info.pixel_format)?;
    let (w, h) = (u32::from(info.width), u32::from(info.height));
    if rgba.len() != (w * h * 4) as usize {
        return None;
    }
    Some(orient(
        Thumbnail {
            width: w,
            height: h,
            rgba,
            source: Source::Embedded,
            full_size: (w, h),
            problem: None,
        },
        orientation,
    ))
}

/// The EXIF orientation (1–8) of a JPEG, 1 when there is none.
fn jpeg_orientation<R: BufRead + Seek>(reader: &mut R) -> Result<u32, ThumbError> {
    reader.seek(SeekFrom::Start(0))?;
    let mut head = Vec::new();
    reader
        .by_ref()
        .take(PREVIEW_HEAD as u64)
        .read_to_end(&mut head)?;
    let o = exif::Reader::new()
        .read_from_container(&mut Cursor::new(&head))
        .ok()
        .and_then(|e| {
            e.get_field(exif::Tag::Orientation, exif::In::PRIMARY)
                .and_then(|f| f.value.get_uint(0))
        })
        .unwrap_or(1);
    Ok(if (1..=8).contains(&o) { o } else { 1 })
}

fn check_size(width: u32, height: u32, limits: Limits) -> Result<(), ThumbError> {
    let pixels = u64::from(width) * u64::from(height);
    if width == 0 || height == 0 {
        return Err(ThumbError::Decode(format!(
            "the header gives a {width}×{height} image"
        )));
    }
    if pixels > limits.max_pixels || width > limits.max_side || height > limits.max_side {
        return Err(ThumbError::TooLarge {
            width,
            height,
            limit: limits.max_pixels,
        });
    }
    Ok(())
}

fn jpeg_thumbnail<R: Read>(
    reader: R,
    target: u32,
    limits: Limits,
) -> Result<Thumbnail, ThumbError> {
    let mut decoder = jpeg_decoder::Decoder::new(reader);
    decoder
        .read_info()
        .map_err(|e| ThumbError::Decode(e.to_string()))?;
    let info = decoder
        .info()
        .ok_or_else(|| ThumbError::Decode("no frame header".into()))?;
    let (w, h) = (u32::from(info.width), u32::from(info.height));
    check_size(w, h, limits)?;
    let (tw, th) = fitted(w, h, target);
    // The smallest DCT scale whose output still covers the target on both
    // sides. jpeg-decoder picks the smallest at which *either* side covers
    // a request (a 1352 × 225 photo asked for 170 × 28 came out 169 × 29),
    // so ask for each side alone, an impossible size on the other, and
    // keep the larger answer: the last request made is the one decoded.
    let scale_err = |e: jpeg_decoder::Error| ThumbError::Decode(e.to_string());
    let (tw16, th16) = (
        tw.min(u32::from(u16::MAX)) as u16,
        th.min(u32::from(u16::MAX)) as u16,
    );
    let by_width = decoder.scale(tw16, u16::MAX).map_err(scale_err)?;
    let by_height = decoder.scale(u16::MAX, th16).map_err(scale_err)?;
    let (sw, sh) = if by_width.0 > by_height.0 {
        decoder.scale(tw16, u16::MAX).map_err(scale_err)?
    } else {
        by_height
    };
    let (sw, sh) = (u32::from(sw), u32::from(sh));
    let pixels = decoder
        .decode()
        .map_err(|e| ThumbError::Decode(e.to_string()))?;
    let format = decoder
        .info()
        .map(|i| i.pixel_format)
        .unwrap_or(info.pixel_format);
    let rgba = to_rgba(&pixels, format)
        .ok_or_else(|| ThumbError::Decode("unsupported pixel format".into()))?;
    drop(pixels);
    if rgba.len() != (sw as usize) * (sh as usize) * 4 {
        return Err(ThumbError::Decode(
            "the decoder returned fewer pixels than its size".into(),
        ));
    }
    let scale = (w / sw.max(1)).max(1);
    resize_rgba(rgba, (sw, sh), (tw, th), true).map(|rgba| made(rgba, (tw, th), scale, (w, h)))
}

/// A PNG through `photo`, which measures its colour profile before
/// inflating it (one that inflates to gigabytes is skipped, not decoded
/// into memory).
fn png_thumbnail<R: BufRead + Seek>(
    reader: R,
    target: u32,
    limits: Limits,
) -> Result<(Thumbnail, Option<Vec<u8>>), ThumbError> {
    let png =
        photo::decode_png(reader, &photo_limits(limits)).map_err(|e| photo_error(e, limits))?;
    if let photo::Icc::Skipped { compressed } = png.icc {
        tracing::warn!(
            "a PNG's colour profile ({compressed} bytes compressed) inflates to more than {} MB \
             or is broken: left out",
            photo::MAX_ICC_BYTES >> 20
        );
    }
    let (w, h) = (png.width, png.height);
    let n = (w as usize) * (h as usize);
    let c = usize::from(png.channels);
    let mut rgba = Vec::new();
    rgba.try_reserve_exact(n * 4)
        .map_err(|_| ThumbError::Decode(format!("no memory for a {w}×{h} image")))?;
    match &png.samples {
        photo::Samples::U8(s) => widen_to_rgba(s, c, |v| v, &mut rgba),
        // 16-bit samples keep their high byte.
        photo::Samples::U16(s) => widen_to_rgba(s, c, |v| (v >> 8) as u8, &mut rgba),
    }
    drop(png.samples);
    let (tw, th) = fitted(w, h, target);
    let opaque = c % 2 == 1;
    let rgba = resize_rgba(rgba, (w, h), (tw, th), opaque)?;
    let icc = match png.icc {
        photo::Icc::Profile(p) => Some(p),
        _ => None,
    };
    Ok((made(rgba, (tw, th), 1, (w, h)), icc))
}

/// Grey, grey and alpha, RGB or RGBA samples appended to `out` as RGBA.
fn widen_to_rgba<S: Copy>(
    samples: &[S],
    channels: usize,
    eight: impl Fn(S) -> u8,
    out: &mut Vec<u8>,
) {
    for p in samples.chunks_exact(channels) {
        let px = match p {
            [l] => [eight(*l), eight(*l), eight(*l), 255],
            [l, a] => [eight(*l), eight(*l), eight(*l), eight(*a)],
            [r, g, b] => [eight(*r), eight(*g), eight(*b), 255],
            [r, g, b, a, ..] => [eight(*r), eight(*g), eight(*b), eight(*a)],
            [] => continue,
        };
        out.extend_from_slice(&px);
    }
}

/// A format `image` decodes, with the colour profile it carries.
fn other_thumbnail<R: BufRead + Seek>(
    reader: R,
    format: image::ImageFormat,
    target: u32,
    limits: Limits,
) -> Result<(Thumbnail, Option<Vec<u8>>), ThumbError> {
    use image::ImageDecoder;
    if format == image::ImageFormat::Png {
        return png_thumbnail(reader, target, limits);
    }
    let decode = |e: image::ImageError| ThumbError::Decode(e.to_string());
    let mut decoder = image::ImageReader::with_format(reader, format)
        .into_decoder()
        .map_err(decode)?;
    // The header's size, checked before the pixels are allocated.
    let (w, h) = decoder.dimensions();
    check_size(w, h, limits)?;
    let mut image_limits = image::Limits::default();
    image_limits.max_image_width = Some(limits.max_side);
    image_limits.max_image_height = Some(limits.max_side);
    image_limits.max_alloc = Some(limits.max_pixels.saturating_mul(8));
    decoder.set_limits(image_limits).map_err(decode)?;
    let icc = decoder
        .icc_profile()
        .ok()
        .flatten()
        .filter(|p| p.len() <= photo::MAX_ICC_BYTES);
    let img = image::DynamicImage::from_decoder(decoder)
        .map_err(decode)?
        .into_rgba8();
    let (w, h) = img.dimensions();
    let (tw, th) = fitted(w, h, target);
    let rgba = resize_rgba(img.into_raw(), (w, h), (tw, th), false)?;
    Ok((made(rgba, (tw, th), 1, (w, h)), icc))
}

fn to_rgba(pixels: &[u8], format: jpeg_decoder::PixelFormat) -> Option<Vec<u8>> {
    use jpeg_decoder::PixelFormat as P;
    let n = match format {
        P::L8 => pixels.len(),
        P::L16 => pixels.len() / 2,
        P::RGB24 => pixels.len() / 3,
        P::CMYK32 => pixels.len() / 4,
    };
    let mut out = Vec::new();
    out.try_reserve_exact(n.checked_mul(4)?).ok()?;
    match format {
        P::L8 => {
            for &l in pixels {
                out.extend_from_slice(&[l, l, l, 255]);
            }
        }
        P::L16 => {
            for p in pixels.chunks_exact(2) {
                out.extend_from_slice(&[p[0], p[0], p[0], 255]);
            }
        }
        P::RGB24 => {
            for p in pixels.chunks_exact(3) {
                out.extend_from_slice(&[p[0], p[1], p[2], 255]);
            }
        }
        P::CMYK32 => {
            // jpeg-decoder gives inverted CMYK (Adobe): RGB = C·K/255.
            for p in pixels.chunks_exact(4) {
                let k = u16::from(p[3]);
                let f = |c: u8| ((u16::from(c) * k + 127) / 255) as u8;
                out.extend_from_slice(&[f(p[0]), f(p[1]), f(p[2]), 255]);
            }
        }
    }
    Some(out)
}

/// Lanczos3 from `w`×`h` to `tw`×`th` (a copy when the sizes match).
/// `opaque`: every alpha is 255, so the resizer may skip premultiplying.
fn resize_rgba(
    rgba: Vec<u8>,
    (w, h): (u32, u32),
    (tw, th): (u32, u32),
    opaque: bool,
) -> Result<Vec<u8>, ThumbError> {
    if (w, h) == (tw, th) {
        return Ok(rgba);
    }
    let from = Image::from_vec_u8(w, h, rgba, PixelType::U8x4)
        .map_err(|e| ThumbError::Decode(e.to_string()))?;
    let mut to = Image::new(tw, th, PixelType::U8x4);
    let options = ResizeOptions::new()
        .resize_alg(ResizeAlg::Convolution(FilterType::Lanczos3))
        .use_alpha(!opaque);
    Resizer::new()
        .resize(&from, &mut to, &options)
        .map_err(|e| ThumbError::Decode(e.to_string()))?;
    Ok(to.into_vec())
}

/// Applies an EXIF orientation (1–8) to a thumbnail.
pub fn orient(t: Thumbnail, orientation: u32) -> Thumbnail {
    if orientation <= 1 || orientation > 8 {
        return t;
    }
    let (w, h) = (t.width as usize, t.height as usize);
    // 5–8 swap the axes.
    let swap = orientation >= 5;
    let (ow, oh) = if swap { (h, w) } else { (w, h) };
    let mut out = vec![0u8; t.rgba.len()];
    for y in 0..h {
        for x in 0..w {
            let (nx, ny) = match orientation {
                2 => (w - 1 - x, y),
                3 => (w - 1 - x, h - 1 - y),
                4 => (x, h - 1 - y),
                5 => (y, x),
                6 => (h - 1 - y, x),
                7 => (h - 1 - y, w - 1 - x),
                _ => (y, w - 1 - x),
            };
            let from = (y * w + x) * 4;
            let to = (ny * ow + nx) * 4;
            out[to..to + 4].copy_from_slice(&t.rgba[from..from + 4]);
        }
    }
    let full_size = if swap {
        (t.full_size.1, t.full_size.0)
    } else {
        t.full_size
    };
    Thumbnail {
        width: ow as u32,
        height: oh as u32,
        rgba: out,
        source: t.source,
        full_size,
        problem: t.problem,
    }
}
