//! `Real`: an exact rational, or a ball (midpoint ± radius) that is certain
//! to contain the true value.
//!
//! Exact values stay exact as long as the operation allows it (`1/3*3` is
//! 1, `(10^100+1)-10^100` is 1). Everything else becomes a [`Ball`]: the
//! midpoint comes from dashu's correctly rounded kernels at the working
//! precision, and the radius grows by one unit in the last place per
//! rounding plus the input's radius times a bound on the derivative. A
//! printed digit is therefore certain: printing looks at both ends of the
//! ball (see `format`).
//!
//! When a ball is too wide to decide something (the sign of a divisor, the
//! domain of `ln`), the operation answers [`NumError::NeedPrecision`] and
//! the evaluator starts again with more bits.

use std::cell::RefCell;
use std::cmp::Ordering;

use dashu_base::{Abs, Approximation, BitTest, PowerOfTwo, Sign, UnsignedAbs};
use dashu_float::round::mode::HalfEven;
use dashu_float::{ConstCache, Context, FBig, FpError, Repr};
use dashu_int::{IBig, UBig};
use dashu_ratio::RBig;

use crate::budget::Budget;
use crate::mag::Mag;
use crate::series;

pub(crate) type Float = FBig<HalfEven, 2>;
type Rounded = Approximation<Float, dashu_float::round::Rounding>;

/// `|true value − mid| ≤ rad`.
#[derive(Clone, Debug)]
pub(crate) struct Ball {
    pub(crate) mid: Repr<2>,
    pub(crate) rad: Mag,
}

/// An exact rational, an exact rational multiple of a power of π, or a
/// certified ball.
#[derive(Clone, Debug)]
pub(crate) enum Real {
    Exact(RBig),
    /// `r·π^k` with `r ≠ 0` and `k ≠ 0`: angles in degrees and multiples
    /// of π stay exact, so sin 30° is 1/2 and sin π is 0.
    Pi(RBig, i32),
    Approx(Ball),
}

/// `r·π^k`, as an exact rational when `k = 0` or `r = 0`.
pub(crate) fn pi_multiple(r: RBig, k: i32) -> Real {
    if k == 0 || r.is_zero() {
        Real::Exact(r)
    } else {
        Real::Pi(r, k)
    }
}

/// Why a numeric operation stopped.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum NumError {
    /// A ball was too wide to decide; more working bits may settle it.
    NeedPrecision,
    /// Outside the function's domain; the text says which.
    Domain(&'static str),
    DivisionByZero,
    /// An exact result would take more bits than the budget allows.
    TooBig {
        bits: crate::error::Bits,
        limit: u64,
    },
    /// `e^x` beyond the float range: the decimal exponent, roughly.
    ExpRange {
        negative: bool,
        decimal_exponent: crate::error::Bits,
    },
    /// A float result beyond the exponent range.
    Overflow,
    /// Cancelled by the caller or out of time.
    Stopped(crate::budget::Stop),
}

pub(crate) type NumResult<T> = Result<T, NumError>;

/// `(a div b, a mod b)` for `b > 0`. Above 2¹⁶-bit divisors the
/// dividend is taken a divisor's width at a time from the top (each step
/// divides a number of twice the divisor's size by it), with `check`
/// between steps: no single call runs much longer than one step.
pub(crate) fn div_rem_in_pieces(
    a: &UBig,
    b: &UBig,
    check: &dyn Fn() -> NumResult<()>,
) -> NumResult<(UBig, UBig)> {
    let k = b.bit_len();
    if k < 1 << 16 || a.bit_len() <= 2 * k {
        check()?;
        return Ok(dashu_base::DivRem::div_rem(a, b));
    }
    let pieces = a.bit_len().div_ceil(k);
    let mask = (UBig::ONE << k) - UBig::ONE;
    let mut q = UBig::ZERO;
    let mut r = UBig::ZERO;
    for i in (0..pieces).rev() {
        check()?;
        let piece = (a >> (i * k)) & &mask;
        let cur = (r << k) | piece;
        let (qi, ri) = dashu_base::DivRem::div_rem(&cur, b);
        q = (q << k) | qi;
        r = ri;
    }
    Ok((q, r))
}

/// The working precision, the budget and the constants' cache of one
/// evaluation attempt.
pub(crate) struct Work<'a> {
    pub(crate) prec: usize,
    pub(crate) budget: &'a Budget,
    cache: RefCell<ConstCache>,
}

impl<'a> Work<'a> {
    pub(crate) fn new(prec: usize, budget: &'a Budget) -> Self {
        Work {
            prec: prec.max(64),
            budget,
            cache: RefCell::new(ConstCache::default()),
        }
    }

    pub(crate) fn ctx(&self) -> Context<HalfEven> {
        Context::new(self.prec)
    }

    /// One unit in the last place of `x` at the working precision, or
    /// more (a bound: `|x|·2^(1−p)`).
    fn ulp(&self, x: &Repr<2>) -> Mag {
        Mag::of_repr_up(x).mul_up(Mag::pow2(1 - self.prec as i64))
    }

    /// A kernel's answer as a ball: exact answers have radius 0.
    pub(crate) fn ball(&self, r: Result<Rounded, FpError>) -> NumResult<Ball> {
        let r = r.map_err(|e| match e {
            FpError::OutOfDomain => NumError::Domain("outside the function's domain"),
            FpError::Overflow(_) => NumError::Overflow,
            FpError::Underflow(_) => NumError::NeedPrecision,
            _ => NumError::Domain("undefined"),
        })?;
        let (value, exact) = match r {
            Approximation::Exact(v) => (v, true),
            Approximation::Inexact(v, _) => (v, false),
        };
        let mid = value.into_repr();
        if mid.is_infinite() {
            return Err(NumError::Overflow);
        }
        let rad = if exact { Mag::ZERO } else { self.ulp(&mid) };
        Ok(Ball { mid, rad })
    }

    // ------------------------------------------------------------------
    // Conversions
    // ------------------------------------------------------------------

    /// A ball for any real: exact dyadic rationals stay exact (radius 0).
    pub(crate) fn to_ball(&self, x: &Real) -> NumResult<Ball> {
        match x {
            Real::Approx(b) => Ok(b.clone()),
            Real::Pi(r, k) => {
                let p = self.powi(&Real::Approx(self.pi_ball()?), &IBig::from(*k))?;
                let v = self.mul(&Real::Exact(r.clone()), &p)?;
                match v {
                    Real::Approx(b) => Ok(b),
                    other => self.to_ball(&other),
                }
            }
            Real::Exact(r) => {
                let den = r.denominator();
                if den.is_power_of_two() {
                    let k = den.bit_len() - 1;
                    return Ok(Ball {
                        mid: Repr::new(r.numerator().clone(), -(k as isize)),
                        rad: Mag::ZERO,
                    });
                }
                let num = Repr::new(r.numerator().clone(), 0);
                let den = Repr::new(IBig::from(den.clone()), 0);
                if self.prec >= series::PIECEWISE {
                    self.div_pieces(&num, &den)
                } else {
                    self.ball(self.ctx().div(&num, &den))
                }
            }
        }
    }

    /// A real from a ball: a ball of radius 0 is an exact value.
    pub(crate) fn settle(&self, b: Ball) -> Real {
        if b.rad.is_zero() {
            Real::Exact(repr_to_rational(&b.mid))
        } else {
            Real::Approx(b)
        }
    }

    /// Refuses, before it starts, a gcd of numbers of these sizes that
    /// could not finish in the time left. dashu's gcd is quadratic: about
    /// 1.6·10¹³ bit² a second on a 2020s core (28 by 8 million bits take
    /// 14 s); the estimate assumes a machine three times as fast, so only
    /// what surely cannot finish is refused.
    fn affordable_gcd(&self, a_bits: usize, b_bits: usize) -> NumResult<()> {
        const BITS_SQUARED_PER_SECOND: f64 = 5e13;
        // Below a million bits a gcd takes milliseconds.
        if a_bits.min(b_bits) < 1 << 20 {
            return Ok(());
        }
        let Some(deadline) = self.budget.deadline else {
            return Ok(());
        };
        let seconds = a_bits as f64 * b_bits as f64 / BITS_SQUARED_PER_SECOND;
        let left = deadline.saturating_duration_since(std::time::Instant::now());
        if seconds > left.as_secs_f64() {
            return Err(NumError::Stopped(crate::budget::Stop::WouldTakeTooLong(
                (seconds * 1000.0).min(u64::MAX as f64) as u64,
            )));
        }
        Ok(())
    }

    /// `a mod b` for integers, by floor division (the remainder takes
    /// `b`'s sign), without forming the fraction `a/b` (whose gcd would
    /// cost far more than the division): the division goes by pieces of
    /// `b`'s size, checking the budget between them.
    pub(crate) fn int_mod(&self, a: &IBig, b: &IBig) -> NumResult<IBig> {
        let (ma, mb) = (a.unsigned_abs(), b.unsigned_abs());
        if mb.is_zero() {
            return Err(NumError::DivisionByZero);
        }
        let r = div_rem_in_pieces(&ma, &mb, &|| self.budget.check())?.1;
        let r = if a.sign() != b.sign() && !r.is_zero() {
            &mb - r
        } else {
            r
        };
        Ok(IBig::from_parts(b.sign(), r))
    }

    pub(crate) fn check_bits(&self, bits: u64) -> NumResult<()> {
        if bits > self.budget.max_bits {
            return Err(NumError::TooBig {
                bits: crate::error::Bits(bits as f64),
                limit: self.budget.max_bits,
            });
        }
        Ok(())
    }

    fn exact_result(&self, r: RBig) -> NumResult<Real> {
        self.check_bits(rational_bits(&r))?;
        Ok(Real::Exact(r))
    }

    // ------------------------------------------------------------------
    // Arithmetic
    // ------------------------------------------------------------------

    /// The value as a ball (or exact rational): what printing needs.
    pub(crate) fn numeric(&self, x: &Real) -> NumResult<Real> {
        match x {
            Real::Pi(..) => Ok(Real::Approx(self.to_ball(x)?)),
            other => Ok(other.clone()),
        }
    }

    pub(crate) fn add(&self, a: &Real, b: &Real) -> NumResult<Real> {
        match (a, b) {
            (Real::Exact(x), Real::Exact(y)) => {
                self.check_bits(rational_bits(x).max(rational_bits(y)) + 1)?;
                return self.exact_result(x + y);
            }
            (Real::Pi(x, j), Real::Pi(y, k)) if j == k => {
                self.check_bits(rational_bits(x).max(rational_bits(y)) + 1)?;
                return Ok(pi_multiple(x + y, *j));
            }
            (Real::Exact(z), other) | (other, Real::Exact(z)) if z.is_zero() => {
                return Ok(other.clone());
            }
            _ => {}
        }
        let (x, y) = (self.to_ball(a)?, self.to_ball(b)?);
        let mut r = self.ball(self.ctx().add(&x.mid, &y.mid))?;
        r.rad = r.rad.add_up(x.rad).add_up(y.rad);
        Ok(self.settle(r))
    }

    pub(crate) fn sub(&self, a: &Real, b: &Real) -> NumResult<Real> {
        self.add(a, &neg(b))
    }

    pub(crate) fn mul(&self, a: &Real, b: &Real) -> NumResult<Real> {
        if let (Some((x, j)), Some((y, k))) = (pi_parts(a), pi_parts(b)) {
            self.check_bits(rational_bits(x) + rational_bits(y))?;
            let k = j.checked_add(k).ok_or(NumError::Overflow)?;
            return Ok(pi_multiple(x * y, k));
        }
        // An exact zero times anything finite is an exact zero.
        if is_exact_zero(a) || is_exact_zero(b) {
            return Ok(Real::Exact(RBig::ZERO));
        }
        let (x, y) = (self.to_ball(a)?, self.to_ball(b)?);
        Ok(self.settle(self.ball_mul(&x, &y)?))
    }

    /// The sum of two balls (kept a ball, never made exact).
    pub(crate) fn ball_add(&self, x: &Ball, y: &Ball) -> NumResult<Ball> {
        let mut r = self.ball(self.ctx().add(&x.mid, &y.mid))?;
        r.rad = r.rad.add_up(x.rad).add_up(y.rad);
        Ok(r)
    }

    /// The difference of two balls.
    pub(crate) fn ball_sub(&self, x: &Ball, y: &Ball) -> NumResult<Ball> {
        let mut r = self.ball(self.ctx().sub(&x.mid, &y.mid))?;
        r.rad = r.rad.add_up(x.rad).add_up(y.rad);
        Ok(r)
    }

    /// The quotient of two balls (the divisor's ball must exclude 0).
    pub(crate) fn ball_div(&self, x: &Ball, y: &Ball) -> NumResult<Ball> {
        if y.mid.significand().is_zero() && y.rad.is_zero() {
            return Err(NumError::DivisionByZero);
        }
        let my_low = Mag::of_repr_down(&y.mid)
            .sub_down(y.rad)
            .ok_or(NumError::NeedPrecision)?;
        let mut r = if self.prec >= series::PIECEWISE {
            self.div_pieces(&x.mid, &y.mid)?
        } else {
            self.ball(self.ctx().div(&x.mid, &y.mid))?
        };
        if !(x.rad.is_zero() && y.rad.is_zero()) {
            // |x/y − mx/my| ≤ (rx|my| + |mx|ry) / (|my|(|my| − ry))
            let (mx, my) = (Mag::of_repr_up(&x.mid), Mag::of_repr_up(&y.mid));
            let num = x.rad.mul_up(my).add_up(mx.mul_up(y.rad));
            let den = my_low.mul_down(my_low);
            r.rad = r
                .rad
                .add_up(num.div_up(den).ok_or(NumError::NeedPrecision)?);
        }
        Ok(r)
    }

    /// The square root of a ball of positive numbers.
    pub(crate) fn ball_sqrt(&self, x: &Ball) -> NumResult<Ball> {
        let mut r = if self.prec >= series::PIECEWISE {
            self.sqrt_pieces(&x.mid)?
        } else {
            self.ball(self.ctx().sqrt(&x.mid))?
        };
        if !x.rad.is_zero() {
            // |√x − √m| ≤ rad/√(m − rad)
            let lo = Mag::of_repr_down(&x.mid)
                .sub_down(x.rad)
                .ok_or(NumError::NeedPrecision)?;
            let d = x
                .rad
                .div_up(lo.sqrt_down())
                .ok_or(NumError::NeedPrecision)?;
            r.rad = r.rad.add_up(d);
        }
        Ok(r)
    }

    /// The product of two balls (kept a ball, never made exact).
    pub(crate) fn ball_mul(&self, x: &Ball, y: &Ball) -> NumResult<Ball> {
        let mut r = if self.prec >= series::PIECEWISE {
            self.mul_pieces(&x.mid, &y.mid)?
        } else {
            self.ball(self.ctx().mul(&x.mid, &y.mid))?
        };
        // |xy − mx·my| ≤ |mx|ry + |my|rx + rx·ry
        let (mx, my) = (Mag::of_repr_up(&x.mid), Mag::of_repr_up(&y.mid));
        r.rad = r
            .rad
            .add_up(mx.mul_up(y.rad))
            .add_up(my.mul_up(x.rad))
            .add_up(x.rad.mul_up(y.rad));
        Ok(r)
    }

    /// `10^e` as a ball, by squaring: a few dozen multiplications at the
    /// working precision, however large `e` is.
    pub(crate) fn pow10_ball(&self, e: i64) -> NumResult<Ball> {
        let mut base = Ball {
            mid: Repr::new(IBig::from(10), 0),
            rad: Mag::ZERO,
        };
        let mut acc = Ball {
            mid: Repr::new(IBig::ONE, 0),
            rad: Mag::ZERO,
        };
        let mut k = e.unsigned_abs();
        while k > 0 {
            self.budget.check()?;
            if k & 1 == 1 {
                acc = self.ball_mul(&acc, &base)?;
            }
            k >>= 1;
            if k > 0 {
                base = self.ball_mul(&base, &base)?;
            }
        }
        if e < 0 {
            let one = Real::Exact(RBig::ONE);
            return match self.div(&one, &Real::Approx(acc))? {
                Real::Approx(b) => Ok(b),
                other => self.to_ball(&other),
            };
        }
        Ok(acc)
    }

    pub(crate) fn div(&self, a: &Real, b: &Real) -> NumResult<Real> {
        if let (Some((x, j)), Some((y, k))) = (pi_parts(a), pi_parts(b)) {
            if y.is_zero() {
                return Err(NumError::DivisionByZero);
            }
            self.check_bits(rational_bits(x) + rational_bits(y))?;
            // Reducing the quotient takes a gcd of the numerators (and of
            // the denominators), one call that cannot stop part-way.
            self.affordable_gcd(x.numerator().bit_len(), y.numerator().bit_len())?;
            self.affordable_gcd(x.denominator().bit_len(), y.denominator().bit_len())?;
            let k = j.checked_sub(k).ok_or(NumError::Overflow)?;
            return Ok(pi_multiple(x / y, k));
        }
        let (x, y) = (self.to_ball(a)?, self.to_ball(b)?);
        Ok(self.settle(self.ball_div(&x, &y)?))
    }

    /// `x^n` for an integer `n`, exact when `x` is.
    pub(crate) fn powi(&self, x: &Real, n: &IBig) -> NumResult<Real> {
        if n.is_zero() {
            return Ok(Real::Exact(RBig::ONE));
        }
        if let Real::Pi(r, k) = x {
            let kn = i32::try_from(n)
                .ok()
                .and_then(|n| k.checked_mul(n))
                .ok_or(NumError::Overflow)?;
            let Real::Exact(p) = self.powi(&Real::Exact(r.clone()), n)? else {
                return Err(NumError::Overflow);
            };
            return Ok(pi_multiple(p, kn));
        }
        if let Real::Exact(r) = x {
            if r.is_zero() {
                return if n.sign() == Sign::Negative {
                    Err(NumError::DivisionByZero)
                } else {
                    Ok(Real::Exact(RBig::ZERO))
                };
            }
            if r.numerator().unsigned_abs().is_one() && r.denominator().is_one() {
                // ±1 to any power.
                let odd = n.bit(0);
                let negative = r.sign() == Sign::Negative && odd;
                return Ok(Real::Exact(if negative { -RBig::ONE } else { RBig::ONE }));
            }
            let size = log2_size(r.numerator()) + r.denominator().bit_len() as f64 - 1.0;
            let e = usize::try_from(n.unsigned_abs()).map_err(|_| NumError::TooBig {
                bits: crate::error::Bits(size * n.unsigned_abs().to_f64().value()),
                limit: self.budget.max_bits,
            })?;
            let bits = size * e as f64;
            if bits > self.budget.max_bits as f64 {
                return Err(NumError::TooBig {
                    bits: crate::error::Bits(bits),
                    limit: self.budget.max_bits,
                });
            }
            self.budget.check()?;
            let num = r.numerator().pow(e);
            let den = r.denominator().pow(e);
            let p = RBig::from_parts(num, den);
            return Ok(Real::Exact(if n.sign() == Sign::Negative {
                RBig::ONE / p
            } else {
                p
            }));
        }
        // Square and multiply on balls: each step keeps its own bound.
        let mut e = n.unsigned_abs().clone();
        let mut base = x.clone();
        let mut acc = Real::Exact(RBig::ONE);
        while !e.is_zero() {
            self.budget.check()?;
            if e.bit(0) {
                acc = self.mul(&acc, &base)?;
            }
            e >>= 1;
            if !e.is_zero() {
                base = self.mul(&base, &base)?;
            }
        }
        if n.sign() == Sign::Negative {
            acc = self.div(&Real::Exact(RBig::ONE), &acc)?;
        }
        Ok(acc)
    }

    /// The exact `q`-th root of an exact rational, if it is one.
    pub(crate) fn exact_root(&self, r: &RBig, q: usize) -> Option<RBig> {
        if q == 0 || (r.sign() == Sign::Negative && q.is_multiple_of(2)) {
            return None;
        }
        let num = r.numerator().unsigned_abs();
        let den = r.denominator();
        let (rn, rd) = (num.nth_root(q), den.nth_root(q));
        if rn.pow(q) == num && &rd.pow(q) == den {
            let root = RBig::from_parts(IBig::from(rn), rd);
            Some(if r.sign() == Sign::Negative {
                -root
            } else {
                root
            })
        } else {
            None
        }
    }

    /// The sign of a real, or `NeedPrecision` when the ball straddles 0.
    pub(crate) fn sign(&self, x: &Real) -> NumResult<Ordering> {
        match x {
            Real::Exact(r) | Real::Pi(r, _) => Ok(match r.sign() {
                _ if r.is_zero() => Ordering::Equal,
                Sign::Positive => Ordering::Greater,
                Sign::Negative => Ordering::Less,
            }),
            Real::Approx(b) => {
                let m = Mag::of_repr_down(&b.mid);
                if m.sub_down(b.rad).is_none() {
                    return Err(NumError::NeedPrecision);
                }
                Ok(if b.mid.significand().sign() == Sign::Negative {
                    Ordering::Less
                } else {
                    Ordering::Greater
                })
            }
        }
    }

    pub(crate) fn compare(&self, a: &Real, b: &Real) -> NumResult<Ordering> {
        self.sign(&self.sub(a, b)?)
    }

    /// Rounds towards −∞, +∞, the nearest (halves away from 0) or 0.
    pub(crate) fn round(&self, x: &Real, how: Rounding) -> NumResult<Real> {
        match x {
            Real::Exact(r) => Ok(Real::Exact(RBig::from(round_rational(r, how)))),
            Real::Pi(..) | Real::Approx(_) => {
                let b = &self.to_ball(x)?;
                let ((ls, le), (hs, he)) = ball_ends_dyadic(b);
                // The integer's size, before it is made.
                let bits =
                    |s: &IBig, e: isize| (s.unsigned_abs().bit_len() as i64 + e as i64).max(0);
                self.check_bits(bits(&ls, le).max(bits(&hs, he)) as u64)?;
                let (a, c) = (round_dyadic(&ls, le, how), round_dyadic(&hs, he, how));
                if a == c {
                    Ok(Real::Exact(RBig::from(a)))
                } else {
                    Err(NumError::NeedPrecision)
                }
            }
        }
    }

    // ------------------------------------------------------------------
    // Constants
    // ------------------------------------------------------------------

    /// π, exactly (as `1·π¹`).
    pub(crate) fn pi(&self) -> NumResult<Real> {
        Ok(Real::Pi(RBig::ONE, 1))
    }

    /// π as a ball at the working precision.
    fn pi_ball(&self) -> NumResult<Ball> {
        self.budget.check()?;
        if self.prec >= series::HIGH_CONSTANTS {
            return self.pi_series();
        }
        let mut cache = self.cache.borrow_mut();
        let r = cache.pi::<2, HalfEven>(self.prec);
        self.ball(Ok(r))
    }

    pub(crate) fn e(&self) -> NumResult<Real> {
        if self.prec >= series::HIGH {
            return Ok(Real::Approx(self.exp_high(&exact(1))?));
        }
        Ok(self.settle(self.ball(Ok(self.ctx().e::<2>()))?))
    }

    /// A kernel of [`crate::series`], checked and settled.
    fn high(&self, f: impl FnOnce() -> NumResult<Ball>) -> NumResult<Real> {
        self.budget.check()?;
        let r = f()?;
        self.budget.check()?;
        Ok(self.settle(r))
    }

    /// Whether trig functions of `x` reduce it here, with π to as many
    /// more bits as it has before its point (dashu's own reduction of a
    /// huge argument cannot be stopped).
    fn huge_angle(x: &Real) -> bool {
        decimal_exponent(x).is_some_and(|e| e > 18)
    }

    // ------------------------------------------------------------------
    // Elementary functions
    // ------------------------------------------------------------------

    /// Applies a correctly rounded kernel to a ball: the result's radius is
    /// the kernel's rounding plus `bound · rad`, where `bound` bounds
    /// `|f'|` over the input ball (given the input ball and the kernel's
    /// value at its midpoint).
    fn apply(
        &self,
        x: &Real,
        kernel: impl Fn(&Context<HalfEven>, &Repr<2>, &mut ConstCache) -> Result<Rounded, FpError>,
        bound: impl Fn(&Ball, &Ball) -> NumResult<Mag>,
    ) -> NumResult<Real> {
        self.budget.check()?;
        let b = self.to_ball(x)?;
        let mut cache = self.cache.borrow_mut();
        let mut r = self.ball(kernel(&self.ctx(), &b.mid, &mut cache))?;
        drop(cache);
        if !b.rad.is_zero() {
            let d = bound(&b, &r)?;
            r.rad = r.rad.add_up(d.mul_up(b.rad));
        }
        Ok(self.settle(r))
    }

    /// The ball's radius must be small for the cheap derivative bounds
    /// below (they use `e^rad ≤ 2`).
    fn small(b: &Ball) -> NumResult<()> {
        if b.rad.le(Mag::pow2(-10)) {
            Ok(())
        } else {
            Err(NumError::NeedPrecision)
        }
    }

    pub(crate) fn sqrt(&self, x: &Real) -> NumResult<Real> {
        if let Real::Exact(r) = x
            && let Some(root) = self.exact_root(r, 2)
        {
            return Ok(Real::Exact(root));
        }
        match self.sign(x)? {
            Ordering::Less => return Err(NumError::Domain("square root of a negative number")),
            Ordering::Equal => return Ok(Real::Exact(RBig::ZERO)),
            Ordering::Greater => {}
        }
        // |√x − √m| ≤ rad / √m  (as √x + √m ≥ √m)
        self.apply(
            x,
            |c, m, _| c.sqrt(m),
            |_, r| {
                let root_low = Mag::of_repr_down(&r.mid).sub_down(r.rad);
                Mag::from_u64(1)
                    .div_up(root_low.ok_or(NumError::NeedPrecision)?)
                    .ok_or(NumError::NeedPrecision)
            },
        )
    }

    pub(crate) fn cbrt(&self, x: &Real) -> NumResult<Real> {
        if let Real::Exact(r) = x
            && let Some(root) = self.exact_root(r, 3)
        {
            return Ok(Real::Exact(root));
        }
        if self.sign(x)? == Ordering::Equal {
            return Ok(Real::Exact(RBig::ZERO));
        }
        // |f'| = 1/(3·cbrt(x)²) ≤ 1/(3·(|cbrt(m)| − 2^-p·…)²): use the
        // lower end of the result's own ball, with the input's radius
        // added through the mean value over [lo, hi] (rad small).
        self.apply(
            x,
            |c, m, _| c.cbrt(m),
            |b, r| {
                Self::small(b)?;
                let lo = Mag::of_repr_down(&b.mid)
                    .sub_down(b.rad)
                    .ok_or(NumError::NeedPrecision)?;
                // cbrt(lo) ≥ cbrt(m)·(lo/m)^(1/3) ≥ cbrt(m)·(lo/m)
                let ratio = lo
                    .div_up(Mag::of_repr_up(&b.mid))
                    .ok_or(NumError::NeedPrecision)?;
                let root_low = Mag::of_repr_down(&r.mid)
                    .sub_down(r.rad)
                    .ok_or(NumError::NeedPrecision)?
                    .mul_down(ratio.min_one_down());
                let den = root_low.mul_down(root_low).mul_down(Mag::from_u64(3));
                Mag::from_u64(1).div_up(den).ok_or(NumError::NeedPrecision)
            },
        )
    }

    pub(crate) fn exp(&self, x: &Real) -> NumResult<Real> {
        // Large arguments: e^x = 2^k·e^(x − k·ln 2), so dashu's kernel only
        // sees |r| < 1 (its own reduction of a huge argument is slow).
        let b = self.to_ball(x)?;
        if Mag::of_repr_up(&b.mid).le(Mag::from_u64(64)) {
            return self.exp_small(x);
        }
        let ln2 = self.ln_2_5(1, 0)?;
        // Any integer near x/ln 2 will do (the identity holds for every k):
        // round the midpoint, so a quotient at a half never stalls.
        let q = self.to_ball(&self.div(x, &ln2)?)?;
        // A quotient past 2⁶² is past any float's exponent: said at once,
        // from its size (as an integer it could take gigabytes).
        let sig = q.mid.significand().unsigned_abs();
        let drop = sig.bit_len().saturating_sub(64);
        let top = (&sig >> drop).to_f64().value();
        let log2_q = top.log2() + drop as f64 + q.mid.exponent() as f64;
        if log2_q > 62.0 {
            return Err(NumError::ExpRange {
                negative: q.mid.significand().sign() == Sign::Negative,
                decimal_exponent: crate::error::Bits(log2_q.exp2() * std::f64::consts::LOG10_2),
            });
        }
        let k = round_dyadic(q.mid.significand(), q.mid.exponent(), Rounding::Nearest);
        // Float exponents are isize: keep well inside. Beyond, say how far
        // beyond (k·log10 2 decades), and which way.
        let k_f64 = k.to_f64().value();
        let range = || NumError::ExpRange {
            negative: k_f64 < 0.0,
            decimal_exponent: crate::error::Bits(k_f64.abs() * std::f64::consts::LOG10_2),
        };
        let k = match i64::try_from(&k) {
            Ok(small) if small.unsigned_abs() <= (1u64 << 60) => small,
            _ => return Err(range()),
        };
        let r = self.sub(x, &self.mul(&Real::Exact(RBig::from(k)), &ln2)?)?;
        let e = self.to_ball(&self.exp_small(&r)?)?;
        // Multiplying by 2^k is exact: shift the midpoint and the radius.
        let mid = Repr::new(e.mid.significand().clone(), e.mid.exponent() + k as isize);
        let rad = e.rad.mul_up(Mag::pow2(k));
        Ok(self.settle(Ball { mid, rad }))
    }

    fn exp_small(&self, x: &Real) -> NumResult<Real> {
        if self.prec >= series::HIGH {
            return self.high(|| self.exp_high(x));
        }
        // |f'| ≤ e^(m+rad) ≤ 2·e^m for rad ≤ 2^-10.
        self.apply(
            x,
            |c, m, cache| c.exp(m, Some(cache)),
            |b, r| {
                Self::small(b)?;
                Ok(Mag::of_repr_up(&r.mid)
                    .add_up(r.rad)
                    .mul_up(Mag::from_u64(2)))
            },
        )
    }

    pub(crate) fn ln(&self, x: &Real) -> NumResult<Real> {
        match self.sign(x)? {
            Ordering::Greater => {}
            Ordering::Equal => return Err(NumError::Domain("logarithm of zero")),
            Ordering::Less => return Err(NumError::Domain("logarithm of a negative number")),
        }
        if let Real::Exact(r) = x {
            if r.is_one() {
                return Ok(Real::Exact(RBig::ZERO));
            }
            if let Some((twos, fives)) = powers_of_two_and_five(r) {
                return self.ln_2_5(twos, fives);
            }
        }
        if self.prec >= series::HIGH {
            return self.high(|| self.ln_high(x));
        }
        // |f'| = 1/x ≤ 1/(m − rad)
        self.apply(
            x,
            |c, m, cache| c.ln(m, Some(cache)),
            |b, _| {
                let lo = Mag::of_repr_down(&b.mid)
                    .sub_down(b.rad)
                    .ok_or(NumError::NeedPrecision)?;
                Mag::from_u64(1).div_up(lo).ok_or(NumError::NeedPrecision)
            },
        )
    }

    /// `(p, 2q)` for `x = (p/q)·π`: the arguments of the exact
    /// `sin(2π·p/(2q))` path.
    fn pi_turns(x: &Real) -> Option<(Real, usize)> {
        let Real::Pi(r, 1) = x else { return None };
        let u = usize::try_from(r.denominator()).ok()?.checked_mul(2)?;
        Some((Real::Exact(RBig::from(r.numerator().clone())), u))
    }

    /// `a·ln 2 + b·ln 5`, from dashu's binary-splitting series for ln 2
    /// and ln 10 (far faster than the general logarithm at thousands of
    /// digits). The series are computed 64 bits beyond the working
    /// precision and trusted to within 1 ulp there: the radius allows
    /// 2^-p relative, a margin of 2^63.
    pub(crate) fn ln_2_5(&self, a: i64, b: i64) -> NumResult<Real> {
        self.budget.check()?;
        if self.prec >= series::HIGH_CONSTANTS {
            let l2 = self.ln2_series()?;
            let l5 = self.ln5_series(&l2)?;
            let x = self.mul(&Real::Exact(RBig::from(a)), &Real::Approx(l2))?;
            let y = self.mul(&Real::Exact(RBig::from(b)), &Real::Approx(l5))?;
            return self.add(&x, &y);
        }
        let extra = self.prec + 64;
        let mut cache = self.cache.borrow_mut();
        let ln2: Float = cache.ln2::<2, HalfEven>(extra);
        let ln10: Float = cache.ln10::<2, HalfEven>(extra);
        drop(cache);
        let err = |v: &Float| Mag::of_repr_up(v.repr()).mul_up(Mag::pow2(-(self.prec as i64)));
        let l2 = Real::Approx(Ball {
            rad: err(&ln2),
            mid: ln2.into_repr(),
        });
        let l10 = Real::Approx(Ball {
            rad: err(&ln10),
            mid: ln10.into_repr(),
        });
        // ln 5 = ln 10 − ln 2
        let l5 = self.sub(&l10, &l2)?;
        let x = self.mul(&Real::Exact(RBig::from(a)), &l2)?;
        let y = self.mul(&Real::Exact(RBig::from(b)), &l5)?;
        self.add(&x, &y)
    }

    pub(crate) fn sin(&self, x: &Real) -> NumResult<Real> {
        if let Some((p, u)) = Self::pi_turns(x) {
            return self.sin_turns(&p, u);
        }
        if self.prec >= series::HIGH || Self::huge_angle(x) {
            return self.high(|| Ok(self.cos_sin_high(x)?.1));
        }
        self.apply(
            x,
            |c, m, cache| c.sin(m, Some(cache)),
            |_, _| Ok(Mag::from_u64(1)),
        )
    }

    pub(crate) fn cos(&self, x: &Real) -> NumResult<Real> {
        if let Some((p, u)) = Self::pi_turns(x) {
            return self.cos_turns(&p, u);
        }
        if self.prec >= series::HIGH || Self::huge_angle(x) {
            return self.high(|| Ok(self.cos_sin_high(x)?.0));
        }
        self.apply(
            x,
            |c, m, cache| c.cos(m, Some(cache)),
            |_, _| Ok(Mag::from_u64(1)),
        )
    }

    /// `sin(2π·x/u)`: exact at the rational special points (sin 30° = 1/2).
    pub(crate) fn sin_turns(&self, x: &Real, u: usize) -> NumResult<Real> {
        if self.prec >= series::HIGH {
            if let Some(s) = Self::special_turn(x, u, 0) {
                return Ok(s);
            }
            let angle = self.turns_to_radians(x, u)?;
            return self.high(|| Ok(self.cos_sin_high(&angle)?.1));
        }
        let scale = Mag::from_u64(7)
            .div_up(Mag::from_u64(u as u64))
            .unwrap_or(Mag::from_u64(7));
        self.apply(
            x,
            |c, m, cache| c.sin_unit(m, u, Some(cache)),
            |_, _| Ok(scale),
        )
    }

    /// `cos(2π·x/u)`.
    pub(crate) fn cos_turns(&self, x: &Real, u: usize) -> NumResult<Real> {
        if self.prec >= series::HIGH {
            if let Some(c) = Self::special_turn(x, u, 1) {
                return Ok(c);
            }
            let angle = self.turns_to_radians(x, u)?;
            return self.high(|| Ok(self.cos_sin_high(&angle)?.0));
        }
        let scale = Mag::from_u64(7)
            .div_up(Mag::from_u64(u as u64))
            .unwrap_or(Mag::from_u64(7));
        self.apply(
            x,
            |c, m, cache| c.cos_unit(m, u, Some(cache)),
            |_, _| Ok(scale),
        )
    }

    pub(crate) fn tan(&self, x: &Real) -> NumResult<Real> {
        if let Some((p, u)) = Self::pi_turns(x) {
            return self.tan_turns(&p, u);
        }
        if self.prec >= series::HIGH || Self::huge_angle(x) {
            return self.high(|| {
                let (c, s) = self.cos_sin_high(x)?;
                self.ball_div(&s, &c)
            });
        }
        // |f'| = 1/cos² ≤ 1/(|cos m| − rad)²
        self.apply(
            x,
            |c, m, cache| c.tan(m, Some(cache)),
            |b, _| {
                let low = Context::<HalfEven>::new(64);
                let cos = low
                    .cos(&b.mid, None)
                    .map_err(|_| NumError::NeedPrecision)?
                    .value()
                    .into_repr();
                let c = Mag::of_repr_down(&cos)
                    .sub_down(Mag::of_repr_up(&cos).mul_up(Mag::pow2(-60)))
                    .and_then(|c| c.sub_down(b.rad))
                    .ok_or(NumError::NeedPrecision)?;
                Mag::from_u64(1)
                    .div_up(c.mul_down(c))
                    .ok_or(NumError::NeedPrecision)
            },
        )
    }

    /// `sin(2π·x/u)` where it is rational: at the multiples of 30° whose
    /// sine is 0, ±1/2 or ±1 (as dashu's kernels give them exactly at low
    /// precision). `shift` quarter turns added give the cosine.
    fn special_turn(x: &Real, u: usize, shift: i64) -> Option<Real> {
        let Real::Exact(r) = x else { return None };
        let twelfths = r * RBig::from(12) / RBig::from(u) + RBig::from(3 * shift);
        if !twelfths.denominator().is_one() {
            return None;
        }
        let k = (twelfths.numerator() % IBig::from(12))
            .to_f64()
            .value()
            .rem_euclid(12.0) as usize;
        let half = |n: i64| RBig::from_parts(IBig::from(n), UBig::from(2u8));
        let v = match k {
            0 | 6 => RBig::ZERO,
            1 | 5 => half(1),
            7 | 11 => half(-1),
            3 => RBig::ONE,
            9 => -RBig::ONE,
            _ => return None,
        };
        Some(Real::Exact(v))
    }

    /// `2π·x/u` as a real.
    fn turns_to_radians(&self, x: &Real, u: usize) -> NumResult<Real> {
        let scale = pi_multiple(RBig::from_parts(IBig::from(2), UBig::from(u)), 1);
        self.mul(x, &scale)
    }

    /// `tan(2π·x/u)`.
    pub(crate) fn tan_turns(&self, x: &Real, u: usize) -> NumResult<Real> {
        if let Real::Exact(r) = x
            && r.denominator().is_one()
        {
            // An exact argument: dashu's kernel, exact at 45°.
            let at_pole = (RBig::from(4) * r / RBig::from(u)).denominator().is_one()
                && !(RBig::from(2) * r / RBig::from(u)).denominator().is_one();
            if at_pole {
                return Err(NumError::Domain("tangent at an odd multiple of 90°"));
            }
            return self.apply(
                x,
                |c, m, cache| c.tan_unit(m, u, Some(cache)),
                |_, _| Ok(Mag::ZERO),
            );
        }
        let s = self.sin_turns(x, u)?;
        let c = self.cos_turns(x, u)?;
        if let Real::Exact(c) = &c
            && c.is_zero()
        {
            return Err(NumError::Domain("tangent at an odd multiple of 90°"));
        }
        self.div(&s, &c)
    }

    /// `1/√(1 − (|m| + rad)²)`, the derivative bound of asin and acos.
    fn arc_bound(b: &Ball) -> NumResult<Mag> {
        let t = Mag::of_repr_up(&b.mid).add_up(b.rad);
        let gap = Mag::from_u64(1)
            .sub_down(t.mul_up(t))
            .ok_or(NumError::NeedPrecision)?;
        Mag::from_u64(1)
            .div_up(gap.sqrt_down())
            .ok_or(NumError::NeedPrecision)
    }

    fn unit_interval(&self, x: &Real) -> NumResult<()> {
        let one = Real::Exact(RBig::ONE);
        if self.compare(&abs(x), &one)? == Ordering::Greater {
            return Err(NumError::Domain("argument outside [-1, 1]"));
        }
        Ok(())
    }

    pub(crate) fn asin(&self, x: &Real) -> NumResult<Real> {
        self.unit_interval(x)?;
        if self.prec >= series::HIGH {
            return self.asin_high(x);
        }
        self.apply(
            x,
            |c, m, cache| c.asin(m, Some(cache)),
            |b, _| Self::arc_bound(b),
        )
    }

    pub(crate) fn acos(&self, x: &Real) -> NumResult<Real> {
        self.unit_interval(x)?;
        if self.prec >= series::HIGH {
            // π/2 − asin x
            let a = self.asin_high(x)?;
            return self.sub(
                &pi_multiple(RBig::from_parts(IBig::ONE, UBig::from(2u8)), 1),
                &a,
            );
        }
        self.apply(
            x,
            |c, m, cache| c.acos(m, Some(cache)),
            |b, _| Self::arc_bound(b),
        )
    }

    pub(crate) fn atan(&self, x: &Real) -> NumResult<Real> {
        if self.prec >= series::HIGH {
            return self.high(|| self.atan_high(x));
        }
        self.apply(
            x,
            |c, m, cache| c.atan(m, Some(cache)),
            |_, _| Ok(Mag::from_u64(1)),
        )
    }

    /// `asin x = atan(x/√(1 − x²))` at high precision (`±1` exactly
    /// `±π/2`).
    fn asin_high(&self, x: &Real) -> NumResult<Real> {
        if let Real::Exact(r) = x
            && r.numerator().unsigned_abs().is_one()
            && r.denominator().is_one()
        {
            return Ok(pi_multiple(
                RBig::from_parts(r.numerator().clone(), UBig::from(2u8)),
                1,
            ));
        }
        let one = Real::Exact(RBig::ONE);
        let gap = self.sub(&one, &self.mul(x, x)?)?;
        let t = self.div(x, &self.sqrt(&gap)?)?;
        self.high(|| self.atan_high(&t))
    }

    /// The angle of the point (x, y), in (−π, π].
    pub(crate) fn atan2(&self, y: &Real, x: &Real) -> NumResult<Real> {
        if self.prec >= series::HIGH {
            let half_pi = pi_multiple(RBig::from_parts(IBig::ONE, UBig::from(2u8)), 1);
            let pi = pi_multiple(RBig::ONE, 1);
            return match (self.sign(x)?, self.sign(y)?) {
                (Ordering::Equal, Ordering::Equal) => {
                    Err(NumError::Domain("the angle of the point (0, 0)"))
                }
                (Ordering::Equal, Ordering::Greater) => Ok(half_pi),
                (Ordering::Equal, Ordering::Less) => Ok(neg(&half_pi)),
                (Ordering::Greater, _) => self.atan(&self.div(y, x)?),
                (Ordering::Less, Ordering::Less) => self.sub(&self.atan(&self.div(y, x)?)?, &pi),
                (Ordering::Less, _) => self.add(&self.atan(&self.div(y, x)?)?, &pi),
            };
        }
        let (by, bx) = (self.to_ball(y)?, self.to_ball(x)?);
        if by.mid.significand().is_zero()
            && by.rad.is_zero()
            && bx.mid.significand().is_zero()
            && bx.rad.is_zero()
        {
            return Err(NumError::Domain("the angle of the point (0, 0)"));
        }
        let mut cache = self.cache.borrow_mut();
        let mut r = self.ball(self.ctx().atan2(&by.mid, &bx.mid, Some(&mut cache)))?;
        drop(cache);
        if !(by.rad.is_zero() && bx.rad.is_zero()) {
            // |∂/∂x|, |∂/∂y| ≤ 1/r, where r ≥ max(|x|, |y|) − rad.
            let r_low = Mag::of_repr_down(&by.mid)
                .max(Mag::of_repr_down(&bx.mid))
                .sub_down(by.rad.max(bx.rad))
                .ok_or(NumError::NeedPrecision)?;
            let d = by
                .rad
                .add_up(bx.rad)
                .div_up(r_low)
                .ok_or(NumError::NeedPrecision)?;
            r.rad = r.rad.add_up(d);
        }
        Ok(self.settle(r))
    }

    /// `asin(x)·u/(2π)`: exact at the special points (asin 1/2 = 30°).
    pub(crate) fn asin_turns(&self, x: &Real, u: usize) -> NumResult<Real> {
        self.unit_interval(x)?;
        if self.prec >= series::HIGH {
            // 0, ±1/2, ±1: 0, ±u/12, ±u/4 turns exactly.
            if let Real::Exact(r) = x {
                let twelfths = [(0, 0), (1, 1), (2, 3)].iter().find_map(|&(twice, t)| {
                    (r.clone().abs() * RBig::from(2) == RBig::from(twice)).then_some(t)
                });
                if let Some(t) = twelfths {
                    let v = RBig::from_parts(IBig::from(t * u as i64), UBig::from(12u8));
                    return Ok(Real::Exact(if r.sign() == Sign::Negative { -v } else { v }));
                }
            }
            let a = self.asin_high(x)?;
            return self.mul(&a, &Self::per_radian_exact(u));
        }
        let scale = per_radian(u);
        self.apply(
            x,
            |c, m, cache| c.asin_unit(m, u, Some(cache)),
            |b, _| Ok(Self::arc_bound(b)?.mul_up(scale)),
        )
    }

    /// `acos(x)·u/(2π)`.
    pub(crate) fn acos_turns(&self, x: &Real, u: usize) -> NumResult<Real> {
        self.unit_interval(x)?;
        if self.prec >= series::HIGH {
            // u/4 − asin_turns
            let quarter = Real::Exact(RBig::from_parts(IBig::from(u as i64), UBig::from(4u8)));
            return self.sub(&quarter, &self.asin_turns(x, u)?);
        }
        let scale = per_radian(u);
        self.apply(
            x,
            |c, m, cache| c.acos_unit(m, u, Some(cache)),
            |b, _| Ok(Self::arc_bound(b)?.mul_up(scale)),
        )
    }

    /// `atan(x)·u/(2π)`.
    pub(crate) fn atan_turns(&self, x: &Real, u: usize) -> NumResult<Real> {
        if self.prec >= series::HIGH {
            // 0 and ±1: 0 and ±u/8 turns exactly.
            if let Real::Exact(r) = x
                && (r.is_zero()
                    || (r.numerator().unsigned_abs().is_one() && r.denominator().is_one()))
            {
                return Ok(Real::Exact(
                    r * RBig::from_parts(IBig::from(u as i64), UBig::from(8u8)),
                ));
            }
            let a = self.high(|| self.atan_high(x))?;
            return self.mul(&a, &Self::per_radian_exact(u));
        }
        let scale = per_radian(u);
        self.apply(
            x,
            |c, m, cache| c.atan_unit(m, u, Some(cache)),
            |_, _| Ok(scale),
        )
    }

    /// `u/(2π)`, exactly (a rational multiple of `π^-1`).
    fn per_radian_exact(u: usize) -> Real {
        pi_multiple(RBig::from_parts(IBig::from(u as i64), UBig::from(2u8)), -1)
    }

    /// `cosh(m)·2`, a bound on `|sinh'|` and `|cosh'|` over a small ball.
    fn cosh_bound(b: &Ball) -> NumResult<Mag> {
        Self::small(b)?;
        let low = Context::<HalfEven>::new(64);
        let c = low
            .cosh(&b.mid, None)
            .map_err(|_| NumError::Overflow)?
            .value()
            .into_repr();
        Ok(Mag::of_repr_up(&c).mul_up(Mag::from_u64(3)))
    }

    /// `(cosh x, sinh x)` at high precision: by their series below 1 in
    /// size (no cancellation), else from `e^x`.
    fn cosh_sinh_high(&self, x: &Real) -> NumResult<(Real, Real)> {
        let small = self.compare(&abs(x), &Real::Exact(RBig::ONE)).ok() == Some(Ordering::Less);
        if small {
            let (c, s) = self.cosh_sinh_series(x)?;
            return Ok((self.settle(c), self.settle(s)));
        }
        let e = self.exp(x)?;
        let inv = self.div(&Real::Exact(RBig::ONE), &e)?;
        let half = Real::Exact(RBig::from_parts(IBig::ONE, UBig::from(2u8)));
        Ok((
            self.mul(&self.add(&e, &inv)?, &half)?,
            self.mul(&self.sub(&e, &inv)?, &half)?,
        ))
    }

    pub(crate) fn sinh(&self, x: &Real) -> NumResult<Real> {
        if self.prec >= series::HIGH {
            return Ok(self.cosh_sinh_high(x)?.1);
        }
        self.apply(
            x,
            |c, m, cache| c.sinh(m, Some(cache)),
            |b, _| Self::cosh_bound(b),
        )
    }

    pub(crate) fn cosh(&self, x: &Real) -> NumResult<Real> {
        if self.prec >= series::HIGH {
            return Ok(self.cosh_sinh_high(x)?.0);
        }
        self.apply(
            x,
            |c, m, cache| c.cosh(m, Some(cache)),
            |b, _| Self::cosh_bound(b),
        )
    }

    pub(crate) fn tanh(&self, x: &Real) -> NumResult<Real> {
        if self.prec >= series::HIGH {
            // Beyond 2^(prec/2) in size, tanh is ±1 to every bit kept.
            let (c, s) = self.cosh_sinh_high(x)?;
            return self.div(&s, &c);
        }
        self.apply(
            x,
            |c, m, cache| c.tanh(m, Some(cache)),
            |_, _| Ok(Mag::from_u64(1)),
        )
    }

    pub(crate) fn asinh(&self, x: &Real) -> NumResult<Real> {
        if self.prec >= series::HIGH {
            // sign·ln(|x| + √(x² + 1)) (a tiny x loses relative precision
            // in the logarithm: the retry at more bits makes up for it).
            let one = Real::Exact(RBig::ONE);
            let ax = abs(x);
            let root = self.sqrt(&self.add(&self.mul(x, x)?, &one)?)?;
            let r = self.ln(&self.add(&ax, &root)?)?;
            return Ok(if self.sign(x)? == Ordering::Less {
                neg(&r)
            } else {
                r
            });
        }
        self.apply(
            x,
            |c, m, cache| c.asinh(m, Some(cache)),
            |_, _| Ok(Mag::from_u64(1)),
        )
    }

    pub(crate) fn acosh(&self, x: &Real) -> NumResult<Real> {
        let one = Real::Exact(RBig::ONE);
        if self.compare(x, &one)? == Ordering::Less {
            return Err(NumError::Domain("acosh of a value below 1"));
        }
        if self.prec >= series::HIGH {
            // ln(x + √(x² − 1))
            let root = self.sqrt(&self.sub(&self.mul(x, x)?, &one)?)?;
            return self.ln(&self.add(x, &root)?);
        }
        // |f'| = 1/√(x² − 1) ≤ 1/√((m − rad)² − 1)
        self.apply(
            x,
            |c, m, cache| c.acosh(m, Some(cache)),
            |b, _| {
                let lo = Mag::of_repr_down(&b.mid)
                    .sub_down(b.rad)
                    .ok_or(NumError::NeedPrecision)?;
                let gap = lo
                    .mul_down(lo)
                    .sub_down(Mag::from_u64(1))
                    .ok_or(NumError::NeedPrecision)?;
                Mag::from_u64(1)
                    .div_up(gap.sqrt_down())
                    .ok_or(NumError::NeedPrecision)
            },
        )
    }

    pub(crate) fn atanh(&self, x: &Real) -> NumResult<Real> {
        let one = Real::Exact(RBig::ONE);
        if self.compare(&abs(x), &one)? != Ordering::Less {
            return Err(NumError::Domain("atanh needs |x| < 1"));
        }
        if self.prec >= series::HIGH {
            // ½·ln((1 + x)/(1 − x))
            let q = self.div(&self.add(&one, x)?, &self.sub(&one, x)?)?;
            let half = Real::Exact(RBig::from_parts(IBig::ONE, UBig::from(2u8)));
            return self.mul(&self.ln(&q)?, &half);
        }
        // |f'| = 1/(1 − x²)
        self.apply(
            x,
            |c, m, cache| c.atanh(m, Some(cache)),
            |b, _| {
                let t = Mag::of_repr_up(&b.mid).add_up(b.rad);
                let gap = Mag::from_u64(1)
                    .sub_down(t.mul_up(t))
                    .ok_or(NumError::NeedPrecision)?;
                Mag::from_u64(1).div_up(gap).ok_or(NumError::NeedPrecision)
            },
        )
    }

    /// `x^y` for real results: exact where an exact root exists,
    /// `exp(y·ln x)` otherwise (x > 0).
    pub(crate) fn pow(&self, x: &Real, y: &Real) -> NumResult<Real> {
        if let Real::Exact(e) = y {
            if e.denominator().is_one() {
                return self.powi(x, e.numerator());
            }
            if let Real::Exact(b) = x {
                let q = usize::try_from(e.denominator()).unwrap_or(usize::MAX);
                if q <= 64
                    && let Some(root) = self.exact_root(b, q)
                {
                    return self.powi(&Real::Exact(root), e.numerator());
                }
            }
        }
        match self.sign(x)? {
            Ordering::Greater => {}
            Ordering::Equal => {
                return match self.sign(y)? {
                    Ordering::Greater => Ok(Real::Exact(RBig::ZERO)),
                    _ => Err(NumError::DivisionByZero),
                };
            }
            Ordering::Less => {
                return Err(NumError::Domain("a negative number to a fractional power"));
            }
        }
        let l = self.ln(x)?;
        let p = self.mul(y, &l)?;
        self.exp(&p)
    }

    /// An approximate `f64` (for plotting and sizing; never printed).
    pub(crate) fn to_f64(x: &Real) -> f64 {
        match x {
            Real::Exact(r) => r.to_f64().value(),
            Real::Pi(r, k) => r.to_f64().value() * std::f64::consts::PI.powi(*k),
            Real::Approx(b) => Float::from_parts(b.mid.significand().clone(), b.mid.exponent())
                .to_f64()
                .value(),
        }
    }
}

impl Mag {
    /// `min(self, 1)`.
    fn min_one_down(self) -> Mag {
        if self.le(Mag::from_u64(1)) {
            self
        } else {
            Mag::from_u64(1)
        }
    }
}

/// How `round` rounds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Rounding {
    Floor,
    Ceil,
    Nearest,
    Trunc,
}

pub(crate) fn neg(x: &Real) -> Real {
    match x {
        Real::Exact(r) => Real::Exact(-r),
        Real::Pi(r, k) => Real::Pi(-r, *k),
        Real::Approx(b) => Real::Approx(Ball {
            mid: -b.mid.clone(),
            rad: b.rad,
        }),
    }
}

pub(crate) fn abs(x: &Real) -> Real {
    match x {
        Real::Exact(r) => Real::Exact(r.clone().abs()),
        Real::Pi(r, k) => Real::Pi(r.clone().abs(), *k),
        Real::Approx(b) => Real::Approx(Ball {
            mid: Repr::new(
                IBig::from(b.mid.significand().unsigned_abs().clone()),
                b.mid.exponent(),
            ),
            rad: b.rad,
        }),
    }
}

pub(crate) fn is_exact_zero(x: &Real) -> bool {
    matches!(x, Real::Exact(r) if r.is_zero())
}

pub(crate) fn exact(n: i64) -> Real {
    Real::Exact(RBig::from(n))
}

/// A bound on `u/(2π)`, the derivative factor of an angle measured in
/// `1/u` turns: `u/6`, rounded up.
fn per_radian(u: usize) -> Mag {
    Mag::from_u64(u as u64)
        .div_up(Mag::from_u64(6))
        .unwrap_or(Mag::ZERO)
}

/// `(a, b)` with `r = 2^a·5^b`, if r is of that form (r ≠ 1).
fn powers_of_two_and_five(r: &RBig) -> Option<(i64, i64)> {
    if r.sign() != Sign::Positive || r.is_zero() {
        return None;
    }
    let split = |n: &UBig| -> Option<(i64, i64)> {
        let twos = n.trailing_zeros().unwrap_or(0);
        let rest: UBig = n >> twos;
        if rest.is_one() {
            return Some((twos as i64, 0));
        }
        // 5^k has bit length ⌊k·log2 5⌋ + 1: one power to compare, not a
        // division per factor (10^-1000000 has a million of them).
        let bits = rest.bit_len() as f64;
        let k = ((bits - 1.0) / 5f64.log2()).round() as usize;
        (k.saturating_sub(1)..=k + 1)
            .find(|&k| UBig::from(5u8).pow(k) == rest)
            .map(|k| (twos as i64, k as i64))
    };
    let (na, nb) = split(&r.numerator().unsigned_abs())?;
    let (da, db) = split(r.denominator())?;
    Some((na - da, nb - db))
}

/// `(r, k)` for `r·π^k` (an exact rational has `k = 0`).
fn pi_parts(x: &Real) -> Option<(&RBig, i32)> {
    match x {
        Real::Exact(r) => Some((r, 0)),
        Real::Pi(r, k) => Some((r, *k)),
        Real::Approx(_) => None,
    }
}

/// The exact rational value of a binary float. The significand's trailing
/// zeros are taken out first, so an integer costs no gcd (dashu reduces
/// every fraction by a general gcd, which takes seconds at a million
/// digits even against a power of two).
pub(crate) fn repr_to_rational(x: &Repr<2>) -> RBig {
    let (sig, e) = trimmed(x.significand(), x.exponent());
    if e >= 0 {
        RBig::from(sig << e as usize)
    } else {
        RBig::from_parts(sig, UBig::ONE << e.unsigned_abs())
    }
}

/// `sig·2^e` with the significand's trailing zeros moved into the exponent.
fn trimmed(sig: &IBig, e: isize) -> (IBig, isize) {
    match sig.unsigned_abs().trailing_zeros() {
        Some(tz) if tz > 0 => (sig >> tz, e + tz as isize),
        _ => (sig.clone(), e),
    }
}

/// An exact rational rounded to an integer.
fn round_rational(r: &RBig, how: Rounding) -> IBig {
    match how {
        Rounding::Floor => r.floor(),
        Rounding::Ceil => r.ceil(),
        Rounding::Trunc => r.trunc(),
        Rounding::Nearest => {
            // Halves away from zero.
            let half = RBig::from_parts(IBig::ONE, UBig::from(2u8));
            if r.sign() == Sign::Negative {
                -(-r + half).floor()
            } else {
                (r + half).floor()
            }
        }
    }
}

/// `sig·2^e` rounded to an integer by shifts alone (no rational, so no
/// gcd): what argument reductions and `round`/`floor` need.
pub(crate) fn round_dyadic(sig: &IBig, e: isize, how: Rounding) -> IBig {
    if e >= 0 {
        return sig << e as usize;
    }
    let s = e.unsigned_abs();
    let mag = sig.unsigned_abs();
    let negative = sig.sign() == Sign::Negative;
    let down = || IBig::from(&mag >> s);
    let up = || IBig::from((&mag + ((UBig::ONE << s) - UBig::ONE)) >> s);
    let away = match how {
        Rounding::Floor => negative,
        Rounding::Ceil => !negative,
        Rounding::Trunc => false,
        Rounding::Nearest => {
            // Halves away from zero.
            let m = IBig::from((&mag + (UBig::ONE << (s - 1))) >> s);
            return if negative { -m } else { m };
        }
    };
    let m = if away { up() } else { down() };
    if negative { -m } else { m }
}

/// The two ends of a ball, exactly, as `(significand, exponent)`.
fn ball_ends_dyadic(b: &Ball) -> ((IBig, isize), (IBig, isize)) {
    let r = b.rad.to_repr();
    let (ms, me) = (b.mid.significand(), b.mid.exponent());
    let (rs, re) = (r.significand(), r.exponent());
    let e = me.min(re);
    let m = ms << (me - e) as usize;
    let r = rs << (re - e) as usize;
    ((&m - &r, e), (m + r, e))
}

/// `log2 |n|`, roughly.
fn log2_size(n: &IBig) -> f64 {
    let bits = n.unsigned_abs().bit_len();
    if bits <= 1000 {
        n.to_f64().value().abs().log2()
    } else {
        bits as f64
    }
}

/// `⌊log10 |x|⌋`, roughly (within one); `None` for zero.
pub(crate) fn decimal_exponent(x: &Real) -> Option<i64> {
    let log2 = match x {
        Real::Exact(r) | Real::Pi(r, _) => {
            if r.is_zero() {
                return None;
            }
            r.numerator().unsigned_abs().bit_len() as f64 - r.denominator().bit_len() as f64
        }
        Real::Approx(b) => {
            if b.mid.significand().is_zero() {
                return None;
            }
            b.mid.significand().unsigned_abs().bit_len() as f64 + b.mid.exponent() as f64
        }
    };
    Some((log2 * std::f64::consts::LOG10_2).floor() as i64)
}

/// Bits needed to store a rational (numerator plus denominator).
pub(crate) fn rational_bits(r: &RBig) -> u64 {
    (r.numerator().unsigned_abs().bit_len() + r.denominator().bit_len()) as u64
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Rounding by shifts gives what rounding the exact fraction gives,
        /// in every mode, at halves and at exact integers too.
        #[test]
        fn rounding_by_shifts_matches_the_fraction(
            sig in -(1i64 << 40)..(1i64 << 40),
            e in -45isize..8,
            low in 0u32..4,
        ) {
            // Some significands end in a half or in zeros on purpose.
            let sig = IBig::from(sig) << low as usize;
            let exact = repr_to_rational(&Repr::new(sig.clone(), e));
            for how in [Rounding::Floor, Rounding::Ceil, Rounding::Trunc, Rounding::Nearest] {
                prop_assert_eq!(round_dyadic(&sig, e, how), round_rational(&exact, how), "{:?}", how);
            }
            let plain = if e >= 0 {
                RBig::from(sig.clone() << e as usize)
            } else {
                RBig::from_parts(sig.clone(), UBig::ONE << e.unsigned_abs())
            };
            prop_assert_eq!(exact, plain);
        }
    }
}
