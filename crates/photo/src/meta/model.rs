//! The values read, and how each comes out of the XMP data model in the
//! dialects of the programs people come from.

use std::path::PathBuf;

use xmp_toolkit::{XmpMeta, xmp_ns};

/// Namespaces beyond the toolkit's own, registered once.
pub(crate) mod ns {
    /// Lightroom: `lr:hierarchicalSubject`.
    pub const LIGHTROOM: &str = "http://ns.adobe.com/lightroom/1.0/";
    /// digiKam: `digiKam:TagsList`, `digiKam:ColorLabel`.
    pub const DIGIKAM: &str = "http://www.digikam.org/ns/1.0/";
    /// Windows Photo Gallery: `MicrosoftPhoto:Rating`, `LastKeywordXMP`.
    pub const MICROSOFT_PHOTO: &str = "http://ns.microsoft.com/photo/1.0/";
    /// The same as exiftool writes it (no final slash).
    pub const MICROSOFT_PHOTO_EXIFTOOL: &str = "http://ns.microsoft.com/photo/1.0";
    /// Both spellings of Windows' namespace.
    pub const MICROSOFT_PHOTOS: [&str; 2] = [MICROSOFT_PHOTO, MICROSOFT_PHOTO_EXIFTOOL];
    /// Windows' face regions: `MP:RegionInfo`.
    pub const MICROSOFT_REGIONS: &str = "http://ns.microsoft.com/photo/1.2/";
    /// Its region info struct.
    pub const MICROSOFT_REGION_INFO: &str = "http://ns.microsoft.com/photo/1.2/t/RegionInfo#";
    /// Its region struct.
    pub const MICROSOFT_REGION: &str = "http://ns.microsoft.com/photo/1.2/t/Region#";
    /// darktable: `darktable:colorlabels`.
    pub const DARKTABLE: &str = "http://darktable.sf.net/";
    /// The Metadata Working Group's regions (Lightroom, digiKam, Picasa).
    pub const MWG_REGIONS: &str = "http://www.metadataworkinggroup.com/schemas/regions/";
    /// Its area struct.
    pub const AREA: &str = "http://ns.adobe.com/xmp/sType/Area#";

    /// Registers the namespaces (global in the toolkit) once.
    pub fn register() {
        static ONCE: std::sync::Once = std::sync::Once::new();
        ONCE.call_once(|| {
            for (uri, prefix) in [
                (LIGHTROOM, "lr"),
                (DIGIKAM, "digiKam"),
                (MICROSOFT_PHOTO, "MicrosoftPhoto"),
                (MICROSOFT_PHOTO_EXIFTOOL, "MicrosoftPhotoET"),
                (MICROSOFT_REGIONS, "MP"),
                (MICROSOFT_REGION_INFO, "MPRI"),
                (MICROSOFT_REGION, "MPReg"),
                (DARKTABLE, "darktable"),
                (MWG_REGIONS, "mwg-rs"),
                (AREA, "stArea"),
            ] {
                // A failure leaves the URI unregistered: its paths then
                // find nothing, which is what a file without it gives.
                let _ = xmp_toolkit::XmpMeta::register_namespace(uri, prefix);
            }
        });
    }
}

/// A colour label, in the five colours Lightroom, Bridge and darktable
/// share (digiKam's and Capture One's others are kept in the file as
/// written, and read as `None` here).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Label {
    /// Red.
    Red,
    /// Yellow.
    Yellow,
    /// Green.
    Green,
    /// Blue.
    Blue,
    /// Purple (digiKam's magenta, Capture One's pink and purple).
    Purple,
}

impl Label {
    /// All five, in the peers' order.
    pub const ALL: [Label; 5] = [
        Label::Red,
        Label::Yellow,
        Label::Green,
        Label::Blue,
        Label::Purple,
    ];

    /// Its name in lower case, as viewer2's catalogue keeps it.
    pub fn name(self) -> &'static str {
        match self {
            Label::Red => "red",
            Label::Yellow => "yellow",
            Label::Green => "green",
            Label::Blue => "blue",
            Label::Purple => "purple",
        }
    }

    /// From its lower-case name.
    pub fn from_name(name: &str) -> Option<Label> {
        Label::ALL.into_iter().find(|l| l.name() == name)
    }

    /// As `xmp:Label` holds it in Lightroom's and Bridge's English.
    pub fn as_xmp(self) -> &'static str {
        match self {
            Label::Red => "Red",
            Label::Yellow => "Yellow",
            Label::Green => "Green",
            Label::Blue => "Blue",
            Label::Purple => "Purple",
        }
    }

    /// digiKam's number for it (`digiKam:ColorLabel`).
    pub fn digikam(self) -> u8 {
        match self {
            Label::Red => 1,
            Label::Yellow => 3,
            Label::Green => 4,
            Label::Blue => 5,
            Label::Purple => 6,
        }
    }

    /// darktable's number for it (`darktable:colorlabels`).
    pub fn darktable(self) -> u8 {
        match self {
            Label::Red => 0,
            Label::Yellow => 1,
            Label::Green => 2,
            Label::Blue => 3,
            Label::Purple => 4,
        }
    }
}

/// `xmp:Label` as the common programs write it: Lightroom and Bridge in
/// the language of their interface (English, German, French, Spanish,
/// Italian), Capture One's names, digiKam's. Case and spaces do not
/// matter; anything else (Lightroom's custom label sets, "Orange") is
/// `None`, and stays in the file as written.
pub fn label_from_written(text: &str) -> Option<Label> {
    let t = text.trim().to_lowercase();
    Some(match t.as_str() {
        "red" | "rot" | "rouge" | "rojo" | "rosso" => Label::Red,
        "yellow" | "gelb" | "jaune" | "amarillo" | "giallo" => Label::Yellow,
        "green" | "grün" | "grun" | "vert" | "verde" => Label::Green,
        "blue" | "blau" | "bleu" | "azul" | "blu" => Label::Blue,
        "purple" | "violet" | "lila" | "magenta" | "pink" | "púrpura" | "viola" => Label::Purple,
        _ => return None,
    })
}

/// A named region of the photo (a face, as Lightroom, digiKam and
/// Picasa tag people).
#[derive(Clone, Debug, PartialEq)]
pub struct Region {
    /// The person's (or thing's) name.
    pub name: String,
    /// `Face`, `Pet`, … as written (empty when not given).
    pub kind: String,
}

/// Where a value was read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Source {
    /// The photo file itself (XMP, or IPTC-IIM and EXIF reconciled).
    File,
    /// Its XMP sidecar.
    Sidecar,
}

/// A photo's metadata, as the programs that wrote it meant it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Metadata {
    /// Stars, 0–5, or -1 for rejected (`xmp:Rating`, else
    /// `MicrosoftPhoto:Rating` by its percentages).
    pub rating: Option<i8>,
    /// The colour label (`xmp:Label` in the common vocabularies, else
    /// digiKam's or darktable's number).
    pub label: Option<Label>,
    /// `xmp:Label` exactly as written, also when it is not one of
    /// [`Label`]'s colours.
    pub label_written: Option<String>,
    /// `dc:title` (IPTC Object Name).
    pub title: Option<String>,
    /// `dc:description` (IPTC Caption-Abstract, EXIF ImageDescription).
    pub description: Option<String>,
    /// Flat keywords (`dc:subject`, IPTC Keywords), as written.
    pub keywords: Vec<String>,
    /// Hierarchical keywords, each a path of names from the top
    /// (`lr:hierarchicalSubject` split at `|`, `digiKam:TagsList` and
    /// `MicrosoftPhoto:LastKeywordXMP` at `/`).
    pub hierarchy: Vec<Vec<String>>,
    /// Named regions (MWG, Windows Photo Gallery) and
    /// `Iptc4xmpExt:PersonInImage`.
    pub regions: Vec<Region>,
    /// `dc:creator`.
    pub creators: Vec<String>,
    /// `dc:rights`.
    pub copyright: Option<String>,
    /// Latitude and longitude in degrees (`exif:GPSLatitude`, …).
    pub gps: Option<(f64, f64)>,
    /// When it was taken, as XMP writes it (`2019-07-14T10:00:00+02:00`):
    /// `exif:DateTimeOriginal`, else `photoshop:DateCreated`, else
    /// `xmp:CreateDate`.
    pub taken: Option<String>,
    /// The sidecar read, if any.
    pub sidecar: Option<PathBuf>,
    /// What could not be read (the rest still is).
    pub problems: Vec<String>,
}

impl Metadata {
    /// The people named in the photo: region names, each once.
    pub fn people(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for r in &self.regions {
            if !out.iter().any(|o| o.eq_ignore_ascii_case(&r.name)) {
                out.push(r.name.clone());
            }
        }
        out
    }

    /// Every keyword as a path, flat ones as paths of one name, each
    /// once: a flat keyword that is a level of a hierarchical one
    /// (Lightroom writes both) is not repeated.
    pub fn keyword_paths(&self) -> Vec<Vec<String>> {
        let mut out: Vec<Vec<String>> = Vec::new();
        for p in &self.hierarchy {
            if !out.contains(p) {
                out.push(p.clone());
            }
        }
        for k in &self.keywords {
            let covered = out.iter().any(|p| p.iter().any(|n| n == k));
            if !covered {
                out.push(vec![k.clone()]);
            }
        }
        out
    }

    /// Puts what `xmp` holds over what is here: each value it has
    /// replaces this one (the sidecar over the file); lists are merged,
    /// each item once.
    pub(crate) fn overlay_xmp(&mut self, xmp: &XmpMeta, source: Source) {
        ns::register();
        if source == Source::Sidecar {
            // The sidecar is the photo's XMP (as digiKam and darktable
            // read it): what people edit comes from it alone, so a value
            // taken off there is off; viewer2's new sidecars start as a
            // copy of the file's, so nothing the file held is lost. The
            // file still gives what the sidecar lacks of the rest (place,
            // time, creator, rights).
            self.rating = None;
            self.label = None;
            self.label_written = None;
            self.title = None;
            self.description = None;
            self.keywords.clear();
            self.hierarchy.clear();
            self.regions.clear();
        }
        if let Some(r) = rating(xmp) {
            self.rating = Some(r);
        }
        if let Some(l) = xmp.property(xmp_ns::XMP, "Label") {
            let written = l.value.trim().to_owned();
            if !written.is_empty() {
                self.label = label_from_written(&written);
                self.label_written = Some(written);
            }
        } else if let Some(l) = other_label(xmp) {
            self.label = Some(l);
        }
        if let Some(t) = alt_text(xmp, xmp_ns::DC, "title") {
            self.title = Some(t);
        }
        if let Some(d) = alt_text(xmp, xmp_ns::DC, "description") {
            self.description = Some(d);
        }
        merge(&mut self.keywords, items(xmp, xmp_ns::DC, "subject"));
        let mut paths: Vec<Vec<String>> = Vec::new();
        for (namespace, name, sep) in [
            (ns::LIGHTROOM, "hierarchicalSubject", '|'),
            (ns::DIGIKAM, "TagsList", '/'),
            (ns::MICROSOFT_PHOTO, "LastKeywordXMP", '/'),
            (ns::MICROSOFT_PHOTO_EXIFTOOL, "LastKeywordXMP", '/'),
        ] {
            for item in items(xmp, namespace, name) {
                let path: Vec<String> = item
                    .split(sep)
                    .map(|s| s.trim().to_owned())
                    .filter(|s| !s.is_empty())
                    .collect();
                if !path.is_empty() && !paths.contains(&path) {
                    paths.push(path);
                }
            }
        }
        merge(&mut self.hierarchy, paths);
        merge(&mut self.regions, regions(xmp));
        merge(&mut self.creators, items(xmp, xmp_ns::DC, "creator"));
        if let Some(c) = alt_text(xmp, xmp_ns::DC, "rights") {
            self.copyright = Some(c);
        }
        if let Some(g) = gps(xmp) {
            self.gps = Some(g);
        }
        for (namespace, name) in [
            (xmp_ns::EXIF, "DateTimeOriginal"),
            (xmp_ns::PHOTOSHOP, "DateCreated"),
            (xmp_ns::XMP, "CreateDate"),
        ] {
            if let Some(v) = xmp.property(namespace, name)
                && !v.value.trim().is_empty()
            {
                self.taken = Some(v.value.trim().to_owned());
                break;
            }
        }
    }
}

/// Adds the items of `more` that `list` does not hold yet.
fn merge<T: PartialEq>(list: &mut Vec<T>, more: Vec<T>) {
    for m in more {
        if !list.contains(&m) {
            list.push(m);
        }
    }
}

/// An array's items (or a simple property's value, which some writers
/// put where an array belongs), trimmed, empty ones left out.
pub(crate) fn items(xmp: &XmpMeta, namespace: &str, name: &str) -> Vec<String> {
    if !xmp.contains_property(namespace, name) {
        return Vec::new();
    }
    let mut out: Vec<String> = xmp
        .property_array(namespace, name)
        .map(|v| v.value.trim().to_owned())
        .filter(|v| !v.is_empty())
        .collect();
    if out.is_empty()
        && let Some(v) = xmp.property(namespace, name)
        && !v.is_array()
        && !v.value.trim().is_empty()
    {
        out.push(v.value.trim().to_owned());
    }
    out
}

/// A language alternative's default text (`x-default`, else the first).
fn alt_text(xmp: &XmpMeta, namespace: &str, name: &str) -> Option<String> {
    let text = xmp
        .localized_text(namespace, name, None, "x-default")
        .map(|(v, _)| v.value)
        .or_else(|| xmp.property(namespace, name).map(|v| v.value))
        .or_else(|| items(xmp, namespace, name).into_iter().next())?;
    let text = text.trim().to_owned();
    (!text.is_empty()).then_some(text)
}

/// `xmp:Rating` (a real in the spec: "4.0" is read as 4), else
/// `MicrosoftPhoto:Rating` (1, 25, 50, 75, 99 for one to five stars).
fn rating(xmp: &XmpMeta) -> Option<i8> {
    if let Some(v) = xmp.property(xmp_ns::XMP, "Rating")
        && let Ok(r) = v.value.trim().parse::<f64>()
        && r.is_finite()
    {
        return Some(if r < 0.0 {
            -1
        } else {
            r.round().min(5.0) as i8
        });
    }
    let v = ns::MICROSOFT_PHOTOS
        .iter()
        .find_map(|n| xmp.property(n, "Rating"))?;
    let p = v.value.trim().parse::<f64>().ok()?;
    Some(match p {
        p if !p.is_finite() || p <= 0.0 => 0,
        p if p < 13.0 => 1,
        p if p < 38.0 => 2,
        p if p < 63.0 => 3,
        p if p < 88.0 => 4,
        _ => 5,
    })
}

/// digiKam's `ColorLabel` number, else darktable's first `colorlabels`.
fn other_label(xmp: &XmpMeta) -> Option<Label> {
    if let Some(v) = xmp.property(ns::DIGIKAM, "ColorLabel") {
        return match v.value.trim() {
            "1" => Some(Label::Red),
            "3" => Some(Label::Yellow),
            "4" => Some(Label::Green),
            "5" => Some(Label::Blue),
            "6" => Some(Label::Purple),
            _ => None,
        };
    }
    items(xmp, ns::DARKTABLE, "colorlabels")
        .iter()
        .find_map(|v| match v.as_str() {
            "0" => Some(Label::Red),
            "1" => Some(Label::Yellow),
            "2" => Some(Label::Green),
            "3" => Some(Label::Blue),
            "4" => Some(Label::Purple),
            _ => None,
        })
}

/// The regions' names: MWG's `mwg-rs:Regions/mwg-rs:RegionList`, Windows'
/// `MP:RegionInfo/MPRI:Regions`, and IPTC's `PersonInImage`.
fn regions(xmp: &XmpMeta) -> Vec<Region> {
    let mut out = Vec::new();
    // At most this many regions a photo: a hostile file's millions are
    // not walked.
    const MAX_REGIONS: i32 = 10_000;
    for (schema, outer, list_ns, list, item_ns, name, kind) in [
        (
            ns::MWG_REGIONS,
            "Regions",
            ns::MWG_REGIONS,
            "RegionList",
            ns::MWG_REGIONS,
            "Name",
            Some("Type"),
        ),
        (
            ns::MICROSOFT_REGIONS,
            "RegionInfo",
            ns::MICROSOFT_REGION_INFO,
            "Regions",
            ns::MICROSOFT_REGION,
            "PersonDisplayName",
            None,
        ),
    ] {
        let Ok(list_path) = XmpMeta::compose_struct_field_path(schema, outer, list_ns, list) else {
            continue;
        };
        if !xmp.contains_property(schema, &list_path) {
            continue;
        }
        for i in 1..=MAX_REGIONS {
            let Ok(item) = XmpMeta::compose_array_item_path(schema, &list_path, i) else {
                break;
            };
            if !xmp.contains_property(schema, &item) {
                break;
            }
            let field = |f: &str| {
                XmpMeta::compose_struct_field_path(schema, &item, item_ns, f)
                    .ok()
                    .and_then(|p| xmp.property(schema, &p))
                    .map(|v| v.value.trim().to_owned())
                    .filter(|v| !v.is_empty())
            };
            if let Some(n) = field(name) {
                out.push(Region {
                    name: n,
                    kind: kind.and_then(field).unwrap_or_default(),
                });
            }
        }
    }
    for n in items(xmp, xmp_ns::IPTC_EXT, "PersonInImage") {
        if !out.iter().any(|r: &Region| r.name == n) {
            out.push(Region {
                name: n,
                kind: String::new(),
            });
        }
    }
    out
}

/// `exif:GPSLatitude` and `exif:GPSLongitude` (`41,53.4N` or
/// `41,53,24N`, as the XMP specification gives them).
fn gps(xmp: &XmpMeta) -> Option<(f64, f64)> {
    let lat = xmp.property(xmp_ns::EXIF, "GPSLatitude")?;
    let lon = xmp.property(xmp_ns::EXIF, "GPSLongitude")?;
    let lat = coordinate(lat.value.trim(), 'N', 'S', 90.0)?;
    let lon = coordinate(lon.value.trim(), 'E', 'W', 180.0)?;
    Some((lat, lon))
}

/// One XMP GPS coordinate in degrees, or `None` when it is not one.
pub(crate) fn coordinate(text: &str, plus: char, minus: char, most: f64) -> Option<f64> {
    let last = text.chars().last()?;
    let sign = if last.eq_ignore_ascii_case(&plus) {
        1.0
    } else if last.eq_ignore_ascii_case(&minus) {
        -1.0
    } else {
        return None;
    };
    let body = &text[..text.len() - last.len_utf8()];
    let parts: Vec<f64> = body
        .split(',')
        .map(|p| p.trim().parse::<f64>())
        .collect::<Result<_, _>>()
        .ok()?;
    let degrees = match parts.as_slice() {
        [d, m] => d + m / 60.0,
        [d, m, s] => d + m / 60.0 + s / 3600.0,
        _ => return None,
    };
    (degrees.is_finite() && (0.0..=most).contains(&degrees)).then_some(sign * degrees)
}
