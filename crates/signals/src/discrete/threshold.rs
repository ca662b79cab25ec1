//! Thresholds with hysteresis: an analog value as a button or a warning
//! state, and a 2-D stick as directions that do not flicker at a diagonal.

use super::Discrete;
use crate::error::SignalError;
use crate::math::cos;

fn check_finite(name: &'static str, value: f64) -> Result<f64, SignalError> {
    if value.is_finite() {
        Ok(value)
    } else {
        Err(SignalError::InvalidParameter {
            name,
            value,
            expected: "finite",
        })
    }
}

/// An analog value as an on/off state with separate press and release
/// points, so noise smaller than the band between them never flickers the
/// output.
///
/// With `press > release` the state turns on when the value reaches
/// `press` and off when it falls to `release` or below (a trigger as a
/// button). With `press < release` it is the other way round: on at or below
/// `press`, off above `release` (health as a "low health" warning).
///
/// An optional dead zone first maps the magnitude: below `min` is 0, above
/// `max` is 1, linear between, sign kept (Unity's axis dead zone).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Hysteresis {
    press: f64,
    release: f64,
    dead_zone: Option<(f64, f64)>,
    on: bool,
    since_change: f64,
}

impl Hysteresis {
    /// On at `press`, off at `release`; they must be finite and differ.
    pub fn new(press: f64, release: f64) -> Result<Self, SignalError> {
        check_finite("press", press)?;
        check_finite("release", release)?;
        if press == release {
            return Err(SignalError::InvalidParameter {
                name: "release",
                value: release,
                expected: "different from press (use Hysteresis::naive for one point)",
            });
        }
        Ok(Hysteresis::points_unchecked(press, release))
    }

    /// Off, at the given points, no dead zone.
    const fn points_unchecked(press: f64, release: f64) -> Self {
        Hysteresis {
            press,
            release,
            dead_zone: None,
            on: false,
            since_change: f64::INFINITY,
        }
    }

    /// One point and no band (`value >= point` is on): the naive threshold,
    /// and Unreal's Enhanced Input `Down` trigger at its actuation threshold
    /// of 0.5. Noise at the point flickers it.
    pub fn naive(point: f64) -> Result<Self, SignalError> {
        check_finite("point", point)?;
        Ok(Hysteresis::points_unchecked(point, point))
    }

    /// Unity's Input System defaults for a button: press point 0.5, release
    /// at 75 % of it (0.375).
    pub fn unity() -> Self {
        Hysteresis::points_unchecked(0.5, 0.375)
    }

    /// Maps the input's magnitude through a dead zone first (`0 <= min < max`).
    /// Unity's defaults are 0.125 and 0.925.
    pub fn with_dead_zone(mut self, min: f64, max: f64) -> Result<Self, SignalError> {
        check_finite("min", min)?;
        check_finite("max", max)?;
        if min < 0.0 {
            return Err(SignalError::InvalidParameter {
                name: "min",
                value: min,
                expected: ">= 0",
            });
        }
        if max <= min {
            return Err(SignalError::InvalidParameter {
                name: "max",
                value: max,
                expected: "> min",
            });
        }
        self.dead_zone = Some((min, max));
        Ok(self)
    }

    /// Starts on or off (a reset).
    pub fn with_state(mut self, on: bool) -> Self {
        self.on = on;
        self.since_change = f64::INFINITY;
        self
    }

    /// Whether it is on.
    pub fn is_on(&self) -> bool {
        self.on
    }

    /// Seconds since the state last changed (∞ before the first change).
    pub fn since_change(&self) -> f64 {
        self.since_change
    }

    /// The press and release points.
    pub fn points(&self) -> (f64, f64) {
        (self.press, self.release)
    }

    /// The input after the dead zone.
    pub fn shaped(&self, input: f64) -> f64 {
        match self.dead_zone {
            None => input,
            Some((min, max)) => {
                let magnitude = input.abs();
                let mapped = if magnitude <= min {
                    0.0
                } else if magnitude >= max {
                    1.0
                } else {
                    (magnitude - min) / (max - min)
                };
                mapped.copysign(input)
            }
        }
    }

    /// The state the rule gives for `value` from state `on`, ignoring time.
    #[inline]
    fn next(&self, on: bool, value: f64) -> bool {
        if self.press >= self.release {
            value >= self.press || (on && value > self.release)
        } else {
            value <= self.press || (on && value < self.release)
        }
    }
}

impl Discrete<f64> for Hysteresis {
    type Output = bool;

    fn check_input(&self, input: &f64) -> Result<(), SignalError> {
        if input.is_nan() {
            Err(SignalError::NonFiniteInput { what: "input" })
        } else {
            Ok(())
        }
    }

    #[inline]
    fn update_unchecked(&mut self, dt: f64, input: f64) -> bool {
        let on = self.next(self.on, self.shaped(input));
        if on == self.on {
            self.since_change += dt;
        } else {
            self.on = on;
            self.since_change = dt;
        }
        on
    }
}

/// Which way a stick points, as a d-pad would: each of `x` and `y` is −1, 0
/// or 1 (`y` up). `(0, 0)` is centred.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct StickDirection {
    /// −1 left, 1 right.
    pub x: i8,
    /// −1 down, 1 up.
    pub y: i8,
}

impl StickDirection {
    /// Centred.
    pub const CENTRE: StickDirection = StickDirection { x: 0, y: 0 };

    /// Whether it points anywhere.
    pub fn is_active(&self) -> bool {
        *self != Self::CENTRE
    }
}

/// How a [`Stick`] turns two axes into a direction.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum StickRule {
    /// The stick's length against the press and release points, then its
    /// angle into `sectors` equal sectors (4 or 8). The current sector is
    /// kept until the angle leaves it by more than `margin_degrees`, so a
    /// stick held on a boundary (22.5° for eight) does not flicker.
    Radial {
        /// 4 or 8.
        sectors: u8,
        /// How far past a sector's edge the angle must go, degrees.
        margin_degrees: f64,
    },
    /// Each axis on its own with the press and release points, on the raw
    /// values: a diagonal is two axes on, each at 0.707 of full tilt, far
    /// from the points (no normalising that puts the axes at the threshold).
    PerAxis,
}

/// A 2-D stick as a direction, with hysteresis on its length (radial) or on
/// each axis.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Stick {
    press: f64,
    release: f64,
    rule: StickRule,
    /// cos² of the angle from a sector's centre within which it is kept.
    keep_cos2: f64,
    direction: StickDirection,
    since_change: f64,
}

impl Stick {
    /// A stick with `press > release > 0` on its length or on each axis.
    pub fn new(press: f64, release: f64, rule: StickRule) -> Result<Self, SignalError> {
        check_finite("press", press)?;
        check_finite("release", release)?;
        if !(release > 0.0 && press > release) {
            return Err(SignalError::InvalidParameter {
                name: "release",
                value: release,
                expected: "> 0 and < press",
            });
        }
        let mut keep_cos2 = 0.0;
        if let StickRule::Radial {
            sectors,
            margin_degrees,
        } = rule
        {
            if sectors != 4 && sectors != 8 {
                return Err(SignalError::InvalidParameter {
                    name: "sectors",
                    value: f64::from(sectors),
                    expected: "4 or 8",
                });
            }
            let half = 180.0 / f64::from(sectors);
            if !(margin_degrees.is_finite() && (0.0..half).contains(&margin_degrees)) {
                return Err(SignalError::InvalidParameter {
                    name: "margin_degrees",
                    value: margin_degrees,
                    expected: "finite, >= 0 and under half a sector",
                });
            }
            let c = cos((half + margin_degrees) * (core::f64::consts::PI / 180.0));
            keep_cos2 = c * c;
        }
        Ok(Stick {
            press,
            release,
            rule,
            keep_cos2,
            direction: StickDirection::CENTRE,
            since_change: f64::INFINITY,
        })
    }

    /// The current direction.
    pub fn direction(&self) -> StickDirection {
        self.direction
    }

    /// Seconds since the direction last changed.
    pub fn since_change(&self) -> f64 {
        self.since_change
    }

    fn axis(&self, state: i8, value: f64) -> i8 {
        let held = match state {
            1 => value > self.release,
            -1 => value < -self.release,
            _ => false,
        };
        if held {
            state
        } else if value >= self.press {
            1
        } else if value <= -self.press {
            -1
        } else {
            0
        }
    }

    fn next(&self, [x, y]: [f64; 2]) -> StickDirection {
        match self.rule {
            StickRule::PerAxis => StickDirection {
                x: self.axis(self.direction.x, x),
                y: self.axis(self.direction.y, y),
            },
            StickRule::Radial { sectors, .. } => {
                // Squares and dot products, no square root or arc tangent:
                // a stick is read for every player every frame.
                let length2 = x * x + y * y;
                let active = self.direction.is_active();
                let (press2, release2) = (self.press * self.press, self.release * self.release);
                if !(length2 >= press2 || (active && length2 > release2)) {
                    return StickDirection::CENTRE;
                }
                if active {
                    let (dx, dy) = (f64::from(self.direction.x), f64::from(self.direction.y));
                    let dot = x * dx + y * dy;
                    if dot > 0.0 && dot * dot >= self.keep_cos2 * length2 * (dx * dx + dy * dy) {
                        return self.direction;
                    }
                }
                let sign = |v: f64| if v > 0.0 { 1 } else { -1 };
                if sectors == 4 {
                    if x.abs() >= y.abs() {
                        StickDirection { x: sign(x), y: 0 }
                    } else {
                        StickDirection { x: 0, y: sign(y) }
                    }
                } else {
                    // Eight sectors of 45°: an axis counts when the stick is
                    // within 67.5° of it, |v| > tan(22.5°)·|other|.
                    let tan = core::f64::consts::SQRT_2 - 1.0;
                    StickDirection {
                        x: if x.abs() > tan * y.abs() { sign(x) } else { 0 },
                        y: if y.abs() > tan * x.abs() { sign(y) } else { 0 },
                    }
                }
            }
        }
    }
}

impl Discrete<[f64; 2]> for Stick {
    type Output = StickDirection;

    fn check_input(&self, input: &[f64; 2]) -> Result<(), SignalError> {
        if input.iter().all(|v| v.is_finite()) {
            Ok(())
        } else {
            Err(SignalError::NonFiniteInput { what: "stick" })
        }
    }

    fn update_unchecked(&mut self, dt: f64, input: [f64; 2]) -> StickDirection {
        let next = self.next(input);
        if next == self.direction {
            self.since_change += dt;
        } else {
            self.direction = next;
            self.since_change = dt;
        }
        next
    }
}

impl Discrete<[f32; 2]> for Stick {
    type Output = StickDirection;

    fn check_input(&self, input: &[f32; 2]) -> Result<(), SignalError> {
        <Self as Discrete<[f64; 2]>>::check_input(self, &input.map(f64::from))
    }

    fn update_unchecked(&mut self, dt: f64, input: [f32; 2]) -> StickDirection {
        <Self as Discrete<[f64; 2]>>::update_unchecked(self, dt, input.map(f64::from))
    }
}
