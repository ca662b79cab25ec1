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
}

impl Float for f32 {
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
