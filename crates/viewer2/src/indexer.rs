//! Indexing folders into the catalogue: `viewer2 index DIR…` and the
//! window's background indexing share this.
//!
//! A run walks the trees (following links; loops, broken links and
//! unreadable folders are skipped and counted), records every image file
//! with its size, modification time and metadata, reads again only what
//! changed, drops what vanished, and takes a vanished file and a new one
//! with the same size and time, and the same name or folder, as one file
//! moved or renamed (it keeps its id and caption). It ends by building and
//! storing the search index, so the next search starts at once.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, UNIX_EPOCH};

use catalog::{Catalog, CatalogError, NewFile};

use crate::metadata;

/// What went wrong in an index run.
#[derive(Debug, thiserror::Error)]
pub enum IndexError {
    /// Another run holds the catalogue.
    #[error(
        "another `viewer2 index` is running on {0}; wait for it to finish (searches keep working meanwhile)"
    )]
    Busy(PathBuf),
    /// A folder to index could not be opened.
    #[error("{path}: cannot open this folder: {error}")]
    Folder {
        /// The folder as given.
        path: PathBuf,
        /// Why it failed.
        error: std::io::Error,
    },
    /// The catalogue's folder or lock file could not be made.
    #[error("{path}: {error}")]
    Io {
        /// What was being made.
        path: PathBuf,
        /// Why it failed.
        error: std::io::Error,
    },
    /// The catalogue file could not be opened.
    #[error("opening {path}: {error}")]
    Open {
        /// The catalogue's path.
        path: PathBuf,
        /// Why it failed.
        error: CatalogError,
    },
    /// The catalogue refused a change.
    #[error(transparent)]
    Catalog(#[from] CatalogError),
}

fn io(path: &Path, error: std::io::Error) -> IndexError {
    IndexError::Io {
        path: path.to_owned(),
        error,
    }
}

/// How far a run has got.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Progress {
    /// This many image files looked at so far.
    Files(usize),
    /// The walk is done; the search index is being built.
    BuildingIndex,
}

/// What a run did.
#[derive(Clone, Debug, Default)]
pub struct Report {
    /// Files new to the catalogue.
    pub added: usize,
    /// Files whose size or time changed (read again).
    pub changed: usize,
    /// Files found moved or renamed (they keep their id and caption).
    pub renamed: usize,
    /// Files that vanished.
    pub removed: usize,
    /// Entries skipped with a warning (unreadable, gone mid-walk, loops).
    pub skipped: usize,
    /// Files whose metadata could not be read (indexed by name).
    pub bad_metadata: usize,
    /// Files in the catalogue after the run.
    pub total: u64,
    /// The search index's size in bytes.
    pub index_bytes: usize,
    /// How long the run took.
    pub elapsed: Duration,
}

impl std::fmt::Display for Report {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "indexed in {:.1} s: {} new, {} changed, {} moved or renamed, {} removed, {} in the catalogue (search index {:.1} MB)",
            self.elapsed.as_secs_f64(),
            self.added,
            self.changed,
            self.renamed,
            self.removed,
            self.total,
            self.index_bytes as f64 / 1e6,
        )?;
        match (self.skipped, self.bad_metadata) {
            (0, 0) => Ok(()),
            (s, 0) => write!(f, "; {s} skipped with a warning"),
            (0, m) => write!(f, "; {m} with unreadable metadata, indexed by name"),
            (s, m) => write!(
                f,
                "; {s} skipped with a warning; {m} with unreadable metadata, indexed by name"
            ),
        }
    }
}

/// File extensions recorded as images (by name; RAW formats included).
pub const IMAGE_EXTENSIONS: &[&str] = &[
    "jpg", "jpeg", "jpe", "png", "gif", "webp", "tif", "tiff", "bmp", "heic", "heif", "avif",
    "cr2", "cr3", "crw", "nef", "nrw", "arw", "srf", "sr2", "dng", "orf", "rw2", "raf", "pef",
    "srw", "x3f", "3fr", "erf", "kdc", "mrw", "raw", "rwl",
];

/// Whether a path names an image file (by its extension).
pub fn is_image(path: &Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| IMAGE_EXTENSIONS.contains(&e.to_ascii_lowercase().as_str()))
}

/// Indexes the folders into the catalogue at `catalog_path` (see the
/// module's documentation), telling `progress` as it goes.
pub fn index(
    catalog_path: &Path,
    dirs: &[PathBuf],
    progress: &mut dyn FnMut(Progress),
) -> Result<Report, IndexError> {
    if let Some(parent) = catalog_path.parent() {
        std::fs::create_dir_all(parent).map_err(|e| io(parent, e))?;
    }
    // One index run per catalogue: an exclusive lock on a file beside it,
    // which the system releases however the process ends (even SIGKILL).
    let lock_path = catalog_path.with_extension("index-lock");
    let lock = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&lock_path)
        .map_err(|e| io(&lock_path, e))?;
    match lock.try_lock() {
        Ok(()) => {}
        Err(std::fs::TryLockError::WouldBlock) => {
            return Err(IndexError::Busy(catalog_path.to_owned()));
        }
        Err(std::fs::TryLockError::Error(e)) => return Err(io(&lock_path, e)),
    }
    let mut cat = Catalog::open(catalog_path).map_err(|e| IndexError::Open {
        path: catalog_path.to_owned(),
        error: e,
    })?;
    let mut files_seen = 0usize;
    let started = Instant::now();
    let (mut added, mut changed, mut removed, mut renamed) = (0usize, 0usize, 0usize, 0usize);
    // Entries not indexed, and files indexed by name only.
    let (mut skipped, mut bad_metadata) = (0usize, 0usize);
    for dir in dirs {
        let root = std::fs::canonicalize(dir).map_err(|error| IndexError::Folder {
            path: dir.clone(),
            error,
        })?;
        let prefix = format!("{}{}", root.to_string_lossy(), std::path::MAIN_SEPARATOR);
        // What the catalogue has under this folder: exact path bytes → (id,
        // size, mtime).
        let known: HashMap<Vec<u8>, (i64, i64, i64)> = cat
            .stamps_under(&prefix)?
            .into_iter()
            .map(|st| (st.path, (st.id, st.size, st.mtime)))
            .collect();
        let mut seen = std::collections::HashSet::new();
        let mut batch: Vec<Entry> = Vec::new();
        let mut changes: Vec<(i64, Entry)> = Vec::new();
        // Files added in this run (id, size, mtime): a vanished file with
        // the same size and time was moved or renamed here.
        let mut new_files: Vec<(i64, i64, i64)> = Vec::new();
        for entry in walkdir::WalkDir::new(&root).follow_links(true) {
            let entry = match entry {
                Ok(e) => e,
                Err(e) => {
                    // Unreadable folders, files gone mid-walk, loops: counted, not fatal.
                    skipped += 1;
                    tracing::warn!("skipped: {e}");
                    continue;
                }
            };
            if !entry.file_type().is_file() || !is_image(entry.path()) {
                continue;
            }
            let meta = match entry.metadata() {
                Ok(m) => m,
                Err(e) => {
                    skipped += 1;
                    tracing::warn!("skipped {}: {e}", entry.path().display());
                    continue;
                }
            };
            let path = entry.path().to_string_lossy().into_owned();
            let raw = raw_bytes(entry.path());
            let size = meta.len() as i64;
            let mtime = meta
                .modified()
                .ok()
                .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
                .map_or(0, |d| d.as_secs() as i64);
            files_seen += 1;
            progress(Progress::Files(files_seen));
            let unchanged = known
                .get(&raw)
                .is_some_and(|&(_, s, m)| s == size && m == mtime);
            // Metadata is read only for new or changed files; a broken block
            // is logged and counted, and the file is indexed by name.
            let meta = if unchanged {
                metadata::Meta::default()
            } else {
                match metadata::read(entry.path()) {
                    Ok(m) => {
                        if let Some(p) = &m.problem {
                            bad_metadata += 1;
                            tracing::warn!(
                                "{}: metadata partly skipped: {p}",
                                entry.path().display()
                            );
                        }
                        m
                    }
                    Err(e) => {
                        bad_metadata += 1;
                        tracing::warn!("{}: metadata skipped: {e}", entry.path().display());
                        metadata::Meta::default()
                    }
                }
            };
            let item = Entry {
                caption: meta.caption,
                camera: meta.camera,
                date: meta.date,
                // Exact bytes are kept only where the lossy text differs.
                raw: (raw != path.as_bytes()).then(|| raw.clone()),
                path,
                size,
                mtime,
            };
            match known.get(&raw) {
                Some(&(_, s, m)) if s == size && m == mtime => {}
                Some(&(id, _, _)) => {
                    // Same id, so a caption the user wrote stays.
                    changes.push((id, item));
                    changed += 1;
                }
                None => {
                    batch.push(item);
                    added += 1;
                }
            }
            seen.insert(raw);
            // Written in batches, each in its own transaction: an
            // interrupted run keeps what it finished.
            if batch.len() + changes.len() >= 1000 {
                flush(&mut cat, &mut changes, &mut batch, &mut new_files)?;
            }
        }
        flush(&mut cat, &mut changes, &mut batch, &mut new_files)?;
        let vanished: Vec<(&Vec<u8>, Recorded)> = known
            .iter()
            .filter(|(p, _)| !seen.contains(*p))
            .map(|(p, &v)| (p, v))
            .collect();
        let moved = find_moves(&cat, &vanished, &new_files)?;
        // The old record takes the new path (keeping its id, caption and
        // everything else), replacing the one this run added.
        let moves: Vec<(i64, &str, Option<&[u8]>)> = moved
            .iter()
            .map(|(id, path, raw)| (*id, path.as_str(), raw.as_deref()))
            .collect();
        cat.rename(&moves)?;
        let moved_ids: std::collections::HashSet<i64> = moved.iter().map(|m| m.0).collect();
        let gone: Vec<i64> = vanished
            .iter()
            .map(|(_, (id, _, _))| *id)
            .filter(|id| !moved_ids.contains(id))
            .collect();
        renamed += moved.len();
        added -= moved.len();
        removed += gone.len();
        cat.remove(&gone)?;
    }
    progress(Progress::BuildingIndex);
    let index_bytes = cat.refresh_index()?;
    Ok(Report {
        added,
        changed,
        renamed,
        removed,
        skipped,
        bad_metadata,
        total: cat.len()?,
        index_bytes,
        elapsed: started.elapsed(),
    })
}

/// A file as the catalogue records it: (id, size, mtime).
type Recorded = (i64, i64, i64);

/// A recorded file found elsewhere: (its id, the new path, the new path's
/// exact bytes where they are not UTF-8).
type Move = (i64, String, Option<Vec<u8>>);

/// A file found on disk.
struct Entry {
    /// The path as text (lossy where the name is not UTF-8).
    path: String,
    /// The metadata's words (EXIF, XMP).
    caption: String,
    /// The camera model.
    camera: String,
    /// When it was taken, `YYYY-MM-DD HH:MM:SS`, or empty.
    date: String,
    /// The exact bytes, when they differ from `path`.
    raw: Option<Vec<u8>>,
    size: i64,
    mtime: i64,
}

/// A path's exact bytes (on Unix any bytes may name a file).
fn raw_bytes(path: &Path) -> Vec<u8> {
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

fn as_new(e: &Entry) -> NewFile<'_> {
    NewFile {
        path: &e.path,
        caption: &e.caption,
        size: e.size,
        mtime: e.mtime,
        raw_path: e.raw.as_deref(),
        camera: &e.camera,
        date: &e.date,
    }
}

fn flush(
    cat: &mut Catalog,
    changes: &mut Vec<(i64, Entry)>,
    batch: &mut Vec<Entry>,
    new_files: &mut Vec<(i64, i64, i64)>,
) -> Result<(), CatalogError> {
    let updates: Vec<(i64, NewFile<'_>)> = changes.iter().map(|(id, e)| (*id, as_new(e))).collect();
    cat.update(&updates)?;
    let files: Vec<NewFile<'_>> = batch.iter().map(as_new).collect();
    let ids = cat.add(&files)?;
    new_files.extend(
        ids.into_iter()
            .zip(batch.iter())
            .map(|(id, e)| (id, e.size, e.mtime)),
    );
    changes.clear();
    batch.clear();
    Ok(())
}

/// Pairs files that vanished with files this run added: the same size and
/// modification time (a rename or move keeps both), and the same name (a
/// move) or the same folder (a rename). Where several fit, only a single
/// one with the same name is taken. Returns (old id, new path, new exact
/// bytes) for each pair; the new record is dropped when the old one takes
/// its path.
fn find_moves(
    cat: &Catalog,
    vanished: &[(&Vec<u8>, Recorded)],
    new_files: &[(i64, i64, i64)],
) -> Result<Vec<Move>, CatalogError> {
    if vanished.is_empty() || new_files.is_empty() {
        return Ok(Vec::new());
    }
    // (size, mtime) → the vanished files with it: (path bytes, id).
    type Vanished<'a> = Vec<(&'a [u8], i64)>;
    let mut by_stamp: HashMap<(i64, i64), Vanished<'_>> = HashMap::new();
    for &(path, (id, size, mtime)) in vanished {
        by_stamp
            .entry((size, mtime))
            .or_default()
            .push((path.as_slice(), id));
    }
    // (folder, name) of a path's bytes.
    let split = |bytes: &[u8]| -> (Vec<u8>, Vec<u8>) {
        let at = bytes
            .iter()
            .rposition(|&b| b == b'/' || b == b'\\')
            .map_or(0, |i| i + 1);
        (bytes[..at].to_vec(), bytes[at..].to_vec())
    };
    let mut used = std::collections::HashSet::new();
    let mut out = Vec::new();
    for &(new_id, size, mtime) in new_files {
        let Some(candidates) = by_stamp.get(&(size, mtime)) else {
            continue;
        };
        let Some(new_raw) = cat.raw_path(new_id)? else {
            continue;
        };
        let (new_dir, new_name) = split(&new_raw);
        let fits: Vec<(bool, i64)> = candidates
            .iter()
            .filter(|(_, id)| !used.contains(id))
            .filter_map(|(p, id)| {
                let (dir, name) = split(p);
                let same_name = name == new_name;
                (same_name || dir == new_dir).then_some((same_name, *id))
            })
            .collect();
        let same_name: Vec<i64> = fits.iter().filter(|f| f.0).map(|f| f.1).collect();
        let pick = match (fits.len(), same_name.len()) {
            (1, _) => Some(fits[0].1),
            (_, 1) => Some(same_name[0]),
            _ => None,
        };
        if let Some(old_id) = pick {
            used.insert(old_id);
            let path = String::from_utf8_lossy(&new_raw).into_owned();
            let raw = (path.as_bytes() != new_raw.as_slice()).then_some(new_raw);
            out.push((old_id, path, raw));
        }
    }
    Ok(out)
}
