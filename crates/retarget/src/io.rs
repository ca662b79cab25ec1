//! Image files: read with the size checked before any pixel buffer exists,
//! EXIF orientation applied, ICC profile and EXIF kept; written atomically
//! (a temporary file in the same folder, renamed over the target only once
//! complete).

use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};

use image::{
    DynamicImage, ExtendedColorType, ImageDecoder, ImageEncoder, ImageReader, metadata::Orientation,
};
use thiserror::Error;

use crate::raster::{Limits, Raster};
use crate::{Mask, RetargetError};

/// A file that could not be read or written.
#[derive(Debug, Error)]
pub enum IoError {
    /// The file could not be opened, read or written.
    #[error("{}: {source}", path.display())]
    File {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// Not an image we can decode, or a corrupt or truncated one.
    #[error("{}: {source}", path.display())]
    Decode {
        /// The file.
        path: PathBuf,
        /// What the decoder said.
        source: image::ImageError,
    },
    /// The image could not be encoded.
    #[error("{}: {source}", path.display())]
    Encode {
        /// The file.
        path: PathBuf,
        /// What the encoder said.
        source: image::ImageError,
    },
    /// An output name whose extension names no format we write.
    #[error("{}: cannot write this format (use .png, .jpg, .tif, .webp or .bmp)", path.display())]
    UnknownFormat {
        /// The file.
        path: PathBuf,
    },
    /// The image's size or layout is refused.
    #[error("{}: {source}", path.display())]
    Image {
        /// The file.
        path: PathBuf,
        /// What was wrong.
        source: RetargetError,
    },
    /// An output would be written over one of the inputs.
    #[error(
        "{} would be written over the input {}: give another name or folder with -o",
        output.display(),
        input.display()
    )]
    OutputIsInput {
        /// The output path.
        output: PathBuf,
        /// The input it is (the same file, after links are resolved).
        input: PathBuf,
    },
    /// Two inputs would be written to the same output.
    #[error(
        "{} and {} would both be written to {}: resize them in separate runs or rename one",
        first.display(),
        second.display(),
        output.display()
    )]
    SharedOutput {
        /// The output path.
        output: PathBuf,
        /// The first input.
        first: PathBuf,
        /// The second input.
        second: PathBuf,
    },
    /// The output exists and replacing it was not asked for.
    #[error("{} exists already: pass --force to replace it", path.display())]
    OutputExists {
        /// The output path.
        path: PathBuf,
    },
    /// The file ended before its image data did (a truncated download or
    /// copy).
    #[error("{}: the file ends before its image does ({detail})", path.display())]
    Truncated {
        /// The file.
        path: PathBuf,
        /// Where it ends.
        detail: String,
    },
}

/// The same file: its device and inode where it exists (hard links are the
/// same file too), else its resolved path.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum FileIdentity {
    #[cfg(unix)]
    Inode(u64, u64),
    Path(PathBuf),
}

/// `path` with its folder's links resolved (the file itself may not exist
/// yet; a link at the file's own name is followed where it exists).
fn identity(path: &Path) -> FileIdentity {
    #[cfg(unix)]
    if let Ok(m) = std::fs::metadata(path) {
        use std::os::unix::fs::MetadataExt;
        return FileIdentity::Inode(m.dev(), m.ino());
    }
    if let Ok(p) = std::fs::canonicalize(path) {
        return FileIdentity::Path(p);
    }
    let parent = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    match (std::fs::canonicalize(parent), path.file_name()) {
        (Ok(dir), Some(name)) => FileIdentity::Path(dir.join(name)),
        _ => FileIdentity::Path(path.to_owned()),
    }
}

/// Where each input goes: `output` itself for one input, `output/NAME`
/// for several (`batch`). Checked before any work, so that nothing is
/// written when anything is wrong: no output may be an input (after links,
/// hard links included), no two inputs may share an output, and an output
/// that exists is refused unless `replace` is set.
pub fn output_plan(
    inputs: &[PathBuf],
    output: &Path,
    batch: bool,
    replace: bool,
) -> Result<Vec<PathBuf>, IoError> {
    let mut inputs_by_identity = std::collections::HashMap::new();
    for input in inputs {
        inputs_by_identity
            .entry(identity(input))
            .or_insert_with(|| input.clone());
    }
    let mut outputs: std::collections::HashMap<FileIdentity, &Path> =
        std::collections::HashMap::new();
    let mut plan = Vec::with_capacity(inputs.len());
    for input in inputs {
        let out = if batch {
            match input.file_name() {
                Some(name) => output.join(name),
                None => {
                    return Err(IoError::File {
                        path: input.clone(),
                        source: std::io::Error::new(
                            std::io::ErrorKind::InvalidInput,
                            "not a file name",
                        ),
                    });
                }
            }
        } else {
            output.to_owned()
        };
        let id = identity(&out);
        if let Some(same) = inputs_by_identity.get(&id) {
            return Err(IoError::OutputIsInput {
                output: out,
                input: same.clone(),
            });
        }
        if let Some(first) = outputs.get(&id) {
            return Err(IoError::SharedOutput {
                output: out,
                first: first.to_path_buf(),
                second: input.clone(),
            });
        }
        if !replace && std::fs::symlink_metadata(&out).is_ok() {
            return Err(IoError::OutputExists { path: out });
        }
        outputs.insert(id, input);
        plan.push(out);
    }
    Ok(plan)
}

/// Decoded pixels, 8 or 16 bits per sample.
#[derive(Debug, Clone, PartialEq)]
pub enum AnyRaster {
    /// 8 bits per sample.
    U8(Raster<u8>),
    /// 16 bits per sample (float images are read as 16-bit).
    U16(Raster<u16>),
}

impl AnyRaster {
    /// Width.
    pub fn width(&self) -> u32 {
        match self {
            AnyRaster::U8(r) => r.width(),
            AnyRaster::U16(r) => r.width(),
        }
    }
    /// Height.
    pub fn height(&self) -> u32 {
        match self {
            AnyRaster::U8(r) => r.height(),
            AnyRaster::U16(r) => r.height(),
        }
    }
    /// Channels per pixel.
    pub fn channels(&self) -> u8 {
        match self {
            AnyRaster::U8(r) => r.channels(),
            AnyRaster::U16(r) => r.channels(),
        }
    }
}

/// An image file's pixels and the metadata we carry over.
#[derive(Debug, Clone)]
pub struct Picture {
    /// Pixels, already turned upright by the EXIF orientation.
    pub raster: AnyRaster,
    /// The embedded ICC colour profile.
    pub icc: Option<Vec<u8>>,
    /// The raw EXIF block (TIFF structure), with its orientation reset to 1.
    pub exif: Option<Vec<u8>>,
    /// Where the file ended early, when [`read_with`] was asked for a
    /// partial picture and the file is a truncated JPEG.
    pub truncated: Option<String>,
}

/// What an image file's header says, before any pixel is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Header {
    /// Width, upright (after the EXIF orientation).
    pub width: u32,
    /// Height, upright.
    pub height: u32,
    /// Channels the pixels will have once read.
    pub channels: u8,
    /// Bytes a sample will take once read (1 or 2).
    pub bytes_per_sample: u8,
}

/// Opens `path` for reading if it is a regular file (after links): a
/// device (`/dev/zero`), a FIFO or a folder is refused by name rather than
/// read forever.
fn regular_file(path: &Path) -> Result<File, IoError> {
    photo::open_regular(path).map_err(|e| photo_error(path, e))
}

/// `photo`'s errors as ours, naming the file.
fn photo_error(path: &Path, e: photo::PhotoError) -> IoError {
    let image = |source| IoError::Image {
        path: path.to_owned(),
        source,
    };
    match e {
        photo::PhotoError::Empty { width, height } => image(RetargetError::ZeroSize {
            what: "image",
            axis: if width == 0 { "width" } else { "height" },
            width: u64::from(width),
            height: u64::from(height),
        }),
        photo::PhotoError::TooLarge {
            width,
            height,
            max_side,
            max_pixels,
        } => image(RetargetError::TooLarge {
            what: "image",
            width: u64::from(width),
            height: u64::from(height),
            max_side,
            max_pixels,
        }),
        photo::PhotoError::Io(source) => IoError::File {
            path: path.to_owned(),
            source,
        },
        other => IoError::File {
            path: path.to_owned(),
            source: std::io::Error::new(std::io::ErrorKind::InvalidData, other.to_string()),
        },
    }
}

/// The format a file's first bytes name.
fn sniff(path: &Path) -> Result<Option<image::ImageFormat>, IoError> {
    let mut head = Vec::with_capacity(16);
    Read::take(regular_file(path)?, 16)
        .read_to_end(&mut head)
        .map_err(|source| IoError::File {
            path: path.to_owned(),
            source,
        })?;
    Ok(image::guess_format(&head).ok())
}

/// How far a JPEG goes: `None` when whole, else where it ends.
fn jpeg_cut(path: &Path) -> Result<Option<String>, IoError> {
    let mut walk = BufReader::new(regular_file(path)?);
    match photo::jpeg_end(&mut walk) {
        Ok(photo::JpegEnd::Truncated { after, place }) => {
            Ok(Some(format!("after {after} bytes, {place}")))
        }
        Ok(_) => Ok(None),
        Err(source) => Err(IoError::File {
            path: path.to_owned(),
            source,
        }),
    }
}

/// Opens an image file's decoder (any format but PNG, which goes through
/// `photo`), its header's size checked against `limits` before anything
/// else is read.
fn open_decoder(path: &Path, limits: &Limits) -> Result<impl ImageDecoder, IoError> {
    let file = |source| IoError::File {
        path: path.to_owned(),
        source,
    };
    let reader = ImageReader::new(BufReader::new(regular_file(path)?))
        .with_guessed_format()
        .map_err(file)?;
    let format = reader.format();
    let dec = match reader.into_decoder() {
        Ok(dec) => dec,
        Err(source) => {
            // A JPEG cut short in its header: say that, not what the
            // decoder tripped on.
            if format == Some(image::ImageFormat::Jpeg)
                && let Some(detail) = jpeg_cut(path)?
            {
                return Err(IoError::Truncated {
                    path: path.to_owned(),
                    detail,
                });
            }
            return Err(IoError::Decode {
                path: path.to_owned(),
                source,
            });
        }
    };
    let (w, h) = dec.dimensions();
    limits
        .check("image", u64::from(w), u64::from(h))
        .map_err(|source| IoError::Image {
            path: path.to_owned(),
            source,
        })?;
    Ok(dec)
}

/// Whether an orientation swaps width and height.
fn turns(orientation: Orientation) -> bool {
    matches!(
        orientation,
        Orientation::Rotate90
            | Orientation::Rotate270
            | Orientation::Rotate90FlipH
            | Orientation::Rotate270FlipH
    )
}

/// Reads only an image file's header (size and layout), checked against
/// `limits`: what a caller needs to judge the memory a resize will take.
/// Nothing is inflated or decoded (a PNG's colour profile neither).
pub fn header(path: &Path, limits: &Limits) -> Result<Header, IoError> {
    if sniff(path)? == Some(image::ImageFormat::Png) {
        let h = photo::png_header(&mut BufReader::new(regular_file(path)?))
            .map_err(|e| photo_error(path, e))?;
        limits
            .check("image", u64::from(h.width), u64::from(h.height))
            .map_err(|source| IoError::Image {
                path: path.to_owned(),
                source,
            })?;
        let orientation = h
            .exif
            .as_deref()
            .and_then(Orientation::from_exif_chunk)
            .unwrap_or(Orientation::NoTransforms);
        let (width, height) = if turns(orientation) {
            (h.height, h.width)
        } else {
            (h.width, h.height)
        };
        return Ok(Header {
            width,
            height,
            channels: h.channels,
            bytes_per_sample: h.bytes_per_sample,
        });
    }
    let mut dec = open_decoder(path, limits)?;
    let (w, h) = dec.dimensions();
    let orientation = dec.orientation().unwrap_or(Orientation::NoTransforms);
    let ct = dec.color_type();
    let (width, height) = if turns(orientation) { (h, w) } else { (w, h) };
    // As `to_raster` will keep them: floats become 16-bit, odd layouts
    // 16-bit RGBA.
    let (channels, bytes_per_sample) = match ct {
        image::ColorType::L8 => (1, 1),
        image::ColorType::La8 => (2, 1),
        image::ColorType::Rgb8 => (3, 1),
        image::ColorType::Rgba8 => (4, 1),
        image::ColorType::L16 => (1, 2),
        image::ColorType::La16 => (2, 2),
        image::ColorType::Rgb16 | image::ColorType::Rgb32F => (3, 2),
        _ => (4, 2),
    };
    Ok(Header {
        width,
        height,
        channels,
        bytes_per_sample,
    })
}

/// Reads an image file. The header's size is checked against `limits`
/// before the pixels are decoded; a file that ends before its image does
/// is an error ([`IoError::Truncated`]); a PNG's colour profile over
/// [`photo::MAX_ICC_BYTES`] inflated is left out, with a warning.
pub fn read(path: &Path, limits: &Limits) -> Result<Picture, IoError> {
    read_with(path, limits, false)
}

/// As [`read`]; with `partial`, a truncated JPEG gives what its decoder
/// makes of it (the missing part grey) and says so in
/// [`Picture::truncated`] instead of failing.
pub fn read_with(path: &Path, limits: &Limits, partial: bool) -> Result<Picture, IoError> {
    let format = sniff(path)?;
    if format == Some(image::ImageFormat::Png) {
        return read_png(path, limits);
    }
    let decode = |source| IoError::Decode {
        path: path.to_owned(),
        source,
    };
    let mut dec = open_decoder(path, limits)?;
    // The JPEG decoder fills a scan that ends early with grey and says
    // nothing: walk the file's markers to its end first.
    let truncated = if format == Some(image::ImageFormat::Jpeg) {
        match jpeg_cut(path)? {
            Some(detail) if !partial => {
                return Err(IoError::Truncated {
                    path: path.to_owned(),
                    detail,
                });
            }
            cut => cut,
        }
    } else {
        None
    };
    let mut lim = image::Limits::default();
    lim.max_image_width = Some(limits.max_side);
    lim.max_image_height = Some(limits.max_side);
    // Room for the largest image the limits allow at 16-bit RGBA.
    lim.max_alloc = Some(limits.max_pixels.saturating_mul(8));
    dec.set_limits(lim).map_err(decode)?;
    // Metadata errors are not fatal: the pixels still resize.
    let icc = dec.icc_profile().ok().flatten();
    let exif = dec.exif_metadata().ok().flatten();
    let orientation = dec.orientation().unwrap_or(Orientation::NoTransforms);
    let mut img = DynamicImage::from_decoder(dec).map_err(decode)?;
    img.apply_orientation(orientation);
    let raster = to_raster(img).map_err(|source| IoError::Image {
        path: path.to_owned(),
        source,
    })?;
    Ok(Picture {
        raster,
        icc,
        exif: exif.map(upright_exif),
        truncated,
    })
}

/// A PNG through `photo`: its colour profile measured before it is
/// inflated.
fn read_png(path: &Path, limits: &Limits) -> Result<Picture, IoError> {
    let bounds = photo::Limits {
        max_side: limits.max_side,
        max_pixels: limits.max_pixels,
    };
    let png = photo::decode_png(BufReader::new(regular_file(path)?), &bounds)
        .map_err(|e| photo_error(path, e))?;
    let icc = match png.icc {
        photo::Icc::Profile(p) => Some(p),
        photo::Icc::Skipped { compressed } => {
            eprintln!(
                "retarget: warning: {}: its colour profile ({compressed} bytes compressed) \
                 inflates to more than {} MB or is broken; left out, the pixels read as sRGB",
                path.display(),
                photo::MAX_ICC_BYTES >> 20
            );
            None
        }
        photo::Icc::None => None,
    };
    let orientation = png
        .exif
        .as_deref()
        .and_then(Orientation::from_exif_chunk)
        .unwrap_or(Orientation::NoTransforms);
    let (w, h, c) = (png.width, png.height, png.channels);
    let image_err = |source| IoError::Image {
        path: path.to_owned(),
        source,
    };
    let raster = match png.samples {
        photo::Samples::U8(s) => AnyRaster::U8(Raster::from_vec(w, h, c, s).map_err(image_err)?),
        photo::Samples::U16(s) => AnyRaster::U16(Raster::from_vec(w, h, c, s).map_err(image_err)?),
    };
    let raster = if orientation == Orientation::NoTransforms {
        raster
    } else {
        orient_raster(raster, orientation).map_err(image_err)?
    };
    Ok(Picture {
        raster,
        icc,
        exif: png.exif.map(upright_exif),
        truncated: None,
    })
}

/// Turns a raster upright through `image` (the rule the other formats
/// take).
fn orient_raster(raster: AnyRaster, orientation: Orientation) -> Result<AnyRaster, RetargetError> {
    let img = match raster {
        AnyRaster::U8(r) => {
            let (w, h, c) = (r.width(), r.height(), r.channels());
            let v = r.into_vec();
            match c {
                1 => image::GrayImage::from_raw(w, h, v).map(DynamicImage::ImageLuma8),
                2 => image::GrayAlphaImage::from_raw(w, h, v).map(DynamicImage::ImageLumaA8),
                3 => image::RgbImage::from_raw(w, h, v).map(DynamicImage::ImageRgb8),
                _ => image::RgbaImage::from_raw(w, h, v).map(DynamicImage::ImageRgba8),
            }
        }
        AnyRaster::U16(r) => {
            let (w, h, c) = (r.width(), r.height(), r.channels());
            let v = r.into_vec();
            match c {
                1 => image::ImageBuffer::from_raw(w, h, v).map(DynamicImage::ImageLuma16),
                2 => image::ImageBuffer::from_raw(w, h, v).map(DynamicImage::ImageLumaA16),
                3 => image::ImageBuffer::from_raw(w, h, v).map(DynamicImage::ImageRgb16),
                _ => image::ImageBuffer::from_raw(w, h, v).map(DynamicImage::ImageRgba16),
            }
        }
    };
    let Some(mut img) = img else {
        return Err(RetargetError::BadChannels(0));
    };
    img.apply_orientation(orientation);
    to_raster(img)
}

fn to_raster(img: DynamicImage) -> Result<AnyRaster, RetargetError> {
    let (w, h) = (img.width(), img.height());
    Ok(match img {
        DynamicImage::ImageLuma8(b) => AnyRaster::U8(Raster::from_vec(w, h, 1, b.into_raw())?),
        DynamicImage::ImageLumaA8(b) => AnyRaster::U8(Raster::from_vec(w, h, 2, b.into_raw())?),
        DynamicImage::ImageRgb8(b) => AnyRaster::U8(Raster::from_vec(w, h, 3, b.into_raw())?),
        DynamicImage::ImageRgba8(b) => AnyRaster::U8(Raster::from_vec(w, h, 4, b.into_raw())?),
        DynamicImage::ImageLuma16(b) => AnyRaster::U16(Raster::from_vec(w, h, 1, b.into_raw())?),
        DynamicImage::ImageLumaA16(b) => AnyRaster::U16(Raster::from_vec(w, h, 2, b.into_raw())?),
        DynamicImage::ImageRgb16(b) => AnyRaster::U16(Raster::from_vec(w, h, 3, b.into_raw())?),
        DynamicImage::ImageRgba16(b) => AnyRaster::U16(Raster::from_vec(w, h, 4, b.into_raw())?),
        DynamicImage::ImageRgb32F(_) => {
            AnyRaster::U16(Raster::from_vec(w, h, 3, img.to_rgb16().into_raw())?)
        }
        other => AnyRaster::U16(Raster::from_vec(w, h, 4, other.to_rgba16().into_raw())?),
    })
}

/// Sets the EXIF orientation tag (0x0112) of IFD0 to 1, since the pixels
/// were turned upright on reading. A block we cannot parse is dropped
/// rather than carried wrong.
fn upright_exif(mut exif: Vec<u8>) -> Vec<u8> {
    fn fix(b: &mut [u8]) -> Option<()> {
        let le = match b.get(0..2)? {
            b"II" => true,
            b"MM" => false,
            _ => return None,
        };
        let u16_at = |b: &[u8], i: usize| -> Option<u16> {
            let s: [u8; 2] = b.get(i..i + 2)?.try_into().ok()?;
            Some(if le {
                u16::from_le_bytes(s)
            } else {
                u16::from_be_bytes(s)
            })
        };
        let u32_at = |b: &[u8], i: usize| -> Option<u32> {
            let s: [u8; 4] = b.get(i..i + 4)?.try_into().ok()?;
            Some(if le {
                u32::from_le_bytes(s)
            } else {
                u32::from_be_bytes(s)
            })
        };
        let ifd = u32_at(b, 4)? as usize;
        let count = u16_at(b, ifd)? as usize;
        for k in 0..count {
            let e = ifd + 2 + 12 * k;
            if u16_at(b, e)? == 0x0112 {
                let one = if le {
                    1u16.to_le_bytes()
                } else {
                    1u16.to_be_bytes()
                };
                b.get_mut(e + 8..e + 10)?.copy_from_slice(&one);
            }
        }
        Some(())
    }
    match fix(&mut exif) {
        Some(()) => exif,
        None => Vec::new(),
    }
}

/// Reads a mask image: a pixel is set where its luma (or alpha, if it has
/// one) is at least half.
pub fn read_mask(path: &Path, limits: &Limits) -> Result<Mask, IoError> {
    let pic = read(path, limits)?;
    let (w, h) = (pic.raster.width(), pic.raster.height());
    let bits = match &pic.raster {
        AnyRaster::U8(r) => mask_bits(r.as_slice(), r.channels(), 128),
        AnyRaster::U16(r) => mask_bits(r.as_slice(), r.channels(), 32768),
    };
    Mask::from_vec(w, h, bits).map_err(|source| IoError::Image {
        path: path.to_owned(),
        source,
    })
}

fn mask_bits<S: Copy + Into<u32>>(s: &[S], channels: u8, half: u32) -> Vec<bool> {
    let c = usize::from(channels);
    s.chunks_exact(c)
        .map(|p| match c {
            2 | 4 => p[c - 1].into() >= half,
            3 => (p[0].into() + p[1].into() + p[2].into()) >= 3 * half,
            _ => p[0].into() >= half,
        })
        .collect()
}

/// Writes an image to `path` (format from the extension), carrying the ICC
/// profile and EXIF where the format allows. 16-bit images go to JPEG, WebP
/// and BMP as 8-bit. The file appears only once it is complete, and
/// replaces a file of that name.
pub fn write(
    path: &Path,
    raster: &AnyRaster,
    icc: Option<&[u8]>,
    exif: Option<&[u8]>,
) -> Result<(), IoError> {
    write_file(path, raster, icc, exif, true)
}

/// As [`write()`], but refuses to replace anything at `path`
/// ([`IoError::OutputExists`]), even a file made there while this one was
/// being encoded.
pub fn write_new(
    path: &Path,
    raster: &AnyRaster,
    icc: Option<&[u8]>,
    exif: Option<&[u8]>,
) -> Result<(), IoError> {
    write_file(path, raster, icc, exif, false)
}

fn write_file(
    path: &Path,
    raster: &AnyRaster,
    icc: Option<&[u8]>,
    exif: Option<&[u8]>,
    replace: bool,
) -> Result<(), IoError> {
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase)
        .unwrap_or_default();
    let file_err = |source| IoError::File {
        path: path.to_owned(),
        source,
    };
    let enc_err = |source| IoError::Encode {
        path: path.to_owned(),
        source,
    };
    if !matches!(
        ext.as_str(),
        "png" | "jpg" | "jpeg" | "tif" | "tiff" | "webp" | "bmp"
    ) {
        return Err(IoError::UnknownFormat {
            path: path.to_owned(),
        });
    }
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let tmp = tempfile::Builder::new()
        .prefix(".retarget-")
        .tempfile_in(dir)
        .map_err(file_err)?;
    if ext == "png" {
        let mut out = BufWriter::new(tmp.as_file());
        write_png(&mut out, raster, icc, exif).map_err(|e| IoError::Encode {
            path: path.to_owned(),
            source: image::ImageError::Encoding(image::error::EncodingError::new(
                image::error::ImageFormatHint::Exact(image::ImageFormat::Png),
                e,
            )),
        })?;
        out.flush().map_err(file_err)?;
    } else {
        let mut out = BufWriter::new(tmp.as_file());
        let (w, h) = (raster.width(), raster.height());
        // The pixels as bytes, in a layout this format takes.
        let eight_bit = matches!(ext.as_str(), "jpg" | "jpeg" | "webp" | "bmp");
        let (bytes, color) = encode_layout(raster, eight_bit, ext.as_str());
        let set_meta = |enc: &mut dyn ImageEncoderMeta| {
            if let Some(p) = icc {
                enc.icc(p.to_vec());
            }
            if let Some(e) = exif.filter(|e| !e.is_empty()) {
                enc.exif(e.to_vec());
            }
        };
        match ext.as_str() {
            "jpg" | "jpeg" => {
                let mut e = image::codecs::jpeg::JpegEncoder::new_with_quality(&mut out, 92);
                set_meta(&mut e);
                e.write_image(&bytes, w, h, color).map_err(enc_err)?;
            }
            "tif" | "tiff" => {
                let mut buf = std::io::Cursor::new(Vec::new());
                let mut e = image::codecs::tiff::TiffEncoder::new(&mut buf);
                set_meta(&mut e);
                e.write_image(&bytes, w, h, color).map_err(enc_err)?;
                out.write_all(buf.get_ref()).map_err(file_err)?;
            }
            "webp" => {
                let mut e = image::codecs::webp::WebPEncoder::new_lossless(&mut out);
                set_meta(&mut e);
                e.write_image(&bytes, w, h, color).map_err(enc_err)?;
            }
            _ => {
                let e = image::codecs::bmp::BmpEncoder::new(&mut out);
                e.write_image(&bytes, w, h, color).map_err(enc_err)?;
            }
        }
        out.flush().map_err(file_err)?;
    }
    // The temporary file is private (0600); give the output the permissions
    // of the file it replaces, or the usual rw-r--r--.
    let perms = match std::fs::metadata(path) {
        Ok(m) => m.permissions(),
        Err(_) => default_permissions(tmp.as_file()).map_err(file_err)?,
    };
    tmp.as_file().set_permissions(perms).map_err(file_err)?;
    tmp.as_file().sync_all().map_err(file_err)?;
    if replace {
        tmp.persist(path).map_err(|e| file_err(e.error))?;
    } else {
        tmp.persist_noclobber(path).map_err(|e| {
            if e.error.kind() == std::io::ErrorKind::AlreadyExists {
                IoError::OutputExists {
                    path: path.to_owned(),
                }
            } else {
                file_err(e.error)
            }
        })?;
    }
    Ok(())
}

/// Rows converted per write when streaming a PNG.
const PNG_ROWS: usize = 64;

/// Writes a PNG a band of rows at a time (16-bit samples turned big-endian
/// on the way), so no copy of the whole image is made.
fn write_png(
    out: &mut impl Write,
    raster: &AnyRaster,
    icc: Option<&[u8]>,
    exif: Option<&[u8]>,
) -> Result<(), png::EncodingError> {
    let (w, h) = (raster.width(), raster.height());
    let mut info = png::Info::with_size(w, h);
    let channels = match raster {
        AnyRaster::U8(r) => r.channels(),
        AnyRaster::U16(r) => r.channels(),
    };
    info.color_type = match channels {
        1 => png::ColorType::Grayscale,
        2 => png::ColorType::GrayscaleAlpha,
        3 => png::ColorType::Rgb,
        _ => png::ColorType::Rgba,
    };
    info.bit_depth = match raster {
        AnyRaster::U8(_) => png::BitDepth::Eight,
        AnyRaster::U16(_) => png::BitDepth::Sixteen,
    };
    info.icc_profile = icc.map(std::borrow::Cow::Borrowed);
    info.exif_metadata = exif
        .filter(|e| !e.is_empty())
        .map(std::borrow::Cow::Borrowed);
    let mut enc = png::Encoder::with_info(out, info)?;
    // What `image`'s PNG encoder does by default.
    enc.set_compression(png::Compression::Fast);
    let mut writer = enc.write_header()?;
    let mut stream = writer.stream_writer()?;
    match raster {
        AnyRaster::U8(r) => stream.write_all(r.as_slice())?,
        AnyRaster::U16(r) => {
            let row = w as usize * usize::from(channels);
            let mut buf = Vec::with_capacity(row * PNG_ROWS * 2);
            for band in r.as_slice().chunks(row * PNG_ROWS) {
                buf.clear();
                buf.extend(band.iter().flat_map(|v| v.to_be_bytes()));
                stream.write_all(&buf)?;
            }
        }
    }
    stream.finish()?;
    writer.finish()?;
    Ok(())
}

#[cfg(unix)]
fn default_permissions(_file: &File) -> std::io::Result<std::fs::Permissions> {
    use std::os::unix::fs::PermissionsExt;
    Ok(std::fs::Permissions::from_mode(0o644))
}

#[cfg(not(unix))]
fn default_permissions(file: &File) -> std::io::Result<std::fs::Permissions> {
    Ok(file.metadata()?.permissions())
}

/// The two metadata setters, over the encoders' own trait. A format that
/// cannot carry a block refuses it, and then it is left out.
trait ImageEncoderMeta {
    fn icc(&mut self, icc: Vec<u8>);
    fn exif(&mut self, exif: Vec<u8>);
}

impl<E: ImageEncoder> ImageEncoderMeta for E {
    fn icc(&mut self, icc: Vec<u8>) {
        let _refused = self.set_icc_profile(icc);
    }
    fn exif(&mut self, exif: Vec<u8>) {
        let _refused = self.set_exif_metadata(exif);
    }
}

fn encode_layout(raster: &AnyRaster, eight_bit: bool, ext: &str) -> (Vec<u8>, ExtendedColorType) {
    let colour = |c: u8, sixteen: bool| match (c, sixteen) {
        (1, false) => ExtendedColorType::L8,
        (2, false) => ExtendedColorType::La8,
        (3, false) => ExtendedColorType::Rgb8,
        (_, false) => ExtendedColorType::Rgba8,
        (1, true) => ExtendedColorType::L16,
        (2, true) => ExtendedColorType::La16,
        (3, true) => ExtendedColorType::Rgb16,
        (_, true) => ExtendedColorType::Rgba16,
    };
    // JPEG has no alpha; WebP and BMP take no grey+alpha: widen or drop.
    let target_channels = |c: u8| match (ext, c) {
        ("jpg" | "jpeg", 2) => 1,
        ("jpg" | "jpeg", 4) => 3,
        ("webp" | "bmp", 1) => 3,
        ("webp" | "bmp", 2) => 4,
        _ => c,
    };
    match raster {
        AnyRaster::U8(r) => {
            let tc = target_channels(r.channels());
            (
                convert_channels(r.as_slice(), r.channels(), tc),
                colour(tc, false),
            )
        }
        AnyRaster::U16(r) if eight_bit => {
            let bytes: Vec<u8> = r
                .as_slice()
                .iter()
                .map(|&v| ((u32::from(v) * 255 + 32767) / 65535) as u8)
                .collect();
            let tc = target_channels(r.channels());
            (
                convert_channels(&bytes, r.channels(), tc),
                colour(tc, false),
            )
        }
        AnyRaster::U16(r) => {
            let bytes = r.as_slice().iter().flat_map(|v| v.to_ne_bytes()).collect();
            (bytes, colour(r.channels(), true))
        }
    }
}

fn convert_channels(s: &[u8], from: u8, to: u8) -> Vec<u8> {
    if from == to {
        return s.to_vec();
    }
    let (f, t) = (usize::from(from), usize::from(to));
    let mut out = Vec::with_capacity(s.len() / f * t);
    for p in s.chunks_exact(f) {
        match (from, to) {
            (2, 1) | (4, 3) => out.extend_from_slice(&p[..t]),
            (1, 3) => out.extend_from_slice(&[p[0]; 3]),
            (2, 4) => out.extend_from_slice(&[p[0], p[0], p[0], p[1]]),
            _ => out.extend_from_slice(&p[..t.min(f)]),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::upright_exif;
    use proptest::prelude::*;

    fn tiff(le: bool, entries: &[(u16, u16)]) -> Vec<u8> {
        let u16b = |v: u16| if le { v.to_le_bytes() } else { v.to_be_bytes() };
        let u32b = |v: u32| if le { v.to_le_bytes() } else { v.to_be_bytes() };
        let mut b = if le { b"II".to_vec() } else { b"MM".to_vec() };
        b.extend_from_slice(&u16b(42));
        b.extend_from_slice(&u32b(8));
        b.extend_from_slice(&u16b(entries.len() as u16));
        for &(tag, value) in entries {
            b.extend_from_slice(&u16b(tag));
            b.extend_from_slice(&u16b(3));
            b.extend_from_slice(&u32b(1));
            b.extend_from_slice(&u16b(value));
            b.extend_from_slice(&[0, 0]);
        }
        b.extend_from_slice(&u32b(0));
        b
    }

    #[test]
    fn orientation_is_reset_in_both_byte_orders() {
        for le in [true, false] {
            let out = upright_exif(tiff(le, &[(0x010f, 7), (0x0112, 6), (0x0131, 9)]));
            assert_eq!(out, tiff(le, &[(0x010f, 7), (0x0112, 1), (0x0131, 9)]));
        }
    }

    proptest! {
        /// Hostile EXIF never panics: it comes back the same length with at
        /// most the orientation changed, or it is dropped.
        #[test]
        fn hostile_exif_never_panics(mut bytes in prop::collection::vec(any::<u8>(), 0..200), le in any::<bool>(), cut in 0usize..64) {
            let mut real = tiff(le, &[(0x0112, 8), (0x0100, 3)]);
            real.truncate(real.len().saturating_sub(cut));
            for input in [bytes.clone(), real] {
                let out = upright_exif(input.clone());
                prop_assert!(out.is_empty() || out.len() == input.len());
            }
            bytes.insert(0, b'I');
            bytes.insert(0, b'I');
            let _ = upright_exif(bytes);
        }
    }
}
