//! `viewer2`: the photo browser.
//!
//! - `viewer2 [DIR…]` opens the window on the folders (indexing them in the
//!   background) or on the whole catalogue.
//! - `viewer2 index DIR…` records every image file under the folders in the
//!   catalogue: path, size and modification time. A second run reads again
//!   only what changed and drops what vanished.
//! - `viewer2 search QUERY` prints matching paths, best first.
//! - `viewer2 forget PATH…` drops the records of a folder that is gone on
//!   purpose; `viewer2 repair` rebuilds a damaged catalogue into a new file.
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

/// The commands that work without a window: `viewer2 index`, `viewer2
/// search`.
#[derive(Parser)]
#[command(
    name = "viewer2",
    version,
    about = "The photo browser's catalogue: index folders, search them"
)]
struct Cli {
    /// The catalogue file (default: viewer2/catalog.sqlite in the platform's
    /// data folder).
    #[arg(long, global = true)]
    catalog: Option<PathBuf>,
    #[command(subcommand)]
    command: Command,
}

/// The window: `viewer2 [DIR…]`.
#[derive(Parser)]
#[command(
    name = "viewer2",
    version,
    about = "The photo browser: opens a window on the folders, or on the whole catalogue",
    after_help = "Without a window: `viewer2 index DIR…` records folders in the catalogue, \
                  `viewer2 search QUERY` prints the matching paths, `viewer2 forget PATH…` \
                  drops the records of a folder gone on purpose, and `viewer2 repair` checks \
                  the catalogue and recovers a damaged one (each has --help). A folder named \
                  like one of these is opened as `./index`."
)]
struct WindowArgs {
    /// The catalogue file (default: viewer2/catalog.sqlite in the platform's
    /// data folder).
    #[arg(long)]
    catalog: Option<PathBuf>,
    /// Folders to browse (indexed in the background), or a photo (its
    /// folder is browsed and it opens in the loupe); none for the whole
    /// catalogue.
    dirs: Vec<PathBuf>,
    /// GPU memory for thumbnails, in MB.
    #[arg(long, default_value_t = 64)]
    gpu_budget_mb: u64,
    /// Share thumbnails with other programs (file managers, image viewers)
    /// through the freedesktop.org thumbnail folders, ~/.cache/thumbnails.
    #[arg(long)]
    share_thumbnails: bool,
    /// Saves a PNG of the window once everything visible is painted, then
    /// quits (the end-to-end test).
    #[arg(long, hide = true)]
    screenshot: Option<PathBuf>,
    /// Where stars, labels and captions are written, kept for the next
    /// start: the XMP sidecar (the default), the photo file itself (JPEG
    /// and PNG), or both.
    #[arg(long, value_enum)]
    write_to: Option<viewer2::write_back::WriteTo>,
}

/// Whether the command line names a subcommand: its first argument that is
/// neither an option nor an option's value is `index`, `search` or `help`.
/// (One clap parser cannot take both `viewer2 DIR…` and `viewer2 --catalog
/// C index DIR`: after an option it reads `index` as a folder.)
/// `search`'s arguments with its options first and every other word
/// after a `--`, so that an exclusion (`kitten -jpg`) is read as part of
/// the query and not as an unknown option. Other commands' are as given.
fn query_words_last(args: Vec<std::ffi::OsString>) -> Vec<std::ffi::OsString> {
    let Some(at) = subcommand_at(&args).filter(|&k| args[k] == "search") else {
        return args;
    };
    let mut out: Vec<std::ffi::OsString> = args[..=at].to_vec();
    let (mut options, mut words) = (Vec::new(), Vec::new());
    let mut rest = args[at + 1..].iter();
    while let Some(arg) = rest.next() {
        let text = arg.to_string_lossy();
        if text == "--" {
            words.extend(rest.by_ref().cloned());
            break;
        }
        let name = text.split('=').next().unwrap_or_default();
        if ["--limit", "--catalog"].contains(&name) {
            options.push(arg.clone());
            if !text.contains('=')
                && let Some(value) = rest.next()
            {
                options.push(value.clone());
            }
        } else if [
            "--json", "--null", "-0", "--seed", "--fuzzy", "-h", "--help",
        ]
        .contains(&name)
        {
            options.push(arg.clone());
        } else {
            words.push(arg.clone());
        }
    }
    out.extend(options);
    out.push("--".into());
    out.extend(words);
    out
}

fn names_a_subcommand(args: &[std::ffi::OsString]) -> bool {
    subcommand_at(args).is_some()
}

/// Where the subcommand's name is in `args`, if one is named.
fn subcommand_at(args: &[std::ffi::OsString]) -> Option<usize> {
    let mut k = 1;
    while let Some(arg) = args.get(k) {
        let arg = arg.to_string_lossy();
        if arg == "--" {
            return None;
        }
        if arg.starts_with('-') && arg.len() > 1 {
            if ["--catalog", "--gpu-budget-mb", "--screenshot", "--write-to"]
                .contains(&arg.as_ref())
            {
                k += 1;
            }
            k += 1;
            continue;
        }
        let named = [
            "index",
            "search",
            "forget",
            "repair",
            "mark",
            "write-sidecars",
            "install-desktop",
            "thumbnail",
            "help",
        ]
        .contains(&arg.as_ref());
        return named.then_some(k);
    }
    None
}

#[derive(Subcommand)]
enum Command {
    /// Rates, labels, captions and tags photos in their XMP sidecars
    /// (`name.ext.xmp`, or the `name.xmp` already there), where digiKam,
    /// darktable, Lightroom and exiftool read them, and in the catalogue
    /// when the photo is in it. Every other property of the sidecar is
    /// kept; the photo itself is not changed.
    Mark {
        #[command(flatten)]
        what: MarkArgs,
        /// The photos.
        #[arg(required = true)]
        files: Vec<PathBuf>,
    },
    /// Writes the catalogue's marks and captions to the photos' sidecars:
    /// those not yet written (a read-only folder then, say), or with
    /// --all every photo with a mark or a caption you wrote (marks made
    /// before viewer2 wrote sidecars).
    WriteSidecars {
        /// Every photo with a mark or caption, not only those unwritten.
        #[arg(long)]
        all: bool,
    },
    /// Records every image file under the folders.
    Index {
        /// Folders to index.
        #[arg(required = true)]
        dirs: Vec<PathBuf>,
    },
    /// Drops what the catalogue records under these paths (folders or
    /// files), for a folder that is gone on purpose. Records holding a
    /// caption or placement you made are dropped only with --yes.
    Forget {
        /// Folders or files, on disk or gone.
        paths: Vec<PathBuf>,
        /// Also drop every record kept for a missing file (gone from disk,
        /// kept for the captions or placements you made).
        #[arg(long)]
        missing: bool,
        /// Drop records holding captions or placements you made, too.
        #[arg(long)]
        yes: bool,
    },
    /// Checks the catalogue. A sound one gets its search index rebuilt; a
    /// damaged one is copied, as far as it reads, into a new file that
    /// takes its place, and the damaged file is kept beside it.
    Repair,
    /// Registers viewer2 with the desktop: a freedesktop `.desktop` file
    /// (so file managers offer "Open with viewer2" for images and
    /// folders) and its icon, under the data folder (~/.local/share).
    InstallDesktop {
        /// The data folder to install into (default: $XDG_DATA_HOME, or
        /// ~/.local/share).
        #[arg(long)]
        prefix: Option<PathBuf>,
    },
    /// Writes a PNG thumbnail of one photo, as a freedesktop thumbnailer
    /// (`viewer2.thumbnailer`, installed by install-desktop, gives file
    /// managers HEIC, AVIF, JPEG XL and camera RAW thumbnails through it).
    Thumbnail {
        /// The longest side, in pixels.
        #[arg(short, long, default_value_t = 256)]
        size: u32,
        /// The photo.
        input: PathBuf,
        /// The PNG to write (written beside, then renamed into place).
        output: PathBuf,
    },
    /// Prints the paths matching a query, best first.
    Search {
        /// The query: words (ANDed), OR, -exclusions, "phrases", (groups),
        /// word~, name:/dir:/caption:/ext:. An exclusion is a word like
        /// any other (`search kitten -jpg`); the options may come before or
        /// after the query.
        query: Vec<String>,
        /// At most this many results.
        #[arg(long, default_value_t = 50)]
        limit: usize,
        /// One JSON object per line instead of plain paths.
        #[arg(long)]
        json: bool,
        /// Paths as their exact bytes, each ended by a NUL byte (for
        /// `xargs -0`); plain output quotes a path holding a newline or
        /// another control character, as `ls` does.
        #[arg(short = '0', long = "null", conflicts_with = "json")]
        null: bool,
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
        Progress::Reading { done, total } => {
            bar.set_message(format!("reading new and changed files: {done} of {total}"));
        }
        Progress::BuildingIndex => bar.set_message("building the search index"),
    })?;
    bar.finish_and_clear();
    for w in &report.warnings {
        eprintln!("warning: {w}");
    }
    if report.warnings_total > report.warnings.len() {
        eprintln!(
            "… and {} more warnings (RUST_LOG=warn lists them all)",
            report.warnings_total - report.warnings.len()
        );
    }
    eprintln!("{report}");
    Ok(())
}

/// The `.desktop` file: images and folders open with viewer2.
const DESKTOP_ENTRY: &str = include_str!("../data/viewer2.desktop");
/// The icon (scalable).
const ICON: &str = include_str!("../data/viewer2.svg");
/// The freedesktop thumbnailer entry: file managers (Nautilus, Nemo,
/// Thunar's tumbler) run `viewer2 thumbnail` for the formats they lack.
const THUMBNAILER_ENTRY: &str = include_str!("../data/viewer2.thumbnailer");

fn install_desktop(prefix: Option<PathBuf>) -> Result<()> {
    let data = match prefix {
        Some(p) => p,
        None => match std::env::var_os("XDG_DATA_HOME").filter(|v| !v.is_empty()) {
            Some(d) => PathBuf::from(d),
            None => directories::BaseDirs::new()
                .map(|b| b.home_dir().join(".local/share"))
                .context("no home folder to install into; pass --prefix")?,
        },
    };
    let exe = std::env::current_exe().context("where this program is")?;
    // Exec takes the program's own path, quoted as the spec asks, so the
    // entry works whether or not it is on PATH.
    let quoted = exe
        .to_string_lossy()
        .replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('`', "\\`")
        .replace('$', "\\$");
    let entry = DESKTOP_ENTRY.replace("Exec=viewer2 %F", &format!("Exec=\"{quoted}\" %F"));
    let thumbnailer = THUMBNAILER_ENTRY.replace("Exec=viewer2 ", &format!("Exec=\"{quoted}\" "));
    let apps = data.join("applications");
    let icons = data.join("icons/hicolor/scalable/apps");
    let thumbnailers = data.join("thumbnailers");
    for (dir, name, text) in [
        (&apps, "viewer2.desktop", entry.as_str()),
        (&icons, "viewer2.svg", ICON),
        (&thumbnailers, "viewer2.thumbnailer", thumbnailer.as_str()),
    ] {
        std::fs::create_dir_all(dir).with_context(|| format!("{}", dir.display()))?;
        let path = dir.join(name);
        write_atomically(&path, text.as_bytes()).with_context(|| format!("{}", path.display()))?;
        println!("{}", path.display());
    }
    Ok(())
}

/// `viewer2 thumbnail`: the photo's thumbnail as a PNG at `output`, the
/// same one the grid shows (the file's own preview where it covers the
/// size, orientation applied).
fn thumbnail_png(input: &Path, output: &Path, size: u32) -> Result<()> {
    if size == 0 {
        anyhow::bail!("--size must be at least 1");
    }
    let file = photo::open_regular(input).with_context(|| format!("{}", input.display()))?;
    let thumb = viewer2::thumbnail::thumbnail(
        std::io::BufReader::new(file),
        size,
        viewer2::thumbnail::Limits::default(),
    )
    .with_context(|| format!("{}", input.display()))?;
    let mut png = Vec::new();
    {
        let mut enc = png::Encoder::new(&mut png, thumb.width, thumb.height);
        enc.set_color(png::ColorType::Rgba);
        enc.write_header()
            .and_then(|mut w| w.write_image_data(&thumb.rgba))
            .context("encoding the PNG")?;
    }
    write_atomically(output, &png).with_context(|| format!("{}", output.display()))
}

/// Writes a file the safe way: a temporary file beside it, synced, then
/// renamed over it.
fn write_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let mut tmp = tempfile::NamedTempFile::new_in(dir)?;
    tmp.write_all(bytes)?;
    tmp.as_file().sync_all()?;
    tmp.persist(path).map_err(|e| e.error)?;
    Ok(())
}

/// A path as the catalogue spells it, whether or not it still exists: the
/// nearest existing folder above it made canonical, the rest appended.
fn catalogue_path(p: &Path) -> Result<PathBuf> {
    if let Ok(c) = std::fs::canonicalize(p) {
        return Ok(c);
    }
    let abs = std::path::absolute(p).with_context(|| format!("{}", p.display()))?;
    let mut rest = Vec::new();
    let mut at = abs.as_path();
    while let Some(parent) = at.parent() {
        if let Some(name) = at.file_name() {
            rest.push(name.to_owned());
        }
        if let Ok(mut c) = std::fs::canonicalize(parent) {
            for name in rest.iter().rev() {
                c.push(name);
            }
            return Ok(c);
        }
        at = parent;
    }
    Ok(abs)
}

fn forget(catalog_path: &Path, paths: &[PathBuf], missing: bool, yes: bool) -> Result<()> {
    if paths.is_empty() && !missing {
        bail!("name the folders or files to forget, or pass --missing");
    }
    if !catalog_path.exists() {
        bail!("no catalogue at {}", catalog_path.display());
    }
    let _lock = indexer::lock(catalog_path)?;
    let mut cat = Catalog::open(catalog_path)
        .with_context(|| format!("opening {}", catalog_path.display()))?;
    checked(&mut cat, catalog_path)?;
    let texts: Vec<String> = paths
        .iter()
        .map(|p| catalogue_path(p).map(|c| c.to_string_lossy().into_owned()))
        .collect::<Result<_>>()?;
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    let would = cat.forget(&refs, missing, true)?;
    if would.files == 0 {
        eprintln!("the catalogue holds nothing there: nothing to forget");
        return Ok(());
    }
    if would.made_by_user > 0 && !yes {
        bail!(
            "{} of the {} records hold captions or placements you made; nothing was dropped. \
             Run again with --yes to drop them too",
            would.made_by_user,
            would.files
        );
    }
    let done = cat.forget(&refs, missing, false)?;
    let still: Vec<&str> = texts
        .iter()
        .filter(|t| Path::new(t).exists())
        .map(String::as_str)
        .collect();
    eprintln!(
        "forgot {} records ({} with captions or placements you made); {} in the catalogue",
        done.files,
        done.made_by_user,
        cat.len()?
    );
    if !still.is_empty() {
        eprintln!(
            "note: {} still on disk: indexing a folder above it adds it again",
            still.join(", ")
        );
    }
    Ok(())
}

/// Refuses to go on with a catalogue that fails its check.
fn checked(cat: &mut Catalog, catalog_path: &Path) -> Result<()> {
    match cat.check() {
        Ok(()) => Ok(()),
        Err(catalog::CatalogError::Damaged { detail }) => Err(indexer::IndexError::Damaged {
            path: catalog_path.to_owned(),
            detail,
        }
        .into()),
        Err(e) => Err(e.into()),
    }
}

/// What `viewer2 mark` changes.
#[derive(clap::Args)]
struct MarkArgs {
    /// Stars, 0 (none) to 5.
    #[arg(long, value_parser = clap::value_parser!(u8).range(0..=5))]
    rating: Option<u8>,
    /// A colour label: red, yellow, green, blue, purple, or none.
    #[arg(long)]
    label: Option<String>,
    /// The caption (`dc:description`); empty takes it off.
    #[arg(long)]
    caption: Option<String>,
    /// The title (`dc:title`); empty takes it off.
    #[arg(long)]
    title: Option<String>,
    /// A keyword to add, levels joined with `|` (`Places|Italy|Rome`);
    /// may be given again.
    #[arg(long = "keyword")]
    keywords: Vec<String>,
    /// Where to write: the XMP sidecar (default), the photo file
    /// itself (JPEG, PNG and TIFF, the safe way), or both.
    #[arg(long, value_enum, default_value = "sidecar")]
    write_to: viewer2::write_back::WriteTo,
}

fn mark(catalog_path: &Path, args: MarkArgs, files: &[PathBuf]) -> Result<()> {
    let label = match args.label.as_deref().map(str::to_lowercase) {
        None => None,
        Some(l) if l == "none" || l.is_empty() => Some(None),
        Some(l) => match photo::meta::Label::from_name(&l) {
            Some(l) => Some(Some(l)),
            None => anyhow::bail!(
                "--label {l}: a label is one of {} or none",
                catalog::LABELS.join(", ")
            ),
        },
    };
    // The catalogue is told where it exists; a photo not in it is marked
    // in its sidecar all the same (the next index run reads it).
    let mut cat = if catalog_path.exists() {
        Some(
            Catalog::open(catalog_path)
                .with_context(|| format!("opening {}", catalog_path.display()))?,
        )
    } else {
        None
    };
    let mut failed = 0;
    for file in files {
        if !file.is_file() {
            eprintln!("{}: not a photo file here; left alone", file.display());
            failed += 1;
            continue;
        }
        let mut changes = photo::meta::Changes {
            rating: args.rating.map(|r| r as i8),
            label,
            title: args.title.clone(),
            description: args.caption.clone(),
            keywords: None,
        };
        if !args.keywords.is_empty() {
            // Added to what the photo has, as exiftool's `-keywords+=`.
            let mut paths = photo::meta::read(file)
                .map(|m| m.keyword_paths())
                .unwrap_or_default();
            for k in &args.keywords {
                let p: Vec<String> = k
                    .split('|')
                    .map(|l| l.trim().to_owned())
                    .filter(|l| !l.is_empty())
                    .collect();
                if !p.is_empty() && !paths.contains(&p) {
                    paths.push(p);
                }
            }
            changes.keywords = Some(paths);
        }
        match viewer2::write_back::write_one(file, &changes, args.write_to) {
            Ok(what) => println!("{}: wrote {what}", file.display()),
            Err(e) => {
                eprintln!("{}: not written: {e}", file.display());
                failed += 1;
                continue;
            }
        }
        if let Some(cat) = cat.as_mut() {
            let abs = std::path::absolute(file).unwrap_or_else(|_| file.clone());
            let real = std::fs::canonicalize(file).unwrap_or_else(|_| abs.clone());
            let mut ids: Vec<i64> = Vec::new();
            for p in [abs, real] {
                for st in cat.stamps_at(&p.to_string_lossy())? {
                    if !ids.contains(&st.id) {
                        ids.push(st.id);
                    }
                }
            }
            if ids.is_empty() {
                continue;
            }
            cat.set_marks(&ids, args.rating, label.map(|l| l.map_or("", |l| l.name())))?;
            if let Some(c) = &args.caption {
                for &id in &ids {
                    cat.set_caption(id, c)?;
                }
            }
            if let Ok(m) = photo::meta::read(file) {
                let words = catalog::FileWords {
                    keywords: m.keyword_paths().iter().map(|p| p.join("|")).collect(),
                    people: m.people(),
                };
                let each: Vec<(i64, &catalog::FileWords)> =
                    ids.iter().map(|&id| (id, &words)).collect();
                cat.set_file_words(&each)?;
            }
            cat.set_unwritten(&ids, None)?;
        }
    }
    if failed > 0 {
        anyhow::bail!("{failed} of {} photos were not marked", files.len());
    }
    Ok(())
}

fn write_sidecars(catalog_path: &Path, all: bool) -> Result<()> {
    let mut cat = Catalog::open(catalog_path)
        .with_context(|| format!("opening {}", catalog_path.display()))?;
    if all {
        let mut ids: Vec<i64> = cat.marks()?.into_iter().map(|(id, _)| id).collect();
        ids.extend(cat.user_captioned()?);
        ids.sort_unstable();
        ids.dedup();
        cat.set_unwritten(&ids, Some("written by write-sidecars --all"))?;
    }
    let (done, errors) = viewer2::write_back::flush(&mut cat)?;
    for e in &errors {
        eprintln!("{e}");
    }
    println!("wrote {done} sidecars; {} not written", errors.len());
    if !errors.is_empty() {
        anyhow::bail!(
            "{} photos' sidecars could not be written (they stay marked and are written next time)",
            errors.len()
        );
    }
    Ok(())
}

fn repair(catalog_path: &Path) -> Result<()> {
    if !catalog_path.exists() {
        bail!("no catalogue at {}", catalog_path.display());
    }
    let _lock = indexer::lock(catalog_path)?;
    // A file whose first page is damaged does not open at all: it is
    // recovered all the same.
    let detail = match Catalog::open(catalog_path) {
        Ok(mut cat) => match cat.check() {
            Ok(()) => {
                let bytes = cat.rebuild_index()?;
                eprintln!(
                    "{} passes SQLite's check; its search index was rebuilt ({} files, {:.1} MB)",
                    catalog_path.display(),
                    cat.len()?,
                    bytes as f64 / 1e6
                );
                return Ok(());
            }
            Err(catalog::CatalogError::Damaged { detail }) => detail,
            Err(e) => return Err(e.into()),
        },
        Err(
            e @ (catalog::CatalogError::NewerSchema { .. } | catalog::CatalogError::NotACatalogue),
        ) => {
            return Err(e).with_context(|| format!("opening {}", catalog_path.display()));
        }
        Err(e) => format!("it does not open: {e}"),
    };
    eprintln!(
        "{} is damaged ({detail}); copying every row that can still be read into a new file…",
        catalog_path.display()
    );
    let fresh = with_suffix(catalog_path, ".recovering");
    // A recovery stopped part-way left these behind: they hold nothing else.
    for suffix in [
        "",
        "-wal",
        "-shm",
        ".salvage",
        ".salvage-journal",
        ".salvage-input",
    ] {
        let _ = std::fs::remove_file(with_suffix(&fresh, suffix));
    }
    let recovered = catalog::recover_file(catalog_path, &fresh)?;
    // Swap: the damaged file (and its journal) aside, the new one in.
    let stamp = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let aside = with_suffix(catalog_path, &format!(".damaged-{stamp}"));
    for suffix in ["", "-wal", "-shm"] {
        let from = with_suffix(catalog_path, suffix);
        let to = with_suffix(&aside, suffix);
        match std::fs::rename(&from, &to) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound && !suffix.is_empty() => {}
            Err(e) => {
                return Err(e).with_context(|| {
                    format!(
                        "moving {} aside (the recovered copy is {})",
                        from.display(),
                        fresh.display()
                    )
                });
            }
        }
    }
    // An empty journal holds nothing (opening the damaged file made it):
    // it and its index go, so the damaged file stands alone.
    if std::fs::metadata(with_suffix(&aside, "-wal")).is_ok_and(|m| m.len() == 0) {
        let _ = std::fs::remove_file(with_suffix(&aside, "-wal"));
        let _ = std::fs::remove_file(with_suffix(&aside, "-shm"));
    }
    std::fs::rename(&fresh, catalog_path).with_context(|| {
        format!(
            "putting the recovered copy in place: it is {}, the damaged file {}",
            fresh.display(),
            aside.display()
        )
    })?;
    if let Some(dir) = catalog_path.parent()
        && let Ok(d) = std::fs::File::open(if dir.as_os_str().is_empty() {
            Path::new(".")
        } else {
            dir
        })
    {
        let _ = d.sync_all();
    }
    for t in &recovered.tables {
        let what = match t.table {
            "files" => "file records",
            "marks" => "ratings and labels",
            "placements" => "light-table placements",
            _ => "settings",
        };
        match (t.before, t.lost()) {
            (Some(before), Some(0)) => eprintln!("  {what}: all {before} kept"),
            (Some(before), Some(lost)) => {
                eprintln!("  {what}: {} of {before} kept, {lost} lost", t.kept)
            }
            _ => eprintln!(
                "  {what}: {} kept (the damaged file cannot count how many it held)",
                t.kept
            ),
        }
    }
    if recovered.unplaced > 0 {
        eprintln!(
            "  {} loose rows fitted no table and were left out",
            recovered.unplaced
        );
    }
    for u in recovered
        .unreadable
        .iter()
        .filter(|u| u.starts_with("the recovery"))
    {
        eprintln!("could not read everything: {u}");
    }
    eprintln!(
        "recovered {} files ({} with captions you wrote), {} ratings and labels, {} placements \
         and {} settings into a new {}; the damaged file is kept as {} (move it back to undo)",
        recovered.files,
        recovered.captions,
        recovered.marks,
        recovered.placements,
        recovered.settings,
        catalog_path.display(),
        aside.display()
    );
    Ok(())
}

/// `path` with `suffix` added to its file name.
fn with_suffix(path: &Path, suffix: &str) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(suffix);
    PathBuf::from(name)
}

/// How `search` prints each path.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Output {
    /// One path a line, quoted where it holds a control character.
    Plain,
    /// One JSON object a line.
    Json,
    /// Exact bytes, each ended by NUL.
    Null,
}

impl Output {
    fn of(json: bool, null: bool) -> Output {
        match (json, null) {
            (true, _) => Output::Json,
            (_, true) => Output::Null,
            _ => Output::Plain,
        }
    }
}

/// A path for a line of output: as it is, unless it holds a control
/// character (a newline would split it in two); then quoted for a POSIX
/// shell as `ls` quotes it (`'a'$'\n''b.jpg'`), control characters and
/// bytes that are not UTF-8 written as escapes, so pasting it opens the
/// file.
fn shell_quoted(raw: &[u8]) -> std::borrow::Cow<'_, [u8]> {
    if !raw.iter().any(|&b| b < 0x20 || b == 0x7f) {
        return std::borrow::Cow::Borrowed(raw);
    }
    let mut out = Vec::with_capacity(raw.len() + 8);
    let mut open = false;
    let escape = |out: &mut Vec<u8>, open: &mut bool, code: &str| {
        if *open {
            out.push(b'\'');
            *open = false;
        }
        out.extend_from_slice(b"$'");
        out.extend_from_slice(code.as_bytes());
        out.push(b'\'');
    };
    for chunk in raw.utf8_chunks() {
        for c in chunk.valid().chars() {
            match c {
                '\n' => escape(&mut out, &mut open, "\\n"),
                '\t' => escape(&mut out, &mut open, "\\t"),
                '\r' => escape(&mut out, &mut open, "\\r"),
                c if (c as u32) < 0x20 || c as u32 == 0x7f => {
                    escape(&mut out, &mut open, &format!("\\{:03o}", c as u32))
                }
                '\'' => {
                    if open {
                        out.push(b'\'');
                        open = false;
                    }
                    out.extend_from_slice(b"\\'");
                }
                c => {
                    if !open {
                        out.push(b'\'');
                        open = true;
                    }
                    let mut buf = [0u8; 4];
                    out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
                }
            }
        }
        for &b in chunk.invalid() {
            escape(&mut out, &mut open, &format!("\\{b:03o}"));
        }
    }
    if open {
        out.push(b'\'');
    }
    std::borrow::Cow::Owned(out)
}

fn search(
    catalog_path: &Path,
    words: &[String],
    limit: usize,
    output: Output,
    seed: bool,
    fuzzy: bool,
) -> Result<()> {
    if !catalog_path.exists() {
        bail!(
            "no catalogue at {}: make one with `viewer2 index FOLDER` (or pass --catalog PATH)",
            catalog_path.display()
        );
    }
    let cat = Catalog::open_for_search(catalog_path)
        .with_context(|| format!("opening {}", catalog_path.display()))?;
    let text = words.join(" ");
    // Ratings and labels are the catalogue's marks, not searched text: as
    // in the window, taken off the query and applied to what it finds.
    let (rest, filters) =
        viewer2::marks::split(&text).map_err(|e| anyhow::anyhow!("query {text:?}: {e}"))?;
    let mut query = parse(&rest).map_err(|e| anyhow::anyhow!("query {text:?}: {e}"))?;
    if fuzzy {
        query = query.fuzzy();
    }
    let wanted = if filters.is_empty() {
        limit
    } else {
        usize::MAX
    };
    let mut found = if seed {
        cat.search_seed_ranked(&query, wanted)?
    } else {
        cat.search_ranked(&query, Mode::Default, wanted)?
    };
    if !filters.is_empty() {
        let marks: std::collections::HashMap<_, _> = cat.marks()?.into_iter().collect();
        let words = cat.file_words()?;
        found.retain(|id| {
            let (rating, label) = marks
                .get(id)
                .map_or((0, ""), |m| (m.rating, m.label.as_str()));
            filters
                .iter()
                .all(|f| f.passes_marks(rating, label, words.get(id)))
        });
        found.truncate(limit);
    }
    for id in found {
        if let Some((path, caption)) = cat.file(id)? {
            let raw = cat
                .raw_path(id)?
                .unwrap_or_else(|| path.clone().into_bytes());
            let mut out = std::io::stdout().lock();
            match output {
                Output::Json => {
                    let mut obj = serde_json::json!({ "path": path, "caption": caption });
                    if raw != path.as_bytes() {
                        // The name is not UTF-8: its exact bytes too.
                        obj["path_bytes"] = serde_json::json!(raw);
                    }
                    writeln!(out, "{obj}")?;
                }
                Output::Null => {
                    out.write_all(&raw)?;
                    out.write_all(b"\0")?;
                }
                Output::Plain => {
                    // The exact bytes, so the printed path opens the real
                    // file; quoted where a line would not hold it.
                    out.write_all(&shell_quoted(&raw))?;
                    out.write_all(b"\n")?;
                }
            }
        }
    }
    Ok(())
}

/// Opens the window until it is closed.
fn window(catalog: PathBuf, args: WindowArgs) -> Result<()> {
    let WindowArgs {
        dirs,
        gpu_budget_mb,
        share_thumbnails,
        screenshot,
        write_to,
        ..
    } = args;
    if let Some(to) = write_to {
        // Kept in the catalogue: the next start writes the same way.
        let mut cat =
            Catalog::open(&catalog).with_context(|| format!("opening {}", catalog.display()))?;
        cat.set_setting(viewer2::write_back::WRITE_TO, to.name())?;
    }
    let display = ["DISPLAY", "WAYLAND_DISPLAY"]
        .iter()
        .any(|v| std::env::var_os(v).is_some_and(|s| !s.is_empty()));
    if cfg!(target_os = "linux") && !display {
        bail!(
            "no display (neither DISPLAY nor WAYLAND_DISPLAY is set): the window cannot open; \
             `viewer2 index DIR…` and `viewer2 search QUERY` work without one"
        );
    }
    // A photo given (as a file manager's "Open with" does) opens its
    // folder, and itself in the loupe.
    let mut folders = Vec::new();
    let mut open = None;
    for d in &dirs {
        if d.is_dir() {
            folders.push(d.clone());
        } else if d.is_file() && viewer2::indexer::is_image(d) {
            let photo = std::fs::canonicalize(d).with_context(|| format!("{}", d.display()))?;
            let folder = photo.parent().map(Path::to_path_buf).unwrap_or_default();
            if !folders.contains(&folder) {
                folders.push(folder);
            }
            open.get_or_insert(photo);
        } else if d.exists() {
            bail!("{}: neither a folder nor an image file", d.display());
        } else {
            bail!("{}: no such folder or file", d.display());
        }
    }
    let mut options = viewer2::app::Options::new(catalog, folders);
    options.open = open;
    options.gpu_budget = gpu_budget_mb.max(1) << 20;
    options.share_thumbnails = share_thumbnails;
    options.thumb_cache =
        directories::ProjectDirs::from("", "", "viewer2").map(|d| d.cache_dir().join("thumbnails"));
    let native = eframe::NativeOptions {
        viewport: eframe::egui::ViewportBuilder::default()
            .with_title("viewer2")
            .with_inner_size([1280.0, 800.0]),
        ..Default::default()
    };
    eframe::run_native(
        "viewer2",
        native,
        Box::new(move |cc| {
            let app = viewer2::app::ViewerApp::new(&cc.egui_ctx, options)?;
            Ok(match screenshot {
                Some(path) => Box::new(Screenshot::new(app, path)),
                None => Box::new(viewer2::app::Window(app)),
            })
        }),
    )
    .map_err(|e| anyhow::anyhow!("the window could not open: {e}"))?;
    Ok(())
}

/// The window in screenshot mode: once everything visible is painted (or
/// after a minute), saves a PNG of it and quits.
struct Screenshot {
    app: viewer2::app::ViewerApp,
    path: PathBuf,
    started: std::time::Instant,
    asked: bool,
    done: std::sync::Arc<std::sync::atomic::AtomicBool>,
    settled_frames: u32,
}

impl Screenshot {
    fn new(app: viewer2::app::ViewerApp, path: PathBuf) -> Screenshot {
        Screenshot {
            app,
            path,
            started: std::time::Instant::now(),
            asked: false,
            done: Default::default(),
            settled_frames: 0,
        }
    }
}

impl eframe::App for Screenshot {
    fn ui(&mut self, ui: &mut eframe::egui::Ui, _frame: &mut eframe::Frame) {
        use std::sync::atomic::Ordering;
        self.app.ui(ui);
        let ctx = ui.ctx().clone();
        if self.done.load(Ordering::SeqCst) {
            // The memory figure the README quotes (Linux).
            let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
            if let Some(peak) = status.lines().find(|l| l.starts_with("VmHWM:")) {
                eprintln!(
                    "peak resident memory: {}",
                    peak.trim_start_matches("VmHWM:").trim()
                );
            }
            ctx.send_viewport_cmd(eframe::egui::ViewportCommand::Close);
            return;
        }
        // A few settled frames in a row: the last uploads are drawn.
        if self.app.is_settled() {
            self.settled_frames += 1;
        } else {
            self.settled_frames = 0;
        }
        let late = self.started.elapsed() > std::time::Duration::from_secs(60);
        if !self.asked && (self.settled_frames >= 3 || late) {
            if late {
                tracing::warn!(
                    "the window did not settle in a minute; taking the screenshot anyway"
                );
            }
            self.asked = true;
            let (path, done, waker) = (self.path.clone(), self.done.clone(), ctx.clone());
            ctx.request_screenshot(move |image| {
                let [w, h] = image.size;
                let rgba: Vec<u8> = image.pixels.iter().flat_map(|c| c.to_array()).collect();
                match image::RgbaImage::from_raw(w as u32, h as u32, rgba) {
                    Some(img) => {
                        if let Err(e) = img.save(&path) {
                            tracing::error!("saving {}: {e}", path.display());
                        }
                    }
                    None => tracing::error!("the screenshot's size does not match its pixels"),
                }
                done.store(true, Ordering::SeqCst);
                waker.request_repaint();
            });
        }
        ctx.request_repaint_after(std::time::Duration::from_millis(50));
    }
}

fn main() -> Result<()> {
    tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::from_default_env())
        .with_writer(std::io::stderr)
        .init();
    let argv: Vec<std::ffi::OsString> = std::env::args_os().collect();
    if !names_a_subcommand(&argv) {
        let args = WindowArgs::parse_from(&argv);
        let catalog_path = match &args.catalog {
            Some(p) => p.clone(),
            None => default_catalog()?,
        };
        return window(catalog_path, args);
    }
    let args = Cli::parse_from(query_words_last(argv));
    let catalog_path = match args.catalog {
        Some(p) => p,
        None => default_catalog()?,
    };
    match args.command {
        Command::Index { dirs } => index(&catalog_path, &dirs),
        Command::Forget {
            paths,
            missing,
            yes,
        } => forget(&catalog_path, &paths, missing, yes),
        Command::Repair => repair(&catalog_path),
        Command::Mark { what, files } => mark(&catalog_path, what, &files),
        Command::WriteSidecars { all } => write_sidecars(&catalog_path, all),
        Command::InstallDesktop { prefix } => install_desktop(prefix),
        Command::Thumbnail {
            size,
            input,
            output,
        } => thumbnail_png(&input, &output, size),
        Command::Search {
            query,
            limit,
            json,
            null,
            seed,
            fuzzy,
        } => match search(
            &catalog_path,
            &query,
            limit,
            Output::of(json, null),
            seed,
            fuzzy,
        ) {
            // `viewer2 search … | head`: the reader has what it wanted.
            Err(e)
                if e.downcast_ref::<std::io::Error>()
                    .is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe) =>
            {
                Ok(())
            }
            other => other,
        },
    }
}
