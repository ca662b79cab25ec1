//! Built-in functions, on quantities.

use std::cmp::Ordering;

use dashu_base::{Gcd, Sign, UnsignedAbs};
use dashu_int::{IBig, UBig};
use dashu_ratio::RBig;

use crate::complex::{Number, real_only};
use crate::quantity::{QtyError, Quantity, describe};
use crate::real::{NumError, Real, Rounding, Work, exact};
use crate::units::Dim;

/// Why a function refused its arguments.
pub(crate) enum FnError {
    Qty(QtyError, &'static str),
    Needs(String),
}

impl From<NumError> for FnError {
    fn from(e: NumError) -> Self {
        FnError::Qty(QtyError::Num(e), "compute")
    }
}

impl From<QtyError> for FnError {
    fn from(e: QtyError) -> Self {
        FnError::Qty(e, "combine")
    }
}

type FnResult = Result<Quantity, FnError>;

/// Every built-in function name.
pub(crate) const NAMES: &[&str] = &[
    "sqrt",
    "cbrt",
    "root",
    "exp",
    "cis",
    "ln",
    "log",
    "log2",
    "log10",
    "sin",
    "cos",
    "tan",
    "asin",
    "acos",
    "atan",
    "arcsin",
    "arccos",
    "arctan",
    "atan2",
    "sind",
    "cosd",
    "tand",
    "asind",
    "acosd",
    "atand",
    "sinh",
    "cosh",
    "tanh",
    "asinh",
    "acosh",
    "atanh",
    "abs",
    "floor",
    "ceil",
    "round",
    "trunc",
    "sign",
    "sgn",
    "min",
    "sum",
    "product",
    "mean",
    "average",
    "avg",
    "median",
    "count",
    "stdev",
    "stddev",
    "variance",
    "var",
    "xor",
    "shl",
    "shr",
    "max",
    "gcd",
    "lcm",
    "factorial",
    "fact",
    "binomial",
    "choose",
    "ncr",
    "mod",
    "re",
    "im",
    "conj",
    "arg",
    "hypot",
    "if",
];

/// `(fewest, most)` arguments of a built-in function.
pub(crate) fn builtin_arity(name: &str) -> Option<(usize, usize)> {
    Some(match name {
        "log" => (1, 2),
        "root" | "atan2" | "binomial" | "choose" | "ncr" | "mod" | "hypot" => (2, 2),
        "min" | "max" | "gcd" | "lcm" => (1, usize::MAX),
        "sum" | "product" | "mean" | "average" | "avg" | "median" | "count" => (1, usize::MAX),
        "stdev" | "stddev" | "variance" | "var" => (2, usize::MAX),
        "and" | "or" | "xor" => (2, usize::MAX),
        "shl" | "shr" => (2, 2),
        "not" => (1, 1),
        "if" => (3, 3),
        n if NAMES.contains(&n) => (1, 1),
        _ => return None,
    })
}

fn needs(what: String) -> FnError {
    FnError::Needs(what)
}

/// A plain (dimensionless) real argument.
fn plain_real<'a>(name: &str, q: &'a Quantity) -> Result<&'a Real, FnError> {
    if !q.dim.is_none() {
        return Err(needs(format!(
            "{name} needs a plain number, not {}",
            describe(q)
        )));
    }
    real_only(&q.num, "a complex argument is not supported here").map_err(FnError::from)
}

/// A plain argument, complex allowed.
fn plain<'a>(name: &str, q: &'a Quantity) -> Result<&'a Number, FnError> {
    if !q.dim.is_none() {
        return Err(needs(format!(
            "{name} needs a plain number, not {}",
            describe(q)
        )));
    }
    Ok(&q.num)
}

fn real(n: Real) -> Quantity {
    Quantity::plain(Number::real(n))
}

/// An exact integer argument.
fn integer<'a>(name: &str, q: &'a Quantity) -> Result<&'a IBig, FnError> {
    if !q.dim.is_none() {
        return Err(needs(format!(
            "{name} needs an integer, not {}",
            describe(q)
        )));
    }
    q.num
        .as_integer()
        .ok_or_else(|| needs(format!("{name} needs an exact integer")))
}

pub(crate) fn call(work: &Work<'_>, name: &str, args: &[Quantity]) -> FnResult {
    let [a, rest @ ..] = args else {
        return Err(needs(format!("{name} needs an argument")));
    };
    let b = rest.first();
    Ok(match name {
        "sqrt" => root(work, a, 2)?,
        "cbrt" => root(work, a, 3)?,
        "root" => {
            let n = b.map(|b| integer("root", b)).transpose()?;
            let n = n.and_then(|n| usize::try_from(n).ok()).filter(|n| *n >= 1);
            let Some(n) = n else {
                return Err(needs("root(x, n) needs a positive integer n".into()));
            };
            root(work, a, n)?
        }
        "exp" => Quantity::plain(work.c_exp(plain(name, a)?)?),
        // cos x + i sin x, as e^(ix).
        "cis" => Quantity::plain(work.c_exp(&work.c_mul(&Number::i(), plain(name, a)?)?)?),
        "ln" => Quantity::plain(work.c_ln(plain(name, a)?)?),
        "log" => match b {
            None => log_base(work, plain_real(name, a)?, &exact(10))?,
            Some(base) => log_base(work, plain_real(name, a)?, plain_real(name, base)?)?,
        },
        "log2" => log_base(work, plain_real(name, a)?, &exact(2))?,
        "log10" => log_base(work, plain_real(name, a)?, &exact(10))?,
        "sin" | "cos" | "tan" => {
            let x = plain(name, a)?;
            Quantity::plain(match name {
                "sin" => work.c_sin(x)?,
                "cos" => work.c_cos(x)?,
                _ if x.is_real() => Number::real(work.tan(&x.re)?),
                _ => work.c_div(&work.c_sin(x)?, &work.c_cos(x)?)?,
            })
        }
        "sind" => real(work.sin_turns(plain_real(name, a)?, 360)?),
        "cosd" => real(work.cos_turns(plain_real(name, a)?, 360)?),
        "tand" => real(work.tan_turns(plain_real(name, a)?, 360)?),
        "asin" | "arcsin" => real(work.asin(plain_real(name, a)?)?),
        "acos" | "arccos" => real(work.acos(plain_real(name, a)?)?),
        "atan" | "arctan" => real(work.atan(plain_real(name, a)?)?),
        "asind" => degrees(work, work.asin_turns(plain_real(name, a)?, 360)?)?,
        "acosd" => degrees(work, work.acos_turns(plain_real(name, a)?, 360)?)?,
        "atand" => degrees(work, work.atan_turns(plain_real(name, a)?, 360)?)?,
        "atan2" => {
            let b = b.ok_or_else(|| needs("atan2 needs two arguments".into()))?;
            if a.dim != b.dim {
                return Err(FnError::Qty(
                    QtyError::Mismatch(describe(a), describe(b)),
                    "compare",
                ));
            }
            let y = real_only(&a.num, "atan2 needs real arguments")?;
            let x = real_only(&b.num, "atan2 needs real arguments")?;
            real(work.atan2(y, x)?)
        }
        "sinh" => real(work.sinh(plain_real(name, a)?)?),
        "cosh" => real(work.cosh(plain_real(name, a)?)?),
        "tanh" => real(work.tanh(plain_real(name, a)?)?),
        "asinh" => real(work.asinh(plain_real(name, a)?)?),
        "acosh" => real(work.acosh(plain_real(name, a)?)?),
        "atanh" => real(work.atanh(plain_real(name, a)?)?),
        "abs" => Quantity {
            num: Number::real(work.c_abs(&a.num)?),
            ..a.clone()
        },
        "floor" | "ceil" | "round" | "trunc" => {
            let how = match name {
                "floor" => Rounding::Floor,
                "ceil" => Rounding::Ceil,
                "round" => Rounding::Nearest,
                _ => Rounding::Trunc,
            };
            // Rounded in the units it is shown in: floor(5.5 ft) = 5 ft.
            let shown = work.shown_value(a)?;
            let v = real_only(&shown, "rounding needs a real number")?;
            let r = work.round(v, how)?;
            let size = work.shown_factor(&a.shown)?;
            Quantity {
                num: Number::real(work.mul(&r, &size)?),
                ..a.clone()
            }
        }
        "sign" | "sgn" => {
            let v = real_only(&a.num, "sign needs a real number")?;
            real(exact(match work.sign(v)? {
                Ordering::Less => -1,
                Ordering::Equal => 0,
                Ordering::Greater => 1,
            }))
        }
        "min" | "max" => {
            let mut best = a.clone();
            for q in rest {
                if q.dim != best.dim {
                    return Err(FnError::Qty(
                        QtyError::Mismatch(describe(&best), describe(q)),
                        "compare",
                    ));
                }
                let x = real_only(&q.num, "min and max need real numbers")?;
                let y = real_only(&best.num, "min and max need real numbers")?;
                let c = work.compare(x, y)?;
                if (name == "min" && c == Ordering::Less)
                    || (name == "max" && c == Ordering::Greater)
                {
                    best = q.clone();
                }
            }
            best
        }
        "sum" | "mean" | "average" | "avg" => {
            let mut total = a.clone();
            for q in rest {
                total = work.q_add(&total, q, false)?;
            }
            if name == "sum" {
                total
            } else {
                let n = Quantity::plain(Number::exact(RBig::from(args.len())));
                work.q_div(&total, &n)?
            }
        }
        "product" => {
            let mut total = a.clone();
            for q in rest {
                total = work.q_mul(&total, q)?;
            }
            total
        }
        "count" => Quantity::plain(Number::exact(RBig::from(args.len()))),
        "median" => median(work, args)?,
        "variance" | "var" | "stdev" | "stddev" => {
            // The sample variance: squares of the distances to the mean,
            // over n − 1.
            let n = args.len();
            let mut total = a.clone();
            for q in rest {
                total = work.q_add(&total, q, false)?;
            }
            let mean = work.q_div(&total, &Quantity::plain(Number::exact(RBig::from(n))))?;
            let mut squares: Option<Quantity> = None;
            for q in args {
                let d = work.q_add(q, &mean, true)?;
                let d2 = work.q_mul(&d, &d)?;
                squares = Some(match squares {
                    None => d2,
                    Some(s) => work.q_add(&s, &d2, false)?,
                });
            }
            let squares = squares.ok_or_else(|| needs(format!("{name} needs numbers")))?;
            let var = work.q_div(&squares, &Quantity::plain(Number::exact(RBig::from(n - 1))))?;
            if name.starts_with("var") {
                var
            } else {
                root(work, &var, 2)?
            }
        }
        "and" | "or" | "xor" => {
            let mut acc = integer(name, a)?.clone();
            for q in rest {
                let x = integer(name, q)?;
                acc = match name {
                    "and" => &acc & x,
                    "or" => &acc | x,
                    _ => &acc ^ x,
                };
            }
            Quantity::plain(Number::exact(RBig::from(acc)))
        }
        "not" => Quantity::plain(Number::exact(RBig::from(!integer(name, a)?.clone()))),
        "shl" | "shr" => {
            let b = b.ok_or_else(|| needs(format!("{name} needs two arguments")))?;
            let x = integer(name, a)?;
            let by = integer(name, b)?;
            let by = usize::try_from(by)
                .ok()
                .filter(|&k| k <= 1 << 20)
                .ok_or_else(|| needs(format!("{name} shifts by 0 to {} bits", 1 << 20)))?;
            let shifted = if name == "shl" { x << by } else { x >> by };
            Quantity::plain(Number::exact(RBig::from(shifted)))
        }
        "gcd" | "lcm" => {
            let mut acc: UBig = integer(name, a)?.unsigned_abs();
            for q in rest {
                let n = integer(name, q)?.unsigned_abs();
                acc = if name == "gcd" {
                    // gcd(0, n) = n: every number divides 0 (and dashu's
                    // gcd refuses two zeros).
                    if acc.is_zero() {
                        n
                    } else if n.is_zero() {
                        acc
                    } else {
                        (&acc).gcd(&n)
                    }
                } else if acc.is_zero() || n.is_zero() {
                    UBig::ZERO
                } else {
                    let g = (&acc).gcd(&n);
                    &acc / g * &n
                };
            }
            Quantity::plain(Number::exact(RBig::from(acc)))
        }
        "factorial" | "fact" => factorial(work, a)?,
        "binomial" | "choose" | "ncr" => {
            let b = b.ok_or_else(|| needs("binomial needs two arguments".into()))?;
            binomial(work, integer(name, a)?, integer(name, b)?)?
        }
        "mod" => {
            let b = b.ok_or_else(|| needs("mod needs two arguments".into()))?;
            modulo(work, a, b)?
        }
        "re" => Quantity {
            num: Number::real(a.num.re.clone()),
            ..a.clone()
        },
        "im" => Quantity {
            num: Number::real(a.num.im.clone()),
            ..a.clone()
        },
        "conj" => Quantity {
            num: Number {
                re: a.num.re.clone(),
                im: crate::real::neg(&a.num.im),
            },
            ..a.clone()
        },
        "arg" => real(work.c_arg(&a.num)?),
        "hypot" => {
            let b = b.ok_or_else(|| needs("hypot needs two arguments".into()))?;
            let two = Quantity::plain(Number::int(2));
            let sum = work.q_add(&work.q_pow(a, &two)?, &work.q_pow(b, &two)?, false)?;
            root(work, &sum, 2)?
        }
        _ => return Err(needs(format!("{name} is not a function"))),
    })
}

/// A comparison: 1 or 0 (units must agree).
pub(crate) fn compare(
    work: &Work<'_>,
    c: crate::lex::Comparison,
    a: &Quantity,
    b: &Quantity,
) -> FnResult {
    use crate::lex::Comparison as C;
    if a.dim != b.dim {
        return Err(FnError::Qty(
            QtyError::Mismatch(describe(a), describe(b)),
            "compare",
        ));
    }
    let holds = match c {
        C::Equal | C::NotEqual if !(a.num.is_real() && b.num.is_real()) => {
            let re = work.compare(&a.num.re, &b.num.re)? == Ordering::Equal;
            let im = work.compare(&a.num.im, &b.num.im)? == Ordering::Equal;
            (re && im) == (c == C::Equal)
        }
        _ => {
            let x = real_only(&a.num, "only real numbers can be ordered")?;
            let y = real_only(&b.num, "only real numbers can be ordered")?;
            let o = work.compare(x, y)?;
            match c {
                C::Less => o == Ordering::Less,
                C::LessEq => o != Ordering::Greater,
                C::Greater => o == Ordering::Greater,
                C::GreaterEq => o != Ordering::Less,
                C::Equal => o == Ordering::Equal,
                C::NotEqual => o != Ordering::Equal,
            }
        }
    };
    Ok(Quantity::plain(Number::int(i64::from(holds))))
}

/// Whether a condition holds: anything but an exact zero.
pub(crate) fn truth(work: &Work<'_>, q: &Quantity) -> Result<bool, FnError> {
    let x = real_only(&q.num, "a condition must be a real number")?;
    Ok(work.sign(x)? != Ordering::Equal)
}

/// A value in degrees, shown as such.
fn degrees(work: &Work<'_>, value: Real) -> FnResult {
    let Some(deg) = crate::units::table().lookup("deg") else {
        return Err(needs("the degree is missing from the unit table".into()));
    };
    let size = work.factor(&deg.factor)?;
    Ok(Quantity {
        num: Number::real(work.mul(&value, &size)?),
        dim: Dim::NONE,
        shown: vec![(deg, crate::units::WHOLE)],
    })
}

/// The `n`-th root, with units (`sqrt(4 m^2)` = 2 m); square roots of
/// negative numbers are imaginary, odd roots of negative numbers real.
fn root(work: &Work<'_>, a: &Quantity, n: usize) -> FnResult {
    let exponent = Quantity::plain(Number::exact(RBig::from_parts(IBig::ONE, UBig::from(n))));
    // The units, through the power rule (which checks the exponents).
    let shape = work.q_pow(
        &Quantity {
            num: Number::int(1),
            ..a.clone()
        },
        &exponent,
    )?;
    let num = if a.num.is_real() {
        let x = &a.num.re;
        match (n, work.sign(x)?) {
            (2, Ordering::Less) => work.c_sqrt(&a.num)?,
            (2, _) => Number::real(work.sqrt(x)?),
            (3, _) => Number::real(work.cbrt(x)?),
            (_, Ordering::Less) if n % 2 == 1 => {
                let r = work.pow(
                    &crate::real::abs(x),
                    &Real::Exact(RBig::from_parts(IBig::ONE, UBig::from(n))),
                )?;
                Number::real(crate::real::neg(&r))
            }
            (_, Ordering::Less) => work.c_pow(&a.num, &exponent.num)?,
            _ => {
                Number::real(work.pow(x, &Real::Exact(RBig::from_parts(IBig::ONE, UBig::from(n))))?)
            }
        }
    } else if n == 2 {
        work.c_sqrt(&a.num)?
    } else {
        work.c_pow(&a.num, &exponent.num)?
    };
    Ok(Quantity { num, ..shape })
}

/// `log_b(x)`, exact when x is an exact power of an exact base.
fn log_base(work: &Work<'_>, x: &Real, b: &Real) -> FnResult {
    if let (Real::Exact(xr), Real::Exact(br)) = (x, b)
        && let Some(k) = exact_log(xr, br)
    {
        return Ok(real(exact(k)));
    }
    let lx = work.ln(x)?;
    let lb = work.ln(b)?;
    Ok(real(work.div(&lx, &lb)?))
}

/// `k` with `b^k = x`, for exact x and b > 0, b ≠ 1.
fn exact_log(x: &RBig, b: &RBig) -> Option<i64> {
    if x.sign() != Sign::Positive
        || x.is_zero()
        || b.sign() != Sign::Positive
        || b.is_one()
        || b.is_zero()
    {
        return None;
    }
    let estimate = x.to_f64().value().ln() / b.to_f64().value().ln();
    if !estimate.is_finite() {
        return None;
    }
    let k = estimate.round() as i64;
    if k.unsigned_abs() > 100_000 {
        return None;
    }
    let e = k.unsigned_abs() as usize;
    let p = RBig::from_parts(b.numerator().pow(e), b.denominator().pow(e));
    let p = if k < 0 { RBig::ONE / p } else { p };
    (&p == x).then_some(k)
}

/// `n!` for an exact integer `n ≥ 0`; its size is checked first.
pub(crate) fn factorial(work: &Work<'_>, a: &Quantity) -> FnResult {
    let n = integer("factorial", a)?;
    if n.sign() == Sign::Negative {
        return Err(needs("factorial needs a non-negative integer".into()));
    }
    // log2(n!) by Stirling, to refuse before computing.
    let stirling = |nf: f64| {
        if nf < 2.0 {
            1.0
        } else {
            nf * nf.log2() - nf * std::f64::consts::LOG2_E
                + 0.5 * (2.0 * std::f64::consts::PI * nf).log2()
        }
    };
    let Ok(n) = u64::try_from(n) else {
        return Err(FnError::from(NumError::TooBig {
            bits: crate::error::Bits(stirling(n.to_f64().value())),
            limit: work.budget.max_bits,
        }));
    };
    let bits = stirling(n as f64);
    if bits > work.budget.max_bits as f64 {
        return Err(FnError::from(NumError::TooBig {
            bits: crate::error::Bits(bits),
            limit: work.budget.max_bits,
        }));
    }
    let product = product_range(work, 1, n + 1)?;
    Ok(Quantity::plain(Number::exact(RBig::from(product))))
}

/// `lo · (lo+1) · … · (hi−1)`, as a balanced product tree.
fn product_range(work: &Work<'_>, lo: u64, hi: u64) -> Result<UBig, NumError> {
    if hi <= lo {
        return Ok(UBig::ONE);
    }
    if hi - lo <= 16 {
        let mut p = UBig::ONE;
        for k in lo..hi {
            p *= UBig::from(k);
        }
        return Ok(p);
    }
    work.budget.check()?;
    let mid = lo + (hi - lo) / 2;
    Ok(product_range(work, lo, mid)? * product_range(work, mid, hi)?)
}

fn binomial(work: &Work<'_>, n: &IBig, k: &IBig) -> FnResult {
    if n.sign() == Sign::Negative {
        return Err(needs("binomial needs n ≥ 0".into()));
    }
    if k.sign() == Sign::Negative || k > n {
        return Ok(Quantity::plain(Number::int(0)));
    }
    let (Ok(n), Ok(k)) = (u64::try_from(n), u64::try_from(k)) else {
        // C(n, k) has about n·H(k/n) bits (H the binary entropy).
        let (nf, kf) = (n.to_f64().value(), k.to_f64().value());
        let p = (kf / nf).clamp(f64::MIN_POSITIVE, 0.5);
        let h = -p * p.log2() - (1.0 - p) * (1.0 - p).log2();
        return Err(FnError::from(NumError::TooBig {
            bits: crate::error::Bits(nf * h),
            limit: work.budget.max_bits,
        }));
    };
    let k = k.min(n - k);
    // C(n, k) < 2^n, and the product below has about k·log2(n) bits.
    let bits = (k as f64) * (n.max(2) as f64).log2();
    if bits > work.budget.max_bits as f64 {
        return Err(FnError::from(NumError::TooBig {
            bits: crate::error::Bits(bits),
            limit: work.budget.max_bits,
        }));
    }
    let top = product_range(work, n - k + 1, n + 1)?;
    let bottom = product_range(work, 1, k + 1)?;
    Ok(Quantity::plain(Number::exact(RBig::from(top / bottom))))
}

/// `a mod b` = a − b·⌊a/b⌋ (the sign of b), with matching units.
pub(crate) fn modulo(work: &Work<'_>, a: &Quantity, b: &Quantity) -> FnResult {
    if a.dim != b.dim {
        return Err(FnError::Qty(
            QtyError::Mismatch(describe(a), describe(b)),
            "take the remainder of",
        ));
    }
    let x = real_only(&a.num, "mod needs real numbers")?;
    let y = real_only(&b.num, "mod needs real numbers")?;
    if matches!(y, Real::Exact(r) if r.is_zero()) {
        return Err(FnError::from(NumError::DivisionByZero));
    }
    if let (Real::Exact(x), Real::Exact(y)) = (x, y)
        && x.denominator().is_one()
        && y.denominator().is_one()
    {
        return Ok(Quantity {
            num: Number::real(Real::Exact(RBig::from(
                work.int_mod(x.numerator(), y.numerator())?,
            ))),
            ..a.clone()
        });
    }
    let q = work.round(&work.div(x, y)?, Rounding::Floor)?;
    let r = work.sub(x, &work.mul(y, &q)?)?;
    Ok(Quantity {
        num: Number::real(r),
        ..a.clone()
    })
}

/// The middle value (the mean of the two middle ones for an even count);
/// the values must share their units and be real.
fn median(work: &Work<'_>, args: &[Quantity]) -> FnResult {
    let mut values: Vec<&Quantity> = args.iter().collect();
    for q in &values {
        if q.dim != values[0].dim {
            return Err(FnError::Qty(
                QtyError::Mismatch(describe(values[0]), describe(q)),
                "compare",
            ));
        }
        real_only(&q.num, "median needs real numbers")?;
    }
    // Insertion sort: comparisons may fail (too close to decide), which
    // `sort_by` cannot report.
    for i in 1..values.len() {
        let mut j = i;
        while j > 0 {
            let x = real_only(&values[j - 1].num, "median needs real numbers")?;
            let y = real_only(&values[j].num, "median needs real numbers")?;
            if work.compare(x, y)? != Ordering::Greater {
                break;
            }
            values.swap(j - 1, j);
            j -= 1;
        }
    }
    let n = values.len();
    if n % 2 == 1 {
        return Ok(values[n / 2].clone());
    }
    let both = work.q_add(values[n / 2 - 1], values[n / 2], false)?;
    Ok(work.q_div(&both, &Quantity::plain(Number::exact(RBig::from(2u8))))?)
}
