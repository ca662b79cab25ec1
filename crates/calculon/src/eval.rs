//! The calculator: names, definitions, evaluation and the answer.
//!
//! Each line is parsed once, then evaluated at a working precision chosen
//! from the digits asked for. When a ball comes out too wide to print
//! those digits, or an operation cannot decide (a sign, a floor) at that
//! precision, the line is evaluated again with twice the bits, up to
//! sixteen times the first precision.

use std::collections::HashMap;
use std::time::Duration;

use dashu_base::{BitTest, Sign, UnsignedAbs};
use dashu_ratio::RBig;

use crate::budget::{Budget, CancelFlag, Stop};
use crate::complex::Number;
use crate::constants::{MathConstant, math_constant, physical};
use crate::error::{CalcError, ErrorKind, Span};
use crate::format::{Printed, Radix, Round, Style, print_real};
use crate::functions::{self, builtin_arity};
use crate::lex::{LexOptions, lex};
use crate::mag::Mag;
use crate::parse::{
    BinOp, Expr, ExprKind, Format, NameKind, Names, Statement, Target, is_keyword, parse,
    parse_closing,
};
use crate::plot::Graph;
use crate::quantity::{QtyError, Quantity, describe};
use crate::real::{NumError, Real, Work};
use crate::units::{Unit, table};

/// Settings of a calculator.
#[derive(Clone, Debug)]
pub struct Settings {
    /// Significant digits of approximate results (default 30).
    pub digits: usize,
    /// `,` as the decimal mark and `.` as the digit-group mark; arguments
    /// are then separated by `;`.
    pub decimal_comma: bool,
    /// The most bits an exact number may take (default 2²³, about 2.5
    /// million decimal digits): the memory budget.
    pub max_bits: u64,
    /// The time one line may take (default 10 s); `None` for no limit.
    pub time_limit: Option<Duration>,
    /// How deep user functions may call each other (default 1000).
    pub max_depth: usize,
    /// How results show when a line asks for no format: as they are
    /// (exact or rounded), in scientific or engineering notation, or as
    /// fractions where they are exact.
    pub notation: Notation,
    /// Digits of whole parts in groups of three, parted by thin spaces
    /// (`1 234 567.89`), which read back as one number (default off; the
    /// window turns it on).
    pub group_digits: bool,
    /// The clock for `now` and `today`, in Unix seconds (`None`: the
    /// system's clock). Tests fix it.
    pub now: Option<i64>,
    /// The local time zone, by IANA name (`None`: the system's zone).
    pub time_zone: Option<String>,
}

/// The window's notation choice (see [`Settings::notation`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Notation {
    /// Exact where exact, rounded otherwise.
    #[default]
    Auto,
    /// `1.234e5`.
    Scientific,
    /// `123.4e3`.
    Engineering,
    /// `3/4` where exact (rounded values stay decimals).
    Fraction,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            digits: 30,
            decimal_comma: false,
            max_bits: 1 << 23,
            time_limit: Some(Duration::from_secs(10)),
            max_depth: 1000,
            notation: Notation::Auto,
            group_digits: false,
            now: None,
            time_zone: None,
        }
    }
}

/// The most digits a setting may ask for.
pub const MAX_DIGITS: usize = 1_000_000;

/// What a line produced.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Answer {
    /// How the input was read, every implicit operator and grouping made
    /// explicit: `6 / (2 × (1 + 2))`.
    pub reading: String,
    /// The result: `0.333333333333333333333333333333`, `5 ft 8.5 in`,
    /// `f(x) = x^2 + 1`.
    pub value: String,
    /// The value is rounded (its last digit is correctly rounded; every
    /// digit before it is certain).
    pub approximate: bool,
    /// An exact rational result that prints rounded, as a fraction
    /// (`1/3`).
    pub fraction: Option<String>,
    /// What kind of line it was.
    pub kind: AnswerKind,
    /// What the value rests on, shown after it: the day of the exchange
    /// rates a conversion between currencies used.
    pub note: Option<String>,
}

impl Answer {
    /// The answer as one line: `= 42`, `≈ 0.3333… (= 1/3)`.
    pub fn display(&self) -> String {
        match &self.kind {
            AnswerKind::Value => {
                let mark = if self.approximate { "≈" } else { "=" };
                let line = match &self.fraction {
                    Some(f) => format!("{mark} {} (= {f})", self.value),
                    None => format!("{mark} {}", self.value),
                };
                match &self.note {
                    Some(n) => format!("{line} ({n})"),
                    None => line,
                }
            }
            AnswerKind::Definition | AnswerKind::Plot(_) => self.value.clone(),
        }
    }
}

/// What kind of line produced an answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AnswerKind {
    /// An expression's value (also stored as `ans`).
    Value,
    /// A variable or function definition.
    Definition,
    /// A `plot` command: what to draw.
    Plot(PlotRequest),
}

/// The answers to a pasted column.
#[derive(Clone, Debug)]
pub struct Column {
    /// One entry per input line: `None` for blank lines and comments.
    pub lines: Vec<Option<Result<Answer, CalcError>>>,
    /// The sum of the values, when asked for.
    pub total: Option<Result<Answer, CalcError>>,
}

/// A pasted line as the calculator reads it (see
/// [`Calculator::evaluate_column`]).
fn clean_pasted_line(raw: &str) -> String {
    raw.chars()
        .map(|c| if c == '\t' || c == '\r' { ' ' } else { c })
        .collect()
}

impl PlotRequest {
    /// The functions to draw: the expression's parts between commas that
    /// are outside parentheses and not digit groups (`sin x, cos x`).
    pub fn functions(&self) -> Vec<String> {
        split_functions(&self.expression)
    }

    /// A plot of `expression` in `variable` over `[from, to]` (each an
    /// expression): what the window's plot button makes.
    pub fn new(expression: &str, variable: &str, from: &str, to: &str) -> Self {
        PlotRequest {
            expression: expression.to_string(),
            variable: variable.to_string(),
            from: from.to_string(),
            to: to.to_string(),
        }
    }
}

/// A function of one variable to draw, from a `plot` line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlotRequest {
    /// The expression, as read.
    pub expression: String,
    /// The variable (`x`).
    pub variable: String,
    /// The range of the variable.
    pub from: String,
    /// The end of the range.
    pub to: String,
}

#[derive(Clone, Debug)]
struct UserFunction {
    params: Vec<String>,
    body: Expr,
}

/// A calculator: settings, variables, user functions and `ans`.
#[derive(Clone, Debug)]
pub struct Calculator {
    settings: Settings,
    variables: HashMap<String, Quantity>,
    functions: HashMap<String, UserFunction>,
    /// The definitions as typed, in order, for saving.
    definitions: Vec<(String, String)>,
    ans: Option<Quantity>,
    /// How an evaluation read what could be read two ways (a temperature
    /// added as absolute or as a difference), for the answer's note.
    readings: std::cell::RefCell<Vec<String>>,
}

/// Why an evaluation attempt stopped.
enum Fail {
    /// More precision may settle it.
    Retry,
    Error(CalcError),
}

impl From<CalcError> for Fail {
    fn from(e: CalcError) -> Self {
        Fail::Error(e)
    }
}

type Eval<T> = Result<T, Fail>;

/// Arguments bound in a user function's body.
struct Scope<'a> {
    bindings: &'a [(String, Quantity)],
    depth: usize,
}

/// Attempts at increasing precision: ×1, ×2, ×4, ×8, ×16.
const ATTEMPTS: u32 = 5;

impl Default for Calculator {
    fn default() -> Self {
        Calculator::new(Settings::default())
    }
}

impl Calculator {
    /// A calculator with no definitions.
    pub fn new(settings: Settings) -> Self {
        Calculator {
            settings,
            variables: HashMap::new(),
            functions: HashMap::new(),
            definitions: Vec::new(),
            ans: None,
            readings: std::cell::RefCell::new(Vec::new()),
        }
    }

    /// Every name this calculator knows that starts with `prefix` (the
    /// user's, functions, constants and units without prefixes), sorted,
    /// each once: for completion.
    pub fn names_starting(&self, prefix: &str) -> Vec<String> {
        let wanted = |n: &str| n.starts_with(prefix) && n != prefix;
        let mut out: Vec<String> = Vec::new();
        for n in self.variables.keys().chain(self.functions.keys()) {
            if wanted(n) {
                out.push(n.clone());
            }
        }
        for n in functions::NAMES
            .iter()
            .copied()
            .chain(crate::constants::names())
        {
            if wanted(n) {
                out.push(n.to_string());
            }
        }
        for n in table().names() {
            if wanted(n) {
                out.push(n.to_string());
            }
        }
        out.sort();
        out.dedup();
        out
    }

    /// The settings in force.
    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    /// Changes the settings (digits are clamped to 1..=[`MAX_DIGITS`]).
    pub fn set_settings(&mut self, mut settings: Settings) {
        settings.digits = settings.digits.clamp(1, MAX_DIGITS);
        self.settings = settings;
    }

    /// Evaluates one line: an expression (optionally with `to UNIT` or
    /// `to hex`), a definition (`x = 5`, `f(x) = x^2 + 1`) or a `plot`.
    pub fn evaluate(&mut self, line: &str) -> Result<Answer, CalcError> {
        self.evaluate_with(line, &CancelFlag::new())
    }

    /// [`evaluate`](Self::evaluate), stopping early when `cancel` is
    /// raised from another thread.
    ///
    /// A panic anywhere below (a bug, here or in a library) is caught and
    /// becomes this line's error: the lines before and after it, and the
    /// definitions made so far, are untouched.
    pub fn evaluate_with(&mut self, line: &str, cancel: &CancelFlag) -> Result<Answer, CalcError> {
        let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            self.evaluate_unguarded(line, cancel)
        }));
        caught.unwrap_or_else(|payload| {
            let what = payload
                .downcast_ref::<&str>()
                .map(|s| (*s).to_owned())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "no message".to_owned());
            Err(CalcError::new(ErrorKind::Internal(what), 0..line.len()))
        })
    }

    fn evaluate_unguarded(&mut self, line: &str, cancel: &CancelFlag) -> Result<Answer, CalcError> {
        #[cfg(test)]
        if line == tests::PANICS {
            panic!("a bug, as a test");
        }
        // A comment runs from `#` to the end of the line.
        let code = &line[..comment_start(line)];
        // Statements separated by `;` outside parentheses (inside them, with
        // the decimal comma, `;` separates arguments) run in turn; the
        // answer is the last one's, its reading all of theirs.
        let mut answer: Option<Answer> = None;
        let mut readings = Vec::new();
        for (start, piece) in statements(code) {
            if piece.trim().is_empty() {
                continue;
            }
            let one = self.evaluate_statement(piece, cancel).map_err(|mut e| {
                e.span = e.span.start + start..e.span.end + start;
                e
            })?;
            readings.push(one.reading.clone());
            answer = Some(one);
        }
        let Some(mut answer) = answer else {
            return Err(CalcError::new(ErrorKind::Empty, 0..line.len()));
        };
        if readings.len() > 1 {
            answer.reading = readings.join("; ");
        }
        Ok(answer)
    }

    /// A line about dates and times (see [`crate::dates`]), if it is one;
    /// a span asked in a unit of time is converted by the unit engine.
    fn evaluate_date(
        &mut self,
        line: &str,
        cancel: &CancelFlag,
    ) -> Option<Result<Answer, CalcError>> {
        let defined = |n: &str| self.variables.contains_key(n) || self.functions.contains_key(n);
        let context = crate::dates::Context {
            now: self.settings.now,
            zone: self.settings.time_zone.as_deref(),
            defined: &defined,
        };
        let outcome = crate::dates::try_line(line, &context)?;
        Some(outcome.and_then(|o| match o {
            crate::dates::Outcome::Shown { reading, value } => Ok(Answer {
                reading,
                value,
                approximate: false,
                fraction: None,
                note: None,
                kind: AnswerKind::Value,
            }),
            crate::dates::Outcome::Convert {
                reading,
                seconds,
                target,
            } => {
                let text = format!(
                    "({}/{}) s to {target}",
                    seconds.numerator(),
                    seconds.denominator()
                );
                let mut answer = self.evaluate_statement(&text, cancel).map_err(|mut e| {
                    // The target's error, placed on the target as typed.
                    let at = line.rfind(target.as_str()).unwrap_or(0);
                    let from = text.len() - target.len();
                    e.span = (e.span.start.saturating_sub(from) + at)
                        ..(e.span.end.saturating_sub(from) + at);
                    e
                })?;
                answer.reading = reading;
                Ok(answer)
            }
        }))
    }

    /// Names typed in capitals (`SIN PI`, `LOG 100`) are the function or
    /// value of that name in small letters, unless the capitals name
    /// something of their own (`G`, the constant; `Pa`, the pascal).
    fn fold_capitals(&self, tokens: &mut [crate::lex::Token]) {
        for t in tokens {
            if let crate::lex::Tok::Ident(name) = &t.tok
                && name.chars().any(char::is_uppercase)
                && self.kind(name).is_none()
            {
                let lower = name.to_lowercase();
                if matches!(
                    self.kind(&lower),
                    Some(NameKind::Function | NameKind::Value)
                ) {
                    t.tok = crate::lex::Tok::Ident(lower);
                }
            }
        }
    }

    /// Data sizes in the case people type them: `KB` is kB, `gb` is GB
    /// (small letters are bytes, as file sizes are written), `Kb` is kb
    /// (a capital and a small b: bits, as line speeds are). Only names
    /// that mean nothing as typed; returns how each was read.
    fn fold_data_sizes(&self, tokens: &mut [crate::lex::Token]) -> Vec<String> {
        let mut read = Vec::new();
        for t in tokens {
            let crate::lex::Tok::Ident(name) = &t.tok else {
                continue;
            };
            if self.kind(name).is_some() {
                continue;
            }
            let chars: Vec<char> = name.chars().collect();
            let (prefix, binary, unit) = match chars.as_slice() {
                [p, u] => (*p, false, *u),
                [p, 'i' | 'I', u] => (*p, true, *u),
                _ => continue,
            };
            let Some(prefix) = "kmgtpe".chars().find(|c| c.eq_ignore_ascii_case(&prefix)) else {
                continue;
            };
            if !matches!(unit, 'b' | 'B') {
                continue;
            }
            let bytes = unit == 'B' || name.chars().all(|c| c.is_ascii_lowercase());
            let prefix = match (prefix, binary) {
                ('k', false) => "k".to_string(),
                ('k', true) => "Ki".to_string(),
                (p, false) => p.to_ascii_uppercase().to_string(),
                (p, true) => format!("{}i", p.to_ascii_uppercase()),
            };
            let canonical = format!("{prefix}{}", if bytes { "B" } else { "b" });
            if table().lookup(&canonical).is_some() {
                let word = match prefix.as_str() {
                    "k" => "kilo",
                    "M" => "mega",
                    "G" => "giga",
                    "T" => "tera",
                    "P" => "peta",
                    "E" => "exa",
                    "Ki" => "kibi",
                    "Mi" => "mebi",
                    "Gi" => "gibi",
                    "Ti" => "tebi",
                    "Pi" => "pebi",
                    _ => "exbi",
                };
                let unit = if bytes { "bytes" } else { "bits" };
                read.push(format!("{name} read as {word}{unit}, {canonical}"));
                t.tok = crate::lex::Tok::Ident(canonical);
            }
        }
        read
    }

    fn evaluate_statement(&mut self, line: &str, cancel: &CancelFlag) -> Result<Answer, CalcError> {
        let options = LexOptions {
            decimal_comma: self.settings.decimal_comma,
        };
        if let Some(dated) = self.evaluate_date(line, cancel) {
            return dated;
        }
        // Functions of x between commas (`sin x, cos x`): one error that
        // says so, and the window draws them together.
        let parts = split_functions(line);
        if parts.len() > 1 && !line.trim_start().starts_with("plot") {
            let mut scratch = self.clone();
            let free = parts.iter().all(|p| {
                matches!(
                    scratch.evaluate_statement(p, cancel),
                    Err(CalcError {
                        kind: ErrorKind::FreeVariable { .. },
                        ..
                    })
                )
            });
            if free {
                return Err(CalcError::new(
                    ErrorKind::FreeVariable { name: "x".into() },
                    0..line.len(),
                ));
            }
        }
        let mut tokens = lex(line, options)?;
        if tokens.is_empty() {
            return Err(CalcError::new(ErrorKind::Empty, 0..line.len()));
        }
        self.fold_capitals(&mut tokens);
        let sizes_read = self.fold_data_sizes(&mut tokens);
        self.readings.borrow_mut().clear();
        crate::words::read_words(
            &mut tokens,
            &|n| self.variables.contains_key(n) || self.functions.contains_key(n),
            &|n| table().lookup(n).is_some() || crate::constants::physical(n).is_some(),
        );
        let (statement, closed) = parse_closing(&tokens, self, line.len())?;
        let budget = Budget::new(
            self.settings.max_bits,
            self.settings.time_limit,
            cancel.clone(),
        );
        match statement {
            Statement::Eval { expr, target } => {
                let digits = match &target {
                    Some((Target::Format(Format::Significant(n)), _)) => {
                        self.settings.digits.max(*n)
                    }
                    Some((Target::Format(Format::Places(p)), _)) => {
                        self.settings.digits.max(p.saturating_add(20))
                    }
                    _ => self.settings.digits,
                };
                let (mut answer, value) = self.with_digits(digits, &budget, |work, calc| {
                    let q = calc.eval(work, &expr, &Scope::top())?;
                    let reading = match &target {
                        Some((Target::Units(t), _)) => format!("{expr} → {t}"),
                        Some((Target::Format(f), _)) => format!("{expr} → {}", format_name(*f)),
                        None => expr.to_string(),
                    };
                    let answer = calc.present(work, &q, target.as_ref(), reading)?;
                    // `ans` (and a column's total) is in the units the line
                    // showed: `100 USD to EUR` then `ans * 2` is in euros.
                    let q = match &target {
                        Some((Target::Units(t), _)) if calc.mixed_units(t).is_none() => calc
                            .eval(work, t, &Scope::top())
                            .ok()
                            .and_then(|t| work.q_convert(&q, &t).ok())
                            .unwrap_or(q),
                        _ => q,
                    };
                    Ok((answer, q))
                })?;
                if value.dim.0[crate::units::MONEY] != 0 && currencies(&tokens) > 1 {
                    answer.note = Some(format!(
                        "ECB rates of {}",
                        crate::rates::Rates::current().date
                    ));
                }
                let mut sizes_read = sizes_read;
                // How a temperature was taken: shown after the value (the
                // window shows the reading beside it, so not twice).
                sizes_read.extend(self.readings.borrow_mut().drain(..));
                for read in &sizes_read {
                    answer.note = Some(match answer.note.take() {
                        Some(n) => format!("{n}; {read}"),
                        None => read.clone(),
                    });
                }
                if closed > 0 {
                    let what = if closed == 1 {
                        "a parenthesis".to_string()
                    } else {
                        format!("{closed} parentheses")
                    };
                    answer.note = Some(match answer.note.take() {
                        Some(n) => format!("{n}; the end of the line closed {what}"),
                        None => format!("the end of the line closed {what}"),
                    });
                }
                self.ans = Some(value);
                Ok(answer)
            }
            Statement::Assign {
                name,
                name_span,
                also,
                expr,
            } => {
                self.check_definable(&name, name_span)?;
                for (other, span) in &also {
                    self.check_definable(other, span.clone())?;
                }
                let (answer, value) = self.with_precision(&budget, |work, calc| {
                    let q = calc.eval(work, &expr, &Scope::top())?;
                    let shown = calc.present(work, &q, None, String::new())?;
                    Ok((shown, q))
                })?;
                // A chain's later names are kept as their own line, so the
                // definitions file reads each back alone.
                let source = line.get(expr.span.clone()).unwrap_or(line);
                for (other, _) in &also {
                    self.variables.insert(other.clone(), value.clone());
                    self.functions.remove(other);
                    self.remember(other, &format!("{other} = {source}"));
                }
                self.variables.insert(name.clone(), value);
                self.functions.remove(&name);
                self.remember(&name, line);
                let chain: String = also.iter().map(|(n, _)| format!("{n} = ")).collect();
                Ok(Answer {
                    reading: format!("{name} = {chain}{expr}"),
                    value: format!("{name} = {chain}{}", answer.value),
                    approximate: answer.approximate,
                    fraction: answer.fraction,
                    note: None,
                    kind: AnswerKind::Definition,
                })
            }
            Statement::Define {
                name,
                name_span,
                params,
                body,
            } => {
                self.check_definable(&name, name_span.clone())?;
                for (i, p) in params.iter().enumerate() {
                    if params[..i].contains(p) {
                        return Err(CalcError::new(
                            ErrorKind::Definition(format!("parameter {p:?} appears twice")),
                            name_span,
                        ));
                    }
                }
                let text = format!("{name}({}) = {body}", params.join(", "));
                self.functions
                    .insert(name.clone(), UserFunction { params, body });
                self.variables.remove(&name);
                self.remember(&name, line);
                Ok(Answer {
                    reading: text.clone(),
                    value: text,
                    approximate: false,
                    fraction: None,
                    note: None,
                    kind: AnswerKind::Definition,
                })
            }
            Statement::Plot {
                expr,
                more,
                var,
                range,
            } => {
                let source = |e: &Expr| line.get(e.span.clone()).unwrap_or_default().to_string();
                let (from, to, shown) = match &range {
                    Some((a, b)) => (source(a), source(b), (a.to_string(), b.to_string())),
                    None => ("-10".into(), "10".into(), ("-10".into(), "10".into())),
                };
                let functions: Vec<String> = std::iter::once(&expr)
                    .chain(&more)
                    .map(ToString::to_string)
                    .collect();
                let reading = format!(
                    "plot {} from {} to {}",
                    functions.join(", "),
                    shown.0,
                    shown.1
                );
                let expr_source = match more.last() {
                    Some(last) => line
                        .get(expr.span.start..last.span.end)
                        .unwrap_or_default()
                        .to_string(),
                    None => source(&expr),
                };
                Ok(Answer {
                    reading: reading.clone(),
                    value: reading,
                    approximate: false,
                    fraction: None,
                    note: None,
                    kind: AnswerKind::Plot(PlotRequest {
                        expression: expr_source,
                        variable: var,
                        from,
                        to,
                    }),
                })
            }
        }
    }

    /// Samples every function of a request (`sin x, cos x`: two
    /// graphs), each with its expression.
    pub fn plot_all(
        &self,
        request: &PlotRequest,
        samples: usize,
        cancel: &CancelFlag,
    ) -> Result<Vec<(String, Graph)>, CalcError> {
        request
            .functions()
            .into_iter()
            .map(|f| {
                let one = PlotRequest {
                    expression: f.clone(),
                    ..request.clone()
                };
                self.plot(&one, samples, cancel).map(|g| (f, g))
            })
            .collect()
    }

    /// Samples a plot: `samples` uniform points over the range, refined
    /// where the curve bends and broken at poles and gaps (see
    /// [`crate::plot::sample`]). Units of the result are dropped (the
    /// value in its shown units is drawn); points with an imaginary part
    /// are gaps.
    pub fn plot(
        &self,
        request: &PlotRequest,
        samples: usize,
        cancel: &CancelFlag,
    ) -> Result<Graph, CalcError> {
        let mut scratch = self.clone();
        let mut end = |text: &str| -> Result<f64, CalcError> {
            let a = scratch.evaluate_with(text, cancel)?;
            let value = scratch
                .ans
                .as_ref()
                .filter(|q| q.dim.is_none() && q.num.is_real() && a.kind == AnswerKind::Value);
            match value {
                Some(q) => Ok(Work::to_f64(&q.num.re)),
                None => Err(CalcError::new(
                    ErrorKind::Needs(format!(
                        "a plot range must be a plain real number, not {text:?}"
                    )),
                    0..text.len(),
                )),
            }
        };
        let (from, to) = (end(&request.from)?, end(&request.to)?);
        if !(from.is_finite() && to.is_finite() && from < to) {
            return Err(CalcError::new(
                ErrorKind::Needs(format!("a plot range needs from < to, got {from} and {to}")),
                0..0,
            ));
        }
        // Sampling steps by the width: it must be a double too.
        if !(to - from).is_finite() {
            return Err(CalcError::new(
                ErrorKind::Needs(format!(
                    "a plot range must be less than {:e} wide, got {from:e} to {to:e}",
                    f64::MAX
                )),
                0..0,
            ));
        }
        // The body, parsed with the variable as a parameter.
        let definition = format!("plotted({}) = {}", request.variable, request.expression);
        let tokens = lex(
            &definition,
            LexOptions {
                decimal_comma: self.settings.decimal_comma,
            },
        )?;
        let Statement::Define { body, .. } = parse(&tokens, self, definition.len())? else {
            return Err(CalcError::new(
                ErrorKind::Needs("nothing to plot".into()),
                0..0,
            ));
        };
        // Plots need a few correct digits, not thirty.
        let mut settings = self.settings.clone();
        settings.digits = 17;
        let plotter = Calculator {
            settings,
            ..self.clone()
        };
        let mut failure: Option<CalcError> = None;
        // One budget for the whole graph, as for one line: every point
        // spends from the same time limit.
        let budget = Budget::new(
            plotter.settings.max_bits,
            plotter.settings.time_limit,
            cancel.clone(),
        );
        let mut graph = crate::plot::sample(
            |x| {
                if failure.is_some() {
                    return None;
                }
                let value = RBig::try_from(x).ok()?;
                let bindings = [(
                    request.variable.clone(),
                    Quantity::plain(Number::exact(value)),
                )];
                let scope = Scope {
                    bindings: &bindings,
                    depth: 0,
                };
                let result = plotter.with_precision(&budget, |work, calc| {
                    let q = calc.eval(work, &body, &scope)?;
                    let v = work
                        .shown_value(&q)
                        .map_err(|n| calc.num_error(n, &(0..0)))?;
                    if !v.is_real() {
                        return Ok(None);
                    }
                    let re = work
                        .numeric(&v.re)
                        .map_err(|n| calc.num_error(n, &(0..0)))?;
                    Ok(Some(Work::to_f64(&re)))
                });
                match result {
                    Ok(y) => y,
                    // Cancelled or out of time: stop sampling.
                    Err(e)
                        if matches!(
                            e.kind,
                            ErrorKind::Cancelled
                                | ErrorKind::TimedOut(_)
                                | ErrorKind::WouldTakeTooLong { .. }
                        ) =>
                    {
                        failure = Some(e);
                        None
                    }
                    // Outside the domain here: a gap.
                    Err(_) => None,
                }
            },
            from,
            to,
            samples,
        );
        match failure {
            // Out of time: what was drawn stands, and says so.
            Some(e) if !matches!(e.kind, ErrorKind::Cancelled) => {
                graph.stopped = Some(format!("{e}; the graph shows what was drawn by then"));
                Ok(graph)
            }
            Some(e) => Err(e),
            None => Ok(graph),
        }
    }

    /// Evaluates a pasted column: one answer per line (`None` for a blank
    /// line or a `#` comment) and, with `total`, the sum of the values.
    ///
    /// Each line is cleaned first: carriage returns and tabs become
    /// spaces, so a column copied from a spreadsheet reads as typed.
    /// Currency signs are currencies (`$1,200.50` is 1,200.50 USD).
    pub fn evaluate_column(&mut self, text: &str, total: bool, cancel: &CancelFlag) -> Column {
        self.evaluate_lines(text.lines().map(Ok), total, cancel)
    }

    /// [`evaluate_column`](Self::evaluate_column) for bytes that may not
    /// all be UTF-8 (a pasted or piped file): a line that is not gets an
    /// error naming it and the offending byte; the others their answers.
    pub fn evaluate_column_bytes(
        &mut self,
        text: &[u8],
        total: bool,
        cancel: &CancelFlag,
    ) -> Column {
        let text = text.strip_suffix(b"\n").unwrap_or(text);
        let lines = text.split(|&b| b == b'\n').enumerate().map(|(i, raw)| {
            let raw = raw.strip_suffix(b"\r").unwrap_or(raw);
            std::str::from_utf8(raw).map_err(|e| {
                let at = e.valid_up_to();
                CalcError::new(
                    ErrorKind::NotText {
                        line: i + 1,
                        byte: raw.get(at).copied().unwrap_or(0),
                        column: at + 1,
                    },
                    0..0,
                )
            })
        });
        if text.is_empty() {
            return self.evaluate_lines(std::iter::empty(), total, cancel);
        }
        self.evaluate_lines(lines, total, cancel)
    }

    fn evaluate_lines<'t>(
        &mut self,
        text: impl Iterator<Item = Result<&'t str, CalcError>>,
        total: bool,
        cancel: &CancelFlag,
    ) -> Column {
        let mut lines = Vec::new();
        let mut values: Vec<Quantity> = Vec::new();
        for raw in text {
            let raw = match raw {
                Ok(raw) => raw,
                Err(e) => {
                    lines.push(Some(Err(e)));
                    continue;
                }
            };
            let line = clean_pasted_line(raw);
            // Blank lines, comments (a `#!` first line too) and lines of
            // empty statements (`;;`) answer nothing.
            if line.trim().is_empty()
                || line.trim_start().starts_with('#')
                || line.chars().all(|c| c == ';' || c.is_whitespace())
            {
                lines.push(None);
                continue;
            }
            let result = self.evaluate_with(&line, cancel);
            if let (Ok(a), Some(v)) = (&result, &self.ans)
                && a.kind == AnswerKind::Value
            {
                values.push(v.clone());
            }
            lines.push(Some(result));
        }
        let total = total.then(|| self.sum(&values, cancel));
        Column { lines, total }
    }

    fn sum(&self, values: &[Quantity], cancel: &CancelFlag) -> Result<Answer, CalcError> {
        let budget = Budget::new(
            self.settings.max_bits,
            self.settings.time_limit,
            cancel.clone(),
        );
        self.with_precision(&budget, |work, calc| {
            let mut acc = Quantity::plain(Number::int(0));
            for (i, v) in values.iter().enumerate() {
                acc = if i == 0 {
                    v.clone()
                } else {
                    work.q_add(&acc, v, false)
                        .map_err(|e| calc.qty_error(e, "add", &(0..0)))?
                };
            }
            calc.present(
                work,
                &acc,
                None,
                format!("the sum of {} values", values.len()),
            )
        })
    }

    /// The definitions made so far, one per line, as typed: the text a
    /// definitions file holds.
    pub fn definitions_text(&self) -> String {
        let mut s = String::new();
        for (_, line) in &self.definitions {
            s.push_str(line.trim());
            s.push('\n');
        }
        s
    }

    /// Writes [`definitions_text`](Self::definitions_text) to `path`, whole:
    /// through a temporary file beside it and a rename, so a crash never
    /// leaves half a file. The folder is created when missing.
    pub fn save_definitions(&self, path: &std::path::Path) -> std::io::Result<()> {
        let dir = path.parent().unwrap_or(std::path::Path::new("."));
        std::fs::create_dir_all(dir)?;
        let tmp = dir.join(format!(".calculon-definitions.{}.tmp", std::process::id()));
        let text = format!(
            "# calculon definitions: one per line, evaluated in order at start-up.\n{}",
            self.definitions_text()
        );
        std::fs::write(&tmp, text)?;
        std::fs::rename(&tmp, path).inspect_err(|_| {
            let _ = std::fs::remove_file(&tmp);
        })
    }

    /// Evaluates a definitions file line by line (blank lines and `#`
    /// comments skipped); returns the lines that failed, with their errors.
    pub fn load_definitions(&mut self, text: &str) -> Vec<(usize, CalcError)> {
        let mut failures = Vec::new();
        for (i, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            if let Err(e) = self.evaluate(line) {
                failures.push((i + 1, e));
            }
        }
        failures
    }

    /// Forgets a variable or function; whether there was one.
    pub fn forget(&mut self, name: &str) -> bool {
        self.definitions.retain(|(n, _)| n != name);
        let v = self.variables.remove(name).is_some();
        let f = self.functions.remove(name).is_some();
        v || f
    }

    /// The user's definitions: each name with the line that made it.
    pub(crate) fn definition_lines(&self) -> impl Iterator<Item = (&str, &str)> {
        self.definitions
            .iter()
            .map(|(n, l)| (n.as_str(), l.as_str()))
    }

    fn remember(&mut self, name: &str, line: &str) {
        self.definitions.retain(|(n, _)| n != name);
        self.definitions
            .push((name.to_string(), line.trim().to_string()));
    }

    fn check_definable(&self, name: &str, span: Span) -> Result<(), CalcError> {
        let why = if is_keyword(name) {
            Some("a keyword")
        } else if name == "ans" {
            Some("the last answer")
        } else if builtin_arity(name).is_some() {
            Some("a built-in function")
        } else if math_constant(name).is_some() {
            Some("a built-in constant")
        } else {
            None
        };
        match why {
            Some(why) => Err(CalcError::new(
                ErrorKind::Definition(format!("cannot redefine {name:?}: it is {why}")),
                span,
            )),
            None => Ok(()),
        }
    }

    /// Runs `f` at increasing precision until it needs no retry.
    fn with_precision<T>(
        &self,
        budget: &Budget,
        f: impl Fn(&Work<'_>, &Calculator) -> Eval<T>,
    ) -> Result<T, CalcError> {
        self.with_digits(self.settings.digits, budget, f)
    }

    /// [`Self::with_precision`], starting from the precision of `digits`
    /// digits (a rounding asked for: `pi to 1000 digits`).
    fn with_digits<T>(
        &self,
        digits: usize,
        budget: &Budget,
        f: impl Fn(&Work<'_>, &Calculator) -> Eval<T>,
    ) -> Result<T, CalcError> {
        let digits = digits.clamp(1, MAX_DIGITS);
        let base = (digits as f64 * std::f64::consts::LOG2_10).ceil() as usize + 32;
        for attempt in 0..ATTEMPTS {
            let prec = base << attempt;
            let work = Work::new(prec, budget);
            match f(&work, self) {
                Ok(v) => return Ok(v),
                Err(Fail::Error(e)) => return Err(e),
                Err(Fail::Retry) if attempt + 1 < ATTEMPTS => continue,
                Err(Fail::Retry) => {
                    return Err(CalcError::new(
                        ErrorKind::Undecidable {
                            bits: prec,
                            what: "the value is too close to a point where the answer changes (a zero, an integer, a pole)",
                        },
                        0..0,
                    ));
                }
            }
        }
        Err(CalcError::new(ErrorKind::Empty, 0..0))
    }

    fn num_error(&self, e: NumError, span: &Span) -> Fail {
        let kind = match e {
            NumError::NeedPrecision => return Fail::Retry,
            NumError::Domain(what) => ErrorKind::Domain(what.to_string()),
            NumError::DivisionByZero => ErrorKind::DivisionByZero,
            NumError::TooBig { bits, limit } => ErrorKind::TooBig { bits, limit },
            NumError::ExpRange {
                negative,
                decimal_exponent,
            } => ErrorKind::OutOfRange {
                negative,
                decimal_exponent,
            },
            NumError::Overflow => ErrorKind::Overflow,
            NumError::Stopped(Stop::Cancelled) => ErrorKind::Cancelled,
            NumError::Stopped(Stop::TimedOut) => ErrorKind::TimedOut(
                self.settings
                    .time_limit
                    .map_or(0, |t| t.as_millis().min(u64::MAX as u128) as u64),
            ),
            NumError::Stopped(Stop::WouldTakeTooLong(estimate_ms)) => ErrorKind::WouldTakeTooLong {
                estimate_ms,
                limit_ms: self
                    .settings
                    .time_limit
                    .map_or(0, |t| t.as_millis().min(u64::MAX as u128) as u64),
            },
        };
        Fail::Error(CalcError::new(kind, span.clone()))
    }

    fn qty_error(&self, e: QtyError, op: &'static str, span: &Span) -> Fail {
        match e {
            QtyError::Num(n) => self.num_error(n, span),
            QtyError::Mismatch(left, right) => Fail::Error(CalcError::new(
                ErrorKind::Units { op, left, right },
                span.clone(),
            )),
            QtyError::FractionalUnit(unit) => Fail::Error(CalcError::new(
                ErrorKind::Needs(format!(
                    "that power of {unit} would need a fractional unit exponent"
                )),
                span.clone(),
            )),
            QtyError::UnitExponent(unit) => Fail::Error(CalcError::new(
                ErrorKind::Needs(format!("an exponent must be a plain number, not {unit}")),
                span.clone(),
            )),
        }
    }

    // ------------------------------------------------------------------
    // Evaluation
    // ------------------------------------------------------------------

    fn eval(&self, work: &Work<'_>, e: &Expr, scope: &Scope<'_>) -> Eval<Quantity> {
        stacker::maybe_grow(64 * 1024, 1024 * 1024, || self.eval_inner(work, e, scope))
    }

    fn eval_inner(&self, work: &Work<'_>, e: &Expr, scope: &Scope<'_>) -> Eval<Quantity> {
        work.budget
            .check()
            .map_err(|n| self.num_error(n, &e.span))?;
        let qty = |r: Result<Quantity, QtyError>, op| r.map_err(|q| self.qty_error(q, op, &e.span));
        match &e.kind {
            ExprKind::Number(r) => Ok(Quantity::plain(Number::exact(r.clone()))),
            ExprKind::Name(name, _) => self.name_value(work, name, &e.span, scope),
            ExprKind::Neg(inner) => {
                let v = self.eval(work, inner, scope)?;
                Ok(work.q_neg(&v))
            }
            ExprKind::Percent(inner) => {
                let v = self.eval(work, inner, scope)?;
                qty(work.q_div(&v, &Quantity::plain(Number::int(100))), "divide")
            }
            ExprKind::Factorial(inner) => {
                let v = self.eval(work, inner, scope)?;
                functions::factorial(work, &v).map_err(|f| self.fn_error(f, &e.span))
            }
            ExprKind::Binary { op, lhs, rhs } => {
                // `a + b%` and `a - b%` change a by b percent.
                if let (BinOp::Add | BinOp::Sub, ExprKind::Percent(p)) = (op, &rhs.kind)
                    && !matches!(lhs.kind, ExprKind::Percent(_))
                {
                    let a = self.eval(work, lhs, scope)?;
                    let p = self.eval(work, p, scope)?;
                    let ratio = qty(work.q_div(&p, &Quantity::plain(Number::int(100))), "divide")?;
                    let one = Quantity::plain(Number::int(1));
                    let factor = qty(work.q_add(&one, &ratio, *op == BinOp::Sub), "add")?;
                    return qty(work.q_mul(&a, &factor), "multiply");
                }
                let a = self.eval(work, lhs, scope)?;
                let b = self.eval(work, rhs, scope)?;
                if matches!(op, BinOp::Add | BinOp::Sub)
                    && let Some(unit) = b
                        .absolute_zero()
                        .and(b.shown.first())
                        .map(|(u, _)| u.name.clone())
                    && a.dim == b.dim
                {
                    let sign = if *op == BinOp::Add { "+" } else { "-" };
                    let how = match (a.absolute_zero().is_some(), op) {
                        (true, BinOp::Sub) => None,
                        (true, _) => Some("a difference"),
                        (false, _) => Some("an absolute temperature"),
                    };
                    if let Some(how) = how {
                        let note = format!("{unit} after {sign} read as {how}");
                        let mut readings = self.readings.borrow_mut();
                        if !readings.contains(&note) {
                            readings.push(note);
                        }
                    }
                }
                match op {
                    BinOp::Add | BinOp::Mixed => qty(work.q_add(&a, &b, false), "add"),
                    BinOp::Sub => qty(work.q_add(&a, &b, true), "subtract"),
                    BinOp::Mul | BinOp::Implicit | BinOp::Of => qty(work.q_mul(&a, &b), "multiply"),
                    BinOp::Div => qty(work.q_div(&a, &b), "divide"),
                    BinOp::Pow => qty(work.q_pow(&a, &b), "raise"),
                    BinOp::Mod => {
                        functions::modulo(work, &a, &b).map_err(|f| self.fn_error(f, &e.span))
                    }
                    BinOp::Compare(c) => {
                        functions::compare(work, *c, &a, &b).map_err(|f| self.fn_error(f, &e.span))
                    }
                }
            }
            ExprKind::Call { name, args } => self.call(work, name, args, &e.span, scope),
        }
    }

    fn fn_error(&self, f: functions::FnError, span: &Span) -> Fail {
        match f {
            functions::FnError::Qty(q, op) => self.qty_error(q, op, span),
            functions::FnError::Needs(what) => {
                Fail::Error(CalcError::new(ErrorKind::Needs(what), span.clone()))
            }
        }
    }

    fn call(
        &self,
        work: &Work<'_>,
        name: &str,
        args: &[Expr],
        span: &Span,
        scope: &Scope<'_>,
    ) -> Eval<Quantity> {
        // `if(c, a, b)` evaluates only the branch it takes, so recursion
        // can end.
        if name == "if" && !self.functions.contains_key(name) {
            let [c, a, b] = args else {
                return Err(Fail::Error(CalcError::new(
                    ErrorKind::Arity {
                        name: "if".into(),
                        expected: 3,
                        found: args.len(),
                    },
                    span.clone(),
                )));
            };
            let cond = self.eval(work, c, scope)?;
            let holds = functions::truth(work, &cond).map_err(|f| self.fn_error(f, &c.span))?;
            return self.eval(work, if holds { a } else { b }, scope);
        }
        if let Some(f) = self.functions.get(name) {
            if f.params.len() != args.len() {
                return Err(Fail::Error(CalcError::new(
                    ErrorKind::Arity {
                        name: name.to_string(),
                        expected: f.params.len(),
                        found: args.len(),
                    },
                    span.clone(),
                )));
            }
            if scope.depth >= self.settings.max_depth {
                return Err(Fail::Error(CalcError::new(
                    ErrorKind::Recursion(self.settings.max_depth),
                    span.clone(),
                )));
            }
            let mut bindings = Vec::with_capacity(args.len());
            for (p, a) in f.params.iter().zip(args) {
                bindings.push((p.clone(), self.eval(work, a, scope)?));
            }
            let inner = Scope {
                bindings: &bindings,
                depth: scope.depth + 1,
            };
            return self.eval(work, &f.body, &inner);
        }
        if let Some((min, max)) = builtin_arity(name) {
            if args.len() < min || args.len() > max {
                return Err(Fail::Error(CalcError::new(
                    ErrorKind::Arity {
                        name: name.to_string(),
                        expected: min,
                        found: args.len(),
                    },
                    span.clone(),
                )));
            }
            let mut values = Vec::with_capacity(args.len());
            for a in args {
                values.push(self.eval(work, a, scope)?);
            }
            return functions::call(work, name, &values).map_err(|f| self.fn_error(f, span));
        }
        Err(Fail::Error(CalcError::new(
            ErrorKind::UnknownName {
                name: name.to_string(),
                suggestion: self.suggest(name, true),
            },
            span.clone(),
        )))
    }

    fn name_value(
        &self,
        work: &Work<'_>,
        name: &str,
        span: &Span,
        scope: &Scope<'_>,
    ) -> Eval<Quantity> {
        let num = |r: Result<Real, NumError>| r.map_err(|n| self.num_error(n, span));
        if let Some((_, v)) = scope.bindings.iter().find(|(n, _)| n == name) {
            return Ok(v.clone());
        }
        if let Some(v) = self.variables.get(name) {
            return Ok(v.clone());
        }
        if name == "ans" {
            return self.ans.clone().ok_or_else(|| {
                Fail::Error(CalcError::new(
                    ErrorKind::Needs("there is no previous answer yet".into()),
                    span.clone(),
                ))
            });
        }
        if let Some(c) = math_constant(name) {
            let n = match c {
                MathConstant::Pi => Number::real(num(work.pi())?),
                MathConstant::E => Number::real(num(work.e())?),
                MathConstant::Tau => {
                    let pi = num(work.pi())?;
                    Number::real(num(work.mul(&crate::real::exact(2), &pi))?)
                }
                MathConstant::Phi => {
                    let s5 = num(work.sqrt(&crate::real::exact(5)))?;
                    let sum = num(work.add(&crate::real::exact(1), &s5))?;
                    Number::real(num(work.div(&sum, &crate::real::exact(2)))?)
                }
                MathConstant::I => Number::i(),
            };
            return Ok(Quantity::plain(n));
        }
        if let Some(definition) = physical(name) {
            return self.constant(work, definition, span);
        }
        if let Some(u) = table().lookup(name) {
            return work.unit(u).map_err(|n| self.num_error(n, span));
        }
        if builtin_arity(name).is_some() || self.functions.contains_key(name) {
            return Err(Fail::Error(CalcError::new(
                ErrorKind::Needs(format!("{name} is a function: write {name}(…)")),
                span.clone(),
            )));
        }
        // A free `x`: the line is a function, not a typo for a unit.
        let mut letters = name.chars();
        if let (Some(c), None) = (letters.next(), letters.next())
            && c.is_ascii_lowercase()
        {
            return Err(Fail::Error(CalcError::new(
                ErrorKind::FreeVariable {
                    name: name.to_string(),
                },
                span.clone(),
            )));
        }
        if crate::dates::is_date_word(name) {
            return Err(Fail::Error(CalcError::new(
                ErrorKind::Needs(format!(
                    "{name:?} is a date, and a date line adds or subtracts plain numbers of days, \
                     weeks, months or years (today + 30 days), with no other arithmetic"
                )),
                span.clone(),
            )));
        }
        Err(Fail::Error(CalcError::new(
            ErrorKind::UnknownName {
                name: name.to_string(),
                suggestion: self.suggest(name, false),
            },
            span.clone(),
        )))
    }

    /// A physical constant: its defining expression, shown in its units.
    fn constant(&self, work: &Work<'_>, definition: &str, span: &Span) -> Eval<Quantity> {
        let bad = || {
            Fail::Error(CalcError::new(
                ErrorKind::Definition(format!(
                    "the built-in constant {definition:?} does not read"
                )),
                span.clone(),
            ))
        };
        let tokens = lex(definition, LexOptions::default()).map_err(|_| bad())?;
        let Ok(Statement::Eval { expr, .. }) = parse(&tokens, &BuiltinNames, definition.len())
        else {
            return Err(bad());
        };
        // Evaluated without user definitions, so redefining `m` cannot
        // change the speed of light.
        Calculator::default()
            .eval(work, &expr, &Scope::top())
            .map_err(|f| match f {
                Fail::Retry => Fail::Retry,
                Fail::Error(_) => bad(),
            })
    }

    /// The closest known name within two edits (one for short names).
    fn suggest(&self, name: &str, functions_only: bool) -> Option<String> {
        let mut best: Option<(usize, String)> = None;
        // Two edits change most of a short name: one for names of three
        // letters or fewer.
        let most = if name.chars().count() <= 3 { 1 } else { 2 };
        let mut consider = |candidate: &str| {
            if candidate == name {
                return;
            }
            let d = edit_distance(name, candidate, most);
            // Of equals, the one sharing the longest start (`sqr`: `sqrt`,
            // not `shr`), then the first by name.
            let shared = |c: &str| {
                name.chars()
                    .zip(c.chars())
                    .take_while(|(a, b)| a == b)
                    .count()
            };
            if d <= most
                && best.as_ref().is_none_or(|(bd, bn)| {
                    d < *bd
                        || (d == *bd
                            && (shared(candidate), std::cmp::Reverse(candidate))
                                > (shared(bn), std::cmp::Reverse(bn.as_str())))
                })
            {
                best = Some((d, candidate.to_string()));
            }
        };
        for f in functions::NAMES {
            consider(f);
        }
        for f in self.functions.keys() {
            consider(f);
        }
        if !functions_only {
            for v in self.variables.keys() {
                consider(v);
            }
            for c in crate::constants::names() {
                consider(c);
            }
            // A unit only for a name of three letters or more: within two
            // edits of a short name lies every one-letter unit (`x` → `A`).
            if name.chars().count() >= 3 {
                for u in table().names() {
                    consider(u);
                }
            }
        }
        best.map(|(_, n)| n)
    }

    // ------------------------------------------------------------------
    // Presentation
    // ------------------------------------------------------------------

    fn style(&self) -> Style {
        Style {
            digits: self.settings.digits.clamp(1, MAX_DIGITS),
            radix: Radix::Decimal,
            scientific: false,
            decimal_comma: self.settings.decimal_comma,
            round: None,
            engineering: false,
        }
    }

    fn present(
        &self,
        work: &Work<'_>,
        q: &Quantity,
        target: Option<&(Target, Span)>,
        reading: String,
    ) -> Eval<Answer> {
        let mut style = self.style();
        let mut q = q.clone();
        let mut fraction_only = false;
        let mut mixed = false;
        // A fraction where the value is exact; a decimal where it is not.
        let mut prefer_fraction = false;
        if matches!(target, Some((Target::Format(_), _))) {
            cancel_units(&mut q);
        }
        match target {
            Some((Target::Format(f), _)) => match f {
                Format::Hex => style.radix = Radix::Hex,
                Format::Octal => style.radix = Radix::Octal,
                Format::Binary => style.radix = Radix::Binary,
                Format::Decimal => {}
                Format::Scientific => style.scientific = true,
                Format::Engineering => style.engineering = true,
                Format::Fraction => fraction_only = true,
                Format::MixedFraction => mixed = true,
                Format::Base(b) => style.radix = Radix::Base(*b),
                Format::Significant(n) => {
                    style.digits = *n;
                    style.round = Some(Round::Significant(*n));
                }
                Format::Places(p) => style.round = Some(Round::Places(*p)),
            },
            Some((Target::Units(t), span)) => {
                if let Some(units) = self.mixed_units(t) {
                    return self.present_mixed(work, &q, &units, span, reading);
                }
                let target_q = self.eval(work, t, &Scope::top())?;
                q = work.q_convert(&q, &target_q).map_err(|e| match e {
                    QtyError::Mismatch(from, to) => Fail::Error(CalcError::new(
                        ErrorKind::Convert { from, to },
                        span.clone(),
                    )),
                    other => self.qty_error(other, "convert", span),
                })?;
                // A target with a number in it (`to 100 m`) divides by it.
                let size = work
                    .shown_factor(&target_q.shown)
                    .map_err(|n| self.num_error(n, span))?;
                let target_number = work
                    .c_div(&target_q.num, &Number::real(size))
                    .map_err(|n| self.num_error(n, span))?;
                if target_number.as_rational() != Some(&RBig::ONE) {
                    q.num = work
                        .c_div(&q.num, &target_number)
                        .map_err(|n| self.num_error(n, span))?;
                }
            }
            None => {
                cancel_units(&mut q);
                name_derived_unit(&mut q);
                match self.settings.notation {
                    Notation::Auto => {}
                    Notation::Scientific => style.scientific = true,
                    Notation::Engineering => style.engineering = true,
                    Notation::Fraction => prefer_fraction = true,
                }
            }
        }
        let value = work
            .shown_value(&q)
            .map_err(|n| self.num_error(n, &(0..0)))?;
        let numeric = |x: &Real| work.numeric(x).map_err(|n| self.num_error(n, &(0..0)));
        let value = Number {
            re: numeric(&value.re)?,
            im: numeric(&value.im)?,
        };
        if prefer_fraction
            && let Some(r) = value.as_rational()
            && !r.denominator().is_one()
        {
            return Ok(Answer {
                reading,
                value: with_unit(format!("{}/{}", r.numerator(), r.denominator()), &q),
                approximate: false,
                fraction: None,
                note: None,
                kind: AnswerKind::Value,
            });
        }
        if fraction_only || mixed {
            let Some(r) = value.as_rational() else {
                return Err(Fail::Error(CalcError::new(
                    ErrorKind::Needs("only an exact value can be shown as a fraction".into()),
                    target.map_or(0..0, |(_, s)| s.clone()),
                )));
            };
            let text = if mixed {
                mixed_fraction(r)
            } else {
                format!("{}/{}", r.numerator(), r.denominator())
            };
            let text = with_unit(text, &q);
            return Ok(Answer {
                reading,
                value: text,
                approximate: false,
                fraction: None,
                note: None,
                kind: AnswerKind::Value,
            });
        }
        // Money that does not come out in whole cents (a conversion at a
        // rate) shows to the cent, as the peers do; asked formats win.
        let money = {
            let mut d = crate::units::Dim::NONE;
            d.0[crate::units::MONEY] = crate::units::WHOLE as i16;
            q.dim == d
        };
        if money
            && style.round.is_none()
            && !style.scientific
            && !style.engineering
            && style.radix == Radix::Decimal
            && value.is_real()
            && value.as_rational().is_none_or(|r| {
                crate::format::terminating_places(r.denominator(), 10).is_none_or(|p| p > 2)
            })
        {
            style.round = Some(Round::Places(2));
        }
        // Places asked: as many significant digits as reach them.
        if let Some(Round::Places(p)) = style.round {
            let reach = |x: &Real| crate::real::decimal_exponent(x).unwrap_or(0) + 1 + p as i64;
            let most = reach(&value.re).max(reach(&value.im));
            style.digits = most.clamp(1, MAX_DIGITS as i64) as usize;
        }
        // Not enough certain digits: try again with more bits.
        for part in [&value.re, &value.im] {
            if !precise_enough(part, style.digits) {
                return Err(Fail::Retry);
            }
        }
        let printed = print_number(work, &value, style).map_err(|n| self.num_error(n, &(0..0)))?;
        let fraction = match value.as_rational() {
            // A rounding asked for is the answer asked for.
            Some(r)
                if printed.approximate
                    && style.round.is_none()
                    && r.numerator().unsigned_abs().bit_len() < 128
                    && r.denominator().bit_len() < 128 =>
            {
                Some(format!("{}/{}", r.numerator(), r.denominator()))
            }
            _ => None,
        };
        let text = if self.settings.group_digits
            && style.radix == Radix::Decimal
            && !style.scientific
            && !style.engineering
        {
            group_digits(&printed.text, if style.decimal_comma { ',' } else { '.' })
        } else {
            printed.text
        };
        Ok(Answer {
            reading,
            value: with_unit(text, &q),
            approximate: printed.approximate,
            fraction,
            note: None,
            kind: AnswerKind::Value,
        })
    }

    /// `ft in`: two or more bare units of one dimension side by side.
    fn mixed_units(&self, t: &Expr) -> Option<Vec<Unit>> {
        let mut names = Vec::new();
        let mut e = t;
        loop {
            match &e.kind {
                ExprKind::Binary {
                    op: BinOp::Implicit,
                    lhs,
                    rhs,
                } => {
                    let ExprKind::Name(n, _) = &rhs.kind else {
                        return None;
                    };
                    names.push(n.clone());
                    e = lhs;
                }
                ExprKind::Name(n, _) => {
                    names.push(n.clone());
                    break;
                }
                _ => return None,
            }
        }
        if names.len() < 2 {
            return None;
        }
        names.reverse();
        let units: Vec<Unit> = names
            .iter()
            .map(|n| table().lookup(n))
            .collect::<Option<_>>()?;
        let dim = units[0].dim;
        (units.iter().all(|u| u.dim == dim && u.zero.is_none())).then_some(units)
    }

    /// `1.74 m to ft in` → `5 ft 8.5 in`: whole numbers of each unit but
    /// the last, which is rounded to two decimals.
    fn present_mixed(
        &self,
        work: &Work<'_>,
        q: &Quantity,
        units: &[Unit],
        span: &Span,
        reading: String,
    ) -> Eval<Answer> {
        let ne = |n| self.num_error(n, span);
        if q.dim != units[0].dim {
            return Err(Fail::Error(CalcError::new(
                ErrorKind::Convert {
                    from: describe(q),
                    to: units
                        .iter()
                        .map(|u| u.name.as_str())
                        .collect::<Vec<_>>()
                        .join(" "),
                },
                span.clone(),
            )));
        }
        let Some(value) = q.num.is_real().then(|| q.num.re.clone()) else {
            return Err(Fail::Error(CalcError::new(
                ErrorKind::Needs("mixed units need a real value".into()),
                span.clone(),
            )));
        };
        let negative = work.sign(&value).map_err(ne)? == std::cmp::Ordering::Less;
        let mut rest = crate::real::abs(&value);
        let mut parts: Vec<Real> = Vec::new();
        let mut approximate = false;
        for (i, u) in units.iter().enumerate() {
            let size = work.factor(&u.factor).map_err(ne)?;
            let v = work.div(&rest, &size).map_err(ne)?;
            if i + 1 < units.len() {
                let whole = work.round(&v, crate::real::Rounding::Floor).map_err(ne)?;
                let used = work.mul(&whole, &size).map_err(ne)?;
                rest = work.sub(&rest, &used).map_err(ne)?;
                parts.push(whole);
            } else {
                // Two decimals.
                let hundred = crate::real::exact(100);
                let scaled = work.mul(&v, &hundred).map_err(ne)?;
                let rounded = work
                    .round(&scaled, crate::real::Rounding::Nearest)
                    .map_err(ne)?;
                let last = work.div(&rounded, &hundred).map_err(ne)?;
                approximate = !matches!(
                    (&v, &last),
                    (Real::Exact(a), Real::Exact(b)) if a == b
                );
                parts.push(last);
            }
        }
        let style = self.style();
        let mut text = String::new();
        if negative {
            text.push('-');
        }
        let mut first = true;
        for (i, (part, u)) in parts.iter().zip(units).enumerate() {
            let is_zero = matches!(part, Real::Exact(r) if r.is_zero());
            // Leading zero parts are left out, never the last one.
            if is_zero && first && i + 1 < units.len() {
                continue;
            }
            if !first {
                text.push(' ');
            }
            first = false;
            let check = || work.budget.check();
            text.push_str(&print_real(part, style, &check).map_err(ne)?.text);
            text.push(' ');
            text.push_str(&u.name);
        }
        Ok(Answer {
            reading,
            value: text,
            approximate,
            fraction: None,
            note: None,
            kind: AnswerKind::Value,
        })
    }
}

impl Scope<'_> {
    fn top() -> Scope<'static> {
        Scope {
            bindings: &[],
            depth: 0,
        }
    }
}

/// Whether a part has the asked digits certain.
fn precise_enough(x: &Real, digits: usize) -> bool {
    match x {
        Real::Exact(_) => true,
        Real::Pi(..) => false,
        Real::Approx(b) => {
            let bits = (digits as f64 * std::f64::consts::LOG2_10).ceil() as i64 + 4;
            let m = Mag::of_repr_down(&b.mid);
            b.rad.le(m.mul_down(Mag::pow2(-bits)))
        }
    }
}

/// Decimal exponents beyond this print through a scaled ball (`m·10^E`
/// with `m` computed at the working precision) instead of exact powers of
/// ten, which would take memory and time in proportion to the exponent.
const EXACT_PRINT_EXPONENT: i64 = 20_000;

/// Prints one part, scaling huge or tiny magnitudes first.
fn print_part(work: &Work<'_>, x: &Real, style: Style) -> Result<Printed, NumError> {
    let e10 = crate::real::decimal_exponent(x);
    let integer = matches!(x, Real::Exact(r) if r.denominator().is_one());
    let Some(e10) = e10.filter(|e| e.abs() > EXACT_PRINT_EXPONENT && !integer) else {
        return print_real(x, style, &|| work.budget.check());
    };
    let ball = work.to_ball(x)?;
    let scale = work.pow10_ball(e10)?;
    let m = work.div(&Real::Approx(ball), &Real::Approx(scale))?;
    let printed = print_real(
        &m,
        Style {
            scientific: true,
            ..style
        },
        &|| work.budget.check(),
    )?;
    // The mantissa prints as `d.ddde0` (or e-1, e1 when the estimate was
    // off by one): add the exponents.
    let Some((mantissa, k)) = printed.text.rsplit_once('e') else {
        return Ok(printed);
    };
    let k: i64 = k.parse().unwrap_or(0);
    Ok(Printed {
        text: format!("{mantissa}e{}", e10 + k),
        approximate: true,
    })
}

fn print_number(work: &Work<'_>, x: &Number, style: Style) -> Result<Printed, NumError> {
    let re = print_part(work, &x.re, style)?;
    if x.is_real() {
        return Ok(re);
    }
    let im = print_part(work, &crate::real::abs(&x.im), style)?;
    let negative_im = match &x.im {
        Real::Exact(r) | Real::Pi(r, _) => r.sign() == Sign::Negative,
        Real::Approx(b) => b.mid.significand().sign() == Sign::Negative,
    };
    let im_text = if im.text == "1" && !im.approximate {
        "i".to_string()
    } else {
        format!("{}i", im.text)
    };
    let re_zero = matches!(&x.re, Real::Exact(r) if r.is_zero());
    let text = if re_zero {
        format!("{}{im_text}", if negative_im { "-" } else { "" })
    } else {
        format!(
            "{} {} {im_text}",
            re.text,
            if negative_im { "-" } else { "+" }
        )
    };
    Ok(Printed {
        text,
        approximate: re.approximate || im.approximate,
    })
}

fn with_unit(text: String, q: &Quantity) -> String {
    if q.shown.is_empty() {
        text
    } else {
        format!("{text} {}", q.unit_text())
    }
}

fn format_name(f: Format) -> String {
    match f {
        Format::Hex => "hex".into(),
        Format::Octal => "oct".into(),
        Format::Binary => "bin".into(),
        Format::Decimal => "dec".into(),
        Format::Scientific => "sci".into(),
        Format::Engineering => "eng".into(),
        Format::Fraction => "fraction".into(),
        Format::MixedFraction => "mixed fraction".into(),
        Format::Base(b) => format!("base {b}"),
        Format::Significant(n) => format!("{n} significant digits"),
        Format::Places(p) => format!("{p} decimal places"),
    }
}

/// `7/2` as `3 1/2`, `-7/2` as `-3 1/2`, a whole number as itself.
fn mixed_fraction(r: &RBig) -> String {
    let (n, d) = (r.numerator().unsigned_abs(), r.denominator().clone());
    let sign = if r.sign() == Sign::Negative { "-" } else { "" };
    let (whole, rest) = (&n / &d, &n % &d);
    if rest.is_zero() {
        format!("{sign}{whole}")
    } else if whole.is_zero() {
        format!("{sign}{rest}/{d}")
    } else {
        format!("{sign}{whole} {rest}/{d}")
    }
}

/// Levenshtein distance, giving up (returning `limit + 1`) beyond
/// `limit`.
fn edit_distance(a: &str, b: &str, limit: usize) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    if a.len().abs_diff(b.len()) > limit {
        return limit + 1;
    }
    // Two rows back too: swapping two neighbours (`cso` → `cos`) is one
    // edit, as people make it.
    let mut before: Vec<usize> = vec![0; b.len() + 1];
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut cur = vec![0; b.len() + 1];
    for (i, ca) in a.iter().enumerate() {
        cur[0] = i + 1;
        let mut row_min = cur[0];
        for (j, cb) in b.iter().enumerate() {
            let cost = usize::from(ca != cb);
            cur[j + 1] = (prev[j] + cost).min(prev[j + 1] + 1).min(cur[j] + 1);
            if i > 0 && j > 0 && *ca == b[j - 1] && a[i - 1] == *cb {
                cur[j + 1] = cur[j + 1].min(before[j - 1] + 1);
            }
            row_min = row_min.min(cur[j + 1]);
        }
        if row_min > limit {
            return limit + 1;
        }
        std::mem::swap(&mut before, &mut prev);
        std::mem::swap(&mut prev, &mut cur);
    }
    prev[b.len()]
}

impl Names for Calculator {
    fn kind(&self, name: &str) -> Option<NameKind> {
        if self.variables.contains_key(name) || name == "ans" {
            return Some(NameKind::Value);
        }
        let function = self.functions.contains_key(name) || builtin_arity(name).is_some();
        let unit = math_constant(name).is_none()
            && physical(name).is_none()
            && table().lookup(name).is_some();
        match (function, unit) {
            (true, true) => Some(NameKind::UnitOrFunction),
            (true, false) => Some(NameKind::Function),
            (false, true) => Some(NameKind::Unit),
            (false, false) if math_constant(name).is_some() || physical(name).is_some() => {
                Some(NameKind::Value)
            }
            _ => None,
        }
    }
}

/// The statements of a line: the pieces between `;` outside parentheses,
/// each with its byte offset.
/// Where a `#` comment starts (the line's end if none); the `#` of a
/// base literal (`6#100`, `16#ff`) is not one.
fn comment_start(line: &str) -> usize {
    let bytes = line.as_bytes();
    for (i, &b) in bytes.iter().enumerate() {
        if b != b'#' {
            continue;
        }
        let base_digits = bytes[..i]
            .iter()
            .rev()
            .take_while(|c| c.is_ascii_digit())
            .count();
        let before = i - base_digits;
        let is_base = (1..=2).contains(&base_digits)
            && line[before..i]
                .parse::<u32>()
                .is_ok_and(|b| (2..=36).contains(&b))
            && (before == 0 || !bytes[before - 1].is_ascii_alphanumeric())
            && bytes.get(i + 1).is_some_and(u8::is_ascii_alphanumeric);
        if !is_base {
            return i;
        }
    }
    line.len()
}

fn statements(line: &str) -> Vec<(usize, &str)> {
    let mut out = Vec::new();
    let (mut depth, mut start) = (0i32, 0usize);
    for (i, c) in line.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            ';' if depth <= 0 => {
                out.push((start, &line[start..i]));
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push((start, &line[start..]));
    out
}

/// Names without user definitions (for the built-in constants).
struct BuiltinNames;

impl Names for BuiltinNames {
    fn kind(&self, name: &str) -> Option<NameKind> {
        Calculator::default().kind(name)
    }
}

/// The whole parts of the numbers in `text` in groups of three digits,
/// parted by thin spaces: every run of five or more digits that is not
/// after the decimal `mark` or in an exponent.
fn group_digits(text: &str, mark: char) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len() + text.len() / 3);
    let mut k = 0;
    while k < chars.len() {
        if !chars[k].is_ascii_digit() {
            out.push(chars[k]);
            k += 1;
            continue;
        }
        let start = k;
        while k < chars.len() && chars[k].is_ascii_digit() {
            k += 1;
        }
        let before = start.checked_sub(1).map(|i| chars[i]);
        let fractional = before == Some(mark);
        let exponent = matches!(before, Some('e' | '^' | '-' | '+'))
            && start >= 2
            && matches!(chars[start - 2], 'e' | '^')
            || matches!(before, Some('e' | '^'));
        let run = &chars[start..k];
        if fractional || exponent || run.len() < 5 {
            out.extend(run);
            continue;
        }
        out.push_str(&crate::format::grouped(
            &run.iter().collect::<String>(),
            '\u{2009}',
        ));
    }
    out
}

/// Coherent SI units that name a compound: `(5 V)/(2 ohm)` is 2.5 A, `W s`
/// is J. Tried in this order; the first of the quantity's dimension wins.
const DERIVED: &[&str] = &[
    "A", "N", "J", "W", "Pa", "C", "V", "Ω", "F", "S", "Wb", "T", "H",
];

/// `text` split at its top-level commas (not inside parentheses, not a
/// digit group such as `1,000`).
pub(crate) fn split_functions(text: &str) -> Vec<String> {
    let bytes = text.as_bytes();
    let mut parts = Vec::new();
    let mut depth = 0i32;
    let mut start = 0;
    for (i, &b) in bytes.iter().enumerate() {
        match b {
            b'(' | b'[' => depth += 1,
            b')' | b']' => depth -= 1,
            b',' if depth == 0 => {
                let group = i > 0
                    && bytes[i - 1].is_ascii_digit()
                    && bytes.len() >= i + 4
                    && bytes[i + 1..i + 4].iter().all(u8::is_ascii_digit)
                    && !bytes.get(i + 4).is_some_and(u8::is_ascii_digit);
                if !group {
                    parts.push(text[start..i].trim().to_string());
                    start = i + 1;
                }
            }
            _ => {}
        }
    }
    parts.push(text[start..].trim().to_string());
    parts.retain(|p| !p.is_empty());
    parts
}

/// How many different currencies a line names.
fn currencies(tokens: &[crate::lex::Token]) -> usize {
    let mut seen: Vec<crate::units::Factor> = Vec::new();
    for t in tokens {
        if let crate::lex::Tok::Ident(name) = &t.tok
            && let Some(u) = table().lookup(name)
            && u.dim.0[crate::units::MONEY] != 0
            && !seen.contains(&u.factor)
        {
            seen.push(u.factor);
        }
    }
    seen.len()
}

/// Shows a quantity whose units are two or more coherent SI units (no
/// prefix, no other size) in the one named unit of its dimension, if there
/// is one: the value does not change, only its name.
/// Units among the shown ones whose dimensions cancel (`s·MHz`, `h/yr`,
/// `J/(W·s)`) are left out: `c/(145 MHz)` is ≈ 2.07 m, not
/// 2067534 m/(s·MHz). The largest such set goes (ties: the first found);
/// units without a dimension (%, rad, dozen) and temperatures on a scale
/// stay. The number is in SI units, so leaving units out is exact.
fn cancel_units(q: &mut Quantity) {
    let candidates: Vec<usize> = q
        .shown
        .iter()
        .enumerate()
        .filter(|(_, (u, _))| !u.dim.is_none() && u.zero.is_none())
        .map(|(i, _)| i)
        .collect();
    // Results show a handful of units; past that, leave them as typed.
    if candidates.len() < 2 || candidates.len() > 10 {
        return;
    }
    let mut best: Option<u32> = None;
    for mask in 1u32..(1 << candidates.len()) {
        if mask.count_ones() < 2 || best.is_some_and(|b| b.count_ones() >= mask.count_ones()) {
            continue;
        }
        let mut sum = [0i64; 9];
        for (bit, &i) in candidates.iter().enumerate() {
            if mask & (1 << bit) != 0
                && let Some((u, p)) = q.shown.get(i)
            {
                for (slot, d) in sum.iter_mut().zip(u.dim.0) {
                    *slot += i64::from(d) * i64::from(*p);
                }
            }
        }
        if sum.iter().all(|&x| x == 0) {
            best = Some(mask);
        }
    }
    if let Some(mask) = best {
        let gone: Vec<usize> = candidates
            .iter()
            .enumerate()
            .filter(|(bit, _)| mask & (1 << bit) != 0)
            .map(|(_, &i)| i)
            .collect();
        let mut index = 0;
        q.shown.retain(|_| {
            let keep = !gone.contains(&index);
            index += 1;
            keep
        });
    }
}

fn name_derived_unit(q: &mut Quantity) {
    if q.shown.len() < 2 || q.dim.is_none() {
        return;
    }
    let coherent = q
        .shown
        .iter()
        .all(|(u, _)| u.zero.is_none() && u.factor == crate::units::Factor::one());
    if !coherent {
        return;
    }
    if let Some(unit) = DERIVED
        .iter()
        .filter_map(|name| table().lookup(name))
        .find(|u| u.dim == q.dim)
    {
        q.shown = vec![(unit, crate::units::WHOLE)];
        return;
    }
    // No name, but fewer base units than those shown: `N/Pa` is m².
    let base: Vec<(crate::units::Unit, i32)> = crate::units::BASE_NAMES
        .iter()
        .zip(q.dim.0)
        .filter(|(_, p)| *p != 0)
        .filter_map(|(name, p)| table().lookup(name).map(|u| (u, i32::from(p))))
        .collect();
    if base.len() < q.shown.len() && base.iter().map(|(_, p)| *p).ne(std::iter::empty()) {
        q.shown = base;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The line that panics in this crate's unit tests.
    pub(super) const PANICS: &str = "panic for the test";

    /// A panic is that line's error; the definitions before it and the
    /// lines after it work, in a column as one by one.
    #[test]
    fn a_panic_is_one_line_error() {
        let mut calc = Calculator::default();
        let column = calc.evaluate_column(
            &format!("y = 6\n{PANICS}\ny * 7\n"),
            false,
            &CancelFlag::new(),
        );
        let shown: Vec<String> = column
            .lines
            .iter()
            .map(|l| match l {
                Some(Ok(a)) => a.display(),
                Some(Err(e)) => format!("error: {e}"),
                None => "-".into(),
            })
            .collect();
        assert_eq!(shown[0], "y = 6");
        assert_eq!(
            shown[1],
            "error: internal error on this line (a bug, as a test); the line was skipped, please report it"
        );
        assert_eq!(shown[2], "= 42");
        assert!(calc.definitions_text().contains("y = 6"));
        assert!(calc.evaluate(PANICS).is_err());
        assert_eq!(
            calc.evaluate("y + 1").map(|a| a.display()).ok().as_deref(),
            Some("= 7")
        );
    }
}
