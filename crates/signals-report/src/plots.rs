//! The PNG plots: responses to the standard inputs, frame-rate dependence,
//! game traces, gain and phase, and jitter against lag.

use crate::systems::{self, LerpPerFrame, Make};
use anyhow::{Context, Result, anyhow};
use plotters::coord::Shift;
use plotters::prelude::*;
use signals::analysis::{Input, Trace, hand_figures, simulate};
use signals::{Exponential, Hold, OneEuro, Smoother, SpringDamper};
use std::path::{Path, PathBuf};

pub type Series = (String, Vec<(f64, f64)>);
/// A game-trace panel: title, input, seconds, and the systems drawn.
type TraceCase = (&'static str, Input, f64, Vec<(&'static str, Make)>);
pub type Area<'a> = DrawingArea<BitMapBackend<'a>, Shift>;

const FONT_PATHS: [&str; 2] = [
    "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
    "/usr/share/fonts/TTF/DejaVuSans.ttf",
];

/// Registers the labels' font: `path`, or DejaVu Sans where Debian puts it.
pub fn load_font(path: Option<&Path>) -> Result<()> {
    let candidates: Vec<PathBuf> = match path {
        Some(p) => vec![p.to_path_buf()],
        None => FONT_PATHS.iter().map(PathBuf::from).collect(),
    };
    for p in &candidates {
        if let Ok(bytes) = std::fs::read(p) {
            // plotters keeps fonts for the whole run.
            let bytes: &'static [u8] = Box::leak(bytes.into_boxed_slice());
            plotters::style::register_font("sans-serif", FontStyle::Normal, bytes)
                .map_err(|_| anyhow!("{} is not a TrueType/OpenType font", p.display()))?;
            return Ok(());
        }
    }
    Err(anyhow!(
        "no font for the plot labels: tried {}; install fonts-dejavu-core, pass --font PATH, or use --no-plots",
        candidates
            .iter()
            .map(|p| p.display().to_string())
            .collect::<Vec<_>>()
            .join(", ")
    ))
}

fn by_name(name: &str) -> Result<Make> {
    systems::all()
        .into_iter()
        .find(|(n, _)| *n == name)
        .map(|(_, m)| m)
        .ok_or_else(|| anyhow!("no system named {name}"))
}

fn run(make: &Make, input: &Input, rate: f64, seconds: f64, hitch: Option<f64>) -> Result<Trace> {
    simulate(make.as_ref(), input, rate, seconds, hitch)
        .with_context(|| format!("running {input:?} at {rate} steps/s"))
}

fn output(trace: &Trace) -> Vec<(f64, f64)> {
    trace
        .time
        .iter()
        .copied()
        .zip(trace.output.iter().copied())
        .collect()
}

fn with_origin(start: f64, mut points: Vec<(f64, f64)>) -> Vec<(f64, f64)> {
    points.insert(0, (0.0, start));
    points
}

/// One line chart with a legend.
pub fn chart(
    area: &Area<'_>,
    title: &str,
    x_label: &str,
    y_label: &str,
    series: &[Series],
) -> Result<()> {
    chart_to(area, title, x_label, y_label, series, f64::NEG_INFINITY)
}

/// As [`chart`], with the x axis running on to at least `x_max`: room on
/// the right for the legend where the lines fill the whole height.
pub fn chart_to(
    area: &Area<'_>,
    title: &str,
    x_label: &str,
    y_label: &str,
    series: &[Series],
    x_max: f64,
) -> Result<()> {
    let pts = series.iter().flat_map(|(_, p)| p.iter());
    let (mut x0, mut x1, mut y0, mut y1) = (
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::INFINITY,
        f64::NEG_INFINITY,
    );
    for &(x, y) in pts.filter(|(x, y)| x.is_finite() && y.is_finite()) {
        x0 = x0.min(x);
        x1 = x1.max(x);
        y0 = y0.min(y);
        y1 = y1.max(y);
    }
    x1 = x1.max(x_max);
    let pad = 0.05 * (y1 - y0).max(1e-9);
    let mut c = ChartBuilder::on(area)
        .caption(title, ("sans-serif", 20))
        .margin(8)
        .x_label_area_size(36)
        .y_label_area_size(56)
        .build_cartesian_2d(x0..x1, (y0 - pad)..(y1 + pad))
        .context("building a chart")?;
    c.configure_mesh()
        .x_desc(x_label)
        .y_desc(y_label)
        .label_style(("sans-serif", 13))
        .draw()
        .context("drawing axes")?;
    for (i, (label, points)) in series.iter().enumerate() {
        let color = Palette99::pick(i).mix(0.9);
        c.draw_series(LineSeries::new(
            points.iter().copied(),
            color.stroke_width(2),
        ))
        .context("drawing a line")?
        .label(label.as_str())
        .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 16, y)], color.stroke_width(2)));
    }
    c.configure_series_labels()
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK.mix(0.3))
        .label_font(("sans-serif", 12))
        .position(SeriesLabelPosition::LowerRight)
        .draw()
        .context("drawing the legend")?;
    Ok(())
}

pub fn canvas(path: &Path, size: (u32, u32)) -> Area<'_> {
    let root = BitMapBackend::new(path, size).into_drawing_area();
    // Filling a fresh bitmap cannot fail.
    let _ = root.fill(&WHITE);
    root
}

/// Draws every plot into `out`; returns the files written.
pub fn draw_all(out: &Path) -> Result<Vec<PathBuf>> {
    let files = [
        ("responses.png", responses as fn(&Path) -> Result<()>),
        ("frame_rates.png", frame_rates),
        ("game_traces.png", game_traces),
        ("bode.png", bode),
        ("jitter_lag.png", jitter_lag),
        ("discrete_threshold.png", crate::discrete_plots::threshold),
        ("lock_on.png", crate::discrete_plots::lock_on),
        ("inertial_blend.png", crate::discrete_plots::inertial_blend),
    ];
    let mut written = Vec::new();
    for (name, draw) in files {
        let path = out.join(name);
        tracing::info!(file = %path.display(), "drawing");
        draw(&path).with_context(|| format!("drawing {}", path.display()))?;
        written.push(path);
    }
    Ok(written)
}

const MAIN: [&str; 6] = [
    "exponential, half-life 0.1 s (FOH)",
    "critical spring, smooth time 0.2 s (ZOH)",
    "spring 2 Hz, ζ = 0.4 (FOH)",
    "tracking spring, ω = 10, ζ = 1 (FOH)",
    "1€, min cutoff 1 Hz, β = 1",
    "engine SmoothDamp, smooth time 0.2 s",
];

fn responses(path: &Path) -> Result<()> {
    let root = canvas(path, (1400, 1500));
    let panels = root.split_evenly((3, 2));
    let inputs: [(&str, Input, f64, &str); 5] = [
        (
            "impulse (start displaced by 1, target 0)",
            Input::Impulse,
            1.5,
            "output",
        ),
        ("step 0 → 1", Input::Step, 1.5, "output"),
        (
            "ramp 1 unit/s: input − output",
            Input::Ramp { slope: 1.0 },
            2.0,
            "lag (units)",
        ),
        ("sine 1 Hz", Input::Sine { hz: 1.0 }, 3.0, "output"),
        (
            "sine sweep 0.2 → 6 Hz over 8 s",
            Input::Sweep {
                from_hz: 0.2,
                to_hz: 6.0,
                duration: 8.0,
            },
            8.0,
            "output",
        ),
    ];
    for (panel, (title, input, seconds, y)) in panels.iter().zip(inputs) {
        let mut series = Vec::new();
        for name in MAIN {
            let t = run(&by_name(name)?, &input, 60.0, seconds, None)?;
            let points = match input {
                Input::Ramp { .. } => t
                    .time
                    .iter()
                    .zip(t.clean.iter().zip(&t.output))
                    .map(|(&x, (&c, &o))| (x, c - o))
                    .collect(),
                Input::Impulse => with_origin(1.0, output(&t)),
                _ => with_origin(0.0, output(&t)),
            };
            series.push((name.to_string(), points));
        }
        if matches!(input, Input::Sine { .. } | Input::Sweep { .. }) {
            let t = run(&by_name(MAIN[0])?, &input, 60.0, seconds, None)?;
            series.push((
                "input".into(),
                t.time
                    .iter()
                    .copied()
                    .zip(t.clean.iter().copied())
                    .collect(),
            ));
        }
        chart(
            panel,
            &format!("{title}, 60 steps/s"),
            "seconds",
            y,
            &series,
        )?;
    }
    // The second-order systems' velocity output: a smooth derivative of a step.
    let mut series = Vec::new();
    for name in [
        "critical spring, smooth time 0.2 s (ZOH)",
        "Butterworth low-pass 2 Hz (FOH)",
        "spring 2 Hz, ζ = 0.4 (FOH)",
    ] {
        let t = run(&by_name(name)?, &Input::Step, 60.0, 1.5, None)?;
        series.push((
            name.to_string(),
            with_origin(
                0.0,
                t.time
                    .iter()
                    .copied()
                    .zip(t.velocity.iter().copied())
                    .collect(),
            ),
        ));
    }
    chart(
        &panels[5],
        "velocity output after a step 0 → 1, 60 steps/s",
        "seconds",
        "units per second",
        &series,
    )?;
    root.present().context("writing the PNG")?;
    Ok(())
}

fn frame_rates(path: &Path) -> Result<()> {
    let root = canvas(path, (1400, 520));
    let panels = root.split_evenly((1, 2));
    let make_lerp: Make = Box::new(|| Box::new(LerpPerFrame::new(0.1)));
    let compat = by_name("engine SmoothDamp, smooth time 0.2 s")?;
    let exact = by_name("critical spring, smooth time 0.2 s (ZOH)")?;
    let mut series = Vec::new();
    for (label, make) in [("exact spring", &exact), ("per-frame lerp 0.1", &make_lerp)] {
        for rate in [20.0, 240.0] {
            series.push((
                format!("{label}, {rate} steps/s"),
                with_origin(0.0, output(&run(make, &Input::Step, rate, 1.0, None)?)),
            ));
        }
    }
    chart(
        &panels[0],
        "step 0 → 1: the same spring at 20 and 240 steps/s, and per-frame lerp",
        "seconds",
        "output",
        &series,
    )?;
    let mut series = Vec::new();
    for (label, make) in [("exact spring", &exact), ("engine SmoothDamp", &compat)] {
        series.push((
            format!("{label}, no hitch"),
            with_origin(0.0, output(&run(make, &Input::Step, 60.0, 1.2, None)?)),
        ));
        series.push((
            format!("{label}, 250 ms hitch at 0.1 s"),
            with_origin(0.0, output(&run(make, &Input::Step, 60.0, 1.2, Some(0.1))?)),
        ));
    }
    chart(
        &panels[1],
        "step under a 250 ms hitch (smooth time 0.2 s)",
        "seconds",
        "output",
        &series,
    )?;
    root.present().context("writing the PNG")?;
    Ok(())
}

#[allow(clippy::expect_used)] // Constant settings.
fn game_traces(path: &Path) -> Result<()> {
    let root = canvas(path, (1400, 1000));
    let panels = root.split_evenly((2, 2));
    let exp = Exponential::half_life(0.1).expect("valid");
    let jumpy: Make = Box::new(move || {
        Box::new(
            Smoother::new(exp, 0.0)
                .expect("valid")
                .with_jump_threshold(20.0)
                .expect("valid"),
        )
    });
    let plain = by_name("exponential, half-life 0.1 s (ZOH)")?;
    let cases: [TraceCase; 4] = [
        (
            "teleport to 100 at t = 1 s",
            Input::Teleport,
            2.0,
            vec![
                ("exponential", plain),
                ("exponential + jump threshold 20", jumpy),
            ],
        ),
        (
            "target switch at t = 1 s",
            Input::TargetSwitch,
            3.0,
            vec![
                (
                    "critical spring (ZOH)",
                    by_name("critical spring, smooth time 0.2 s (ZOH)")?,
                ),
                (
                    "tracking spring (FOH)",
                    by_name("tracking spring, ω = 10, ζ = 1 (FOH)")?,
                ),
                (
                    "engine SmoothDamp",
                    by_name("engine SmoothDamp, smooth time 0.2 s")?,
                ),
            ],
        ),
        (
            "bursty server: 20 Hz, 0–80 ms late, 10% lost",
            Input::BurstyServer { seed: 3 },
            4.0,
            vec![
                (
                    "exponential (FOH)",
                    by_name("exponential, half-life 0.1 s (FOH)")?,
                ),
                (
                    "critical spring (FOH)",
                    by_name("critical spring, smooth time 0.2 s (FOH)")?,
                ),
            ],
        ),
        (
            "noisy hand (σ = 0.01)",
            Input::NoisyHand {
                seed: 7,
                sigma: 0.01,
            },
            4.0,
            vec![
                (
                    "exponential (FOH)",
                    by_name("exponential, half-life 0.1 s (FOH)")?,
                ),
                ("1€", by_name("1€, min cutoff 1 Hz, β = 1")?),
            ],
        ),
    ];
    for (panel, (title, input, seconds, systems)) in panels.iter().zip(cases) {
        let mut series = Vec::new();
        let mut raw = None;
        for (label, make) in &systems {
            let t = run(make, &input, 60.0, seconds, None)?;
            raw.get_or_insert_with(|| {
                t.time
                    .iter()
                    .copied()
                    .zip(t.target.iter().copied())
                    .collect::<Vec<_>>()
            });
            series.push((label.to_string(), output(&t)));
        }
        if let Some(raw) = raw {
            series.insert(0, ("input as received".to_string(), raw));
        }
        chart(
            panel,
            &format!("{title}, 60 steps/s"),
            "seconds",
            "value",
            &series,
        )?;
    }
    root.present().context("writing the PNG")?;
    Ok(())
}

fn bode(path: &Path) -> Result<()> {
    let root = canvas(path, (1400, 520));
    let panels = root.split_evenly((1, 2));
    let names = [
        "exponential, half-life 0.1 s (FOH)",
        "critical spring, smooth time 0.2 s (ZOH)",
        "spring 2 Hz, ζ = 0.4 (FOH)",
        "Butterworth low-pass 2 Hz (FOH)",
        "engine SmoothDamp, smooth time 0.2 s",
    ];
    let freqs: Vec<f64> = (0..=24)
        .map(|i| 10f64.powf(-1.0 + i as f64 * 2.0 / 24.0))
        .collect();
    let (mut gains, mut phases) = (Vec::new(), Vec::new());
    for name in names {
        let make = by_name(name)?;
        let points = signals::analysis::frequency_response(make.as_ref(), &freqs, 240.0)?;
        gains.push((
            name.to_string(),
            points
                .iter()
                .map(|p| (p.hz.log10(), 20.0 * p.gain.log10()))
                .collect(),
        ));
        phases.push((
            name.to_string(),
            points
                .iter()
                .map(|p| (p.hz.log10(), p.phase_degrees))
                .collect(),
        ));
    }
    chart(
        &panels[0],
        "gain at 240 steps/s",
        "log10(frequency / Hz)",
        "dB",
        &gains,
    )?;
    chart(
        &panels[1],
        "phase at 240 steps/s",
        "log10(frequency / Hz)",
        "degrees",
        &phases,
    )?;
    root.present().context("writing the PNG")?;
    Ok(())
}

#[allow(clippy::expect_used)] // Constant settings.
fn jitter_lag(path: &Path) -> Result<()> {
    let root = canvas(path, (900, 640));
    let mut series = Vec::new();
    let mut exp_points = Vec::new();
    for hl in [0.005, 0.01, 0.02, 0.04, 0.07, 0.1, 0.15, 0.2, 0.3] {
        let e = Exponential::half_life(hl).expect("valid");
        let make: Make = Box::new(move || {
            Box::new(
                Smoother::new(e, 0.0)
                    .expect("valid")
                    .with_hold(Hold::FirstOrder),
            )
        });
        let (j, l) = hand_figures(make.as_ref(), 60.0)?;
        exp_points.push((1000.0 * l, 1000.0 * j));
    }
    series.push(("exponential, half-life 5–300 ms".to_string(), exp_points));
    let mut crit_points = Vec::new();
    for st in [0.01, 0.02, 0.05, 0.1, 0.2, 0.3, 0.5] {
        let s = SpringDamper::critical(st).expect("valid");
        let make: Make = Box::new(move || {
            Box::new(
                Smoother::new(s, 0.0)
                    .expect("valid")
                    .with_hold(Hold::FirstOrder),
            )
        });
        let (j, l) = hand_figures(make.as_ref(), 60.0)?;
        crit_points.push((1000.0 * l, 1000.0 * j));
    }
    series.push((
        "critical spring, smooth time 10–500 ms".to_string(),
        crit_points,
    ));
    for min_cutoff in [0.3, 1.0] {
        let mut points = Vec::new();
        for beta in [0.0, 0.3, 1.0, 3.0, 10.0, 30.0] {
            let make: Make =
                Box::new(move || Box::new(OneEuro::new(min_cutoff, beta, 1.0).expect("valid")));
            let (j, l) = hand_figures(make.as_ref(), 60.0)?;
            points.push((1000.0 * l, 1000.0 * j));
        }
        series.push((format!("1€, min cutoff {min_cutoff} Hz, β 0–30"), points));
    }
    chart(
        &root,
        "noisy hand: jitter at rest against lag in motion (lower left is better)",
        "lag while moving (ms)",
        "noise passed at rest (RMS, thousandths; input 10)",
        &series,
    )?;
    root.present().context("writing the PNG")?;
    Ok(())
}
