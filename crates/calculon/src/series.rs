//! Kernels for high precision that stop when told to: π, ln 2, ln 5, e^x,
//! cos and sin, ln and atan, built from binary splitting of power series
//! (Haible and Papanikolaou) over exact integers, with the budget checked
//! at every merge and before each piece of a large multiplication.
//!
//! dashu's kernels are correctly rounded and quick at the precisions most
//! lines use, but a call cannot be interrupted: `exp(1)` at a million
//! digits ran for minutes past its time limit, and its logarithm and sine
//! slow down sharply past ten thousand digits. At and above [`HIGH`] bits
//! the calculator uses these instead:
//!
//! - a series `Σ a(n)/b(n)·Π p(j)/q(j)` is summed exactly as `T/(B·Q)` by
//!   splitting its range in halves; only the last division rounds;
//! - small exact arguments (`exp 1`, `sin 1`, `ln 3` through `atanh 1/5`)
//!   take one series of small integers;
//! - other arguments (a ball's midpoint, a dyadic number) take the
//!   "bit-burst": split into pieces of 8, 16, 32, … bits, each piece's
//!   series converging the faster the further down its bits lie, and the
//!   results multiplied (`e^(a+b) = e^a·e^b`, and the angle-addition
//!   formulas for cos and sin);
//! - ln and atan solve `e^y = x` and `tan y = x` by Newton's method at
//!   doubling precision; a last step at full precision bounds the error
//!   itself (`ln x = y + ln(1 + t)`, `|ln(1+t) − t| ≤ t²`), so Newton need
//!   not be trusted.
//!
//! Every truncated series adds a rigorous bound on its tail to the radius
//! (from `n! ≥ (n/e)^n`), so results are balls that contain the true value,
//! like everything else in [`crate::real`].

use dashu_base::{BitTest, Sign, UnsignedAbs};
use dashu_float::Repr;
use dashu_int::{IBig, UBig};
use dashu_ratio::RBig;

use crate::mag::Mag;
use crate::real::{Ball, NumError, NumResult, Real, Rounding, Work, round_dyadic};

/// The working precision, in bits, from which the kernels here replace
/// dashu's: below it a dashu call takes well under a tenth of a second.
pub(crate) const HIGH: usize = 1 << 14;

/// The precision from which π, ln 2 and ln 5 come from here rather than
/// dashu's cache (whose binary splitting is quick, but one call at a
/// million digits takes seconds).
pub(crate) const HIGH_CONSTANTS: usize = 1 << 17;

/// Multiplications with both factors above this many bits go in pieces of
/// it, with a budget check before each (a multiplication of two
/// million-digit numbers takes about 0.08 s here).
const PIECE: usize = 1 << 20;

/// Ranges of fewer terms than this are summed without checking the
/// budget (they take microseconds).
const QUIET_TERMS: u64 = 64;

/// From this precision on, `ball_mul`, `ball_div` and `ball_sqrt` find
/// their midpoints here, by products in pieces that check the budget, and
/// not by one dashu call that cannot be stopped (a division or square root
/// at three million bits takes half a second to a second). Their radii
/// come from an exact check of the answer.
pub(crate) const PIECEWISE: usize = 1 << 20;

/// A reciprocal's first bits, up to this many, come from one dashu
/// division (milliseconds).
const RECIPROCAL_BASE: usize = 1 << 16;

/// `u` (of `n` bits) cut or extended to its leading `k` bits.
fn leading(u: &UBig, n: usize, k: usize) -> UBig {
    if n > k { u >> (n - k) } else { u << (k - n) }
}

/// A non-negative magnitude with a sign.
fn signed(m: UBig, negative: bool) -> IBig {
    if negative {
        -IBig::from(m)
    } else {
        IBig::from(m)
    }
}

/// `a·2^ea − b·2^eb`, exactly, as `(significand, exponent)`.
fn dyadic_sub(a: &IBig, ea: isize, b: &IBig, eb: isize) -> (IBig, isize) {
    let e = ea.min(eb);
    ((a << (ea - e) as usize) - (b << (eb - e) as usize), e)
}

/// The terms of `Σ (±z²)^n/(2n+1)` with `z² = u2/v2`: atanh's series
/// (`sign` 1) and atan's (−1).
struct ArcTerms {
    u2: IBig,
    v2: IBig,
    sign: i8,
}

impl Terms for ArcTerms {
    fn term(&self, n: u64) -> (IBig, Option<IBig>, IBig, IBig) {
        let b = Some(IBig::from(2 * n + 1));
        if n == 0 {
            return (IBig::ONE, b, IBig::ONE, IBig::ONE);
        }
        let p = if self.sign < 0 {
            -self.u2.clone()
        } else {
            self.u2.clone()
        };
        (IBig::ONE, b, p, self.v2.clone())
    }
}

/// One range's products: `P = Π p`, `Q = Π q`, `B = Π b` (absent when
/// every `b` is 1) and `T`, with the range's sum `T/(B·Q)`.
struct Split {
    p: Option<IBig>,
    q: IBig,
    b: Option<IBig>,
    t: IBig,
}

/// The terms of a series `Σ_{n<N} a(n)/b(n) · Π_{j≤n} p(j)/q(j)`:
/// `(a, b, p, q)` for term `n` (`b` absent for 1).
trait Terms {
    fn term(&self, n: u64) -> (IBig, Option<IBig>, IBig, IBig);
}

impl Work<'_> {
    /// `a·b`, in pieces when both are large, checking the budget first.
    pub(crate) fn mul_int(&self, a: &IBig, b: &IBig) -> NumResult<IBig> {
        self.budget.check()?;
        let (big, small) = if a.unsigned_abs().bit_len() >= b.unsigned_abs().bit_len() {
            (a, b)
        } else {
            (b, a)
        };
        if small.unsigned_abs().bit_len() < PIECE {
            return Ok(a * b);
        }
        let negative = big.sign() == Sign::Negative;
        let size: UBig = big.unsigned_abs();
        let mask: UBig = (UBig::ONE << PIECE) - UBig::ONE;
        let mut acc = IBig::ZERO;
        let mut shift = 0usize;
        while shift < size.bit_len() {
            self.budget.check()?;
            let piece = IBig::from((&size >> shift) & &mask);
            acc += (piece * small) << shift;
            shift += PIECE;
        }
        Ok(if negative { -acc } else { acc })
    }

    /// A product rounded toward zero to the working precision, the
    /// product itself in pieces.
    pub(crate) fn mul_pieces(&self, x: &Repr<2>, y: &Repr<2>) -> NumResult<Ball> {
        let prod = self.mul_int(x.significand(), y.significand())?;
        let e = x.exponent() + y.exponent();
        let negative = prod.sign() == Sign::Negative;
        let mag = prod.unsigned_abs();
        let drop = mag.bit_len().saturating_sub(self.prec);
        let top = mag >> drop;
        let at = e + drop as isize;
        Ok(Ball {
            mid: Repr::new(signed(top, negative), at),
            // What was cut is below one unit of the kept part's last place.
            rad: if drop > 0 {
                Mag::pow2(at as i64)
            } else {
                Mag::ZERO
            },
        })
    }

    /// About `2^(n+k)/b` for `b` of `n` bits: the reciprocal of `b/2^n`
    /// (which lies in [1/2, 1)) with `k` bits after the point, by Newton
    /// steps `r + r(1 − x·r)` that double the bits, on `x`'s leading bits
    /// only. Its error is a few units of the last place; callers check
    /// their answer exactly, so only speed depends on it.
    fn reciprocal(&self, b: &UBig, n: usize, k: usize) -> NumResult<IBig> {
        self.budget.check()?;
        if k <= RECIPROCAL_BASE {
            return Ok(IBig::from((UBig::ONE << (2 * k)) / leading(b, n, k)));
        }
        let h = k / 2 + 32;
        let r = self.reciprocal(b, n, h)?;
        let x = IBig::from(leading(b, n, k));
        // 1 − x·r with k + h bits after the point, then r·(1 − x·r) with k.
        let e = (IBig::ONE << (k + h)) - self.mul_int(&x, &r)?;
        let correction = self.mul_int(&r, &e)? >> (2 * h);
        Ok((r << (k - h)) + correction)
    }

    /// `x/y` to the working precision (truncated), and the part of `x`
    /// it was computed from: `(quotient, exponent, x's kept bits, their
    /// exponent, whether bits of x were cut)`.
    fn quotient_pieces(
        &self,
        x: &Repr<2>,
        y: &Repr<2>,
    ) -> NumResult<(UBig, isize, UBig, isize, bool)> {
        let p = self.prec;
        let ym = y.significand().unsigned_abs();
        let n = ym.bit_len();
        let xm = x.significand().unsigned_abs();
        // x's leading p + 64 bits: what is cut is below 2^-(p+63) of x.
        let cut = xm.bit_len().saturating_sub(p + 64);
        let xt = &xm >> cut;
        let ex = x.exponent() + cut as isize;
        let k = p + 64;
        let r = self.reciprocal(&ym, n, k)?;
        // xt·r ≈ (x/y)·2^(n + k − ex + ey)
        let q = self.mul_int(&IBig::from(xt.clone()), &r)?.unsigned_abs();
        let drop = q.bit_len().saturating_sub(p);
        let eq = ex - y.exponent() - n as isize - k as isize + drop as isize;
        Ok((q >> drop, eq, xt, ex, cut > 0))
    }

    /// `x/y` at the working precision, in pieces; the radius from the
    /// exact remainder `x − q·y`.
    pub(crate) fn div_pieces(&self, x: &Repr<2>, y: &Repr<2>) -> NumResult<Ball> {
        if y.significand().is_zero() {
            return Err(NumError::DivisionByZero);
        }
        if x.significand().is_zero() {
            return Ok(Ball {
                mid: Repr::new(IBig::ZERO, 0),
                rad: Mag::ZERO,
            });
        }
        let negative = (x.significand().sign() == Sign::Negative)
            != (y.significand().sign() == Sign::Negative);
        let (q, eq, xt, ex, cut) = self.quotient_pieces(x, y)?;
        let n = y.significand().unsigned_abs().bit_len();
        let ym = IBig::from(y.significand().unsigned_abs());
        // xt·2^ex/(ym·2^ey) − q·2^eq = (xt·2^(ex−ey) − q·ym·2^eq)/ym, and
        // ym ≥ 2^(n−1).
        let qy = self.mul_int(&IBig::from(q.clone()), &ym)?;
        self.budget.check()?;
        let (mut num, e0) = dyadic_sub(&IBig::from(xt), ex - y.exponent(), &qy, eq);
        // The Newton steps leave q a few units off: take the remainder's
        // quotient into it (a small number over ym), so that an exact
        // quotient comes out exact.
        let up = (eq - e0) as usize;
        let delta = (&num >> up) / &ym;
        let q = IBig::from(q) + &delta;
        num -= (delta * &ym) << up;
        let mid = Repr::new(if negative { -q } else { q }, eq);
        let mut rad = if num.is_zero() {
            Mag::ZERO
        } else {
            Mag::of_repr_up(&Repr::new(num, e0)).mul_up(Mag::pow2(1 - n as i64))
        };
        if cut {
            rad = rad.add_up(Mag::of_repr_up(&mid).mul_up(Mag::pow2(-(self.prec as i64) - 62)));
        }
        Ok(Ball { mid, rad })
    }

    /// About √x for x > 0, to the working precision: Newton steps
    /// `(s + x/s)/2` that double the bits, each division in pieces.
    fn sqrt_approx(&self, x: &Repr<2>) -> NumResult<Repr<2>> {
        self.budget.check()?;
        if self.prec <= 2 * RECIPROCAL_BASE {
            return Ok(self.ball(self.ctx().sqrt(x))?.mid);
        }
        let s = Work::new(self.prec / 2 + 32, self.budget).sqrt_approx(x)?;
        let (q, eq, ..) = self.quotient_pieces(x, &s)?;
        let (sum, e0) = dyadic_sub(s.significand(), s.exponent(), &-IBig::from(q), eq);
        let drop = (&sum).unsigned_abs().bit_len().saturating_sub(self.prec);
        Ok(Repr::new(sum >> drop, e0 + drop as isize - 1))
    }

    /// √x for x > 0 at the working precision, in pieces; the radius from
    /// the exact residual: |√x − s| = |x − s²|/(√x + s) ≤ |x − s²|/s.
    pub(crate) fn sqrt_pieces(&self, x: &Repr<2>) -> NumResult<Ball> {
        if x.significand().sign() == Sign::Negative {
            return Err(NumError::Domain("outside the function's domain"));
        }
        if x.significand().is_zero() {
            return Ok(Ball {
                mid: Repr::new(IBig::ZERO, 0),
                rad: Mag::ZERO,
            });
        }
        let s = self.sqrt_approx(x)?;
        let (sig, es) = (s.significand(), s.exponent());
        let sq = self.mul_int(sig, sig)?;
        self.budget.check()?;
        let (mut num, e0) = dyadic_sub(x.significand(), x.exponent(), &sq, 2 * es);
        // s is a few units off: move it by (x − s²)/(2s), so that an exact
        // square root comes out exact; (s + d)² = s² + 2sd + d².
        let up = (2 * es - e0) as usize;
        let delta = (&num >> up) / (sig << 1usize);
        num -= (((sig * &delta) << 1usize) + &delta * &delta) << up;
        let s = Repr::new(sig + delta, es);
        let rad = if num.is_zero() {
            Mag::ZERO
        } else {
            Mag::of_repr_up(&Repr::new(num, e0))
                .div_up(Mag::of_repr_down(&s))
                .ok_or(NumError::NeedPrecision)?
        };
        Ok(Ball { mid: s, rad })
    }

    /// The products of terms `[n1, n2)`; `P` only where the caller needs
    /// it (the rightmost range's `P` is never used).
    fn split(&self, s: &impl Terms, n1: u64, n2: u64, need_p: bool) -> NumResult<Split> {
        if n2 - n1 == 1 {
            let (a, b, p, q) = s.term(n1);
            return Ok(Split {
                t: &a * &p,
                p: need_p.then_some(p),
                q,
                b,
            });
        }
        let m = n1 + (n2 - n1) / 2;
        let left = self.split(s, n1, m, true)?;
        let right = self.split(s, m, n2, need_p)?;
        let quiet = n2 - n1 < QUIET_TERMS;
        let mul = |a: &IBig, b: &IBig| -> NumResult<IBig> {
            if quiet { Ok(a * b) } else { self.mul_int(a, b) }
        };
        let lp = left.p.as_ref().ok_or(NumError::NeedPrecision)?;
        // T = Br·Qr·Tl + Bl·Pl·Tr
        let (tl, tr) = match (&left.b, &right.b) {
            (Some(bl), Some(br)) => (
                mul(&mul(br, &right.q)?, &left.t)?,
                mul(&mul(bl, lp)?, &right.t)?,
            ),
            _ => (mul(&right.q, &left.t)?, mul(lp, &right.t)?),
        };
        let p = match (&right.p, need_p) {
            (Some(rp), true) => Some(mul(lp, rp)?),
            _ => None,
        };
        let b = match (&left.b, &right.b) {
            (Some(bl), Some(br)) => Some(mul(bl, br)?),
            _ => None,
        };
        Ok(Split {
            p,
            q: mul(&left.q, &right.q)?,
            b,
            t: tl + tr,
        })
    }

    /// The sum of a series' first `n` terms as a ball (rounded once), plus
    /// `tail` on its radius.
    fn series_sum(&self, s: &impl Terms, n: u64, tail: Mag) -> NumResult<Ball> {
        let sp = self.split(s, 0, n.max(1), false)?;
        let den = match &sp.b {
            Some(b) => self.mul_int(b, &sp.q)?,
            None => sp.q,
        };
        self.budget.check()?;
        // Only the leading bits matter: cut both to the precision (plus 64)
        // before the one division, which would otherwise divide numbers
        // of many times its size. With T = T'·2^e + a, D = D'·2^e + b
        // (0 ≤ a, b < 2^e): |T/D − T'/D'| ≤ 2^e/D·(1 + |T'/D'|) ≤
        // 2^-(prec+63)·(1 + |S'|).
        let excess = (&den)
            .unsigned_abs()
            .bit_len()
            .saturating_sub(self.prec + 64);
        let (t, den) = if excess > 0 {
            (&sp.t >> excess, den >> excess)
        } else {
            (sp.t, den)
        };
        let mut r = self.quotient(&t, &den)?;
        r.rad = r.rad.add_up(tail);
        if excess > 0 {
            let size = Mag::of_repr_up(&r.mid).add_up(Mag::from_u64(1));
            r.rad = r
                .rad
                .add_up(size.mul_up(Mag::pow2(-(self.prec as i64) - 63)));
        }
        Ok(r)
    }

    /// `t/d` as a ball at the working precision.
    fn quotient(&self, t: &IBig, d: &IBig) -> NumResult<Ball> {
        let x = Ball {
            mid: Repr::new(t.clone(), 0),
            rad: Mag::ZERO,
        };
        let y = Ball {
            mid: Repr::new(d.clone(), 0),
            rad: Mag::ZERO,
        };
        self.ball_div(&x, &y)
    }

    /// The same precision with `extra` more bits.
    fn wider(&self, extra: usize) -> Work<'_> {
        Work::new(self.prec + extra, self.budget)
    }

    /// Guard bits for a kernel at this precision.
    fn guard(&self) -> usize {
        32 + 2 * (usize::BITS - self.prec.leading_zeros()) as usize
    }

    // ------------------------------------------------------------------
    // Constants
    // ------------------------------------------------------------------

    /// π by the Chudnovskys' series (about 47 bits a term; the tail is
    /// bounded with 37, from a crude bound on the ratio of terms).
    pub(crate) fn pi_series(&self) -> NumResult<Ball> {
        let w = self.wider(self.guard());
        let c: u64 = 640_320;
        let c3_24 = IBig::from(c) * IBig::from(c) * IBig::from(c) / IBig::from(24u8);
        struct Chud {
            c3_24: IBig,
        }
        impl Terms for Chud {
            fn term(&self, k: u64) -> (IBig, Option<IBig>, IBig, IBig) {
                let a = IBig::from(13_591_409u64) + IBig::from(545_140_134u64) * IBig::from(k);
                if k == 0 {
                    return (a, None, IBig::ONE, IBig::ONE);
                }
                let k = IBig::from(k);
                let p = -((IBig::from(6u8) * &k - IBig::from(5u8))
                    * (IBig::from(2u8) * &k - IBig::ONE)
                    * (IBig::from(6u8) * &k - IBig::ONE));
                let q = &k * &k * &k * &self.c3_24;
                (a, None, p, q)
            }
        }
        // |term k| ≤ 13591409·2^(−37k)·(k + 1)·41: the tail after n terms
        // is below 2^(30 + log2 n − 37n).
        let n = (w.prec as u64).div_ceil(37) + 2;
        let tail = Mag::pow2(31 + 64 - 37 * n as i64);
        let s = w.series_sum(&Chud { c3_24 }, n, tail)?;
        // π = 426880·√10005 / S
        let root = w.ball_sqrt(&Ball {
            mid: Repr::new(IBig::from(10005u16), 0),
            rad: Mag::ZERO,
        })?;
        let num = w.ball_mul(
            &root,
            &Ball {
                mid: Repr::new(IBig::from(426_880u32), 0),
                rad: Mag::ZERO,
            },
        )?;
        w.ball_div(&num, &s)
    }

    /// `atanh(1/k)·k = Σ 1/((2n+1)·k^(2n))` for an integer k ≥ 2, then
    /// divided by k: the series behind ln 2 and ln 5.
    fn atanh_inverse(&self, k: u64) -> NumResult<Ball> {
        struct Inv {
            k2: IBig,
        }
        impl Terms for Inv {
            fn term(&self, n: u64) -> (IBig, Option<IBig>, IBig, IBig) {
                let b = Some(IBig::from(2 * n + 1));
                let q = if n == 0 { IBig::ONE } else { self.k2.clone() };
                (IBig::ONE, b, IBig::ONE, q)
            }
        }
        // Terms fall by k² each: the tail after n is below 2·k^(−2n).
        let per = 2.0 * (k as f64).log2();
        let n = ((self.prec as f64 + 4.0) / per).ceil() as u64 + 1;
        let tail = Mag::pow2(2 - (per * n as f64).floor() as i64);
        let s = self.series_sum(
            &Inv {
                k2: IBig::from(k) * IBig::from(k),
            },
            n,
            tail,
        )?;
        self.ball_div(
            &s,
            &Ball {
                mid: Repr::new(IBig::from(k), 0),
                rad: Mag::ZERO,
            },
        )
    }

    /// ln 2 = 18·atanh(1/26) − 2·atanh(1/4801) + 8·atanh(1/8749).
    pub(crate) fn ln2_series(&self) -> NumResult<Ball> {
        let w = self.wider(self.guard());
        let mut acc = Real::Exact(RBig::ZERO);
        for (c, k) in [(18i64, 26u64), (-2, 4801), (8, 8749)] {
            let t = Real::Approx(w.atanh_inverse(k)?);
            acc = w.add(&acc, &w.mul(&Real::Exact(RBig::from(c)), &t)?)?;
        }
        w.to_ball(&acc)
    }

    /// ln 5 = 2·ln 2 + 2·atanh(1/9) (as 5/4 = (1 + 1/9)/(1 − 1/9)).
    pub(crate) fn ln5_series(&self, ln2: &Ball) -> NumResult<Ball> {
        let w = self.wider(self.guard());
        let t = Real::Approx(w.atanh_inverse(9)?);
        let two = Real::Exact(RBig::from(2));
        let sum = w.add(&Real::Approx(ln2.clone()), &t)?;
        w.to_ball(&w.mul(&two, &sum)?)
    }

    // ------------------------------------------------------------------
    // exp, cos, sin
    // ------------------------------------------------------------------

    /// `e^(u/v)` by its series, for integers with `|u/v| ≤ 64`, at the
    /// working precision.
    fn exp_rational(&self, u: &IBig, v: &UBig) -> NumResult<Ball> {
        if u.is_zero() {
            return Ok(one());
        }
        struct Exp {
            u: IBig,
            v: IBig,
        }
        impl Terms for Exp {
            fn term(&self, n: u64) -> (IBig, Option<IBig>, IBig, IBig) {
                if n == 0 {
                    return (IBig::ONE, None, IBig::ONE, IBig::ONE);
                }
                (IBig::ONE, None, self.u.clone(), IBig::from(n) * &self.v)
            }
        }
        let x = log2_of(u, v);
        let (n, tail) = exp_terms(x, self.prec);
        self.series_sum(
            &Exp {
                u: u.clone(),
                v: IBig::from(v.clone()),
            },
            n,
            tail,
        )
    }

    /// `(cos(u/v), sin(u/v))` by their series, for `|u/v| ≤ 64`.
    fn cos_sin_rational(&self, u: &IBig, v: &UBig) -> NumResult<(Ball, Ball)> {
        if u.is_zero() {
            return Ok((one(), zero()));
        }
        self.cos_sin_like(u, v, false)
    }

    /// `(cos, sin)` of `u/v`, or `(cosh, sinh)` when `hyperbolic` (then
    /// `|u/v| ≤ 1`, where the terms fall by at least half each, so the tail
    /// is at most twice the first omitted term).
    fn cos_sin_like(&self, u: &IBig, v: &UBig, hyperbolic: bool) -> NumResult<(Ball, Ball)> {
        struct Trig {
            u2: IBig,
            v2: IBig,
            /// 0 for cos (terms x^(2n)/(2n)!), 1 for sin/x.
            odd: u64,
        }
        impl Terms for Trig {
            fn term(&self, n: u64) -> (IBig, Option<IBig>, IBig, IBig) {
                if n == 0 {
                    return (IBig::ONE, None, IBig::ONE, IBig::ONE);
                }
                let k = 2 * n + self.odd;
                let q = IBig::from((k - 1) * k) * &self.v2;
                (IBig::ONE, None, self.u2.clone(), q)
            }
        }
        let x = log2_of(u, v);
        let (n, tail) = trig_terms(x, self.prec);
        let tail = if hyperbolic {
            tail.mul_up(Mag::from_u64(2))
        } else {
            tail
        };
        let u2 = if hyperbolic { u * u } else { -(u * u) };
        let v2 = IBig::from(v * v);
        let c = self.series_sum(
            &Trig {
                u2: u2.clone(),
                v2: v2.clone(),
                odd: 0,
            },
            n,
            tail,
        )?;
        let s = self.series_sum(&Trig { u2, v2, odd: 1 }, n, tail)?;
        // sin = x·S (the product scales S's tail bound by |x| too).
        let xs = self.quotient(u, &IBig::from(v.clone()))?;
        Ok((c, self.ball_mul(&s, &xs)?))
    }

    /// The pieces of a dyadic number `x` (`|x| ≤ 2^8` assumed by the
    /// callers' reductions) for the bit-burst: `(u, bits)` with piece
    /// `u/2^bits`, their sum `x` truncated at `wp` bits after the point,
    /// and the truncation (below `2^-wp`).
    fn pieces(x: &Repr<2>, wp: usize) -> Vec<(IBig, usize)> {
        let e = x.exponent();
        let sig = x.significand();
        // x·2^wp, truncated towards zero.
        let scaled: IBig = if e + wp as isize >= 0 {
            sig << (e + wp as isize) as usize
        } else {
            let s = (-(e + wp as isize)) as usize;
            let mag: UBig = sig.unsigned_abs() >> s;
            if sig.sign() == Sign::Negative {
                -IBig::from(mag)
            } else {
                IBig::from(mag)
            }
        };
        let negative = scaled.sign() == Sign::Negative;
        let size: UBig = scaled.unsigned_abs();
        let mut out = Vec::new();
        let mut lo = 0usize; // bits after the point already taken
        let mut hi = 8usize;
        loop {
            let hi_c = hi.min(wp);
            // bits of x·2^wp in positions [wp − hi_c, wp − lo): the piece
            // (everything above the point for the first).
            let shifted: UBig = &size >> (wp - hi_c);
            let piece: UBig = if lo == 0 {
                shifted
            } else {
                let width = hi_c - lo;
                shifted & ((UBig::ONE << width) - UBig::ONE)
            };
            if !piece.is_zero() {
                let u = IBig::from(piece);
                out.push((if negative { -u } else { u }, hi_c));
            }
            if hi_c >= wp {
                break;
            }
            lo = hi_c;
            hi *= 2;
        }
        out
    }

    /// `e^x` for a dyadic `|x| ≤ 64`, as a ball at the working precision.
    pub(crate) fn exp_series(&self, x: &Repr<2>) -> NumResult<Ball> {
        self.budget.check()?;
        let w = self.wider(self.guard());
        let wp = w.prec;
        let mut acc = one();
        for (u, bits) in Self::pieces(x, wp) {
            let e = w.exp_rational(&u, &(UBig::ONE << bits))?;
            acc = w.ball_mul(&acc, &e)?;
        }
        // The truncation: |Δx| < 2^-wp, times e^x ≤ e^64 < 2^93.
        acc.rad = acc.rad.add_up(Mag::pow2(94 - wp as i64));
        Ok(acc)
    }

    /// `(cos x, sin x)` for a dyadic `|x| ≤ 64`.
    pub(crate) fn cos_sin_series(&self, x: &Repr<2>) -> NumResult<(Ball, Ball)> {
        self.budget.check()?;
        let w = self.wider(self.guard());
        let wp = w.prec;
        let (mut c, mut s) = (one(), zero());
        for (u, bits) in Self::pieces(x, wp) {
            let (cj, sj) = w.cos_sin_rational(&u, &(UBig::ONE << bits))?;
            // cos(a+b) = cos a cos b − sin a sin b; sin(a+b) = sin a cos b
            // + cos a sin b
            let c2 = w.ball_sub(&w.ball_mul(&c, &cj)?, &w.ball_mul(&s, &sj)?)?;
            let s2 = w.ball_add(&w.ball_mul(&s, &cj)?, &w.ball_mul(&c, &sj)?)?;
            (c, s) = (c2, s2);
        }
        // Both have derivative at most 1.
        let t = Mag::pow2(1 - wp as i64);
        c.rad = c.rad.add_up(t);
        s.rad = s.rad.add_up(t);
        Ok((c, s))
    }

    /// `(cosh x, sinh x)` for an exact rational of small terms or a ball
    /// with `|x| < 1`: the bit-burst with the addition formulas
    /// (`cosh(a+b) = cosh a cosh b + sinh a sinh b`, `sinh(a+b) = sinh a
    /// cosh b + cosh a sinh b`); no cancellation near 0, unlike `e^x`.
    pub(crate) fn cosh_sinh_series(&self, x: &Real) -> NumResult<(Ball, Ball)> {
        self.budget.check()?;
        let w = self.wider(self.guard());
        if let Some((u, v)) = small_rational(x, 1) {
            return w.cos_sin_like(&u, &v, true);
        }
        let b = self.to_ball(x)?;
        let wp = w.prec;
        let (mut c, mut s) = (one(), zero());
        for (u, bits) in Self::pieces(&b.mid, wp) {
            let (cj, sj) = w.cos_sin_like(&u, &(UBig::ONE << bits), true)?;
            let c2 = w.ball_add(&w.ball_mul(&c, &cj)?, &w.ball_mul(&s, &sj)?)?;
            let s2 = w.ball_add(&w.ball_mul(&s, &cj)?, &w.ball_mul(&c, &sj)?)?;
            (c, s) = (c2, s2);
        }
        // Derivatives at most cosh 1 < 2, over the truncation and the
        // ball's own width.
        let t = Mag::pow2(2 - wp as i64).add_up(b.rad.mul_up(Mag::from_u64(2)));
        c.rad = c.rad.add_up(t);
        s.rad = s.rad.add_up(t);
        Ok((c, s))
    }

    /// `e^x` for an exact rational of small terms or a dyadic `|x| ≤ 64`.
    pub(crate) fn exp_high(&self, x: &Real) -> NumResult<Ball> {
        if let Some((u, v)) = small_rational(x, 64) {
            let w = self.wider(self.guard());
            return w.exp_rational(&u, &v);
        }
        let b = self.to_ball(x)?;
        let mut r = self.exp_series(&b.mid)?;
        // |f'| ≤ e^(m + rad) ≤ 2·e^m.
        if !b.rad.is_zero() {
            let d = Mag::of_repr_up(&r.mid)
                .add_up(r.rad)
                .mul_up(Mag::from_u64(2));
            r.rad = r.rad.add_up(d.mul_up(b.rad));
        }
        Ok(r)
    }

    /// `(cos x, sin x)` for any real: reduced by multiples of π/2 (with π
    /// to as many more bits as x has before its point), then by series.
    pub(crate) fn cos_sin_high(&self, x: &Real) -> NumResult<(Ball, Ball)> {
        if let Some((u, v)) = small_rational(x, 4) {
            let w = self.wider(self.guard());
            return w.cos_sin_rational(&u, &v);
        }
        let b = self.to_ball(x)?;
        let above = (b.mid.significand().unsigned_abs().bit_len() as isize + b.mid.exponent())
            .max(0) as usize;
        let (r, quadrant) = if above <= 1 {
            (b.clone(), 0u8)
        } else {
            // x = k·π/2 + r, |r| ≤ π/4 (up to the ball's width).
            let w = self.wider(above + self.guard());
            let half_pi = w.ball_mul(
                &w.pi_for()?,
                &Ball {
                    mid: Repr::new(IBig::ONE, -1),
                    rad: Mag::ZERO,
                },
            )?;
            let q = w.ball_div(&b, &half_pi)?;
            // The quadrant count as an integer: its size is checked first.
            let bits =
                q.mid.significand().unsigned_abs().bit_len() as i64 + q.mid.exponent() as i64;
            w.check_bits(bits.max(0) as u64)?;
            let k = round_dyadic(q.mid.significand(), q.mid.exponent(), Rounding::Nearest);
            let quadrant = (&k % IBig::from(4u8)).to_f64().value().rem_euclid(4.0) as u8;
            let kb = Ball {
                mid: Repr::new(k, 0),
                rad: Mag::ZERO,
            };
            let r = w.ball_sub(&b, &w.ball_mul(&kb, &half_pi)?)?;
            (r, quadrant)
        };
        let (mut c, mut s) = self.cos_sin_series(&r.mid)?;
        c.rad = c.rad.add_up(r.rad);
        s.rad = s.rad.add_up(r.rad);
        Ok(match quadrant {
            0 => (c, s),
            1 => (neg_ball(s), c),
            2 => (neg_ball(c), neg_ball(s)),
            _ => (s, neg_ball(c)),
        })
    }

    /// π at this precision: the series above [`HIGH_CONSTANTS`], dashu's
    /// cache below.
    fn pi_for(&self) -> NumResult<Ball> {
        self.to_ball(&Real::Pi(RBig::ONE, 1))
    }

    // ------------------------------------------------------------------
    // ln, atan
    // ------------------------------------------------------------------

    /// `ln x` for a real `x > 0`.
    pub(crate) fn ln_high(&self, x: &Real) -> NumResult<Ball> {
        let w = self.wider(self.guard());
        // An exact rational of small terms: scaled by 2^k into [2/3, 4/3],
        // then ln x' = 2·atanh((x' − 1)/(x' + 1)), one series.
        if let Some((u, v)) = small_rational(x, u64::MAX)
            && u.sign() == Sign::Positive
        {
            let (mut a, mut b) = (u.unsigned_abs(), v.clone());
            let k = a.bit_len() as i64 - b.bit_len() as i64;
            if k > 0 {
                b <<= k as usize;
            } else {
                a <<= (-k) as usize;
            }
            // a/b ∈ (1/2, 2): move into [2/3, 4/3].
            let mut k = k;
            if UBig::from(3u8) * &a > UBig::from(4u8) * &b {
                b <<= 1;
                k += 1;
            } else if UBig::from(3u8) * &a < UBig::from(2u8) * &b {
                a <<= 1;
                k -= 1;
            }
            let z_num = IBig::from(a.clone()) - IBig::from(b.clone());
            let z_den = a + b;
            let t = w.atanh_rational(&z_num, &z_den)?;
            let two = Real::Exact(RBig::from(2));
            let mut acc = w.mul(&two, &Real::Approx(t))?;
            if k != 0 {
                let l2 = Real::Approx(w.ln2_ball()?);
                acc = w.add(&acc, &w.mul(&Real::Exact(RBig::from(k)), &l2)?)?;
            }
            return w.to_ball(&acc);
        }
        let b = self.to_ball(x)?;
        if b.mid.significand().sign() != Sign::Positive {
            return Err(NumError::NeedPrecision);
        }
        // m = f·2^k with f ∈ [1/2, 1).
        let k = b.mid.significand().unsigned_abs().bit_len() as isize + b.mid.exponent();
        let f = Repr::new(b.mid.significand().clone(), b.mid.exponent() - k);
        let lnf = w.ln_newton(&f)?;
        let mut r = Real::Approx(lnf);
        if k != 0 {
            let l2 = Real::Approx(w.ln2_ball()?);
            r = w.add(&r, &w.mul(&Real::Exact(RBig::from(k as i64)), &l2)?)?;
        }
        let mut r = w.to_ball(&r)?;
        // |f'| = 1/x ≤ 1/(m − rad).
        if !b.rad.is_zero() {
            let lo = Mag::of_repr_down(&b.mid)
                .sub_down(b.rad)
                .ok_or(NumError::NeedPrecision)?;
            let d = Mag::from_u64(1).div_up(lo).ok_or(NumError::NeedPrecision)?;
            r.rad = r.rad.add_up(d.mul_up(b.rad));
        }
        Ok(r)
    }

    /// `atanh(u/v) = Σ z^(2n+1)/(2n+1)` for an exact `|z| ≤ 1/5`.
    fn atanh_rational(&self, u: &IBig, v: &UBig) -> NumResult<Ball> {
        if u.is_zero() {
            return Ok(zero());
        }
        self.arc_series(u, v, |u2, v2| ArcTerms { u2, v2, sign: 1 })
    }

    /// `z·Σ (±z²)^n/(2n+1)` for `z = u/v` with `|z| < 1`: the series of
    /// atanh (`sign` 1) and atan (−1), with the tail bounded by a
    /// geometric series.
    fn arc_series<T: Terms>(
        &self,
        u: &IBig,
        v: &UBig,
        make: impl Fn(IBig, IBig) -> T,
    ) -> NumResult<Ball> {
        let x = log2_of(u, v); // log2 |z| < 0
        if x >= -0.5 {
            return Err(NumError::NeedPrecision);
        }
        // |tail after n terms| ≤ |z|^(2n+1)/(1 − z²) ≤ 2·|z|^(2n+1)
        // (|z| ≤ 1/√2).
        let per = -2.0 * x;
        let n = ((self.prec as f64 + 4.0) / per).ceil() as u64 + 1;
        let tail = Mag::pow2(2 - (per * n as f64).floor() as i64);
        let s = self.series_sum(&make(u * u, IBig::from(v * v)), n, tail)?;
        let z = self.quotient(u, &IBig::from(v.clone()))?;
        self.ball_mul(&s, &z)
    }

    /// `atan(u/v)` for an exact `|z| ≤ 1/3`.
    fn atan_rational(&self, u: &IBig, v: &UBig) -> NumResult<Ball> {
        if u.is_zero() {
            return Ok(zero());
        }
        self.arc_series(u, v, |u2, v2| ArcTerms { u2, v2, sign: -1 })
    }

    /// `ln f` for a dyadic `f ∈ [1/2, 1)`: Newton's method on `e^y = f` at
    /// doubling precision, then one step at full precision whose error is
    /// bounded (`ln f = y + ln(1 + t)`, `t = (f − e^y)/e^y`).
    fn ln_newton(&self, f: &Repr<2>) -> NumResult<Ball> {
        let guess = to_f64(f).ln();
        let mut y = Repr::<2>::new(IBig::from((guess * 2f64.powi(52)) as i64), -52);
        let mut precisions = Vec::new();
        let mut p = self.prec;
        while p > 96 {
            precisions.push(p);
            p = p / 2 + 16;
        }
        let fx = Ball {
            mid: f.clone(),
            rad: Mag::ZERO,
        };
        // Doubling up to half the precision; the last step is below.
        for &p in precisions.iter().skip(1).rev() {
            let w = Work::new(p, self.budget);
            let e = w.exp_series(&y)?;
            // y ← y + 2(f − e)/(f + e)
            let step = w.ball_div(&w.ball_sub(&fx, &e)?, &w.ball_add(&fx, &e)?)?;
            let two = Ball {
                mid: Repr::new(IBig::from(2), 0),
                rad: Mag::ZERO,
            };
            y = w
                .ball_add(
                    &Ball {
                        mid: y,
                        rad: Mag::ZERO,
                    },
                    &w.ball_mul(&two, &step)?,
                )?
                .mid;
        }
        let e = self.exp_series(&y)?;
        let t = self.ball_div(&self.ball_sub(&fx, &e)?, &e)?;
        // |ln(1 + t) − t| ≤ t² for |t| ≤ 1/2.
        let tm = Mag::of_repr_up(&t.mid).add_up(t.rad);
        if !tm.le(Mag::pow2(-20)) {
            return Err(NumError::NeedPrecision);
        }
        let mut r = self.ball_add(
            &Ball {
                mid: y,
                rad: Mag::ZERO,
            },
            &t,
        )?;
        r.rad = r.rad.add_up(tm.mul_up(tm));
        Ok(r)
    }

    /// `atan x` for any real.
    pub(crate) fn atan_high(&self, x: &Real) -> NumResult<Ball> {
        let w = self.wider(self.guard());
        if let Some((u, v)) = small_rational(x, u64::MAX) {
            return w.atan_exact(&u, &v);
        }
        let b = self.to_ball(x)?;
        let mut r = w.atan_dyadic(&b.mid)?;
        // |f'| ≤ 1.
        r.rad = r.rad.add_up(b.rad);
        Ok(r)
    }

    /// `atan(u/v)` exactly reduced: `|z| > 1` by `π/2 − atan(1/z)`,
    /// `z > 1/3` by `π/4 − atan((1 − z)/(1 + z))`, then the series.
    fn atan_exact(&self, u: &IBig, v: &UBig) -> NumResult<Ball> {
        let negative = u.sign() == Sign::Negative;
        let (a, b) = (u.unsigned_abs(), v.clone());
        let r = if a > b {
            // π/2 − atan(b/a)
            let t = self.atan_exact(&IBig::from(b), &a)?;
            let half_pi = self.ball_mul(&self.pi_for()?, &half())?;
            self.ball_sub(&half_pi, &t)?
        } else if UBig::from(3u8) * &a > b {
            // π/4 − atan((b − a)/(b + a))
            let num = IBig::from(b.clone()) - IBig::from(a.clone());
            let t = self.atan_rational(&num, &(b + a))?;
            let quarter_pi = self.ball_mul(&self.pi_for()?, &self.ball_mul(&half(), &half())?)?;
            self.ball_sub(&quarter_pi, &t)?
        } else {
            self.atan_rational(&IBig::from(a), &b)?
        };
        Ok(if negative { neg_ball(r) } else { r })
    }

    /// `atan x` for a dyadic x: `|x| > 1` by `π/2 − atan(1/x)`, then
    /// Newton's method on `tan y = x`, the last step bounded
    /// (`atan x = y + atan s`, `s = (x cos y − sin y)/(cos y + x sin y)`,
    /// `|atan s − s| ≤ |s|³/3`).
    fn atan_dyadic(&self, x: &Repr<2>) -> NumResult<Ball> {
        let negative = x.significand().sign() == Sign::Negative;
        let ax = Ball {
            mid: Repr::new(IBig::from(x.significand().unsigned_abs()), x.exponent()),
            rad: Mag::ZERO,
        };
        let one = one();
        let r = if to_f64(&ax.mid) > 1.0 {
            let inv = self.ball_div(&one, &ax)?;
            let t = self.atan_dyadic(&inv.mid)?;
            let half_pi = self.ball_mul(&self.pi_for()?, &half())?;
            let mut r = self.ball_sub(&half_pi, &t)?;
            r.rad = r.rad.add_up(inv.rad);
            r
        } else {
            let guess = to_f64(&ax.mid).atan();
            let mut y = Repr::<2>::new(IBig::from((guess * 2f64.powi(52)) as i64), -52);
            let mut precisions = Vec::new();
            let mut p = self.prec;
            while p > 96 {
                precisions.push(p);
                p = p / 2 + 16;
            }
            let step = |w: &Work<'_>, y: &Repr<2>| -> NumResult<Ball> {
                let (c, s) = w.cos_sin_series(y)?;
                let num = w.ball_sub(&w.ball_mul(&ax, &c)?, &s)?;
                let den = w.ball_add(&c, &w.ball_mul(&ax, &s)?)?;
                w.ball_div(&num, &den)
            };
            for &p in precisions.iter().skip(1).rev() {
                let w = Work::new(p, self.budget);
                let s = step(&w, &y)?;
                y = w
                    .ball_add(
                        &Ball {
                            mid: y,
                            rad: Mag::ZERO,
                        },
                        &s,
                    )?
                    .mid;
            }
            let s = step(self, &y)?;
            let sm = Mag::of_repr_up(&s.mid).add_up(s.rad);
            if !sm.le(Mag::pow2(-20)) {
                return Err(NumError::NeedPrecision);
            }
            let mut r = self.ball_add(
                &Ball {
                    mid: y,
                    rad: Mag::ZERO,
                },
                &s,
            )?;
            r.rad = r.rad.add_up(sm.mul_up(sm).mul_up(sm));
            r
        };
        Ok(if negative { neg_ball(r) } else { r })
    }
}

/// The exact 1.
fn one() -> Ball {
    Ball {
        mid: Repr::new(IBig::ONE, 0),
        rad: Mag::ZERO,
    }
}

/// The exact 0.
fn zero() -> Ball {
    Ball {
        mid: Repr::new(IBig::ZERO, 0),
        rad: Mag::ZERO,
    }
}

/// The exact 1/2.
fn half() -> Ball {
    Ball {
        mid: Repr::new(IBig::ONE, -1),
        rad: Mag::ZERO,
    }
}

fn neg_ball(b: Ball) -> Ball {
    Ball {
        mid: -b.mid,
        rad: b.rad,
    }
}

/// A dyadic number as an `f64` (for first guesses only).
fn to_f64(x: &Repr<2>) -> f64 {
    let sig = x.significand();
    let bits = sig.unsigned_abs().bit_len() as isize;
    let keep = 60isize;
    let (m, e) = if bits > keep {
        (sig >> (bits - keep) as usize, x.exponent() + bits - keep)
    } else {
        (sig.clone(), x.exponent())
    };
    m.to_f64().value() * 2f64.powi(e.clamp(-2000, 2000) as i32)
}

/// `(u, v)` for an exact rational whose numerator and denominator have at
/// most 64 bits each and whose size is at most `limit`.
fn small_rational(x: &Real, limit: u64) -> Option<(IBig, UBig)> {
    let Real::Exact(r) = x else { return None };
    let (u, v) = (r.numerator(), r.denominator());
    if u.unsigned_abs().bit_len() > 64 || v.bit_len() > 64 {
        return None;
    }
    if u.unsigned_abs() > v * UBig::from(limit) {
        return None;
    }
    Some((u.clone(), v.clone()))
}

/// `log2 |u/v|`, roughly.
fn log2_of(u: &IBig, v: &UBig) -> f64 {
    let lu = u.unsigned_abs().bit_len() as f64 - 1.0 + top_fraction(&u.unsigned_abs());
    let lv = v.bit_len() as f64 - 1.0 + top_fraction(v);
    lu - lv
}

/// `log2` of `n`'s leading bits' fraction in `[0, 1)`.
fn top_fraction(n: &UBig) -> f64 {
    let bits = n.bit_len();
    if bits == 0 {
        return 0.0;
    }
    let top: UBig = if bits > 53 {
        n >> (bits - 53)
    } else {
        n.clone()
    };
    let t = top.to_f64().value();
    let e = (bits.min(53) - 1) as i32;
    (t / 2f64.powi(e)).log2()
}

/// `log2 n! ≥ n·log2(n/e)`: a lower bound.
fn log2_factorial_low(n: f64) -> f64 {
    if n < 1.0 {
        0.0
    } else {
        n * (n.log2() - std::f64::consts::LOG2_E)
    }
}

/// The least `n ≥ from` with `bound(n) ≤ target`, for a `bound` that
/// falls from `from` on: doubling steps, then halving back.
fn least_terms(from: u64, target: f64, bound: impl Fn(u64) -> f64) -> u64 {
    if bound(from) <= target {
        return from;
    }
    let (mut lo, mut hi) = (from, from + 64);
    while bound(hi) > target {
        lo = hi;
        hi = hi.saturating_add(hi - from);
    }
    // bound(lo) > target ≥ bound(hi)
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if bound(mid) > target {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    hi
}

/// Terms and tail bound for `Σ x^n/n!` with `log2 |x| = lx`, `|x| ≤ 64`,
/// at `prec` bits: from `n ≥ 2|x|` on, the tail after n terms is at most
/// `|x|^n/n!·1/(1 − |x|/(n+1)) ≤ 2·|x|^n/n!`.
fn exp_terms(lx: f64, prec: usize) -> (u64, Mag) {
    let from = (2.0 * 2f64.powf(lx)).ceil().max(2.0) as u64;
    let log_tail = |n: u64| 1.0 + n as f64 * lx - log2_factorial_low(n as f64);
    let n = least_terms(from, -(prec as f64) - 4.0, log_tail);
    // Two bits of margin for the float estimate.
    (n, Mag::pow2(log_tail(n).ceil() as i64 + 2))
}

/// Terms and tail bound for the cos and sin/x series (`x^(2n)/(2n)!`,
/// `x^(2n)/(2n+1)!`): alternating, with falling terms once `2n + 1 > |x|`,
/// so the tail is at most the first omitted term, below `|x|^(2n)/(2n)!`.
fn trig_terms(lx: f64, prec: usize) -> (u64, Mag) {
    let from = (2f64.powf(lx).ceil() as u64 + 1).max(2);
    let log_term = |n: u64| 2.0 * n as f64 * lx - log2_factorial_low(2.0 * n as f64);
    let n = least_terms(from, -(prec as f64) - 10.0, log_term);
    (n, Mag::pow2(log_term(n).ceil() as i64 + 2))
}

impl Work<'_> {
    /// ln 2 at this precision (the series above [`HIGH_CONSTANTS`]).
    pub(crate) fn ln2_ball(&self) -> NumResult<Ball> {
        let l = self.ln_2_5(1, 0)?;
        self.to_ball(&l)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::budget::Budget;
    use crate::real::repr_to_rational;
    use dashu_float::round::mode::HalfEven;
    use dashu_float::{ConstCache, Context};

    /// Whether a ball holds dashu's correctly rounded value (within one of
    /// its units in the last place).
    fn holds(b: &Ball, v: &Repr<2>, prec: usize) {
        let d = repr_to_rational(&b.mid) - repr_to_rational(v);
        let ulp = Mag::of_repr_up(v)
            .max(Mag::pow2(-(prec as i64)))
            .mul_up(Mag::pow2(2 - prec as i64));
        let allowed = repr_to_rational(&b.rad.add_up(ulp).to_repr());
        let log2 = |r: &RBig| {
            r.numerator().unsigned_abs().bit_len() as i64 - r.denominator().bit_len() as i64
        };
        assert!(
            dashu_base::Abs::abs(d.clone()) <= allowed,
            "off by more than the radius: 2^{} vs 2^{} (value 2^{})",
            log2(&d),
            log2(&allowed),
            log2(&repr_to_rational(v))
        );
        // And the radius is tight: within 2^-(prec − 80) relative.
        let tight = Mag::of_repr_up(v)
            .max(Mag::from_u64(1))
            .mul_up(Mag::pow2(80 - prec as i64));
        assert!(
            b.rad.le(tight),
            "radius too wide: {:?} vs {:?}",
            b.rad,
            tight
        );
    }

    fn dyadic(n: i64, e: isize) -> Repr<2> {
        Repr::new(IBig::from(n), e)
    }

    /// A pseudo-random integer of `bits` bits (top bit set), sign `neg`.
    fn wide(bits: usize, seed: &mut u64, neg: bool) -> IBig {
        let mut v = UBig::ONE;
        while v.bit_len() < bits {
            *seed ^= *seed << 13;
            *seed ^= *seed >> 7;
            *seed ^= *seed << 17;
            v = (v << 64) | UBig::from(*seed);
        }
        let extra = v.bit_len() - bits;
        let v = v >> extra;
        if neg { -IBig::from(v) } else { IBig::from(v) }
    }

    /// `a·b` of two dyadic numbers, exactly.
    fn dmul(a: &(IBig, isize), b: &(IBig, isize)) -> (IBig, isize) {
        (&a.0 * &b.0, a.1 + b.1)
    }

    /// Whether `a ≤ b`, exactly.
    fn le(a: &(IBig, isize), b: &(IBig, isize)) -> bool {
        let d = dyadic_sub(&a.0, a.1, &b.0, b.1).0;
        d.is_zero() || d.sign() == Sign::Negative
    }

    fn abs(a: &(IBig, isize)) -> (IBig, isize) {
        (IBig::from((&a.0).unsigned_abs()), a.1)
    }

    fn dy(x: &Repr<2>) -> (IBig, isize) {
        (x.significand().clone(), x.exponent())
    }

    /// The ball's radius really bounds its error, checked in exact
    /// integers: |m − xy| ≤ r, |m·y − x| ≤ r·|y|, (m − r)² ≤ x ≤ (m + r)².
    fn bounds(w: &Work, x: &Repr<2>, y: &Repr<2>) {
        let m = w.mul_pieces(x, y).unwrap();
        let xy = dmul(&dy(x), &dy(y));
        let d = dyadic_sub(m.mid.significand(), m.mid.exponent(), &xy.0, xy.1);
        assert!(le(&abs(&d), &dy(&m.rad.to_repr())), "product");
        let q = w.div_pieces(x, y).unwrap();
        let qy = dmul(&dy(&q.mid), &dy(y));
        let d = dyadic_sub(&qy.0, qy.1, x.significand(), x.exponent());
        assert!(
            le(&abs(&d), &dmul(&dy(&q.rad.to_repr()), &abs(&dy(y)))),
            "quotient"
        );
        let ax = abs(&dy(x));
        let r = w.sqrt_pieces(&Repr::new(ax.0.clone(), ax.1)).unwrap();
        let rad = dy(&r.rad.to_repr());
        let lo = dyadic_sub(r.mid.significand(), r.mid.exponent(), &rad.0, rad.1);
        let hi = dyadic_sub(
            r.mid.significand(),
            r.mid.exponent(),
            &-rad.0.clone(),
            rad.1,
        );
        assert!(lo.0.sign() == Sign::Positive, "the root's ball reaches 0");
        assert!(le(&dmul(&lo, &lo), &ax) && le(&ax, &dmul(&hi, &hi)), "root");
    }

    /// Products, quotients and square roots in pieces hold dashu's
    /// correctly rounded answers within a tight radius, on operands of
    /// every size against the precision (shorter, as long, far longer),
    /// exact quotients and squares, and signs; the Newton steps are used
    /// (the precision is above two reciprocal bases).
    #[test]
    fn piecewise_arithmetic_agrees_with_dashu() {
        let budget = Budget::new(1 << 30, None, crate::budget::CancelFlag::new());
        let prec = 150_001;
        let w = Work::new(prec, &budget);
        let ctx = Context::<HalfEven>::new(prec);
        let mut seed = 0x9E37_79B9_7F4A_7C15u64;
        let sizes = [1usize, 40, 20_000, prec, prec + 3, 3 * prec];
        for (i, &a) in sizes.iter().enumerate() {
            for (j, &b) in sizes.iter().enumerate() {
                let x = Repr::new(wide(a, &mut seed, i % 2 == 1), -(i as isize) * 1000 + 7);
                let y = Repr::new(wide(b, &mut seed, j % 3 == 1), (j as isize) * 333 - 50_000);
                holds(
                    &w.mul_pieces(&x, &y).unwrap(),
                    ctx.mul(&x, &y).unwrap().value().repr(),
                    prec,
                );
                holds(
                    &w.div_pieces(&x, &y).unwrap(),
                    ctx.div(&x, &y).unwrap().value().repr(),
                    prec,
                );
                let ax = Repr::new(IBig::from(x.significand().unsigned_abs()), x.exponent());
                holds(
                    &w.sqrt_pieces(&ax).unwrap(),
                    ctx.sqrt(&ax).unwrap().value().repr(),
                    prec,
                );
                bounds(&w, &x, &y);
            }
        }
        // Exact answers have radius 0.
        let y = Repr::new(wide(prec / 3, &mut seed, false), 5);
        let z = Repr::new(wide(prec / 3, &mut seed, true), -9);
        let yz = ctx.mul(&y, &z).unwrap().value().repr().clone();
        let q = w.div_pieces(&yz, &y).unwrap();
        assert!(q.rad.is_zero() && q.mid == z, "{:?}", q.rad);
        let sq = ctx.mul(&y, &y).unwrap().value().repr().clone();
        let r = w.sqrt_pieces(&sq).unwrap();
        assert!(r.rad.is_zero() && r.mid == y, "{:?}", r.rad);
        assert!(matches!(
            w.div_pieces(&y, &Repr::new(IBig::ZERO, 0)),
            Err(NumError::DivisionByZero)
        ));
    }

    /// π, ln 2, ln 5, e^x, cos, sin and ln by series, against dashu's
    /// kernels, above the precision where the calculator switches.
    #[test]
    fn series_agree_with_dashu() {
        let budget = Budget::new(1 << 30, None, crate::budget::CancelFlag::new());
        // The kernels work at any precision (HIGH only decides when the
        // calculator uses them): a few thousand bits keep this quick.
        let prec = 4321;
        let w = Work::new(prec, &budget);
        let ctx = Context::<HalfEven>::new(prec);
        let mut cache = ConstCache::default();
        holds(
            &w.pi_series().unwrap(),
            cache.pi::<2, HalfEven>(prec).value().repr(),
            prec,
        );
        holds(
            &w.ln2_series().unwrap(),
            cache.ln2::<2, HalfEven>(prec).repr(),
            prec,
        );
        let l2 = w.ln2_series().unwrap();
        let ln5 = ctx.ln(&dyadic(5, 0), None).unwrap().value();
        holds(&w.ln5_series(&l2).unwrap(), ln5.repr(), prec);
        let xs = [
            dyadic(1, 0),
            dyadic(1, -1),
            dyadic(-3, -2),
            dyadic(123_456_789_123_456_789, -60),
            dyadic(-987_654_321_987, -41),
            dyadic(40, 0),
            dyadic(-7, 0),
        ];
        for x in &xs {
            let e = ctx.exp(x, None).unwrap().value();
            holds(&w.exp_series(x).unwrap(), e.repr(), prec);
            if to_f64(x).abs() < 8.0 {
                let (c, s) = w.cos_sin_series(x).unwrap();
                holds(&c, ctx.cos(x, None).unwrap().value().repr(), prec);
                holds(&s, ctx.sin(x, None).unwrap().value().repr(), prec);
            }
            let ax = Repr::new(IBig::from(x.significand().unsigned_abs()), x.exponent());
            let l = w
                .ln_high(&Real::Approx(Ball {
                    mid: ax.clone(),
                    rad: Mag::ZERO,
                }))
                .unwrap();
            holds(&l, ctx.ln(&ax, None).unwrap().value().repr(), prec);
        }
        // Exact rationals take one series.
        for (u, v) in [(1i64, 1u64), (3, 1), (2, 3), (-5, 7), (22, 7)] {
            let x = Real::Exact(RBig::from_parts(IBig::from(u), UBig::from(v)));
            // dashu takes the rational rounded: round it far below.
            let wide = Context::<HalfEven>::new(prec + 200);
            let m = wide
                .div(&dyadic(u, 0), &dyadic(v as i64, 0))
                .unwrap()
                .value();
            let exp = wide.exp(m.repr(), None).unwrap().value();
            holds(&w.exp_high(&x).unwrap(), exp.repr(), prec);
            let (c, s) = w.cos_sin_high(&x).unwrap();
            holds(&c, wide.cos(m.repr(), None).unwrap().value().repr(), prec);
            holds(&s, wide.sin(m.repr(), None).unwrap().value().repr(), prec);
            if u > 0 {
                let l = w.ln_high(&x).unwrap();
                holds(&l, wide.ln(m.repr(), None).unwrap().value().repr(), prec);
            }
        }
        // A large angle, reduced by multiples of π/2 here.
        let big = Real::Exact(RBig::from(IBig::from(10).pow(40) + IBig::from(7)));
        let (c, s) = w.cos_sin_high(&big).unwrap();
        let bigr = Repr::new(IBig::from(10).pow(40) + IBig::from(7), 0);
        let wide = Context::<HalfEven>::new(prec + 200);
        holds(&c, wide.cos(&bigr, None).unwrap().value().repr(), prec);
        holds(&s, wide.sin(&bigr, None).unwrap().value().repr(), prec);
    }

    /// A raised flag stops a long series at its next merge.
    #[test]
    fn a_raised_flag_stops_a_series() {
        let flag = crate::budget::CancelFlag::new();
        flag.cancel();
        let budget = Budget::new(1 << 30, None, flag);
        let w = Work::new(1 << 20, &budget);
        assert!(matches!(w.pi_series(), Err(NumError::Stopped(_))));
        assert!(matches!(
            w.exp_series(&dyadic(1, 0)),
            Err(NumError::Stopped(_))
        ));
    }
}
