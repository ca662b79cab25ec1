//! Metadata that travels (issue 46), timed beside the version before it
//! and beside exiftool, in one run:
//!
//! - **reading**: `viewer2 index` of a fresh catalogue over 10,000 photos
//!   that carry embedded XMP (Lightroom's: rating, label, title, caption,
//!   flat and hierarchical keywords, a face region) and, for half of them,
//!   a darktable sidecar, in files per second; the same with the
//!   viewer2 of the commit before this issue (string scanning of the
//!   first megabyte, no sidecars: `--before`); exiftool reading the same
//!   photos and sidecars in one batch process (`exiftool -j -r`).
//! - **writing**: a rating into every photo's sidecar (half updated, half
//!   made from the photo's XMP) by `viewer2 mark`, and by exiftool in two
//!   batch processes (the existing sidecars updated in place, the new
//!   ones made with `-tagsfromfile @ -o %d%f.%e.xmp`).
//!
//! The photos are 640×427 JPEGs in the page cache (read once first).
//!
//!     git worktree add /tmp/v2before 0776706      # the commit before issue 46
//!     (cd /tmp/v2before && cargo build --release -p viewer2 --target-dir "$PWD/../main/target/before")
//!     cargo build --release -p viewer2
//!     cargo run --release -p viewer2-bench --bin viewer2-metadata -- --before target/before/release/viewer2

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

use anyhow::{Context, Result, bail};
use clap::Parser;

#[path = "../shared.rs"]
mod shared;
use shared::make_photos;

#[derive(Parser, Debug)]
struct Args {
    /// Photos in the library.
    #[arg(long, default_value_t = 10_000)]
    photos: usize,
    /// The viewer2 to time (built with --release).
    #[arg(long, default_value = "target/release/viewer2")]
    viewer2: PathBuf,
    /// The viewer2 of the commit before this issue, for the "before" row.
    #[arg(long)]
    before: Option<PathBuf>,
    /// Runs of each reading (the best is reported).
    #[arg(long, default_value_t = 3)]
    runs: usize,
}

/// Lightroom-like XMP for photo `k`.
fn xmp(k: usize, rating: u8) -> String {
    let label = ["Red", "Yellow", "Green", "Blue", "Purple"][k % 5];
    let city = ["Rome", "Florence", "Venice", "Naples"][k % 4];
    format!(
        "<x:xmpmeta xmlns:x=\"adobe:ns:meta/\"><rdf:RDF xmlns:rdf=\"http://www.w3.org/1999/02/22-rdf-syntax-ns#\">\
<rdf:Description rdf:about=\"\" xmlns:xmp=\"http://ns.adobe.com/xap/1.0/\" xmlns:dc=\"http://purl.org/dc/elements/1.1/\" \
xmlns:lr=\"http://ns.adobe.com/lightroom/1.0/\" xmlns:photoshop=\"http://ns.adobe.com/photoshop/1.0/\" \
xmlns:mwg-rs=\"http://www.metadataworkinggroup.com/schemas/regions/\" xmlns:stArea=\"http://ns.adobe.com/xmp/sType/Area#\" \
xmp:Rating=\"{rating}\" xmp:Label=\"{label}\" photoshop:City=\"{city}\" xmp:CreatorTool=\"Adobe Lightroom Classic 13.0\">\
<dc:title><rdf:Alt><rdf:li xml:lang=\"x-default\">Photo {k} in {city}</rdf:li></rdf:Alt></dc:title>\
<dc:description><rdf:Alt><rdf:li xml:lang=\"x-default\">An evening walk by the river, café lights &amp; bridges</rdf:li></rdf:Alt></dc:description>\
<dc:subject><rdf:Bag><rdf:li>Places</rdf:li><rdf:li>Italy</rdf:li><rdf:li>{city}</rdf:li><rdf:li>evening</rdf:li></rdf:Bag></dc:subject>\
<lr:hierarchicalSubject><rdf:Bag><rdf:li>Places|Italy|{city}</rdf:li><rdf:li>evening</rdf:li></rdf:Bag></lr:hierarchicalSubject>\
<mwg-rs:Regions rdf:parseType=\"Resource\"><mwg-rs:RegionList><rdf:Bag><rdf:li rdf:parseType=\"Resource\">\
<mwg-rs:Name>Anna</mwg-rs:Name><mwg-rs:Type>Face</mwg-rs:Type><mwg-rs:Area stArea:x=\"0.5\" stArea:y=\"0.4\" stArea:w=\"0.1\" stArea:h=\"0.15\" stArea:unit=\"normalized\"/>\
</rdf:li></rdf:Bag></mwg-rs:RegionList></mwg-rs:Regions>\
</rdf:Description></rdf:RDF></x:xmpmeta>"
    )
}

/// A JPEG with an XMP APP1 segment after its start marker.
fn with_xmp(jpeg: &[u8], packet: &str) -> Vec<u8> {
    let mut body = b"http://ns.adobe.com/xap/1.0/\0".to_vec();
    body.extend_from_slice(
        format!(
            "<?xpacket begin=\"\u{feff}\" id=\"W5M0MpCehiHzreSzNTczkc9d\"?>{packet}<?xpacket end=\"w\"?>"
        )
        .as_bytes(),
    );
    let mut out = jpeg[..2].to_vec();
    out.extend_from_slice(&[0xff, 0xe1]);
    out.extend_from_slice(&((body.len() + 2) as u16).to_be_bytes());
    out.extend_from_slice(&body);
    out.extend_from_slice(&jpeg[2..]);
    out
}

/// The library: every photo with embedded XMP, the even ones with a
/// darktable sidecar (a different rating, which wins).
fn make_library(base: &[PathBuf], dir: &Path) -> Result<Vec<PathBuf>> {
    let _ = std::fs::remove_dir_all(dir);
    std::fs::create_dir_all(dir)?;
    let mut out = Vec::with_capacity(base.len());
    for (k, src) in base.iter().enumerate() {
        let name = src.file_name().context("a photo without a name")?;
        let path = dir.join(name);
        std::fs::write(&path, with_xmp(&std::fs::read(src)?, &xmp(k, 3)))?;
        if k % 2 == 0 {
            let mut side = path.as_os_str().to_owned();
            side.push(".xmp");
            std::fs::write(
                PathBuf::from(side),
                format!(
                    "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n{}\n",
                    xmp(k, 4)
                ),
            )?;
        }
        out.push(path);
    }
    Ok(out)
}

fn run(cmd: &mut Command) -> Result<f64> {
    let start = Instant::now();
    let out = cmd
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .output()
        .with_context(|| format!("running {cmd:?}"))?;
    let secs = start.elapsed().as_secs_f64();
    if !out.status.success() {
        bail!("{cmd:?}: {}", String::from_utf8_lossy(&out.stderr));
    }
    Ok(secs)
}

/// The best of `runs` index runs into fresh catalogues.
fn index_time(viewer2: &Path, lib: &Path, scratch: &Path, runs: usize) -> Result<f64> {
    let mut best = f64::INFINITY;
    for r in 0..runs {
        let cat = scratch.join(format!("cat-{r}.sqlite"));
        for suffix in ["", "-wal", "-shm", ".lock"] {
            let mut p = cat.as_os_str().to_owned();
            p.push(suffix);
            let _ = std::fs::remove_file(PathBuf::from(p));
        }
        let t = run(Command::new(viewer2)
            .arg("--catalog")
            .arg(&cat)
            .arg("index")
            .arg(lib))?;
        best = best.min(t);
    }
    Ok(best)
}

fn main() -> Result<()> {
    let args = Args::parse();
    if !args.viewer2.is_file() {
        bail!(
            "{} is not there: cargo build --release -p viewer2 first",
            args.viewer2.display()
        );
    }
    let work = PathBuf::from("target/viewer2-bench/metadata");
    let base = make_photos(&work.join("base"), args.photos)?;
    let lib = work.join("library");
    let photos = make_library(&base, &lib)?;
    let n = photos.len() as f64;
    // Into the page cache.
    for p in &photos {
        let _ = std::fs::read(p)?;
    }
    let scratch = work.join("scratch");
    std::fs::create_dir_all(&scratch)?;

    let now = index_time(&args.viewer2, &lib, &scratch, args.runs)?;
    let before = match &args.before {
        Some(b) => Some(index_time(b, &lib, &scratch, args.runs)?),
        None => None,
    };
    let exiftool_read = run(Command::new("exiftool")
        .args(["-j", "-q", "-r", "-XMP:all", "-IPTC:all", "-EXIF:all"])
        .args(["-ext", "jpg", "-ext", "xmp"])
        .arg(&lib))
    .ok();

    // Writing: two identical libraries, one for each.
    let lib_v = make_library(&base, &work.join("write-viewer2"))?;
    let lib_e = make_library(&base, &work.join("write-exiftool"))?;
    let viewer2_write = run(Command::new(&args.viewer2)
        .arg("--catalog")
        .arg(scratch.join("none.sqlite"))
        .args(["mark", "--rating", "5"])
        .args(&lib_v))?;
    let mut existing = Vec::new();
    let mut bare = Vec::new();
    for (k, p) in lib_e.iter().enumerate() {
        if k % 2 == 0 {
            let mut s = p.as_os_str().to_owned();
            s.push(".xmp");
            existing.push(PathBuf::from(s));
        } else {
            bare.push(p.clone());
        }
    }
    let exiftool_write = run(Command::new("exiftool")
        .args(["-q", "-overwrite_original", "-XMP-xmp:Rating=5"])
        .args(&existing))
    .and_then(|a| {
        run(Command::new("exiftool")
            .args([
                "-q",
                "-tagsfromfile",
                "@",
                "-XMP:all",
                "-XMP-xmp:Rating=5",
                "-o",
                "%d%f.%e.xmp",
            ])
            .args(&bare))
        .map(|b| a + b)
    })
    .ok();

    println!(
        "| {} photos, half with a sidecar | seconds | photos per second | time ÷ this viewer2's |",
        args.photos
    );
    println!("| --- | --- | --- | --- |");
    let row = |what: &str, secs: f64, base: f64| {
        println!(
            "| {what} | {secs:.2} | {:.0} | {:.2}× |",
            n / secs,
            secs / base
        );
    };
    row(
        "viewer2 index (this version: XMP Toolkit, IPTC, sidecars)",
        now,
        now,
    );
    if let Some(b) = before {
        row(
            "viewer2 index before issue 46 (string scan, no sidecars)",
            b,
            now,
        );
    }
    match exiftool_read {
        Some(e) => row("exiftool -j -r, one process (photos and sidecars)", e, now),
        None => {
            println!("| exiftool reading | not run (apt-get install libimage-exiftool-perl) | | |")
        }
    }
    row(
        "viewer2 mark --rating 5 (sidecars: half updated, half made)",
        viewer2_write,
        viewer2_write,
    );
    match exiftool_write {
        Some(e) => row(
            "exiftool, two batch processes (update; -tagsfromfile @ -o)",
            e,
            viewer2_write,
        ),
        None => println!("| exiftool writing | not run | | |"),
    }
    println!(
        "\n(the last column: this row's time over the first row's of its half; above 1 is slower than this viewer2)"
    );
    Ok(())
}
