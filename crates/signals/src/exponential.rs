//! First-order exponential smoothing (a one-pole low-pass), frame-rate
//! independent: each step decays the error by exactly `exp(−dt/τ)`.

use crate::error::{SignalError, check_positive};
use crate::math::{self, Accurate, Exps, Single};
use crate::smoother::{Dynamics, Transition};

/// Exponential smoothing toward the target with time constant τ:
/// `ẋ = (g − x) / τ`.
///
/// Step response `1 − exp(−t/τ)`: half-way after `τ·ln 2` (the half-life),
/// 90% after 2.30τ; it never overshoots. A ramp of slope r is followed with a
/// lag of `r·τ` (exactly, at any frame rate, under [`crate::Hold::FirstOrder`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Exponential {
    tau: f64,
    /// 1/τ, so a step has no division.
    rate: f64,
}

impl Exponential {
    /// Smoothing with time constant `tau` seconds (63% of the way after τ).
    pub fn time_constant(tau: f64) -> Result<Self, SignalError> {
        let tau = check_positive("tau", tau)?;
        Ok(Exponential {
            tau,
            rate: 1.0 / tau,
        })
    }

    /// Smoothing that halves the distance to the target every `half_life` seconds.
    pub fn half_life(half_life: f64) -> Result<Self, SignalError> {
        let h = check_positive("half_life", half_life)?;
        Self::time_constant(h / core::f64::consts::LN_2)
    }

    /// The one-pole low-pass with cutoff (−3 dB) frequency `hz`: τ = 1/(2π·hz).
    pub fn cutoff_hz(hz: f64) -> Result<Self, SignalError> {
        let f = check_positive("cutoff_hz", hz)?;
        Self::time_constant(1.0 / (core::f64::consts::TAU * f))
    }

    /// The exact equivalent of the common per-frame `x = lerp(x, g, k)` run
    /// at `fps` frames per second, so ported code keeps its feel at any
    /// frame rate. `k` must be in (0, 1).
    pub fn from_lerp_per_frame(k: f64, fps: f64) -> Result<Self, SignalError> {
        if !(k > 0.0 && k < 1.0) {
            return Err(SignalError::InvalidParameter {
                name: "k",
                value: k,
                expected: "in (0, 1)",
            });
        }
        let fps = check_positive("fps", fps)?;
        // (1 − k) per frame = exp(−(1/fps)/τ).
        let tau = -1.0 / (fps * (-k).ln_1p_compat());
        Self::time_constant(tau)
    }

    /// τ, seconds.
    pub fn tau(&self) -> f64 {
        self.tau
    }

    /// The half-life τ·ln 2, seconds.
    pub fn half_life_seconds(&self) -> f64 {
        self.tau * core::f64::consts::LN_2
    }

    /// The fraction of the error left after `dt`: `exp(−dt/τ)`.
    #[inline]
    pub fn decay(&self, dt: f64) -> f64 {
        math::exp(-dt / self.tau)
    }
}

/// `ln(1 + x)` from the functions `math` offers (exact enough for k in (0, 1)).
trait Ln1p {
    fn ln_1p_compat(self) -> f64;
}
impl Ln1p for f64 {
    fn ln_1p_compat(self) -> f64 {
        #[cfg(feature = "std")]
        {
            self.ln_1p()
        }
        #[cfg(not(feature = "std"))]
        {
            libm::log1p(self)
        }
    }
}

impl Exponential {
    #[inline]
    fn transition_with<E: Exps>(&self, dt: f64) -> Transition {
        let (a, one_minus_a) = E::decay(dt * self.rate);
        // e' = −e/τ − v: e₁ = a·e − vτ(1 − a); ė₁ = −e₁/τ − v.
        Transition {
            ee: a,
            ed: 0.0,
            ev: -self.tau * one_minus_a,
            de: -a * self.rate,
            dd: 0.0,
            dv: -a,
        }
    }
}

impl Dynamics for Exponential {
    #[inline]
    fn transition(&self, dt: f64) -> Transition {
        self.transition_with::<Accurate>(dt)
    }

    #[inline]
    fn transition_single(&self, dt: f64) -> Transition {
        self.transition_with::<Single>(dt)
    }

    fn second_order(&self) -> bool {
        false
    }
}
