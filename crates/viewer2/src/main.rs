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
        /// The seed's matching only (every word within one token).
        #[arg(long)]
        seed: bool,
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
    let (mut added, mut changed, mut removed, mut warnings) = (0usize, 0usize, 0usize, 0usize);
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
        let mut stale = Vec::new();
        for entry in walkdir::WalkDir::new(&root).follow_links(false) {
            let entry = match entry {
                Ok(e) => e,
                Err(e) => {
                    // Unreadable folders, files gone mid-walk, loops: counted, not fatal.
                    warnings += 1;
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
                    warnings += 1;
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
                            warnings += 1;
                            tracing::warn!(
                                "{}: metadata partly skipped: {p}",
                                entry.path().display()
                            );
                        }
                        m
                    }
                    Err(e) => {
                        warnings += 1;
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
                    stale.push(id);
                    batch.push(item);
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
            if batch.len() >= 1000 {
                flush(&mut cat, &mut stale, &mut batch)?;
            }
        }
        flush(&mut cat, &mut stale, &mut batch)?;
        let vanished: Vec<i64> = known
            .iter()
            .filter(|(p, _)| !seen.contains(*p))
            .map(|(_, &(id, _, _))| id)
            .collect();
        removed += vanished.len();
        cat.remove(&vanished)?;
    }
    bar.finish_and_clear();
    eprintln!(
        "indexed in {:.1} s: {added} new, {changed} changed, {removed} removed, {} in the catalogue{}",
        started.elapsed().as_secs_f64(),
        cat.len()?,
        if warnings > 0 {
            format!("; {warnings} skipped with a warning")
        } else {
            String::new()
        }
    );
    Ok(())
}

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

fn flush(cat: &mut Catalog, stale: &mut Vec<i64>, batch: &mut Vec<Entry>) -> Result<()> {
    cat.remove(stale)?;
    let files: Vec<NewFile<'_>> = batch
        .iter()
        .map(|e| NewFile {
            path: &e.path,
            caption: &e.caption,
            size: e.size,
            mtime: e.mtime,
            raw_path: e.raw.as_deref(),
            camera: &e.camera,
            date: &e.date,
        })
        .collect();
    cat.add(&files)?;
    stale.clear();
    batch.clear();
    Ok(())
}

fn search(
    catalog_path: &Path,
    words: &[String],
    limit: usize,
    json: bool,
    seed: bool,
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
    let query = parse(&text).map_err(|e| anyhow::anyhow!("query {text:?}: {e}"))?;
    let mode = if seed { Mode::Seed } else { Mode::Default };
    for id in cat.search_ranked(&query, mode, limit)? {
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
        } => search(&catalog_path, &query, limit, json, seed),
    }
}
