//! The one error type: what went wrong, and where in the input.

use std::ops::Range;

/// A byte range in the input line.
pub type Span = Range<usize>;

/// A number of bits, possibly far beyond `u64` (`1e100!` needs about
/// 3.3·10^102): an estimate, printed with its digits.
#[derive(Clone, Copy, Debug)]
pub struct Bits(pub f64);

impl PartialEq for Bits {
    fn eq(&self, other: &Self) -> bool {
        self.0.to_bits() == other.0.to_bits()
    }
}

impl Eq for Bits {}

impl Bits {
    /// About how many decimal digits that many bits hold.
    pub fn digits(self) -> f64 {
        self.0 * std::f64::consts::LOG10_2
    }
}

/// A large count as people read it: `2,525,223` below a billion,
/// `9.96e101` above, "more than 1e308" past what a float holds.
fn count(x: f64) -> String {
    if !x.is_finite() {
        return "more than 1e308".into();
    }
    if x < 1e15 {
        return crate::format::grouped(&(x.round() as u64).to_string(), ',');
    }
    format!("{x:.3e}").replace("e", "e+").replace("e+-", "e-")
}

impl std::fmt::Display for Bits {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&count(self.0))
    }
}

/// An error with the part of the input it is about.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{kind}")]
pub struct CalcError {
    /// What went wrong.
    pub kind: ErrorKind,
    /// The bytes of the input it is about (empty at the end of the input).
    pub span: Span,
}

impl CalcError {
    pub(crate) fn new(kind: ErrorKind, span: Span) -> Self {
        CalcError { kind, span }
    }

    /// The input line with a caret line under the erroneous part, then the
    /// message: what a terminal shows.
    pub fn render(&self, input: &str) -> String {
        let start = input
            .get(..self.span.start.min(input.len()))
            .map_or(0, |s| s.chars().count());
        let width = input
            .get(self.span.start.min(input.len())..self.span.end.min(input.len()))
            .map_or(1, |s| s.chars().count().max(1));
        format!(
            "{input}\n{}{} {}",
            " ".repeat(start),
            "^".repeat(width),
            self.kind
        )
    }
}

/// What went wrong.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ErrorKind {
    /// A character the language has no use for.
    #[error("unexpected character {0:?}")]
    UnexpectedChar(char),
    /// A malformed number literal.
    #[error("malformed number {text:?}: {why}")]
    BadNumber {
        /// The literal as written.
        text: String,
        /// What is wrong with it.
        why: &'static str,
    },
    /// A statement with too many tokens.
    #[error("the expression is too long: {tokens} tokens, the limit is {limit}")]
    TooLong {
        /// Its length.
        tokens: usize,
        /// The limit.
        limit: usize,
    },
    /// An empty line.
    #[error("nothing to calculate")]
    Empty,
    /// A token where another was expected.
    #[error("expected {expected}, found {found}")]
    Unexpected {
        /// What was found.
        found: String,
        /// What would have fitted.
        expected: &'static str,
    },
    /// A name that is not a unit, constant, variable or function.
    #[error("unknown name {name:?}{}", suggestion.as_ref().map(|s| format!("; did you mean {s:?}?")).unwrap_or_default())]
    UnknownName {
        /// The name as written.
        name: String,
        /// The closest known name, within two edits.
        suggestion: Option<String>,
    },
    /// A single-letter name with no value (`x` in `sin(x)/x`): the line
    /// is a function of it, to define or plot.
    #[error("{name} has no value: this is a function of {name} (plot it, or define f({name}) = …)")]
    FreeVariable {
        /// The name.
        name: String,
    },
    /// A function called with the wrong number of arguments.
    #[error("{name} takes {expected} argument{}, given {found}", if *expected == 1 { "" } else { "s" })]
    Arity {
        /// The function.
        name: String,
        /// How many it takes.
        expected: usize,
        /// How many it got.
        found: usize,
    },
    /// A value outside a function's domain.
    #[error("{0}")]
    Domain(String),
    /// Division by an exact zero.
    #[error("division by zero")]
    DivisionByZero,
    /// An exact number would take more memory than allowed.
    #[error(
        "the exact result would have about {} digits ({bits} bits), over the limit of {} bits \
         (about {} digits)",
        count(bits.digits()),
        count(*limit as f64),
        count(Bits(*limit as f64).digits())
    )]
    TooBig {
        /// The estimated size.
        bits: Bits,
        /// The limit in force.
        limit: u64,
    },
    /// A number beyond the float exponent range.
    #[error("the result is too large to represent")]
    Overflow,
    /// An exponential beyond the float exponent range, either way.
    #[error(
        "the result is too {} to represent: about 10^{}{}, a positive number",
        if *negative { "small" } else { "large" },
        if *negative { "-" } else { "" },
        count(decimal_exponent.0)
    )]
    OutOfRange {
        /// Whether the exponent is negative (the value tiny).
        negative: bool,
        /// About how many decades the exponent spans.
        decimal_exponent: Bits,
    },
    /// The caller cancelled the evaluation.
    #[error("cancelled")]
    Cancelled,
    /// The time budget ran out.
    #[error("stopped after {0} ms: the evaluation took too long")]
    TimedOut(u64),
    /// A step that cannot stop part-way (the gcd that reduces a fraction
    /// of huge numbers) was refused before it started.
    #[error(
        "not started: reducing this fraction of huge numbers would take at least {:.1} s, more than the {limit_ms} ms allowed (--timeout)",
        *estimate_ms as f64 / 1000.0
    )]
    WouldTakeTooLong {
        /// The cost estimate.
        estimate_ms: u64,
        /// The time limit.
        limit_ms: u64,
    },
    /// More precision did not settle a question (the sign of a value very
    /// close to zero, a rounding at a boundary).
    #[error("cannot decide at {bits} bits of precision: {what}")]
    Undecidable {
        /// The precision tried last.
        bits: usize,
        /// What could not be decided.
        what: &'static str,
    },
    /// Units that do not fit the operation.
    #[error("cannot {op} {left} and {right}")]
    Units {
        /// What was attempted ("add", "convert").
        op: &'static str,
        /// The left operand's unit.
        left: String,
        /// The right operand's unit.
        right: String,
    },
    /// A conversion between different dimensions.
    #[error("cannot convert {from} to {to}")]
    Convert {
        /// The value's unit.
        from: String,
        /// The target unit.
        to: String,
    },
    /// An operation that needs a number of a certain kind.
    #[error("{0}")]
    Needs(String),
    /// User functions called each other too deep.
    #[error("recursion deeper than {0} calls")]
    Recursion(usize),
    /// An assignment to a built-in name, or a malformed definition.
    #[error("{0}")]
    Definition(String),
    /// A line of input that is not UTF-8 text.
    #[error("line {line} is not UTF-8 text: byte {column} is 0x{byte:02x}")]
    NotText {
        /// The line, counted from 1.
        line: usize,
        /// The first byte that is not part of a UTF-8 character.
        byte: u8,
        /// Its place in the line, counted from 1.
        column: usize,
    },
    /// The engine failed on this line (a bug): the line is skipped, the
    /// session goes on.
    #[error("internal error on this line ({0}); the line was skipped, please report it")]
    Internal(String),
}
