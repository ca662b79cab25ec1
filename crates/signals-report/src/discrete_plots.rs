//! The discrete systems' plots: a noisy trigger with the hysteresis band and
//! the button it becomes, a lock-on timeline with both scores, and the
//! blended output across a warp with its velocity.

use crate::plots::{Series, canvas, chart, chart_to};
use anyhow::{Context, Result};
use signals::analysis::{Frames, crossing_scores, noisy_ramp, run_frames};
use signals::{Discrete, Dwell, Hysteresis, Inertialiser, Smoother, SpringDamper, System};
use std::path::Path;

/// A bool as a lane: `base` when off, `base + 0.15` when on.
fn lane(points: &[(f64, bool)], base: f64) -> Vec<(f64, f64)> {
    points
        .iter()
        .map(|&(t, on)| (t, base + if on { 0.15 } else { 0.0 }))
        .collect()
}

/// A small deterministic generator for the plots' noise.
fn noise_source(mut state: u64) -> impl FnMut() -> f64 {
    move || {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (state >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// The trigger: noisy ramp, the band, and the buttons.
pub fn threshold(path: &Path) -> Result<()> {
    let root = canvas(path, (1400, 600));
    let times = Frames::Fixed(60.0).times(10.0);
    let noise = 0.05;
    let mut rng = noise_source(7);
    let inputs: Vec<f64> = times
        .iter()
        .map(|&t| noisy_ramp(t, noise, &mut rng))
        .collect();
    let mut naive = Hysteresis::naive(0.5)?;
    let mut unity = Hysteresis::unity();
    let mut wide = Hysteresis::new(0.6, 0.4)?;
    let naive_out = run_frames(&mut naive, &times, |i, _| inputs[i])?;
    let unity_out = run_frames(&mut unity, &times, |i, _| inputs[i])?;
    let wide_out = run_frames(&mut wide, &times, |i, _| inputs[i])?;
    let flat = |y: f64| vec![(0.0, y), (10.0, y)];
    let series: Vec<Series> = vec![
        (
            "trigger, noise ±0.05 at 60 Hz".into(),
            times.iter().copied().zip(inputs.iter().copied()).collect(),
        ),
        ("press 0.6".into(), flat(0.6)),
        ("release 0.4".into(), flat(0.4)),
        ("naive 0.5 (lane)".into(), lane(&naive_out, -0.3)),
        ("Unity 0.5 / 0.375 (lane)".into(), lane(&unity_out, -0.55)),
        ("hysteresis 0.6 / 0.4 (lane)".into(), lane(&wide_out, -0.8)),
    ];
    chart_to(
        &root,
        "an analog trigger as a button: the input, the band, and each rule's button (lanes below, up = pressed)",
        "seconds",
        "input / button",
        &series,
        12.6,
    )?;
    root.present().context("writing the PNG")?;
    Ok(())
}

/// Lock-on: both scores with noise, and each rule's choice.
pub fn lock_on(path: &Path) -> Result<()> {
    let root = canvas(path, (1400, 600));
    let times = Frames::Fixed(60.0).times(20.0);
    let mut rng = noise_source(17);
    let scores: Vec<[f64; 2]> = times
        .iter()
        .map(|&t| crossing_scores(t, 0.15, &mut rng))
        .collect();
    let mut series: Vec<Series> = vec![
        (
            "target A's score".into(),
            times.iter().zip(&scores).map(|(&t, s)| (t, s[0])).collect(),
        ),
        (
            "target B's score".into(),
            times.iter().zip(&scores).map(|(&t, s)| (t, s[1])).collect(),
        ),
    ];
    for (label, margin, dwell, base) in [
        ("best score every frame (lane: up = B)", 0.0, 0.0, -0.2),
        ("margin 0.1 (lane)", 0.1, 0.0, -0.45),
        ("margin 0.05 + dwell 0.25 s (lane)", 0.05, 0.25, -0.7),
    ] {
        let mut d = Dwell::new(margin, dwell)?;
        let mut last = 0.0;
        let mut points = Vec::new();
        for (&t, s) in times.iter().zip(&scores) {
            let chosen = d.update(t - last, &s[..])?;
            points.push((t, chosen == Some(1)));
            last = t;
        }
        series.push((label.into(), lane(&points, base)));
    }
    chart_to(
        &root,
        "lock-on: two targets' scores crossing every 4 s with noise ±0.15, and each rule's choice",
        "seconds",
        "score / choice",
        &series,
        25.0,
    )?;
    root.present().context("writing the PNG")?;
    Ok(())
}

/// The blend across a warp: position and velocity.
pub fn inertial_blend(path: &Path) -> Result<()> {
    let root = canvas(path, (1400, 520));
    let panels = root.split_evenly((1, 2));
    let rate = 60.0;
    let input = |t: f64| 2.0 * t + if t >= 1.0 { -3.0 } else { 0.0 };
    let mut blend =
        Inertialiser::new(SpringDamper::critical(0.25)?, 0.0f64)?.with_jump_threshold(1.0)?;
    let mut spring = Smoother::new(SpringDamper::critical(0.25)?, 0.0f64)?;
    let (mut raw, mut out, mut smooth) = (Vec::new(), Vec::new(), Vec::new());
    let (mut raw_v, mut out_v, mut smooth_v) = (Vec::new(), Vec::new(), Vec::new());
    let mut last_raw = 0.0;
    for k in 1..=(2.5 * rate) as usize {
        let t = k as f64 / rate;
        let x = input(t);
        let y = blend.update(1.0 / rate, x)?;
        let z = spring.update(1.0 / rate, x)?;
        raw.push((t, x));
        out.push((t, y));
        smooth.push((t, z));
        raw_v.push((t, (x - last_raw) * rate));
        out_v.push((t, blend.velocity()));
        smooth_v.push((t, spring.velocity()));
        last_raw = x;
    }
    chart(
        &panels[0],
        "a target moving at 2 units/s warps back 3 units at 1 s",
        "seconds",
        "position",
        &[
            ("input".into(), raw),
            ("inertialiser, critical spring 0.25 s".into(), out),
            (
                "critical spring smoother 0.25 s (lags while moving)".into(),
                smooth,
            ),
        ],
    )?;
    chart(
        &panels[1],
        "velocity: continuous across the warp, the same curve as the smoother's",
        "seconds",
        "units per second",
        &[
            (
                "input (differenced; the warp is off the chart)".into(),
                raw_v
                    .into_iter()
                    .map(|(t, v)| (t, v.clamp(-12.0, 12.0)))
                    .collect(),
            ),
            (
                "inertialiser (the smoother's transient, without its lag)".into(),
                out_v,
            ),
            ("smoother (drawn over it)".into(), smooth_v),
        ],
    )?;
    root.present().context("writing the PNG")?;
    Ok(())
}
