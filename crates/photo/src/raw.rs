//! Camera RAW through LibRaw (what digiKam, darktable's previews, gThumb
//! and RawTherapee read RAWs with): the largest preview the camera
//! embedded (a full-size JPEG in most), or, for a RAW without one, the
//! image developed at half size. `raw/preview.cpp` holds the calls, so
//! only C++ compiled against the installed headers reads LibRaw's structs.
//! LibRaw reads through the caller's seekable reader: the directories and
//! the preview, a few megabytes of a 50 MB RAW, never the whole file.

use std::ffi::{c_char, c_int, c_longlong, c_void};
use std::io::{Read, Seek, SeekFrom};

use crate::{Limits, PhotoError};

#[repr(C)]
struct PhotoRaw {
    flip: c_int,
    raw_width: c_int,
    raw_height: c_int,
    thumb_width: c_int,
    thumb_height: c_int,
    thumb_format: c_int,
    make: [c_char; 64],
    model: [c_char; 64],
    image: *mut c_void,
}

type ReadFn = unsafe extern "C" fn(ctx: *mut c_void, buf: *mut c_void, len: usize) -> c_longlong;
type SeekFn = unsafe extern "C" fn(ctx: *mut c_void, pos: c_longlong) -> c_int;

unsafe extern "C" {
    fn photo_raw_open(
        ctx: *mut c_void,
        read: ReadFn,
        seek: SeekFn,
        size: c_longlong,
        mode: c_int,
        out: *mut PhotoRaw,
    ) -> c_int;
    fn photo_raw_free(raw: *mut PhotoRaw);
    fn photo_raw_image_kind(raw: *const PhotoRaw) -> c_int;
    fn photo_raw_image_width(raw: *const PhotoRaw) -> c_int;
    fn photo_raw_image_height(raw: *const PhotoRaw) -> c_int;
    fn photo_raw_image_colors(raw: *const PhotoRaw) -> c_int;
    fn photo_raw_image_bits(raw: *const PhotoRaw) -> c_int;
    fn photo_raw_image_data(raw: *const PhotoRaw, size: *mut usize) -> *const u8;
    fn libraw_strerror(code: c_int) -> *const c_char;
}

/// What a RAW file is, from its first bytes: the maker's format by its
/// signature, or a TIFF whose first directory is a camera's (a DNG
/// version, a colour-filter array, sub-images beside a maker's name).
/// `None` for anything else, plain TIFFs included.
pub fn raw_kind(head: &[u8]) -> Option<&'static str> {
    let at = |i: usize, m: &[u8]| head.get(i..i + m.len()) == Some(m);
    if at(0, b"FUJIFILMCCD-RAW") {
        return Some("Fujifilm RAF");
    }
    if at(4, b"ftypcrx ") {
        return Some("Canon CR3");
    }
    if at(0, b"IIRO") || at(0, b"IIRS") || at(0, b"MMOR") {
        return Some("Olympus ORF");
    }
    if at(0, b"IIU\0") {
        return Some("Panasonic RW2");
    }
    if at(0, b"II*\0") && at(8, b"CR\x02\0") {
        return Some("Canon CR2");
    }
    let little = at(0, b"II*\0");
    if !little && !at(0, b"MM\0*") {
        return None;
    }
    let u16_at = |i: usize| -> Option<u16> {
        let b = head.get(i..i + 2)?;
        Some(if little {
            u16::from_le_bytes([b[0], b[1]])
        } else {
            u16::from_be_bytes([b[0], b[1]])
        })
    };
    let u32_at = |i: usize| -> Option<u32> {
        let b = head.get(i..i + 4)?;
        let b = [b[0], b[1], b[2], b[3]];
        Some(if little {
            u32::from_le_bytes(b)
        } else {
            u32::from_be_bytes(b)
        })
    };
    let ifd = u32_at(4)? as usize;
    let count = usize::from(u16_at(ifd)?).min(512);
    let (mut make, mut sub_images, mut cfa) = (false, false, false);
    for k in 0..count {
        let entry = ifd + 2 + 12 * k;
        match u16_at(entry)? {
            50706 => return Some("DNG"),
            271 => make = true,
            330 => sub_images = true,
            // Colour-filter array or linear raw as the first image.
            262 => cfa = matches!(u16_at(entry + 8), Some(32803 | 34892)),
            _ => {}
        }
    }
    (cfa || (make && sub_images)).then_some("camera RAW")
}

/// What a RAW holds, from its header.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RawInfo {
    /// The developed image's size, the right way up.
    pub width: u32,
    /// Its height.
    pub height: u32,
    /// The camera's orientation as an EXIF value (1–8).
    pub orientation: u32,
    /// The camera's maker and model, as LibRaw names them.
    pub camera: String,
    /// The embedded preview's size as stored (before orientation), if any.
    pub preview: Option<(u32, u32)>,
}

/// A RAW's picture: its embedded preview, still coded, or the image
/// developed at half size.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RawPicture {
    /// A JPEG preview, to be decoded (at a reduced size, for a grid) and
    /// turned by [`RawInfo::orientation`].
    Jpeg(Vec<u8>),
    /// 8-bit RGB pixels, already the right way up.
    Rgb {
        /// Width in pixels.
        width: u32,
        /// Height in pixels.
        height: u32,
        /// `width × height × 3` bytes.
        rgb: Vec<u8>,
    },
}

/// The largest RAW file opened (LibRaw's offsets are checked against it).
pub const MAX_RAW_BYTES: u64 = 1 << 34;

fn error(code: c_int) -> PhotoError {
    // SAFETY: libraw_strerror returns a static string for every code.
    let text = unsafe { std::ffi::CStr::from_ptr(libraw_strerror(code)) };
    PhotoError::Corrupt {
        format: "RAW",
        detail: format!("LibRaw: {}", text.to_string_lossy()),
    }
}

/// An open RAW, freed when dropped.
struct Opened(PhotoRaw);

impl Drop for Opened {
    fn drop(&mut self) {
        // SAFETY: the struct came from photo_raw_open; freeing twice is a
        // no-op there (it clears the pointer).
        unsafe { photo_raw_free(&mut self.0) }
    }
}

/// The reader LibRaw's callbacks read: any seekable reader, and the
/// first error it gave (LibRaw only sees "no bytes").
struct Input<'a> {
    reader: &'a mut dyn ReadSeek,
    error: Option<std::io::Error>,
}

trait ReadSeek: Read + Seek {}
impl<T: Read + Seek> ReadSeek for T {}

unsafe extern "C" fn read_cb(ctx: *mut c_void, buf: *mut c_void, len: usize) -> c_longlong {
    // SAFETY: ctx is the Input `open` passes, alive for the call; buf is
    // LibRaw's buffer of len bytes.
    let input = unsafe { &mut *ctx.cast::<Input<'_>>() };
    let out = unsafe { std::slice::from_raw_parts_mut(buf.cast::<u8>(), len) };
    let read = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        loop {
            match input.reader.read(out) {
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                other => return other,
            }
        }
    }));
    match read {
        Ok(Ok(n)) => n as c_longlong,
        Ok(Err(e)) => {
            input.error.get_or_insert(e);
            -1
        }
        Err(_) => -1,
    }
}

unsafe extern "C" fn seek_cb(ctx: *mut c_void, pos: c_longlong) -> c_int {
    // SAFETY: as in read_cb.
    let input = unsafe { &mut *ctx.cast::<Input<'_>>() };
    let Ok(pos) = u64::try_from(pos) else {
        return -1;
    };
    let seek = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        input.reader.seek(SeekFrom::Start(pos))
    }));
    match seek {
        Ok(Ok(_)) => 0,
        Ok(Err(e)) => {
            input.error.get_or_insert(e);
            -1
        }
        Err(_) => -1,
    }
}

fn open<R: Read + Seek>(mut reader: R, mode: c_int) -> Result<Opened, PhotoError> {
    let size = reader.seek(SeekFrom::End(0))?;
    if size > MAX_RAW_BYTES {
        return Err(PhotoError::FileTooLarge {
            size,
            limit: MAX_RAW_BYTES,
        });
    }
    reader.seek(SeekFrom::Start(0))?;
    let mut input = Input {
        reader: &mut reader,
        error: None,
    };
    let mut raw = std::mem::MaybeUninit::<PhotoRaw>::zeroed();
    // SAFETY: `input` outlives the call (LibRaw is closed before it
    // returns); `raw` is plain data the call fills.
    let code = unsafe {
        photo_raw_open(
            (&mut input as *mut Input<'_>).cast(),
            read_cb,
            seek_cb,
            size as c_longlong,
            mode,
            raw.as_mut_ptr(),
        )
    };
    // SAFETY: zeroed is a valid PhotoRaw, and the call wrote the rest.
    let opened = Opened(unsafe { raw.assume_init() });
    if let Some(e) = input.error {
        return Err(PhotoError::Io(e));
    }
    if code != 0 {
        return Err(error(code));
    }
    Ok(opened)
}

fn text(chars: &[c_char; 64]) -> String {
    let bytes: Vec<u8> = chars
        .iter()
        .take_while(|&&c| c != 0)
        .map(|&c| c as u8)
        .collect();
    String::from_utf8_lossy(&bytes).trim().to_owned()
}

fn info_of(raw: &PhotoRaw) -> RawInfo {
    // dcraw's flip: 4 swaps the axes, 2 flips rows, 1 flips columns.
    let orientation = match raw.flip {
        1 => 2,
        2 => 4,
        3 => 3,
        4 => 5,
        5 => 8,
        6 => 6,
        7 => 7,
        _ => 1,
    };
    let (w, h) = (raw.raw_width.max(0) as u32, raw.raw_height.max(0) as u32);
    let (width, height) = if raw.flip & 4 != 0 { (h, w) } else { (w, h) };
    let make = text(&raw.make);
    let model = text(&raw.model);
    let camera = if model.to_lowercase().starts_with(&make.to_lowercase()) {
        model
    } else {
        format!("{make} {model}").trim().to_owned()
    };
    RawInfo {
        width,
        height,
        orientation,
        camera,
        preview: (raw.thumb_format != 0 && raw.thumb_width > 0 && raw.thumb_height > 0)
            .then_some((raw.thumb_width as u32, raw.thumb_height as u32)),
    }
}

/// What the RAW `reader` holds (see [`RawInfo`]), from its directories.
pub fn raw_info<R: Read + Seek>(reader: R) -> Result<RawInfo, PhotoError> {
    let raw = open(reader, 0)?;
    Ok(info_of(&raw.0))
}

/// The RAW's picture (see [`RawPicture`]): its embedded preview, or the
/// half-size development when it has none (or when `develop` asks for
/// it). Sizes over `limits` are refused before anything is developed.
pub fn raw_picture<R: Read + Seek>(
    mut reader: R,
    limits: &Limits,
    develop: bool,
) -> Result<(RawInfo, RawPicture), PhotoError> {
    let info = raw_info(&mut reader)?;
    limits.check(info.width, info.height)?;
    let raw = open(reader, if develop { 2 } else { 1 })?;
    let raw = &raw.0;
    let mut size = 0usize;
    // SAFETY: the accessors read the image photo_raw_open made, which
    // lives until `raw` is dropped; the slice is copied before that.
    let (kind, w, h, colors, bits, data) = unsafe {
        let data = photo_raw_image_data(raw, &mut size);
        (
            photo_raw_image_kind(raw),
            photo_raw_image_width(raw),
            photo_raw_image_height(raw),
            photo_raw_image_colors(raw),
            photo_raw_image_bits(raw),
            if data.is_null() {
                &[][..]
            } else {
                std::slice::from_raw_parts(data, size)
            },
        )
    };
    let picture = match kind {
        // LIBRAW_IMAGE_JPEG
        1 => RawPicture::Jpeg(data.to_vec()),
        // LIBRAW_IMAGE_BITMAP: 8-bit RGB (or grey) rows.
        2 if bits == 8 && (colors == 3 || colors == 1) => {
            let (w, h) = (w.max(0) as u32, h.max(0) as u32);
            let n = (w as usize) * (h as usize);
            if data.len() < n * colors as usize {
                return Err(PhotoError::Corrupt {
                    format: "RAW",
                    detail: format!(
                        "LibRaw's {w}×{h} picture holds {} bytes, fewer than its size",
                        data.len()
                    ),
                });
            }
            let rgb = if colors == 3 {
                data[..n * 3].to_vec()
            } else {
                data[..n].iter().flat_map(|&l| [l, l, l]).collect()
            };
            RawPicture::Rgb {
                width: w,
                height: h,
                rgb,
            }
        }
        _ => {
            return Err(PhotoError::Corrupt {
                format: "RAW",
                detail: format!("LibRaw gave a picture of {colors} colours at {bits} bits"),
            });
        }
    };
    Ok((info, picture))
}

/// The memory [`raw_picture`] holds at its peak for a RAW of `file_bytes`
/// developing to `width`×`height`: the preview (at most the file) twice
/// (LibRaw's copy and ours), and without a preview the raw samples,
/// LibRaw's half-size image of four 16-bit channels and the 8-bit
/// output. An upper bound from the header.
pub fn raw_decode_peak(file_bytes: u64, width: u32, height: u32) -> u64 {
    let pixels = u64::from(width) * u64::from(height);
    let preview = 2 * file_bytes.min(pixels * 3);
    let develop = pixels * 2 + pixels / 4 * 8 + pixels / 4 * 3;
    preview.max(develop) + (4 << 20)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signatures() {
        assert_eq!(raw_kind(b"FUJIFILMCCD-RAW 0201"), Some("Fujifilm RAF"));
        assert_eq!(raw_kind(b"\0\0\0\x18ftypcrx \0\0\0\x01"), Some("Canon CR3"));
        assert_eq!(raw_kind(b"II*\0\x10\0\0\0CR\x02\0"), Some("Canon CR2"));
        assert_eq!(raw_kind(b"IIRO\x08\0\0\0"), Some("Olympus ORF"));
        // A plain TIFF: one directory of width, height, no maker.
        let mut tiff = b"II*\0\x08\0\0\0\x01\0".to_vec();
        tiff.extend_from_slice(&[0, 1, 3, 0, 1, 0, 0, 0, 16, 0, 0, 0]);
        assert_eq!(raw_kind(&tiff), None);
        assert_eq!(raw_kind(b"\xFF\xD8\xFF"), None);
        assert_eq!(raw_kind(b"II*\0\xFF\xFF\xFF\x7F"), None);
    }

    #[test]
    fn not_a_raw_is_libraws_reason() {
        let e = raw_info(std::io::Cursor::new(b"II*\0\x08\0\0\0\0\0")).unwrap_err();
        assert!(e.to_string().starts_with("RAW: LibRaw"), "{e}");
    }
}
