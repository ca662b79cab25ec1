//! Figures measured on a [`Trace`].

use super::inputs::{Input, Trace, hand_path, hand_resting, simulate};
use crate::SignalError;
use crate::error::check_positive;

/// Step-response figures.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StepMetrics {
    /// Time from 10% to 90% of the step, seconds (NaN if never reached).
    pub rise: f64,
    /// Time after which the output stays within 2% of the step, seconds.
    pub settle: f64,
    /// Largest excursion beyond the step, percent of the step (≥ 0).
    pub overshoot_percent: f64,
}

/// The time the output first reaches `level` (linear between samples), from 0 at t = 0.
fn first_crossing(trace: &Trace, level: f64) -> f64 {
    let mut prev = (0.0, 0.0);
    for (&t, &y) in trace.time.iter().zip(&trace.output) {
        if y >= level {
            let (t0, y0) = prev;
            return if y == y0 {
                t
            } else {
                t0 + (t - t0) * (level - y0) / (y - y0)
            };
        }
        prev = (t, y);
    }
    f64::NAN
}

/// Rise, settle and overshoot of a response to a step of height `step` from 0.
pub fn step_metrics(trace: &Trace, step: f64) -> StepMetrics {
    let rise = first_crossing(trace, 0.9 * step) - first_crossing(trace, 0.1 * step);
    let band = 0.02 * step.abs();
    let outside = |y: f64| (y - step).abs() > band;
    let settle = match trace.output.iter().rposition(|&y| outside(y)) {
        None => 0.0,
        Some(i) => match (trace.time.get(i + 1), trace.output.get(i + 1)) {
            // Interpolate the entry into the band between the last sample outside and the next.
            (Some(&t1), Some(&y1)) => {
                let (t0, y0) = (trace.time[i], trace.output[i]);
                let edge = if y0 > step { step + band } else { step - band };
                t0 + (t1 - t0) * ((edge - y0) / (y1 - y0)).clamp(0.0, 1.0)
            }
            _ => f64::NAN,
        },
    };
    let peak = trace
        .output
        .iter()
        .copied()
        .fold(f64::NEG_INFINITY, f64::max);
    let overshoot_percent = (100.0 * (peak - step) / step.abs()).max(0.0);
    StepMetrics {
        rise,
        settle,
        overshoot_percent,
    }
}

/// The steady lag behind a ramp of `slope`, seconds: (input − output)/slope at the end.
pub fn ramp_lag(trace: &Trace, slope: f64) -> f64 {
    match (trace.clean.last(), trace.output.last()) {
        (Some(c), Some(y)) => (c - y) / slope,
        _ => f64::NAN,
    }
}

/// Gain and phase at one frequency.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FrequencyPoint {
    /// Hz.
    pub hz: f64,
    /// Output amplitude over input amplitude.
    pub gain: f64,
    /// Degrees; negative is a lag.
    pub phase_degrees: f64,
}

/// Least-squares fit of `a·sin + b·cos + c` at `hz` to the output over `from..`.
fn fit_sinusoid(trace: &Trace, hz: f64, from: f64) -> (f64, f64) {
    let w = std::f64::consts::TAU * hz;
    // Normal equations for the basis (sin, cos, 1).
    let mut m = [[0.0f64; 3]; 3];
    let mut r = [0.0f64; 3];
    for (&t, &y) in trace.time.iter().zip(&trace.output) {
        if t < from {
            continue;
        }
        let basis = [(w * t).sin(), (w * t).cos(), 1.0];
        for i in 0..3 {
            r[i] += basis[i] * y;
            for j in 0..3 {
                m[i][j] += basis[i] * basis[j];
            }
        }
    }
    let [a, b, _] = solve3(m, r);
    (a, b)
}

/// Solves a 3×3 system by Cramer's rule (well conditioned here: nearly diagonal).
fn solve3(m: [[f64; 3]; 3], r: [f64; 3]) -> [f64; 3] {
    let det = |m: [[f64; 3]; 3]| {
        m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1])
            - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0])
            + m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0])
    };
    let d = det(m);
    let mut out = [0.0; 3];
    for (k, o) in out.iter_mut().enumerate() {
        let mut mk = m;
        for i in 0..3 {
            mk[i][k] = r[i];
        }
        *o = det(mk) / d;
    }
    out
}

/// Gain and phase at each frequency, driving sines at `rate` steps per
/// second long enough to settle, fitting the last whole cycles. Errors as
/// [`simulate`] (a frequency must be finite and positive).
pub fn frequency_response(
    make: super::Factory<'_>,
    freqs: &[f64],
    rate: f64,
) -> Result<Vec<FrequencyPoint>, SignalError> {
    freqs
        .iter()
        .map(|&hz| {
            check_positive("frequency", hz)?;
            let cycles = 4.0;
            let settle = 8.0;
            let duration = settle + cycles / hz;
            let trace = simulate(make, &Input::Sine { hz }, rate, duration, None)?;
            let (a, b) = fit_sinusoid(&trace, hz, settle);
            Ok(FrequencyPoint {
                hz,
                gain: (a * a + b * b).sqrt(),
                phase_degrees: b.atan2(a).to_degrees(),
            })
        })
        .collect()
}

/// On the noisy hand trace and the same run on the clean path: jitter
/// (RMS of noisy − clean output while the hand has rested for 0.5 s: the
/// noise that gets through, apart from any settling) and lag (the delay τ,
/// to 1 ms, that best aligns the noisy run's output with the true path
/// while the hand moves).
pub fn jitter_and_lag(noisy: &Trace, clean: &Trace) -> (f64, f64) {
    let mut sum = 0.0;
    let mut n = 0usize;
    for ((&t, &y), &c) in noisy.time.iter().zip(&noisy.output).zip(&clean.output) {
        if hand_resting(t) {
            sum += (y - c) * (y - c);
            n += 1;
        }
    }
    let jitter = if n == 0 {
        f64::NAN
    } else {
        (sum / n as f64).sqrt()
    };
    let trace = noisy;
    let moving = |t: f64| !hand_resting(t) && t > 0.5;
    let mut best = (f64::INFINITY, 0.0);
    for ms in 0..=500 {
        let tau = ms as f64 / 1000.0;
        let err: f64 = trace
            .time
            .iter()
            .zip(&trace.output)
            .filter(|(t, _)| moving(**t))
            .map(|(&t, &y)| {
                let d = y - hand_path(t - tau);
                d * d
            })
            .sum();
        if err < best.0 {
            best = (err, tau);
        }
    }
    (jitter, best.1)
}
