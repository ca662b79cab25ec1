//! The discrete systems against sample-by-sample references at a fine
//! fixed step, and their frame-rate independence: the same input sampled at
//! 30, 60, 144 Hz and at jittery steps gives the same decisions within one
//! step.
#![allow(clippy::unwrap_used, clippy::expect_used)] // Tests: a failure is the report.

use proptest::prelude::*;
use signals::{
    Debounce, Discrete, DiscreteBatch, Dwell, Edge, GestureEvents, GestureTimings, Gestures,
    Hysteresis, Inertialiser, ModeLimiter, SignalError, SnapshotBuffer, SnapshotConfig,
    SpringDamper, Stick, StickDirection, StickRule, System, WhileCooling,
};

/// The fine step of the references: a power of two, so that every time in
/// these tests is exact in `f64` and no decision hangs on rounding.
const TICK: f64 = 1.0 / 1024.0;

/// A coarse run: (ticks in the step, input held over it).
fn steps<I: std::fmt::Debug + Clone>(
    input: impl Strategy<Value = I> + Clone,
) -> impl Strategy<Value = Vec<(u32, I)>> {
    prop::collection::vec((1u32..80, input), 1..120)
}

// ---------------------------------------------------------------- hysteresis

proptest! {
    #[test]
    fn hysteresis_is_the_last_decisive_sample(
        press in -1.0f64..1.0, band in prop_oneof![0.01f64..0.5, -0.5f64..-0.01],
        run in steps(-1.5f64..1.5),
    ) {
        // Oracle: the state is set by the latest sample outside the band.
        let release = press - band;
        let mut h = Hysteresis::new(press, release).unwrap();
        let mut samples: Vec<f64> = Vec::new();
        for (ticks, x) in run {
            let on = h.update(f64::from(ticks) * TICK, x).unwrap();
            samples.push(x);
            let decisive = samples.iter().rev().find_map(|&v| {
                if press > release {
                    if v >= press { Some(true) } else if v <= release { Some(false) } else { None }
                } else if v <= press { Some(true) } else if v >= release { Some(false) } else { None }
            });
            prop_assert_eq!(on, decisive.unwrap_or(false));
        }
    }

    #[test]
    fn noise_inside_the_band_never_flickers(
        amplitude in 0.0f64..0.06, seed in any::<u64>(), rate in 20.0f64..240.0,
    ) {
        // A trigger resting at the press point with noise under half the
        // band (Unity's band is 0.125): one press, no flicker.
        let mut h = Hysteresis::unity();
        let mut rng = seed;
        let mut changes = 0;
        let mut last = false;
        for _ in 0..2000 {
            rng = rng.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let noise = ((rng >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0) * amplitude;
            let on = h.update(1.0 / rate, 0.5 - 0.06 + noise + 0.06).unwrap();
            if on != last { changes += 1; last = on; }
        }
        prop_assert!(changes <= 1, "{changes} changes");
    }
}

#[test]
fn dead_zone_maps_the_magnitude_as_unity_does() {
    let h = Hysteresis::unity().with_dead_zone(0.125, 0.925).unwrap();
    assert_eq!(h.shaped(0.1), 0.0);
    assert_eq!(h.shaped(-0.95), -1.0);
    assert!((h.shaped(0.525) - 0.5).abs() < 1e-12);
    assert!(Hysteresis::unity().with_dead_zone(0.5, 0.4).is_err());
    assert!(Hysteresis::new(0.5, 0.5).is_err());
    assert!(Hysteresis::new(f64::NAN, 0.5).is_err());
}

#[test]
fn low_health_warning_is_active_low() {
    let mut warn = Hysteresis::new(25.0, 30.0).unwrap();
    let seen: Vec<bool> = [50.0, 26.0, 25.0, 28.0, 29.9, 30.1, 26.0]
        .iter()
        .map(|&hp| warn.update(0.1, hp).unwrap())
        .collect();
    assert_eq!(seen, [false, false, true, true, true, false, false]);
}

#[test]
fn a_nan_is_an_error_and_changes_nothing() {
    let mut h = Hysteresis::unity();
    h.update(0.1, 0.9).unwrap();
    let before = h;
    assert_eq!(
        h.update(0.1, f64::NAN),
        Err(SignalError::NonFiniteInput { what: "input" })
    );
    assert!(h.update(-0.1, 0.0).is_err());
    assert!(h.update(f64::INFINITY, 0.0).is_err());
    assert_eq!(h, before);
}

// --------------------------------------------------------------------- stick

proptest! {
    #[test]
    fn a_stick_held_at_a_diagonal_or_a_boundary_never_flickers(
        angle_deg in 0.0f64..360.0, length in 0.6f64..1.0, noise_deg in 0.0f64..2.49,
        noise_len in 0.0f64..0.05, seed in any::<u64>(),
    ) {
        for rule in [
            StickRule::Radial { sectors: 8, margin_degrees: 5.0 },
            StickRule::Radial { sectors: 4, margin_degrees: 5.0 },
            StickRule::PerAxis,
        ] {
            let mut stick = Stick::new(0.5, 0.375, rule).unwrap();
            let mut rng = seed;
            let mut uniform = || {
                rng = rng.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                (rng >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
            };
            let mut changes = 0;
            let mut last = StickDirection::CENTRE;
            for _ in 0..600 {
                let a = (angle_deg + noise_deg * uniform()).to_radians();
                let r = length + noise_len * uniform();
                let d = stick.update(1.0 / 60.0, [r * a.cos(), r * a.sin()]).unwrap();
                if d != last { changes += 1; last = d; }
            }
            // Radially, noise of less than half the margin can leave the
            // first sector picked by less than the margin: one change.
            // Per axis, a component near the points can flicker only if the
            // noise spans the band; at length ≥ 0.6 a component is either
            // far above 0.5 or it is the small one near an axis.
            let per_axis_near = rule == StickRule::PerAxis && {
                let (s, c) = angle_deg.to_radians().sin_cos();
                [s, c].iter().any(|v| {
                    let m = v.abs() * length;
                    (0.375 - 0.06..0.5 + 0.06).contains(&m)
                })
            };
            if !per_axis_near {
                prop_assert!(changes <= 1, "{rule:?}: {changes} changes at {angle_deg}°");
            }
        }
    }
}

#[test]
fn stick_directions_by_sector() {
    let mut s = Stick::new(
        0.5,
        0.375,
        StickRule::Radial {
            sectors: 8,
            margin_degrees: 5.0,
        },
    )
    .unwrap();
    let at = |deg: f64| {
        let a = deg.to_radians();
        [a.cos(), a.sin()]
    };
    assert_eq!(
        s.update(0.1, at(44.0)).unwrap(),
        StickDirection { x: 1, y: 1 }
    );
    assert_eq!(
        s.update(0.1, at(70.0)).unwrap(),
        StickDirection { x: 1, y: 1 }
    ); // in the margin
    assert_eq!(
        s.update(0.1, at(75.0)).unwrap(),
        StickDirection { x: 0, y: 1 }
    );
    assert_eq!(
        s.update(0.1, at(180.0)).unwrap(),
        StickDirection { x: -1, y: 0 }
    );
    assert_eq!(
        s.update(0.1, [0.0, -0.4]).unwrap(),
        StickDirection { x: 0, y: -1 }
    ); // above release
    assert_eq!(s.update(0.1, [0.0, -0.3]).unwrap(), StickDirection::CENTRE);
    let mut p = Stick::new(0.5, 0.375, StickRule::PerAxis).unwrap();
    assert_eq!(
        p.update(0.1, at(45.0)).unwrap(),
        StickDirection { x: 1, y: 1 }
    );
    assert_eq!(
        p.update(0.1, [0.6, -0.2]).unwrap(),
        StickDirection { x: 1, y: 0 }
    );
    assert!(
        Stick::new(
            0.5,
            0.375,
            StickRule::Radial {
                sectors: 6,
                margin_degrees: 1.0
            }
        )
        .is_err()
    );
}

// ------------------------------------------------------------------ debounce

/// Debounce, one tick at a time: counts ticks.
struct DebounceRef {
    hold: u32,
    leading: bool,
    output: bool,
    candidate_ticks: u32,
    since: Option<u32>,
}

impl DebounceRef {
    fn tick(&mut self, input: bool) {
        if self.leading {
            let free = self.since.is_none_or(|s| s >= self.hold);
            if input != self.output && free {
                self.output = input;
                self.since = Some(0);
            }
            self.since = self.since.map(|s| s + 1);
            // A lockout that ends at this tick's end lets the change in now.
            if input != self.output && self.since.is_none_or(|s| s >= self.hold) {
                self.output = input;
                self.since = Some(0);
            }
        } else {
            if input == self.output {
                self.candidate_ticks = 0;
            } else {
                self.candidate_ticks += 1;
            }
            self.since = self.since.map(|s| s + 1);
            if input != self.output && self.candidate_ticks >= self.hold {
                self.output = input;
                self.candidate_ticks = 0;
                self.since = Some(0);
            }
        }
    }
}

proptest! {
    #[test]
    fn debounce_matches_the_tick_reference(
        hold in 1u32..200, leading in any::<bool>(), run in steps(any::<bool>()),
    ) {
        let edge = if leading { Edge::Leading } else { Edge::Trailing };
        let mut d = Debounce::new(false, f64::from(hold) * TICK, edge).unwrap();
        let mut r = DebounceRef { hold, leading, output: false, candidate_ticks: 0, since: None };
        for (ticks, x) in run {
            let out = d.update(f64::from(ticks) * TICK, x).unwrap();
            for _ in 0..ticks { r.tick(x); }
            prop_assert_eq!(out, r.output);
            match r.since {
                None => prop_assert!(d.since_change().is_infinite()),
                Some(s) => prop_assert_eq!(d.since_change(), f64::from(s) * TICK),
            }
        }
    }
}

#[test]
fn a_bouncing_switch_changes_once() {
    // A press with 8 ms of contact bounce, polled at 1 kHz.
    let mut trailing = Debounce::new(false, 0.02, Edge::Trailing).unwrap();
    let mut leading = Debounce::new(false, 0.02, Edge::Leading).unwrap();
    let bounce = [1, 0, 1, 1, 0, 1, 0, 1];
    let mut seen = (Vec::new(), Vec::new());
    for ms in 0..100 {
        let x = bounce.get(ms).is_none_or(|&b| b == 1);
        seen.0.push(trailing.update(0.001, x).unwrap());
        seen.1.push(leading.update(0.001, x).unwrap());
    }
    let changes = |v: &[bool]| v.windows(2).filter(|w| w[0] != w[1]).count() + usize::from(v[0]);
    assert_eq!(changes(&seen.0), 1);
    assert_eq!(changes(&seen.1), 1);
    assert!(seen.1[0], "leading edge: no latency");
    // Trailing: the last bounce ends at 7 ms, accepted 20 ms later, at the
    // end of the step from 26 to 27 ms.
    assert_eq!(seen.0.iter().position(|&b| b), Some(26));
}

// --------------------------------------------------------------------- dwell

/// Dwell, one tick at a time.
struct DwellRef {
    margin: f64,
    dwell: u32,
    chosen: Option<usize>,
    leads: Vec<u32>,
}

impl DwellRef {
    fn tick(&mut self, scores: &[f64]) {
        self.leads.resize(scores.len(), 0);
        let available = |i: usize| scores.get(i).is_some_and(|&s| s > f64::NEG_INFINITY);
        if !self.chosen.is_some_and(available) {
            // The best available, lowest index on ties.
            let mut best = None;
            for (i, &s) in scores.iter().enumerate() {
                if s > f64::NEG_INFINITY && best.is_none_or(|b: usize| s > scores[b]) {
                    best = Some(i);
                }
            }
            self.chosen = best;
            self.leads.iter_mut().for_each(|l| *l = 0);
            return;
        }
        let c = self.chosen.unwrap();
        for (j, lead) in self.leads.iter_mut().enumerate() {
            *lead = if j != c && scores[j] > scores[c] + self.margin {
                *lead + 1
            } else {
                0
            };
        }
        // All who reached dwell this tick reached it together: the higher
        // score, then the lower index.
        let mut winner: Option<usize> = None;
        for (j, &lead) in self.leads.iter().enumerate() {
            if lead >= self.dwell && winner.is_none_or(|w| scores[j] > scores[w]) {
                winner = Some(j);
            }
        }
        if let Some(j) = winner {
            self.chosen = Some(j);
            self.leads.iter_mut().for_each(|l| *l = 0);
        }
    }
}

fn scores() -> impl Strategy<Value = Vec<f64>> + Clone {
    prop::collection::vec(
        prop_oneof![
            6 => (0u32..8).prop_map(|s| f64::from(s) * 0.25),
            1 => Just(f64::NEG_INFINITY),
        ],
        3,
    )
}

proptest! {
    #[test]
    fn dwell_matches_the_tick_reference(
        margin in prop_oneof![Just(0.0), Just(0.25), Just(0.6)], dwell in 1u32..150,
        run in steps(scores()),
    ) {
        let mut d = Dwell::new(margin, f64::from(dwell) * TICK).unwrap();
        let mut r = DwellRef { margin, dwell, chosen: None, leads: Vec::new() };
        for (ticks, s) in run {
            let out = d.update(f64::from(ticks) * TICK, s.as_slice()).unwrap();
            for _ in 0..ticks { r.tick(&s); }
            prop_assert_eq!(out, r.chosen, "scores {:?}", s);
        }
    }
}

#[test]
fn dwell_rules_at_the_edges() {
    let mut d = Dwell::new(0.1, 0.5).unwrap();
    assert_eq!(d.update(0.1, &[1.0, 1.0][..]).unwrap(), Some(0)); // tie: lowest index
    assert_eq!(d.update(0.4, &[1.0, 1.05][..]).unwrap(), Some(0)); // within the margin
    assert_eq!(d.update(0.4, &[1.0, 1.2][..]).unwrap(), Some(0));
    assert_eq!(d.update(0.1, &[1.0, 1.2][..]).unwrap(), Some(1)); // 0.5 s clearly better
    assert_eq!(
        d.update(0.1, &[1.0, f64::NEG_INFINITY][..]).unwrap(),
        Some(0)
    ); // lost: at once
    assert_eq!(d.update(0.1, &[][..]).unwrap(), None);
    assert!(d.update(0.1, &[f64::NAN][..]).is_err());
    assert!(d.update(0.1, &[f64::INFINITY][..]).is_err());
    let mut naive = Dwell::new(0.0, 0.0).unwrap();
    naive.update(0.1, &[1.0, 0.0][..]).unwrap();
    assert_eq!(naive.update(0.1, &[1.0, 1.001][..]).unwrap(), Some(1));
}

// ------------------------------------------------------------------ gestures

/// Gestures, one tick at a time; pulses counted by listing their times.
struct GestureRef {
    t: GestureTimings,
    down: bool,
    held: u32,
    hold_fired: bool,
    second: bool,
    since_tap: Option<u32>,
}

impl GestureRef {
    fn ticks(x: f64) -> f64 {
        x / TICK
    }

    fn tick(&mut self, input: bool, ev: &mut GestureEvents) {
        ev.down = input;
        if input {
            if !self.down {
                ev.pressed = true;
                self.down = true;
                self.held = 0;
                self.hold_fired = false;
                self.second = self
                    .since_tap
                    .is_some_and(|g| f64::from(g) <= Self::ticks(self.t.double_tap_gap));
                self.since_tap = None;
            }
            // Pulse times (in ticks) inside [held, held + 1).
            let (a, b) = (f64::from(self.held), f64::from(self.held + 1));
            let mut times = Vec::new();
            if self.t.pulse_on_press {
                times.push(0.0);
            }
            let mut f = Self::ticks(self.t.pulse_delay);
            while f < b {
                times.push(f);
                f += Self::ticks(self.t.pulse_interval);
            }
            ev.pulses += times.iter().filter(|&&f| a <= f && f < b).count() as u32;
            self.held += 1;
            if !self.hold_fired && f64::from(self.held) >= Self::ticks(self.t.hold) {
                self.hold_fired = true;
                ev.hold = true;
            }
        } else if self.down {
            ev.released = true;
            self.down = false;
            let tap = !self.hold_fired && f64::from(self.held) <= Self::ticks(self.t.tap);
            self.since_tap = None;
            if tap && self.second {
                ev.double_tap = true;
            } else if tap {
                ev.tap = true;
                self.since_tap = Some(1);
            }
            self.second = false;
        } else if let Some(g) = &mut self.since_tap {
            *g += 1;
        }
    }
}

fn timings() -> impl Strategy<Value = GestureTimings> {
    (
        20u32..300,
        0u32..600,
        20u32..400,
        1u32..600,
        1u32..200,
        any::<bool>(),
    )
        .prop_map(
            |(tap, extra, gap, delay, interval, on_press)| GestureTimings {
                tap: f64::from(tap) * TICK,
                hold: f64::from(tap + extra) * TICK,
                double_tap_gap: f64::from(gap) * TICK,
                pulse_delay: f64::from(delay) * TICK,
                pulse_interval: f64::from(interval) * TICK,
                pulse_on_press: on_press,
            },
        )
}

proptest! {
    #[test]
    fn gestures_match_the_tick_reference(
        t in timings(),
        // Runs of a level (ticks, down), one level per coarse step.
        run in prop::collection::vec((1u32..120, any::<bool>()), 1..80),
    ) {
        let mut g = Gestures::new(t).unwrap();
        let mut r = GestureRef { t, down: false, held: 0, hold_fired: false, second: false, since_tap: None };
        for (ticks, x) in run {
            let out = g.update(f64::from(ticks) * TICK, x).unwrap();
            let mut ev = GestureEvents::default();
            for _ in 0..ticks { r.tick(x, &mut ev); }
            prop_assert_eq!(out, ev);
        }
    }
}

#[test]
fn gesture_parameters_are_checked() {
    let bad = GestureTimings {
        hold: 0.1,
        ..GestureTimings::default()
    };
    assert!(Gestures::new(bad).is_err());
    let zero = GestureTimings {
        pulse_interval: 0.0,
        ..GestureTimings::default()
    };
    assert!(Gestures::new(zero).is_err());
    // A one-second hitch while held: every pulse in it counted.
    let mut g = Gestures::new(GestureTimings::default()).unwrap();
    let first = g.update(0.01, true).unwrap();
    assert_eq!(first.pulses, 1);
    let hitch = g.update(1.0, true).unwrap();
    assert!(hitch.hold);
    assert_eq!(hitch.pulses, 6); // 0.5, 0.6, …, 1.0
}

// ---------------------------------------------------------- mode limiter

/// The mode limiter, one tick at a time; a request is made at the first
/// tick of its step.
struct ModeRef {
    interval: u32,
    keep: bool,
    mode: u8,
    pending: Option<u8>,
    since: Option<u32>,
}

impl ModeRef {
    fn tick(&mut self, request: Option<u8>) {
        if let Some(m) = request {
            if m == self.mode {
                self.pending = None;
            } else if self.since.is_none_or(|s| s >= self.interval) {
                self.mode = m;
                self.pending = None;
                self.since = Some(0);
            } else if self.keep {
                self.pending = Some(m);
            }
        }
        self.since = self.since.map(|s| s + 1);
        if let Some(m) = self.pending
            && self.since.is_none_or(|s| s >= self.interval)
        {
            self.mode = m;
            self.pending = None;
            self.since = Some(0);
        }
    }
}

proptest! {
    #[test]
    fn mode_limiter_matches_the_tick_reference(
        interval in 1u32..300, keep in any::<bool>(),
        run in steps(prop::option::of(0u8..4)),
    ) {
        let rule = if keep { WhileCooling::KeepLatest } else { WhileCooling::Drop };
        let mut m = ModeLimiter::new(0u8, f64::from(interval) * TICK, rule).unwrap();
        let mut r = ModeRef { interval, keep, mode: 0, pending: None, since: None };
        for (ticks, req) in run {
            let out = m.update(f64::from(ticks) * TICK, req).unwrap();
            r.tick(req);
            for _ in 1..ticks { r.tick(None); }
            prop_assert_eq!(out, r.mode);
            prop_assert_eq!(m.pending(), r.pending);
        }
    }
}

// ------------------------------------------------- frame-rate independence

/// Frame times over `seconds`: a fixed rate, or jittery steps of 4–40 ms.
fn frames(rate: Option<f64>, seconds: f64, seed: u64) -> Vec<f64> {
    let mut rng = seed;
    let mut t = 0.0;
    let mut out = Vec::new();
    while t < seconds {
        let dt = match rate {
            Some(r) => 1.0 / r,
            None => {
                rng = rng
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                0.004 + 0.036 * ((rng >> 11) as f64 / (1u64 << 53) as f64)
            }
        };
        t += dt;
        out.push(t);
    }
    out
}

const RATES: [Option<f64>; 4] = [Some(30.0), Some(60.0), Some(144.0), None];

/// Runs a system over frames sampling `input(t)` at each frame's end and
/// lists (time, output) where the output differs from the previous one.
fn decisions<I, D: Discrete<I>>(
    mut system: D,
    frame_times: &[f64],
    input: impl Fn(f64) -> I,
    mut key: impl FnMut(D::Output) -> Vec<String>,
) -> Vec<(f64, String)> {
    let mut last_t = 0.0;
    let mut out = Vec::new();
    for &t in frame_times {
        let o = system.update(t - last_t, input(t)).unwrap();
        out.extend(key(o).into_iter().map(|k| (t, k)));
        last_t = t;
    }
    out
}

/// Same decisions as the truth (a run at the fine tick), each within one
/// of the run's steps.
fn same_within_a_step(
    a: &[(f64, String)],
    b: &[(f64, String)],
    step: f64,
) -> Result<(), TestCaseError> {
    prop_assert_eq!(
        a.iter().map(|x| &x.1).collect::<Vec<_>>(),
        b.iter().map(|x| &x.1).collect::<Vec<_>>()
    );
    for (x, y) in a.iter().zip(b) {
        prop_assert!((x.0 - y.0).abs() <= step + 1e-9, "{x:?} vs {y:?}");
    }
    Ok(())
}

/// Changes of a state, as keys.
fn changes<T: PartialEq + std::fmt::Debug + Copy>(initial: T) -> impl FnMut(T) -> Vec<String> {
    let mut last = initial;
    move |o| {
        if o == last {
            Vec::new()
        } else {
            last = o;
            vec![format!("{o:?}")]
        }
    }
}

/// A level that switches at `times` (starting low).
fn level(times: &[f64]) -> impl Fn(f64) -> bool + '_ {
    move |t| times.iter().filter(|&&s| s <= t).count() % 2 == 1
}

/// Switch times of a level: long levels (0.4–1 s), some with a blip of
/// 5–30 ms inside, at least 0.15 s from either end (a blip next to a change
/// would move the change by its length at the rates that see it).
fn switch_times(blips: bool) -> impl Strategy<Value = (Vec<f64>, usize)> {
    prop::collection::vec(
        (0.4f64..1.0, prop::option::of((0.0f64..1.0, 0.005f64..0.03))),
        1..12,
    )
    .prop_map(move |levels| {
        let mut t = 0.2;
        let mut out = Vec::new();
        let count = levels.len();
        for (length, blip) in levels {
            out.push(t);
            if let Some((at, len)) = blip.filter(|_| blips) {
                let start = t + 0.15 + at * (length - 0.3 - len);
                out.push(start);
                out.push(start + len);
            }
            t += length;
        }
        (out, count)
    })
}

/// Press and release times: presses of 40–140 ms (taps) or 0.6–1.5 s
/// (holds), gaps of 40–150 ms (a double tap) or 0.5–1 s.
fn press_times() -> impl Strategy<Value = Vec<f64>> {
    prop::collection::vec(
        (
            prop_oneof![0.04f64..0.14, 0.6f64..1.5],
            prop_oneof![0.04f64..0.15, 0.5f64..1.0],
        ),
        1..10,
    )
    .prop_map(|presses| {
        let mut t = 0.2;
        let mut out = Vec::new();
        for (down, up) in presses {
            out.push(t);
            out.push(t + down);
            t += down + up;
        }
        out
    })
}

proptest! {
    #[test]
    fn decisions_do_not_depend_on_the_frame_rate(
        seed in any::<u64>(),
        switches in switch_times(true),
        levels in switch_times(false),
        taps in press_times(),
        crossings in prop::collection::vec(0.3f64..1.5, 1..6),
        requests in prop::collection::vec((0.06f64..0.5, 0u8..4), 1..12),
    ) {
        let end = 12.0;
        // The truth: a run at the fine tick; then each frame rate, within
        // its own longest step (jittery steps are at most 40 ms).
        let truth = frames(Some(1.0 / TICK), end, seed);
        let runs: Vec<Vec<f64>> = RATES.iter().map(|&r| frames(r, end, seed)).collect();
        let steps: Vec<f64> = RATES.iter().map(|r| r.map_or(0.040, |r| 1.0 / r) + TICK).collect();
        let longest = 0.040;

        // Hysteresis on a slow triangle (0 → 1 → 0 every 4 s).
        let tri = |t: f64| { let p = (t / 4.0).fract(); if p < 0.5 { 2.0 * p } else { 2.0 - 2.0 * p } };
        let base = decisions(Hysteresis::unity(), &truth, tri, changes(false));
        for (run, &step) in runs.iter().zip(&steps) {
            same_within_a_step(&base, &decisions(Hysteresis::unity(), run, tri, changes(false)), step)?;
        }

        // Debounce, 0.1 s: trailing on a switch with blips (which must not
        // pass), leading on long levels (it passes blips by design, so a
        // blip shorter than a frame, seen at one rate and not another,
        // would be a different input).
        for (edge, (times, count)) in [(Edge::Trailing, &switches), (Edge::Leading, &levels)] {
            let input = level(times);
            let mk = || Debounce::new(false, 0.1, edge).unwrap();
            let base = decisions(mk(), &truth, &input, changes(false));
            prop_assert_eq!(base.len(), *count, "one change per level, none per blip");
            for (run, &step) in runs.iter().zip(&steps) {
                same_within_a_step(&base, &decisions(mk(), run, &input, changes(false)), step)?;
            }
        }

        // Gestures: taps (short presses and gaps) and long holds.
        let timings = GestureTimings { tap: 0.2, hold: 0.5, double_tap_gap: 0.3, pulse_delay: 0.6, pulse_interval: 0.25, pulse_on_press: false };
        let input = level(&taps);
        let presses: Vec<(f64, f64)> = taps.chunks(2).filter_map(|c| Some((c[0], *c.get(1)?))).collect();
        // Decisions near a threshold are not frame-rate independent by
        // nature (a 0.19 s press is a tap at one rate and not another).
        let near = |d: f64, x: f64| (d - x).abs() < 2.0 * longest;
        let ambiguous = presses.iter().any(|&(a, b)| {
            let d = b - a;
            near(d, 0.2) || near(d, 0.5) || d > 0.6 && (((d - 0.6) / 0.25).fract() < 0.2 || ((d - 0.6) / 0.25).fract() > 0.8)
        }) || taps.windows(3).any(|w| near(w[2] - w[1], 0.3));
        if !ambiguous {
            // One entry per event: a hold and a pulse that fall in one frame
            // at one rate fall in two ticks of the truth.
            let key = |e: GestureEvents| {
                let mut s = Vec::new();
                if e.tap { s.push("tap".to_string()); }
                if e.double_tap { s.push("double".to_string()); }
                if e.hold { s.push("hold".to_string()); }
                for _ in 0..e.pulses { s.push("pulse".to_string()); }
                s
            };
            let base = decisions(Gestures::new(timings).unwrap(), &truth, &input, key);
            for (run, &step) in runs.iter().zip(&steps) {
                same_within_a_step(&base, &decisions(Gestures::new(timings).unwrap(), run, &input, key), step)?;
            }
        }

        // Dwell: two scores that cross at the given intervals.
        let cross_times: Vec<f64> = crossings.iter().scan(0.0, |t, g| { *t += g; Some(*t) }).collect();
        let scores = |t: f64| {
            let flip = cross_times.iter().filter(|&&c| c <= t).count() % 2 == 1;
            if flip { vec![0.2, 1.0] } else { vec![1.0, 0.2] }
        };
        let mk = || Dwell::new(0.1, 0.25).unwrap();
        let run_dwell = |frames: &[f64]| {
            let mut d = mk();
            let mut last = 0.0;
            let mut out = Vec::new();
            let mut prev = None;
            for &t in frames {
                let s = scores(t);
                let c = d.update(t - last, s.as_slice()).unwrap();
                if c != prev { out.push((t, format!("{c:?}"))); prev = c; }
                last = t;
            }
            out
        };
        let gaps_ok = crossings.iter().all(|&g| (g - 0.25).abs() > 2.0 * longest);
        if gaps_ok {
            let base = run_dwell(&truth);
            for (run, &step) in runs.iter().zip(&steps) {
                same_within_a_step(&base, &run_dwell(run), step)?;
            }
        }

        // Mode changes, at most one per 0.3 s, latest request kept.
        let times: Vec<(f64, u8)> = requests.iter().scan(0.0, |t, &(g, m)| { *t += g; Some((*t, m)) }).collect();
        let run_modes = |frames: &[f64]| {
            let mut m = ModeLimiter::new(0u8, 0.3, WhileCooling::KeepLatest).unwrap();
            let mut last = 0.0;
            let mut next = 0;
            let mut out = Vec::new();
            let mut prev = 0u8;
            for &t in frames {
                // The latest request made since the last frame.
                let mut req = None;
                while next < times.len() && times[next].0 <= t { req = Some(times[next].1); next += 1; }
                let mode = m.update(t - last, req).unwrap();
                if mode != prev { out.push((t, format!("{mode}"))); prev = mode; }
                last = t;
            }
            out
        };
        // Two requests inside one frame collapse to the later: keep them apart.
        let base = run_modes(&truth);
        // A request within a frame of a cooldown's end is taken at one rate
        // and waits at another (a decision at a threshold): keep them apart.
        let clear = times.iter().all(|&(r, _)| {
            base.iter().all(|(c, _)| (r - (c + 0.3)).abs() > 2.0 * longest)
        });
        if clear && requests.iter().all(|&(g, _)| g > 2.0 * longest) {
            for (run, &step) in runs.iter().zip(&steps) {
                same_within_a_step(&base, &run_modes(run), step)?;
            }
        }
    }
}

// ------------------------------------------------------------ batch

#[test]
fn a_batch_checks_every_input_before_it_changes_any() {
    let mut b = DiscreteBatch::new(Hysteresis::unity(), 3).unwrap();
    let mut out = [false; 3];
    b.update(0.1, &[0.9, 0.9, 0.9], &mut out).unwrap();
    assert_eq!(out, [true; 3]);
    assert!(b.update(0.1, &[0.0, f64::NAN, 0.0], &mut out).is_err());
    assert!(b.systems().iter().all(|h| h.is_on()));
    assert!(b.update(0.1, &[0.0, 0.0], &mut out).is_err());
    assert!(b.update(-1.0, &[0.0; 3], &mut out).is_err());
}

// ------------------------------------------------------------ inertialiser

proptest! {
    #[test]
    fn a_warp_leaves_value_and_velocity_continuous(
        speed in -5.0f64..5.0, warp in prop_oneof![-50.0f64..-2.0, 2.0f64..50.0],
        rate in prop_oneof![Just(30.0), Just(60.0), Just(144.0)],
        smooth in 0.1f64..0.4,
    ) {
        let mut s = Inertialiser::new(SpringDamper::critical(smooth).unwrap(), 0.0f64)
            .unwrap()
            .with_jump_threshold(1.0)
            .unwrap();
        let dt = 1.0 / rate;
        let mut t = 0.0;
        let (mut last_x, mut last_v) = (0.0f64, 0.0f64);
        let mut jumps = 0;
        // The spring's largest acceleration from a unit velocity offset and
        // value offset |warp|: bounded by ω²|warp| + 2ω|v|.
        let omega = 2.0 / smooth;
        let accel = omega * omega * (warp.abs() + 1.0) + 2.0 * omega * speed.abs() * 2.0;
        for i in 0..(3.0 * rate) as usize {
            t += dt;
            let input = speed * t + if t >= 1.0 { warp } else { 0.0 };
            let x = s.update(dt, input).unwrap();
            let v = s.velocity();
            jumps += usize::from(s.jumped());
            if i > 1 {
                prop_assert!((x - last_x).abs() <= (last_v.abs() + accel * dt) * dt * 1.01 + 1e-9,
                    "value jumped at {t}: {last_x} → {x}");
                prop_assert!((v - last_v).abs() <= accel * dt * 1.01 + 1e-9,
                    "velocity jumped at {t}: {last_v} → {v}");
            }
            last_x = x;
            last_v = v;
        }
        prop_assert_eq!(jumps, 1);
        // Three seconds on (two after the warp), the blend is over.
        let input = speed * t + warp;
        prop_assert!((last_x - input).abs() < 1e-2 * warp.abs(), "{last_x} vs {input}");
    }
}

#[test]
fn the_blend_is_exact_at_any_step_size() {
    // The offset's decay is the spring's closed form: one 0.5 s step after a
    // warp equals fifty 10 ms steps (input at rest).
    let mk = || {
        let mut s = Inertialiser::new(SpringDamper::critical(0.2).unwrap(), 0.0f64).unwrap();
        s.update(0.01, 0.0).unwrap();
        s.mark_jump();
        s.update(0.0, 10.0).unwrap();
        s
    };
    let mut one = mk();
    let mut many = mk();
    one.update(0.5, 10.0).unwrap();
    for _ in 0..50 {
        many.update(0.01, 10.0).unwrap();
    }
    assert!((one.value() - many.value()).abs() < 1e-12);
    assert!((one.velocity() - many.velocity()).abs() < 1e-10);
    assert!(one.value() < 10.0 && one.value() > 0.0);
}

#[test]
fn a_snapshot_buffers_stall_is_blended() {
    // A 20 Hz sender; the link stalls for a second, the buffer's playback
    // freezes and then jumps to the fresh samples; the inertialiser keeps
    // the output continuous.
    let mut buffer = SnapshotBuffer::new(SnapshotConfig::for_send_interval(0.05)).unwrap();
    let mut blend = Inertialiser::new(SpringDamper::critical(0.3).unwrap(), 0.0f64)
        .unwrap()
        .with_jump_threshold(0.5)
        .unwrap();
    let dt = 1.0 / 60.0;
    let (mut raw_max, mut out_max) = (0.0f64, 0.0f64);
    // The largest change of the per-frame step: a jump in velocity.
    let (mut raw_kink, mut out_kink) = (0.0f64, 0.0f64);
    let (mut raw_step, mut out_step): (Option<f64>, Option<f64>) = (None, None);
    let (mut last_raw, mut last_out): (Option<f64>, Option<f64>) = (None, None);
    let mut t = 0.0;
    let mut sent = 0.0;
    while t < 4.0 {
        t += dt;
        while sent <= t {
            let stalled = (1.5..2.5).contains(&sent);
            if !stalled {
                buffer.push(sent, 2.0 * sent).unwrap(); // moving at 2 units/s
            }
            sent += 0.05;
        }
        let Some(raw) = buffer.advance(dt).unwrap() else {
            continue;
        };
        let out = match last_out {
            None => {
                blend.reset(raw).unwrap();
                raw
            }
            Some(_) => blend.update(dt, raw).unwrap(),
        };
        if let (Some(r), Some(o)) = (last_raw, last_out) {
            raw_max = raw_max.max((raw - r).abs());
            out_max = out_max.max((out - o).abs());
            if let (Some(rs), Some(os)) = (raw_step, out_step) {
                raw_kink = raw_kink.max((raw - r - rs).abs());
                out_kink = out_kink.max((out - o - os).abs());
            }
            raw_step = Some(raw - r);
            out_step = Some(out - o);
        }
        last_raw = Some(raw);
        last_out = Some(out);
    }
    assert!(raw_max > 0.5, "the raw playback should jump: {raw_max}");
    assert!(
        out_max < raw_max / 5.0,
        "the blended output stepped by {out_max} (raw {raw_max})"
    );
    assert!(
        out_kink < raw_kink / 20.0,
        "the blended velocity jumped by {out_kink} per frame (raw {raw_kink})"
    );
}

/// The sector of an angle by arc tangent: the oracle for the stick's
/// square-and-dot-product rule.
fn sector_by_angle(x: f64, y: f64, n: i64) -> StickDirection {
    let width = std::f64::consts::TAU / n as f64;
    let k = (y.atan2(x) / width).round() as i64;
    let a = k as f64 * width;
    let (s, c) = a.sin_cos();
    let unit = |v: f64| {
        if v > 0.3 {
            1
        } else if v < -0.3 {
            -1
        } else {
            0
        }
    };
    StickDirection {
        x: unit(c),
        y: unit(s),
    }
}

proptest! {
    #[test]
    fn stick_sectors_match_the_arc_tangent(
        angle in 0.0f64..360.0, length in 0.5f64..1.5, from in 0.0f64..360.0,
        sectors in prop_oneof![Just(4u8), Just(8u8)], margin in 0.0f64..20.0,
    ) {
        let n = i64::from(sectors);
        let width = 360.0 / n as f64;
        let margin = margin.min(width / 2.0 - 0.5);
        let rule = StickRule::Radial { sectors, margin_degrees: margin };
        let near_edge = |a: f64, edge_from_centre: f64| {
            let off = ((a / width).round() * width - a).abs();
            (off - edge_from_centre).abs() < 1e-6
        };
        prop_assume!(!near_edge(angle, width / 2.0) && !near_edge(from, width / 2.0));
        let (s, c) = angle.to_radians().sin_cos();
        let p = [length * c, length * s];
        // From the centre: the nearest sector.
        let mut fresh = Stick::new(0.5, 0.375, rule).unwrap();
        prop_assert_eq!(fresh.update(0.1, p).unwrap(), sector_by_angle(p[0], p[1], n));
        // From another sector: kept within half a sector plus the margin.
        let mut held = Stick::new(0.5, 0.375, rule).unwrap();
        let (fs, fc) = from.to_radians().sin_cos();
        let current = held.update(0.1, [fc, fs]).unwrap();
        let centre = (f64::from(current.y)).atan2(f64::from(current.x)).to_degrees();
        let off = ((angle - centre + 540.0) % 360.0 - 180.0).abs();
        prop_assume!((off - (width / 2.0 + margin)).abs() > 1e-6);
        let want = if off <= width / 2.0 + margin { current } else { sector_by_angle(p[0], p[1], n) };
        prop_assert_eq!(held.update(0.1, p).unwrap(), want);
    }
}

#[test]
fn a_blend_ends_and_the_output_is_the_input_again() {
    let mut s = Inertialiser::new(SpringDamper::critical(0.2).unwrap(), 0.0f64)
        .unwrap()
        .with_jump_threshold(1.0)
        .unwrap();
    s.update(0.1, 0.5).unwrap();
    s.update(0.1, 20.0).unwrap();
    assert!(s.jumped() && s.offset() != 0.0);
    let mut t = 0.0;
    while s.offset() != 0.0 {
        s.update(1.0 / 60.0, 20.0).unwrap();
        t += 1.0 / 60.0;
        assert!(t < 10.0, "the blend never ended: offset {}", s.offset());
    }
    assert_eq!(s.value(), 20.0);
    assert_eq!(s.velocity(), 0.0);
}
