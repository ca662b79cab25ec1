//! The mass–spring–damper at any damping ratio, stepped by its exact
//! closed form; the critically damped spring ("smooth damp"), the
//! second-order low-pass and the tracking (velocity-goal) spring are
//! parameterisations of it.

use crate::error::{SignalError, check_non_negative, check_positive};
use crate::math::{self, Accurate, Exps, Single};
use crate::smoother::{Dynamics, Transition};

/// `ẍ = ω²(g − x) − 2ζω(ẋ − k·ġ)`, with natural frequency ω (rad/s) and
/// damping ratio ζ; `k = 0` for the plain spring (damping against the
/// ground) and `k = 1` for the tracking spring (damping against the target's
/// velocity).
///
/// - ζ < 1 under-damped: overshoots by `exp(−πζ/√(1−ζ²))`.
/// - ζ = 1 critically damped: the fastest approach without overshoot from rest.
/// - ζ > 1 over-damped: slower, never overshoots from rest.
///
/// As a filter it is the second-order low-pass `ω²/(s² + 2ζωs + ω²)`: ramp
/// lag `2ζ·r/ω` for the plain spring, zero for the tracking spring.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SpringDamper {
    omega: f64,
    zeta: f64,
    tracking: bool,
    // Derived once so a step costs no division or square root:
    /// ζω.
    zeta_omega: f64,
    /// ω_d (under-damped) or ω_h (over-damped); 0 when critical.
    omega_split: f64,
    /// 1/ω_d or 1/(2ω_h); 0 when critical.
    inv_split: f64,
    /// Decay rates of the over-damped slow and fast modes; 0 otherwise.
    slow_rate: f64,
    fast_rate: f64,
    /// −2ζ/ω: the steady error per unit of target speed.
    ramp_error: f64,
}

impl SpringDamper {
    /// A spring with natural frequency `omega` (rad/s, > 0) and damping
    /// ratio `zeta` (≥ 0).
    pub fn new(omega: f64, zeta: f64) -> Result<Self, SignalError> {
        let w = check_positive("omega", omega)?;
        let z = check_non_negative("zeta", zeta)?;
        let (mut omega_split, mut inv_split, mut slow_rate, mut fast_rate) = (0.0, 0.0, 0.0, 0.0);
        if z < 1.0 {
            omega_split = w * math::sqrt((1.0 - z) * (1.0 + z));
            inv_split = 1.0 / omega_split;
        } else if z > 1.0 {
            let root = math::sqrt((z - 1.0) * (z + 1.0));
            omega_split = w * root;
            inv_split = 1.0 / (2.0 * omega_split);
            // The slow root ω/(ζ + √(ζ²−1)), written without cancellation.
            slow_rate = w / (z + root);
            fast_rate = w * (z + root);
        }
        Ok(SpringDamper {
            omega: w,
            zeta: z,
            tracking: false,
            zeta_omega: z * w,
            omega_split,
            inv_split,
            slow_rate,
            fast_rate,
            ramp_error: -2.0 * z / w,
        })
    }

    /// A spring with natural frequency `hz` (cycles per second) and damping ratio `zeta`.
    pub fn frequency_hz(hz: f64, zeta: f64) -> Result<Self, SignalError> {
        Self::new(core::f64::consts::TAU * check_positive("hz", hz)?, zeta)
    }

    /// The critically damped spring of game engines' "smooth damp", with
    /// their `smooth_time` convention ω = 2 / smooth_time. Beware: at
    /// `t = smooth_time` a step is only 59% done (50% at 0.84, 90% at 1.95,
    /// 99% at 3.32 smooth times); a ramp lags by `r · smooth_time`.
    pub fn critical(smooth_time: f64) -> Result<Self, SignalError> {
        Self::new(2.0 / check_positive("smooth_time", smooth_time)?, 1.0)
    }

    /// The critically damped spring whose step response is half-way after
    /// `half_life` seconds (ω = 1.678347/half_life).
    pub fn critical_half_life(half_life: f64) -> Result<Self, SignalError> {
        // Solves 1 − (1 + u)e^(−u) = 1/2 for u = ωt.
        const U_HALF: f64 = 1.678_346_990_016_660_6;
        Self::new(U_HALF / check_positive("half_life", half_life)?, 1.0)
    }

    /// The second-order low-pass with cutoff frequency `hz` and damping
    /// `zeta` (ζ = 1/√2 is Butterworth: flattest pass band, −3 dB at `hz`).
    /// Its [`crate::System::velocity`] is the smoothed derivative.
    pub fn low_pass(hz: f64, zeta: f64) -> Result<Self, SignalError> {
        Self::frequency_hz(hz, zeta)
    }

    /// The Butterworth second-order low-pass with cutoff `hz`.
    pub fn butterworth(hz: f64) -> Result<Self, SignalError> {
        Self::low_pass(hz, core::f64::consts::FRAC_1_SQRT_2)
    }

    /// This spring, damped against the target's velocity instead of the
    /// ground: it follows a moving target with no lag once settled (a
    /// velocity-goal spring). With [`crate::Hold::Zero`] the target's
    /// velocity is zero, so it is then the same as the plain spring: use
    /// [`crate::Hold::FirstOrder`] or `update_with_velocity`.
    pub fn tracking(mut self) -> Self {
        self.tracking = true;
        self
    }

    /// ω, rad/s.
    pub fn omega(&self) -> f64 {
        self.omega
    }

    /// ζ.
    pub fn zeta(&self) -> f64 {
        self.zeta
    }

    /// Whether damping acts against the target's velocity.
    pub fn is_tracking(&self) -> bool {
        self.tracking
    }

    /// `(E·C, E·S)` over `t`: with E = e^(−ζωt) and, by regime,
    /// C = cos ω_d t, S = sin(ω_d t)/ω_d (under-damped), C = 1, S = t
    /// (critical), or C = cosh, S = sinh(ω_h t)/ω_h (over-damped), each
    /// written so that it neither overflows for huge t nor cancels near ζ = 1.
    #[inline(always)]
    fn decay_terms<E: Exps>(&self, t: f64) -> (f64, f64) {
        let z = self.zeta;
        if z < 1.0 {
            let e = E::exp_neg(self.zeta_omega * t);
            let (sin, cos) = math::sin_cos(self.omega_split * t);
            (e * cos, e * sin * self.inv_split)
        } else if z == 1.0 {
            let e = E::exp_neg(self.omega * t);
            (e, t * e)
        } else {
            let slow = E::exp_neg(self.slow_rate * t);
            let fast = E::exp_neg(self.fast_rate * t);
            let sinh_term =
                slow * E::one_minus_exp_neg(2.0 * self.omega_split * t) * self.inv_split;
            (0.5 * (slow + fast), sinh_term)
        }
    }
}

impl SpringDamper {
    #[inline(always)]
    fn transition_with<E: Exps>(&self, dt: f64) -> Transition {
        let (ec, es) = self.decay_terms::<E>(dt);
        let (w, zw) = (self.omega, self.zeta_omega);
        // Homogeneous part on y = e − p·v, where p·v is the steady error
        // while following a ramp of slope v.
        let a = ec + zw * es;
        let b = es;
        let c = -w * w * es;
        let d = ec - zw * es;
        let p = if self.tracking { 0.0 } else { self.ramp_error };
        Transition {
            ee: a,
            ed: b,
            ev: p * (1.0 - a),
            de: c,
            dd: d,
            dv: -c * p,
        }
    }
}

impl Dynamics for SpringDamper {
    #[inline]
    fn transition(&self, dt: f64) -> Transition {
        self.transition_with::<Accurate>(dt)
    }

    #[inline(always)]
    fn transition_single(&self, dt: f64) -> Transition {
        self.transition_with::<Single>(dt)
    }

    fn second_order(&self) -> bool {
        true
    }
}
