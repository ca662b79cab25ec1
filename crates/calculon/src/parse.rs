//! The parser: tokens to a statement, by precedence climbing.
//!
//! Binding, loosest first (the README's "How input is read"):
//!
//! | level | operators |
//! | --- | --- |
//! | 2–4 | `or`, `xor`, `and` (bitwise, on integers) |
//! | 5 | `<` `<=` `>` `>=` `==` `!=` (1 when true, 0 when false) |
//! | 8 | `<<` `>>` |
//! | 10 | `+` `-`, and mixed units `5 ft 10 in` (= 5 ft + 10 in) |
//! | 20 | `*` `/` `mod` `of` |
//! | 25 | prefix `-` |
//! | 30 | implicit multiplication: `2pi`, `3(4+5)`, `6/2(1+2)` = 6/(2·3) |
//! | 40 | `^` `**` (right to left), `√` |
//! | 50 | postfix `!` `%` `²` `³` |
//!
//! A function name without parentheses applies to the implicit product
//! after it: `sin 30 deg` is sin(30 deg), `sqrt 2x` is sqrt(2x).

use std::fmt;

use dashu_ratio::RBig;

use crate::error::{CalcError, ErrorKind, Span};
use crate::lex::{Comparison, Tok, Token};

/// What a name stands for, as far as reading the input needs to know.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum NameKind {
    Unit,
    Function,
    /// Both (`min`: the minute, and `min(a, b)`): a call only with
    /// parentheses.
    UnitOrFunction,
    Value,
}

/// Tells the parser what names mean (units, functions, values).
pub(crate) trait Names {
    fn kind(&self, name: &str) -> Option<NameKind>;
}

#[derive(Clone, Debug)]
pub(crate) struct Expr {
    pub(crate) kind: ExprKind,
    pub(crate) span: Span,
}

#[derive(Clone, Debug)]
pub(crate) enum ExprKind {
    Number(RBig),
    Name(String, Option<NameKind>),
    Call {
        name: String,
        args: Vec<Expr>,
    },
    Neg(Box<Expr>),
    Binary {
        op: BinOp,
        lhs: Box<Expr>,
        rhs: Box<Expr>,
    },
    Percent(Box<Expr>),
    Factorial(Box<Expr>),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum BinOp {
    Add,
    Sub,
    Mul,
    Div,
    Pow,
    Mod,
    /// `10% of 200`.
    Of,
    /// Juxtaposition: `2pi`, `5 ft`.
    Implicit,
    /// Juxtaposed quantities: `5 ft 10 in`.
    Mixed,
    /// A comparison: 1 when it holds, 0 when not.
    Compare(Comparison),
}

/// Output formats after `to`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Format {
    Hex,
    Octal,
    Binary,
    Decimal,
    Scientific,
    Engineering,
    Fraction,
    /// `3 1/2`.
    MixedFraction,
    /// `to base 3`: 2 to 36.
    Base(u32),
    /// `to 3 sf`, `to 50 digits`, `to 3 significant figures`.
    Significant(usize),
    /// `to 2 dp`, `to 2 decimal places`.
    Places(usize),
}

/// The most digits a rounding may ask for.
pub(crate) const MAX_ASKED_DIGITS: usize = 1_000_000;

#[derive(Clone, Debug)]
pub(crate) enum Target {
    Format(Format),
    Units(Expr),
}

#[derive(Clone, Debug)]
pub(crate) enum Statement {
    Eval {
        expr: Expr,
        target: Option<(Target, Span)>,
    },
    Assign {
        name: String,
        name_span: Span,
        /// Further names in a chain (`a = b = 2`), each given the value.
        also: Vec<(String, Span)>,
        expr: Expr,
    },
    Define {
        name: String,
        name_span: Span,
        params: Vec<String>,
        body: Expr,
    },
    Plot {
        expr: Expr,
        /// Further functions on the same graph.
        more: Vec<Expr>,
        var: String,
        range: Option<(Expr, Expr)>,
    },
}

const KEYWORDS: &[&str] = &[
    "to", "as", "in", "of", "mod", "from", "plot", "and", "or", "xor", "per",
];

pub(crate) fn is_keyword(name: &str) -> bool {
    KEYWORDS.contains(&name)
}

fn format_name(name: &str) -> Option<Format> {
    Some(match name {
        "hex" | "hexadecimal" => Format::Hex,
        "oct" | "octal" => Format::Octal,
        "bin" | "binary" => Format::Binary,
        "dec" | "decimal" => Format::Decimal,
        "sci" | "scientific" => Format::Scientific,
        "eng" | "engineering" => Format::Engineering,
        "fraction" | "frac" | "exact" | "fractions" => Format::Fraction,
        "mixed_fraction" | "mixed_frac" => Format::MixedFraction,
        _ => return None,
    })
}

pub(crate) fn parse(
    tokens: &[Token],
    names: &dyn Names,
    input_len: usize,
) -> Result<Statement, CalcError> {
    parse_closing(tokens, names, input_len).map(|(statement, _)| statement)
}

/// As [`parse`], and how many parentheses the end of the line closed.
pub(crate) fn parse_closing(
    tokens: &[Token],
    names: &dyn Names,
    input_len: usize,
) -> Result<(Statement, usize), CalcError> {
    if tokens.len() > MAX_TOKENS {
        return Err(CalcError::new(
            ErrorKind::TooLong {
                tokens: tokens.len(),
                limit: MAX_TOKENS,
            },
            0..input_len,
        ));
    }
    let mut p = Parser {
        tokens,
        pos: 0,
        names,
        end: input_len,
        params: Vec::new(),
        closed: 0,
    };
    let statement = p.statement()?;
    if let Some(t) = p.peek_token() {
        return Err(CalcError::new(
            ErrorKind::Unexpected {
                found: describe(&t.tok),
                expected: "an operator or the end of the input",
            },
            t.span.clone(),
        ));
    }
    Ok((statement, p.closed))
}

/// Statements longer than this are refused: it bounds the depth of the
/// tree, which is walked (and dropped) recursively.
const MAX_TOKENS: usize = 2000;

struct Parser<'a> {
    tokens: &'a [Token],
    pos: usize,
    names: &'a dyn Names,
    end: usize,
    /// The parameters of the function being defined: values in its body.
    params: Vec<String>,
    /// Parentheses the end of the line closed.
    closed: usize,
}

fn describe(tok: &Tok) -> String {
    match tok {
        Tok::Number(_) => "a number".into(),
        Tok::Ident(s) => format!("{s:?}"),
        Tok::Plus => "'+'".into(),
        Tok::Minus => "'-'".into(),
        Tok::Star => "'*'".into(),
        Tok::Slash => "'/'".into(),
        Tok::Caret => "'^'".into(),
        Tok::LParen => "'('".into(),
        Tok::RParen => "')'".into(),
        Tok::Comma => "','".into(),
        Tok::Equals => "'='".into(),
        Tok::Bang => "'!'".into(),
        Tok::Percent => "'%'".into(),
        Tok::Arrow => "'->'".into(),
        Tok::Sqrt => "'√'".into(),
        Tok::Super(n) => format!("superscript {n}"),
        Tok::Compare(_) => "a comparison".into(),
        Tok::Shift(true) => "'<<'".into(),
        Tok::Shift(false) => "'>>'".into(),
    }
}

impl Parser<'_> {
    fn peek_token(&self) -> Option<&Token> {
        self.tokens.get(self.pos)
    }

    fn peek(&self) -> Option<&Tok> {
        self.tokens.get(self.pos).map(|t| &t.tok)
    }

    fn peek_at(&self, k: usize) -> Option<&Tok> {
        self.tokens.get(self.pos + k).map(|t| &t.tok)
    }

    fn here(&self) -> Span {
        self.peek_token()
            .map_or(self.end..self.end, |t| t.span.clone())
    }

    fn bump(&mut self) -> Option<&Token> {
        let t = self.tokens.get(self.pos);
        self.pos += 1;
        t
    }

    fn expect(&mut self, want: Tok, expected: &'static str) -> Result<Span, CalcError> {
        match self.peek_token() {
            Some(t) if t.tok == want => {
                let span = t.span.clone();
                self.pos += 1;
                Ok(span)
            }
            Some(t) => Err(CalcError::new(
                ErrorKind::Unexpected {
                    found: describe(&t.tok),
                    expected,
                },
                t.span.clone(),
            )),
            None => Err(CalcError::new(
                ErrorKind::Unexpected {
                    found: "the end of the input".into(),
                    expected,
                },
                self.end..self.end,
            )),
        }
    }

    /// A closing parenthesis, or the end of the line, which closes every
    /// one still open (as fend and qalc do); [`Parser::closed`] counts them.
    fn close_paren(&mut self, expected: &'static str) -> Result<Span, CalcError> {
        if self.peek_token().is_none() {
            self.closed += 1;
            return Ok(self.end..self.end);
        }
        self.expect(Tok::RParen, expected)
    }

    /// `1 / operand` for a leading `/` or `per`.
    fn reciprocal(&mut self, span: Span) -> Result<Expr, CalcError> {
        let operand = self.expr(21)?;
        let one = Expr {
            kind: ExprKind::Number(RBig::ONE),
            span: span.clone(),
        };
        let whole = span.start..operand.span.end;
        Ok(binary(BinOp::Div, one, operand, whole))
    }

    fn ident_is(&self, k: usize, word: &str) -> bool {
        matches!(self.peek_at(k), Some(Tok::Ident(s)) if s == word)
    }

    fn statement(&mut self) -> Result<Statement, CalcError> {
        // name = expr, and chains: `a = b = 2` gives both the value.
        if let (Some(Tok::Ident(name)), Some(Tok::Equals)) = (self.peek(), self.peek_at(1)) {
            let name = name.clone();
            let name_span = self.here();
            self.pos += 2;
            let mut also = Vec::new();
            while let (Some(Tok::Ident(next)), Some(Tok::Equals)) = (self.peek(), self.peek_at(1)) {
                also.push((next.clone(), self.here()));
                self.pos += 2;
            }
            let expr = self.expr(0)?;
            return Ok(Statement::Assign {
                name,
                name_span,
                also,
                expr,
            });
        }
        // name(a, b) = expr
        if let Some(params) = self.definition_head() {
            let (name, name_span, params, skip) = params;
            self.pos += skip;
            self.params = params.clone();
            let body = self.expr(0)?;
            return Ok(Statement::Define {
                name,
                name_span,
                params,
                body,
            });
        }
        if self.ident_is(0, "plot") {
            self.pos += 1;
            let expr = self.expr(0)?;
            // Several functions on one graph: `plot sin x, cos x`.
            let mut more = Vec::new();
            while matches!(self.peek(), Some(Tok::Comma)) {
                self.pos += 1;
                more.push(self.expr(0)?);
            }
            let range = if self.ident_is(0, "from") {
                self.pos += 1;
                let from = self.expr(0)?;
                if !self.ident_is(0, "to") {
                    return Err(CalcError::new(
                        ErrorKind::Unexpected {
                            found: self.peek().map_or("the end of the input".into(), describe),
                            expected: "'to' and the end of the range",
                        },
                        self.here(),
                    ));
                }
                self.pos += 1;
                let to = self.expr(0)?;
                Some((from, to))
            } else {
                None
            };
            return Ok(Statement::Plot {
                expr,
                more,
                var: "x".into(),
                range,
            });
        }
        let expr = self.expr(0)?;
        let target = if self.at_conversion() {
            let start = self.here().start;
            self.pos += 1;
            let target = self.target()?;
            let end = self
                .tokens
                .get(self.pos - 1)
                .map_or(self.end, |t| t.span.end);
            Some((target, start..end))
        } else {
            None
        };
        Ok(Statement::Eval { expr, target })
    }

    /// `name ( ident , ident … ) =`: returns the name, its span, the
    /// parameters and the tokens to skip.
    fn definition_head(&self) -> Option<(String, Span, Vec<String>, usize)> {
        let Some(Tok::Ident(name)) = self.peek() else {
            return None;
        };
        if self.peek_at(1) != Some(&Tok::LParen) {
            return None;
        }
        let mut params = Vec::new();
        let mut k = 2;
        loop {
            match self.peek_at(k) {
                Some(Tok::Ident(p)) => params.push(p.clone()),
                _ => return None,
            }
            k += 1;
            match self.peek_at(k) {
                Some(Tok::Comma) => k += 1,
                Some(Tok::RParen) => break,
                _ => return None,
            }
        }
        (self.peek_at(k + 1) == Some(&Tok::Equals))
            .then(|| (name.clone(), self.here(), params, k + 2))
    }

    fn at_conversion(&self) -> bool {
        matches!(self.peek(), Some(Tok::Arrow))
            || self.ident_is(0, "to")
            || self.ident_is(0, "as")
            || self.ident_is(0, "in")
    }

    fn target(&mut self) -> Result<Target, CalcError> {
        if let Some(Tok::Ident(name)) = self.peek()
            && let Some(f) = format_name(name)
            && self.peek_at(1).is_none()
        {
            self.pos += 1;
            return Ok(Target::Format(f));
        }
        if let Some(f) = self.words_format()? {
            return Ok(Target::Format(f));
        }
        Ok(Target::Units(self.expr(0)?))
    }

    /// The formats asked in words, the whole rest of the line:
    /// `mixed fraction`, `base N`, `N digits`, `N sf` / `sig figs` /
    /// `significant figures` / `significant digits`, `N dp` / `decimals` /
    /// `decimal places`.
    fn words_format(&mut self) -> Result<Option<Format>, CalcError> {
        let words: Vec<String> = self.tokens[self.pos..]
            .iter()
            .map(|t| match &t.tok {
                Tok::Ident(s) => s.to_lowercase(),
                Tok::Number(n) => format!("#{n}"),
                _ => "?".into(),
            })
            .collect();
        let words: Vec<&str> = words.iter().map(String::as_str).collect();
        let span = self.here();
        let whole = |t: &Token| match &t.tok {
            Tok::Number(n) if n.denominator().is_one() => usize::try_from(n.numerator()).ok(),
            _ => None,
        };
        let count = |least: usize| -> Result<usize, CalcError> {
            let asked = self.tokens.get(self.pos).and_then(whole);
            match asked {
                Some(n) if (least..=MAX_ASKED_DIGITS).contains(&n) => Ok(n),
                _ => Err(CalcError::new(
                    ErrorKind::Needs(format!(
                        "the number of digits must be a whole number from {least} to {MAX_ASKED_DIGITS}"
                    )),
                    span.clone(),
                )),
            }
        };
        let format = match words[..] {
            ["mixed", "fraction" | "fractions"] => Format::MixedFraction,
            ["base", n] if n.starts_with('#') => {
                let base = self.tokens.get(self.pos + 1).and_then(whole);
                match base {
                    Some(b) if (2..=36).contains(&b) => Format::Base(b as u32),
                    _ => {
                        return Err(CalcError::new(
                            ErrorKind::Needs("the base must be a whole number from 2 to 36".into()),
                            self.tokens
                                .get(self.pos + 1)
                                .map_or(span.clone(), |t| t.span.clone()),
                        ));
                    }
                }
            }
            [n, "digits" | "digit" | "sf" | "sig" | "s.f."] if n.starts_with('#') => {
                Format::Significant(count(1)?)
            }
            [n, "sig", "figs" | "fig" | "figures" | "digits"]
            | [n, "significant", "figures" | "figure" | "digits" | "digit"]
                if n.starts_with('#') =>
            {
                Format::Significant(count(1)?)
            }
            [n, "dp" | "decimals" | "d.p."] | [n, "decimal", "places" | "place" | "digits"]
                if n.starts_with('#') =>
            {
                Format::Places(count(0)?)
            }
            _ => return Ok(None),
        };
        self.pos = self.tokens.len();
        Ok(Some(format))
    }

    /// Whether the token at `k` can begin an operand of an implicit
    /// multiplication. `in` is the inch unless what follows it can be a
    /// conversion target.
    fn starts_operand(&self, k: usize) -> bool {
        match self.peek_at(k) {
            Some(Tok::Number(_) | Tok::LParen | Tok::Sqrt) => true,
            Some(Tok::Ident(name)) if name == "in" => {
                !matches!(
                    self.peek_at(k + 1),
                    Some(Tok::Ident(next)) if !is_keyword(next)
                ) && !matches!(self.peek_at(k + 1), Some(Tok::LParen))
            }
            Some(Tok::Ident(name)) => !is_keyword(name),
            _ => false,
        }
    }

    fn expr(&mut self, min_bp: u8) -> Result<Expr, CalcError> {
        // Deep nesting recurses: grow the stack rather than overflow it.
        stacker::maybe_grow(64 * 1024, 1024 * 1024, || self.expr_inner(min_bp))
    }

    fn expr_inner(&mut self, min_bp: u8) -> Result<Expr, CalcError> {
        let mut lhs = self.prefix(min_bp)?;
        while let Some(tok) = self.peek() {
            // Postfix operators.
            let postfix = match tok {
                Tok::Bang => Some(ExprKind::Factorial as fn(Box<Expr>) -> ExprKind),
                Tok::Percent => Some(ExprKind::Percent as fn(Box<Expr>) -> ExprKind),
                _ => None,
            };
            if let Some(make) = postfix {
                if 50 < min_bp {
                    break;
                }
                let end = self.here().end;
                self.pos += 1;
                let span = lhs.span.start..end;
                lhs = Expr {
                    kind: make(Box::new(lhs)),
                    span,
                };
                continue;
            }
            if let Tok::Super(n) = tok {
                if 50 < min_bp {
                    break;
                }
                let n = *n;
                let s = self.here();
                self.pos += 1;
                let span = lhs.span.start..s.end;
                let exponent = Expr {
                    kind: ExprKind::Number(RBig::from(n)),
                    span: s,
                };
                lhs = binary(BinOp::Pow, lhs, exponent, span);
                continue;
            }
            let infix = match tok {
                Tok::Compare(c) => Some((BinOp::Compare(*c), 5)),
                Tok::Plus => Some((BinOp::Add, 10)),
                Tok::Minus => Some((BinOp::Sub, 10)),
                Tok::Star => Some((BinOp::Mul, 20)),
                Tok::Slash => Some((BinOp::Div, 20)),
                Tok::Caret => Some((BinOp::Pow, 40)),
                Tok::Ident(s) if s == "mod" => Some((BinOp::Mod, 20)),
                Tok::Ident(s) if s == "of" => Some((BinOp::Of, 20)),
                Tok::Ident(s) if s == "per" => Some((BinOp::Div, 20)),
                _ => None,
            };
            // Bitwise operators on integers, read as their functions:
            // `or` loosest, then `xor`, `and`, then the shifts.
            let bitwise = match tok {
                Tok::Ident(s) if s == "or" => Some(("or", 2)),
                Tok::Ident(s) if s == "xor" => Some(("xor", 3)),
                Tok::Ident(s) if s == "and" => Some(("and", 4)),
                Tok::Shift(true) => Some(("shl", 8)),
                Tok::Shift(false) => Some(("shr", 8)),
                _ => None,
            };
            if let Some((name, bp)) = bitwise {
                if bp < min_bp {
                    break;
                }
                self.pos += 1;
                let rhs = self.expr(bp + 1)?;
                let span = lhs.span.start..rhs.span.end;
                lhs = Expr {
                    kind: ExprKind::Call {
                        name: name.into(),
                        args: vec![lhs, rhs],
                    },
                    span,
                };
                continue;
            }
            if let Some((op, bp)) = infix {
                if bp < min_bp {
                    break;
                }
                self.pos += 1;
                // `^` is right-associative; the others left.
                let rhs = if op == BinOp::Pow {
                    self.expr(bp)?
                } else {
                    self.expr(bp + 1)?
                };
                let span = lhs.span.start..rhs.span.end;
                lhs = binary(op, lhs, rhs, span);
                continue;
            }
            // Juxtaposition.
            if self.starts_operand(0) {
                if 30 < min_bp {
                    break;
                }
                // `5 ft 10 in`: a number after a unit starts a new quantity.
                let mixed = matches!(self.peek(), Some(Tok::Number(_))) && ends_with_unit(&lhs);
                // `5(6)`, `(4)(6)`, `2 (5)`: parentheses make a product of
                // two numbers; only two bare numbers (`2 3`) are refused.
                let after_paren = self
                    .pos
                    .checked_sub(1)
                    .and_then(|k| self.tokens.get(k))
                    .is_some_and(|t| t.tok == Tok::RParen);
                let before_paren = self.peek() == Some(&Tok::LParen);
                let rhs = if mixed {
                    self.expr(30)?
                } else {
                    self.expr(31)?
                };
                if matches!(rhs.kind, ExprKind::Number(_))
                    && !mixed
                    && !after_paren
                    && !before_paren
                    && matches!(lhs.kind, ExprKind::Number(_))
                {
                    return Err(CalcError::new(
                        ErrorKind::Unexpected {
                            found: "a second number".into(),
                            expected: "an operator between the numbers",
                        },
                        rhs.span,
                    ));
                }
                let span = lhs.span.start..rhs.span.end;
                lhs = binary(
                    if mixed { BinOp::Mixed } else { BinOp::Implicit },
                    lhs,
                    rhs,
                    span,
                );
                continue;
            }
            break;
        }
        Ok(lhs)
    }

    /// An operand, with its prefix signs; `min_bp` is the binding the
    /// operand sits at: in an exponent (`kg^-1 m`) a sign takes only the
    /// power, not the product after it.
    fn prefix(&mut self, min_bp: u8) -> Result<Expr, CalcError> {
        let Some(token) = self.bump().cloned() else {
            return Err(CalcError::new(
                ErrorKind::Unexpected {
                    found: "the end of the input".into(),
                    expected: "a number, a name or '('",
                },
                self.end..self.end,
            ));
        };
        let span = token.span.clone();
        match token.tok {
            Tok::Number(value) => Ok(Expr {
                kind: ExprKind::Number(value),
                span,
            }),
            Tok::Minus => {
                let operand = self.expr(25.max(min_bp))?;
                let span = span.start..operand.span.end;
                Ok(Expr {
                    kind: ExprKind::Neg(Box::new(operand)),
                    span,
                })
            }
            Tok::Plus => self.expr(25.max(min_bp)),
            // A unit per something alone: `/s`, `per second` (1/s).
            Tok::Slash => self.reciprocal(span),
            Tok::Ident(name) if name == "per" && self.starts_operand(0) => self.reciprocal(span),
            Tok::LParen => {
                let inner = self.expr(0)?;
                let close = self.close_paren("')'")?;
                Ok(Expr {
                    kind: inner.kind,
                    span: span.start..close.end,
                })
            }
            Tok::Sqrt => {
                let operand = self.expr(40)?;
                let span = span.start..operand.span.end;
                Ok(Expr {
                    kind: ExprKind::Call {
                        name: "sqrt".into(),
                        args: vec![operand],
                    },
                    span,
                })
            }
            // `mod(5, 3)`, `xor(a, b)`: the keyword as a function.
            Tok::Ident(name)
                if is_keyword(&name)
                    && matches!(name.as_str(), "mod" | "xor")
                    && self.peek() == Some(&Tok::LParen) =>
            {
                self.pos += 1;
                let mut args = vec![self.expr(0)?];
                while self.peek() == Some(&Tok::Comma) {
                    self.pos += 1;
                    args.push(self.expr(0)?);
                }
                let close = self.close_paren("',' or ')'")?;
                Ok(Expr {
                    kind: ExprKind::Call { name, args },
                    span: span.start..close.end,
                })
            }
            Tok::Ident(name) if is_keyword(&name) && name != "in" => Err(CalcError::new(
                ErrorKind::Unexpected {
                    found: format!("{name:?}"),
                    expected: "a number, a name or '('",
                },
                span,
            )),
            Tok::Ident(name) => {
                let kind = if self.params.contains(&name) {
                    Some(NameKind::Value)
                } else {
                    self.names.kind(&name)
                };
                let callable = matches!(
                    kind,
                    None | Some(NameKind::Function | NameKind::UnitOrFunction)
                );
                if self.peek() == Some(&Tok::LParen) && callable {
                    self.pos += 1;
                    let mut args = Vec::new();
                    if self.peek() != Some(&Tok::RParen) {
                        loop {
                            args.push(self.expr(0)?);
                            if self.peek() == Some(&Tok::Comma) {
                                self.pos += 1;
                            } else {
                                break;
                            }
                        }
                    }
                    let close = self.close_paren("',' or ')'")?;
                    return Ok(Expr {
                        kind: ExprKind::Call { name, args },
                        span: span.start..close.end,
                    });
                }
                if kind == Some(NameKind::Function) && self.starts_operand(0) {
                    let arg = self.expr(30)?;
                    let span = span.start..arg.span.end;
                    return Ok(Expr {
                        kind: ExprKind::Call {
                            name,
                            args: vec![arg],
                        },
                        span,
                    });
                }
                Ok(Expr {
                    kind: ExprKind::Name(name, kind),
                    span,
                })
            }
            other => Err(CalcError::new(
                ErrorKind::Unexpected {
                    found: describe(&other),
                    expected: "a number, a name or '('",
                },
                span,
            )),
        }
    }
}

fn binary(op: BinOp, lhs: Expr, rhs: Expr, span: Span) -> Expr {
    Expr {
        kind: ExprKind::Binary {
            op,
            lhs: Box::new(lhs),
            rhs: Box::new(rhs),
        },
        span,
    }
}

/// Whether the rightmost factor of `e` is a unit (`5 ft`, `2 m²`).
fn ends_with_unit(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Name(_, kind) => matches!(kind, Some(NameKind::Unit | NameKind::UnitOrFunction)),
        ExprKind::Binary {
            op: BinOp::Implicit | BinOp::Pow,
            lhs,
            rhs,
        } => {
            if let ExprKind::Binary { op: BinOp::Pow, .. } = &e.kind {
                ends_with_unit(lhs)
            } else {
                ends_with_unit(rhs)
            }
        }
        _ => false,
    }
}

// ----------------------------------------------------------------------
// The interpretation: how the input was read, with every implicit
// operator and grouping made explicit.
// ----------------------------------------------------------------------

fn level(e: &Expr) -> u8 {
    match &e.kind {
        ExprKind::Binary { op, .. } => match op {
            BinOp::Compare(_) => 0,
            BinOp::Add | BinOp::Sub | BinOp::Mixed => 1,
            BinOp::Mul | BinOp::Div | BinOp::Mod | BinOp::Of | BinOp::Implicit => 2,
            BinOp::Pow => 4,
        },
        ExprKind::Neg(_) => 3,
        _ => 5,
    }
}

/// Prints `e`, in parentheses when its level is below `min`.
fn child(f: &mut fmt::Formatter<'_>, e: &Expr, min: u8) -> fmt::Result {
    if level(e) < min {
        write!(f, "({e})")
    } else {
        write!(f, "{e}")
    }
}

impl fmt::Display for Expr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.kind {
            ExprKind::Number(value) => {
                let style = crate::format::Style {
                    digits: 40,
                    radix: crate::format::Radix::Decimal,
                    scientific: false,
                    decimal_comma: false,
                    round: None,
                    engineering: false,
                };
                // A literal as typed: small, never stopped.
                let printed = crate::format::print_real(
                    &crate::real::Real::Exact(value.clone()),
                    style,
                    &crate::format::unchecked,
                );
                let Ok(printed) = printed else {
                    return write!(f, "{}/{}", value.numerator(), value.denominator());
                };
                if printed.approximate {
                    write!(f, "{}/{}", value.numerator(), value.denominator())
                } else {
                    write!(f, "{}", printed.text)
                }
            }
            ExprKind::Name(name, _) => write!(f, "{name}"),
            ExprKind::Call { name, args } => {
                write!(f, "{name}(")?;
                for (i, a) in args.iter().enumerate() {
                    if i > 0 {
                        write!(f, ", ")?;
                    }
                    write!(f, "{a}")?;
                }
                write!(f, ")")
            }
            ExprKind::Neg(e) => {
                write!(f, "-")?;
                child(f, e, 4)
            }
            ExprKind::Percent(e) => {
                child(f, e, 5)?;
                write!(f, "%")
            }
            ExprKind::Factorial(e) => {
                child(f, e, 5)?;
                write!(f, "!")
            }
            ExprKind::Binary { op, lhs, rhs } => {
                let (symbol, left_min, right_min) = match op {
                    BinOp::Add | BinOp::Mixed => (" + ", 1, 2),
                    BinOp::Sub => (" - ", 1, 2),
                    BinOp::Mul => (" × ", 2, 3),
                    BinOp::Div => (" / ", 2, 3),
                    BinOp::Mod => (" mod ", 2, 3),
                    BinOp::Of => (" of ", 2, 3),
                    BinOp::Implicit => {
                        let unit = ends_with_unit(rhs);
                        (if unit { " " } else { " × " }, 2, 3)
                    }
                    BinOp::Pow => ("^", 5, 4),
                    BinOp::Compare(c) => (
                        match c {
                            Comparison::Less => " < ",
                            Comparison::LessEq => " <= ",
                            Comparison::Greater => " > ",
                            Comparison::GreaterEq => " >= ",
                            Comparison::Equal => " == ",
                            Comparison::NotEqual => " != ",
                        },
                        1,
                        1,
                    ),
                };
                child(f, lhs, left_min)?;
                write!(f, "{symbol}")?;
                child(f, rhs, right_min)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lex::{LexOptions, lex};

    struct TestNames;
    impl Names for TestNames {
        fn kind(&self, name: &str) -> Option<NameKind> {
            match name {
                "ft" | "in" | "m" | "cm" | "h" | "mi" | "deg" | "km" | "s" | "min" => {
                    Some(NameKind::Unit)
                }
                "sin" | "sqrt" | "max" | "f" => Some(NameKind::Function),
                "pi" | "x" | "e" => Some(NameKind::Value),
                _ => None,
            }
        }
    }

    fn read(input: &str) -> String {
        let tokens = match lex(input, LexOptions::default()) {
            Ok(t) => t,
            Err(e) => return format!("lex error: {e}"),
        };
        match parse(&tokens, &TestNames, input.len()) {
            Ok(Statement::Eval { expr, target }) => match target {
                None => expr.to_string(),
                Some((Target::Units(t), _)) => format!("{expr} → {t}"),
                Some((Target::Format(f), _)) => format!("{expr} → {f:?}"),
            },
            Ok(Statement::Assign { name, expr, .. }) => format!("{name} := {expr}"),
            Ok(Statement::Define {
                name, params, body, ..
            }) => {
                format!("{name}({}) := {body}", params.join(", "))
            }
            Ok(Statement::Plot { expr, range, .. }) => format!(
                "plot {expr}{}",
                range
                    .map(|(a, b)| format!(" from {a} to {b}"))
                    .unwrap_or_default()
            ),
            Err(e) => format!("error: {e} at {:?}", e.span),
        }
    }

    #[test]
    fn readings() {
        let cases = [
            ("1 + 2 * 3", "1 + 2 × 3"),
            ("(1 + 2) * 3", "(1 + 2) × 3"),
            ("6/2(1+2)", "6 / (2 × (1 + 2))"),
            ("2pi", "2 × pi"),
            ("-2^2", "-2^2"),
            ("2^3^2", "2^3^2"),
            ("(2^3)^2", "(2^3)^2"),
            ("2^-1", "2^(-1)"),
            ("5 ft 10 in", "5 ft + 10 in"),
            ("5 ft 10 in to cm", "5 ft + 10 in → cm"),
            ("1.74 m to ft in", "1.74 m → ft in"),
            ("3 in in cm", "3 in → cm"),
            ("60 mi/h", "60 mi / h"),
            ("1 m / 1 m", "1 m / (1 m)"),
            ("sin 30 deg", "sin(30 deg)"),
            ("sqrt 2x", "sqrt(2 × x)"),
            ("√2 pi", "sqrt(2) × pi"),
            ("5!", "5!"),
            ("100 + 10%", "100 + 10%"),
            ("10% of 200", "10% of 200"),
            ("3m²", "3 m^2"),
            ("max(1, 2)", "max(1, 2)"),
            ("0xff to hex", "255 → Hex"),
            ("x = 5", "x := 5"),
            ("f(x, y) = x^2 + y", "f(x, y) := x^2 + y"),
            ("plot sin(x) from -1 to 1", "plot sin(x) from -1 to 1"),
            ("1 → km", "1 → km"),
            ("2 ** 3", "2^3"),
            ("1.5e3 m", "1500 m"),
            ("a - b - c", "a - b - c"),
            ("a - (b - c)", "a - (b - c)"),
            ("a / b / c", "a / b / c"),
            ("a / (b / c)", "a / (b / c)"),
        ];
        for (input, want) in cases {
            assert_eq!(read(input), want, "input {input:?}");
        }
    }

    #[test]
    fn errors_point_at_the_culprit() {
        assert_eq!(
            read("1 +"),
            "error: expected a number, a name or '(', found the end of the input at 3..3"
        );
        // The end of the line closes what is open (as fend and qalc do);
        // a closing parenthesis too many is still an error.
        assert_eq!(read("(1 + 2"), "1 + 2");
        assert_eq!(read("2 × (1 + 3"), "2 × (1 + 3)");
        assert_eq!(
            read("(1 + 2))"),
            "error: expected an operator or the end of the input, found ')' at 7..8"
        );
        assert_eq!(
            read("2 3"),
            "error: expected an operator between the numbers, found a second number at 2..3"
        );
        assert_eq!(
            read("1 + )"),
            "error: expected a number, a name or '(', found ')' at 4..5"
        );
        assert!(read("1 # 2").starts_with("lex error: unexpected character '#'"));
    }
}
