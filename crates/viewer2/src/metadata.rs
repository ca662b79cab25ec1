//! The words a photo carries: EXIF (ImageDescription, UserComment, Artist,
//! DateTimeOriginal, the Windows XP title, comment, keywords and subject)
//! and XMP (`dc:subject`, `dc:description`). They become the file's
//! caption, so they are searchable. The camera model is kept apart (it is
//! not something anyone wrote about the photo; `camera:` finds it). A file
//! without metadata has an empty caption; broken metadata is an error for
//! the caller to log, never a reason to skip the file.

use std::fs::File;
use std::io::{BufReader, Read, Seek};
use std::path::Path;

use exif::{Context, In, Tag, Value};

/// How far into a file to look for an XMP packet.
const XMP_WINDOW: u64 = 1 << 20;

/// What the metadata gives one file.
#[derive(Debug, Default)]
pub struct Meta {
    /// The words written about the photo, joined with " | ".
    pub caption: String,
    /// The camera model.
    pub camera: String,
    /// DateTimeOriginal as `YYYY-MM-DD HH:MM:SS`, or empty.
    pub date: String,
    /// What could not be read (the rest is still used).
    pub problem: Option<String>,
}

/// Reads one file's metadata.
pub fn read(path: &Path) -> Result<Meta, String> {
    let mut file = File::open(path).map_err(|e| e.to_string())?;
    read_from(&mut file).map(|(meta, _)| meta)
}

/// Reads the metadata of an open file; returns it with the file's first
/// bytes (up to 1 MB, where XMP is looked for), so a caller that wants
/// more of the file need not open it again.
pub fn read_from(file: &mut File) -> Result<(Meta, Vec<u8>), String> {
    let mut parts: Vec<String> = Vec::new();
    let mut meta = Meta::default();
    let mut reader = BufReader::new(file);
    match exif::Reader::new().read_from_container(&mut reader) {
        Ok(ex) => {
            let text = |tag: Tag| {
                ex.get_field(tag, In::PRIMARY)
                    .and_then(|f| value_text(tag, &f.value))
            };
            for tag in [Tag::ImageDescription, Tag::UserComment, Tag::Artist] {
                parts.extend(text(tag));
            }
            meta.camera = text(Tag::Model).unwrap_or_default();
            // EXIF writes 2019:07:14 10:00:00; dates compare as 2019-07-14.
            meta.date = text(Tag::DateTimeOriginal)
                // Only something shaped like a date: ASCII digits and
                // separators (the filter compares it as text).
                .filter(|d| {
                    d.len() >= 10
                        && d.bytes()
                            .all(|b| b.is_ascii_digit() || b" :-T.+".contains(&b))
                })
                .map(|d| format!("{}{}", d[..10].replace(':', "-"), &d[10..]))
                .unwrap_or_default();
            // Windows' XPTitle, XPComment, XPKeywords, XPSubject: UCS-2 bytes.
            for number in [0x9c9b, 0x9c9c, 0x9c9e, 0x9c9f] {
                parts.extend(text(Tag(Context::Tiff, number)));
            }
        }
        // No EXIF at all is normal (most PNGs).
        Err(exif::Error::NotFound(_)) => {}
        // Broken EXIF: noted; XMP may still be fine.
        Err(e) => meta.problem = Some(format!("EXIF: {e}")),
    }
    reader.rewind().map_err(|e| e.to_string())?;
    let mut head = Vec::new();
    reader
        .take(XMP_WINDOW)
        .read_to_end(&mut head)
        .map_err(|e| e.to_string())?;
    parts.extend(xmp_words(&head));
    parts.retain(|p| !p.trim().is_empty());
    parts.dedup();
    meta.caption = parts.join(" | ");
    Ok((meta, head))
}

/// The setting that records captions made before the camera model was
/// left out of them have been cleaned.
const CAPTION_RULE: (&str, &str) = ("viewer2.caption_rule", "no-camera");

/// Takes the camera model out of the captions earlier versions made from
/// the files (they put it in, so the caption box showed "iPhone 12 Pro" as
/// if the user had written it). Captions the user wrote are left alone.
/// Runs once per catalogue; returns how many captions changed.
pub fn drop_camera_from_captions(
    cat: &mut catalog::Catalog,
) -> Result<usize, catalog::CatalogError> {
    let (key, value) = CAPTION_RULE;
    cat.rewrite_file_captions(key, value, |caption, camera| {
        let camera = camera.trim();
        if camera.is_empty() {
            return None;
        }
        let parts: Vec<&str> = caption
            .split(" | ")
            .filter(|p| p.trim() != camera)
            .collect();
        Some(parts.join(" | "))
    })
}

fn value_text(tag: Tag, value: &Value) -> Option<String> {
    match value {
        Value::Ascii(lines) => {
            let s: Vec<String> = lines
                .iter()
                .map(|l| String::from_utf8_lossy(l).trim().to_owned())
                .collect();
            Some(s.join(" "))
        }
        // UserComment: an 8-byte character-code prefix, then the text.
        Value::Undefined(bytes, _) if tag == Tag::UserComment => {
            let (code, body) = bytes.split_at(bytes.len().min(8));
            let text = if code.starts_with(b"UNICODE") {
                utf16(body, body.starts_with(&[0xfe, 0xff]))
            } else {
                String::from_utf8_lossy(body).into_owned()
            };
            Some(text.trim_matches(char::from(0)).trim().to_owned())
        }
        // The XP tags are UCS-2 little-endian in a BYTE array.
        Value::Byte(bytes) => Some(
            utf16(bytes, false)
                .trim_matches(char::from(0))
                .trim()
                .to_owned(),
        ),
        _ => None,
    }
}

fn utf16(bytes: &[u8], big_endian: bool) -> String {
    let units: Vec<u16> = bytes
        .chunks_exact(2)
        .map(|c| {
            if big_endian {
                u16::from_be_bytes([c[0], c[1]])
            } else {
                u16::from_le_bytes([c[0], c[1]])
            }
        })
        .collect();
    String::from_utf16_lossy(&units)
}

/// The `<rdf:li>` items of `dc:subject` and `dc:description` in an XMP
/// packet found in `bytes` (a plain text scan: XMP is XML in the file).
fn xmp_words(bytes: &[u8]) -> Vec<String> {
    let text = String::from_utf8_lossy(bytes);
    let Some(packet) = xmp_packet(&text) else {
        return Vec::new();
    };
    let mut out = xmp_items(packet, "dc:subject");
    out.extend(xmp_items(packet, "dc:description"));
    out
}

/// The XMP packet in `text`, if there is one.
pub(crate) fn xmp_packet(text: &str) -> Option<&str> {
    let start = text.find("<x:xmpmeta")?;
    let end = text[start..]
        .find("</x:xmpmeta>")
        .map_or(text.len(), |e| start + e);
    Some(&text[start..end])
}

/// The `<rdf:li>` items of every `field` element of an XMP packet.
pub(crate) fn xmp_items(packet: &str, field: &str) -> Vec<String> {
    let mut out = Vec::new();
    let open = format!("<{field}>");
    let close = format!("</{field}>");
    let mut rest = packet;
    while let Some(i) = rest.find(&open) {
        let after = &rest[i + open.len()..];
        let Some(j) = after.find(&close) else { break };
        let block = &after[..j];
        let mut items = block;
        while let Some(k) = items.find("<rdf:li") {
            let Some(gt) = items[k..].find('>') else {
                break;
            };
            let body = &items[k + gt + 1..];
            let Some(e) = body.find("</rdf:li>") else {
                break;
            };
            out.push(unescape(&body[..e]));
            items = &body[e..];
        }
        rest = &after[j..];
    }
    out
}

pub(crate) fn unescape(s: &str) -> String {
    s.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&apos;", "'")
        .replace("&amp;", "&")
}
