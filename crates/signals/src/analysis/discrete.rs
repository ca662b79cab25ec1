//! The discrete systems' figures: standard inputs (a slow ramp through a
//! threshold with noise, a bouncing switch, two targets whose scores cross
//! with noise, a run of taps and holds) at fixed and jittered frame times,
//! and what matters to a player: flicker, latency to a true change, false
//! triggers and missed gestures, beside a naive threshold and the Unity and
//! Unreal defaults.

use super::inputs::Rng;
use crate::{Debounce, Discrete, Dwell, Edge, GestureTimings, Gestures, Hysteresis, SignalError};

/// How frames are spaced.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Frames {
    /// A steady rate, steps per second.
    Fixed(f64),
    /// Steps drawn uniformly between half and one and a half of `1/rate`
    /// (seeded): a game whose frame time wanders.
    Jittered {
        /// The mean rate, steps per second.
        rate: f64,
        /// Seed of the frame times.
        seed: u64,
    },
}

impl Frames {
    /// The frame times (end of each step) over `seconds`.
    pub fn times(&self, seconds: f64) -> Vec<f64> {
        let mut out = Vec::new();
        let mut t = 0.0;
        let mut rng = Rng(match self {
            Frames::Jittered { seed, .. } => *seed,
            Frames::Fixed(_) => 0,
        });
        while t < seconds {
            t += match *self {
                Frames::Fixed(rate) => 1.0 / rate,
                Frames::Jittered { rate, .. } => (0.5 + rng.uniform()) / rate,
            };
            out.push(t);
        }
        out
    }

    /// In words, for a table.
    pub fn label(&self) -> String {
        match self {
            Frames::Fixed(rate) => format!("{rate} Hz"),
            Frames::Jittered { rate, .. } => format!("{rate} Hz ±50% jitter"),
        }
    }
}

/// One row of a discrete table.
#[derive(Debug, Clone, PartialEq)]
pub struct DiscreteRow {
    /// The system and its settings.
    pub system: String,
    /// The input and frames.
    pub condition: String,
    /// Output changes per second beyond the true changes.
    pub flicker: f64,
    /// Mean time from a true change to the output's last change into the
    /// true state (seconds; negative when noise takes it early).
    pub latency: f64,
    /// Changes or gestures reported that did not happen.
    pub false_triggers: usize,
    /// True changes or gestures never reported.
    pub missed: usize,
}

/// A table of rows about one kind of input.
#[derive(Debug, Clone, PartialEq)]
pub struct DiscreteTable {
    /// What the table measures.
    pub title: String,
    /// Its rows.
    pub rows: Vec<DiscreteRow>,
}

/// Steps `system` through `frames`, sampling `input` at each frame's end;
/// returns each frame's time and output.
pub fn run_frames<I, D: Discrete<I>>(
    system: &mut D,
    frames: &[f64],
    mut input: impl FnMut(usize, f64) -> I,
) -> Result<Vec<(f64, D::Output)>, SignalError> {
    let mut last = 0.0;
    let mut out = Vec::with_capacity(frames.len());
    for (i, &t) in frames.iter().enumerate() {
        out.push((t, system.update(t - last, input(i, t))?));
        last = t;
    }
    Ok(out)
}

/// Flicker, latency and misses of a state output against its true changes
/// (`truth`: times at which the true state becomes the given value).
fn score_changes<T: PartialEq + Copy>(
    trace: &[(f64, T)],
    initial: T,
    truth: &[(f64, T)],
    seconds: f64,
) -> (f64, f64, usize, usize) {
    let mut changes = Vec::new();
    let mut last = initial;
    for &(t, v) in trace {
        if v != last {
            changes.push((t, v));
            last = v;
        }
    }
    let mut latencies = Vec::new();
    let mut missed = 0;
    for (k, &(at, value)) in truth.iter().enumerate() {
        // The window of this true change: halfway from the previous one to
        // halfway to the next.
        let start = if k == 0 {
            0.0
        } else {
            (truth[k - 1].0 + at) / 2.0
        };
        let end = truth.get(k + 1).map_or(seconds, |n| (at + n.0) / 2.0);
        match changes
            .iter()
            .rev()
            .find(|&&(t, v)| v == value && t >= start && t < end)
        {
            Some(&(t, _)) => latencies.push(t - at),
            None => missed += 1,
        }
    }
    let extra = changes.len().saturating_sub(truth.len() - missed);
    let latency = if latencies.is_empty() {
        f64::NAN
    } else {
        latencies.iter().sum::<f64>() / latencies.len() as f64
    };
    (extra as f64 / seconds, latency, extra, missed)
}

fn row<T: PartialEq + Copy>(
    system: &str,
    condition: String,
    trace: &[(f64, T)],
    initial: T,
    truth: &[(f64, T)],
    seconds: f64,
) -> DiscreteRow {
    let (flicker, latency, false_triggers, missed) = score_changes(trace, initial, truth, seconds);
    DiscreteRow {
        system: system.to_string(),
        condition,
        flicker,
        latency,
        false_triggers,
        missed,
    }
}

/// The frame timings every table is measured at.
pub fn standard_frames() -> [Frames; 2] {
    [
        Frames::Fixed(60.0),
        Frames::Jittered {
            rate: 60.0,
            seed: 11,
        },
    ]
}

/// A triangle from 0 up to 1 and back over 10 s, with uniform noise of
/// ±`noise` on every sample: an analog trigger squeezed and let go.
pub fn noisy_ramp(t: f64, noise: f64, rng: &mut impl FnMut() -> f64) -> f64 {
    let clean = if t < 5.0 { t / 5.0 } else { (10.0 - t) / 5.0 };
    clean + noise * (2.0 * rng() - 1.0)
}

/// A button from an analog value, as the tables run it.
type Button = Box<dyn Discrete<f64, Output = bool>>;

/// The button rules the table compares.
fn buttons() -> Result<[(&'static str, Button); 4], SignalError> {
    Ok([
        (
            "naive threshold 0.5 (Unreal's Down trigger)",
            Box::new(Hysteresis::naive(0.5)?),
        ),
        (
            "Unity defaults: press 0.5, release 0.375",
            Box::new(Hysteresis::unity()),
        ),
        ("hysteresis 0.6 / 0.4", Box::new(Hysteresis::new(0.6, 0.4)?)),
        (
            "hysteresis 0.6 / 0.4 + debounce 50 ms",
            Box::new(Chain(
                Hysteresis::new(0.6, 0.4)?,
                Debounce::new(false, 0.05, Edge::Trailing)?,
            )),
        ),
    ])
}

/// The button table: the noisy ramp through a threshold of 0.5.
pub fn button_table() -> Result<DiscreteTable, SignalError> {
    let seconds = 10.0;
    let truth = [(2.5, true), (7.5, false)];
    let mut rows = Vec::new();
    for noise in [0.02, 0.05, 0.1] {
        for frames in standard_frames() {
            let times = frames.times(seconds);
            for (name, mut system) in buttons()? {
                let mut rng = Rng(7 + (noise * 1000.0) as u64);
                let trace = run_frames(&mut system, &times, |_, t| {
                    noisy_ramp(t, noise, &mut || rng.uniform())
                })?;
                rows.push(row(
                    name,
                    format!("noise ±{noise}, {}", frames.label()),
                    &trace,
                    false,
                    &truth,
                    seconds,
                ));
            }
        }
    }
    Ok(DiscreteTable {
        title: "An analog trigger as a button: a 10 s ramp 0 → 1 → 0 through 0.5, uniform noise on every sample".into(),
        rows,
    })
}

/// Two systems in a row: the first's output is the second's input.
#[derive(Debug, Clone)]
pub struct Chain<A, B>(pub A, pub B);

impl<I, A, B> Discrete<I> for Chain<A, B>
where
    A: Discrete<I>,
    B: Discrete<A::Output>,
{
    type Output = B::Output;

    fn check_input(&self, input: &I) -> Result<(), SignalError> {
        self.0.check_input(input)
    }

    fn update_unchecked(&mut self, dt: f64, input: I) -> B::Output {
        let mid = self.0.update_unchecked(dt, input);
        // The first's outputs are the second's inputs by construction.
        self.1.update_unchecked(dt, mid)
    }
}

impl<I, D: Discrete<I> + ?Sized> Discrete<I> for Box<D> {
    type Output = D::Output;

    fn check_input(&self, input: &I) -> Result<(), SignalError> {
        (**self).check_input(input)
    }

    fn update_unchecked(&mut self, dt: f64, input: I) -> D::Output {
        (**self).update_unchecked(dt, input)
    }
}

/// A switch pressed for 0.5 s every second, 10 times, each edge bouncing
/// 1–6 times over up to 15 ms (seeded): the level at `t`.
pub struct BouncingSwitch {
    edges: Vec<(f64, bool)>,
}

impl BouncingSwitch {
    /// The switch's bounces from `seed`.
    pub fn new(seed: u64) -> Self {
        let mut rng = Rng(seed);
        let mut edges = Vec::new();
        for k in 0..10 {
            for (at, to) in [(1.0 + k as f64 * 2.0, true), (1.5 + k as f64 * 2.0, false)] {
                let bounces = 1 + (rng.next() % 6) as usize;
                let mut t = at;
                for _ in 0..bounces {
                    edges.push((t, to));
                    t += 0.001 + 0.002 * rng.uniform();
                    edges.push((t, !to));
                    t += 0.001 + 0.002 * rng.uniform();
                }
                edges.push((t, to));
            }
        }
        BouncingSwitch { edges }
    }

    /// The level at `t`.
    pub fn at(&self, t: f64) -> bool {
        self.edges
            .iter()
            .rev()
            .find(|(e, _)| *e <= t)
            .is_some_and(|&(_, v)| v)
    }

    /// The true edges (the first contact of each).
    pub fn truth() -> Vec<(f64, bool)> {
        (0..10)
            .flat_map(|k| [(1.0 + k as f64 * 2.0, true), (1.5 + k as f64 * 2.0, false)])
            .collect()
    }
}

/// The switch table: the bouncing switch polled at 1 kHz and at 60 Hz.
pub fn switch_table() -> Result<DiscreteTable, SignalError> {
    let seconds = 21.0;
    let switch = BouncingSwitch::new(3);
    let truth = BouncingSwitch::truth();
    let mut rows = Vec::new();
    for frames in [
        Frames::Fixed(1000.0),
        Frames::Fixed(60.0),
        Frames::Jittered {
            rate: 60.0,
            seed: 5,
        },
    ] {
        let times = frames.times(seconds);
        let systems: [(&str, Debounce<bool>); 3] = [
            ("raw", Debounce::new(false, 0.0, Edge::Trailing)?),
            (
                "debounce 20 ms, trailing edge",
                Debounce::new(false, 0.02, Edge::Trailing)?,
            ),
            (
                "debounce 20 ms, leading edge",
                Debounce::new(false, 0.02, Edge::Leading)?,
            ),
        ];
        for (name, mut system) in systems {
            let trace = run_frames(&mut system, &times, |_, t| switch.at(t))?;
            rows.push(row(
                name,
                format!("polled at {}", frames.label()),
                &trace,
                false,
                &truth,
                seconds,
            ));
        }
    }
    Ok(DiscreteTable {
        title: "A bouncing switch: 20 edges, each bouncing 1–6 times over up to 15 ms".into(),
        rows,
    })
}

/// Two targets' scores, crossing every 4 s, with uniform noise of
/// ±`noise` on every sample.
pub fn crossing_scores(t: f64, noise: f64, rng: &mut impl FnMut() -> f64) -> [f64; 2] {
    let s = 0.25 * (core::f64::consts::TAU * (t + 1.0) / 8.0).sin();
    [
        0.5 + s + noise * (2.0 * rng() - 1.0),
        0.5 - s + noise * (2.0 * rng() - 1.0),
    ]
}

/// The true choices of [`crossing_scores`] over `seconds`.
pub fn crossing_truth(seconds: f64) -> Vec<(f64, Option<usize>)> {
    let mut out = vec![(0.0, Some(0))];
    let mut t = 3.0;
    let mut which = 1;
    while t < seconds {
        out.push((t, Some(which)));
        which = 1 - which;
        t += 4.0;
    }
    out
}

/// The lock-on table: two crossing scores with noise.
pub fn lock_on_table() -> Result<DiscreteTable, SignalError> {
    let seconds = 40.0;
    let truth = crossing_truth(seconds);
    let mut rows = Vec::new();
    for noise in [0.05, 0.15] {
        for frames in standard_frames() {
            let times = frames.times(seconds);
            let systems = [
                ("best score every frame", Dwell::new(0.0, 0.0)?),
                ("margin 0.1", Dwell::new(0.1, 0.0)?),
                ("dwell 0.3 s", Dwell::new(0.0, 0.3)?),
                ("margin 0.05 + dwell 0.25 s", Dwell::new(0.05, 0.25)?),
            ];
            // The same noisy scores for every rule.
            let mut rng = Rng(17);
            let scores: Vec<[f64; 2]> = times
                .iter()
                .map(|&t| crossing_scores(t, noise, &mut || rng.uniform()))
                .collect();
            for (name, mut system) in systems {
                let trace = run_frames(&mut system, &times, |i, _| {
                    scores.get(i).map_or(&[][..], |s| &s[..])
                })?;
                // The first frame's pick is not a change.
                let initial = trace.first().and_then(|f| f.1);
                rows.push(row(
                    name,
                    format!("noise ±{noise}, {}", frames.label()),
                    &trace,
                    initial,
                    &truth[1..],
                    seconds,
                ));
            }
        }
    }
    Ok(DiscreteTable {
        title: "Lock-on: two targets whose scores cross every 4 s, uniform noise on every sample"
            .into(),
        rows,
    })
}

/// What a press in [`tap_sequence`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PressKind {
    /// Released within 0.15 s: a tap.
    Tap,
    /// Held 0.3–0.45 s: neither a tap nor a hold.
    Slow,
    /// Held 0.8–1.2 s: a hold.
    Hold,
}

/// A minute of presses (seeded): (press time, release time, kind), with
/// gaps of 0.4–0.8 s (no double taps).
pub fn tap_sequence(seed: u64) -> Vec<(f64, f64, PressKind)> {
    let mut rng = Rng(seed);
    let mut t = 0.5;
    let mut out = Vec::new();
    while t < 58.0 {
        let (kind, length) = match rng.next() % 3 {
            0 => (PressKind::Tap, 0.05 + 0.1 * rng.uniform()),
            1 => (PressKind::Slow, 0.3 + 0.15 * rng.uniform()),
            _ => (PressKind::Hold, 0.8 + 0.4 * rng.uniform()),
        };
        out.push((t, t + length, kind));
        t += length + 0.4 + 0.4 * rng.uniform();
    }
    out
}

/// A tap detector that counts frames, as code written for one frame rate
/// does: a tap is a press released within `frames` frames.
#[derive(Debug, Clone, Copy)]
pub struct FrameCountedTap {
    frames: u32,
    held: u32,
    down: bool,
}

impl FrameCountedTap {
    /// A tap within `frames` frames.
    pub fn new(frames: u32) -> Self {
        FrameCountedTap {
            frames,
            held: 0,
            down: false,
        }
    }

    /// One frame; whether a tap ended on it.
    pub fn frame(&mut self, down: bool) -> bool {
        let tap = self.down && !down && self.held <= self.frames;
        if down {
            self.held = if self.down { self.held + 1 } else { 1 };
        }
        self.down = down;
        tap
    }
}

/// The tap table: a minute of taps, slow presses and holds, by time and by
/// counting frames, at 30, 60, 144 Hz and jittered.
pub fn tap_table() -> Result<DiscreteTable, SignalError> {
    let presses = tap_sequence(23);
    let level = |t: f64| presses.iter().any(|&(a, b, _)| a <= t && t < b);
    let mut rows = Vec::new();
    let all_frames = [
        Frames::Fixed(30.0),
        Frames::Fixed(60.0),
        Frames::Fixed(144.0),
        Frames::Jittered {
            rate: 60.0,
            seed: 29,
        },
    ];
    for frames in all_frames {
        let times = frames.times(60.0);
        // By time: Unity's and Unreal's default tap time, 0.2 s.
        let mut gestures = Gestures::new(GestureTimings::default())?;
        let timed = run_frames(&mut gestures, &times, |_, t| level(t))?;
        let taps: Vec<f64> = timed
            .iter()
            .filter(|(_, e)| e.tap)
            .map(|(t, _)| *t)
            .collect();
        rows.push(tap_row(
            "tap ≤ 0.2 s, by time (Unity and Unreal's default)",
            &frames,
            &taps,
            &presses,
        ));
        let mut counted = FrameCountedTap::new(12);
        let taps: Vec<f64> = times
            .iter()
            .filter(|&&t| counted.frame(level(t)))
            .copied()
            .collect();
        rows.push(tap_row(
            "tap ≤ 12 frames (0.2 s at 60 Hz)",
            &frames,
            &taps,
            &presses,
        ));
    }
    Ok(DiscreteTable {
        title: "Taps: a minute of taps (≤ 0.15 s), slow presses (0.3–0.45 s) and holds (0.8–1.2 s)"
            .into(),
        rows,
    })
}

fn tap_row(
    system: &str,
    frames: &Frames,
    taps: &[f64],
    presses: &[(f64, f64, PressKind)],
) -> DiscreteRow {
    let mut latencies = Vec::new();
    let (mut missed, mut false_triggers) = (0, 0);
    for (k, &(_, release, kind)) in presses.iter().enumerate() {
        let next = presses.get(k + 1).map_or(f64::INFINITY, |p| p.0);
        let reported = taps.iter().find(|&&t| t >= release && t < next);
        match (kind, reported) {
            (PressKind::Tap, Some(&t)) => latencies.push(t - release),
            (PressKind::Tap, None) => missed += 1,
            (_, Some(_)) => false_triggers += 1,
            (_, None) => {}
        }
    }
    DiscreteRow {
        system: system.to_string(),
        condition: frames.label(),
        flicker: 0.0,
        latency: if latencies.is_empty() {
            f64::NAN
        } else {
            latencies.iter().sum::<f64>() / latencies.len() as f64
        },
        false_triggers,
        missed,
    }
}

/// Every discrete table.
pub fn discrete_tables() -> Result<Vec<DiscreteTable>, SignalError> {
    Ok(vec![
        button_table()?,
        switch_table()?,
        lock_on_table()?,
        tap_table()?,
    ])
}
