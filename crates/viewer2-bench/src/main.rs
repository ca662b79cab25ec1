//! viewer2's thumbnails side by side with `vipsthumbnail` (libvips, Debian
//! `libvips-tools`), in one run:
//!
//! - thumbnails per second on one core, 12 MP and 24 MP JPEGs (4:4:4 and
//!   4:2:0 chroma) to 256 px,
//!   output written as JPEG by both;
//! - peak heap during one thumbnail (a counting allocator), and libvips'
//!   peak resident memory;
//! - embedded EXIF previews per second, reading 64 KB per file;
//! - HEIC and AVIF (12 MP, made by libheif's `heif-enc`, HEIC with and
//!   without the 320 × 240 thumbnail a phone writes) against vipsthumbnail
//!   (libvips' heifload, through Debian's libheif) and `heif-thumbnailer`
//!   (libheif's own, one process per photo as file managers run it);
//! - camera RAW: 24 MP DNGs with a full-size JPEG preview, the preview
//!   taken out (LibRaw) against `exiftool -b -PreviewImage`, and 256 px
//!   thumbnails made from it.
//!
//! The photos are made from real ones (`--photos DIR`, default the
//! scikit-image pictures that retarget's report installs into
//! `target/retarget-venv`, or six made pictures of gradients and noise
//! when those are not there): scaled up to camera size with a little
//! sensor noise, encoded at quality 90, with a 160×120 EXIF preview.
//!
//!     apt-get install libvips-tools libheif-examples
//!     cargo run --release -p viewer2-bench

use std::alloc::{GlobalAlloc, Layout, System};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use anyhow::{Context, Result, bail};
use clap::Parser;
use viewer2::thumbnail::{Limits, PREVIEW_HEAD, embedded_preview, thumbnail};

mod shared;

// The DNG layout photo's RAW tests use: a JPEG preview first, the raw
// samples in a sub-directory.
#[path = "../../photo/tests/support/dng.rs"]
mod dng;

/// Counts live heap bytes and their peak, for the peak-decode figure.
struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

// SAFETY: every call is forwarded to the system allocator unchanged; the
// counters are plain atomics.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwarded with the caller's layout.
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            let now = LIVE.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
            PEAK.fetch_max(now, Ordering::Relaxed);
        }
        p
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: the pointer came from `alloc` with this layout.
        unsafe { System.dealloc(ptr, layout) };
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

#[derive(Parser, Debug)]
struct Args {
    /// A folder of real photos (PNG or JPEG) to make the test set from
    /// (default: scikit-image's, installed by retarget's report, or six
    /// made ones when those are not there).
    #[arg(long)]
    photos: Option<PathBuf>,
    /// Photos per size.
    #[arg(long, default_value_t = 6)]
    count: usize,
    /// Thumbnail size (the long side).
    #[arg(long, default_value_t = 256)]
    size: u32,
    /// Only the HEIC and AVIF rows.
    #[arg(long)]
    heif_only: bool,
}

/// Pins this process (and the children it starts) to one CPU: "per core"
/// then means per core for every program, whatever threads it starts
/// (jpeg-decoder's rayon pool; libvips its own pool).
fn pin_to_one_core() -> Result<()> {
    // SAFETY: a zeroed cpu_set_t is valid; CPU_SET writes inside it; the
    // call only reads it.
    let ok = unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        libc::CPU_SET(0, &mut set);
        libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set) == 0
    };
    if !ok {
        bail!("cannot pin the benchmark to one CPU");
    }
    Ok(())
}

fn main() -> Result<()> {
    let args = Args::parse();
    pin_to_one_core()?;
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../target/viewer2-bench");
    let skimage = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../target/retarget-venv/lib/python3.11/site-packages/skimage/data");
    // Real photographs where they are at hand; made ones otherwise, so the
    // bench runs on a fresh clone.
    let photos = match &args.photos {
        Some(dir) => dir.clone(),
        None if skimage.is_dir() => skimage,
        None => {
            let made = root.join("sources");
            shared::make_photos(&made, 6)?;
            made
        }
    };
    let sources = sources(&photos)?;
    println!(
        "# viewer2 thumbnails vs vipsthumbnail ({} px, one core)\n",
        args.size
    );
    println!(
        "Test photos made from {} real pictures in {}.\n",
        sources.len(),
        photos.display()
    );
    println!(
        "| photos | viewer2 | vipsthumbnail | viewer2 ÷ vips | viewer2 peak heap per thumbnail (largest) | vips peak RSS |"
    );
    println!("| --- | ---: | ---: | ---: | ---: | ---: |");
    if args.heif_only {
        heif_rows(&sources, &root, &args)?;
        return raw_rows(&sources, &root, &args);
    }
    // 4:4:4 (what `image` writes) and 4:2:0 chroma (what most cameras and
    // phones write).
    for (label, w, h, subsampled) in [
        ("12 MP (4000×3000), 4:4:4", 4000u32, 3000u32, false),
        ("12 MP (4000×3000), 4:2:0", 4000, 3000, true),
        ("24 MP (6000×4000), 4:4:4", 6000, 4000, false),
        ("24 MP (6000×4000), 4:2:0", 6000, 4000, true),
    ] {
        let dir = root.join(format!("{w}x{h}{}", if subsampled { "-420" } else { "" }));
        let files = make_set(&sources, &dir, (w, h), subsampled, args.count)?;
        let ours = run_ours(&files, args.size, &dir.join("ours"))?;
        let vips = run_vips(&files, args.size, &dir.join("vips"))?;
        println!(
            "| {label}, {} | {:.1}/s | {} | {} | {:.1} MB | {} |",
            files.len(),
            ours.per_second,
            vips.map_or("—".into(), |v| format!("{:.1}/s", v.per_second)),
            vips.map_or("—".into(), |v| format!(
                "{:.2}×",
                ours.per_second / v.per_second
            )),
            ours.peak_bytes as f64 / 1e6,
            vips.map_or("—".into(), |v| format!(
                "{:.0} MB",
                v.peak_bytes as f64 / 1e6
            )),
        );
        if subsampled {
            continue;
        }
        let hit = run_cache(&files, args.size, &dir.join("cache"))?;
        println!(
            "| {label}, cache hits (read and decode one {} px thumbnail) | {:.0}/s ({:.2} ms each) | | | | |",
            args.size,
            1000.0 / hit,
            hit
        );
        let previews = run_previews(&files)?;
        eprintln!("{label}: {previews:.0} embedded previews/s");
        println!("| {label}, embedded EXIF previews | {previews:.0}/s | | | | |");
    }
    heif_rows(&sources, &root, &args)?;
    raw_rows(&sources, &root, &args)?;
    println!(
        "\nviewer2: at 1/8 from the DC coefficients alone where an eighth covers the target, else jpeg-decoder's scaled IDCT (the largest of 1/8, 1/4, 1/2 not below the target); Lanczos3 (fast_image_resize), JPEG out at quality 80; vipsthumbnail: shrink-on-load, `VIPS_CONCURRENCY=1`, one process for the whole set, JPEG out at its default quality. Both pinned to one CPU."
    );
    Ok(())
}

/// The HEIC and AVIF rows: files made by heif-enc from the first sources
/// at 4032 × 3024 (an iPhone's size), thumbnailed by viewer2, vipsthumbnail
/// and heif-thumbnailer.
fn heif_rows(sources: &[image::RgbImage], root: &Path, args: &Args) -> Result<()> {
    let count = args.count.min(6);
    for (label, ext, enc_args) in [
        (
            "HEIC 12 MP (4032×3024) with its 320×240 thumbnail",
            "heic",
            &["-q", "50", "-t", "320"][..],
        ),
        (
            "HEIC 12 MP (4032×3024), no thumbnail",
            "heic",
            &["-q", "50"][..],
        ),
        (
            "AVIF 12 MP (4032×3024), no thumbnail",
            "avif",
            &["-A", "-q", "50"][..],
        ),
    ] {
        let dir = root.join(format!("{ext}-{}", enc_args.len()));
        std::fs::create_dir_all(&dir)?;
        let mut files = Vec::new();
        for i in 0..count {
            let path = dir.join(format!("photo{i}.{ext}"));
            if !path.exists() {
                let src = &sources[i % sources.len()];
                let big = image::imageops::resize(
                    src,
                    4032,
                    3024,
                    image::imageops::FilterType::CatmullRom,
                );
                let png = dir.join("source.png");
                big.save(&png)?;
                let made = Command::new("heif-enc")
                    .args(enc_args)
                    .arg(&png)
                    .arg("-o")
                    .arg(&path)
                    .output();
                match made {
                    Ok(o) if o.status.success() => {}
                    Ok(o) => bail!("heif-enc: {}", String::from_utf8_lossy(&o.stderr)),
                    Err(_) => {
                        eprintln!(
                            "heif-enc not found (apt-get install libheif-examples): HEIF rows left out"
                        );
                        return Ok(());
                    }
                }
            }
            files.push(path);
        }
        let rss_before = max_rss_bytes();
        let ours = run_ours(&files, args.size, &dir.join("ours"))?;
        let rss_growth = max_rss_bytes().saturating_sub(rss_before);
        let vips = run_vips(&files, args.size, &dir.join("vips"))?;
        let thumbnailer = run_heif_thumbnailer(&files, args.size, &dir.join("heif-thumbnailer"))?;
        let best = [vips, thumbnailer]
            .into_iter()
            .flatten()
            .map(|r| r.per_second)
            .fold(0.0, f64::max);
        println!(
            "| {label}, {} | {:.1}/s | {} | {} | {:.1} MB heap + libheif's own (peak RSS grew {:.0} MB) | {} |",
            files.len(),
            ours.per_second,
            vips.map_or("—".into(), |v| format!("{:.1}/s", v.per_second)),
            if best > 0.0 {
                format!("{:.2}× the fastest", ours.per_second / best)
            } else {
                "—".into()
            },
            ours.peak_bytes as f64 / 1e6,
            rss_growth as f64 / 1e6,
            thumbnailer.map_or("—".into(), |t| format!(
                "heif-thumbnailer {:.1}/s",
                t.per_second
            )),
        );
    }
    Ok(())
}

/// The RAW rows: 24 MP DNGs whose preview is a full-size JPEG of a made
/// photo (quality 90), as cameras write them.
fn raw_rows(sources: &[image::RgbImage], root: &Path, args: &Args) -> Result<()> {
    let (w, h) = (6000u32, 4000u32);
    let dir = root.join("dng-6000x4000");
    std::fs::create_dir_all(&dir)?;
    let count = args.count.min(6);
    let mut files = Vec::new();
    for i in 0..count {
        let path = dir.join(format!("photo{i}.dng"));
        if !path.exists() {
            let src = &sources[i % sources.len()];
            let big = image::imageops::resize(src, w, h, image::imageops::FilterType::CatmullRom);
            let mut jpeg = Vec::new();
            image::codecs::jpeg::JpegEncoder::new_with_quality(&mut jpeg, 90).encode_image(&big)?;
            std::fs::write(&path, dng::dng_of((w, h), 1, Some((&jpeg, (w, h)))))?;
        }
        files.push(path);
    }
    // Taking the preview out, as bytes.
    let rounds = 5;
    let start = Instant::now();
    for _ in 0..rounds {
        for f in &files {
            let file = std::io::BufReader::new(std::fs::File::open(f)?);
            let (_, picture) = photo::raw_picture(file, &photo::Limits::default(), false)
                .map_err(|e| anyhow::anyhow!("{}: {e}", f.display()))?;
            if !matches!(picture, photo::RawPicture::Jpeg(_)) {
                bail!("{}: no preview", f.display());
            }
        }
    }
    let ours = (rounds * files.len()) as f64 / start.elapsed().as_secs_f64();
    let file_mb = std::fs::metadata(&files[0])?.len() as f64 / 1e6;
    let out = dir.join("exiftool");
    // exiftool refuses to write over what an earlier run left.
    let _ = std::fs::remove_dir_all(&out);
    std::fs::create_dir_all(&out)?;
    let start = Instant::now();
    let exiftool = Command::new("exiftool")
        .args(["-q", "-b", "-PreviewImage", "-w"])
        .arg(format!("{}/%f.jpg", out.display()))
        .args(&files)
        .status();
    let theirs = match exiftool {
        Ok(s) if s.success() => Some(files.len() as f64 / start.elapsed().as_secs_f64()),
        _ => {
            eprintln!(
                "exiftool not found or failed (apt-get install libimage-exiftool-perl): left out"
            );
            None
        }
    };
    println!(
        "| RAW 24 MP (DNG of {file_mb:.0} MB, full-size JPEG preview): preview taken out, {} | {ours:.1}/s | | {} | | |",
        files.len(),
        theirs.map_or("—".into(), |t| format!(
            "{:.2}× exiftool -b -PreviewImage ({t:.1}/s)",
            ours / t
        )),
    );
    let thumbs = run_ours(&files, args.size, &dir.join("ours"))?;
    println!(
        "| RAW 24 MP (DNG): {} px thumbnails from the preview, {} | {:.1}/s | | | {:.1} MB | |",
        args.size,
        files.len(),
        thumbs.per_second,
        thumbs.peak_bytes as f64 / 1e6
    );
    Ok(())
}

/// This process's peak resident memory so far.
fn max_rss_bytes() -> usize {
    // SAFETY: getrusage fills a plain struct we own.
    unsafe {
        let mut usage: libc::rusage = std::mem::zeroed();
        libc::getrusage(libc::RUSAGE_SELF, &mut usage);
        usage.ru_maxrss as usize * 1024
    }
}

/// libheif's heif-thumbnailer, one process per photo (as a file manager
/// runs a thumbnailer), PNG out.
fn run_heif_thumbnailer(files: &[PathBuf], size: u32, out: &Path) -> Result<Option<Rate>> {
    std::fs::create_dir_all(out)?;
    let start = Instant::now();
    for (i, f) in files.iter().enumerate() {
        let status = Command::new("heif-thumbnailer")
            .arg("-s")
            .arg(size.to_string())
            .arg(f)
            .arg(out.join(format!("{i}.png")))
            .status();
        match status {
            Ok(s) if s.success() => {}
            Ok(s) => bail!("heif-thumbnailer failed on {}: {s}", f.display()),
            Err(_) => {
                eprintln!(
                    "heif-thumbnailer not found (apt-get install libheif-examples): left out"
                );
                return Ok(None);
            }
        }
    }
    Ok(Some(Rate {
        per_second: files.len() as f64 / start.elapsed().as_secs_f64(),
        peak_bytes: 0,
    }))
}

fn sources(dir: &Path) -> Result<Vec<image::RgbImage>> {
    let mut out = Vec::new();
    let names = [
        "astronaut.png",
        "chelsea.png",
        "coffee.png",
        "motorcycle_left.png",
        "rocket.jpg",
        "retina.jpg",
        "hubble_deep_field.jpg",
    ];
    for entry in std::fs::read_dir(dir)
        .with_context(|| format!("reading {} (pass --photos DIR)", dir.display()))?
    {
        let path = entry?.path();
        let named = path
            .file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| names.contains(&n));
        let photo = matches!(
            path.extension().and_then(|e| e.to_str()),
            Some("png" | "jpg" | "jpeg")
        );
        if photo && let Ok(img) = image::open(&path) {
            let img = img.into_rgb8();
            if img.width() >= 256 && img.height() >= 256 && img.pixels().any(|p| p[0] != p[1]) {
                out.push((named, img));
            }
        }
    }
    // In scikit-image's folder, only its photographs (not its drawings).
    let any_named = out.iter().any(|(named, _)| *named);
    let out: Vec<image::RgbImage> = out
        .into_iter()
        .filter(|(named, _)| *named || !any_named)
        .map(|(_, img)| img)
        .collect();
    if out.is_empty() {
        bail!("no colour photos of 256 px or more in {}", dir.display());
    }
    Ok(out)
}

/// Camera-sized JPEGs made from the sources: scaled up, with noise, and a
/// 160×120 EXIF preview.
fn make_set(
    sources: &[image::RgbImage],
    dir: &Path,
    (w, h): (u32, u32),
    subsampled: bool,
    count: usize,
) -> Result<Vec<PathBuf>> {
    std::fs::create_dir_all(dir)?;
    let mut files = Vec::new();
    for i in 0..count {
        let path = dir.join(format!("photo{i}.jpg"));
        if !path.exists() {
            let src = &sources[i % sources.len()];
            let big = image::imageops::resize(src, w, h, image::imageops::FilterType::CatmullRom);
            let mut state = 0x9E37_79B9u32.wrapping_add(i as u32);
            let noisy = image::RgbImage::from_fn(w, h, |x, y| {
                let p = big.get_pixel(x, y);
                let mut q = [0u8; 3];
                for (c, v) in q.iter_mut().enumerate() {
                    state ^= state << 13;
                    state ^= state >> 17;
                    state ^= state << 5;
                    let n = (state % 9) as i16 - 4;
                    *v = (i16::from(p[c]) + n).clamp(0, 255) as u8;
                }
                image::Rgb(q)
            });
            let mut main = Vec::new();
            if subsampled {
                let mut e = jpeg_encoder::Encoder::new(&mut main, 90);
                e.set_sampling_factor(jpeg_encoder::SamplingFactor::R_4_2_0);
                let side = |v: u32| u16::try_from(v).context("a side over 65535");
                e.encode(
                    noisy.as_raw(),
                    side(w)?,
                    side(h)?,
                    jpeg_encoder::ColorType::Rgb,
                )?;
            } else {
                image::codecs::jpeg::JpegEncoder::new_with_quality(&mut main, 90)
                    .encode_image(&noisy)?;
            }
            let preview =
                image::imageops::resize(&noisy, 160, 120, image::imageops::FilterType::Triangle);
            let mut small = Vec::new();
            image::codecs::jpeg::JpegEncoder::new_with_quality(&mut small, 80)
                .encode_image(&preview)?;
            let mut file = main[..2].to_vec();
            file.extend_from_slice(&exif_with_preview(&small));
            file.extend_from_slice(&main[2..]);
            std::fs::write(&path, file)?;
        }
        files.push(path);
    }
    Ok(files)
}

/// An EXIF APP1 segment with orientation 1 and an IFD1 JPEG preview.
fn exif_with_preview(preview: &[u8]) -> Vec<u8> {
    let mut tiff = b"MM\0\x2a\0\0\0\x08".to_vec();
    tiff.extend_from_slice(&1u16.to_be_bytes());
    tiff.extend_from_slice(&[0x01, 0x12, 0, 3, 0, 0, 0, 1, 0, 1, 0, 0]);
    let ifd1 = 8 + 2 + 12 + 4;
    tiff.extend_from_slice(&(ifd1 as u32).to_be_bytes());
    let data = ifd1 + 2 + 2 * 12 + 4;
    tiff.extend_from_slice(&2u16.to_be_bytes());
    for (tag, value) in [(0x0201u16, data as u32), (0x0202, preview.len() as u32)] {
        tiff.extend_from_slice(&tag.to_be_bytes());
        tiff.extend_from_slice(&4u16.to_be_bytes());
        tiff.extend_from_slice(&1u32.to_be_bytes());
        tiff.extend_from_slice(&value.to_be_bytes());
    }
    tiff.extend_from_slice(&0u32.to_be_bytes());
    tiff.extend_from_slice(preview);
    let mut seg = vec![0xFF, 0xE1];
    seg.extend_from_slice(&((tiff.len() + 8) as u16).to_be_bytes());
    seg.extend_from_slice(b"Exif\0\0");
    seg.extend_from_slice(&tiff);
    seg
}

#[derive(Clone, Copy)]
struct Rate {
    per_second: f64,
    peak_bytes: usize,
}

fn run_ours(files: &[PathBuf], size: u32, out: &Path) -> Result<Rate> {
    std::fs::create_dir_all(out)?;
    let mut peak = 0usize;
    let start = Instant::now();
    for f in files {
        let before = LIVE.load(Ordering::Relaxed);
        PEAK.store(before, Ordering::Relaxed);
        let file = std::fs::File::open(f)?;
        let t = thumbnail(file, size, Limits::default())
            .map_err(|e| anyhow::anyhow!("{}: {e}", f.display()))?;
        peak = peak.max(PEAK.load(Ordering::Relaxed) - before);
        if std::env::var_os("VIEWER2_BENCH_DEBUG").is_some() {
            eprintln!(
                "{}: {:?} {}x{} peak {}",
                f.display(),
                t.source,
                t.width,
                t.height,
                PEAK.load(Ordering::Relaxed) - before
            );
        }
        let jpeg = t.to_jpeg(80).map_err(|e| anyhow::anyhow!("{e}"))?;
        let name = f.file_name().context("a file name")?;
        std::fs::write(out.join(name), jpeg)?;
    }
    Ok(Rate {
        per_second: files.len() as f64 / start.elapsed().as_secs_f64(),
        peak_bytes: peak,
    })
}

/// One vipsthumbnail process for the whole set, on one thread; its peak
/// RSS from getrusage.
fn run_vips(files: &[PathBuf], size: u32, out: &Path) -> Result<Option<Rate>> {
    std::fs::create_dir_all(out)?;
    let start = Instant::now();
    let status = Command::new("vipsthumbnail")
        .env("VIPS_CONCURRENCY", "1")
        .arg("--size")
        .arg(size.to_string())
        .arg("-o")
        .arg(format!("{}/%s.jpg", out.display()))
        .args(files)
        .status();
    let elapsed = start.elapsed();
    match status {
        Ok(s) if s.success() => {}
        Ok(s) => bail!("vipsthumbnail failed: {s}"),
        Err(_) => {
            eprintln!("vipsthumbnail not found (apt-get install libvips-tools): left out");
            return Ok(None);
        }
    }
    // SAFETY: getrusage fills a plain struct we own.
    let peak = unsafe {
        let mut usage: libc::rusage = std::mem::zeroed();
        libc::getrusage(libc::RUSAGE_CHILDREN, &mut usage);
        usage.ru_maxrss as usize * 1024
    };
    Ok(Some(Rate {
        per_second: files.len() as f64 / elapsed.as_secs_f64(),
        peak_bytes: peak,
    }))
}

/// Milliseconds per cache hit: the set's thumbnails stored, then read back
/// many times.
fn run_cache(files: &[PathBuf], size: u32, dir: &Path) -> Result<f64> {
    let _ = std::fs::remove_dir_all(dir);
    let mut cache = viewer2::cache::ThumbCache::open(dir)?;
    let mut keys = Vec::new();
    for f in files {
        let meta = std::fs::metadata(f)?;
        let key = viewer2::cache::Key {
            path: f.to_string_lossy().into_owned().into_bytes(),
            size: meta.len(),
            mtime_ns: 0,
            thumb: size,
        };
        let t = thumbnail(std::fs::File::open(f)?, size, Limits::default())
            .map_err(|e| anyhow::anyhow!("{e}"))?;
        cache.put(&key, &t)?;
        keys.push(key);
    }
    let rounds = 100;
    let start = Instant::now();
    for _ in 0..rounds {
        for k in &keys {
            if cache.get(k).is_none() {
                bail!("a cache miss");
            }
        }
    }
    Ok(start.elapsed().as_secs_f64() * 1000.0 / (rounds * keys.len()) as f64)
}

/// Embedded previews per second: the first 64 KB of each file, read and
/// decoded, many times over.
fn run_previews(files: &[PathBuf]) -> Result<f64> {
    let rounds = 200;
    let start = Instant::now();
    let mut n = 0usize;
    for _ in 0..rounds {
        for f in files {
            let mut head = vec![0u8; PREVIEW_HEAD];
            let mut file = std::fs::File::open(f)?;
            let got = std::io::Read::read(&mut file, &mut head)?;
            head.truncate(got);
            if embedded_preview(&head).is_some() {
                n += 1;
            }
        }
    }
    if n == 0 {
        bail!("no embedded previews found");
    }
    Ok(n as f64 / start.elapsed().as_secs_f64())
}
