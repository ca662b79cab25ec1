//! `retarget-bench`: retarget against ImageMagick's liquid rescale (seam
//! carving through liblqr) and uniform resizing (fast_image_resize), on the
//! same images, in one run.
//!
//! - `speed`: ms per megapixel, single thread, at 50% and 75% width.
//! - `stages`: our own time split into energy, plan and resampling.
//! - `quality`: a saliency-weighted local aspect distortion score and a
//!   colour-histogram distance per method, and a contact sheet PNG.
//! - `memory`: the command's peak memory per mode, in bytes per pixel,
//!   beside the estimate it checks before reading an image.

mod lqr;
mod memory;
mod quality;
mod saliency;
mod speed;

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use clap::{Parser, Subcommand};
use retarget::Raster;

#[derive(Parser)]
#[command(about = "retarget side by side with liquid rescale and uniform resizing")]
struct Args {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Times every method at 50% and 75% width.
    Speed {
        #[command(flatten)]
        images: ImageArgs,
        /// Timed runs of each library call (the fastest is kept).
        #[arg(long, default_value_t = 15)]
        runs: usize,
        /// The best code ours may use: how an older CPU fares.
        #[arg(long, value_enum, default_value_t = KernelCap::Best)]
        kernel: KernelCap,
    },
    /// Where our time goes: energy, plan and resampling, each alone.
    Stages {
        #[command(flatten)]
        images: ImageArgs,
        /// Timed runs of each stage (the fastest is kept).
        #[arg(long, default_value_t = 15)]
        runs: usize,
        /// The best code ours may use: how an older CPU fares.
        #[arg(long, value_enum, default_value_t = KernelCap::Best)]
        kernel: KernelCap,
    },
    /// The `retarget` command's peak memory per mode (bytes per source
    /// pixel) beside its estimate, on generated 8- and 16-bit images.
    Memory {
        /// The images' side in pixels.
        #[arg(long, default_value_t = 4096)]
        side: u32,
        /// Where the generated images go.
        #[arg(long, default_value = "target/retarget-report/memory")]
        dir: PathBuf,
    },
    /// Writes `memory`'s test images (run by `memory` as a child process).
    #[command(hide = true)]
    MemoryImages {
        #[arg(long)]
        side: u32,
        #[arg(long)]
        dir: PathBuf,
    },
    /// Scores every method and draws the contact sheet.
    Quality {
        #[command(flatten)]
        images: ImageArgs,
        /// Where the contact sheet goes.
        #[arg(long, default_value = "target/retarget-report/contact-sheet.png")]
        sheet: PathBuf,
        /// Row height of the contact sheet.
        #[arg(long, default_value_t = 150)]
        sheet_height: u32,
    },
}

#[derive(clap::Args)]
struct ImageArgs {
    /// The folder of scikit-image's data images (PyPI `scikit-image`,
    /// public domain / CC0); default: asked of python3.
    #[arg(long)]
    images: Option<PathBuf>,
    /// Only the first N images (the generated probes always run).
    #[arg(long)]
    limit: Option<usize>,
}

/// The scikit-image pictures used (the ones whose licences its README gives
/// as public domain or CC0), then two generated probes.
const PHOTOS: &[&str] = &[
    "astronaut.png",
    "camera.png",
    "chelsea.png",
    "coffee.png",
    "rocket.jpg",
    "hubble_deep_field.jpg",
    "retina.jpg",
    "coins.png",
    "page.png",
    "brick.png",
    "grass.png",
    "gravel.png",
];

/// A test picture: its name and RGB pixels.
pub struct Picture {
    /// File or probe name.
    pub name: String,
    /// 8-bit RGB.
    pub rgb: Raster<u8>,
}

fn skimage_dir() -> Result<PathBuf> {
    let venv = Path::new("target/retarget-venv/bin/python3");
    let python = if venv.exists() {
        venv.as_os_str().to_owned()
    } else {
        "python3".into()
    };
    let out = std::process::Command::new(python)
        .args([
            "-c",
            "import skimage, os; print(os.path.join(os.path.dirname(skimage.__file__), 'data'))",
        ])
        .output()
        .context("running python3 to find scikit-image")?;
    if !out.status.success() {
        bail!("scikit-image is not installed: `pip install scikit-image`, or pass --images DIR");
    }
    Ok(PathBuf::from(String::from_utf8_lossy(&out.stdout).trim()))
}

pub(crate) fn to_rgb(pic: retarget::io::Picture) -> Result<Raster<u8>> {
    let (w, h) = (pic.raster.width(), pic.raster.height());
    let (samples, c): (Vec<u8>, u8) = match pic.raster {
        retarget::io::AnyRaster::U8(r) => (r.as_slice().to_vec(), r.channels()),
        retarget::io::AnyRaster::U16(r) => (
            r.as_slice().iter().map(|&v| (v >> 8) as u8).collect(),
            r.channels(),
        ),
    };
    let rgb = samples
        .chunks_exact(usize::from(c))
        .flat_map(|p| match c {
            1 | 2 => [p[0], p[0], p[0]],
            _ => [p[0], p[1], p[2]],
        })
        .collect();
    Ok(Raster::from_vec(w, h, 3, rgb)?)
}

fn load(args: &ImageArgs) -> Result<Vec<Picture>> {
    let dir = match &args.images {
        Some(d) => d.clone(),
        None => skimage_dir()?,
    };
    let mut out = Vec::new();
    for name in PHOTOS.iter().take(args.limit.unwrap_or(usize::MAX)) {
        let path = dir.join(name);
        let pic = retarget::io::read(&path, &retarget::Limits::default())
            .with_context(|| format!("reading {}", path.display()))?;
        out.push(Picture {
            name: (*name).to_owned(),
            rgb: to_rgb(pic)?,
        });
    }
    out.push(Picture {
        name: "probe: disc on ramp".into(),
        rgb: probe_disc(640, 400),
    });
    out.push(Picture {
        name: "probe: line grid".into(),
        rgb: probe_grid(640, 400),
    });
    Ok(out)
}

fn probe_disc(w: u32, h: u32) -> Raster<u8> {
    let mut data = Vec::with_capacity((w * h * 3) as usize);
    for y in 0..h {
        for x in 0..w {
            let (dx, dy) = (
                f64::from(x) - f64::from(w) * 0.4,
                f64::from(y) - f64::from(h) * 0.5,
            );
            let ramp = (90.0 + 80.0 * f64::from(x) / f64::from(w)) as u8;
            if (dx * dx + dy * dy).sqrt() < f64::from(h) * 0.25 {
                data.extend_from_slice(&[200, 50, 40]);
            } else {
                data.extend_from_slice(&[ramp, ramp, ramp.saturating_add(20)]);
            }
        }
    }
    Raster::from_vec(w, h, 3, data).unwrap_or_else(|_| unreachable!("sized above"))
}

fn probe_grid(w: u32, h: u32) -> Raster<u8> {
    let mut data = Vec::with_capacity((w * h * 3) as usize);
    for y in 0..h {
        for x in 0..w {
            let line = x % 40 == 0 || y % 40 == 0;
            let blob =
                ((f64::from(x) - 480.0).powi(2) + (f64::from(y) - 200.0).powi(2)).sqrt() < 70.0;
            let v = if line {
                20
            } else if blob {
                160
            } else {
                235
            };
            data.extend_from_slice(&[v, v, if blob { 40 } else { v }]);
        }
    }
    Raster::from_vec(w, h, 3, data).unwrap_or_else(|_| unreachable!("sized above"))
}

fn main() -> Result<()> {
    match Args::parse().command {
        Command::Memory { side, dir } => memory::run(side, &dir),
        Command::MemoryImages { side, dir } => memory::write_images(side, &dir),
        Command::Speed {
            images,
            runs,
            kernel,
        } => {
            retarget::resample::cap_kernels(kernel.into());
            speed::run(&load(&images)?, runs)
        }
        Command::Stages {
            images,
            runs,
            kernel,
        } => {
            retarget::resample::cap_kernels(kernel.into());
            speed::stages(&load(&images)?, runs)
        }
        Command::Quality {
            images,
            sheet,
            sheet_height,
        } => quality::run(&load(&images)?, &sheet, sheet_height),
    }
}

/// The best code ours may pick (`--kernel`).
#[derive(Clone, Copy, Debug, clap::ValueEnum)]
enum KernelCap {
    /// Whatever this CPU has (AVX-512 VBMI, AVX2, SSSE3).
    Best,
    /// AVX2 at most: resampling's AVX2 kernel, energy's AVX2 build.
    Avx2,
    /// SSSE3 at most, energy portable.
    Ssse3,
    /// Scalar resampling, energy portable.
    Scalar,
}

impl From<KernelCap> for retarget::resample::Kernel {
    fn from(k: KernelCap) -> Self {
        match k {
            KernelCap::Best => Self::Best,
            KernelCap::Avx2 => Self::Avx2,
            KernelCap::Ssse3 => Self::Ssse3,
            KernelCap::Scalar => Self::Scalar,
        }
    }
}
