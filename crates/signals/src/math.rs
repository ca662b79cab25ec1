//! The number types, and the few transcendental functions the systems need,
//! taken from `std` or, without it, from `libm`.
//!
//! Every coefficient (decays, spring transitions) is computed in `f64` and
//! only then cast to the value's scalar, so an `f32` system keeps `f32`
//! storage with `f64`-accurate steps. Time is always `f64` seconds: an `f32`
//! clock loses milliseconds after a few hours.

use core::fmt::Debug;
use core::ops::{Add, Div, Mul, Neg, Sub};

/// A scalar the systems store values in: `f32` or `f64`.
pub trait Float:
    Copy
    + Debug
    + PartialOrd
    + Default
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Div<Output = Self>
    + Neg<Output = Self>
    + crate::space::Vector<Scalar = Self>
{
    /// 0.
    const ZERO: Self;
    /// 1.
    const ONE: Self;
    /// The nearest value of this type.
    fn from_f64(value: f64) -> Self;
    /// The exact value as an `f64`.
    fn to_f64(self) -> f64;
    /// Whether this is single precision: its systems may compute their
    /// coefficients with cheaper functions accurate to 1e-8 (relative).
    const SINGLE: bool;
}

impl Float for f32 {
    const SINGLE: bool = true;
    const ZERO: Self = 0.0;
    const ONE: Self = 1.0;
    #[inline]
    fn from_f64(value: f64) -> Self {
        value as f32
    }
    #[inline]
    fn to_f64(self) -> f64 {
        f64::from(self)
    }
}

impl Float for f64 {
    const SINGLE: bool = false;
    const ZERO: Self = 0.0;
    const ONE: Self = 1.0;
    #[inline]
    fn from_f64(value: f64) -> Self {
        value
    }
    #[inline]
    fn to_f64(self) -> f64 {
        self
    }
}

#[cfg(not(any(feature = "std", feature = "libm")))]
compile_error!(
    "signals needs either the `std` feature (the default) or the `libm` feature for its math"
);

macro_rules! math_fns {
    ($($name:ident => $libm:ident),*) => {$(
        #[inline]
        pub(crate) fn $name(x: f64) -> f64 {
            #[cfg(feature = "std")]
            { x.$name() }
            #[cfg(not(feature = "std"))]
            { libm::$libm(x) }
        }
    )*};
}
math_fns!(exp => exp, exp_m1 => expm1, sin => sin, cos => cos, sqrt => sqrt, floor => floor);

#[inline]
pub(crate) fn sin_cos(x: f64) -> (f64, f64) {
    #[cfg(feature = "std")]
    {
        x.sin_cos()
    }
    #[cfg(not(feature = "std"))]
    {
        libm::sincos(x)
    }
}

#[inline]
pub(crate) fn atan2(y: f64, x: f64) -> f64 {
    #[cfg(feature = "std")]
    {
        y.atan2(x)
    }
    #[cfg(not(feature = "std"))]
    {
        libm::atan2(y, x)
    }
}

/// `x` wrapped into `[-π, π)`.
#[inline]
pub(crate) fn wrap_pi(x: f64) -> f64 {
    use core::f64::consts::{PI, TAU};
    let r = x - TAU * floor((x + PI) / TAU);
    // Rounding can land exactly on +π; keep the interval half-open.
    if r >= PI { r - TAU } else { r }
}

/// The exponentials a transition needs, in a given precision.
pub(crate) trait Exps {
    /// `(e^(−x), 1 − e^(−x))` for `x ≥ 0`, each without cancellation.
    fn decay(x: f64) -> (f64, f64);
    /// `e^(−x)`.
    fn exp_neg(x: f64) -> f64;
    /// `1 − e^(−x)`, accurate for small `x`.
    fn one_minus_exp_neg(x: f64) -> f64;
}

/// `f64` accuracy, from `std` or `libm`.
pub(crate) struct Accurate;
/// Accurate to 1e-8 relative, no libm calls: for `f32` values.
pub(crate) struct Single;

impl Exps for Accurate {
    #[inline]
    fn decay(x: f64) -> (f64, f64) {
        // For small steps 1 − a comes from exp_m1 (no cancellation) and a
        // from it (a ≈ 1, so adding 1 loses nothing); past x = 1/4,
        // 1 − a ≥ 0.22 and `exp` (cheaper) is exact enough.
        if x > 0.25 {
            let a = exp(-x);
            (a, 1.0 - a)
        } else {
            let a_minus_1 = exp_m1(-x);
            (1.0 + a_minus_1, -a_minus_1)
        }
    }
    #[inline]
    fn exp_neg(x: f64) -> f64 {
        exp(-x)
    }
    #[inline]
    fn one_minus_exp_neg(x: f64) -> f64 {
        -exp_m1(-x)
    }
}

impl Exps for Single {
    #[inline]
    fn decay(x: f64) -> (f64, f64) {
        let one_minus = one_minus_exp_neg_single(x);
        (1.0 - one_minus, one_minus)
    }
    #[inline]
    fn exp_neg(x: f64) -> f64 {
        exp_neg_single(x)
    }
    #[inline]
    fn one_minus_exp_neg(x: f64) -> f64 {
        one_minus_exp_neg_single(x)
    }
}

/// `e^(−x)` for `x ≥ 0` with relative error below 1e-8, without a libm
/// call: enough for coefficients stored in `f32` (whose precision is 6e-8),
/// at a fraction of the cost. NaN stays NaN.
#[inline]
pub(crate) fn exp_neg_single(x: f64) -> f64 {
    if x.is_nan() {
        return x;
    }
    if x >= 700.0 {
        // e^(−700) ≈ 1e-304: below anything an f32 can hold.
        return 0.0;
    }
    // 2^y with y = −x·log2 e = n + g, n an integer, |g| ≤ 1/2.
    const ROUND: f64 = 6_755_399_441_055_744.0; // 1.5·2^52: adding it rounds to an integer
    let y = -x * core::f64::consts::LOG2_E;
    let shifted = y + ROUND;
    let n = shifted - ROUND;
    let f = (y - n) * core::f64::consts::LN_2;
    // e^f by Taylor to degree 8 on |f| ≤ 0.347 (remainder below 2.1e-10),
    // evaluated by Estrin's scheme: a short dependency chain.
    let f2 = f * f;
    let f4 = f2 * f2;
    let low = (1.0 + f) + f2 * (1.0 / 2.0 + f * (1.0 / 6.0));
    let high = (1.0 / 24.0 + f * (1.0 / 120.0)) + f2 * (1.0 / 720.0 + f * (1.0 / 5040.0));
    let p = low + f4 * (high + f4 * (1.0 / 40320.0));
    // 2^n from its bits: n ≥ −1010 here, a normal number.
    let n_int = (shifted.to_bits() as i64).wrapping_sub(ROUND.to_bits() as i64);
    let scale = f64::from_bits(((n_int + 1023) as u64) << 52);
    p * scale
}

/// `1 − e^(−x)` for `x ≥ 0`, relative error below 1e-8, without a libm
/// call and without cancellation for small `x` (series below 1/2).
#[inline]
pub(crate) fn one_minus_exp_neg_single(x: f64) -> f64 {
    if x < 0.5 {
        // x − x²/2 + x³/6 − …, to degree 9 (remainder below x·1e-9), by
        // Estrin's scheme: q = 1 − x/2 + x²/6 − … so that the result is x·q.
        let x2 = x * x;
        let x4 = x2 * x2;
        let a = (1.0 - x * (1.0 / 2.0)) + x2 * (1.0 / 6.0 - x * (1.0 / 24.0));
        let b = (1.0 / 120.0 - x * (1.0 / 720.0)) + x2 * (1.0 / 5040.0 - x * (1.0 / 40320.0));
        let q = a + x4 * (b + x4 * (1.0 / 362_880.0));
        x * q
    } else {
        1.0 - exp_neg_single(x)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn single_precision_exponentials_are_within_1e8() {
        let mut x = 0.0f64;
        while x < 720.0 {
            let want = (-x).exp();
            let got = exp_neg_single(x);
            // Past 700 it flushes to 0: far below anything an f32 holds.
            assert!(
                (got - want).abs() <= 1e-8 * want || (x >= 700.0 && got == 0.0),
                "e^-{x}: {got} vs {want}"
            );
            let want = -(-x).exp_m1();
            let got = one_minus_exp_neg_single(x);
            assert!(
                (got - want).abs() <= 1e-8 * want,
                "1 - e^-{x}: {got} vs {want}"
            );
            x = if x < 1.0 { x + 1e-4 } else { x * 1.001 + 1e-3 };
        }
        assert!(exp_neg_single(f64::NAN).is_nan());
        assert_eq!(exp_neg_single(f64::INFINITY), 0.0);
        assert_eq!(one_minus_exp_neg_single(0.0), 0.0);
    }
}
