//! calculon: a calculator engine. One line in, one answer out: exact
//! where the result is exact, every printed digit certain where it is
//! not, with units, user functions and graphs.
//!
//! ```
//! use calculon::Calculator;
//!
//! let mut calc = Calculator::default();
//! assert_eq!(calc.evaluate("(10^100 + 1) - 10^100")?.display(), "= 1");
//! assert_eq!(calc.evaluate("sqrt 2")?.display(), "≈ 1.41421356237309504880168872421");
//! assert_eq!(calc.evaluate("6/2(1+2)")?.reading, "6 / (2 × (1 + 2))");
//! assert_eq!(calc.evaluate("1.74 m to ft in")?.display(), "≈ 5 ft 8.5 in");
//! calc.evaluate("f(x) = x^2 + 1")?;
//! assert_eq!(calc.evaluate("f(3)")?.display(), "= 10");
//! assert_eq!(calc.evaluate("ans * 2")?.display(), "= 20");
//! # Ok::<(), calculon::CalcError>(())
//! ```
//!
//! The pieces, in the order a line meets them: `lex` (exact literals),
//! `parse` (precedence, implicit multiplication, spans), `eval` (names,
//! definitions, the retry at more bits), `quantity` and `units` (SI
//! values with shown units), `complex` and `real` (exact rationals,
//! multiples of π, certified balls over dashu), `format` (printing only
//! certain digits), `plot` (sampling for graphs).

#[cfg(feature = "gui")]
pub mod app;
mod budget;
mod complex;
mod constants;
mod dates;
mod error;
mod eval;
mod format;
mod functions;
mod lex;
mod mag;
mod parse;
mod plot;
mod quantity;
mod rates;
mod real;
mod reference;
mod series;
mod units;
mod words;

pub use budget::{CancelFlag, Stop};
pub use error::{Bits, CalcError, ErrorKind, Span};
pub use eval::{
    Answer, AnswerKind, Calculator, Column, MAX_DIGITS, Notation, PlotRequest, Settings,
};
pub use format::Radix;
pub use plot::{Graph, sample};
pub use rates::{MAX_CURRENCIES, MAX_RATE_CHARS, Rates, RatesError, use_rates};
pub use reference::{Entry, EntryKind};

/// Every built-in function with the fewest and most arguments it takes
/// (`usize::MAX`: any number), for tests and fuzzing that call each one.
pub fn builtin_functions() -> impl Iterator<Item = (&'static str, usize, usize)> {
    functions::NAMES.iter().filter_map(|&name| {
        let (lo, hi) = functions::builtin_arity(name)?;
        Some((name, lo, hi))
    })
}

/// The README's examples, run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
