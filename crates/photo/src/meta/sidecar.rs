//! XMP sidecars: which file is a photo's, and writing changes into it
//! the safe way (a new file beside it, synced, renamed over), merged
//! into what it holds.

use std::io::Write;
use std::path::{Path, PathBuf};

use xmp_toolkit::{ToStringOptions, XmpMeta, XmpValue, xmp_ns};

use super::model::{Label, items, ns};
use super::{MetaError, parse_xmp, read_embedded};

/// The two sidecar names of a photo, in the order looked for:
/// `name.ext.xmp` (darktable, digiKam, exiftool's `%d%f.%e.xmp`) and
/// `name.xmp` (Lightroom, Capture One, Bridge).
pub fn sidecar_candidates(photo: &Path) -> [PathBuf; 2] {
    let mut full = photo.as_os_str().to_owned();
    full.push(".xmp");
    [PathBuf::from(full), photo.with_extension("xmp")]
}

/// The photo's sidecar, if it has one (either name, `.xmp` or `.XMP`).
pub fn sidecar_for(photo: &Path) -> Option<PathBuf> {
    for candidate in sidecar_candidates(photo) {
        if candidate.is_file() {
            return Some(candidate);
        }
        let upper = candidate.with_extension("XMP");
        if upper.is_file() {
            return Some(upper);
        }
    }
    None
}

/// What to change; `None` leaves a property as it is.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Changes {
    /// Stars 0–5, -1 for rejected (0 takes the rating off).
    pub rating: Option<i8>,
    /// A colour label, or `Some(None)` to take it off.
    pub label: Option<Option<Label>>,
    /// The title (empty takes it off).
    pub title: Option<String>,
    /// The caption (empty takes it off).
    pub description: Option<String>,
    /// Every keyword, each a path from the top (a flat one is a path of
    /// one name): replaces the keywords held.
    pub keywords: Option<Vec<Vec<String>>>,
}

impl Changes {
    /// Whether it changes nothing.
    pub fn is_empty(&self) -> bool {
        *self == Changes::default()
    }
}

/// A sidecar written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SidecarWrite {
    /// Where.
    pub path: PathBuf,
    /// Whether it was made (there was none).
    pub created: bool,
}

/// How often a merge is tried again when another program changes the
/// sidecar while it is being written.
const TRIES: u32 = 3;

/// Merges `changes` into the photo's sidecar: the existing one
/// ([`sidecar_for`]), else a new `name.ext.xmp` that starts from the
/// photo's own XMP (as digiKam's and exiftool's do, so a program that
/// reads the sidecar instead of the file loses nothing). Every property
/// not changed is kept (the toolkit writes the data model again, so
/// formatting may change, never a value). The sidecar is written to a
/// new file in its folder, synced and renamed over the old one; if the
/// old one changed meanwhile, the merge starts again from it.
///
/// # Errors
/// The folder cannot be written (read-only, no rights), the existing
/// sidecar cannot be read or parsed (it is left as it is), a value is out
/// of range, or the sidecar kept changing.
pub fn write_sidecar(photo: &Path, changes: &Changes) -> Result<SidecarWrite, MetaError> {
    if let Some(r) = changes.rating.filter(|r| !(-1..=5).contains(r)) {
        return Err(MetaError::BadValue(format!(
            "a rating of {r} (0 to 5 stars, or -1 for rejected)"
        )));
    }
    ns::register();
    let existing = sidecar_for(photo);
    let created = existing.is_none();
    let path = existing.unwrap_or_else(|| sidecar_candidates(photo)[0].clone());
    let io = |error: std::io::Error| MetaError::Io {
        path: path.clone(),
        error,
    };
    for _ in 0..TRIES {
        let before = stamp(&path).map_err(io)?;
        let mut xmp = match before {
            Some(_) => {
                let bytes = crate::read_regular(&path, super::MAX_SIDECAR_BYTES).map_err(|e| {
                    MetaError::NotASidecar {
                        path: path.clone(),
                        detail: e.to_string(),
                    }
                })?;
                parse_xmp(&path, &bytes)?
            }
            // A photo whose own XMP cannot be read still gets a sidecar.
            None => match read_embedded(photo) {
                Ok(Some(x)) => x,
                _ => new_meta(&path)?,
            },
        };
        apply(&mut xmp, changes).map_err(|e| MetaError::BadXmp {
            path: path.clone(),
            detail: e.to_string(),
        })?;
        let text = serialize(&xmp).map_err(|e| MetaError::BadXmp {
            path: path.clone(),
            detail: e.to_string(),
        })?;
        let tmp = temp_beside(&path);
        let written = write_synced(&tmp, text.as_bytes(), &path);
        if let Err(e) = written {
            let _ = std::fs::remove_file(&tmp);
            return Err(io(e));
        }
        if stamp(&path).map_err(io)? != before {
            // Another program wrote it meanwhile: merge into its version.
            let _ = std::fs::remove_file(&tmp);
            continue;
        }
        if let Err(e) = std::fs::rename(&tmp, &path) {
            let _ = std::fs::remove_file(&tmp);
            return Err(io(e));
        }
        sync_folder(&path);
        return Ok(SidecarWrite { path, created });
    }
    Err(MetaError::Busy { path, tries: TRIES })
}

fn new_meta(path: &Path) -> Result<XmpMeta, MetaError> {
    XmpMeta::new().map_err(|e| MetaError::BadXmp {
        path: path.to_owned(),
        detail: e.to_string(),
    })
}

/// Applies the changes to a data model, in the conventions other programs
/// read: `xmp:Rating` and `xmp:Label`; keywords flat (`dc:subject`, every
/// level's name, as Lightroom exports them) and hierarchical
/// (`lr:hierarchicalSubject` with `|`, `digiKam:TagsList` with `/`); the
/// caption as `dc:description` and the title as `dc:title` (`x-default`).
/// The other dialects' copies a file already holds (`MicrosoftPhoto:Rating`,
/// `digiKam:ColorLabel`, `darktable:colorlabels`,
/// `MicrosoftPhoto:LastKeywordXMP`) are kept in step.
///
/// # Errors
/// The toolkit's, for a data model it cannot change.
pub fn apply(xmp: &mut XmpMeta, changes: &Changes) -> Result<(), xmp_toolkit::XmpError> {
    ns::register();
    if let Some(r) = changes.rating {
        if r == 0 {
            xmp.delete_property(xmp_ns::XMP, "Rating")?;
        } else {
            xmp.set_property(xmp_ns::XMP, "Rating", &XmpValue::new(r.to_string()))?;
        }
        for windows in ns::MICROSOFT_PHOTOS {
            if !xmp.contains_property(windows, "Rating") {
                continue;
            }
            let percent = match r {
                1 => "1",
                2 => "25",
                3 => "50",
                4 => "75",
                5 => "99",
                _ => "0",
            };
            xmp.set_property(windows, "Rating", &XmpValue::new(percent.to_owned()))?;
        }
    }
    if let Some(label) = changes.label {
        match label {
            Some(l) => {
                xmp.set_property(xmp_ns::XMP, "Label", &XmpValue::new(l.as_xmp().to_owned()))?
            }
            None => xmp.delete_property(xmp_ns::XMP, "Label")?,
        }
        if xmp.contains_property(ns::DIGIKAM, "ColorLabel") {
            let n = label.map_or(0, Label::digikam);
            xmp.set_property(ns::DIGIKAM, "ColorLabel", &XmpValue::new(n.to_string()))?;
        }
        if xmp.contains_property(ns::DARKTABLE, "colorlabels") {
            let list: Vec<String> = label
                .map(|l| l.darktable().to_string())
                .into_iter()
                .collect();
            set_array(xmp, ns::DARKTABLE, "colorlabels", &list, false)?;
        }
    }
    if let Some(t) = &changes.title {
        set_alt(xmp, xmp_ns::DC, "title", t)?;
    }
    if let Some(d) = &changes.description {
        set_alt(xmp, xmp_ns::DC, "description", d)?;
    }
    if let Some(paths) = &changes.keywords {
        let paths: Vec<Vec<String>> = paths
            .iter()
            .map(|p| {
                p.iter()
                    .map(|n| n.trim().to_owned())
                    .filter(|n| !n.is_empty())
                    .collect::<Vec<_>>()
            })
            .filter(|p| !p.is_empty())
            .collect();
        let mut flat: Vec<String> = Vec::new();
        for name in paths.iter().flatten() {
            if !flat.contains(name) {
                flat.push(name.clone());
            }
        }
        set_array(xmp, xmp_ns::DC, "subject", &flat, false)?;
        let joined = |sep: &str| -> Vec<String> { paths.iter().map(|p| p.join(sep)).collect() };
        set_array(
            xmp,
            ns::LIGHTROOM,
            "hierarchicalSubject",
            &joined("|"),
            false,
        )?;
        set_array(xmp, ns::DIGIKAM, "TagsList", &joined("/"), true)?;
        for windows in ns::MICROSOFT_PHOTOS {
            if xmp.contains_property(windows, "LastKeywordXMP") {
                set_array(xmp, windows, "LastKeywordXMP", &joined("/"), false)?;
            }
        }
    }
    Ok(())
}

/// Replaces an array (a bag, or a sequence where `ordered`) with these
/// items; none takes it off.
fn set_array(
    xmp: &mut XmpMeta,
    namespace: &str,
    name: &str,
    values: &[String],
    ordered: bool,
) -> Result<(), xmp_toolkit::XmpError> {
    if items(xmp, namespace, name) == values {
        return Ok(());
    }
    xmp.delete_property(namespace, name)?;
    let array = XmpValue::new(name.to_owned())
        .set_is_array(true)
        .set_is_ordered(ordered);
    for v in values {
        xmp.append_array_item(namespace, &array, &XmpValue::new(v.clone()))?;
    }
    Ok(())
}

/// Sets a language alternative's default (`x-default`) text; empty takes
/// the whole property off.
fn set_alt(
    xmp: &mut XmpMeta,
    namespace: &str,
    name: &str,
    text: &str,
) -> Result<(), xmp_toolkit::XmpError> {
    let text = text.trim();
    if text.is_empty() {
        return xmp.delete_property(namespace, name);
    }
    // A simple value where an alternative belongs (some writers do
    // this) cannot take a language item: it is replaced.
    if let Some(v) = xmp.property(namespace, name)
        && !v.is_array()
    {
        xmp.delete_property(namespace, name)?;
    }
    xmp.set_localized_text(namespace, name, None, "x-default", text)
}

/// The sidecar's text: an XML declaration and the `x:xmpmeta` element
/// (no packet wrapper: a sidecar is not embedded, as darktable's and
/// digiKam's are not).
fn serialize(xmp: &XmpMeta) -> Result<String, xmp_toolkit::XmpError> {
    let body = xmp.to_string_with_options(ToStringOptions::default().omit_packet_wrapper())?;
    Ok(format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n{}\n",
        body.trim_end()
    ))
}

/// What tells a changed file: size, modification time to the nanosecond
/// and inode; `None` where there is no file.
pub(crate) fn stamp(path: &Path) -> std::io::Result<Option<(u64, i128, u64)>> {
    match std::fs::metadata(path) {
        Ok(m) => {
            let mtime = m
                .modified()
                .ok()
                .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                .map_or(0, |d| d.as_nanos() as i128);
            #[cfg(unix)]
            let ino = std::os::unix::fs::MetadataExt::ino(&m);
            #[cfg(not(unix))]
            let ino = 0;
            Ok(Some((m.len(), mtime, ino)))
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e),
    }
}

/// A name for the new file beside `path`, hidden, unique to this process.
fn temp_beside(path: &Path) -> PathBuf {
    temp_name(path, "tmp")
}

/// `.NAME` + [`TEMP_MARK`] + `PID-N.EXT` beside `path`.
pub(crate) fn temp_name(path: &Path, ext: &str) -> PathBuf {
    static COUNT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = COUNT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    path.with_file_name(format!(
        ".{name}{TEMP_MARK}{}-{n}.{ext}",
        std::process::id()
    ))
}

/// What names a sidecar being written: `.NAME.xmp` + this + `PID-N.tmp`.
const TEMP_MARK: &str = ".being-written-";

/// Whether `name` is the temporary file of a metadata write (a sidecar's
/// or a photo's), running or not: not a photo or sidecar of its own.
pub fn is_write_temp(name: &str) -> bool {
    temp_pid(name).is_some()
}

/// Whether `name` is a metadata write's temporary file left by a process
/// that no longer runs (killed mid-write): safe to remove, since the file
/// written is the old or the new version, never this.
pub fn is_stale_temp(name: &str) -> bool {
    let Some(pid) = temp_pid(name) else {
        return false;
    };
    if pid == std::process::id() {
        return false;
    }
    // Linux: a running process has /proc/PID. Elsewhere nothing is
    // called stale.
    cfg!(target_os = "linux") && !Path::new(&format!("/proc/{pid}")).exists()
}

/// The process that made a temporary write file, from its name.
fn temp_pid(name: &str) -> Option<u32> {
    let rest = name.strip_prefix('.')?;
    let (_, tail) = rest.rsplit_once(TEMP_MARK)?;
    let (pid, n_ext) = tail.split_once('-')?;
    let (n, ext) = n_ext.split_once('.')?;
    if ext.is_empty() || ext.contains('.') {
        return None;
    }
    n.parse::<u64>().ok()?;
    pid.parse::<u32>().ok()
}

/// Writes and syncs a new file, with the permissions of `like` where it
/// exists.
fn write_synced(tmp: &Path, bytes: &[u8], like: &Path) -> std::io::Result<()> {
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(tmp)?;
    f.write_all(bytes)?;
    if let Ok(m) = std::fs::metadata(like) {
        f.set_permissions(m.permissions())?;
    }
    f.sync_all()
}

/// Syncs the folder, so the rename itself survives a crash.
pub(crate) fn sync_folder(path: &Path) {
    if let Some(dir) = path.parent()
        && let Ok(d) = std::fs::File::open(if dir.as_os_str().is_empty() {
            Path::new(".")
        } else {
            dir
        })
    {
        let _ = d.sync_all();
    }
}
