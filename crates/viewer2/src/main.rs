//! `viewer2`: the photo browser. So far its command line (issue 6):
//!
//! - `viewer2 index DIR…` records every image file under the folders in the
//!   catalogue: path, size and modification time. A second run reads again
//!   only what changed and drops what vanished.
//! - `viewer2 search QUERY` prints matching paths, best first.
//!
//! The catalogue is one SQLite file in the platform's data folder, or
//! `--catalog PATH`.

mod metadata;

use std::collections::HashMap;
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::time::{Instant, UNIX_EPOCH};

use anyhow::{Context, Result, bail};
use catalog::{Catalog, Mode, NewFile, parse};
use clap::{Parser, Subcommand};
use indicatif::{ProgressBar, ProgressStyle};

#[derive(Parser)]
#[command(
    version,
    about = "The photo browser's catalogue: index folders, search them"
)]
struct Args {
    /// The catalogue file (default: viewer2/catalog.sqlite in the platform's
    /// data folder).
    #[arg(long, global = true)]
    catalog: Option<PathBuf>,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Records every image file under the folders.
    Index {
        /// Folders to index.
        #[arg(required = true)]
        dirs: Vec<PathBuf>,
    },
    /// Prints the paths matching a query, best first.
    Search {
        /// The query: words (ANDed), OR, -exclusions, "phrases", (groups),
        /// word~, name:/dir:/caption:/ext:.
        query: Vec<String>,
        /// At most this many results.
        #[arg(long, default_value_t = 50)]
        limit: usize,
        /// One JSON object per line instead of plain paths.
        #[arg(long)]
        json: bool,
        /// The seed's matching only (every word within one token), through
        /// its own tables.
        #[arg(long)]
        seed: bool,
        /// Tolerate typos in every word (as if each ended in `~`); exact
        /// matches still come first.
        #[arg(long)]
        fuzzy: bool,
    },
}

/// File extensions recorded as images (by name; RAW formats included).
const IMAGE_EXTENSIONS: &[&str] = &[
    "jpg", "jpeg", "jpe", "png", "gif", "webp", "tif", "tiff", "bmp", "heic", "heif", "avif",
    "cr2", "cr3", "crw", "nef", "nrw", "arw", "srf", "sr2", "dng", "orf", "rw2", "raf", "pef",
    "srw", "x3f", "3fr", "erf", "kdc", "mrw", "raw", "rwl",
];

fn is_image(path: &Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| IMAGE_EXTENSIONS.contains(&e.to_ascii_lowercase().as_str()))
}

fn default_catalog() -> Result<PathBuf> {
    let dirs = directories::ProjectDirs::from("", "", "viewer2")
        .context("no home folder to keep the catalogue in: pass --catalog PATH")?;
    Ok(dirs.data_dir().join("catalog.sqlite"))
}

fn index(catalog_path: &Path, dirs: &[PathBuf]) -> Result<()> {
    if let Some(parent) = catalog_path.parent() {
        std::fs::create_dir_all(parent)
            .with_context(|| format!("creating {}", parent.display()))?;
    }
    // One index run per catalogue: an exclusive lock on a file beside it,
    // which the system releases however the process ends (even SIGKILL).
    let lock_path = catalog_path.with_extension("index-lock");
    let lock = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&lock_path)
        .with_context(|| format!("creating {}", lock_path.display()))?;
    match lock.try_lock() {
        Ok(()) => {}
        Err(std::fs::TryLockError::WouldBlock) => bail!(
            "another `viewer2 index` is running on {}; wait for it to finish (searches keep working meanwhile)",
            catalog_path.display()
        ),
        Err(std::fs::TryLockError::Error(e)) => {
            return Err(e).with_context(|| format!("locking {}", lock_path.display()));
        }
    }
    let mut cat = Catalog::open(catalog_path)
        .with_context(|| format!("opening {}", catalog_path.display()))?;
    let bar = if std::io::stderr().is_terminal() {
        ProgressBar::new_spinner()
    } else {
        ProgressBar::hidden()
    };
    bar.set_style(
        ProgressStyle::with_template("{spinner} {pos} files ({per_sec}) {msg}")
            .unwrap_or_else(|_| ProgressStyle::default_spinner()),
    );
    let started = Instant::now();
    let (mut added, mut changed, mut removed, mut renamed) = (0usize, 0usize, 0usize, 0usize);
    // Entries not indexed, and files indexed by name only.
    let (mut skipped, mut bad_metadata) = (0usize, 0usize);
    for dir in dirs {
        let root = std::fs::canonicalize(dir)
            .with_context(|| format!("{}: cannot open this folder", dir.display()))?;
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
            bar.inc(1);
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
    bar.set_message("building the search index");
    let index_bytes = cat.refresh_index()?;
    bar.finish_and_clear();
    eprintln!(
        "indexed in {:.1} s: {added} new, {changed} changed, {renamed} moved or renamed, {removed} removed, {} in the catalogue (search index {:.1} MB){}",
        started.elapsed().as_secs_f64(),
        cat.len()?,
        index_bytes as f64 / 1e6,
        match (skipped, bad_metadata) {
            (0, 0) => String::new(),
            (s, 0) => format!("; {s} skipped with a warning"),
            (0, m) => format!("; {m} with unreadable metadata, indexed by name"),
            (s, m) => format!(
                "; {s} skipped with a warning; {m} with unreadable metadata, indexed by name"
            ),
        }
    );
    Ok(())
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
) -> Result<()> {
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
) -> Result<Vec<Move>> {
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

fn search(
    catalog_path: &Path,
    words: &[String],
    limit: usize,
    json: bool,
    seed: bool,
    fuzzy: bool,
) -> Result<()> {
    if !catalog_path.exists() {
        bail!(
            "no catalogue at {}: make one with `viewer2 index FOLDER` (or pass --catalog PATH)",
            catalog_path.display()
        );
    }
    let cat = Catalog::open(catalog_path)
        .with_context(|| format!("opening {}", catalog_path.display()))?;
    let text = words.join(" ");
    let mut query = parse(&text).map_err(|e| anyhow::anyhow!("query {text:?}: {e}"))?;
    if fuzzy {
        query = query.fuzzy();
    }
    let found = if seed {
        cat.search_seed_ranked(&query, limit)?
    } else {
        cat.search_ranked(&query, Mode::Default, limit)?
    };
    for id in found {
        if let Some((path, caption)) = cat.file(id)? {
            let raw = cat
                .raw_path(id)?
                .unwrap_or_else(|| path.clone().into_bytes());
            let mut out = std::io::stdout().lock();
            if json {
                let mut obj = serde_json::json!({ "path": path, "caption": caption });
                if raw != path.as_bytes() {
                    // The name is not UTF-8: its exact bytes too.
                    obj["path_bytes"] = serde_json::json!(raw);
                }
                writeln!(out, "{obj}")?;
            } else {
                // The exact bytes, so the printed path opens the real file.
                out.write_all(&raw)?;
                out.write_all(b"\n")?;
            }
        }
    }
    Ok(())
}

fn main() -> Result<()> {
    tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::from_default_env())
        .with_writer(std::io::stderr)
        .init();
    let args = Args::parse();
    let catalog_path = match args.catalog {
        Some(p) => p,
        None => default_catalog()?,
    };
    match args.command {
        Command::Index { dirs } => index(&catalog_path, &dirs),
        Command::Search {
            query,
            limit,
            json,
            seed,
            fuzzy,
        } => search(&catalog_path, &query, limit, json, seed, fuzzy),
    }
}
