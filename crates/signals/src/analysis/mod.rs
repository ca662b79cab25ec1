//! The analysis: drive a system with standard inputs and game traces at a
//! given frame rate, and measure how it responds.
//!
//! A system is understood by its response to an impulse, a step, a ramp
//! and a sinusoid ([`Input`]); games add teleports, target switches, bursty
//! server updates and noisy hands. [`report`] runs one system through all of
//! them at 20, 30, 60, 144 and 240 steps per second and under a 250 ms
//! hitch, and returns the figures ([`SystemReport`]); the `signals-report`
//! binary prints them and draws the plots.

mod discrete;
mod inputs;
mod metrics;

pub use discrete::{
    BouncingSwitch, Chain, DiscreteRow, DiscreteTable, FrameCountedTap, Frames, PressKind,
    button_table, crossing_scores, crossing_truth, discrete_tables, lock_on_table, noisy_ramp,
    run_frames, standard_frames, switch_table, tap_sequence, tap_table,
};
pub use inputs::{Input, MAX_STEPS, Trace, simulate};
pub use metrics::{
    FrequencyPoint, StepMetrics, frequency_response, jitter_and_lag, ramp_lag, step_metrics,
};

use crate::{SignalError, System};

/// Makes a fresh system at rest at 0; each run gets its own.
pub type Factory<'a> = &'a dyn Fn() -> Box<dyn System<f64>>;

/// The frame rates every figure is measured at.
pub const FRAME_RATES: [f64; 5] = [20.0, 30.0, 60.0, 144.0, 240.0];
/// The frame rate the headline figures use.
pub const REFERENCE_RATE: f64 = 60.0;
/// Length of the hitch (one long frame), seconds.
pub const HITCH: f64 = 0.25;

/// How far a figure moves across [`FRAME_RATES`]: (max − min) / |value at 60 Hz|.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Spread {
    /// The figure at [`REFERENCE_RATE`].
    pub at_60: f64,
    /// The smallest value over the frame rates.
    pub min: f64,
    /// The largest.
    pub max: f64,
}

impl Spread {
    fn from(values: &[(f64, f64)]) -> Spread {
        let at_60 = values
            .iter()
            .find(|(r, _)| *r == REFERENCE_RATE)
            .map_or(f64::NAN, |(_, v)| *v);
        let min = values.iter().map(|(_, v)| *v).fold(f64::INFINITY, f64::min);
        let max = values
            .iter()
            .map(|(_, v)| *v)
            .fold(f64::NEG_INFINITY, f64::max);
        Spread { at_60, min, max }
    }

    /// (max − min) relative to the value at 60 Hz, in percent; 0 when all
    /// agree to 1e-9 (relative), and infinite when the 60 Hz value is 0 but
    /// others are not.
    pub fn percent(&self) -> f64 {
        let spread = self.max - self.min;
        if spread <= 1e-9 * self.at_60.abs().max(1.0) {
            0.0
        } else {
            100.0 * spread / self.at_60.abs()
        }
    }
}

/// Every figure for one system.
#[derive(Debug, Clone, PartialEq)]
pub struct SystemReport {
    /// The system's name.
    pub name: String,
    /// Step response at each frame rate: 10–90% rise time, seconds.
    pub rise: Spread,
    /// Step response: time after which it stays within 2% of the step, seconds.
    pub settle: Spread,
    /// Step response: overshoot beyond the step, percent of the step.
    pub overshoot: Spread,
    /// Ramp: the steady lag behind a ramp, seconds (distance / slope).
    pub ramp_lag: Spread,
    /// Gain and phase at a few frequencies, at 60 Hz.
    pub frequency: Vec<FrequencyPoint>,
    /// Gain at 1 Hz at each frame rate.
    pub gain_1hz: Spread,
    /// Phase at 1 Hz at each frame rate, degrees.
    pub phase_1hz: Spread,
    /// Noisy hand trace: noise passed at rest (RMS, trace units; the input
    /// noise is 0.01), at each frame rate.
    pub jitter: Spread,
    /// Noisy hand trace: lag while moving, seconds, at each frame rate.
    pub lag: Spread,
    /// Step under a 250 ms hitch at 60 Hz: the largest difference from the
    /// same step without the hitch, after the hitch (fraction of the step).
    pub hitch_error: f64,
}

/// The frequencies of the gain/phase table, Hz.
pub const FREQUENCIES: [f64; 5] = [0.25, 0.5, 1.0, 2.0, 4.0];

/// Runs `make`'s systems through every input and frame rate. Errors when a
/// system refuses an input (see [`simulate`]).
pub fn report(name: &str, make: Factory<'_>) -> Result<SystemReport, SignalError> {
    let mut rise = Vec::new();
    let mut settle = Vec::new();
    let mut overshoot = Vec::new();
    let mut lag = Vec::new();
    let (mut gain, mut phase, mut jitter, mut hand_lag) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for &rate in &FRAME_RATES {
        let step = simulate(make, &Input::Step, rate, 5.0, None)?;
        let m = step_metrics(&step, 1.0);
        rise.push((rate, m.rise));
        settle.push((rate, m.settle));
        overshoot.push((rate, m.overshoot_percent));
        let ramp = simulate(make, &Input::Ramp { slope: 1.0 }, rate, 10.0, None)?;
        lag.push((rate, ramp_lag(&ramp, 1.0)));
        if let Some(p) = frequency_response(make, &[1.0], rate)?.first() {
            gain.push((rate, p.gain));
            phase.push((rate, p.phase_degrees));
        }
        let (j, l) = hand_figures(make, rate)?;
        jitter.push((rate, j));
        hand_lag.push((rate, l));
    }
    let frequency = frequency_response(make, &FREQUENCIES, REFERENCE_RATE)?;
    let plain = simulate(make, &Input::Step, REFERENCE_RATE, 3.0, None)?;
    let hitched = simulate(make, &Input::Step, REFERENCE_RATE, 3.0, Some(0.1))?;
    let hitch_error = hitch_difference(&plain, &hitched);
    Ok(SystemReport {
        name: name.to_string(),
        rise: Spread::from(&rise),
        settle: Spread::from(&settle),
        overshoot: Spread::from(&overshoot),
        ramp_lag: Spread::from(&lag),
        frequency,
        gain_1hz: Spread::from(&gain),
        phase_1hz: Spread::from(&phase),
        jitter: Spread::from(&jitter),
        lag: Spread::from(&hand_lag),
        hitch_error,
    })
}

/// Jitter and lag on the noisy hand trace (σ = 0.01, 20 s) at `rate`.
pub fn hand_figures(make: Factory<'_>, rate: f64) -> Result<(f64, f64), SignalError> {
    let noisy = simulate(
        make,
        &Input::NoisyHand {
            seed: 7,
            sigma: 0.01,
        },
        rate,
        20.0,
        None,
    )?;
    let clean = simulate(
        make,
        &Input::NoisyHand {
            seed: 7,
            sigma: 0.0,
        },
        rate,
        20.0,
        None,
    )?;
    Ok(jitter_and_lag(&noisy, &clean))
}

/// The largest |hitched − plain| at the hitched run's sample times after the hitch.
fn hitch_difference(plain: &Trace, hitched: &Trace) -> f64 {
    let mut worst = 0.0f64;
    for (&t, &y) in hitched.time.iter().zip(&hitched.output) {
        if t <= 0.1 {
            continue;
        }
        if let Some(p) = plain.value_at(t) {
            worst = worst.max((y - p).abs());
        }
    }
    worst
}
