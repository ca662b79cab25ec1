//! `Mag`: a non-negative magnitude `m·2^e` with a 63-bit mantissa, used for
//! the radii of balls and for bounds on derivatives.
//!
//! Every operation has a direction: `*_up` results are never below the true
//! value, `*_down` results never above it. Radii only ever need upper
//! bounds; denominators need lower bounds. Keeping this in one small type,
//! rather than using big floats with rounding modes, makes the direction of
//! each rounding visible at the call site.

use dashu_base::{BitTest, UnsignedAbs};
use dashu_float::Repr;
use dashu_int::{IBig, UBig};

/// Mantissas are normalised into `[2^62, 2^63)` (or zero), so a sum of two
/// fits a `u64` and a product fits a `u128`.
const TOP: u32 = 63;

/// A non-negative magnitude `mantissa · 2^exponent`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Mag {
    mantissa: u64,
    exponent: i64,
}

impl Mag {
    pub(crate) const ZERO: Mag = Mag {
        mantissa: 0,
        exponent: 0,
    };

    /// Exactly `2^e`.
    pub(crate) fn pow2(e: i64) -> Mag {
        Mag::normalise_up(1, e)
    }

    /// Exactly `n`.
    pub(crate) fn from_u64(n: u64) -> Mag {
        Mag::normalise_up(n as u128, 0)
    }

    pub(crate) fn is_zero(self) -> bool {
        self.mantissa == 0
    }

    /// `m·2^e` rounded up to 63 bits.
    fn normalise_up(m: u128, e: i64) -> Mag {
        Mag::normalise(m, e, true)
    }

    fn normalise_down(m: u128, e: i64) -> Mag {
        Mag::normalise(m, e, false)
    }

    fn normalise(m: u128, e: i64, up: bool) -> Mag {
        if m == 0 {
            return Mag::ZERO;
        }
        let len = 128 - m.leading_zeros();
        if len > TOP {
            let shift = len - TOP;
            let kept = m >> shift;
            let lost = m & ((1u128 << shift) - 1) != 0;
            let kept = if up && lost { kept + 1 } else { kept };
            // Rounding up may carry into a 64th bit: shift once more (the
            // carry leaves only zeros below, so nothing is lost).
            if kept >> TOP != 0 {
                return Mag {
                    mantissa: (kept >> 1) as u64,
                    exponent: e + shift as i64 + 1,
                };
            }
            Mag {
                mantissa: kept as u64,
                exponent: e + shift as i64,
            }
        } else {
            let shift = TOP - 1 - (len - 1);
            Mag {
                mantissa: (m << shift) as u64,
                exponent: e - shift as i64,
            }
        }
    }

    /// The magnitude of a big integer times `2^e`, rounded up or down.
    fn from_ubig(n: &UBig, e: i64, up: bool) -> Mag {
        let len = n.bit_len();
        if len <= 120 {
            let m = u128::try_from(n).unwrap_or(u128::MAX);
            return Mag::normalise(m, e, up);
        }
        let shift = len - 120;
        let kept: UBig = n >> shift;
        let lost = n.trailing_zeros().is_none_or(|z| z < shift);
        let m = u128::try_from(&kept).unwrap_or(u128::MAX);
        let m = if up && lost { m + 1 } else { m };
        Mag::normalise(m, e + shift as i64, up)
    }

    /// `|x|` rounded up.
    pub(crate) fn of_repr_up(x: &Repr<2>) -> Mag {
        Mag::from_ubig(&x.significand().unsigned_abs(), x.exponent() as i64, true)
    }

    /// `|x|` rounded down.
    pub(crate) fn of_repr_down(x: &Repr<2>) -> Mag {
        Mag::from_ubig(&x.significand().unsigned_abs(), x.exponent() as i64, false)
    }

    /// The exact value as a binary float representation.
    pub(crate) fn to_repr(self) -> Repr<2> {
        Repr::new(IBig::from(self.mantissa), self.exponent as isize)
    }

    /// Aligns two magnitudes to the larger exponent; the smaller one's lost
    /// bits round it up or down as asked.
    fn aligned(self, other: Mag, up: bool) -> (u128, u128, i64) {
        let (big, small, swapped) = if self.exponent >= other.exponent {
            (self, other, false)
        } else {
            (other, self, true)
        };
        let shift = (big.exponent - small.exponent).min(127) as u32;
        let mut s = (small.mantissa as u128) >> shift;
        let lost = shift > 0 && (small.mantissa as u128) & ((1u128 << shift) - 1) != 0
            || (big.exponent - small.exponent > 127 && small.mantissa != 0);
        if up && lost {
            s += 1;
        }
        let b = big.mantissa as u128;
        if swapped {
            (s, b, big.exponent)
        } else {
            (b, s, big.exponent)
        }
    }

    pub(crate) fn add_up(self, other: Mag) -> Mag {
        if self.is_zero() {
            return other;
        }
        if other.is_zero() {
            return self;
        }
        let (a, b, e) = self.aligned(other, true);
        Mag::normalise_up(a + b, e)
    }

    /// `self − other` rounded down, or `None` when it is not positive.
    pub(crate) fn sub_down(self, other: Mag) -> Option<Mag> {
        if other.is_zero() {
            return (!self.is_zero()).then_some(self);
        }
        // Round the subtrahend up, so the difference is rounded down.
        // `aligned` keeps the order (self, other) and rounds only the one
        // with the smaller exponent: when that is `self`, `self < other`
        // already and the answer is `None` either way.
        let (a, b, e) = self.aligned(other, true);
        (a > b).then(|| Mag::normalise_down(a - b, e))
    }

    pub(crate) fn mul_up(self, other: Mag) -> Mag {
        Mag::normalise_up(
            self.mantissa as u128 * other.mantissa as u128,
            self.exponent + other.exponent,
        )
    }

    pub(crate) fn mul_down(self, other: Mag) -> Mag {
        Mag::normalise_down(
            self.mantissa as u128 * other.mantissa as u128,
            self.exponent + other.exponent,
        )
    }

    /// `self / other` rounded up; `None` when `other` is zero.
    pub(crate) fn div_up(self, other: Mag) -> Option<Mag> {
        if other.is_zero() {
            return None;
        }
        let n = (self.mantissa as u128) << 64;
        let d = other.mantissa as u128;
        let q = n / d + u128::from(!n.is_multiple_of(d));
        Some(Mag::normalise_up(q, self.exponent - other.exponent - 64))
    }

    /// `√self` rounded up.
    #[cfg(test)]
    pub(crate) fn sqrt_up(self) -> Mag {
        self.sqrt(true)
    }

    /// `√self` rounded down.
    pub(crate) fn sqrt_down(self) -> Mag {
        self.sqrt(false)
    }

    fn sqrt(self, up: bool) -> Mag {
        if self.is_zero() {
            return Mag::ZERO;
        }
        // Make the exponent even, then take the integer square root of the
        // widened mantissa (exact floor; +1 when rounding up and inexact).
        let (m, e) = if self.exponent % 2 == 0 {
            ((self.mantissa as u128) << 64, self.exponent - 64)
        } else {
            ((self.mantissa as u128) << 63, self.exponent - 63)
        };
        let r = isqrt_u128(m);
        let r = if up && r * r != m { r + 1 } else { r };
        Mag::normalise(r, e / 2, up)
    }

    /// Whether `self ≤ other`.
    pub(crate) fn le(self, other: Mag) -> bool {
        if self.is_zero() {
            return true;
        }
        if other.is_zero() {
            return false;
        }
        (self.exponent, self.mantissa) <= (other.exponent, other.mantissa)
    }

    /// The larger of two magnitudes.
    pub(crate) fn max(self, other: Mag) -> Mag {
        if self.le(other) { other } else { self }
    }
}

fn isqrt_u128(n: u128) -> u128 {
    if n == 0 {
        return 0;
    }
    // Newton from an over-estimate converges down to the floor.
    let mut x = 1u128 << (128 - n.leading_zeros()).div_ceil(2);
    loop {
        let y = (x + n / x) / 2;
        if y >= x {
            return x;
        }
        x = y;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn value(m: Mag) -> f64 {
        m.mantissa as f64 * 2f64.powi(m.exponent as i32)
    }

    proptest! {
        #[test]
        fn directed_operations_bracket_the_exact_value(a in 1u64..u64::MAX, b in 1u64..u64::MAX, ea in -40i64..40, eb in -40i64..40) {
            let x = Mag::normalise_up(a as u128, ea);
            let y = Mag::normalise_up(b as u128, eb);
            // Exact references in rationals: x and y are exact dyadics.
            let xr = dashu_ratio::RBig::from(IBig::from(x.mantissa)) * pow2r(x.exponent);
            let yr = dashu_ratio::RBig::from(IBig::from(y.mantissa)) * pow2r(y.exponent);
            let as_r = |m: Mag| dashu_ratio::RBig::from(IBig::from(m.mantissa)) * pow2r(m.exponent);
            prop_assert!(as_r(x.add_up(y)) >= &xr + &yr);
            prop_assert!(as_r(x.mul_up(y)) >= &xr * &yr);
            prop_assert!(as_r(x.mul_down(y)) <= &xr * &yr);
            prop_assert!(as_r(x.div_up(y).unwrap_or(Mag::ZERO)) >= &xr / &yr);
            match x.sub_down(y) {
                Some(d) => prop_assert!(as_r(d) <= &xr - &yr && xr > yr),
                None => prop_assert!(xr <= &yr + &yr * pow2r(-60)),
            }
            let up = as_r(x.sqrt_up());
            let down = as_r(x.sqrt_down());
            prop_assert!(&up * &up >= xr);
            prop_assert!(&down * &down <= xr);
            prop_assert!(value(x.sqrt_up()) / value(x.sqrt_down()) < 1.0 + 1e-15);
        }
    }

    fn pow2r(e: i64) -> dashu_ratio::RBig {
        let p = dashu_ratio::RBig::from(IBig::from(UBig::ONE << e.unsigned_abs() as usize));
        if e >= 0 {
            p
        } else {
            dashu_ratio::RBig::ONE / p
        }
    }

    #[test]
    fn exact_values_stay_exact() {
        assert_eq!(
            Mag::from_u64(12).mul_up(Mag::from_u64(3)),
            Mag::from_u64(36)
        );
        assert_eq!(Mag::from_u64(9).sqrt_up(), Mag::from_u64(3));
        assert_eq!(Mag::pow2(-3).add_up(Mag::pow2(-3)), Mag::pow2(-2));
        assert!(Mag::from_u64(3).sub_down(Mag::from_u64(3)).is_none());
    }
}
