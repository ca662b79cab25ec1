//! `Quantity`: a number with a dimension and the units to show it in.
//!
//! The number is kept in SI base units, so arithmetic never converts; the
//! `shown` units only decide how the result is printed. They follow the
//! left operand (`1 m + 1 ft` is in metres) and merge units of one
//! dimension (`1 m * 1 ft` is 0.3048 m²).
//!
//! Temperatures on affine scales (°C, °F) follow one rule, published in
//! the README: a quantity in one such unit alone is an absolute
//! temperature, and its number is kept as the difference from that
//! scale's zero. `+` and `-` treat the right operand as a difference
//! (`20 °C + 5 °C` = 25 °C), except that two absolute temperatures
//! subtract to a difference (`20 °C - 15 °C` = 5 Δ°C); `to` converts
//! absolutely (`20 °C to °F` = 68 °F); in any compound unit (J/°C) the
//! degree is only a size.

use dashu_ratio::RBig;

use crate::complex::Number;
use crate::real::{NumError, NumResult, Real, Work};
use crate::units::{Dim, Factor, Unit, WHOLE, exponent_text, table};

#[derive(Clone, Debug)]
pub(crate) struct Quantity {
    pub(crate) num: Number,
    pub(crate) dim: Dim,
    /// The units to show, each with its exponent in twelfths ([`WHOLE`]).
    pub(crate) shown: Vec<(Unit, i32)>,
}

/// Why two quantities do not fit an operation.
#[derive(Clone, Debug)]
pub(crate) enum QtyError {
    Num(NumError),
    /// Different dimensions; the two unit texts.
    Mismatch(String, String),
    /// A power that would give fractional unit exponents.
    FractionalUnit(String),
    /// A unit in an exponent.
    UnitExponent(String),
}

impl From<NumError> for QtyError {
    fn from(e: NumError) -> Self {
        QtyError::Num(e)
    }
}

pub(crate) type QtyResult<T> = Result<T, QtyError>;

impl Quantity {
    pub(crate) fn plain(num: Number) -> Quantity {
        Quantity {
            num,
            dim: Dim::NONE,
            shown: Vec::new(),
        }
    }

    /// An affine unit alone (°C, °F): the quantity is an absolute
    /// temperature.
    pub(crate) fn absolute_zero(&self) -> Option<&RBig> {
        match self.shown.as_slice() {
            [(u, WHOLE)] => u.zero.as_ref(),
            _ => None,
        }
    }

    /// The unit as text: `m`, `km/h`, `kg·m/s^2`, `s^-1`.
    pub(crate) fn unit_text(&self) -> String {
        units_text(&self.shown)
    }
}

pub(crate) fn units_text(shown: &[(Unit, i32)]) -> String {
    // Whole powers as people write them (`m²`, `s⁻¹`); roots as `^(1/2)`.
    let power = |u: &Unit, p: i32| {
        if p == WHOLE {
            u.name.clone()
        } else if p % WHOLE == 0 {
            format!(
                "{}{}",
                u.name,
                crate::lex::superscript(i64::from(p / WHOLE))
            )
        } else {
            format!("{}^{}", u.name, exponent_text(p))
        }
    };
    let up: Vec<String> = shown
        .iter()
        .filter(|(_, p)| *p > 0)
        .map(|(u, p)| power(u, *p))
        .collect();
    let down: Vec<String> = shown
        .iter()
        .filter(|(_, p)| *p < 0)
        .map(|(u, p)| power(u, -*p))
        .collect();
    match (up.is_empty(), down.len()) {
        (_, 0) => up.join("·"),
        (true, _) => shown
            .iter()
            .map(|(u, p)| power(u, *p))
            .collect::<Vec<_>>()
            .join("·"),
        (false, 1) => format!("{}/{}", up.join("·"), down[0]),
        (false, _) => format!("{}/({})", up.join("·"), down.join("·")),
    }
}

impl Work<'_> {
    /// `ratio · π^k` as a real.
    pub(crate) fn factor(&self, f: &Factor) -> NumResult<Real> {
        Ok(crate::real::pi_multiple(f.ratio.clone(), f.pi))
    }

    /// The size of the shown units together.
    pub(crate) fn shown_factor(&self, shown: &[(Unit, i32)]) -> NumResult<Real> {
        let mut f = Factor::one();
        let mut roots = Vec::new();
        for (u, p) in shown {
            f = f.mul(&u.factor.powi(p / WHOLE));
            if p % WHOLE != 0 {
                roots.push((&u.factor, p % WHOLE));
            }
        }
        let mut size = self.factor(&f)?;
        // A unit to a fractional power (lb^(1/2)): its size's root.
        for (factor, twelfths) in roots {
            let e = Real::Exact(RBig::from_parts(
                dashu_int::IBig::from(twelfths),
                dashu_int::UBig::from(WHOLE.unsigned_abs()),
            ));
            let root = self.pow(&self.factor(factor)?, &e)?;
            size = self.mul(&size, &root)?;
        }
        Ok(size)
    }

    /// One of a unit.
    pub(crate) fn unit(&self, u: Unit) -> NumResult<Quantity> {
        Ok(Quantity {
            num: Number::real(self.factor(&u.factor)?),
            dim: u.dim,
            shown: vec![(u, WHOLE)],
        })
    }

    /// The number to print: the value in the shown units.
    pub(crate) fn shown_value(&self, q: &Quantity) -> NumResult<Number> {
        if q.shown.is_empty() {
            return Ok(q.num.clone());
        }
        let f = self.shown_factor(&q.shown)?;
        self.c_div(&q.num, &Number::real(f))
    }

    pub(crate) fn q_mul(&self, a: &Quantity, b: &Quantity) -> QtyResult<Quantity> {
        Ok(Quantity {
            num: self.c_mul(&a.num, &b.num)?,
            dim: a.dim.mul(b.dim),
            shown: merge(&a.shown, &b.shown, 1),
        })
    }

    pub(crate) fn q_div(&self, a: &Quantity, b: &Quantity) -> QtyResult<Quantity> {
        Ok(Quantity {
            num: self.c_div(&a.num, &b.num)?,
            dim: a.dim.mul(b.dim.inv()),
            shown: merge(&a.shown, &b.shown, -1),
        })
    }

    /// `a + b` (or `a - b` with `subtract`), under the temperature rule.
    pub(crate) fn q_add(&self, a: &Quantity, b: &Quantity, subtract: bool) -> QtyResult<Quantity> {
        // Zero adds to any unit (`4 m + 0`, `0 - 3 s`): a plain zero has
        // every dimension.
        let plain_zero = |q: &Quantity| {
            q.dim.is_none()
                && q.shown.is_empty()
                && q.num.as_rational().is_some_and(|r| r.is_zero())
        };
        if a.dim != b.dim && plain_zero(b) {
            return Ok(a.clone());
        }
        if a.dim != b.dim && plain_zero(a) {
            return Ok(if subtract { self.q_neg(b) } else { b.clone() });
        }
        if a.dim != b.dim {
            return Err(QtyError::Mismatch(describe(a), describe(b)));
        }
        let combine = |x: &Number, y: &Number| -> QtyResult<Number> {
            Ok(if subtract {
                self.c_sub(x, y)?
            } else {
                self.c_add(x, y)?
            })
        };
        let zero_of = |z: &RBig| Number::exact(z.clone());
        match (a.absolute_zero(), b.absolute_zero()) {
            (Some(za), Some(zb)) if subtract => {
                // Two absolute temperatures: the difference.
                let ka = self.c_add(&a.num, &zero_of(za))?;
                let kb = self.c_add(&b.num, &zero_of(zb))?;
                let delta = if za == &RBig::from_parts(27315.into(), 100u8.into()) {
                    "Δ°C"
                } else {
                    "Δ°F"
                };
                let shown = table()
                    .lookup(delta)
                    .map(|u| vec![(u, WHOLE)])
                    .unwrap_or_default();
                Ok(Quantity {
                    num: self.c_sub(&ka, &kb)?,
                    dim: a.dim,
                    shown,
                })
            }
            (None, Some(zb)) if !a.dim.is_none() => {
                // An absolute temperature added to kelvin: take it whole.
                let kb = self.c_add(&b.num, &zero_of(zb))?;
                Ok(Quantity {
                    num: combine(&a.num, &kb)?,
                    dim: a.dim,
                    shown: a.shown.clone(),
                })
            }
            _ => Ok(Quantity {
                num: combine(&a.num, &b.num)?,
                dim: a.dim,
                shown: if a.shown.is_empty() {
                    b.shown.clone()
                } else {
                    a.shown.clone()
                },
            }),
        }
    }

    pub(crate) fn q_neg(&self, a: &Quantity) -> Quantity {
        Quantity {
            num: self.c_neg(&a.num),
            dim: a.dim,
            shown: a.shown.clone(),
        }
    }

    pub(crate) fn q_pow(&self, a: &Quantity, b: &Quantity) -> QtyResult<Quantity> {
        if !b.dim.is_none() {
            return Err(QtyError::UnitExponent(describe(b)));
        }
        // The exponent's own units (a percent, a dozen) only scale it.
        if a.dim.is_none() && a.shown.is_empty() {
            return Ok(Quantity::plain(self.c_pow(&a.num, &b.num)?));
        }
        let Some(e) = b.num.as_rational() else {
            return Err(QtyError::FractionalUnit(describe(a)));
        };
        let (Ok(p), Ok(q)) = (i64::try_from(e.numerator()), i64::try_from(e.denominator())) else {
            return Err(QtyError::FractionalUnit(describe(a)));
        };
        let dim = a
            .dim
            .pow(p, q)
            .ok_or_else(|| QtyError::FractionalUnit(describe(a)))?;
        let mut shown = Vec::new();
        for (u, k) in &a.shown {
            let kp = i64::from(*k) * p;
            // kp / q must be a whole number of twelfths.
            if kp % q != 0 {
                return Err(QtyError::FractionalUnit(describe(a)));
            }
            let power = i32::try_from(kp / q).map_err(|_| QtyError::FractionalUnit(describe(a)))?;
            if power != 0 {
                shown.push((u.clone(), power));
            }
        }
        Ok(Quantity {
            num: self.c_pow(&a.num, &b.num)?,
            dim,
            shown,
        })
    }

    /// `q` shown in the units of `target` (dimensions must agree);
    /// conversions to an affine unit are absolute.
    pub(crate) fn q_convert(&self, q: &Quantity, target: &Quantity) -> QtyResult<Quantity> {
        // A reciprocal unit asked for (`5 m/s to s/m`): the reciprocal.
        if q.dim != target.dim
            && !q.dim.is_none()
            && q.dim == target.dim.inv()
            && q.absolute_zero().is_none()
            && target.absolute_zero().is_none()
        {
            let inverse = self.q_div(&Quantity::plain(Number::int(1)), q)?;
            return self.q_convert(&inverse, target);
        }
        if q.dim != target.dim {
            return Err(QtyError::Mismatch(describe(q), describe(target)));
        }
        let absolute_kelvin = match q.absolute_zero() {
            Some(z) => self.c_add(&q.num, &Number::exact(z.clone()))?,
            None => q.num.clone(),
        };
        let num = match target.absolute_zero() {
            Some(z) => self.c_sub(&absolute_kelvin, &Number::exact(z.clone()))?,
            None if q.absolute_zero().is_some() && target.dim == q.dim => absolute_kelvin,
            None => q.num.clone(),
        };
        Ok(Quantity {
            num,
            dim: q.dim,
            shown: target.shown.clone(),
        })
    }
}

/// `a`'s units times `b`'s to the power `sign`: same names add up, and a
/// unit of a dimension `a` already shows is folded into `a`'s.
fn merge(a: &[(Unit, i32)], b: &[(Unit, i32)], sign: i32) -> Vec<(Unit, i32)> {
    let mut shown: Vec<(Unit, i32)> = a.to_vec();
    for (u, p) in b {
        let p = p * sign;
        if let Some(slot) = shown.iter_mut().find(|(v, _)| v.name == u.name) {
            slot.1 += p;
        } else if let Some(slot) = shown.iter_mut().find(|(v, _)| {
            v.dim == u.dim && !v.dim.is_none() && v.zero.is_none() && u.zero.is_none()
        }) {
            slot.1 += p;
        } else {
            shown.push((u.clone(), p));
        }
    }
    shown.retain(|(_, p)| *p != 0);
    shown
}

/// A quantity's units for messages: the shown units, or its dimension.
pub(crate) fn describe(q: &Quantity) -> String {
    if q.shown.is_empty() {
        q.dim.to_string()
    } else {
        q.unit_text()
    }
}
