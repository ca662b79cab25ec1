//! `retarget IN… --width W [--height H] -o OUT`: content-aware resizing
//! from the command line, one image or many (then `OUT` is a folder, and
//! `--gpu` starts the device once for all of them). All the work is in
//! the library; this file reads the arguments and the files.

use std::path::PathBuf;
use std::time::Instant;

use anyhow::{Context, Result, bail};
use clap::{Parser, ValueEnum};
use retarget::io::{self, AnyRaster};
use retarget::{EnergyOptions, Limits, Mode, Options, Raster, Sample};

#[derive(Parser, Debug)]
#[command(version, about = "Content-aware image resizing by accumulated energy")]
struct Args {
    /// The images to resize (PNG, JPEG, GIF, TIFF, WebP, BMP).
    #[arg(required = true)]
    inputs: Vec<PathBuf>,
    /// Target width in pixels, or a percentage of the source ("50%").
    #[arg(long, short = 'W')]
    width: Option<String>,
    /// Target height in pixels, or a percentage ("75%"). Default: unchanged.
    #[arg(long, short = 'H')]
    height: Option<String>,
    /// Where to write the result, the format following the extension; with
    /// several inputs, a folder (made if missing) that gets each under its
    /// own name.
    #[arg(long, short = 'o')]
    output: PathBuf,
    /// Resize a truncated JPEG anyway (its missing part grey), with a
    /// warning and exit code 2, instead of refusing it.
    #[arg(long)]
    partial: bool,
    /// Replace outputs that exist already (never an input: writing over
    /// one is always refused).
    #[arg(long)]
    force: bool,
    /// The method.
    #[arg(long, value_enum, default_value_t = ModeArg::Separable)]
    mode: ModeArg,
    /// An image the source's size: white (or opaque) pixels are kept at full
    /// size while the target allows.
    #[arg(long)]
    protect: Option<PathBuf>,
    /// An image the source's size: white (or opaque) pixels go first when
    /// shrinking.
    #[arg(long)]
    remove: Option<PathBuf>,
    /// Separable mode: share of the allowed content-awareness, 0 (uniform
    /// scaling) to 1.
    #[arg(long, default_value_t = 1.0)]
    strength: f64,
    /// Weight of saliency against gradient in the energy.
    #[arg(long, default_value_t = EnergyOptions::default().saliency)]
    saliency: f32,
    /// Share of width given regardless of energy, 0 to 1.
    #[arg(long, default_value_t = EnergyOptions::default().floor)]
    floor: f32,
    /// Mesh and parallax modes: the mesh's height over its width (default:
    /// picked from the target).
    #[arg(long)]
    k: Option<f64>,
    /// Run the per-pixel work on the GPU (separable mode, 8-bit images); a
    /// hardware GPU only, since a software one is slower than the CPU path.
    #[arg(long)]
    gpu: bool,
    /// With --gpu: any adapter, software renderers too (for measuring).
    #[arg(long, requires = "gpu")]
    any_adapter: bool,
    /// Largest side accepted, for input and output.
    #[arg(long, default_value_t = Limits::default().max_side)]
    max_side: u32,
    /// Most pixels accepted, for input and output.
    #[arg(long, default_value_t = Limits::default().max_pixels)]
    max_pixels: u64,
    /// Most memory the resize may take ("800M", "6G", or bytes); checked
    /// from the header before the image is read. Default: three quarters of
    /// the memory available.
    #[arg(long, value_name = "SIZE")]
    max_memory: Option<String>,
}

/// "800M", "6G", "1.5G", "123456" as bytes.
fn parse_bytes(text: &str) -> Result<u64> {
    let t = text.trim();
    let (number, unit) = match t.char_indices().find(|(_, c)| c.is_ascii_alphabetic()) {
        Some((i, _)) => (&t[..i], t[i..].trim()),
        None => (t, ""),
    };
    let n: f64 = number
        .trim()
        .parse()
        .with_context(|| format!("--max-memory {text:?}: not a size"))?;
    let scale: u64 = match unit.to_ascii_uppercase().trim_end_matches(['B', 'I']) {
        "" => 1,
        "K" => 1 << 10,
        "M" => 1 << 20,
        "G" => 1 << 30,
        "T" => 1 << 40,
        _ => bail!("--max-memory {text:?}: the unit must be K, M, G or T"),
    };
    if !(n.is_finite() && n > 0.0) {
        bail!("--max-memory {text:?}: the size must be above 0");
    }
    Ok((n * scale as f64) as u64)
}

/// Bytes as people read them: "3.2 GB", "850 MB".
fn human(bytes: u64) -> String {
    let b = bytes as f64;
    if b >= 1e9 {
        format!("{:.1} GB", b / 1e9)
    } else {
        format!("{:.0} MB", (b / 1e6).max(1.0))
    }
}

#[derive(Copy, Clone, Debug, ValueEnum)]
enum ModeArg {
    Separable,
    Mesh,
    Parallax,
}

/// "640" or "50%" of `source`.
fn parse_size(text: &str, source: u32, what: &str) -> Result<u32> {
    let t = text.trim();
    let value = if let Some(p) = t.strip_suffix('%') {
        let pct: f64 = p
            .trim()
            .parse()
            .with_context(|| format!("--{what} {text:?}: not a percentage"))?;
        if !(pct.is_finite() && pct > 0.0) {
            bail!("--{what} {text:?}: the percentage must be above 0");
        }
        (f64::from(source) * pct / 100.0).round().max(1.0)
    } else {
        let px: u64 = t
            .parse()
            .with_context(|| format!("--{what} {text:?}: not a whole number of pixels"))?;
        px as f64
    };
    if value < 1.0 {
        bail!("--{what} {text:?}: the target must be at least 1 pixel");
    }
    if value > f64::from(u32::MAX) {
        bail!("--{what} {text:?}: too large");
    }
    Ok(value as u32)
}

/// Whether `XDG_RUNTIME_DIR` names a folder, as libwayland wants.
fn valid_runtime_dir() -> bool {
    std::env::var_os("XDG_RUNTIME_DIR")
        .map(PathBuf::from)
        .is_some_and(|p| p.is_absolute() && p.is_dir())
}

fn run<S: Sample>(src: &Raster<S>, w: u32, h: u32, opts: &Options) -> Result<Raster<S>> {
    Ok(retarget::retarget(src, w, h, opts)?)
}

fn main() -> std::process::ExitCode {
    tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::from_default_env())
        .with_writer(std::io::stderr)
        .init();
    let args = Args::parse();
    match run_all(&args) {
        Ok(Outcome {
            failed: 0,
            partial: 0,
        }) => std::process::ExitCode::SUCCESS,
        Ok(Outcome { failed: 0, partial }) => {
            eprintln!(
                "retarget: {partial} of {} images were truncated and written as far as they go",
                args.inputs.len()
            );
            std::process::ExitCode::from(2)
        }
        Ok(Outcome { failed, .. }) => {
            eprintln!("retarget: {failed} of {} images failed", args.inputs.len());
            std::process::ExitCode::from(1)
        }
        Err(e) => {
            eprintln!("retarget: {}", message(&e));
            std::process::ExitCode::from(2)
        }
    }
}

/// An error and its causes, each said once: the image crate's errors, and
/// ours that name their cause, carry their source's text already.
fn message(e: &anyhow::Error) -> String {
    let mut text = e.to_string();
    for cause in e.chain().skip(1) {
        let said = cause.to_string();
        if !text.contains(&said) {
            text.push_str(": ");
            text.push_str(&said);
        }
    }
    text
}

/// How a run went, image by image.
struct Outcome {
    /// Images that failed (each reported; the others went on).
    failed: usize,
    /// Truncated images written as far as they go (`--partial`).
    partial: usize,
}

/// Resizes every input.
fn run_all(args: &Args) -> Result<Outcome> {
    if args.gpu && !valid_runtime_dir() && std::env::var_os("NODEVICE_SELECT").is_none() {
        // Mesa's device-select Vulkan layer asks Wayland for the display's
        // GPU, and libwayland prints "XDG_RUNTIME_DIR is invalid" twice
        // where there is no session (ssh, cron, CI). There is no display
        // to choose by, so the layer is told to stay out.
        // SAFETY: no other thread exists yet to read the environment.
        unsafe { std::env::set_var("NODEVICE_SELECT", "1") };
    }
    if args.width.is_none() && args.height.is_none() {
        bail!("give --width, --height or both");
    }
    // Options first, then the files.
    args.max_memory.as_deref().map(parse_bytes).transpose()?;
    let batch = args.inputs.len() > 1;
    // Every output is checked against every input before any work.
    let outputs = io::output_plan(&args.inputs, &args.output, batch, args.force)?;
    if batch {
        std::fs::create_dir_all(&args.output)
            .with_context(|| format!("making the output folder {}", args.output.display()))?;
    }
    // The device starts once, when the first 8-bit image needs it.
    let mut gpu: Option<Option<retarget::gpu::Gpu>> = None;
    // In a batch the first 8-bit image is resized both ways and the rest
    // go the faster way: the GPU only where it wins on this machine.
    let mut gpu_wins: Option<bool> = if batch { None } else { Some(true) };
    let mut outcome = Outcome {
        failed: 0,
        partial: 0,
    };
    for (input, output) in args.inputs.iter().zip(&outputs) {
        match resize_one(args, input, output, &mut gpu, &mut gpu_wins) {
            Ok(Whole::Yes) => {}
            Ok(Whole::Truncated) => outcome.partial += 1,
            Err(e) => {
                // Most errors name their file already; the rest get it here,
                // once.
                let text = message(&e);
                let name = input.display().to_string();
                if text.starts_with(&name) {
                    eprintln!("retarget: {text}");
                } else {
                    eprintln!("retarget: {name}: {text}");
                }
                outcome.failed += 1;
            }
        }
    }
    Ok(outcome)
}

/// Whether an image was whole.
enum Whole {
    Yes,
    /// A truncated file, resized as far as it goes (`--partial`).
    Truncated,
}

fn resize_one(
    args: &Args,
    input: &std::path::Path,
    output: &std::path::Path,
    gpu_slot: &mut Option<Option<retarget::gpu::Gpu>>,
    gpu_wins: &mut Option<bool>,
) -> Result<Whole> {
    let limits = Limits {
        max_side: args.max_side,
        max_pixels: args.max_pixels,
    };
    let t0 = Instant::now();
    // The memory the resize will take, judged from the header alone.
    let head = io::header(input, &limits)?;
    let (sw, sh) = (head.width, head.height);
    let w = args
        .width
        .as_deref()
        .map_or(Ok(sw), |t| parse_size(t, sw, "width"))?;
    let h = args
        .height
        .as_deref()
        .map_or(Ok(sh), |t| parse_size(t, sh, "height"))?;
    let mode = match args.mode {
        ModeArg::Separable => Mode::Separable,
        ModeArg::Mesh => Mode::Mesh,
        ModeArg::Parallax => Mode::Parallax,
    };
    let (allowed, whose) = match &args.max_memory {
        Some(t) => (parse_bytes(t)?, "--max-memory"),
        None => (
            retarget::default_memory_limit(),
            "three quarters of the memory available",
        ),
    };
    let need = retarget::peak_memory(mode, (sw, sh), head.channels, head.bytes_per_sample, (w, h));
    if need > allowed {
        bail!(
            "{}: {sw} × {sh}, {} channel{} of {} bits, would take about {} to resize to {w} × {h} \
             in the {} mode, more than the {} allowed ({whose}); pass --max-memory, or shrink it first",
            input.display(),
            head.channels,
            if head.channels == 1 { "" } else { "s" },
            8 * head.bytes_per_sample,
            human(need),
            mode.name(),
            human(allowed),
        );
    }
    let pic = io::read_with(input, &limits, args.partial)?;
    if let Some(detail) = &pic.truncated {
        eprintln!(
            "retarget: warning: {}: the file ends before its image does ({detail}); \
             the missing part is grey (--partial)",
            input.display()
        );
    }
    if (pic.raster.width(), pic.raster.height()) != (sw, sh) {
        bail!(
            "{}: the header said {sw} × {sh}, the pixels are {} × {}",
            input.display(),
            pic.raster.width(),
            pic.raster.height()
        );
    }
    let opts = Options {
        mode,
        energy: EnergyOptions {
            saliency: args.saliency,
            floor: args.floor,
        },
        strength: args.strength,
        k: args.k,
        protect: args
            .protect
            .as_deref()
            .map(|p| io::read_mask(p, &limits))
            .transpose()?,
        remove: args
            .remove
            .as_deref()
            .map(|p| io::read_mask(p, &limits))
            .transpose()?,
        limits,
    };
    let t1 = Instant::now();
    if args.gpu && opts.mode != Mode::Separable {
        bail!(
            "--gpu runs the separable mode only (asked for {})",
            opts.mode.name()
        );
    }
    // A software renderer (llvmpipe, lavapipe) is no GPU: the CPU path is
    // faster than it. Either way, say so.
    let gpu = match &pic.raster {
        AnyRaster::U8(_) if args.gpu => gpu_slot
            .get_or_insert_with(|| {
                let started = Instant::now();
                let device = if args.any_adapter {
                    retarget::gpu::Gpu::new()
                } else {
                    retarget::gpu::Gpu::hardware()
                };
                match device {
                    Ok(g) => {
                        tracing::info!(
                            start_ms = started.elapsed().as_secs_f64() * 1e3,
                            "GPU started: {}",
                            g.adapter()
                        );
                        Some(g)
                    }
                    Err(e) => {
                        eprintln!("retarget: {e}; resizing on the CPU instead");
                        None
                    }
                }
            })
            .as_ref(),
        AnyRaster::U16(_) if args.gpu => {
            eprintln!(
                "retarget: --gpu takes 8-bit images and this one is 16-bit; resizing on the CPU"
            );
            None
        }
        _ => None,
    };
    let gpu = gpu.filter(|_| *gpu_wins != Some(false));
    let out = match (&pic.raster, &gpu) {
        (AnyRaster::U8(r), Some(gpu)) => {
            let started = Instant::now();
            let (out, t) = gpu.retarget_timed(r, w, h, &opts)?;
            if gpu_wins.is_none() {
                let on_gpu = started.elapsed();
                let started = Instant::now();
                run(r, w, h, &opts)?;
                let on_cpu = started.elapsed();
                let wins = on_gpu < on_cpu;
                eprintln!(
                    "retarget: {} took {:.1} ms on the GPU and {:.1} ms on the CPU: the rest on the {}",
                    input.display(),
                    on_gpu.as_secs_f64() * 1e3,
                    on_cpu.as_secs_f64() * 1e3,
                    if wins { "GPU" } else { "CPU" }
                );
                *gpu_wins = Some(wins);
            }
            tracing::info!(
                plan_ms = t.plan * 1e3,
                upload_ms = t.upload * 1e3,
                passes_ms = t.passes * 1e3,
                read_back_ms = t.read_back * 1e3,
                "GPU: {}",
                gpu.adapter()
            );
            AnyRaster::U8(out)
        }
        (AnyRaster::U8(r), None) => AnyRaster::U8(run(r, w, h, &opts)?),
        (AnyRaster::U16(r), _) => AnyRaster::U16(run(r, w, h, &opts)?),
    };
    let t2 = Instant::now();
    if args.force {
        io::write(output, &out, pic.icc.as_deref(), pic.exif.as_deref())?;
    } else {
        io::write_new(output, &out, pic.icc.as_deref(), pic.exif.as_deref())?;
    }
    tracing::info!(
        read_ms = (t1 - t0).as_secs_f64() * 1e3,
        resize_ms = (t2 - t1).as_secs_f64() * 1e3,
        write_ms = t2.elapsed().as_secs_f64() * 1e3,
        "{}x{} -> {}x{} ({})",
        sw,
        sh,
        w,
        h,
        opts.mode.name()
    );
    Ok(if pic.truncated.is_some() {
        Whole::Truncated
    } else {
        Whole::Yes
    })
}
