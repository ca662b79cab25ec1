//! Indexing folders into the catalogue: `viewer2 index DIR…` and the
//! window's background indexing share this.
//!
//! A run goes in three steps, so that stopping it at any moment (Ctrl-C,
//! SIGKILL, a crash) never loses what the user wrote:
//!
//! 1. **Walk** the trees (following links) and stat every image file:
//!    path, size, modification time, device and inode. Nothing is written.
//!    Loops, broken links and files gone mid-walk are skipped with a
//!    warning; a folder that cannot be read is noted, and the records
//!    under it are kept, marked unavailable.
//! 2. **Reconcile** the records with the walk, in one transaction: a
//!    record whose file is gone is matched with a file the walk found new
//!    (the same inode, size and time; else the same size, time and content
//!    hash, or, for records without a hash, the same name or folder) and
//!    takes its path, keeping its id, caption and placement. Records
//!    outside the folders indexed are candidates too when their own path
//!    is gone (a renamed indexed folder), and so are records kept for
//!    missing files. What stays unmatched is removed, or kept as missing
//!    when it holds something the user made. Two records of one file (the
//!    same inode: an older version's interrupted run) are merged.
//! 3. **Read** the new and changed files' metadata and content hash, in
//!    batches of 1,000 (the first of 48, the first names), each its own
//!    transaction; then build and store the
//!    search index.
//!
//! The catalogue is checked first ([`Catalog::check`]): a damaged one is
//! never written to.

mod moves;
mod read;
mod walk;

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use catalog::{Catalog, CatalogError, NewFile, Stamp};

use moves::plan;
use read::{Entry, read_entry};
use walk::{Walk, walk_root};

pub use read::content_hash;
pub use walk::os_path;

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
    /// A folder to index exists but cannot be read: nothing is changed,
    /// as for a missing one.
    #[error(
        "{path}: cannot read this folder: {error}; nothing was changed (what the catalogue holds for it is kept)"
    )]
    Unreadable {
        /// The folder as given.
        path: PathBuf,
        /// Why it failed.
        error: std::io::Error,
    },
    /// A file given to index is not an image (by its extension).
    #[error("{0}: not an image file (by its extension); give a folder or an image")]
    NotAnImage(PathBuf),
    /// A path given to index is neither a folder nor a regular file (a
    /// device, a FIFO, a socket; after links).
    #[error("{path}: {what}{}, not a photo or a folder", if target != path { format!(" (a link to {})", target.display()) } else { String::new() })]
    NotAFile {
        /// The path as given.
        path: PathBuf,
        /// Where it leads, after links.
        target: PathBuf,
        /// What it is.
        what: &'static str,
    },
    /// The catalogue failed its check: nothing was written.
    #[error(
        "{path} is damaged, so nothing was written to it (SQLite's check: {detail}). \
         `viewer2 repair --catalog {path}` copies what it still holds into a new file \
         and keeps the damaged one beside it"
    )]
    Damaged {
        /// The catalogue's path.
        path: PathBuf,
        /// What the check said.
        detail: String,
    },
    /// The catalogue's folder or lock file could not be made.
    #[error("{path}: {error}")]
    Io {
        /// What was being made.
        path: PathBuf,
        /// Why it failed.
        error: std::io::Error,
    },
    /// The catalogue (or its folder) cannot be written here: a read-only
    /// file system or share, or another user's file.
    #[error(
        "cannot index into {path}: {reason}; searching it still works (`viewer2 search --catalog {}`), or give --catalog a place you can write",
        path.display()
    )]
    NotWritable {
        /// The catalogue's path.
        path: PathBuf,
        /// What refused the write, and where.
        reason: String,
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
    /// A write to the catalogue failed part-way through a run (a full
    /// disk, an I/O error): that transaction was rolled back, and what
    /// earlier ones wrote stays, consistent.
    #[error(
        "{path}: {error}; the run stopped, and the catalogue keeps what it held and what the run \
         had finished (the next run goes on from there)"
    )]
    Write {
        /// The catalogue's path.
        path: PathBuf,
        /// What SQLite said.
        error: CatalogError,
    },
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
    /// Walking: this many image files found so far.
    Files(usize),
    /// Reading the metadata of the new and changed files: `done` of
    /// `total`.
    Reading {
        /// Files read so far.
        done: usize,
        /// Files to read in all.
        total: usize,
    },
    /// The search index is being built.
    BuildingIndex,
}

/// How many warnings a report keeps word for word (the rest are counted).
pub const WARNINGS_KEPT: usize = 10;

/// What a run did.
#[derive(Clone, Debug, Default)]
pub struct Report {
    /// Files new to the catalogue.
    pub added: usize,
    /// Files whose size or time changed (read again).
    pub changed: usize,
    /// Files found moved or renamed (they keep their id and caption).
    pub renamed: usize,
    /// Files that vanished, their records removed.
    pub removed: usize,
    /// Files that vanished, their records kept (as missing) for the
    /// captions or placements the user made.
    pub kept_missing: usize,
    /// Records kept as they were because their folder could not be read.
    pub unavailable: usize,
    /// Entries skipped with a warning (unreadable, gone mid-walk, loops).
    pub skipped: usize,
    /// The first [`WARNINGS_KEPT`] warnings, word for word.
    pub warnings: Vec<String>,
    /// How many warnings there were in all.
    pub warnings_total: usize,
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
        if self.unavailable > 0 {
            write!(
                f,
                "; {} in folders that could not be read, kept as they were",
                self.unavailable
            )?;
        }
        if self.kept_missing > 0 {
            write!(
                f,
                "; {} gone from disk but kept for the captions or placements you made \
                 (`viewer2 forget --missing` drops them)",
                self.kept_missing
            )?;
        }
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

impl Report {
    fn warn(&mut self, text: String) {
        tracing::warn!("{text}");
        self.warnings_total += 1;
        if self.warnings.len() < WARNINGS_KEPT {
            self.warnings.push(text);
        }
    }
}

/// File extensions recorded as images (by name; RAW formats included).
pub const IMAGE_EXTENSIONS: &[&str] = &[
    "jpg", "jpeg", "jpe", "png", "gif", "webp", "tif", "tiff", "bmp", "heic", "heif", "hif",
    "avif", "jxl", "cr2", "cr3", "crw", "nef", "nrw", "arw", "srf", "sr2", "dng", "orf", "rw2",
    "raf", "pef", "srw", "x3f", "3fr", "erf", "kdc", "mrw", "raw", "rwl",
];

/// Whether a path names an image file (by its extension).
pub fn is_image(path: &Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| IMAGE_EXTENSIONS.contains(&e.to_ascii_lowercase().as_str()))
}

/// Indexes the folders (or single image files) into the catalogue at
/// `catalog_path` (see the module's documentation), telling `progress` as
/// it goes.
pub fn index(
    catalog_path: &Path,
    dirs: &[PathBuf],
    progress: &mut dyn FnMut(Progress),
) -> Result<Report, IndexError> {
    index_until(catalog_path, dirs, progress, &|| false)
}

/// [`index`], stopping cleanly between steps and batches once `stop`
/// answers true (the window closing). What was written stays consistent;
/// the next run finishes the work.
pub fn index_until(
    catalog_path: &Path,
    dirs: &[PathBuf],
    progress: &mut dyn FnMut(Progress),
    stop: &dyn Fn() -> bool,
) -> Result<Report, IndexError> {
    if let Some(parent) = catalog_path.parent() {
        std::fs::create_dir_all(parent).map_err(|e| io(parent, e))?;
    }
    let _lock = lock(catalog_path)?;
    check_writable(catalog_path)?;
    let started = Instant::now();
    // Every root is checked before anything is written: a missing or
    // unreadable one stops the run with the catalogue untouched.
    let roots = resolve_roots(dirs)?;
    let mut cat = Catalog::open(catalog_path).map_err(|e| IndexError::Open {
        path: catalog_path.to_owned(),
        error: e,
    })?;
    match cat.check() {
        Ok(()) => {}
        Err(CatalogError::Damaged { detail }) => {
            return Err(IndexError::Damaged {
                path: catalog_path.to_owned(),
                detail,
            });
        }
        Err(e) => return Err(e.into()),
    }
    // A write the catalogue refuses (a full disk, an I/O error) names
    // the catalogue: SQLite's message alone does not.
    let mut steps = || -> Result<Report, IndexError> {
        let mut report = Report::default();
        crate::metadata::drop_camera_from_captions(&mut cat)?;
        // The folders above what is indexed are not searched (a file
        // given alone: above its folder).
        let library_roots: Vec<&str> = roots
            .iter()
            .map(|r| {
                if r.is_file {
                    catalog::split_path(&r.text).0.trim_end_matches(['/', '\\'])
                } else {
                    r.text.as_str()
                }
            })
            .collect();
        cat.add_roots(&library_roots)?;

        // 1. The walk.
        let mut walk = Walk::default();
        for root in &roots {
            walk_root(root, &mut walk, &mut report, progress);
            if stop() {
                return Ok(finish_early(report, &cat, started)?);
            }
        }

        tracing::info!(
            "walked {} files in {:.2} s",
            walk.found.len(),
            started.elapsed().as_secs_f64()
        );
        let phase = Instant::now();
        // 2. Reconcile.
        let mut known: Vec<Stamp> = Vec::new();
        let mut ids = HashSet::new();
        for root in &roots {
            let stamps = if root.is_file {
                cat.stamps_at(&root.text)?
            } else {
                cat.stamps_under(&root.prefix)?
            };
            known.extend(stamps.into_iter().filter(|s| ids.insert(s.id)));
        }
        let plan = plan(&cat, &roots, &mut walk, &known, &mut report)?;
        let vanished = cat.reconcile(&plan.reconcile)?;
        report.renamed = plan.reconcile.moves.len() + plan.reconcile.merges.len();
        report.removed = vanished.removed;
        report.kept_missing = vanished.kept;
        if stop() {
            return Ok(finish_early(report, &cat, started)?);
        }

        tracing::info!(
            "reconciled in {:.2} s: {} moves, {} merges, {} vanished",
            phase.elapsed().as_secs_f64(),
            plan.reconcile.moves.len(),
            plan.reconcile.merges.len(),
            plan.reconcile.vanished.len()
        );
        let phase = Instant::now();
        // 3. Read what is new or changed.
        let total = plan.changed.len() + plan.new.len();
        let mut done = 0usize;
        progress(Progress::Reading { done, total });
        for chunk in plan.changed.chunks(BATCH) {
            let entries: Vec<(i64, Entry)> = chunk
                .iter()
                .map(|&(i, id)| (id, read_entry(&walk.found[i], &mut report)))
                .collect();
            let updates: Vec<(i64, NewFile<'_>)> =
                entries.iter().map(|(id, e)| (*id, e.as_new())).collect();
            cat.update(&updates)?;
            // A file or sidecar changed outside wins over the catalogue,
            // but for a change made here and not yet written.
            let unwritten = cat.unwritten()?;
            let fresh: Vec<(i64, &Entry)> = entries
                .iter()
                .filter(|(id, _)| !unwritten.contains_key(id))
                .map(|(id, e)| (*id, e))
                .collect();
            marks_and_words(&mut cat, &fresh)?;
            report.changed += chunk.len();
            done += chunk.len();
            progress(Progress::Reading { done, total });
            if stop() {
                return Ok(finish_early(report, &cat, started)?);
            }
        }
        // A small first batch: a window waiting on a new folder shows its
        // first photos at once, and the grid's first screen (by name) at
        // that: the first names by path, picked in linear time (a full
        // sort by the grid's own key cost 7 s at 200,000 files).
        let mut new = plan.new.clone();
        let first = new.len().min(FIRST_BATCH);
        let by_path = |a: &usize, b: &usize| walk.found[*a].path.cmp(&walk.found[*b].path);
        if new.len() > first {
            new.select_nth_unstable_by(first, by_path);
        }
        new[..first].sort_unstable_by(by_path);
        let (head, rest) = new.split_at(first);
        for chunk in std::iter::once(head)
            .filter(|c| !c.is_empty())
            .chain(rest.chunks(BATCH))
        {
            let entries: Vec<Entry> = chunk
                .iter()
                .map(|&i| read_entry(&walk.found[i], &mut report))
                .collect();
            let files: Vec<NewFile<'_>> = entries.iter().map(Entry::as_new).collect();
            let ids = cat.add(&files)?;
            let fresh: Vec<(i64, &Entry)> = ids.iter().copied().zip(entries.iter()).collect();
            marks_and_words(&mut cat, &fresh)?;
            report.added += chunk.len();
            done += chunk.len();
            progress(Progress::Reading { done, total });
            if stop() {
                return Ok(finish_early(report, &cat, started)?);
            }
        }
        tracing::info!(
            "read {total} new or changed files in {:.2} s",
            phase.elapsed().as_secs_f64()
        );
        let phase = Instant::now();
        progress(Progress::BuildingIndex);
        report.index_bytes = cat.refresh_index()?;
        tracing::info!(
            "built the search index in {:.2} s",
            phase.elapsed().as_secs_f64()
        );
        report.total = cat.len()?;
        report.elapsed = started.elapsed();
        Ok(report)
    };
    steps().map_err(|e| match e {
        IndexError::Catalog(error) => IndexError::Write {
            path: catalog_path.to_owned(),
            error,
        },
        e => e,
    })
}

/// The marks (rating, label) and words (keywords, people) files give,
/// into the catalogue.
fn marks_and_words(cat: &mut Catalog, entries: &[(i64, &Entry)]) -> Result<(), CatalogError> {
    let marks: Vec<(i64, Option<u8>, Option<&str>)> = entries
        .iter()
        .filter(|(_, e)| e.rating.is_some() || e.label.is_some())
        .map(|(id, e)| (*id, e.rating, e.label.as_deref()))
        .collect();
    cat.set_marks_each(&marks)?;
    let words: Vec<(i64, &catalog::FileWords)> =
        entries.iter().map(|(id, e)| (*id, &e.words)).collect();
    cat.set_file_words(&words)
}

/// Files written per transaction while reading.
const BATCH: usize = 1000;

/// New files written in the first transaction.
const FIRST_BATCH: usize = 48;

/// A report for a run told to stop: what it did so far.
fn finish_early(
    mut report: Report,
    cat: &Catalog,
    started: Instant,
) -> Result<Report, CatalogError> {
    report.total = cat.len()?;
    report.elapsed = started.elapsed();
    Ok(report)
}

/// A write refused by permissions or a read-only file system, said as
/// such: SQLite would only say "attempt to write a readonly database"
/// after the run had started.
fn not_writable(catalog_path: &Path, at: &Path, e: &std::io::Error) -> Option<IndexError> {
    let refused = matches!(
        e.kind(),
        std::io::ErrorKind::PermissionDenied | std::io::ErrorKind::ReadOnlyFilesystem
    );
    refused.then(|| IndexError::NotWritable {
        path: catalog_path.to_owned(),
        reason: format!("{}: {e}", at.display()),
    })
}

/// An existing catalogue this process may not write is refused before
/// the run starts, naming why.
fn check_writable(catalog_path: &Path) -> Result<(), IndexError> {
    match std::fs::OpenOptions::new().write(true).open(catalog_path) {
        Ok(_) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => {
            Err(not_writable(catalog_path, catalog_path, &e).unwrap_or_else(|| io(catalog_path, e)))
        }
    }
}

/// One index run per catalogue: an exclusive lock on a file beside it,
/// which the system releases however the process ends (even SIGKILL).
pub fn lock(catalog_path: &Path) -> Result<std::fs::File, IndexError> {
    let lock_path = catalog_path.with_extension("index-lock");
    let lock = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&lock_path)
        .map_err(|e| {
            not_writable(catalog_path, &lock_path, &e).unwrap_or_else(|| io(&lock_path, e))
        })?;
    match lock.try_lock() {
        Ok(()) => Ok(lock),
        Err(std::fs::TryLockError::WouldBlock) => Err(IndexError::Busy(catalog_path.to_owned())),
        Err(std::fs::TryLockError::Error(e)) => Err(io(&lock_path, e)),
    }
}

/// A folder (or file) to index, as the catalogue spells it.
struct Root {
    /// Its canonical path.
    path: PathBuf,
    /// The same as text.
    text: String,
    /// `text` and a separator: what records under it start with.
    prefix: String,
    /// An image file given alone.
    is_file: bool,
}

/// What a file that is not a regular file or a folder is.
fn what_it_is(kind: &std::fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if kind.is_char_device() || kind.is_block_device() {
            return "a device";
        }
        if kind.is_fifo() {
            return "a FIFO";
        }
        if kind.is_socket() {
            return "a socket";
        }
    }
    let _ = kind;
    "not a regular file"
}

fn resolve_roots(dirs: &[PathBuf]) -> Result<Vec<Root>, IndexError> {
    let mut roots: Vec<Root> = Vec::new();
    for dir in dirs {
        let path = std::fs::canonicalize(dir).map_err(|error| IndexError::Folder {
            path: dir.clone(),
            error,
        })?;
        let meta = std::fs::metadata(&path).map_err(|error| IndexError::Folder {
            path: dir.clone(),
            error,
        })?;
        let is_file = !meta.is_dir();
        if is_file && !meta.is_file() {
            return Err(IndexError::NotAFile {
                path: dir.clone(),
                target: path.clone(),
                what: what_it_is(&meta.file_type()),
            });
        }
        if is_file && !is_image(&path) {
            return Err(IndexError::NotAnImage(dir.clone()));
        }
        if !is_file && let Err(error) = std::fs::read_dir(&path) {
            return Err(IndexError::Unreadable {
                path: dir.clone(),
                error,
            });
        }
        let text = path.to_string_lossy().into_owned();
        let prefix = format!(
            "{}{}",
            text.trim_end_matches(std::path::MAIN_SEPARATOR),
            std::path::MAIN_SEPARATOR
        );
        roots.push(Root {
            path,
            text,
            prefix,
            is_file,
        });
    }
    // A root inside another is walked with it.
    let all: Vec<(String, bool)> = roots
        .iter()
        .map(|r| (r.prefix.clone(), r.is_file))
        .collect();
    let mut kept: Vec<Root> = Vec::new();
    for r in roots {
        let inside = all
            .iter()
            .any(|(p, is_file)| !is_file && *p != r.prefix && (r.text.starts_with(p.as_str())));
        if !inside && !kept.iter().any(|k| k.text == r.text) {
            kept.push(r);
        }
    }
    Ok(kept)
}
