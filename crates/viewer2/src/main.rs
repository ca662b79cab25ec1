//! `viewer2`: the photo browser. So far its command line (issue 6):
//!
//! - `viewer2 index DIR…` records every image file under the folders in the
//!   catalogue: path, size and modification time. A second run reads again
//!   only what changed and drops what vanished.
//! - `viewer2 search QUERY` prints matching paths, best first.
//!
//! The catalogue is one SQLite file in the platform's data folder, or
//! `--catalog PATH`.

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use catalog::{Catalog, Mode, parse};
use clap::{Parser, Subcommand};
use indicatif::{ProgressBar, ProgressStyle};
use viewer2::indexer::{self, Progress};

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

fn default_catalog() -> Result<PathBuf> {
    let dirs = directories::ProjectDirs::from("", "", "viewer2")
        .context("no home folder to keep the catalogue in: pass --catalog PATH")?;
    Ok(dirs.data_dir().join("catalog.sqlite"))
}

fn index(catalog_path: &Path, dirs: &[PathBuf]) -> Result<()> {
    let bar = if std::io::stderr().is_terminal() {
        ProgressBar::new_spinner()
    } else {
        ProgressBar::hidden()
    };
    bar.set_style(
        ProgressStyle::with_template("{spinner} {pos} files ({per_sec}) {msg}")
            .unwrap_or_else(|_| ProgressStyle::default_spinner()),
    );
    let report = indexer::index(catalog_path, dirs, &mut |p| match p {
        Progress::Files(n) => bar.set_position(n as u64),
        Progress::BuildingIndex => bar.set_message("building the search index"),
    })?;
    bar.finish_and_clear();
    eprintln!("{report}");
    Ok(())
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
