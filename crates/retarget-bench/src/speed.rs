//! ms per megapixel, single thread, side by side.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use fast_image_resize::{FilterType, PixelType, ResizeAlg, ResizeOptions, Resizer, images::Image};
use indicatif::{ProgressBar, ProgressStyle};
use retarget::{Options, Raster};

use crate::Picture;

/// The fastest of `runs` calls: on a shared machine the other runs measure
/// the neighbours, not the code. Every method is timed the same way.
fn time<T>(runs: usize, mut f: impl FnMut() -> T) -> Duration {
    fastest(
        (0..runs.max(1))
            .map(|_| {
                let t = Instant::now();
                std::hint::black_box(f());
                t.elapsed()
            })
            .collect(),
    )
}

fn fastest(v: Vec<Duration>) -> Duration {
    v.into_iter().min().unwrap_or_default()
}

/// ImageMagick 6's own binary (Debian names it convert-im6.q16; a `convert`
/// earlier on PATH may be a stand-in).
pub(crate) fn imagemagick() -> Result<PathBuf> {
    for c in [
        "/usr/bin/convert-im6.q16",
        "/usr/bin/convert",
        "/usr/bin/magick",
    ] {
        if Path::new(c).exists() {
            return Ok(c.into());
        }
    }
    bail!("ImageMagick not found: `apt-get install imagemagick`")
}

pub(crate) fn write_png(path: &Path, img: &Raster<u8>) -> Result<()> {
    retarget::io::write(path, &retarget::io::AnyRaster::U8(img.clone()), None, None)?;
    Ok(())
}

/// Wall time of a whole command, best of `runs`.
fn command_time(runs: usize, make: impl Fn() -> Command) -> Result<Duration> {
    let mut best = Duration::MAX;
    for _ in 0..runs.max(1) {
        let t = Instant::now();
        let out = make().output().context("running a peer command")?;
        let dt = t.elapsed();
        if !out.status.success() {
            bail!(
                "peer command failed: {}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
        best = best.min(dt);
    }
    Ok(best)
}

pub fn run(pictures: &[Picture], runs: usize) -> Result<()> {
    let im = imagemagick()?;
    let ours_cli = std::env::current_exe()?.with_file_name("retarget");
    if !ours_cli.exists() {
        bail!(
            "{} not found: build it with `cargo build --release -p retarget`",
            ours_cli.display()
        );
    }
    let dir = tempdir()?;
    let lib = crate::lqr::Lqr::load().ok();
    let bar = ProgressBar::new((pictures.len() * 2) as u64).with_style(
        ProgressStyle::with_template("{bar:40} {pos}/{len} {msg}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    let mut rows = Vec::new();
    for pic in pictures {
        let src = &pic.rgb;
        let (w, h) = (src.width(), src.height());
        let mp = f64::from(w) * f64::from(h) / 1e6;
        let input = dir.join("in.png");
        write_png(&input, src)?;
        for ratio in [0.5, 0.75] {
            bar.set_message(format!("{} at {:.0}%", pic.name, ratio * 100.0));
            let tw = ((f64::from(w) * ratio).round() as u32).max(1);
            let opts = Options::default();
            let ours = time(runs, || retarget::retarget(src, tw, h, &opts));
            let fir = {
                let from = Image::from_vec_u8(w, h, src.as_slice().to_vec(), PixelType::U8x3)?;
                let mut to = Image::new(tw, h, PixelType::U8x3);
                let mut r = Resizer::new();
                let o =
                    ResizeOptions::new().resize_alg(ResizeAlg::Convolution(FilterType::Lanczos3));
                time(runs, || r.resize(&from, &mut to, &o))
            };
            let out = dir.join("out.png");
            let geometry = format!("{tw}x{h}!");
            let magick = |op: Option<&str>| {
                let mut c = Command::new(&im);
                c.env("MAGICK_THREAD_LIMIT", "1").arg(&input);
                if let Some(op) = op {
                    c.args([op, &geometry]);
                }
                c.arg(&out);
                c
            };
            let lqr = command_time(2, || magick(Some("-liquid-rescale")))?;
            // The same carve in this process: no decoding, encoding or
            // process start to subtract.
            let lib = lib
                .as_ref()
                .map(|l| time(2, || l.carve(src.as_slice(), w, h, 3, tw)));
            let im_copy = command_time(3, || magick(None))?;
            let cli = command_time(3, || {
                let mut c = Command::new(&ours_cli);
                c.arg(&input)
                    .args(["--width", &tw.to_string(), "-o"])
                    .arg(&out);
                c
            })?;
            rows.push((
                pic.name.clone(),
                w,
                h,
                ratio,
                mp,
                ours,
                fir,
                lqr,
                im_copy,
                cli,
                lib,
            ));
            bar.inc(1);
        }
    }
    bar.finish_and_clear();
    println!(
        "| image | size | width | ours ms/MP | fast_image_resize (Lanczos3) ms/MP | liquid rescale s | ImageMagick read+write only s | ours, whole command ms | lqr ÷ ours, whole commands | lqr compute ÷ ours compute | liblqr in-process ms/MP | liblqr in-process ÷ ours |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|---|---|");
    let (mut worst_cmd, mut worst_compute, mut worst_msmp) = (f64::MAX, f64::MAX, 0.0f64);
    let mut worst_lib = f64::MAX;
    for (name, w, h, ratio, mp, ours, fir, lqr, copy, cli, lib) in rows {
        let ms = |d: Duration| d.as_secs_f64() * 1e3;
        let cmd_ratio = lqr.as_secs_f64() / cli.as_secs_f64();
        let compute_ratio = (lqr.as_secs_f64() - copy.as_secs_f64()).max(0.0) / ours.as_secs_f64();
        worst_cmd = worst_cmd.min(cmd_ratio);
        worst_compute = worst_compute.min(compute_ratio);
        worst_msmp = worst_msmp.max(ms(ours) / mp);
        let (lib_cell, lib_ratio) = match lib {
            Some(d) => {
                let r = d.as_secs_f64() / ours.as_secs_f64();
                worst_lib = worst_lib.min(r);
                (format!("{:.0}", ms(d) / mp), format!("{r:.0}x"))
            }
            None => ("-".to_owned(), "-".to_owned()),
        };
        println!(
            "| {name} | {w}x{h} | {:.0}% | {:.2} | {:.2} | {:.2} | {:.2} | {:.1} | {:.0}x | {:.0}x | {lib_cell} | {lib_ratio} |",
            ratio * 100.0,
            ms(ours) / mp,
            ms(fir) / mp,
            lqr.as_secs_f64(),
            copy.as_secs_f64(),
            ms(cli),
            cmd_ratio,
            compute_ratio
        );
    }
    println!();
    println!(
        "worst: {worst_msmp:.2} ms/MP (goal <= 10); lqr/ours {worst_cmd:.0}x whole commands, {worst_compute:.0}x compute, {worst_lib:.0}x in-process (goal >= 100x)"
    );
    Ok(())
}

/// Our time split by stage (ms/MP): energy profiles, the plan from them,
/// and the resampling; no peer runs, so it is quick to repeat.
pub fn stages(pictures: &[Picture], runs: usize) -> Result<()> {
    println!("| image | size | width | energy ms/MP | plan ms/MP | resample ms/MP | whole ms/MP |");
    println!("|---|---|---|---|---|---|---|");
    let opts = Options::default();
    let mut total = [0.0f64; 4];
    for pic in pictures {
        let src = &pic.rgb;
        let (w, h) = (src.width(), src.height());
        let mp = f64::from(w) * f64::from(h) / 1e6;
        for ratio in [0.5, 0.75] {
            let tw = ((f64::from(w) * ratio).round() as u32).max(1);
            let profiles = retarget::energy::profiles(src, &opts.energy)?;
            let plan = retarget::plan_from_profiles(&profiles, tw, h, &opts)?;
            let t = [
                time(runs, || retarget::energy::profiles(src, &opts.energy)),
                time(runs, || {
                    retarget::plan_from_profiles(&profiles, tw, h, &opts)
                }),
                time(runs, || retarget::render(src, &plan, tw, h, &opts.limits)),
                time(runs, || retarget::retarget(src, tw, h, &opts)),
            ]
            .map(|d| d.as_secs_f64() * 1e3 / mp);
            for (a, b) in total.iter_mut().zip(t) {
                *a = a.max(b);
            }
            println!(
                "| {} | {w}x{h} | {:.0}% | {:.2} | {:.2} | {:.2} | {:.2} |",
                pic.name,
                ratio * 100.0,
                t[0],
                t[1],
                t[2],
                t[3]
            );
        }
    }
    println!(
        "| worst | | | {:.2} | {:.2} | {:.2} | {:.2} |",
        total[0], total[1], total[2], total[3]
    );
    Ok(())
}

fn tempdir() -> Result<PathBuf> {
    let d = std::env::temp_dir().join(format!("retarget-bench-{}", std::process::id()));
    std::fs::create_dir_all(&d)?;
    Ok(d)
}
