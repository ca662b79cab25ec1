//! Gestures on a bool (a key, a button after [`super::Hysteresis`]): tap,
//! hold, double tap and pulse, timed in seconds as Unreal's Enhanced Input
//! triggers and Unity's interactions are, not in frames.

use super::Discrete;
use crate::error::{SignalError, check_positive};
use crate::math::floor;

/// The timings of [`Gestures`], in seconds.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GestureTimings {
    /// A press released within this time is a tap.
    pub tap: f64,
    /// A press held this long fires a hold (once per press); must be ≥ `tap`.
    pub hold: f64,
    /// A tap whose press starts within this time of the previous tap's
    /// release makes a double tap.
    pub double_tap_gap: f64,
    /// While held, the first pulse after the press (`pulse_on_press` adds one
    /// at the press itself).
    pub pulse_delay: f64,
    /// Then one pulse every this many seconds while held.
    pub pulse_interval: f64,
    /// Whether a pulse fires at the press itself (Unreal's `bTriggerOnStart`).
    pub pulse_on_press: bool,
}

impl Default for GestureTimings {
    /// A tap within 0.2 s (Unity's and Unreal's default), hold at 0.5 s,
    /// double tap within 0.3 s, and a key's auto-repeat: a pulse at the press,
    /// the next after 0.5 s, then every 0.1 s.
    fn default() -> Self {
        GestureTimings {
            tap: 0.2,
            hold: 0.5,
            double_tap_gap: 0.3,
            pulse_delay: 0.5,
            pulse_interval: 0.1,
            pulse_on_press: true,
        }
    }
}

impl GestureTimings {
    /// Unreal Enhanced Input's defaults: tap 0.2 s, hold 1 s, pulse every
    /// 1 s with one at the start (double tap, which Unreal has no trigger
    /// for, at Unity's 0.75 s).
    pub fn unreal() -> Self {
        GestureTimings {
            tap: 0.2,
            hold: 1.0,
            double_tap_gap: 0.75,
            pulse_delay: 1.0,
            pulse_interval: 1.0,
            pulse_on_press: true,
        }
    }

    /// Unity Input System's defaults: tap 0.2 s, hold 0.4 s, multi-tap delay
    /// 0.75 s (Unity has no pulse; the key-repeat pulse of the default).
    pub fn unity() -> Self {
        GestureTimings {
            tap: 0.2,
            hold: 0.4,
            double_tap_gap: 0.75,
            ..GestureTimings::default()
        }
    }

    fn check(self) -> Result<Self, SignalError> {
        check_positive("tap", self.tap)?;
        check_positive("hold", self.hold)?;
        check_positive("double_tap_gap", self.double_tap_gap)?;
        check_positive("pulse_delay", self.pulse_delay)?;
        check_positive("pulse_interval", self.pulse_interval)?;
        if self.hold < self.tap {
            return Err(SignalError::InvalidParameter {
                name: "hold",
                value: self.hold,
                expected: ">= tap (a press cannot be both)",
            });
        }
        Ok(self)
    }
}

/// What happened during one update. Presses and releases are taken at the
/// start of the step (the input holds over it), so there is at most one of
/// each per update; pulses can be several in one long step.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct GestureEvents {
    /// The button went down.
    pub pressed: bool,
    /// The button went up.
    pub released: bool,
    /// A tap ended (at the release). The second tap of a double tap reports
    /// `double_tap` instead, so a game sees tap, then double tap.
    pub tap: bool,
    /// A double tap ended.
    pub double_tap: bool,
    /// The press reached the hold time.
    pub hold: bool,
    /// How many pulses fell in this step.
    pub pulses: u32,
    /// Whether the button is down after the step.
    pub down: bool,
}

/// Tap, hold, double tap and pulse from one bool, by time.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Gestures {
    timings: GestureTimings,
    down: bool,
    held_for: f64,
    hold_fired: bool,
    /// This press started within the gap after a tap.
    second_press: bool,
    /// Seconds since the last single tap's release (None: no tap to pair).
    since_tap: Option<f64>,
}

impl Gestures {
    /// Up, with the given timings (all > 0, `hold >= tap`).
    pub fn new(timings: GestureTimings) -> Result<Self, SignalError> {
        Ok(Gestures {
            timings: timings.check()?,
            down: false,
            held_for: 0.0,
            hold_fired: false,
            second_press: false,
            since_tap: None,
        })
    }

    /// The timings.
    pub fn timings(&self) -> &GestureTimings {
        &self.timings
    }

    /// How long the button has been down (0 while up).
    pub fn held_for(&self) -> f64 {
        if self.down { self.held_for } else { 0.0 }
    }

    /// Pulses at held times before `h`: `[0, h)`.
    fn pulses_before(&self, h: f64) -> f64 {
        let t = &self.timings;
        let at_press = if t.pulse_on_press && h > 0.0 {
            1.0
        } else {
            0.0
        };
        let later = if h > t.pulse_delay {
            // Fire times delay + k·interval < h, k ≥ 0.
            let k = (h - t.pulse_delay) / t.pulse_interval;
            let whole = floor(k);
            if whole == k { k } else { whole + 1.0 }
        } else {
            0.0
        };
        at_press + later
    }
}

impl Discrete<bool> for Gestures {
    type Output = GestureEvents;

    fn check_input(&self, _input: &bool) -> Result<(), SignalError> {
        Ok(())
    }

    fn update_unchecked(&mut self, dt: f64, down: bool) -> GestureEvents {
        let mut events = GestureEvents {
            down,
            ..GestureEvents::default()
        };
        if down {
            let h0 = if self.down {
                self.held_for
            } else {
                events.pressed = true;
                self.down = true;
                self.hold_fired = false;
                self.second_press = self
                    .since_tap
                    .is_some_and(|gap| gap <= self.timings.double_tap_gap);
                self.since_tap = None;
                0.0
            };
            let h1 = h0 + dt;
            let pulses = self.pulses_before(h1) - self.pulses_before(h0);
            events.pulses = if pulses >= f64::from(u32::MAX) {
                u32::MAX
            } else {
                pulses as u32
            };
            if !self.hold_fired && h1 >= self.timings.hold {
                self.hold_fired = true;
                events.hold = true;
            }
            self.held_for = h1;
        } else if self.down {
            events.released = true;
            self.down = false;
            let tap = !self.hold_fired && self.held_for <= self.timings.tap;
            if tap && self.second_press {
                events.double_tap = true;
                self.since_tap = None;
            } else if tap {
                events.tap = true;
                self.since_tap = Some(dt);
            } else {
                self.since_tap = None;
            }
            self.second_press = false;
            self.held_for = 0.0;
        } else if let Some(gap) = &mut self.since_tap {
            *gap += dt;
        }
        events
    }
}
