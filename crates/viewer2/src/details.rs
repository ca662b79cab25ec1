//! What a photo file holds, for the details panel: title, description,
//! keywords and rating (XMP, and Windows' XP tags), when it was taken (in
//! the local time zone where the file says its offset), camera, lens,
//! focal length, exposure, aperture, ISO, flash, orientation, pixel size
//! and GPS position (EXIF).
//!
//! Read on a thread of its own ([`Reader`]) when a photo gets the focus,
//! so the window never waits on the disk; what cannot be read is said,
//! and the rest is still shown.

use std::collections::HashMap;
use std::io::BufReader;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::mpsc::{Receiver, Sender, channel};

use catalog::FileId;
use exif::{Context, Exif, In, Tag, Value};
use jiff::tz::TimeZone;

use crate::loader::{ReadSeek, Source};

/// A GPS position, in degrees (north and east positive).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Position {
    /// Latitude, −90 to 90.
    pub lat: f64,
    /// Longitude, −180 to 180.
    pub lon: f64,
}

impl Position {
    /// `48.85837° N, 2.29448° E`.
    pub fn text(&self) -> String {
        format!(
            "{:.5}° {}, {:.5}° {}",
            self.lat.abs(),
            if self.lat < 0.0 { 'S' } else { 'N' },
            self.lon.abs(),
            if self.lon < 0.0 { 'W' } else { 'E' }
        )
    }

    /// The place on OpenStreetMap, marked.
    pub fn map_url(&self) -> String {
        format!(
            "https://www.openstreetmap.org/?mlat={lat:.6}&mlon={lon:.6}#map=16/{lat:.6}/{lon:.6}",
            lat = self.lat,
            lon = self.lon
        )
    }
}

/// What one file holds, ready to show.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Details {
    /// (what, value) in the order shown; only what the file has.
    pub rows: Vec<(&'static str, String)>,
    /// Where it was taken.
    pub position: Option<Position>,
    /// The stars the file gives it (XMP or EXIF rating), 0–5.
    pub rating: Option<u8>,
    /// What could not be read.
    pub problem: Option<String>,
}

impl Details {
    /// The value of row `what`, if shown.
    pub fn get(&self, what: &str) -> Option<&str> {
        self.rows
            .iter()
            .find(|(w, _)| *w == what)
            .map(|(_, v)| v.as_str())
    }
}

/// Reads the details of the file `reader` opens, showing times in `zone`.
pub fn read(reader: Box<dyn ReadSeek>, zone: &TimeZone) -> Details {
    let mut d = Details::default();
    let mut reader = BufReader::new(reader);
    let exif = match exif::Reader::new().read_from_container(&mut reader) {
        Ok(ex) => Some(ex),
        Err(exif::Error::NotFound(_)) => None,
        Err(e) => {
            d.problem = Some(format!("EXIF: {e}"));
            None
        }
    };
    let ex = exif.as_ref();
    let ascii = |tag: Tag| ex.and_then(|ex| ascii(ex, tag));
    let xp = |number: u16| ex.and_then(|ex| xp_text(ex, number));

    // XMP, IPTC and the sidecar come after ([`with_metadata`]); these are
    // EXIF's own, which they override.
    push(&mut d, "Title", xp(0x9c9b));
    push(&mut d, "Description", ascii(Tag::ImageDescription));
    let keywords: Vec<String> = xp(0x9c9e)
        .map(|k| {
            k.split(';')
                .map(str::trim)
                .filter(|w| !w.is_empty())
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default();
    push(
        &mut d,
        "Keywords",
        (!keywords.is_empty()).then(|| keywords.join(", ")),
    );
    d.rating = ex
        .and_then(|ex| uint(ex, Tag(Context::Tiff, 0x4746)))
        .map(|r| r.min(5) as u8);
    let rating = d.rating.map(stars);
    push(&mut d, "File rating", rating);

    let taken = ascii(Tag::DateTimeOriginal).and_then(|t| {
        let offset = ascii(Tag::OffsetTimeOriginal);
        taken_text(&t, offset.as_deref(), zone)
    });
    push(&mut d, "Taken", taken);
    let make = ascii(Tag::Make).unwrap_or_default();
    let model = ascii(Tag::Model).unwrap_or_default();
    // "Canon Canon EOS 5D" reads badly: the make once.
    let camera = if model.to_lowercase().starts_with(&make.to_lowercase()) {
        model
    } else {
        format!("{make} {model}").trim().to_owned()
    };
    push(&mut d, "Camera", (!camera.is_empty()).then_some(camera));
    push(&mut d, "Lens", ascii(Tag::LensModel));
    if let Some(ex) = ex {
        let focal = rational(ex, Tag::FocalLength).map(|f| {
            let mut s = format!("{} mm", trim_number(f, 1));
            if let Some(f35) = uint(ex, Tag::FocalLengthIn35mmFilm).filter(|&f| f > 0) {
                s.push_str(&format!(" ({f35} mm in 35 mm film)"));
            }
            s
        });
        push(&mut d, "Focal length", focal);
        push(&mut d, "Exposure", exposure(ex));
        push(
            &mut d,
            "Aperture",
            rational(ex, Tag::FNumber).map(|f| format!("f/{}", trim_number(f, 1))),
        );
        push(
            &mut d,
            "ISO",
            uint(ex, Tag::PhotographicSensitivity).map(|i| i.to_string()),
        );
        push(&mut d, "Flash", uint(ex, Tag::Flash).map(flash_text));
        push(
            &mut d,
            "Orientation",
            uint(ex, Tag::Orientation).and_then(orientation_text),
        );
        let w = uint(ex, Tag::PixelXDimension).or_else(|| uint(ex, Tag::ImageWidth));
        let h = uint(ex, Tag::PixelYDimension).or_else(|| uint(ex, Tag::ImageLength));
        if let (Some(w), Some(h)) = (w, h) {
            push(&mut d, "Pixels", Some(format!("{w} × {h}")));
        }
        d.position = position(ex);
        let position = d.position.map(|p| p.text());
        push(&mut d, "Position", position);
    }
    if let Some((format, (w, h), camera)) = format_and_size(&mut reader) {
        if d.get("Camera").is_none() {
            set_row(&mut d, "Camera", camera);
        }
        // The image's own size: a phone's EXIF gives the sensor's.
        match d.rows.iter_mut().find(|(w, _)| *w == "Pixels") {
            Some(row) => row.1 = format!("{w} × {h}"),
            None => push(&mut d, "Pixels", Some(format!("{w} × {h}"))),
        }
        push(&mut d, "Format", Some(format));
    }
    push(&mut d, "Artist", ascii(Tag::Artist));
    push(&mut d, "Copyright", ascii(Tag::Copyright));
    d
}

/// For formats whose EXIF size is not the image's (HEIC, AVIF, JPEG XL,
/// camera RAW): the format's name, the image's size as shown, from its
/// header, and the camera where the format names it (LibRaw's, for RAWs
/// whose EXIF the panel cannot read).
fn format_and_size<R: std::io::Read + std::io::Seek>(
    reader: &mut R,
) -> Option<(String, (u32, u32), String)> {
    use std::io::{Read, SeekFrom};
    reader.seek(SeekFrom::Start(0)).ok()?;
    let mut head = Vec::new();
    // A RAW is told by its first directory, within the first kilobytes.
    reader
        .by_ref()
        .take(64 * 1024)
        .read_to_end(&mut head)
        .ok()?;
    reader.seek(SeekFrom::Start(0)).ok()?;
    if photo::heif_kind(&head).is_some() {
        let info = photo::heif_info(reader).ok()?;
        let mut name = info.kind.name().to_owned();
        if info.bit_depth > 8 {
            name.push_str(&format!(", {}-bit", info.bit_depth));
        }
        if info.images > 1 {
            name.push_str(&format!(", {} images (the primary shown)", info.images));
        }
        return Some((name, (info.width, info.height), String::new()));
    }
    if photo::is_jxl(&head) {
        return photo::jxl_size(reader)
            .ok()
            .map(|size| ("JPEG XL".to_owned(), size, String::new()));
    }
    if let Some(kind) = photo::raw_kind(&head) {
        let info = photo::raw_info(reader).ok()?;
        return Some((kind.to_owned(), (info.width, info.height), info.camera));
    }
    None
}

/// The rows in the order shown, for those set after the EXIF reading.
const ORDER: [&str; 11] = [
    "Title",
    "Description",
    "Keywords",
    "People",
    "File rating",
    "Sidecar rating",
    "File label",
    "Sidecar label",
    "Taken",
    "Camera",
    "Sidecar",
];

/// Puts what [`photo::meta::read`] found (the file's XMP and IPTC, and
/// its sidecar's) over the EXIF reading: the title, caption, keywords
/// (hierarchical ones as `Places › Italy › Rome`), people, rating, label,
/// creator and copyright, and which sidecar they came from.
pub fn with_metadata(d: &mut Details, meta: Result<photo::meta::Metadata, photo::meta::MetaError>) {
    let m = match meta {
        Ok(m) => m,
        Err(e) => {
            d.problem.get_or_insert_with(|| e.to_string());
            return;
        }
    };
    if let Some(t) = &m.title {
        set_row(d, "Title", t.clone());
    }
    if let Some(t) = &m.description {
        set_row(d, "Description", t.clone());
    }
    let mut keywords: Vec<String> = m.keyword_paths().iter().map(|p| p.join(" › ")).collect();
    if let Some(old) = d.get("Keywords") {
        for k in old.split(", ") {
            if !keywords.iter().any(|w| w == k) {
                keywords.push(k.to_owned());
            }
        }
    }
    if !keywords.is_empty() {
        set_row(d, "Keywords", keywords.join(", "));
    }
    let people = m.people();
    if !people.is_empty() {
        set_row(d, "People", people.join(", "));
    }
    // Named by where they were read, beside the window's own "Your
    // rating" and "Your label".
    let (rating_row, label_row) = if m.sidecar.is_some() {
        ("Sidecar rating", "Sidecar label")
    } else {
        ("File rating", "File label")
    };
    if let Some(r) = m.rating {
        d.rows.retain(|(w, _)| *w != "File rating");
        if r < 0 {
            set_row(d, rating_row, "rejected".to_owned());
        } else {
            let r = r.clamp(0, 5) as u8;
            d.rating = Some(r);
            set_row(d, rating_row, stars(r));
        }
    }
    if let Some(l) = m
        .label_written
        .clone()
        .or(m.label.map(|l| l.name().to_owned()))
    {
        set_row(d, label_row, l);
    }
    if !m.creators.is_empty() && d.get("Artist").is_none() {
        push(d, "Artist", Some(m.creators.join(", ")));
    }
    if d.get("Copyright").is_none() {
        push(d, "Copyright", m.copyright.clone());
    }
    if d.position.is_none()
        && let Some((lat, lon)) = m.gps
    {
        let p = Position { lat, lon };
        d.position = Some(p);
        push(d, "Position", Some(p.text()));
    }
    if let Some(side) = &m.sidecar {
        let name = side
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        set_row(d, "Sidecar", name);
    }
}

/// Sets a row's value, adding the row in [`ORDER`]'s place when missing.
fn set_row(d: &mut Details, what: &'static str, value: String) {
    let value = value.trim().to_owned();
    if value.is_empty() {
        return;
    }
    if let Some(row) = d.rows.iter_mut().find(|(w, _)| *w == what) {
        row.1 = value;
        return;
    }
    let rank = |w: &str| ORDER.iter().position(|o| *o == w);
    let mine = rank(what).unwrap_or(ORDER.len());
    let at = d
        .rows
        .iter()
        .position(|(w, _)| rank(w).is_none_or(|r| r > mine))
        .unwrap_or(d.rows.len());
    d.rows.insert(at, (what, value));
}

fn push(d: &mut Details, what: &'static str, value: Option<String>) {
    if let Some(v) = value.map(|v| v.trim().to_owned())
        && !v.is_empty()
    {
        d.rows.push((what, v));
    }
}

fn field(ex: &Exif, tag: Tag) -> Option<&Value> {
    ex.get_field(tag, In::PRIMARY).map(|f| &f.value)
}

fn ascii(ex: &Exif, tag: Tag) -> Option<String> {
    match field(ex, tag)? {
        Value::Ascii(lines) => {
            let s: Vec<String> = lines
                .iter()
                .map(|l| {
                    String::from_utf8_lossy(l)
                        .trim_matches(char::from(0))
                        .trim()
                        .to_owned()
                })
                .collect();
            Some(s.join(" "))
        }
        _ => None,
    }
}

/// Windows' XP tags: UCS-2 little-endian in a BYTE array.
fn xp_text(ex: &Exif, number: u16) -> Option<String> {
    match field(ex, Tag(Context::Tiff, number))? {
        Value::Byte(bytes) => {
            let units: Vec<u16> = bytes
                .chunks_exact(2)
                .map(|c| u16::from_le_bytes([c[0], c[1]]))
                .collect();
            Some(
                String::from_utf16_lossy(&units)
                    .trim_matches(char::from(0))
                    .trim()
                    .to_owned(),
            )
        }
        _ => None,
    }
}

fn uint(ex: &Exif, tag: Tag) -> Option<u32> {
    field(ex, tag)?.get_uint(0)
}

/// The first rational of a field, as a finite number.
fn rational(ex: &Exif, tag: Tag) -> Option<f64> {
    match field(ex, tag)? {
        Value::Rational(v) => v
            .first()
            .filter(|r| r.denom != 0)
            .map(|r| r.to_f64())
            .filter(|f| f.is_finite()),
        Value::SRational(v) => v
            .first()
            .filter(|r| r.denom != 0)
            .map(|r| r.to_f64())
            .filter(|f| f.is_finite()),
        _ => None,
    }
}

/// `2.8`, `50`, `4.5`: at most `decimals`, no trailing zeros.
fn trim_number(x: f64, decimals: usize) -> String {
    let s = format!("{x:.decimals$}");
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_owned()
    } else {
        s
    }
}

/// `1/250 s`, `0.8 s`, `30 s`.
fn exposure(ex: &Exif) -> Option<String> {
    let t = rational(ex, Tag::ExposureTime).filter(|&t| t > 0.0)?;
    Some(if t < 0.5 {
        format!("1/{} s", (1.0 / t).round())
    } else {
        format!("{} s", trim_number(t, 1))
    })
}

/// EXIF's Flash bits: fired (bit 0), mode (bits 3–4), red-eye (bit 6).
fn flash_text(v: u32) -> String {
    let mut s = if v & 1 == 1 { "Fired" } else { "Did not fire" }.to_owned();
    match (v >> 3) & 3 {
        1 if v & 1 == 1 => s.push_str(", forced"),
        2 => s.push_str(", off"),
        3 => s.push_str(", auto"),
        _ => {}
    }
    if v & 0x40 != 0 {
        s.push_str(", red-eye reduction");
    }
    if v & 0x20 != 0 {
        s = "No flash".to_owned();
    }
    s
}

/// The EXIF orientation in words (as ExifTool names them).
fn orientation_text(v: u32) -> Option<String> {
    Some(
        match v {
            1 => "Normal",
            2 => "Mirrored horizontally",
            3 => "Rotated 180°",
            4 => "Mirrored vertically",
            5 => "Mirrored horizontally, rotated 270° clockwise",
            6 => "Rotated 90° clockwise",
            7 => "Mirrored horizontally, rotated 90° clockwise",
            8 => "Rotated 270° clockwise",
            _ => return None,
        }
        .to_owned(),
    )
}

/// `4 of 5` (the window's fonts have no star glyph).
fn stars(r: u8) -> String {
    format!("{} of 5", r.min(5))
}

/// DateTimeOriginal (`2019:07:14 10:00:00`) in the local time zone when
/// the file gives its offset; as the camera's clock said otherwise.
fn taken_text(taken: &str, offset: Option<&str>, zone: &TimeZone) -> Option<String> {
    let civil = jiff::civil::DateTime::strptime("%Y:%m:%d %H:%M:%S", taken.trim()).ok()?;
    let shown = civil.strftime("%Y-%m-%d %H:%M:%S").to_string();
    let Some(offset) = offset.and_then(|o| {
        let o = o.trim();
        jiff::fmt::strtime::parse("%:z", o)
            .ok()
            .and_then(|b| b.offset())
    }) else {
        return Some(format!("{shown} (the camera's clock)"));
    };
    let instant = civil.to_zoned_datetime(TimeZone::fixed(offset)).ok()?;
    let local = instant.with_time_zone(zone.clone());
    let here = local.strftime("%Y-%m-%d %H:%M:%S %Z").to_string();
    if local.offset() == offset {
        Some(here)
    } else {
        Some(format!("{here} ({shown} where taken, UTC{offset})"))
    }
}

/// GPSLatitude/Longitude and their N/S, E/W references, checked.
fn position(ex: &Exif) -> Option<Position> {
    let degrees = |tag: Tag| -> Option<f64> {
        match field(ex, tag)? {
            Value::Rational(v) if v.len() == 3 && v.iter().all(|r| r.denom != 0) => {
                Some(v[0].to_f64() + v[1].to_f64() / 60.0 + v[2].to_f64() / 3600.0)
            }
            _ => None,
        }
    };
    let sign = |tag: Tag, negative: &str| {
        if ascii(ex, tag).is_some_and(|r| r.trim().eq_ignore_ascii_case(negative)) {
            -1.0
        } else {
            1.0
        }
    };
    let lat = degrees(Tag::GPSLatitude)? * sign(Tag::GPSLatitudeRef, "S");
    let lon = degrees(Tag::GPSLongitude)? * sign(Tag::GPSLongitudeRef, "W");
    (lat.is_finite() && lon.is_finite() && lat.abs() <= 90.0 && lon.abs() <= 180.0)
        .then_some(Position { lat, lon })
}

/// `YYYY-MM-DD HH:MM` and the zone's name, in `zone`, for seconds since the
/// epoch.
pub fn local_time(secs: i64, zone: &TimeZone) -> String {
    match jiff::Timestamp::from_second(secs) {
        Ok(t) => t
            .to_zoned_datetime(zone.clone())
            .strftime("%Y-%m-%d %H:%M %Z")
            .to_string(),
        Err(_) => format!("{secs} s after 1970"),
    }
}

/// Reads details on a thread of its own; the newest request wins.
pub struct Reader {
    ask: Sender<(FileId, PathBuf)>,
    answers: Receiver<(FileId, Arc<Details>)>,
    /// What was read, by photo (a few hundred at most).
    known: HashMap<FileId, Arc<Details>>,
    asked: Option<FileId>,
}

impl Reader {
    /// Starts the thread; `repaint` is called when an answer is ready.
    pub fn start(
        source: Arc<dyn Source>,
        zone: TimeZone,
        repaint: Arc<dyn Fn() + Send + Sync>,
    ) -> std::io::Result<Reader> {
        let (ask, inbox) = channel::<(FileId, PathBuf)>();
        let (out, answers) = channel();
        std::thread::Builder::new()
            .name("details".into())
            .spawn(move || {
                while let Ok(mut job) = inbox.recv() {
                    // Only the latest focus matters.
                    while let Ok(newer) = inbox.try_recv() {
                        job = newer;
                    }
                    let (id, path) = job;
                    let details = match source.open(&path) {
                        Ok(r) => {
                            let mut d = read(r, &zone);
                            with_metadata(&mut d, photo::meta::read(&path));
                            d
                        }
                        Err(e) => Details {
                            problem: Some(e.to_string()),
                            ..Details::default()
                        },
                    };
                    if out.send((id, Arc::new(details))).is_err() {
                        return;
                    }
                    repaint();
                }
            })?;
        Ok(Reader {
            ask,
            answers,
            known: HashMap::new(),
            asked: None,
        })
    }

    /// The details of photo `id`, asking for them if they are not in.
    pub fn get(&mut self, id: FileId, path: &std::path::Path) -> Option<Arc<Details>> {
        self.receive();
        if let Some(d) = self.known.get(&id) {
            return Some(Arc::clone(d));
        }
        if self.asked != Some(id) && self.ask.send((id, path.to_owned())).is_ok() {
            self.asked = Some(id);
        }
        None
    }

    /// Picks up what the thread read.
    pub fn receive(&mut self) {
        while let Ok((got, d)) = self.answers.try_recv() {
            if self.known.len() >= 512 {
                self.known.clear();
            }
            self.known.insert(got, d);
            if self.asked == Some(got) {
                self.asked = None;
            }
        }
    }

    /// Whether an answer is owed.
    pub fn is_waiting(&self) -> bool {
        self.asked.is_some()
    }

    /// Forgets photo `id`'s details (its file changed).
    pub fn forget(&mut self, id: FileId) {
        self.known.remove(&id);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flash_and_exposure_read_as_words() {
        assert_eq!(flash_text(0x0), "Did not fire");
        assert_eq!(flash_text(0x19), "Fired, auto");
        assert_eq!(flash_text(0x10), "Did not fire, off");
        assert_eq!(flash_text(0x59), "Fired, auto, red-eye reduction");
        assert_eq!(flash_text(0x20), "No flash");
        assert_eq!(trim_number(2.8, 1), "2.8");
        assert_eq!(trim_number(50.0, 1), "50");
    }

    #[test]
    fn times_with_an_offset_are_shown_in_the_local_zone() {
        let zone = TimeZone::fixed(jiff::tz::offset(-5));
        assert_eq!(
            taken_text("2019:07:14 10:00:00", Some("+02:00"), &zone).as_deref(),
            Some("2019-07-14 03:00:00 -05 (2019-07-14 10:00:00 where taken, UTC+02)")
        );
        assert_eq!(
            taken_text("2019:07:14 10:00:00", None, &zone).as_deref(),
            Some("2019-07-14 10:00:00 (the camera's clock)")
        );
        assert_eq!(taken_text("not a date", None, &zone), None);
        assert_eq!(local_time(0, &TimeZone::UTC), "1970-01-01 00:00 UTC");
    }
}
