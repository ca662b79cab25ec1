//! Printing numbers: every printed digit is certain.
//!
//! An exact integer prints in full; an exact fraction prints exactly when
//! its expansion ends soon, otherwise rounded (and marked approximate). A
//! ball prints the longest prefix, up to the asked number of significant
//! digits, on which both of its ends round to the same digits: the true
//! value rounds to what is printed, whatever it is inside the ball.

use dashu_base::{BitTest, Sign, UnsignedAbs};
use dashu_int::{IBig, UBig};
use dashu_ratio::RBig;

use crate::real::{Ball, Real, ball_ends, repr_to_rational};

/// The radix of printed numbers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Radix {
    /// Base 10.
    #[default]
    Decimal,
    /// Base 16, `0x` prefix.
    Hex,
    /// Base 8, `0o` prefix.
    Octal,
    /// Base 2, `0b` prefix.
    Binary,
}

impl Radix {
    pub(crate) fn base(self) -> u32 {
        match self {
            Radix::Decimal => 10,
            Radix::Hex => 16,
            Radix::Octal => 8,
            Radix::Binary => 2,
        }
    }

    fn prefix(self) -> &'static str {
        match self {
            Radix::Decimal => "",
            Radix::Hex => "0x",
            Radix::Octal => "0o",
            Radix::Binary => "0b",
        }
    }
}

/// How a number is shown.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Style {
    /// Significant digits of rounded (approximate) output.
    pub(crate) digits: usize,
    pub(crate) radix: Radix,
    /// Always `m × 10^e` (`to sci`).
    pub(crate) scientific: bool,
    /// `,` as the decimal mark.
    pub(crate) decimal_comma: bool,
}

/// A printed number, and whether it is rounded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Printed {
    pub(crate) text: String,
    pub(crate) approximate: bool,
}

/// Exact fractions whose expansion is longer than this many digits after
/// the point are printed rounded.
const EXACT_FRACTION_DIGITS: usize = 60;

pub(crate) fn print_real(x: &Real, style: Style) -> Printed {
    match x {
        Real::Exact(r) => print_exact(r, style),
        Real::Approx(b) => print_ball(b, style),
        // Callers turn multiples of π into balls first; this is a
        // readable fallback.
        Real::Pi(r, k) => Printed {
            text: format!("{}·π^{k}", print_exact(r, style).text),
            approximate: false,
        },
    }
}

fn print_exact(r: &RBig, style: Style) -> Printed {
    let base = style.radix.base();
    if r.denominator().is_one() && !style.scientific {
        return Printed {
            text: signed(
                r.numerator().sign(),
                &format!(
                    "{}{}",
                    style.radix.prefix(),
                    in_base(&r.numerator().unsigned_abs(), base)
                ),
            ),
            approximate: false,
        };
    }
    // A terminating expansion: the denominator divides a power of the base.
    if let Some(places) = terminating_places(r.denominator(), base)
        && places <= EXACT_FRACTION_DIGITS
        && !style.scientific
    {
        let scaled = r.numerator().clone() * IBig::from(UBig::from(base).pow(places))
            / IBig::from(r.denominator().clone());
        let digits = in_base(&scaled.unsigned_abs(), base);
        let text = place_point(&digits, places, style);
        return Printed {
            text: signed(
                r.numerator().sign(),
                &format!("{}{}", style.radix.prefix(), text),
            ),
            approximate: false,
        };
    }
    round_between(r, r, style).unwrap_or_else(|| Printed {
        text: "0".into(),
        approximate: true,
    })
}

fn print_ball(b: &Ball, style: Style) -> Printed {
    let (lo, hi) = ball_ends(b);
    if let Some(p) = round_between(&lo, &hi, style) {
        return p;
    }
    // Not one digit is certain: the ball holds 0 or is wide.
    let rad = repr_to_rational(&b.rad.to_repr());
    let r = round_between(&rad, &rad, Style { digits: 2, ..style });
    let bound = r.map(|p| p.text).unwrap_or_else(|| "0".into());
    Printed {
        text: format!("0 (±{bound})"),
        approximate: true,
    }
}

/// The number of places after the point at which `1/den` terminates in
/// `base`, if it does.
fn terminating_places(den: &UBig, base: u32) -> Option<usize> {
    let mut d = den.clone();
    let mut places = 0usize;
    let primes: &[u32] = match base {
        10 => &[2, 5],
        _ => &[2],
    };
    for &p in primes {
        let p = UBig::from(p);
        let mut count = 0usize;
        while (&d % &p).is_zero() {
            d /= &p;
            count += 1;
        }
        // base 16 = 2^4, base 8 = 2^3: places = ceil(count / bits per digit)
        let per_digit = match base {
            16 => 4,
            8 => 3,
            _ => 1,
        };
        places = places.max(count.div_ceil(per_digit));
    }
    d.is_one().then_some(places)
}

fn in_base(n: &UBig, base: u32) -> String {
    match base {
        16 => format!("{n:x}"),
        8 => format!("{n:o}"),
        2 => format!("{n:b}"),
        _ => n.to_string(),
    }
}

fn signed(sign: Sign, text: &str) -> String {
    if sign == Sign::Negative && text != "0" {
        format!("-{text}")
    } else {
        text.to_string()
    }
}

/// Puts the point `places` digits from the right of `digits`, and drops
/// trailing zeros after it.
fn place_point(digits: &str, places: usize, style: Style) -> String {
    let mark = if style.decimal_comma { ',' } else { '.' };
    let padded = if digits.len() <= places {
        format!("{}{}", "0".repeat(places + 1 - digits.len()), digits)
    } else {
        digits.to_string()
    };
    let (int, frac) = padded.split_at(padded.len() - places);
    let frac = frac.trim_end_matches('0');
    if frac.is_empty() {
        int.to_string()
    } else {
        format!("{int}{mark}{frac}")
    }
}

/// The longest rounding, up to `style.digits` significant digits, that
/// every value in `[lo, hi]` shares; `None` when no digit is shared or the
/// interval holds 0.
fn round_between(lo: &RBig, hi: &RBig, style: Style) -> Option<Printed> {
    let negative = hi.sign() == Sign::Negative && !hi.is_zero();
    let positive = lo.sign() == Sign::Positive && !lo.is_zero();
    if !negative && !positive {
        return None;
    }
    let (a, b) = if negative {
        (-hi.clone(), -lo.clone())
    } else {
        (lo.clone(), hi.clone())
    };
    let base = style.radix.base();
    // The exponent of the larger end: base^e ≤ b < base^(e+1).
    let mut e = exponent_estimate(&b, base);
    while pow_base(base, e + 1) <= b {
        e += 1;
    }
    while pow_base(base, e) > b {
        e -= 1;
    }
    // Start from the digits the interval's width allows, then step down.
    let width = &b - &a;
    let mut n = style.digits.max(1) as i64;
    if !width.is_zero() {
        let we = exponent_estimate(&width, base);
        n = n.min((e - we + 1).max(1));
    }
    while n >= 1 {
        let scale = pow_base(base, n - 1 - e);
        let ra = round_half_even(&(&a * &scale));
        let rb = round_half_even(&(&b * &scale));
        if ra == rb {
            let exact = a == b && (&a * &scale) == RBig::from(ra.clone());
            let (digits, e) = {
                let s = in_base(&ra.unsigned_abs(), base);
                // Rounding up may add a digit (9.99… → 10.0…).
                if s.len() as i64 > n {
                    (s[..s.len() - 1].to_string(), e + 1)
                } else {
                    (s, e)
                }
            };
            let text = layout(&digits, e, style);
            return Some(Printed {
                text: signed(
                    if negative {
                        Sign::Negative
                    } else {
                        Sign::Positive
                    },
                    &format!("{}{}", style.radix.prefix(), text),
                ),
                approximate: !exact,
            });
        }
        n -= 1;
    }
    None
}

/// Lays out significant digits `d₀d₁…` meaning `d₀.d₁… × base^e`.
fn layout(digits: &str, e: i64, style: Style) -> String {
    let mark = if style.decimal_comma { ',' } else { '.' };
    let n = digits.len() as i64;
    let plain_range = if style.scientific {
        false
    } else {
        (-7..n.max(22)).contains(&e)
    };
    if plain_range {
        if e >= n - 1 {
            return format!("{digits}{}", "0".repeat((e - (n - 1)) as usize));
        }
        if e >= 0 {
            let (int, frac) = digits.split_at(e as usize + 1);
            let frac = frac.trim_end_matches('0');
            return if frac.is_empty() {
                int.to_string()
            } else {
                format!("{int}{mark}{frac}")
            };
        }
        let frac = format!("{}{}", "0".repeat((-e - 1) as usize), digits);
        let frac = frac.trim_end_matches('0');
        return format!("0{mark}{frac}");
    }
    let (first, rest) = digits.split_at(1);
    let rest = rest.trim_end_matches('0');
    let mantissa = if rest.is_empty() {
        first.to_string()
    } else {
        format!("{first}{mark}{rest}")
    };
    if style.radix == Radix::Decimal {
        format!("{mantissa}e{e}")
    } else {
        format!("{mantissa}p{e}")
    }
}

/// `⌊log_base(x)⌋`, roughly (within one), for x > 0.
fn exponent_estimate(x: &RBig, base: u32) -> i64 {
    let bits = x.numerator().unsigned_abs().bit_len() as f64 - x.denominator().bit_len() as f64;
    (bits / (base as f64).log2()).floor() as i64
}

fn pow_base(base: u32, e: i64) -> RBig {
    let p = UBig::from(base).pow(e.unsigned_abs() as usize);
    if e >= 0 {
        RBig::from(p)
    } else {
        RBig::from_parts(IBig::ONE, p)
    }
}

/// Rounds to the nearest integer, halves to even.
fn round_half_even(x: &RBig) -> IBig {
    let f = x.floor();
    let rest = x - RBig::from(f.clone());
    let half = RBig::from_parts(IBig::ONE, UBig::from(2u8));
    match rest.cmp(&half) {
        std::cmp::Ordering::Less => f,
        std::cmp::Ordering::Greater => f + IBig::ONE,
        std::cmp::Ordering::Equal => {
            if (&f % IBig::from(2)).is_zero() {
                f
            } else {
                f + IBig::ONE
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn style(digits: usize) -> Style {
        Style {
            digits,
            radix: Radix::Decimal,
            scientific: false,
            decimal_comma: false,
        }
    }

    fn r(n: i64, d: u64) -> RBig {
        RBig::from_parts(IBig::from(n), UBig::from(d))
    }

    #[test]
    fn exact_values() {
        let p = |x: RBig| print_exact(&x, style(30));
        assert_eq!(p(r(7, 1)).text, "7");
        assert_eq!(p(r(-1, 8)).text, "-0.125");
        assert_eq!(p(r(1, 3)).text, "0.333333333333333333333333333333");
        assert!(p(r(1, 3)).approximate);
        assert_eq!(p(r(2, 3)).text, "0.666666666666666666666666666667");
        assert_eq!(p(r(1, 1_000_000_000)).text, "0.000000001");
        assert!(!p(r(1, 1_000_000_000)).approximate);
    }

    #[test]
    fn intervals_print_only_shared_digits() {
        // [1.2341, 1.2344] rounds to "1.234" at 4 digits, not alike at 5.
        let p = round_between(&r(12341, 10000), &r(12344, 10000), style(30)).map(|p| p.text);
        assert_eq!(p.as_deref(), Some("1.234"));
        // Straddling a rounding boundary (1.2345) loses that digit, and
        // 1.23|1.24 the next one.
        let p = round_between(&r(12344, 10000), &r(12346, 10000), style(30)).map(|p| p.text);
        assert_eq!(p.as_deref(), Some("1.23"));
        let p = round_between(&r(12344, 10000), &r(12356, 10000), style(30)).map(|p| p.text);
        assert_eq!(p.as_deref(), Some("1.2"));
        assert!(round_between(&r(-1, 10), &r(1, 10), style(30)).is_none());
        // 9.9996..9.9999 rounds to 10.00 at 4 digits.
        let p = round_between(&r(99996, 10000), &r(99999, 10000), style(4)).map(|p| p.text);
        assert_eq!(p.as_deref(), Some("10"));
    }
}
