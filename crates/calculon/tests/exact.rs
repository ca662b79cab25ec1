//! Exact arithmetic against a rational oracle (i128 numerator and
//! denominator, checked), and round trips of printing and parsing.
//! `PROPTEST_CASES` sets the number of cases (default 256).

use calculon::{Calculator, ErrorKind};
use proptest::prelude::*;

/// A reduced fraction; `None` when an operation overflows i128.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Rat(i128, i128);

fn gcd(a: i128, b: i128) -> i128 {
    let (mut a, mut b) = (a.abs(), b.abs());
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

impl Rat {
    fn new(n: i128, d: i128) -> Option<Rat> {
        if d == 0 {
            return None;
        }
        let g = gcd(n, d).max(1);
        let s = if d < 0 { -1 } else { 1 };
        Some(Rat(s * n / g, s * d / g))
    }
    fn add(self, o: Rat) -> Option<Rat> {
        Rat::new(
            self.0
                .checked_mul(o.1)?
                .checked_add(o.0.checked_mul(self.1)?)?,
            self.1.checked_mul(o.1)?,
        )
    }
    fn neg(self) -> Rat {
        Rat(-self.0, self.1)
    }
    fn mul(self, o: Rat) -> Option<Rat> {
        Rat::new(self.0.checked_mul(o.0)?, self.1.checked_mul(o.1)?)
    }
    fn recip(self) -> Option<Rat> {
        Rat::new(self.1, self.0)
    }
    fn pow(self, k: i32) -> Option<Rat> {
        let mut acc = Rat(1, 1);
        for _ in 0..k.unsigned_abs() {
            acc = acc.mul(self)?;
        }
        if k < 0 { acc.recip() } else { Some(acc) }
    }
}

#[derive(Clone, Debug)]
enum E {
    /// An integer, or a decimal with `places` digits after the point.
    Lit(i64, u32),
    Add(Box<E>, Box<E>),
    Sub(Box<E>, Box<E>),
    Mul(Box<E>, Box<E>),
    Div(Box<E>, Box<E>),
    Pow(Box<E>, i32),
    Neg(Box<E>),
}

/// Why the oracle has no value.
#[derive(Debug, PartialEq)]
enum NoValue {
    DivisionByZero,
    Overflow,
}

fn eval(e: &E) -> Result<Rat, NoValue> {
    let over = |r: Option<Rat>| r.ok_or(NoValue::Overflow);
    Ok(match e {
        E::Lit(n, places) => over(Rat::new(*n as i128, 10i128.pow(*places)))?,
        E::Add(a, b) => over(eval(a)?.add(eval(b)?))?,
        E::Sub(a, b) => over(eval(a)?.add(eval(b)?.neg()))?,
        E::Mul(a, b) => over(eval(a)?.mul(eval(b)?))?,
        E::Div(a, b) => {
            let d = eval(b)?;
            if d.0 == 0 {
                return Err(NoValue::DivisionByZero);
            }
            over(eval(a)?.mul(over(d.recip())?))?
        }
        E::Pow(a, k) => {
            let base = eval(a)?;
            if base.0 == 0 && *k < 0 {
                return Err(NoValue::DivisionByZero);
            }
            over(base.pow(*k))?
        }
        E::Neg(a) => eval(a)?.neg(),
    })
}

/// Fully parenthesised text in calculon's syntax.
fn text(e: &E) -> String {
    match e {
        E::Lit(n, 0) => format!("({n})"),
        E::Lit(n, places) => {
            let sign = if *n < 0 { "-" } else { "" };
            let digits = format!("{:0width$}", n.unsigned_abs(), width = *places as usize + 1);
            let (int, frac) = digits.split_at(digits.len() - *places as usize);
            format!("({sign}{int}.{frac})")
        }
        E::Add(a, b) => format!("({} + {})", text(a), text(b)),
        E::Sub(a, b) => format!("({} - {})", text(a), text(b)),
        E::Mul(a, b) => format!("({} * {})", text(a), text(b)),
        E::Div(a, b) => format!("({} / {})", text(a), text(b)),
        E::Pow(a, k) => format!("({}^({k}))", text(a)),
        E::Neg(a) => format!("(-{})", text(a)),
    }
}

fn expr() -> impl Strategy<Value = E> {
    let leaf = prop_oneof![
        (-1000i64..1000).prop_map(|n| E::Lit(n, 0)),
        (-100_000i64..100_000, 1u32..4).prop_map(|(n, p)| E::Lit(n, p)),
    ];
    leaf.prop_recursive(4, 24, 2, |inner| {
        prop_oneof![
            (inner.clone(), inner.clone()).prop_map(|(a, b)| E::Add(Box::new(a), Box::new(b))),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| E::Sub(Box::new(a), Box::new(b))),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| E::Mul(Box::new(a), Box::new(b))),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| E::Div(Box::new(a), Box::new(b))),
            (inner.clone(), -3i32..4).prop_map(|(a, k)| E::Pow(Box::new(a), k)),
            inner.prop_map(|a| E::Neg(Box::new(a))),
        ]
    })
}

proptest! {
    #[test]
    fn exact_expressions_match_the_rational_oracle(e in expr()) {
        let input = format!("{} to fraction", text(&e));
        let got = Calculator::default().evaluate(&input);
        match eval(&e) {
            Ok(Rat(n, d)) => {
                let value = got.map(|a| a.value).map_err(|e| e.to_string());
                prop_assert_eq!(value, Ok(format!("{n}/{d}")), "input {}", input);
            }
            Err(NoValue::DivisionByZero) => {
                prop_assert_eq!(got.map_err(|e| e.kind), Err(ErrorKind::DivisionByZero), "input {}", input);
            }
            // Beyond i128: the oracle cannot say.
            Err(NoValue::Overflow) => {}
        }
    }

    /// What is printed reads back as the same value: exactly for exact
    /// output, and to the same printed digits for rounded output.
    #[test]
    fn printing_then_reading_gives_the_same_print(n in -10_000_000i64..10_000_000, d in 1i64..10_000, digits in 5usize..60) {
        let settings = calculon::Settings { digits, ..calculon::Settings::default() };
        let mut calc = Calculator::new(settings);
        let first = calc.evaluate(&format!("{n}/{d}")).map_err(|e| e.to_string());
        prop_assert!(first.is_ok());
        let first = first.unwrap_or_else(|_| unreachable!());
        let again = calc.evaluate(&first.value).map_err(|e| e.to_string());
        prop_assert!(again.is_ok(), "{} did not read back", first.value);
        let again = again.unwrap_or_else(|_| unreachable!());
        prop_assert_eq!(&again.value, &first.value);
        prop_assert!(!again.approximate, "a printed value is exact: {}", again.value);
        if !first.approximate {
            let back = calc.evaluate(&format!("({}) - {n}/{d} to fraction", first.value)).map(|a| a.value);
            prop_assert_eq!(back, Ok("0/1".to_string()));
        }
    }

    /// Converting there and back gives the value exactly.
    #[test]
    fn unit_round_trips_are_exact(n in -100_000i64..100_000, d in 1i64..1000, pair in 0usize..8) {
        let pairs = [("m", "ft"), ("km", "mi"), ("L", "gal"), ("kg", "lb"), ("h", "s"), ("deg", "rad"), ("kWh", "BTU"), ("GiB", "kB")];
        let (a, b) = pairs[pair];
        let mut calc = Calculator::default();
        let there = calc.evaluate(&format!("({n}/{d}) {a} to {b}"));
        prop_assert!(there.is_ok());
        let back = calc.evaluate(&format!("ans to {a}")).map(|x| x.value);
        let direct = calc.evaluate(&format!("({n}/{d}) {a}")).map(|x| x.value);
        prop_assert_eq!(back, direct);
    }
}

/// `n/d` rounded half away from zero at 10^-k (k may be negative): the
/// integer `m` with `m·10^-k` nearest, as people round.
fn round_at(n: i128, d: i128, k: i32) -> i128 {
    let (num, den) = if k >= 0 {
        (n * 10i128.pow(k as u32), d)
    } else {
        (n, d * 10i128.pow((-k) as u32))
    };
    let (q, r) = (num / den, num % den);
    if 2 * r.abs() >= den.abs() {
        q + num.signum() * den.signum()
    } else {
        q
    }
}

/// A printed decimal (`≈ -12.50`, `= 1200`) as `m·10^-k`.
fn decimal_of(text: &str) -> (i128, i32) {
    let t = text.trim_start_matches(['=', '≈', ' ']);
    let (int, frac) = t.split_once('.').unwrap_or((t, ""));
    let digits = format!("{int}{frac}");
    let m = digits
        .parse()
        .unwrap_or_else(|e| panic!("{text:?} is not a decimal: {e}"));
    (m, frac.len() as i32)
}

proptest! {
    /// `x to N sf` and `x to P dp` print the value rounded half away from
    /// zero at that digit, with the digits asked (zeros kept).
    #[test]
    fn roundings_asked_in_words_round_as_people_do(
        n in -99_999i64..99_999,
        d in 1i64..2_000,
        sf in 1u32..12,
        dp in 0u32..9,
    ) {
        let mut calc = Calculator::default();
        let (n, d) = (i128::from(n), i128::from(d));
        prop_assume!(n != 0);
        // The exponent of |n/d|: 10^e ≤ |n/d| < 10^(e+1).
        let mut e = 0i32;
        while n.abs() >= d * 10i128.pow((e + 1).max(0) as u32) && e < 10 { e += 1; }
        while n.abs() * 10i128.pow((-e).max(0) as u32) < d * 10i128.pow(e.max(0) as u32) { e -= 1; }
        let answer = |calc: &mut Calculator, line: String| {
            calc.evaluate(&line).map(|a| a.display()).unwrap_or_else(|e| format!("error: {e}"))
        };
        let shown = answer(&mut calc, format!("{n}/{d} to {sf} sf"));
        let k = sf as i32 - 1 - e;
        let (m, places) = decimal_of(&shown);
        let want = round_at(n, d, k);
        // The same number at the printed places: m·10^-places = want·10^-k.
        if places >= k {
            prop_assert_eq!(m, want * 10i128.pow((places - k) as u32), "{}", shown);
        } else {
            prop_assert_eq!(m * 10i128.pow((k - places) as u32), want, "{}", shown);
        }
        // Rounding up may carry into a new digit (9.996 → 10.0 at 3 sf):
        // then the last place asked is one further left.
        let k = if want.abs() >= 10i128.pow(sf) { k - 1 } else { k };
        prop_assert!(places == k.max(0), "{} shows {} places, not {}", shown, places, k.max(0));
        let shown = answer(&mut calc, format!("{n}/{d} to {dp} dp"));
        let (m, places) = decimal_of(&shown);
        prop_assert_eq!(places, dp as i32, "{}", shown);
        prop_assert_eq!(m, round_at(n, d, dp as i32), "{}", shown);
    }
}
