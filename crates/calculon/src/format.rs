//! Printing numbers: every printed digit is certain.
//!
//! An exact integer prints in full; an exact fraction prints exactly when
//! its expansion ends soon, otherwise rounded (and marked approximate). A
//! ball prints the longest prefix, up to the asked number of significant
//! digits, on which both of its ends round to the same digits: the true
//! value rounds to what is printed, whatever it is inside the ball.

use dashu_base::{BitTest, Sign, UnsignedAbs};
use dashu_float::Repr;
use dashu_int::{IBig, UBig};
use dashu_ratio::RBig;

use crate::real::{Ball, NumError, Real};

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
    /// Any other base from 2 to 36 (`to base 3`): digits 0–9 then a–z, no
    /// prefix.
    Base(u32),
}

impl Radix {
    pub(crate) fn base(self) -> u32 {
        match self {
            Radix::Decimal => 10,
            Radix::Hex => 16,
            Radix::Octal => 8,
            Radix::Binary => 2,
            Radix::Base(b) => b,
        }
    }

    fn prefix(self) -> &'static str {
        match self {
            Radix::Decimal => "",
            Radix::Hex => "0x",
            Radix::Octal => "0o",
            Radix::Binary => "0b",
            Radix::Base(_) => "",
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
    /// A rounding asked for (`to 3 sf`, `to 2 dp`): exact values are
    /// rounded too, and the digits asked are shown, zeros included.
    pub(crate) round: Option<Round>,
    /// `m × 10^e` with `e` a multiple of 3 (`to eng`).
    pub(crate) engineering: bool,
}

/// A rounding asked for in words.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Round {
    /// This many significant digits (`to 3 sf`, `to 50 digits`).
    Significant(usize),
    /// This many digits after the point (`to 2 dp`).
    Places(usize),
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

/// Called between the large steps of printing (powers of ten, products,
/// divisions, decimal conversion of a million digits): an error stops
/// the printing, as the time limit and the cancel flag stop a
/// computation.
pub(crate) type Check<'a> = &'a dyn Fn() -> Result<(), NumError>;

/// A [`Check`] that never stops (small values).
pub(crate) fn unchecked() -> Result<(), NumError> {
    Ok(())
}

pub(crate) fn print_real(x: &Real, style: Style, check: Check<'_>) -> Result<Printed, NumError> {
    Ok(match x {
        Real::Exact(r) => print_exact(r, style, check)?,
        Real::Approx(b) => print_ball(b, style, check)?,
        // Callers turn multiples of π into balls first; this is a
        // readable fallback.
        Real::Pi(r, k) => Printed {
            text: format!("{}·π^{k}", print_exact(r, style, check)?.text),
            approximate: false,
        },
    })
}

fn print_exact(r: &RBig, style: Style, check: Check<'_>) -> Result<Printed, NumError> {
    let base = style.radix.base();
    if style.round.is_some() || style.engineering || matches!(style.radix, Radix::Base(_)) {
        if r.is_zero() {
            return Ok(Printed {
                text: layout_zero(style),
                approximate: false,
            });
        }
        if !(r.denominator().is_one() && style.round.is_none() && !style.engineering) {
            let f = (r.sign(), Frac::of(r));
            return Ok(
                round_between(&f, &f, style, check)?.unwrap_or_else(|| Printed {
                    text: layout_zero(style),
                    approximate: true,
                }),
            );
        }
    }
    if r.denominator().is_one() && !style.scientific {
        return Ok(Printed {
            text: signed(
                r.numerator().sign(),
                &format!(
                    "{}{}",
                    style.radix.prefix(),
                    in_base(&r.numerator().unsigned_abs(), base, check)?
                ),
            ),
            approximate: false,
        });
    }
    // A terminating expansion: the denominator divides a power of the base.
    if let Some(places) = terminating_places(r.denominator(), base)
        && places <= EXACT_FRACTION_DIGITS
        && !style.scientific
    {
        let scaled = r.numerator().clone() * IBig::from(UBig::from(base).pow(places))
            / IBig::from(r.denominator().clone());
        let digits = in_base(&scaled.unsigned_abs(), base, check)?;
        let text = place_point(&digits, places, style);
        return Ok(Printed {
            text: signed(
                r.numerator().sign(),
                &format!("{}{}", style.radix.prefix(), text),
            ),
            approximate: false,
        });
    }
    let f = (r.sign(), Frac::of(r));
    Ok(
        round_between(&f, &f, style, check)?.unwrap_or_else(|| Printed {
            text: "0".into(),
            approximate: true,
        }),
    )
}

fn print_ball(b: &Ball, style: Style, check: Check<'_>) -> Result<Printed, NumError> {
    let (lo, hi) = Frac::ends(b);
    if let Some(p) = round_between(&lo, &hi, style, check)? {
        return Ok(p);
    }
    // Not one digit is certain: the ball holds 0 or is wide.
    let rad = (Sign::Positive, Frac::dyadic(&b.rad.to_repr()));
    let r = round_between(&rad, &rad, Style { digits: 2, ..style }, check)?;
    let bound = r.map(|p| p.text).unwrap_or_else(|| "0".into());
    Ok(Printed {
        text: format!("0 (±{bound})"),
        approximate: true,
    })
}

/// The number of places after the point at which `1/den` terminates in
/// `base`, if it does in at most [`EXACT_FRACTION_DIGITS`] places (more
/// are never printed as a fraction: counting them all would divide a huge
/// denominator by 2 or 5 once per factor).
pub(crate) fn terminating_places(den: &UBig, base: u32) -> Option<usize> {
    let mut d = den.clone();
    let mut places = 0usize;
    let primes: &[u32] = match base {
        10 => &[2, 5],
        _ => &[2],
    };
    // Enough factors to pass the limit in any base (4 bits a hex digit).
    let cap = 4 * (EXACT_FRACTION_DIGITS + 1);
    for &p in primes {
        let p = UBig::from(p);
        let mut count = 0usize;
        while count <= cap && (&d % &p).is_zero() {
            d /= &p;
            count += 1;
        }
        if count > cap {
            return None;
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

/// Decimal conversion splits numbers above this many bits in two (by a
/// power of ten), so the budget is checked between the halves.
const SPLIT_BITS: usize = 1 << 18;

fn in_base(n: &UBig, base: u32, check: Check<'_>) -> Result<String, NumError> {
    Ok(match base {
        // Powers of two: a linear pass over the bits.
        16 => format!("{n:x}"),
        8 => format!("{n:o}"),
        2 => format!("{n:b}"),
        _ => digits_in(n, base, check)?,
    })
}

/// `n` in `base` (3 to 36), in halves above [`SPLIT_BITS`] so the budget
/// is checked between them: divide by `base^(k)` for the largest `k` of
/// the form `leaf·2^i` below `n`, convert both halves, the low one padded
/// to exactly `k` digits. The high half is never padded, so the text
/// never starts with a zero.
fn digits_in(n: &UBig, base: u32, check: Check<'_>) -> Result<String, NumError> {
    let radix = u8::try_from(base).unwrap_or(10);
    if n.bit_len() <= SPLIT_BITS {
        return Ok(n.in_radix(radix).to_string());
    }
    let bits_per_digit = f64::from(base).log2();
    // base^(leaf·2^i), each computed once: leaf digits fill about half a
    // piece that converts directly.
    let leaf = ((SPLIT_BITS as f64 / bits_per_digit) as usize / 2).max(1);
    let mut powers = vec![UBig::from(base).pow(leaf)];
    while powers[powers.len() - 1].bit_len() * 2 <= n.bit_len() + 1 {
        check()?;
        let last = &powers[powers.len() - 1];
        let next = last * last;
        powers.push(next);
    }
    let digits = (n.bit_len() as f64 / bits_per_digit) as usize + 1;
    let mut out = String::with_capacity(digits);
    digits_into(n, radix, powers.len(), leaf, &powers, None, &mut out, check)?;
    Ok(out)
}

/// Appends `n` in `radix`, left-padded with zeros to `width` digits when
/// given (`n < radix^width` then). `powers[i]` is `radix^(leaf·2^i)`;
/// only `powers[..level]` are used.
#[allow(clippy::too_many_arguments)]
fn digits_into(
    n: &UBig,
    radix: u8,
    level: usize,
    leaf: usize,
    powers: &[UBig],
    width: Option<usize>,
    out: &mut String,
    check: Check<'_>,
) -> Result<(), NumError> {
    if level == 0 || n.bit_len() <= SPLIT_BITS {
        let s = n.in_radix(radix).to_string();
        if let Some(w) = width {
            out.extend(std::iter::repeat_n('0', w.saturating_sub(s.len())));
        }
        out.push_str(&s);
        return Ok(());
    }
    let p = &powers[level - 1];
    // Unpadded and smaller than the divisor: the high half would be 0,
    // printed as a leading zero. Split by the next power down instead.
    if width.is_none() && n < p {
        return digits_into(n, radix, level - 1, leaf, powers, None, out, check);
    }
    let k = leaf << (level - 1);
    check()?;
    let (hi, lo) = dashu_base::DivRem::div_rem(n, p);
    check()?;
    let hi_width = width.map(|w| w.saturating_sub(k));
    digits_into(&hi, radix, level - 1, leaf, powers, hi_width, out, check)?;
    digits_into(&lo, radix, level - 1, leaf, powers, Some(k), out, check)
}

fn signed(sign: Sign, text: &str) -> String {
    if sign == Sign::Negative && text != "0" {
        format!("-{text}")
    } else {
        text.to_string()
    }
}

/// A run of digits in groups of three from the right, parted by `sep`:
/// `1234567` → `1,234,567`.
pub(crate) fn grouped(digits: &str, sep: char) -> String {
    let n = digits.chars().count();
    let mut out = String::with_capacity(digits.len() + n / 3 * sep.len_utf8());
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (n - i).is_multiple_of(3) {
            out.push(sep);
        }
        out.push(c);
    }
    out
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

/// A non-negative fraction `n/d`, never reduced: rounding a million-digit
/// ball needs only products and one division of integers, where a
/// reduced rational would compute gcds of huge numbers at every step.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Frac {
    n: UBig,
    d: UBig,
}

impl Frac {
    /// `|r|`.
    fn of(r: &RBig) -> Frac {
        Frac {
            n: r.numerator().unsigned_abs(),
            d: r.denominator().clone(),
        }
    }

    /// `|x|` for a binary float.
    fn dyadic(x: &Repr<2>) -> Frac {
        let n = x.significand().unsigned_abs();
        let e = x.exponent();
        if e >= 0 {
            Frac {
                n: n << e as usize,
                d: UBig::ONE,
            }
        } else {
            Frac {
                n,
                d: UBig::ONE << e.unsigned_abs(),
            }
        }
    }

    /// The ball's two ends as signed fractions over one power of two:
    /// `(sign, Frac)` each.
    fn ends(b: &Ball) -> ((Sign, Frac), (Sign, Frac)) {
        let (m, r) = (&b.mid, b.rad.to_repr());
        let e = m.exponent().min(r.exponent());
        let scale = |x: &Repr<2>| -> IBig { x.significand() << (x.exponent() - e) as usize };
        let (mi, ri) = (scale(m), scale(&r));
        let d = if e >= 0 {
            UBig::ONE
        } else {
            UBig::ONE << e.unsigned_abs()
        };
        let up = if e > 0 { e as usize } else { 0 };
        let part = |v: IBig| -> (Sign, Frac) {
            let sign = v.sign();
            (
                sign,
                Frac {
                    n: v.unsigned_abs() << up,
                    d: d.clone(),
                },
            )
        };
        (part(&mi - &ri), part(&mi + &ri))
    }

    fn is_zero(&self) -> bool {
        self.n.is_zero()
    }

    /// `self·base^k`, rounded to the nearest integer, halves to even (or
    /// up, away from zero, when `half_up`: a rounding asked for, as people
    /// round `1.005` to 2 places).
    fn round_scaled(
        &self,
        base: u32,
        k: i64,
        half_up: bool,
        check: Check<'_>,
    ) -> Result<UBig, NumError> {
        check()?;
        let p = UBig::from(base).pow(k.unsigned_abs() as usize);
        check()?;
        let (n, d) = if k >= 0 {
            (&self.n * &p, self.d.clone())
        } else {
            (self.n.clone(), &self.d * &p)
        };
        check()?;
        let (q, r) = (&n / &d, &n % &d);
        check()?;
        let twice = r << 1;
        Ok(match twice.cmp(&d) {
            std::cmp::Ordering::Less => q,
            std::cmp::Ordering::Greater => q + UBig::ONE,
            std::cmp::Ordering::Equal => {
                if half_up || q.bit(0) {
                    q + UBig::ONE
                } else {
                    q
                }
            }
        })
    }

    /// Whether `self·base^k` is exactly the integer `v`.
    fn scales_to(&self, base: u32, k: i64, v: &UBig) -> bool {
        let p = UBig::from(base).pow(k.unsigned_abs() as usize);
        if k >= 0 {
            &self.n * &p == v * &self.d
        } else {
            self.n == v * &self.d * &p
        }
    }

    /// `self ≥ base^e`.
    fn at_least_pow(&self, base: u32, e: i64) -> bool {
        let p = UBig::from(base).pow(e.unsigned_abs() as usize);
        if e >= 0 {
            self.n >= &p * &self.d
        } else {
            &self.n * &p >= self.d
        }
    }

    /// `⌊log_base(self)⌋`, roughly (within one), for `self > 0`.
    fn exponent_estimate(&self, base: u32) -> i64 {
        let bits = self.n.bit_len() as f64 - self.d.bit_len() as f64;
        (bits / (base as f64).log2()).floor() as i64
    }
}

/// The longest rounding, up to `style.digits` significant digits, that
/// every value in `[lo, hi]` shares; `None` when no digit is shared or the
/// interval holds 0.
fn round_between(
    lo: &(Sign, Frac),
    hi: &(Sign, Frac),
    style: Style,
    check: Check<'_>,
) -> Result<Option<Printed>, NumError> {
    let negative = hi.0 == Sign::Negative && !hi.1.is_zero();
    let positive = lo.0 == Sign::Positive && !lo.1.is_zero();
    if !negative && !positive {
        return Ok(None);
    }
    let (a, b) = if negative {
        (&hi.1, &lo.1)
    } else {
        (&lo.1, &hi.1)
    };
    let base = style.radix.base();
    // The exponent of the larger end: base^e ≤ b < base^(e+1).
    let mut e = b.exponent_estimate(base);
    while b.at_least_pow(base, e + 1) {
        e += 1;
    }
    while !b.at_least_pow(base, e) {
        e -= 1;
    }
    // Start from the digits asked (or the width allows), then step down.
    let mut n = match style.round {
        Some(Round::Significant(d)) => d.max(1) as i64,
        Some(Round::Places(p)) => e + 1 + p as i64,
        None => style.digits.max(1) as i64,
    };
    if n < 1 {
        // Below the last place asked: it rounds to 0 or to one unit there.
        let k = n - 1 - e;
        let ra = a.round_scaled(base, k, true, check)?;
        let rb = b.round_scaled(base, k, true, check)?;
        if ra != rb {
            return Ok(None);
        }
        let text = if ra.is_zero() {
            layout_zero(style)
        } else {
            layout(&in_base(&ra, base, check)?, -k, style)
        };
        return Ok(Some(Printed {
            text: signed(
                if negative && !ra.is_zero() {
                    Sign::Negative
                } else {
                    Sign::Positive
                },
                &text,
            ),
            approximate: true,
        }));
    }
    if a != b {
        // b − a over the common denominator.
        let width = Frac {
            n: &b.n * &a.d - &a.n * &b.d,
            d: &a.d * &b.d,
        };
        if !width.is_zero() {
            let we = width.exponent_estimate(base);
            n = n.min((e - we + 1).max(1));
        }
    }
    while n >= 1 {
        let k = n - 1 - e;
        let half_up = style.round.is_some();
        let ra = a.round_scaled(base, k, half_up, check)?;
        let rb = if a == b {
            ra.clone()
        } else {
            b.round_scaled(base, k, half_up, check)?
        };
        if ra == rb {
            let exact = a == b && a.scales_to(base, k, &ra);
            let (digits, e) = {
                let s = in_base(&ra, base, check)?;
                // Rounding up may add a digit (9.99… → 10.0…).
                if s.len() as i64 > n {
                    (s[..s.len() - 1].to_string(), e + 1)
                } else {
                    (s, e)
                }
            };
            let text = layout(&digits, e, style);
            return Ok(Some(Printed {
                text: signed(
                    if negative {
                        Sign::Negative
                    } else {
                        Sign::Positive
                    },
                    &format!("{}{}", style.radix.prefix(), text),
                ),
                approximate: !exact,
            }));
        }
        n -= 1;
    }
    Ok(None)
}

/// Lays out significant digits `d₀d₁…` meaning `d₀.d₁… × base^e`.
fn layout(digits: &str, e: i64, style: Style) -> String {
    let mark = if style.decimal_comma { ',' } else { '.' };
    if style.round.is_some() && !style.scientific && !style.engineering {
        return layout_asked(digits, e, style, mark);
    }
    let n = digits.len() as i64;
    if style.engineering {
        // The exponent down to a multiple of 3, the point moved with it.
        let e3 = e.div_euclid(3) * 3;
        let lead = (e - e3) as usize + 1;
        let padded = format!("{digits:0<lead$}");
        let (int, frac) = padded.split_at(lead);
        let frac = if style.round.is_some() {
            frac
        } else {
            frac.trim_end_matches('0')
        };
        let mantissa = if frac.is_empty() {
            int.to_string()
        } else {
            format!("{int}{mark}{frac}")
        };
        return format!("{mantissa}e{e3}");
    }
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
    let rest = if style.round.is_some() {
        rest
    } else {
        rest.trim_end_matches('0')
    };
    let mantissa = if rest.is_empty() {
        first.to_string()
    } else {
        format!("{first}{mark}{rest}")
    };
    match style.radix {
        Radix::Decimal => format!("{mantissa}e{e}"),
        Radix::Base(b) => format!("{mantissa}×{b}^{e}"),
        _ => format!("{mantissa}p{e}"),
    }
}

/// Digits `d₀d₁…` meaning `d₀.d₁… × base^e`, written out in full with the
/// digits a rounding asked for kept, zeros included (`to 2 dp`: `1.50`).
fn layout_asked(digits: &str, e: i64, style: Style, mark: char) -> String {
    let n = digits.len() as i64;
    let (int, frac) = if e >= n - 1 {
        (
            format!("{digits}{}", "0".repeat((e - (n - 1)) as usize)),
            String::new(),
        )
    } else if e >= 0 {
        let (i, f) = digits.split_at(e as usize + 1);
        (i.to_string(), f.to_string())
    } else {
        (
            "0".to_string(),
            format!("{}{digits}", "0".repeat((-e - 1) as usize)),
        )
    };
    let frac = match style.round {
        Some(Round::Places(p)) => format!("{frac:0<p$}"),
        _ => frac,
    };
    if frac.is_empty() {
        int
    } else {
        format!("{int}{mark}{frac}")
    }
}

/// Zero as a rounding asked for shows it (`to 2 dp`: `0.00`).
fn layout_zero(style: Style) -> String {
    let mark = if style.decimal_comma { ',' } else { '.' };
    match style.round {
        Some(Round::Places(p)) if p > 0 => format!("0{mark}{}", "0".repeat(p)),
        _ => "0".into(),
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
            round: None,
            engineering: false,
        }
    }

    fn r(n: i64, d: u64) -> RBig {
        RBig::from_parts(IBig::from(n), UBig::from(d))
    }

    #[test]
    fn exact_values() {
        let p = |x: RBig| print_exact(&x, style(30), &unchecked).unwrap();
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
        let round_between = |a: &RBig, b: &RBig, s: Style| {
            round_between(
                &(a.sign(), Frac::of(a)),
                &(b.sign(), Frac::of(b)),
                s,
                &unchecked,
            )
            .unwrap()
        };
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
