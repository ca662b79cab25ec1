//! `viewer2 index` over a generated tree: a fresh index, an unchanged
//! re-index, a re-index after every folder was renamed, and the same after
//! an index run stopped part-way through it (the state a Ctrl-C or a
//! SIGKILL leaves: every transaction of a run is a point it can stop at).
//!
//! The tree: `--files` files (default 20,000 and 200,000, one run each) in
//! folders of 100, two levels deep (`year NN/event NNN`), each file 64
//! bytes of its own (so content hashes differ) and the same time to the
//! second in each folder. Every tenth file gets a caption through the
//! catalogue, as the window's caption editor writes it; after each run the
//! bench checks that every caption is on its own file.
//!
//!     cargo run --release -p viewer2-bench --bin viewer2-index
//!     cargo run --release -p viewer2-bench --bin viewer2-index -- --files 20000

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime};

use anyhow::{Context, Result, bail};
use catalog::Catalog;
use clap::Parser;
use viewer2::indexer::{self, Progress};

#[derive(Parser)]
struct Args {
    /// Files in the tree (repeat for several sizes).
    #[arg(long)]
    files: Vec<usize>,
    /// Where to make the trees (default: a temporary folder).
    #[arg(long)]
    dir: Option<PathBuf>,
}

/// Makes the tree: folders of 100 under `root`, named by generation `g`
/// (renaming every folder is making generation g + 1's names).
fn folder(root: &Path, g: usize, f: usize) -> PathBuf {
    root.join(format!("year {:02} g{g}", f / 100))
        .join(format!("event {:03} g{g}", f % 100))
}

fn make_tree(root: &Path, files: usize) -> Result<()> {
    let time = SystemTime::UNIX_EPOCH + Duration::from_secs(1_700_000_000);
    for f in 0..files.div_ceil(100) {
        let dir = folder(root, 0, f);
        std::fs::create_dir_all(&dir)?;
        for i in 0..100.min(files - f * 100) {
            let path = dir.join(format!("IMG_{i:04}.jpg"));
            let mut bytes = format!("photo {f} {i} ").into_bytes();
            bytes.resize(64, b'.');
            std::fs::write(&path, &bytes)?;
            std::fs::File::options()
                .write(true)
                .open(&path)?
                .set_modified(time + Duration::from_secs(f as u64))?;
        }
    }
    Ok(())
}

/// Renames every event folder, then every year folder (generation g → g+1).
fn rename_all(root: &Path, files: usize, g: usize) -> Result<()> {
    let folders = files.div_ceil(100);
    for f in 0..folders {
        let from = folder(root, g, f);
        let parent = from.parent().context("a folder has a parent")?;
        let to = parent.join(format!("event {:03} g{}", f % 100, g + 1));
        std::fs::rename(&from, &to)?;
    }
    for y in 0..folders.div_ceil(100) {
        std::fs::rename(
            root.join(format!("year {y:02} g{g}")),
            root.join(format!("year {y:02} g{}", g + 1)),
        )?;
    }
    Ok(())
}

/// One run: its time, and how many transactions it committed.
fn run(catalog: &Path, root: &Path, stop_after: Option<usize>) -> Result<(Duration, usize)> {
    let calls = std::cell::Cell::new(0usize);
    let stop = || {
        calls.set(calls.get() + 1);
        stop_after.is_some_and(|k| calls.get() > k)
    };
    let start = Instant::now();
    indexer::index_until(catalog, &[root.to_owned()], &mut |_: Progress| {}, &stop)?;
    Ok((start.elapsed(), calls.get()))
}

/// Every caption on its own file: the caption names the file.
fn check(catalog: &Path, files: usize) -> Result<usize> {
    let cat = Catalog::open(catalog)?;
    let all = cat.files()?;
    if all.len() != files {
        bail!("{} records for {files} files", all.len());
    }
    let mut captions = 0;
    for f in &all {
        if f.caption.is_empty() {
            continue;
        }
        let name = f.path.rsplit('/').next().unwrap_or("");
        let event = f.path.rsplit('/').nth(1).unwrap_or("");
        let want = format!("{} {}", &event[..9], name);
        if f.caption != want {
            bail!("{} carries the caption {:?}", f.path, f.caption);
        }
        captions += 1;
    }
    Ok(captions)
}

fn secs(d: Duration) -> String {
    format!("{:.2} s", d.as_secs_f64())
}

fn main() -> Result<()> {
    let args = Args::parse();
    let sizes = if args.files.is_empty() {
        vec![20_000, 200_000]
    } else {
        args.files.clone()
    };
    let temp;
    let base = match &args.dir {
        Some(d) => d.clone(),
        None => {
            temp = tempfile_dir()?;
            temp.clone()
        }
    };
    println!(
        "| files | fresh index | unchanged | every folder renamed | (÷ fresh) | stopped part-way, then finished | captions kept |"
    );
    println!("|---:|---:|---:|---:|---:|---:|---:|");
    for files in sizes {
        let root = base.join(format!("tree-{files}"));
        let catalog = base.join(format!("catalog-{files}.sqlite"));
        let _ = std::fs::remove_dir_all(&root);
        for suffix in ["", "-wal", "-shm"] {
            let _ = std::fs::remove_file(format!("{}{suffix}", catalog.display()));
        }
        make_tree(&root, files)?;
        let (fresh, commits) = run(&catalog, &root, None)?;
        {
            let mut cat = Catalog::open(&catalog)?;
            for f in cat.files()? {
                let name = f.path.rsplit('/').next().unwrap_or("").to_owned();
                let event = f.path.rsplit('/').nth(1).unwrap_or("").to_owned();
                if name.ends_with("0.jpg") {
                    cat.set_caption(f.id, &format!("{} {}", &event[..9], name))?;
                }
            }
        }
        let (unchanged, _) = run(&catalog, &root, None)?;
        rename_all(&root, files, 0)?;
        let (renamed, _) = run(&catalog, &root, None)?;
        check(&catalog, files)?;
        // Renamed again; a run stopped after its walk and reconcile
        // (half of its stopping points), then a full one.
        rename_all(&root, files, 1)?;
        let (_, _) = run(&catalog, &root, Some(commits / 2))?;
        let (finished, _) = run(&catalog, &root, None)?;
        let captions = check(&catalog, files)?;
        println!(
            "| {files} | {} | {} | {} | {:.2} | {} | {captions} of {} |",
            secs(fresh),
            secs(unchanged),
            secs(renamed),
            renamed.as_secs_f64() / fresh.as_secs_f64(),
            secs(finished),
            files.div_ceil(10),
        );
        let _ = std::fs::remove_dir_all(&root);
    }
    Ok(())
}

/// A fresh folder under the system's temporary folder.
fn tempfile_dir() -> Result<PathBuf> {
    let dir = std::env::temp_dir().join(format!("viewer2-index-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    Ok(dir)
}
