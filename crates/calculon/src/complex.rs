//! `Number`: a complex number whose parts are [`Real`]s. Real numbers are
//! the common case (an exact zero imaginary part) and take the real paths.

use std::cmp::Ordering;

use dashu_base::{BitTest, UnsignedAbs};
use dashu_int::{IBig, UBig};
use dashu_ratio::RBig;

use crate::real::{NumError, NumResult, Real, Work, exact, is_exact_zero, neg};

#[derive(Clone, Debug)]
pub(crate) struct Number {
    pub(crate) re: Real,
    pub(crate) im: Real,
}

impl Number {
    pub(crate) fn real(re: Real) -> Number {
        Number {
            re,
            im: Real::Exact(RBig::ZERO),
        }
    }

    pub(crate) fn exact(r: RBig) -> Number {
        Number::real(Real::Exact(r))
    }

    pub(crate) fn int(n: i64) -> Number {
        Number::real(exact(n))
    }

    pub(crate) fn i() -> Number {
        Number {
            re: exact(0),
            im: exact(1),
        }
    }

    pub(crate) fn is_real(&self) -> bool {
        is_exact_zero(&self.im)
    }

    /// The exact rational value, if this is one.
    pub(crate) fn as_rational(&self) -> Option<&RBig> {
        match (&self.re, self.is_real()) {
            (Real::Exact(r), true) => Some(r),
            _ => None,
        }
    }

    /// The exact integer value, if this is one.
    pub(crate) fn as_integer(&self) -> Option<&IBig> {
        self.as_rational()
            .filter(|r| r.denominator().is_one())
            .map(|r| r.numerator())
    }
}

/// The real part, or an error naming the function when there is an
/// imaginary part.
pub(crate) fn real_only<'a>(x: &'a Number, what: &'static str) -> NumResult<&'a Real> {
    if x.is_real() {
        Ok(&x.re)
    } else {
        Err(NumError::Domain(what))
    }
}

impl Work<'_> {
    pub(crate) fn c_add(&self, a: &Number, b: &Number) -> NumResult<Number> {
        Ok(Number {
            re: self.add(&a.re, &b.re)?,
            im: self.add(&a.im, &b.im)?,
        })
    }

    pub(crate) fn c_sub(&self, a: &Number, b: &Number) -> NumResult<Number> {
        Ok(Number {
            re: self.sub(&a.re, &b.re)?,
            im: self.sub(&a.im, &b.im)?,
        })
    }

    pub(crate) fn c_neg(&self, a: &Number) -> Number {
        Number {
            re: neg(&a.re),
            im: neg(&a.im),
        }
    }

    pub(crate) fn c_mul(&self, a: &Number, b: &Number) -> NumResult<Number> {
        if a.is_real() && b.is_real() {
            return Ok(Number::real(self.mul(&a.re, &b.re)?));
        }
        let re = self.sub(&self.mul(&a.re, &b.re)?, &self.mul(&a.im, &b.im)?)?;
        let im = self.add(&self.mul(&a.re, &b.im)?, &self.mul(&a.im, &b.re)?)?;
        Ok(Number { re, im })
    }

    pub(crate) fn c_div(&self, a: &Number, b: &Number) -> NumResult<Number> {
        if b.is_real() {
            return Ok(Number {
                re: self.div(&a.re, &b.re)?,
                im: self.div(&a.im, &b.re)?,
            });
        }
        // a/b = a·conj(b)/|b|²
        let den = self.add(&self.mul(&b.re, &b.re)?, &self.mul(&b.im, &b.im)?)?;
        let conj = Number {
            re: b.re.clone(),
            im: neg(&b.im),
        };
        let n = self.c_mul(a, &conj)?;
        Ok(Number {
            re: self.div(&n.re, &den)?,
            im: self.div(&n.im, &den)?,
        })
    }

    pub(crate) fn c_abs(&self, a: &Number) -> NumResult<Real> {
        if a.is_real() {
            return Ok(crate::real::abs(&a.re));
        }
        let sq = self.add(&self.mul(&a.re, &a.re)?, &self.mul(&a.im, &a.im)?)?;
        self.sqrt(&sq)
    }

    pub(crate) fn c_arg(&self, a: &Number) -> NumResult<Real> {
        self.atan2(&a.im, &a.re)
    }

    pub(crate) fn c_sqrt(&self, a: &Number) -> NumResult<Number> {
        if a.is_real() {
            return match self.sign(&a.re)? {
                Ordering::Less => Ok(Number {
                    re: exact(0),
                    im: self.sqrt(&neg(&a.re))?,
                }),
                _ => Ok(Number::real(self.sqrt(&a.re)?)),
            };
        }
        // √z = √((|z|+x)/2) + i·sign(y)·√((|z|−x)/2)
        let m = self.c_abs(a)?;
        let two = exact(2);
        let re = self.sqrt(&self.div(&self.add(&m, &a.re)?, &two)?)?;
        let im = self.sqrt(&self.div(&self.sub(&m, &a.re)?, &two)?)?;
        let im = if self.sign(&a.im)? == Ordering::Less {
            neg(&im)
        } else {
            im
        };
        Ok(Number { re, im })
    }

    pub(crate) fn c_exp(&self, a: &Number) -> NumResult<Number> {
        if a.is_real() {
            return Ok(Number::real(self.exp(&a.re)?));
        }
        let m = self.exp(&a.re)?;
        Ok(Number {
            re: self.mul(&m, &self.cos(&a.im)?)?,
            im: self.mul(&m, &self.sin(&a.im)?)?,
        })
    }

    pub(crate) fn c_ln(&self, a: &Number) -> NumResult<Number> {
        if a.is_real() && self.sign(&a.re)? == Ordering::Greater {
            return Ok(Number::real(self.ln(&a.re)?));
        }
        let m = self.c_abs(a)?;
        Ok(Number {
            re: self.ln(&m)?,
            im: self.c_arg(a)?,
        })
    }

    pub(crate) fn c_powi(&self, a: &Number, n: &IBig) -> NumResult<Number> {
        if a.is_real() {
            return Ok(Number::real(self.powi(&a.re, n)?));
        }
        let mut e: UBig = n.unsigned_abs();
        let mut base = a.clone();
        let mut acc = Number::int(1);
        while !e.is_zero() {
            self.budget.check()?;
            if e.bit(0) {
                acc = self.c_mul(&acc, &base)?;
            }
            e >>= 1;
            if !e.is_zero() {
                base = self.c_mul(&base, &base)?;
            }
        }
        if *n < IBig::ZERO {
            acc = self.c_div(&Number::int(1), &acc)?;
        }
        Ok(acc)
    }

    /// `a^b`, the principal value.
    pub(crate) fn c_pow(&self, a: &Number, b: &Number) -> NumResult<Number> {
        if let Some(n) = b.as_integer() {
            return self.c_powi(a, n);
        }
        if a.is_real() && b.is_real() {
            let base_sign = self.sign(&a.re)?;
            if base_sign != Ordering::Less {
                return Ok(Number::real(self.pow(&a.re, &b.re)?));
            }
        }
        if let (Some(base), true) = (a.as_rational(), b.is_real())
            && base.is_zero()
        {
            return Ok(Number::int(0));
        }
        // A negative exact base to an exact fractional power: the
        // principal value |a|^b·(cos πb + i sin πb), exact where the root
        // and the angle are ((-4)^(1/2) = 2i, (-1)^(3/2) = -i).
        if let (Some(base), Some(e)) = (a.as_rational(), b.as_rational())
            && base.sign() == dashu_base::Sign::Negative
        {
            let size = self.pow(&Real::Exact(-base.clone()), &b.re)?;
            let angle = crate::real::pi_multiple(e.clone(), 1);
            return Ok(Number {
                re: self.mul(&size, &self.cos(&angle)?)?,
                im: self.mul(&size, &self.sin(&angle)?)?,
            });
        }
        // exp(b·ln a)
        let l = self.c_ln(a)?;
        self.c_exp(&self.c_mul(b, &l)?)
    }

    pub(crate) fn c_sin(&self, a: &Number) -> NumResult<Number> {
        if a.is_real() {
            return Ok(Number::real(self.sin(&a.re)?));
        }
        // sin(x+iy) = sin x cosh y + i cos x sinh y
        Ok(Number {
            re: self.mul(&self.sin(&a.re)?, &self.cosh(&a.im)?)?,
            im: self.mul(&self.cos(&a.re)?, &self.sinh(&a.im)?)?,
        })
    }

    pub(crate) fn c_cos(&self, a: &Number) -> NumResult<Number> {
        if a.is_real() {
            return Ok(Number::real(self.cos(&a.re)?));
        }
        // cos(x+iy) = cos x cosh y − i sin x sinh y
        Ok(Number {
            re: self.mul(&self.cos(&a.re)?, &self.cosh(&a.im)?)?,
            im: neg(&self.mul(&self.sin(&a.re)?, &self.sinh(&a.im)?)?),
        })
    }
}
