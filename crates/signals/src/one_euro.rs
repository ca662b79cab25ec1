//! The 1€ filter (Casiez, Roussel, Vogel, CHI 2012): a one-pole low-pass
//! whose cutoff rises with speed, so slow motion is smoothed hard (no
//! jitter) and fast motion passes with little lag.

use crate::error::{SignalError, check_dt, check_non_negative, check_positive};
use crate::space::Vector;
use crate::system::System;

/// The 1€ filter, step for step as the authors' reference implementation
/// (PyPI `OneEuroFilter` 0.2.1) computes it, with the elapsed time given per
/// sample: a test replays a trace of the reference within 1e-9.
///
/// Tuning, per the authors: set `beta = 0` and lower `min_cutoff` (Hz) until
/// jitter at rest is acceptable, then raise `beta` until fast motion lags
/// little. `beta` depends on the signal's units (it multiplies a speed).
///
/// The speed can be taken from the filtered signal (the default, as the
/// reference 0.2.1 does) or from the raw samples ([`Self::with_raw_derivative`],
/// as the authors' 2012 code and the `one-euro` crate do): the raw form
/// reacts a little sooner and is cheaper (no division on the step-to-step
/// dependency chain), the filtered form is a little calmer.
///
/// Differences from the reference, where it has no answer: `dt = 0` returns
/// the previous output (the reference divides by zero); a vector's cutoff
/// uses the Euclidean norm of the smoothed velocity (per-component filters
/// are a vector of scalar filters). Before the first sample, `value()` is zero.
#[derive(Debug, Clone, Copy)]
pub struct OneEuro<V: Vector> {
    min_cutoff: f64,
    beta: f64,
    d_cutoff: f64,
    value: Option<V>,
    derivative: V,
    /// The previous raw sample, when the speed is taken from raw samples.
    raw: Option<V>,
    raw_derivative: bool,
}

impl<V: Vector> OneEuro<V> {
    /// A filter with minimum cutoff `min_cutoff` Hz (> 0), speed coefficient
    /// `beta` (≥ 0) and derivative cutoff `d_cutoff` Hz (> 0; the authors use 1).
    pub fn new(min_cutoff: f64, beta: f64, d_cutoff: f64) -> Result<Self, SignalError> {
        Ok(OneEuro {
            min_cutoff: check_positive("min_cutoff", min_cutoff)?,
            beta: check_non_negative("beta", beta)?,
            d_cutoff: check_positive("d_cutoff", d_cutoff)?,
            value: None,
            derivative: V::zero(),
            raw: None,
            raw_derivative: false,
        })
    }

    /// Takes the speed from the raw samples instead of the filtered signal.
    pub fn with_raw_derivative(mut self) -> Self {
        self.raw_derivative = true;
        self
    }

    /// The smoothing factor of one step of `dt` seconds at `cutoff` Hz, as
    /// the reference computes it: `1 / (1 + τ/Te)`, τ = 1/(2π·cutoff), Te = dt.
    #[inline]
    fn alpha(cutoff: f64, te: f64) -> f64 {
        // 1/(1 + τ/Te) with τ = 1/(2π·cutoff), rewritten with one division.
        let k = core::f64::consts::TAU * cutoff * te;
        k / (1.0 + k)
    }

    /// The filtered derivative (units per second).
    pub fn derivative(&self) -> V {
        self.derivative
    }
}

impl<V: Vector> System<V> for OneEuro<V> {
    #[inline]
    fn update(&mut self, dt: f64, x: V) -> Result<V, SignalError> {
        check_dt(dt)?;
        if !x.is_finite() {
            return Err(SignalError::NonFiniteInput { what: "sample" });
        }
        let Some(prev) = self.value else {
            // The first sample passes through; the derivative starts at 0.
            self.value = Some(x);
            self.raw = Some(x);
            self.derivative = V::zero();
            return Ok(x);
        };
        if dt == 0.0 {
            return Ok(prev);
        }
        let te = dt;
        let base = if self.raw_derivative {
            self.raw.unwrap_or(prev)
        } else {
            prev
        };
        let dx = x.sub(base).scale_f64(1.0 / dt);
        let a_d = Self::alpha(self.d_cutoff, te);
        let edx = dx.scale_f64(a_d).add(self.derivative.scale_f64(1.0 - a_d));
        let cutoff = self.min_cutoff + self.beta * edx.norm();
        let a = Self::alpha(cutoff, te);
        let next = x.scale_f64(a).add(prev.scale_f64(1.0 - a));
        if next.is_finite() && edx.is_finite() {
            self.value = Some(next);
            self.raw = Some(x);
            self.derivative = edx;
            Ok(next)
        } else {
            Err(SignalError::NonFiniteInput {
                what: "sample (its derivative overflows)",
            })
        }
    }

    fn value(&self) -> V {
        self.value.unwrap_or_else(V::zero)
    }

    fn velocity(&self) -> V {
        self.derivative
    }

    fn reset(&mut self, value: V) -> Result<(), SignalError> {
        let value = crate::system::check_initial(value)?;
        self.value = Some(value);
        self.raw = Some(value);
        self.derivative = V::zero();
        Ok(())
    }
}
