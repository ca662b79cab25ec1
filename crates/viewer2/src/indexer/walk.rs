//! Step 1 of a run: the walk. It stats every image file under the roots
//! and notes what could not be read; it writes nothing.

use std::collections::HashSet;
use std::path::Path;
use std::time::UNIX_EPOCH;

use catalog::Identity;

use super::{Progress, Report, Root, is_image};

/// A file the walk found.
pub(super) struct Found {
    /// The path's exact bytes.
    pub(super) raw: Vec<u8>,
    /// The path as text (lossy where not UTF-8).
    pub(super) path: String,
    pub(super) size: i64,
    pub(super) mtime: i64,
    /// Device and inode.
    pub(super) inode: Option<(u64, u64)>,
    /// The inode's birth time, nanoseconds since the epoch.
    pub(super) born: Option<i64>,
    /// The content hash, once computed (`Some(None)`: it could not be).
    pub(super) hash: Option<Option<[u8; 16]>>,
}

impl Found {
    pub(super) fn identity(&self) -> Identity {
        Identity {
            inode: self.inode,
            born: self.born,
            hash: self.hash.flatten(),
        }
    }

    /// The content hash, computed on first use.
    pub(super) fn hash(&mut self) -> Option<[u8; 16]> {
        if self.hash.is_none() {
            self.hash =
                Some(super::read::content_hash(Path::new(&os_path(&self.raw)), self.size).ok());
        }
        self.hash.flatten()
    }
}

/// What the walk saw.
#[derive(Default)]
pub(super) struct Walk {
    pub(super) found: Vec<Found>,
    /// Paths (exact bytes) that could not be read: what the catalogue
    /// holds under them is kept.
    pub(super) unreadable: Vec<Vec<u8>>,
}

impl Walk {
    /// Whether a recorded path lies in (or is) something the walk could
    /// not read.
    pub(super) fn unread(&self, raw: &[u8]) -> bool {
        self.unreadable.iter().any(|u| {
            raw == u.as_slice()
                || (raw.starts_with(u) && matches!(raw.get(u.len()), Some(b'/' | b'\\')))
        })
    }
}

pub(super) fn walk_root(
    root: &Root,
    walk: &mut Walk,
    report: &mut Report,
    progress: &mut dyn FnMut(Progress),
) {
    let mut seen = HashSet::new();
    let first = walk.found.len();
    // Sidecars' times, by path: a photo's recorded time is the later of
    // its own and its sidecar's, so an edit in darktable, digiKam or
    // Lightroom (which write only the sidecar) makes the run read the
    // photo again; a photo moved with its sidecar keeps both times.
    let mut sidecars: std::collections::HashMap<Vec<u8>, i64> = std::collections::HashMap::new();
    for entry in walkdir::WalkDir::new(&root.path).follow_links(true) {
        let entry = match entry {
            Ok(e) => e,
            Err(e) => {
                report.skipped += 1;
                let gone = e
                    .io_error()
                    .is_some_and(|io| io.kind() == std::io::ErrorKind::NotFound);
                if e.loop_ancestor().is_none()
                    && !gone
                    && let Some(p) = e.path()
                {
                    // Unreadable: what the catalogue holds under it stays.
                    walk.unreadable.push(raw_bytes(p));
                }
                report.warn(format!("skipped: {e}"));
                continue;
            }
        };
        if entry.file_type().is_file()
            && entry
                .file_name()
                .to_str()
                .is_some_and(photo::meta::is_stale_temp)
        {
            // A sidecar write killed half-way: the sidecar is whole
            // (the old or the new version); this unfinished copy is not.
            match std::fs::remove_file(entry.path()) {
                Ok(()) => {
                    tracing::info!("removed {}, left by a killed write", entry.path().display())
                }
                Err(e) => tracing::warn!("{}: {e}", entry.path().display()),
            }
            continue;
        }
        if entry
            .file_name()
            .to_str()
            .is_some_and(photo::meta::is_write_temp)
        {
            // A write in progress: the file it replaces is the photo.
            continue;
        }
        if entry.file_type().is_file()
            && entry
                .path()
                .extension()
                .is_some_and(|e| e.eq_ignore_ascii_case("xmp"))
        {
            if let Ok(m) = entry.metadata() {
                sidecars.insert(raw_bytes(entry.path()), seconds(m.modified().ok()));
            }
            continue;
        }
        if !entry.file_type().is_file() || !is_image(entry.path()) {
            continue;
        }
        let meta = match entry.metadata() {
            Ok(m) => m,
            Err(e) => {
                report.skipped += 1;
                let gone = e
                    .io_error()
                    .is_some_and(|io| io.kind() == std::io::ErrorKind::NotFound);
                if !gone {
                    walk.unreadable.push(raw_bytes(entry.path()));
                }
                report.warn(format!("skipped {}: {e}", entry.path().display()));
                continue;
            }
        };
        let raw = raw_bytes(entry.path());
        if !seen.insert(raw.clone()) {
            continue;
        }
        walk.found.push(Found {
            path: entry.path().to_string_lossy().into_owned(),
            raw,
            size: meta.len() as i64,
            mtime: seconds(meta.modified().ok()),
            inode: inode_of(&meta),
            born: meta
                .created()
                .ok()
                .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
                .and_then(|d| i64::try_from(d.as_nanos()).ok()),
            hash: None,
        });
        progress(Progress::Files(walk.found.len()));
    }
    if sidecars.is_empty() {
        return;
    }
    for f in &mut walk.found[first..] {
        for side in sidecar_names(&f.raw) {
            if let Some(&t) = sidecars.get(&side) {
                f.mtime = f.mtime.max(t);
            }
        }
    }
}

/// Seconds since the epoch (0 when unknown).
fn seconds(t: Option<std::time::SystemTime>) -> i64 {
    t.and_then(|t| t.duration_since(UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_secs() as i64)
}

/// The names a photo's sidecar may have (`name.ext.xmp`, `name.xmp`, in
/// either case), as exact bytes.
fn sidecar_names(raw: &[u8]) -> Vec<Vec<u8>> {
    let mut out = Vec::with_capacity(4);
    for ext in [&b".xmp"[..], b".XMP"] {
        let mut full = raw.to_vec();
        full.extend_from_slice(ext);
        out.push(full);
        let name_at = raw.iter().rposition(|&b| b == b'/').map_or(0, |i| i + 1);
        if let Some(dot) = raw[name_at..].iter().rposition(|&b| b == b'.') {
            let mut plain = raw[..name_at + dot].to_vec();
            plain.extend_from_slice(ext);
            out.push(plain);
        }
    }
    out
}

#[cfg(unix)]
fn inode_of(meta: &std::fs::Metadata) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    Some((meta.dev(), meta.ino()))
}

#[cfg(not(unix))]
fn inode_of(_meta: &std::fs::Metadata) -> Option<(u64, u64)> {
    None
}

/// A path's exact bytes (on Unix any bytes may name a file).
pub(super) fn raw_bytes(path: &Path) -> Vec<u8> {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        path.as_os_str().as_bytes().to_vec()
    }
    #[cfg(not(unix))]
    {
        path.to_string_lossy().into_owned().into_bytes()
    }
}

/// A path from its exact bytes.
pub fn os_path(raw: &[u8]) -> std::ffi::OsString {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        std::ffi::OsStr::from_bytes(raw).to_owned()
    }
    #[cfg(not(unix))]
    {
        String::from_utf8_lossy(raw).into_owned().into()
    }
}
