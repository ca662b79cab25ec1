//! Writing changes into the photo file itself (JPEG, PNG and TIFF), the safe
//! way: a copy beside it is updated by the XMP Toolkit's file handler
//! (which keeps IPTC-IIM and EXIF in step with the XMP where the file has
//! them, as Lightroom and Bridge do), checked (the image data, byte for
//! byte, is the original's), synced and renamed over the original; if the
//! original changed meanwhile, nothing is replaced.

use std::path::{Path, PathBuf};

use xmp_toolkit::{OpenFileOptions, XmpFile, XmpMeta};

use super::sidecar::{Changes, apply, stamp, sync_folder, temp_name};
use super::{MetaError, model::ns};

/// The formats written into.
pub const EMBEDDED_FORMATS: [&str; 6] = ["jpg", "jpeg", "png", "jpe", "tif", "tiff"];

/// Whether changes can be written into this photo file (by its
/// extension).
pub fn can_embed(photo: &Path) -> bool {
    photo
        .extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| EMBEDDED_FORMATS.contains(&e.to_ascii_lowercase().as_str()))
}

/// Writes `changes` into the photo's own XMP (and its IPTC-IIM and EXIF
/// copies where it has them); every other byte of the image data stays.
///
/// # Errors
/// A format not written into, a file that cannot be read or written, a
/// handler that cannot update it, image data that would change, or a
/// file changed by another program meanwhile (left as it was).
pub fn write_embedded(photo: &Path, changes: &Changes) -> Result<(), MetaError> {
    if let Some(r) = changes.rating.filter(|r| !(-1..=5).contains(r)) {
        return Err(MetaError::BadValue(format!(
            "a rating of {r} (0 to 5 stars, or -1 for rejected)"
        )));
    }
    if !can_embed(photo) {
        return Err(MetaError::BadValue(format!(
            "{}: metadata is written into JPEG, PNG and TIFF files; this one keeps it in its sidecar",
            photo.display()
        )));
    }
    ns::register();
    let io = |error: std::io::Error| MetaError::Io {
        path: photo.to_owned(),
        error,
    };
    let bad = |detail: String| MetaError::BadXmp {
        path: photo.to_owned(),
        detail,
    };
    let before = stamp(photo).map_err(io)?.ok_or_else(|| {
        io(std::io::Error::new(
            std::io::ErrorKind::NotFound,
            "the photo is not there",
        ))
    })?;
    let original = std::fs::read(photo).map_err(io)?;
    // The copy keeps the extension: the toolkit picks its handler by it.
    let ext = photo
        .extension()
        .map(|e| e.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp: PathBuf = temp_name(photo, &ext);
    let cleanup = |e: MetaError| {
        let _ = std::fs::remove_file(&tmp);
        e
    };
    let is_png = ext.eq_ignore_ascii_case("png");
    if is_png {
        // The toolkit's PNG handler updates a packet in place without
        // padding it (the old packet's tail stays in the chunk, and
        // exiftool reads the old values from it): the chunk is written
        // here instead, from the toolkit's serialization.
        let mut xmp = match super::read_embedded(photo)? {
            Some(x) => x,
            None => XmpMeta::new().map_err(|e| bad(e.to_string()))?,
        };
        apply(&mut xmp, changes).map_err(|e| bad(e.to_string()))?;
        let packet = xmp
            .to_string_with_options(xmp_toolkit::ToStringOptions::default())
            .map_err(|e| bad(e.to_string()))?;
        let bytes = png_with_xmp(&original, &packet)
            .ok_or_else(|| bad("its chunks cannot be read".to_owned()))?;
        std::fs::write(&tmp, bytes).map_err(|e| cleanup(io(e)))?;
    } else {
        std::fs::write(&tmp, &original).map_err(|e| cleanup(io(e)))?;
    }
    let updated = (|| -> Result<(), MetaError> {
        if is_png {
            return Ok(());
        }
        let mut file = XmpFile::new().map_err(|e| bad(e.to_string()))?;
        file.open_file(
            &tmp,
            OpenFileOptions::default().for_update().use_smart_handler(),
        )
        .map_err(|e| bad(format!("the file cannot be updated: {e}")))?;
        let mut xmp = match file.xmp() {
            Some(x) => x,
            None => XmpMeta::new().map_err(|e| bad(e.to_string()))?,
        };
        apply(&mut xmp, changes).map_err(|e| bad(e.to_string()))?;
        if !file.can_put_xmp(&xmp) {
            return Err(bad("its handler cannot take the new XMP".to_owned()));
        }
        file.put_xmp(&xmp).map_err(|e| bad(e.to_string()))?;
        file.try_close().map_err(|e| bad(e.to_string()))
    })();
    updated.map_err(cleanup)?;
    let written = std::fs::read(&tmp).map_err(|e| cleanup(io(e)))?;
    if image_data(photo, &original) != image_data(photo, &written)
        || image_data(photo, &written).is_none()
    {
        return Err(cleanup(bad(
            "writing it would change the image data; left as it was".to_owned(),
        )));
    }
    let perms = std::fs::metadata(photo)
        .map_err(|e| cleanup(io(e)))?
        .permissions();
    let synced = std::fs::File::options()
        .write(true)
        .open(&tmp)
        .and_then(|f| {
            f.set_permissions(perms)?;
            f.sync_all()
        });
    synced.map_err(|e| cleanup(io(e)))?;
    if stamp(photo).map_err(|e| cleanup(io(e)))? != Some(before) {
        return Err(cleanup(MetaError::Busy {
            path: photo.to_owned(),
            tries: 1,
        }));
    }
    std::fs::rename(&tmp, photo).map_err(|e| cleanup(io(e)))?;
    sync_folder(photo);
    Ok(())
}

/// A PNG with its XMP chunks (`iTXt` keyword `XML:com.adobe.xmp`)
/// replaced by one holding `packet`, right after `IHDR` (where readers
/// that stop at the image data find it); every other chunk as it was.
fn png_with_xmp(bytes: &[u8], packet: &str) -> Option<Vec<u8>> {
    const KEY: &[u8] = b"XML:com.adobe.xmp";
    if bytes.get(..8) != Some(b"\x89PNG\r\n\x1a\n".as_slice()) {
        return None;
    }
    let mut out = bytes[..8].to_vec();
    let mut at = 8usize;
    let mut done = false;
    while at + 12 <= bytes.len() {
        let len = u32::from_be_bytes(bytes[at..at + 4].try_into().ok()?) as usize;
        let end = at.checked_add(12)?.checked_add(len)?;
        if end > bytes.len() {
            return None;
        }
        let kind = &bytes[at + 4..at + 8];
        let data = &bytes[at + 8..at + 8 + len];
        let is_xmp = kind == b"iTXt" && data.starts_with(KEY) && data.get(KEY.len()) == Some(&0);
        if !is_xmp {
            out.extend_from_slice(&bytes[at..end]);
        }
        if kind == b"IHDR" && !done {
            let mut chunk = KEY.to_vec();
            // No compression, no language, no translated keyword.
            chunk.extend_from_slice(&[0, 0, 0, 0, 0]);
            chunk.extend_from_slice(packet.as_bytes());
            out.extend_from_slice(&u32::try_from(chunk.len()).ok()?.to_be_bytes());
            let mut crc = flate2::Crc::new();
            crc.update(b"iTXt");
            crc.update(&chunk);
            out.extend_from_slice(b"iTXt");
            out.extend_from_slice(&chunk);
            out.extend_from_slice(&crc.sum().to_be_bytes());
            done = true;
        }
        at = end;
        if kind == b"IEND" {
            return done.then_some(out);
        }
    }
    None
}

/// A TIFF's first image's strips or tiles, in order, with its size and
/// sample layout tags: what writing its XMP (which the toolkit appends,
/// rewriting the directory) must leave as it was.
fn tiff_image_data(b: &[u8]) -> Option<Vec<u8>> {
    let little = match b.get(..4)? {
        [b'I', b'I', 42, 0] => true,
        [b'M', b'M', 0, 42] => false,
        _ => return None,
    };
    let u16_at = |at: usize| -> Option<u16> {
        let x: [u8; 2] = b.get(at..at + 2)?.try_into().ok()?;
        Some(if little {
            u16::from_le_bytes(x)
        } else {
            u16::from_be_bytes(x)
        })
    };
    let u32_at = |at: usize| -> Option<u32> {
        let x: [u8; 4] = b.get(at..at + 4)?.try_into().ok()?;
        Some(if little {
            u32::from_le_bytes(x)
        } else {
            u32::from_be_bytes(x)
        })
    };
    let ifd = u32_at(4)? as usize;
    let n = u16_at(ifd)? as usize;
    // (tag, values) of the entries that say where and what the pixels are.
    let mut tags: Vec<(u16, Vec<u32>)> = Vec::new();
    for k in 0..n {
        let e = ifd + 2 + 12 * k;
        let (tag, kind, count) = (u16_at(e)?, u16_at(e + 2)?, u32_at(e + 4)? as usize);
        if ![
            256, 257, 258, 259, 262, 273, 277, 279, 284, 322, 323, 324, 325,
        ]
        .contains(&tag)
        {
            continue;
        }
        let size = match kind {
            3 => 2,
            4 => 4,
            _ => continue,
        };
        // At most a million strips: a hostile count is not walked.
        if count > 1 << 20 {
            return None;
        }
        let at = if size * count <= 4 {
            e + 8
        } else {
            u32_at(e + 8)? as usize
        };
        let mut values = Vec::with_capacity(count);
        for i in 0..count {
            values.push(if size == 2 {
                u32::from(u16_at(at + 2 * i)?)
            } else {
                u32_at(at + 4 * i)?
            });
        }
        tags.push((tag, values));
    }
    let get = |t: u16| tags.iter().find(|(tag, _)| *tag == t).map(|(_, v)| v);
    let (offsets, counts) = match (get(273), get(279)) {
        (Some(o), Some(c)) => (o, c),
        _ => (get(324)?, get(325)?),
    };
    let mut out = Vec::new();
    for (tag, values) in &tags {
        if ![273, 279, 324, 325].contains(tag) {
            out.extend(tag.to_le_bytes());
            for v in values {
                out.extend(v.to_le_bytes());
            }
        }
    }
    for (&o, &c) in offsets.iter().zip(counts) {
        out.extend_from_slice(b.get(o as usize..(o as usize).checked_add(c as usize)?)?);
    }
    Some(out)
}

/// The image data of a JPEG (every byte from the first start-of-scan
/// marker on) or a PNG (its `IHDR`, `PLTE`, `tRNS` and `IDAT` chunks, in
/// order): what writing metadata must never change.
pub fn image_data(photo: &Path, bytes: &[u8]) -> Option<Vec<u8>> {
    let ext = photo.extension()?.to_str()?.to_ascii_lowercase();
    if ext == "tif" || ext == "tiff" {
        return tiff_image_data(bytes);
    }
    if ext == "png" {
        let mut out = Vec::new();
        let mut at = 8usize;
        if bytes.get(..8) != Some(b"\x89PNG\r\n\x1a\n".as_slice()) {
            return None;
        }
        while at + 12 <= bytes.len() {
            let len = u32::from_be_bytes(bytes[at..at + 4].try_into().ok()?) as usize;
            let end = at.checked_add(12)?.checked_add(len)?;
            let kind = bytes.get(at + 4..at + 8)?;
            if end > bytes.len() {
                return None;
            }
            if [b"IHDR", b"PLTE", b"tRNS", b"IDAT"]
                .iter()
                .any(|k| k.as_slice() == kind)
            {
                out.extend_from_slice(&bytes[at..end]);
            }
            if kind == b"IEND" {
                return Some(out);
            }
            at = end;
        }
        None
    } else {
        // Segments up to the first SOS; from there on, the scans.
        let mut at = 2usize;
        if bytes.get(..2) != Some([0xff, 0xd8].as_slice()) {
            return None;
        }
        while at + 4 <= bytes.len() {
            if bytes[at] != 0xff {
                return None;
            }
            let marker = bytes[at + 1];
            if marker == 0xda {
                return Some(bytes[at..].to_vec());
            }
            let len = u16::from_be_bytes([bytes[at + 2], bytes[at + 3]]) as usize;
            at = at.checked_add(2 + len)?;
        }
        None
    }
}
