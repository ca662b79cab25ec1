//! The quality report: for each picture and method, a saliency-weighted
//! local aspect distortion and a colour-histogram distance, plus a contact
//! sheet.
//!
//! Distortion: the source is cut into 8 × 8 blocks; each method's exact
//! forward map says how wide (sx) and tall (sy) each block comes out, and
//! `D = Σ S·|ln(sx/sy)| / Σ S`, with S the block's spectral-residual
//! saliency (an independent judge, not our energy). A block squeezed to
//! nothing counts as 1/64 wide. Uniform scaling scores |ln(ratio)|.
//! Liquid rescale's map comes from liblqr itself, carving an attached
//! layer of source column numbers along the same seams.

use std::path::Path;

use anyhow::Result;
use indicatif::{ProgressBar, ProgressStyle};
use retarget::mesh::{Mesh, default_k};
use retarget::{Mode, Options, Raster};

use crate::Picture;
use crate::lqr::Lqr;
use crate::saliency::{SaliencyMap, spectral_residual};

const BLOCK: u32 = 8;
const MIN_SCALE: f64 = 1.0 / 64.0;

/// Distortion from a per-block width scale (heights are unchanged here).
fn distortion(sal: &SaliencyMap, w: u32, h: u32, scale_x: impl Fn(u32, u32) -> f64) -> f64 {
    let (mut num, mut den) = (0.0, 0.0);
    for by in 0..h / BLOCK {
        for bx in 0..w / BLOCK {
            let s = sal.at(
                (f64::from(bx * BLOCK) + 4.0) / f64::from(w),
                (f64::from(by * BLOCK) + 4.0) / f64::from(h),
            );
            let sx = scale_x(bx, by).max(MIN_SCALE);
            num += s * sx.ln().abs();
            den += s;
        }
    }
    if den > 0.0 { num / den } else { 0.0 }
}

/// Half the L1 distance between 8×8×8-bin colour histograms (0 = same
/// colours in the same proportions, 1 = disjoint).
fn histogram_distance(a: &Raster<u8>, b: &Raster<u8>) -> f64 {
    let hist = |r: &Raster<u8>| {
        let mut h = vec![0.0f64; 512];
        let px = r.as_slice().chunks_exact(3);
        let n = px.len() as f64;
        for p in px {
            h[usize::from(p[0] >> 5) * 64 + usize::from(p[1] >> 5) * 8 + usize::from(p[2] >> 5)] +=
                1.0 / n;
        }
        h
    };
    let (ha, hb) = (hist(a), hist(b));
    0.5 * ha.iter().zip(&hb).map(|(x, y)| (x - y).abs()).sum::<f64>()
}

/// Our options: the defaults, or `RETARGET_STRENGTH` / `RETARGET_FLOOR` /
/// `RETARGET_SALIENCY` from the environment to explore them.
fn ours() -> Options {
    let mut o = Options::default();
    let var = |k: &str| std::env::var(k).ok().and_then(|v| v.parse::<f64>().ok());
    if let Some(v) = var("RETARGET_STRENGTH") {
        o.strength = v;
    }
    if let Some(v) = var("RETARGET_FLOOR") {
        o.energy.floor = v as f32;
    }
    if let Some(v) = var("RETARGET_SALIENCY") {
        o.energy.saliency = v as f32;
    }
    o
}

fn scaled(img: &Raster<u8>, height: u32) -> Result<Raster<u8>> {
    let w = ((f64::from(img.width()) * f64::from(height) / f64::from(img.height())).round() as u32)
        .max(1);
    Ok(retarget::retarget(
        img,
        w,
        height,
        &Options {
            strength: 0.0,
            ..Options::default()
        },
    )?)
}

struct Row {
    name: String,
    ratio: f64,
    /// uniform, liquid rescale, separable, mesh
    d: [f64; 4],
    hist: [f64; 4],
    /// The mesh's top row over its bottom row (the trapezoid).
    trapezoid: f64,
}

pub fn run(pictures: &[Picture], sheet_path: &Path, sheet_height: u32) -> Result<()> {
    let lqr = Lqr::load()?;
    let bar = ProgressBar::new((pictures.len() * 2) as u64).with_style(
        ProgressStyle::with_template("{bar:40} {pos}/{len} {msg}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    let mut rows = Vec::new();
    // How far liblqr called here is from ImageMagick's own command.
    let mut worst_im = 0.0f64;
    let mut sheet_rows: Vec<Vec<Raster<u8>>> = Vec::new();
    for pic in pictures {
        let src = &pic.rgb;
        let (w, h) = (src.width(), src.height());
        let grey: Vec<f64> = src
            .as_slice()
            .chunks_exact(3)
            .map(|p| {
                (0.299 * f64::from(p[0]) + 0.587 * f64::from(p[1]) + 0.114 * f64::from(p[2]))
                    / 255.0
            })
            .collect();
        let sal = spectral_residual(&grey, w as usize, h as usize);
        for ratio in [0.5, 0.75] {
            bar.set_message(format!("{} at {:.0}%", pic.name, ratio * 100.0));
            let tw = ((f64::from(w) * ratio).round() as u32).max(1);
            let g = f64::from(tw) / f64::from(w);
            // Uniform scaling.
            let uniform = retarget::retarget(
                src,
                tw,
                h,
                &Options {
                    strength: 0.0,
                    ..Options::default()
                },
            )?;
            let d_uniform = distortion(&sal, w, h, |_, _| g);
            // Liquid rescale, with its exact map.
            let carved = lqr.carve(src.as_slice(), w, h, 3, tw)?;
            let mut kept = vec![0u32; ((w / BLOCK + 1) * (h / BLOCK + 1)) as usize];
            for y in 0..carved.height {
                for x in 0..carved.width {
                    let sx = u32::from(carved.source_x[(y * carved.width + x) as usize]);
                    kept[((y / BLOCK) * (w / BLOCK + 1) + sx / BLOCK) as usize] += 1;
                }
            }
            let d_lqr = distortion(&sal, w, h, |bx, by| {
                f64::from(kept[(by * (w / BLOCK + 1) + bx) as usize]) / f64::from(BLOCK * BLOCK)
            });
            let lqr_img = Raster::from_vec(carved.width, carved.height, 3, carved.pixels)?;
            if let Some(d) = imagemagick_difference(src, &lqr_img)? {
                worst_im = worst_im.max(d);
            }
            // Ours, separable.
            let opts = ours();
            let plan = retarget::plan(src, tw, h, &opts)?;
            let sep = retarget::render(src, &plan, tw, h, &opts.limits)?;
            let e = plan.x.edges();
            let d_sep = distortion(&sal, w, h, |bx, _| {
                let (x0, x1) = ((bx * BLOCK) as usize, ((bx + 1) * BLOCK) as usize);
                (e[x1] - e[x0]) / f64::from(BLOCK)
            });
            // Ours, the seed's mesh.
            let energy = retarget::energy::energy_map(src, &opts.energy)?;
            let mesh = Mesh::new(&energy, w, h, tw, default_k(w, tw))?;
            let d_mesh = distortion(&sal, w, h, |bx, by| {
                let y = (by * BLOCK + BLOCK / 2) as usize;
                let (x0, x1) = ((bx * BLOCK) as usize, ((bx + 1) * BLOCK) as usize);
                (mesh.project(x1, y).0 - mesh.project(x0, y).0) / f64::from(BLOCK)
            });
            let mesh_img = retarget::retarget(
                src,
                tw,
                h,
                &Options {
                    mode: Mode::Mesh,
                    ..ours()
                },
            )?;
            rows.push(Row {
                name: pic.name.clone(),
                ratio,
                d: [d_uniform, d_lqr, d_sep, d_mesh],
                hist: [
                    histogram_distance(src, &uniform),
                    histogram_distance(src, &lqr_img),
                    histogram_distance(src, &sep),
                    histogram_distance(src, &mesh_img),
                ],
                trapezoid: mesh.edge_width(1) / mesh.edge_width(h as usize),
            });
            if ratio == 0.5 {
                let mut cells = vec![scaled(src, sheet_height)?];
                for img in [&uniform, &lqr_img, &sep, &mesh_img] {
                    cells.push(scaled(img, sheet_height)?);
                }
                sheet_rows.push(cells);
            }
            bar.inc(1);
        }
    }
    bar.finish_and_clear();

    println!("Distortion D (lower is better) and colour-histogram distance H, per method:");
    println!();
    println!(
        "| image | width | D uniform | D liquid rescale | D separable | D mesh | H uniform | H liquid rescale | H separable | H mesh | mesh top ÷ bottom width |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|---|");
    let (mut wins, mut clear_wins) = (0, 0);
    for r in &rows {
        let win = r.d[2] < r.d[0] && r.d[2] < r.d[1];
        wins += usize::from(win);
        // By at least 1%, so a texture where we equal uniform scaling is not
        // counted as a win.
        clear_wins += usize::from(r.d[2] < 0.99 * r.d[0].min(r.d[1]));
        println!(
            "| {} | {:.0}% | {:.3} | {:.3} | {}{:.3}{} | {:.3} | {:.3} | {:.3} | {:.3} | {:.3} | {:.2} |",
            r.name,
            r.ratio * 100.0,
            r.d[0],
            r.d[1],
            if win { "**" } else { "" },
            r.d[2],
            if win { "**" } else { "" },
            r.d[3],
            r.hist[0],
            r.hist[1],
            r.hist[2],
            r.hist[3],
            r.trapezoid
        );
    }
    println!();
    println!(
        "separable beats both uniform scaling and liquid rescale on D in {wins} of {} cases ({:.0}%; goal >= 80%), by at least 1% in {clear_wins} ({:.0}%)",
        rows.len(),
        100.0 * wins as f64 / rows.len() as f64,
        100.0 * clear_wins as f64 / rows.len() as f64
    );
    println!(
        "liblqr as called here against ImageMagick's `-liquid-rescale` output: mean difference at most {worst_im:.3} levels per sample"
    );
    write_sheet(&sheet_rows, sheet_path, sheet_height)?;
    println!(
        "contact sheet: {} (columns: original, uniform, liquid rescale, separable, mesh; 50% width)",
        sheet_path.display()
    );
    Ok(())
}

fn write_sheet(rows: &[Vec<Raster<u8>>], path: &Path, height: u32) -> Result<()> {
    const GAP: u32 = 6;
    let width = rows
        .iter()
        .map(|r| r.iter().map(|c| c.width() + GAP).sum::<u32>() + GAP)
        .max()
        .unwrap_or(1);
    let total_h = rows.len() as u32 * (height + GAP) + GAP;
    let mut data = vec![40u8; (width * total_h * 3) as usize];
    for (ri, row) in rows.iter().enumerate() {
        let mut x0 = GAP;
        let y0 = GAP + ri as u32 * (height + GAP);
        for cell in row {
            for y in 0..cell.height() {
                let dst = (((y0 + y) * width + x0) * 3) as usize;
                data[dst..dst + cell.row(y).len()].copy_from_slice(cell.row(y));
            }
            x0 += cell.width() + GAP;
        }
    }
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let sheet = Raster::from_vec(width, total_h, 3, data)?;
    retarget::io::write(path, &retarget::io::AnyRaster::U8(sheet), None, None)?;
    Ok(())
}

/// Mean absolute difference per sample between liblqr's result and
/// ImageMagick's `-liquid-rescale` on the same input and size (None when
/// ImageMagick is not installed).
fn imagemagick_difference(src: &Raster<u8>, carved: &Raster<u8>) -> Result<Option<f64>> {
    let Ok(im) = crate::speed::imagemagick() else {
        return Ok(None);
    };
    let dir = std::env::temp_dir().join(format!("retarget-quality-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let (input, output) = (dir.join("in.png"), dir.join("out.png"));
    crate::speed::write_png(&input, src)?;
    let status = std::process::Command::new(im)
        .env("MAGICK_THREAD_LIMIT", "1")
        .arg(&input)
        .args([
            "-liquid-rescale",
            &format!("{}x{}!", carved.width(), carved.height()),
        ])
        .arg(&output)
        .status()?;
    if !status.success() {
        anyhow::bail!("ImageMagick's -liquid-rescale failed");
    }
    let pic = retarget::io::read(&output, &retarget::Limits::default())?;
    let theirs = crate::to_rgb(pic)?;
    if (theirs.width(), theirs.height()) != (carved.width(), carved.height()) {
        anyhow::bail!("ImageMagick gave {}x{}", theirs.width(), theirs.height());
    }
    let n = carved.as_slice().len() as f64;
    let sum: f64 = carved
        .as_slice()
        .iter()
        .zip(theirs.as_slice())
        .map(|(a, b)| f64::from(a.abs_diff(*b)))
        .sum();
    Ok(Some(sum / n))
}
