//! Standard inputs and game traces, and the loop that drives a system.

use crate::SignalError;
use crate::error::check_positive;

/// An input signal, as a function of time (seconds), or a trace built from a seed.
#[derive(Debug, Clone, PartialEq)]
pub enum Input {
    /// 0 everywhere; the system starts displaced by 1 (the impulse response
    /// of a system with unit DC gain is the response to a unit initial error,
    /// scaled).
    Impulse,
    /// 0 before t = 0, 1 from t = 0.
    Step,
    /// `slope · t`.
    Ramp {
        /// Units per second.
        slope: f64,
    },
    /// `sin(2π·hz·t)`.
    Sine {
        /// Frequency, Hz.
        hz: f64,
    },
    /// A sine sweep from `from_hz` to `to_hz` over `duration` seconds (exponential in frequency).
    Sweep {
        /// Start frequency, Hz.
        from_hz: f64,
        /// End frequency, Hz.
        to_hz: f64,
        /// Seconds.
        duration: f64,
    },
    /// Rest at 0, then teleport to 100 at t = 1 s.
    Teleport,
    /// Follows one target moving at 1 unit/s, then switches at t = 1 s to
    /// another 3 units away moving the other way.
    TargetSwitch,
    /// A server sending a slow sine (amplitude 1, 0.3 Hz) at 20 Hz; packets
    /// arrive late by 0–80 ms (seeded), 10% are lost, and the client holds
    /// the latest received value between arrivals.
    BurstyServer {
        /// Seed of the jitter and losses.
        seed: u64,
    },
    /// A hand held still, then moved and held again, with tracker noise
    /// of standard deviation `sigma` (0.01: a few millimetres on a 1 unit
    /// move) on every sample.
    NoisyHand {
        /// Seed of the noise.
        seed: u64,
        /// Noise standard deviation; 0 gives the clean path.
        sigma: f64,
    },
}

/// A small deterministic generator (SplitMix64), so traces repeat.
#[derive(Debug, Clone)]
pub(crate) struct Rng(pub(crate) u64);
impl Rng {
    pub(crate) fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    pub(crate) fn uniform(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
    fn gauss(&mut self) -> f64 {
        // Box–Muller.
        let u = self.uniform().max(1e-300);
        let v = self.uniform();
        (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()
    }
}

/// The hand's true path: rest, a smooth move of 1 unit over 0.5 s, rest, back.
pub(crate) fn hand_path(t: f64) -> f64 {
    let phase = t % 4.0;
    let smooth = |u: f64| {
        let u = u.clamp(0.0, 1.0);
        u * u * (3.0 - 2.0 * u)
    };
    if phase < 2.0 {
        smooth((phase - 1.0) / 0.5)
    } else {
        1.0 - smooth((phase - 3.0) / 0.5)
    }
}

/// Whether the hand is at rest (and has been for 0.5 s) at `t`.
pub(crate) fn hand_resting(t: f64) -> bool {
    let phase = t % 4.0;
    (0.5..1.0).contains(&phase) || (2.0..3.0).contains(&phase)
}

impl Input {
    /// The clean signal at `t` (for traces: the truth before jitter, loss and noise).
    pub fn clean(&self, t: f64) -> f64 {
        match self {
            Input::Impulse => 0.0,
            Input::Step => {
                if t >= 0.0 {
                    1.0
                } else {
                    0.0
                }
            }
            Input::Ramp { slope } => slope * t.max(0.0),
            Input::Sine { hz } => (std::f64::consts::TAU * hz * t).sin(),
            Input::Sweep {
                from_hz,
                to_hz,
                duration,
            } => {
                let k = (to_hz / from_hz).ln() / duration;
                let phase = std::f64::consts::TAU * from_hz * ((k * t).exp() - 1.0) / k;
                phase.sin()
            }
            Input::Teleport => {
                if t >= 1.0 {
                    100.0
                } else {
                    0.0
                }
            }
            Input::TargetSwitch => {
                if t < 1.0 {
                    t
                } else {
                    4.0 - (t - 1.0)
                }
            }
            Input::BurstyServer { .. } => (std::f64::consts::TAU * 0.3 * t).sin(),
            Input::NoisyHand { .. } => hand_path(t),
        }
    }
}

/// A run: sample times, the target fed in, the system's output.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Trace {
    /// Seconds, after each step.
    pub time: Vec<f64>,
    /// The target fed at each step.
    pub target: Vec<f64>,
    /// The output after each step.
    pub output: Vec<f64>,
    /// The output's velocity after each step (per second).
    pub velocity: Vec<f64>,
    /// The clean signal at each step (the truth, for traces).
    pub clean: Vec<f64>,
}

impl Trace {
    /// The output at `t`, linearly interpolated; `None` outside the run.
    /// (Fields are public; a trace whose columns differ in length answers
    /// `None` where a column runs out, rather than panicking.)
    pub fn value_at(&self, t: f64) -> Option<f64> {
        let i = self.time.partition_point(|&x| x < t);
        let (t1, y1) = (*self.time.get(i)?, *self.output.get(i)?);
        if i == 0 || t1 == t {
            return (t1 == t).then_some(y1);
        }
        let (t0, y0) = (*self.time.get(i - 1)?, *self.output.get(i - 1)?);
        Some(y0 + (y1 - y0) * (t - t0) / (t1 - t0))
    }
}

/// The most steps one run may take (its trace holds five `f64` per step), and
/// the most packets the bursty server may send.
pub const MAX_STEPS: f64 = 1e7;

/// Drives a fresh system from `make` with `input` at `rate` steps per second
/// for `duration` seconds. With `hitch_at`, the frame that would cover that
/// time lasts [`super::HITCH`] seconds instead.
///
/// Errors: a rate or duration that is not finite and positive, more than
/// [`MAX_STEPS`] steps, memory for the trace that cannot be reserved, or an
/// input whose parameters make it non-finite (the system refuses it).
pub fn simulate(
    make: super::Factory<'_>,
    input: &Input,
    rate: f64,
    duration: f64,
    hitch_at: Option<f64>,
) -> Result<Trace, SignalError> {
    check_positive("rate", rate)?;
    check_positive("duration", duration)?;
    let steps = rate * duration;
    if steps > MAX_STEPS {
        return Err(SignalError::InvalidParameter {
            name: "rate × duration",
            value: steps,
            expected: "at most 1e7 steps",
        });
    }
    let mut system = make();
    // Start at rest on the input's value just before t = 0.
    let start = if matches!(input, Input::Impulse) {
        1.0
    } else {
        input.clean(-1e-9)
    };
    system.reset(start)?;
    if matches!(input, Input::BurstyServer { .. }) && 20.0 * duration > MAX_STEPS {
        return Err(SignalError::InvalidParameter {
            name: "duration",
            value: duration,
            expected: "at most 5e5 s for the bursty server (20 packets a second)",
        });
    }
    let server = match input {
        Input::BurstyServer { seed } => Some(server_arrivals(*seed, duration)),
        _ => None,
    };
    let mut noise = match input {
        Input::NoisyHand { seed, sigma } => Some((Rng(*seed), *sigma)),
        _ => None,
    };
    let mut trace = Trace::default();
    let capacity = steps.ceil() as usize + 1;
    for v in [
        &mut trace.time,
        &mut trace.target,
        &mut trace.output,
        &mut trace.velocity,
        &mut trace.clean,
    ] {
        v.try_reserve_exact(capacity)
            .map_err(|_| SignalError::OutOfMemory { items: capacity })?;
    }
    let mut t = 0.0;
    let mut frame = 0u64;
    let mut hitched = false;
    while t < duration - 1e-12 {
        frame += 1;
        let mut next = frame as f64 / rate;
        if let Some(h) = hitch_at
            && !hitched
            && next > h
        {
            next = t + super::HITCH;
            hitched = true;
            // Keep frames on the rate's grid after the hitch.
            frame = (next * rate).ceil() as u64;
        }
        let dt = next - t;
        t = next;
        let clean = input.clean(t);
        let target = match (&server, &mut noise) {
            (Some(arrivals), _) => {
                let i = arrivals.partition_point(|(arrive, _)| *arrive <= t);
                if i == 0 { 0.0 } else { arrivals[i - 1].1 }
            }
            (_, Some((rng, sigma))) => clean + *sigma * rng.gauss(),
            _ => clean,
        };
        let out = system.update(dt, target)?;
        trace.time.push(t);
        trace.target.push(target);
        trace.output.push(out);
        trace.velocity.push(system.velocity());
        trace.clean.push(clean);
    }
    Ok(trace)
}

/// (arrival time, value) of the bursty server's packets, in arrival order,
/// keeping only packets newer than any already received (the client drops
/// stale ones).
fn server_arrivals(seed: u64, duration: f64) -> Vec<(f64, f64)> {
    let mut rng = Rng(seed);
    let mut sent = Vec::new();
    let mut k = 0u64;
    loop {
        let t = k as f64 / 20.0;
        if t > duration {
            break;
        }
        k += 1;
        let lost = rng.uniform() < 0.1;
        let late = 0.08 * rng.uniform();
        if !lost {
            sent.push((t + late, t, (std::f64::consts::TAU * 0.3 * t).sin()));
        }
    }
    sent.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut newest = f64::NEG_INFINITY;
    let mut out = Vec::new();
    for (arrive, stamp, value) in sent {
        if stamp > newest {
            newest = stamp;
            out.push((arrive, value));
        }
    }
    out
}
