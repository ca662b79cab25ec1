//! The words a photo carries: EXIF (ImageDescription, UserComment, Artist,
//! DateTimeOriginal, the Windows XP title, comment, keywords and subject)
//! and what [`photo::meta`] reads from its XMP, IPTC-IIM and sidecar
//! (title, caption, flat and hierarchical keywords, people). They become
//! the file's caption, so they are searchable; the rating and label become
//! its marks, the keywords and people its words (`keyword:`, `person:`). The camera model is kept apart (it is
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
    /// The rating the file or sidecar gives (0–5; -1 rejected).
    pub rating: Option<i8>,
    /// The colour label it gives (one of `catalog::LABELS`).
    pub label: Option<String>,
    /// Its keywords (paths joined with `|`) and people.
    pub words: catalog::FileWords,
}

/// Reads one file's metadata.
pub fn read(path: &Path) -> Result<Meta, String> {
    let mut file = File::open(path).map_err(|e| e.to_string())?;
    read_from(path, &mut file).map(|(meta, _)| meta)
}

/// Reads the metadata of an open file (at `path`, where its sidecar is
/// looked for); returns it with the file's first bytes (up to 1 MB), so a
/// caller that wants more of the file need not open it again.
pub fn read_from(path: &Path, file: &mut File) -> Result<(Meta, Vec<u8>), String> {
    let mut parts: Vec<String> = Vec::new();
    let mut meta = Meta::default();
    // EXIF's Rating tag (Windows writes it beside the XMP one): used where
    // the XMP gives none.
    let mut exif_rating: Option<i8> = None;
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
            exif_rating = ex
                .get_field(Tag(Context::Tiff, 0x4746), In::PRIMARY)
                .and_then(|f| f.value.get_uint(0))
                .map(|r| r.min(5) as i8);
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
    match photo::meta::read(path) {
        Ok(m) => {
            if let Some(p) = m.problems.first() {
                meta.problem.get_or_insert_with(|| p.clone());
            }
            parts.extend(m.title.clone());
            parts.extend(m.description.clone());
            let paths = m.keyword_paths();
            // Every level is searchable: `italy` finds Places|Italy|Rome.
            for p in &paths {
                parts.push(p.join("|"));
            }
            let people = m.people();
            parts.extend(people.iter().cloned());
            meta.rating = m.rating.or(exif_rating);
            meta.label = m.label.map(|l| l.name().to_owned());
            meta.words = catalog::FileWords {
                keywords: paths.iter().map(|p| p.join("|")).collect(),
                people,
            };
        }
        Err(e) => {
            meta.problem = Some(e.to_string());
            meta.rating = exif_rating;
        }
    }
    parts.retain(|p| !p.trim().is_empty());
    let mut seen = std::collections::HashSet::new();
    parts.retain(|p| seen.insert(p.trim().to_owned()));
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
