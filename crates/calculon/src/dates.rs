//! Dates and times: `today + 3 weeks`, `2027-01-01 - today`,
//! `now in Tokyo`, `now to UTC+9`, `3:45 pm + 2 h 30 min`,
//! `days until 2027-01-01`, `1 Jan 2027 to weekday`, `@1700000000`.
//!
//! A line is read here first when it holds a date (`2027-01-01`,
//! `1 Jan 2027`), a clock time (`15:30`, `3:45 pm`), a Unix time
//! (`@1700000000`) or one of the words `today`, `now`, `tomorrow`,
//! `yesterday`, `until`, `since` (unless the user gave that word a meaning).
//! Its grammar is small: moments and spans joined by `+` and `-`, then
//! `to` / `in` a zone, `weekday`, `unix` or a unit of time. Months and
//! years are calendar steps (`2027-01-31 + 1 month` is 2027-02-28, as in
//! both peers); other spans are exact seconds. Zones come from the IANA
//! database bundled with `jiff`, by name (`Asia/Tokyo`) or city
//! (`Tokyo`, `New York`), or as a fixed offset (`UTC+9`, `GMT-03:30`).

use dashu_base::UnsignedAbs;
use dashu_int::IBig;
use dashu_ratio::RBig;
use jiff::civil::{Date, DateTime, Time};
use jiff::tz::{Offset, TimeZone};
use jiff::{SignedDuration, Span, Timestamp, ZonedDateTime};

use crate::error::{CalcError, ErrorKind, Span as TextSpan};

const DAY: i64 = 86_400;

/// What the date reader needs from the calculator.
pub(crate) struct Context<'a> {
    /// The clock: Unix seconds (fixed in tests) or the system's.
    pub(crate) now: Option<i64>,
    /// The local zone's IANA name, or the system's zone.
    pub(crate) zone: Option<&'a str>,
    /// Whether the user gave a word a meaning of their own.
    pub(crate) defined: &'a dyn Fn(&str) -> bool,
}

/// A date line's answer: its text, and for a span asked in a unit of
/// time, the expression the unit engine should show instead.
pub(crate) enum Outcome {
    Shown {
        reading: String,
        value: String,
    },
    /// A span of exact seconds to convert (`… to hours`): `seconds`, the
    /// target's text.
    Convert {
        reading: String,
        seconds: RBig,
        target: String,
    },
}

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Date(i16, i8, i8),
    /// A clock time; `Some(true)` after `pm`, `Some(false)` after `am`.
    Clock(i8, i8, i8, Option<bool>),
    Unix(i64),
    Num(RBig),
    /// A word as typed (zone names keep their capitals).
    Word(String),
    /// `UTC+9`, `GMT-03:30`: an offset in seconds.
    Offset(i32),
    Plus,
    Minus,
    Comma,
    LParen,
    RParen,
}

#[derive(Clone, Debug)]
struct Token {
    tok: Tok,
    span: TextSpan,
}

impl Token {
    fn word(&self) -> Option<String> {
        match &self.tok {
            Tok::Word(w) => Some(w.to_lowercase()),
            _ => None,
        }
    }
}

const TRIGGERS: &[&str] = &["today", "now", "tomorrow", "yesterday", "until", "since"];

/// Whether `name` is a word only date lines read (`today`, `now`, …).
pub(crate) fn is_date_word(name: &str) -> bool {
    matches!(
        name.to_lowercase().as_str(),
        "today" | "now" | "tomorrow" | "yesterday"
    )
}

/// Reads `line` as a date line, if it is one: `None` hands it to the
/// ordinary reader.
pub(crate) fn try_line(line: &str, ctx: &Context<'_>) -> Option<Result<Outcome, CalcError>> {
    if let Some(e) = long_year(line) {
        return Some(Err(e));
    }
    let tokens = tokenize(line)?;
    let is_date = tokens.iter().enumerate().any(|(i, t)| match &t.tok {
        Tok::Date(..) | Tok::Clock(..) | Tok::Unix(_) => true,
        Tok::Word(w) => {
            let w = w.to_lowercase();
            (TRIGGERS.contains(&w.as_str()) && !(ctx.defined)(&w))
                || (month(&w).is_some()
                    && !(ctx.defined)(&w)
                    && (matches!(tokens.get(i + 1).map(|t| &t.tok), Some(Tok::Num(_)))
                        || matches!(
                            i.checked_sub(1).and_then(|j| tokens.get(j)).map(|t| &t.tok),
                            Some(Tok::Num(_))
                        )))
        }
        _ => false,
    });
    if !is_date {
        return None;
    }
    let mut reader = Reader {
        tokens: &tokens,
        pos: 0,
        end: line.len(),
        ctx,
        local: local_zone(ctx),
    };
    Some(reader.line(line))
}

fn local_zone(ctx: &Context<'_>) -> TimeZone {
    ctx.zone
        .and_then(|z| TimeZone::get(z).ok())
        .unwrap_or_else(TimeZone::system)
}

/// Splits the line; `None` when it holds a character no date line uses.
fn tokenize(line: &str) -> Option<Vec<Token>> {
    let bytes = line.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    let digits_at = |from: usize| {
        bytes[from..]
            .iter()
            .take_while(|b| b.is_ascii_digit())
            .count()
    };
    while i < bytes.len() {
        let c = line[i..].chars().next()?;
        let start = i;
        if c.is_whitespace() {
            i += c.len_utf8();
            continue;
        }
        let tok = if c.is_ascii_digit() {
            let n = digits_at(i);
            let whole = &line[i..i + n];
            i += n;
            if n == 4 && bytes.get(i) == Some(&b'-') && (1..=2).contains(&digits_at(i + 1)) {
                // 2027-01-01
                let m = digits_at(i + 1);
                let month: i8 = line[i + 1..i + 1 + m].parse().ok()?;
                let j = i + 1 + m;
                if bytes.get(j) != Some(&b'-') || !(1..=2).contains(&digits_at(j + 1)) {
                    return None;
                }
                let d = digits_at(j + 1);
                let day: i8 = line[j + 1..j + 1 + d].parse().ok()?;
                i = j + 1 + d;
                // 2027-01-01T09:30
                if bytes.get(i) == Some(&b'T') && bytes.get(i + 1).is_some_and(u8::is_ascii_digit) {
                    i += 1;
                }
                Tok::Date(whole.parse().ok()?, month, day)
            } else if n <= 2 && bytes.get(i) == Some(&b':') && digits_at(i + 1) == 2 {
                // 15:30, 3:45:10 pm
                let h: i8 = whole.parse().ok()?;
                let m: i8 = line[i + 1..i + 3].parse().ok()?;
                i += 3;
                let mut s = 0;
                if bytes.get(i) == Some(&b':') && digits_at(i + 1) == 2 {
                    s = line[i + 1..i + 3].parse().ok()?;
                    i += 3;
                }
                let rest = &line[i..];
                let spaces = rest.len() - rest.trim_start().len();
                let word: String = rest
                    .trim_start()
                    .chars()
                    .take_while(|c| c.is_alphabetic() || *c == '.')
                    .collect();
                let meridiem = match word.to_lowercase().as_str() {
                    "am" | "a.m." => Some(false),
                    "pm" | "p.m." => Some(true),
                    _ => None,
                };
                if meridiem.is_some() {
                    i += spaces + word.len();
                }
                Tok::Clock(h, m, s, meridiem)
            } else {
                let mut text = whole.to_string();
                if bytes.get(i) == Some(&b'.') && digits_at(i + 1) > 0 {
                    let f = digits_at(i + 1);
                    text.push_str(&line[i..i + 1 + f]);
                    i += 1 + f;
                }
                Tok::Num(decimal(&text)?)
            }
        } else if c == '@' && digits_at(i + 1) == 4 && bytes.get(i + 5) == Some(&b'-') {
            // fend's `@1970-01-01`: the date itself.
            i += 1;
            continue;
        } else if c == '@' && digits_at(i + 1) > 0 {
            let n = digits_at(i + 1);
            i += 1 + n;
            Tok::Unix(line[start + 1..i].parse().ok()?)
        } else if c.is_alphabetic() {
            let n: usize = line[i..]
                .chars()
                .take_while(|c| c.is_alphanumeric() || matches!(c, '_' | '/'))
                .map(char::len_utf8)
                .sum();
            let word = &line[i..i + n];
            i += n;
            let upper = word.to_uppercase();
            if matches!(upper.as_str(), "UTC" | "GMT") && matches!(bytes.get(i), Some(b'+' | b'-'))
            {
                let sign = if bytes[i] == b'-' { -1 } else { 1 };
                let h = digits_at(i + 1);
                if h == 0 || h > 2 {
                    return None;
                }
                let hours: i32 = line[i + 1..i + 1 + h].parse().ok()?;
                i += 1 + h;
                let mut minutes = 0;
                if bytes.get(i) == Some(&b':') && digits_at(i + 1) == 2 {
                    minutes = line[i + 1..i + 3].parse().ok()?;
                    i += 3;
                }
                Tok::Offset(sign * (hours * 3600 + minutes * 60))
            } else {
                Tok::Word(word.to_string())
            }
        } else {
            i += c.len_utf8();
            match c {
                '+' => Tok::Plus,
                '-' | '−' => Tok::Minus,
                ',' => Tok::Comma,
                '(' => Tok::LParen,
                ')' => Tok::RParen,
                _ => return None,
            }
        };
        out.push(Token {
            tok,
            span: start..i,
        });
    }
    Some(out)
}

fn decimal(text: &str) -> Option<RBig> {
    let (whole, frac) = text.split_once('.').unwrap_or((text, ""));
    let digits: IBig = format!("{whole}{frac}").parse().ok()?;
    let scale = IBig::from(10u8).pow(frac.len());
    Some(RBig::from_parts(digits, scale.unsigned_abs()))
}

fn month(word: &str) -> Option<i8> {
    const NAMES: [&str; 12] = [
        "january",
        "february",
        "march",
        "april",
        "may",
        "june",
        "july",
        "august",
        "september",
        "october",
        "november",
        "december",
    ];
    let w = word.strip_suffix('.').unwrap_or(word);
    NAMES
        .iter()
        .position(|n| {
            *n == w || (w.len() >= 3 && n.starts_with(w) && (w.len() == 3 || w == "sept"))
        })
        .map(|k| k as i8 + 1)
}

/// A span's unit: seconds it lasts, or calendar months.
enum Step {
    Seconds(i64),
    Months(i64),
}

fn step(word: &str) -> Option<Step> {
    Some(match word {
        "s" | "sec" | "secs" | "second" | "seconds" => Step::Seconds(1),
        "min" | "mins" | "minute" | "minutes" => Step::Seconds(60),
        "h" | "hr" | "hrs" | "hour" | "hours" => Step::Seconds(3600),
        "d" | "day" | "days" => Step::Seconds(DAY),
        "wk" | "wks" | "week" | "weeks" => Step::Seconds(7 * DAY),
        "fortnight" | "fortnights" => Step::Seconds(14 * DAY),
        "month" | "months" => Step::Months(1),
        "y" | "yr" | "yrs" | "year" | "years" => Step::Months(12),
        "decade" | "decades" => Step::Months(120),
        "century" | "centuries" => Step::Months(1200),
        _ => return None,
    })
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Date,
    DateTime,
    /// A time of day; `twelve` when typed with am / pm.
    Clock {
        twelve: bool,
    },
}

#[derive(Clone, Debug)]
struct Moment {
    at: ZonedDateTime,
    kind: Kind,
    /// Days a clock time moved past midnight.
    days_over: i64,
}

/// A span: calendar months, then exact seconds.
#[derive(Clone, Debug, PartialEq)]
struct Length {
    months: i64,
    seconds: RBig,
}

#[derive(Clone, Debug)]
enum Value {
    Moment(Moment),
    Length(Length),
}

struct Reader<'a> {
    tokens: &'a [Token],
    pos: usize,
    end: usize,
    ctx: &'a Context<'a>,
    local: TimeZone,
}

fn err(message: impl Into<String>, span: TextSpan) -> CalcError {
    CalcError::new(ErrorKind::Needs(message.into()), span)
}

impl Reader<'_> {
    fn peek(&self) -> Option<&Token> {
        self.tokens.get(self.pos)
    }

    fn tok_at(&self, k: usize) -> Option<Tok> {
        self.tokens.get(self.pos + k).map(|t| t.tok.clone())
    }

    fn here(&self) -> TextSpan {
        self.peek().map_or(self.end..self.end, |t| t.span.clone())
    }

    fn now(&self) -> Result<ZonedDateTime, CalcError> {
        let ts = match self.ctx.now {
            Some(s) => Timestamp::from_second(s).map_err(|e| err(e.to_string(), 0..0))?,
            // To the second: a clock read shows no digits that mean nothing.
            None => Timestamp::from_second(Timestamp::now().as_second())
                .unwrap_or(Timestamp::UNIX_EPOCH),
        };
        Ok(ts.to_zoned_datetime(self.local.clone()))
    }

    fn line(&mut self, text: &str) -> Result<Outcome, CalcError> {
        // `days until X`, `hours since X`, `time until X`
        let asked = match (
            self.peek().and_then(Token::word),
            self.tokens.get(1).and_then(Token::word),
        ) {
            (Some(unit), Some(dir))
                if (dir == "until" || dir == "since")
                    && (unit == "time" || step(&unit).is_some()) =>
            {
                self.pos = 2;
                Some((unit, dir == "until"))
            }
            _ => None,
        };
        let value = self.expr()?;
        let target = match self.peek().and_then(Token::word).as_deref() {
            Some("to" | "in" | "as") => {
                let from = self.tokens[self.pos].span.end;
                self.pos = self.tokens.len();
                Some((text[from..].trim().to_string(), from..self.end))
            }
            Some(_) | None if self.pos < self.tokens.len() => {
                return Err(CalcError::new(
                    ErrorKind::Unexpected {
                        found: format!("\"{}\"", &text[self.here()]),
                        expected: "+, - or to after a date or time",
                    },
                    self.here(),
                ));
            }
            _ => None,
        };
        let reading = text.trim().replace(" to ", " → ").replace(" in ", " → ");
        let (value, target) = match asked {
            Some((unit, until)) => {
                let Value::Moment(m) = value else {
                    return Err(err("a date or time after until or since", 0..self.end));
                };
                let by_days = unit == "time"
                    || matches!(step(&unit), Some(Step::Months(_)))
                    || matches!(step(&unit), Some(Step::Seconds(k)) if k >= DAY);
                let now = self.now_like(&m, by_days)?;
                let span = if until {
                    self.difference(&m, &now)?
                } else {
                    self.difference(&now, &m)?
                };
                let target = target.or_else(|| (unit != "time").then(|| (unit.clone(), 0..0)));
                (Value::Length(span), target)
            }
            None => (value, target),
        };
        match (value, target) {
            (Value::Moment(m), None) => Ok(Outcome::Shown {
                reading,
                value: show_moment(&m),
            }),
            (Value::Length(l), None) => Ok(Outcome::Shown {
                reading,
                value: show_length(&l),
            }),
            (Value::Moment(m), Some((t, span))) => Ok(Outcome::Shown {
                reading,
                value: self.moment_to(m, &t, span)?,
            }),
            (Value::Length(l), Some((t, span))) => {
                if l.months != 0 {
                    let word = t.to_lowercase();
                    if let Some(Step::Months(k)) = step(&word)
                        && l.seconds == RBig::ZERO
                    {
                        let n =
                            RBig::from_parts(IBig::from(l.months), IBig::from(k).unsigned_abs());
                        return Ok(Outcome::Shown {
                            reading,
                            value: format!("{} {word}", plain(&n)),
                        });
                    }
                    return Err(err(
                        "a span of months or years has no fixed length: ask in days from a date",
                        span,
                    ));
                }
                Ok(Outcome::Convert {
                    reading,
                    seconds: l.seconds,
                    target: t,
                })
            }
        }
    }

    /// Now, as a date when `m` is one and days are counted (`days until`).
    fn now_like(&self, m: &Moment, by_days: bool) -> Result<Moment, CalcError> {
        let now = self.now()?;
        Ok(match m.kind {
            Kind::Date if by_days => Moment {
                at: midnight(now.date(), &self.local)?,
                kind: Kind::Date,
                days_over: 0,
            },
            _ => Moment {
                at: now,
                kind: Kind::DateTime,
                days_over: 0,
            },
        })
    }

    fn expr(&mut self) -> Result<Value, CalcError> {
        let mut value = self.term()?;
        loop {
            let sign = match self.peek().map(|t| &t.tok) {
                Some(Tok::Plus) => 1,
                Some(Tok::Minus) => -1,
                _ => return Ok(value),
            };
            let op_span = self.here();
            self.pos += 1;
            let rhs = self.term()?;
            value = self.combine(value, sign, rhs, op_span)?;
        }
    }

    fn combine(&self, a: Value, sign: i64, b: Value, span: TextSpan) -> Result<Value, CalcError> {
        Ok(match (a, b) {
            (Value::Moment(m), Value::Length(l)) => {
                Value::Moment(self.shift(m, &scale(&l, sign), span)?)
            }
            (Value::Length(l), Value::Moment(m)) if sign == 1 => {
                Value::Moment(self.shift(m, &l, span)?)
            }
            (Value::Length(a), Value::Length(b)) => {
                let b = scale(&b, sign);
                Value::Length(Length {
                    months: a.months + b.months,
                    seconds: a.seconds + b.seconds,
                })
            }
            (Value::Moment(a), Value::Moment(b)) if sign == -1 => {
                Value::Length(self.difference(&a, &b)?)
            }
            // `10:31 + 8:30`: the second clock reading is hours and minutes.
            (
                Value::Moment(m),
                Value::Moment(Moment {
                    at,
                    kind: Kind::Clock { .. },
                    days_over: 0,
                }),
            ) => {
                let t = at.time();
                let secs =
                    i64::from(t.hour()) * 3600 + i64::from(t.minute()) * 60 + i64::from(t.second());
                let l = Length {
                    months: 0,
                    seconds: RBig::from(IBig::from(secs)),
                };
                Value::Moment(self.shift(m, &l, span)?)
            }
            (Value::Moment(_), Value::Moment(_)) => {
                return Err(err(
                    "two dates cannot be added; subtract them for the time between",
                    span,
                ));
            }
            (Value::Length(_), Value::Moment(_)) => {
                return Err(err("a date cannot be subtracted from a span of time", span));
            }
        })
    }

    /// `a - b`.
    fn difference(&self, a: &Moment, b: &Moment) -> Result<Length, CalcError> {
        let seconds = match (a.kind, b.kind) {
            (Kind::Date, Kind::Date) => RBig::from(IBig::from(
                DAY * (epoch_day(a.at.date()) - epoch_day(b.at.date())),
            )),
            (Kind::Clock { .. }, Kind::Clock { .. }) => {
                let secs = |m: &Moment| {
                    i64::from(m.at.time().hour()) * 3600
                        + i64::from(m.at.time().minute()) * 60
                        + i64::from(m.at.time().second())
                        + m.days_over * DAY
                };
                RBig::from(IBig::from(secs(a) - secs(b)))
            }
            (Kind::Clock { .. }, _) | (_, Kind::Clock { .. }) => {
                let now = self.now()?;
                let on_today = |m: &Moment| -> Result<Timestamp, CalcError> {
                    Ok(match m.kind {
                        Kind::Clock { .. } => now
                            .date()
                            .to_datetime(m.at.time())
                            .to_zoned_datetime(self.local.clone())
                            .map_err(|e| err(e.to_string(), 0..0))?
                            .timestamp(),
                        _ => m.at.timestamp(),
                    })
                };
                nanos_between(on_today(a)?, on_today(b)?)
            }
            _ => nanos_between(a.at.timestamp(), b.at.timestamp()),
        };
        Ok(Length { months: 0, seconds })
    }

    fn shift(&self, m: Moment, l: &Length, span: TextSpan) -> Result<Moment, CalcError> {
        let too_far = |_: jiff::Error| err(BEYOND_THE_CALENDAR, span.clone());
        let whole_days = (&l.seconds / RBig::from(DAY)).denominator().is_one();
        match m.kind {
            Kind::Date if whole_days => {
                let days = i64::try_from((&l.seconds / RBig::from(DAY)).numerator())
                    .map_err(|_| err("that span is too long", span.clone()))?;
                let span_of = Span::new()
                    .try_months(l.months)
                    .and_then(|s| s.try_days(days))
                    .map_err(too_far)?;
                let date = m.at.date().checked_add(span_of).map_err(too_far)?;
                Ok(Moment {
                    at: midnight(date, &self.local)?,
                    kind: Kind::Date,
                    days_over: 0,
                })
            }
            Kind::Clock { .. } => {
                if l.months != 0 {
                    return Err(err(
                        "a time of day moves by hours, minutes and seconds, not months",
                        span,
                    ));
                }
                let t = m.at.time();
                let base =
                    i64::from(t.hour()) * 3600 + i64::from(t.minute()) * 60 + i64::from(t.second());
                let total = RBig::from(IBig::from(base)) + &l.seconds;
                let secs = i64::try_from(total.floor())
                    .map_err(|_| err("that span is too long", span.clone()))?;
                let days_over = m.days_over + secs.div_euclid(DAY);
                let s = secs.rem_euclid(DAY);
                let time = Time::new((s / 3600) as i8, (s / 60 % 60) as i8, (s % 60) as i8, 0)
                    .map_err(too_far)?;
                let at = m.at.with().time(time).build().map_err(too_far)?;
                Ok(Moment {
                    at,
                    kind: m.kind,
                    days_over,
                })
            }
            _ => {
                let months = Span::new().try_months(l.months).map_err(too_far)?;
                let at = m.at.checked_add(months).map_err(too_far)?;
                let at = at
                    .checked_add(
                        duration(&l.seconds)
                            .ok_or_else(|| err("that span is too long", span.clone()))?,
                    )
                    .map_err(too_far)?;
                Ok(Moment {
                    at,
                    kind: Kind::DateTime,
                    days_over: 0,
                })
            }
        }
    }

    fn term(&mut self) -> Result<Value, CalcError> {
        let Some(t) = self.peek().cloned() else {
            return Err(CalcError::new(
                ErrorKind::Unexpected {
                    found: "the end".into(),
                    expected: "a date, a time or a span",
                },
                self.end..self.end,
            ));
        };
        match &t.tok {
            Tok::Word(w) => {
                let w = w.to_lowercase();
                let day_shift = match w.as_str() {
                    "today" => Some(0),
                    "tomorrow" => Some(1),
                    "yesterday" => Some(-1),
                    _ => None,
                };
                if let Some(k) = day_shift {
                    self.pos += 1;
                    let date = self
                        .now()?
                        .date()
                        .checked_add(Span::new().days(k))
                        .map_err(|e| err(e.to_string(), t.span.clone()))?;
                    return Ok(Value::Moment(Moment {
                        at: midnight(date, &self.local)?,
                        kind: Kind::Date,
                        days_over: 0,
                    }));
                }
                if w == "now" {
                    self.pos += 1;
                    return Ok(Value::Moment(Moment {
                        at: self.now()?,
                        kind: Kind::DateTime,
                        days_over: 0,
                    }));
                }
                if matches!(w.as_str(), "a" | "an")
                    && let Some(Tok::Word(u)) = self.tok_at(1)
                    && step(&u.to_lowercase()).is_some()
                {
                    self.pos += 1;
                    return self.length(RBig::ONE, t.span.clone());
                }
                // Jan 1, 2027 / Jan 1 2027 / Jan 1
                if let Some(mo) = month(&w)
                    && let Some(Tok::Num(d)) = self.tok_at(1)
                {
                    self.pos += 2;
                    if matches!(self.peek().map(|t| &t.tok), Some(Tok::Comma)) {
                        self.pos += 1;
                    }
                    let year = self.year()?;
                    return self.calendar_date(
                        year,
                        mo,
                        &d,
                        t.span.start..self.tokens[self.pos - 1].span.end,
                    );
                }
                Err(err(
                    format!("\"{}\" is not a date, a time or a span of time", &w),
                    t.span.clone(),
                ))
            }
            Tok::Num(n) => {
                // 1 Jan 2027 / 1 January
                if let Some(Tok::Word(w)) = self.tok_at(1)
                    && let Some(mo) = month(&w.to_lowercase())
                {
                    self.pos += 2;
                    let year = self.year()?;
                    return self.calendar_date(
                        year,
                        mo,
                        n,
                        t.span.start..self.tokens[self.pos - 1].span.end,
                    );
                }
                self.pos += 1;
                self.length(n.clone(), t.span.clone())
            }
            Tok::Date(y, mo, d) => {
                self.pos += 1;
                let date = Date::new(*y, *mo, *d).map_err(|_| {
                    err(format!("{y}-{mo:02}-{d:02} is not a date"), t.span.clone())
                })?;
                if let Some(Tok::Clock(h, mi, s, pm)) = self.tok_at(0) {
                    self.pos += 1;
                    let time = clock(h, mi, s, pm).ok_or_else(|| {
                        err(
                            "that is not a time of day",
                            self.tokens[self.pos - 1].span.clone(),
                        )
                    })?;
                    let zone = match self.peek().map(|t| t.tok.clone()) {
                        Some(Tok::Word(z))
                            if z.eq_ignore_ascii_case("utc")
                                || z == "Z"
                                || z.eq_ignore_ascii_case("gmt") =>
                        {
                            self.pos += 1;
                            TimeZone::UTC
                        }
                        Some(Tok::Offset(o)) => {
                            self.pos += 1;
                            fixed(o)
                                .ok_or_else(|| err("that offset is out of range", t.span.clone()))?
                        }
                        _ => self.local.clone(),
                    };
                    let at = DateTime::from_parts(date, time)
                        .to_zoned_datetime(zone)
                        .map_err(|e| err(e.to_string(), t.span.clone()))?;
                    return Ok(Value::Moment(Moment {
                        at,
                        kind: Kind::DateTime,
                        days_over: 0,
                    }));
                }
                Ok(Value::Moment(Moment {
                    at: midnight(date, &self.local)?,
                    kind: Kind::Date,
                    days_over: 0,
                }))
            }
            Tok::Clock(h, mi, s, pm) => {
                self.pos += 1;
                let time = clock(*h, *mi, *s, *pm)
                    .ok_or_else(|| err("that is not a time of day", t.span.clone()))?;
                let at = self
                    .now()?
                    .with()
                    .time(time)
                    .build()
                    .map_err(|e| err(e.to_string(), t.span.clone()))?;
                Ok(Value::Moment(Moment {
                    at,
                    kind: Kind::Clock {
                        twelve: pm.is_some(),
                    },
                    days_over: 0,
                }))
            }
            Tok::Unix(s) => {
                self.pos += 1;
                let ts = Timestamp::from_second(*s)
                    .map_err(|_| err("that Unix time is out of range", t.span.clone()))?;
                Ok(Value::Moment(Moment {
                    at: ts.to_zoned_datetime(TimeZone::UTC),
                    kind: Kind::DateTime,
                    days_over: 0,
                }))
            }
            Tok::Minus => {
                self.pos += 1;
                match self.term()? {
                    Value::Length(l) => Ok(Value::Length(scale(&l, -1))),
                    Value::Moment(_) => Err(err("a date cannot be negated", t.span.clone())),
                }
            }
            Tok::LParen => {
                self.pos += 1;
                let inner = self.expr()?;
                if !matches!(self.peek().map(|t| &t.tok), Some(Tok::RParen)) {
                    return Err(CalcError::new(
                        ErrorKind::Unexpected {
                            found: self
                                .peek()
                                .map_or("the end".into(), |t| format!("\"{}\"", describe(&t.tok))),
                            expected: "a closing parenthesis",
                        },
                        self.here(),
                    ));
                }
                self.pos += 1;
                Ok(inner)
            }
            Tok::Offset(_) | Tok::Plus | Tok::Comma | Tok::RParen => Err(CalcError::new(
                ErrorKind::Unexpected {
                    found: format!("\"{}\"", describe(&t.tok)),
                    expected: "a date, a time or a span",
                },
                t.span.clone(),
            )),
        }
    }

    /// A year after a day and month, or this year.
    fn year(&mut self) -> Result<i16, CalcError> {
        if let Some(Token {
            tok: Tok::Num(y),
            span,
        }) = self.peek().cloned()
            && y.denominator().is_one()
            && y >= RBig::from(1000)
        {
            self.pos += 1;
            return i16::try_from(y.numerator())
                .map_err(|_| err("that year is out of range", span));
        }
        Ok(self.now()?.date().year())
    }

    fn calendar_date(
        &self,
        year: i16,
        mo: i8,
        d: &RBig,
        span: TextSpan,
    ) -> Result<Value, CalcError> {
        let day = d
            .denominator()
            .is_one()
            .then(|| i8::try_from(d.numerator()).ok())
            .flatten();
        let date = day
            .and_then(|d| Date::new(year, mo, d).ok())
            .ok_or_else(|| err("that is not a date", span.clone()))?;
        Ok(Value::Moment(Moment {
            at: midnight(date, &self.local)?,
            kind: Kind::Date,
            days_over: 0,
        }))
    }

    /// `2 h 30 min`, `3 weeks`, `1.5 days`: a number then its unit,
    /// repeated.
    fn length(&mut self, first: RBig, span: TextSpan) -> Result<Value, CalcError> {
        let mut total = Length {
            months: 0,
            seconds: RBig::ZERO,
        };
        let mut n = Some((first, span));
        while let Some((count, at)) = n.take() {
            let Some(unit) = self.peek().and_then(Token::word).and_then(|w| step(&w)) else {
                return Err(err(
                    "a unit of time after the number (s, min, h, days, weeks, months, years)",
                    self.here(),
                ));
            };
            self.pos += 1;
            match unit {
                Step::Seconds(k) => total.seconds += count * RBig::from(k),
                Step::Months(k) => {
                    let months = count * RBig::from(k);
                    if !months.denominator().is_one() {
                        return Err(err(
                            "months and years are calendar steps: a whole number of them",
                            at,
                        ));
                    }
                    let more = i64::try_from(months.numerator()).ok();
                    total.months = more
                        .and_then(|m| total.months.checked_add(m))
                        .ok_or_else(|| err("that span is too long", at))?;
                }
            }
            if let Some(Token {
                tok: Tok::Num(k),
                span,
            }) = self.peek().cloned()
                && self
                    .tokens
                    .get(self.pos + 1)
                    .and_then(Token::word)
                    .is_some_and(|w| step(&w).is_some())
            {
                self.pos += 1;
                n = Some((k, span));
            }
        }
        Ok(Value::Length(total))
    }

    fn moment_to(&self, mut m: Moment, target: &str, span: TextSpan) -> Result<String, CalcError> {
        let t = target.trim().to_lowercase();
        match t.as_str() {
            "weekday" | "day of week" | "day of the week" | "day" => return Ok(weekday(&m.at)),
            "unix" | "unix time" | "timestamp" | "epoch" | "unix timestamp" => {
                let on = self.on_a_day(&m)?;
                return Ok(on.timestamp().as_second().to_string());
            }
            "date" => {
                let on = self.on_a_day(&m)?;
                return Ok(show_moment(&Moment {
                    at: on,
                    kind: Kind::Date,
                    days_over: 0,
                }));
            }
            _ if step(&t).is_some() => {
                return Err(err(
                    "a date is shown in a zone, as a weekday or as unix time; subtract two dates for the time between",
                    span,
                ));
            }
            _ => {}
        }
        let zone = zone_named(target.trim(), &self.local).ok_or_else(|| {
            err(
                format!(
                    "\"{}\" is not a time zone (try a city, Area/City or UTC+9), weekday or unix",
                    target.trim()
                ),
                span,
            )
        })?;
        m.at = self.on_a_day(&m)?.with_time_zone(zone);
        if let Kind::Clock { .. } | Kind::Date = m.kind {
            m.kind = Kind::DateTime;
        }
        Ok(show_moment(&m))
    }

    /// A clock time placed on today's date.
    fn on_a_day(&self, m: &Moment) -> Result<ZonedDateTime, CalcError> {
        Ok(m.at.clone())
    }
}

fn describe(t: &Tok) -> String {
    match t {
        Tok::Plus => "+".into(),
        Tok::Minus => "-".into(),
        Tok::Comma => ",".into(),
        Tok::LParen => "(".into(),
        Tok::RParen => ")".into(),
        other => format!("{other:?}"),
    }
}

fn scale(l: &Length, sign: i64) -> Length {
    Length {
        months: l.months * sign,
        seconds: &l.seconds * RBig::from(sign),
    }
}

fn clock(h: i8, m: i8, s: i8, pm: Option<bool>) -> Option<Time> {
    let h = match pm {
        None => h,
        Some(_) if !(1..=12).contains(&h) => return None,
        Some(false) => h % 12,
        Some(true) => h % 12 + 12,
    };
    Time::new(h, m, s, 0).ok()
}

fn fixed(seconds: i32) -> Option<TimeZone> {
    Offset::from_seconds(seconds).ok().map(TimeZone::fixed)
}

fn midnight(date: Date, zone: &TimeZone) -> Result<ZonedDateTime, CalcError> {
    date.to_zoned_datetime(zone.clone())
        .map_err(|_| err(BEYOND_THE_CALENDAR, 0..0))
}

/// What a date past either end of the calendar says (jiff's own text
/// names its internal parameters).
const BEYOND_THE_CALENDAR: &str =
    "that date is beyond the calendar, which runs from -9999-01-01 to 9999-12-31";

/// `99999-01-01`: a date whose year has more than four digits, which
/// would otherwise read as a subtraction (99997) without a word.
fn long_year(line: &str) -> Option<CalcError> {
    let t = line.trim();
    let mut parts = t.split('-');
    let (y, m, d) = (parts.next()?, parts.next()?, parts.next()?);
    let digits = |s: &str, n: std::ops::RangeInclusive<usize>| {
        n.contains(&s.len()) && s.bytes().all(|b| b.is_ascii_digit())
    };
    if parts.next().is_some() || !digits(y, 5..=40) || !digits(m, 2..=2) || !digits(d, 2..=2) {
        return None;
    }
    let at = line.len() - line.trim_start().len();
    Some(err(
        format!(
            "{t} looks like a date, but the calendar's years have at most four digits \
             (it runs from -9999 to 9999); for the subtraction, write {y} - {} - {}",
            m.trim_start_matches('0').max("0"),
            d.trim_start_matches('0').max("0")
        ),
        at..at + y.len(),
    ))
}

/// Days since 1970-01-01 (proleptic Gregorian).
fn epoch_day(d: Date) -> i64 {
    let (y, m, day) = (
        i64::from(d.year()),
        i64::from(d.month()),
        i64::from(d.day()),
    );
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

fn nanos_between(a: Timestamp, b: Timestamp) -> RBig {
    let n = a.as_nanosecond() - b.as_nanosecond();
    RBig::from_parts(IBig::from(n), IBig::from(1_000_000_000u32).unsigned_abs())
}

fn duration(seconds: &RBig) -> Option<SignedDuration> {
    let nanos = (seconds * RBig::from(1_000_000_000u32)).floor();
    Some(SignedDuration::from_nanos_i128(i128::try_from(nanos).ok()?))
}

/// A zone by IANA name, city, `UTC`, `local` or a fixed offset.
fn zone_named(name: &str, local: &TimeZone) -> Option<TimeZone> {
    let lower = name.to_lowercase();
    if matches!(lower.as_str(), "utc" | "gmt" | "z" | "zulu") {
        return Some(TimeZone::UTC);
    }
    if lower == "local" {
        return Some(local.clone());
    }
    if let Some(Token {
        tok: Tok::Offset(o),
        ..
    }) = tokenize(name).and_then(|t| (t.len() == 1).then(|| t[0].clone()))
    {
        return fixed(o);
    }
    if let Ok(z) = TimeZone::get(name) {
        return Some(z);
    }
    let city = lower.replace(' ', "_");
    let db = jiff::tz::db();
    let found = db.available().find(|n| {
        let n = n.as_str().to_lowercase();
        n == city || n.rsplit('/').next() == Some(city.as_str())
    })?;
    TimeZone::get(found.as_str()).ok()
}

fn weekday(at: &ZonedDateTime) -> String {
    const DAYS: [&str; 7] = [
        "Monday",
        "Tuesday",
        "Wednesday",
        "Thursday",
        "Friday",
        "Saturday",
        "Sunday",
    ];
    DAYS[usize::from(at.weekday().to_monday_zero_offset() as u8)].to_string()
}

fn show_moment(m: &Moment) -> String {
    let d = m.at.date();
    let date = format!("{:04}-{:02}-{:02}", d.year(), d.month(), d.day());
    let t = m.at.time();
    let hms = if t.second() == 0 && t.subsec_nanosecond() == 0 {
        format!("{:02}:{:02}", t.hour(), t.minute())
    } else if t.subsec_nanosecond() == 0 {
        format!("{:02}:{:02}:{:02}", t.hour(), t.minute(), t.second())
    } else {
        format!(
            "{:02}:{:02}:{:02}.{:09}",
            t.hour(),
            t.minute(),
            t.second(),
            t.subsec_nanosecond()
        )
        .trim_end_matches('0')
        .to_string()
    };
    match m.kind {
        Kind::Date => format!("{date} ({})", weekday(&m.at)),
        Kind::DateTime => {
            let offset = m.at.offset().seconds();
            let sign = if offset < 0 { '-' } else { '+' };
            let (oh, om) = (offset.abs() / 3600, offset.abs() / 60 % 60);
            let zone = match m.at.time_zone().iana_name() {
                Some("UTC") | Some("Etc/UTC") => "UTC".to_string(),
                Some(name) => format!("{name}, UTC{sign}{oh:02}:{om:02}"),
                None if offset == 0 => "UTC".to_string(),
                None => format!("UTC{sign}{oh:02}:{om:02}"),
            };
            format!("{date} {hms} ({}, {zone})", &weekday(&m.at)[..3])
        }
        Kind::Clock { twelve } => {
            let text = if twelve {
                let h = match t.hour() % 12 {
                    0 => 12,
                    h => h,
                };
                let rest = &hms[2..];
                format!("{h}{rest} {}", if t.hour() < 12 { "am" } else { "pm" })
            } else {
                hms
            };
            match m.days_over {
                0 => text,
                1 => format!("{text} (next day)"),
                -1 => format!("{text} (the day before)"),
                k if k > 0 => format!("{text} ({k} days later)"),
                k => format!("{text} ({} days before)", -k),
            }
        }
    }
}

fn show_length(l: &Length) -> String {
    let mut parts = Vec::new();
    let plural = |n: &str, word: &str| {
        if n == "1" {
            format!("{n} {word}")
        } else {
            format!("{n} {word}s")
        }
    };
    let (years, months) = (l.months / 12, l.months % 12);
    if years != 0 {
        parts.push(plural(&years.to_string(), "year"));
    }
    if months != 0 {
        parts.push(plural(&months.to_string(), "month"));
    }
    let negative = l.seconds < RBig::ZERO;
    let secs = if negative {
        -l.seconds.clone()
    } else {
        l.seconds.clone()
    };
    let whole = secs.floor();
    let frac = &secs - RBig::from(whole.clone());
    let whole = i128::try_from(whole).unwrap_or(i128::MAX);
    let sign = if negative { "-" } else { "" };
    let days = whole / i128::from(DAY);
    let rest = whole % i128::from(DAY);
    if days != 0 {
        parts.push(format!("{sign}{}", plural(&days.to_string(), "day")));
    }
    let (h, m, s) = (rest / 3600, rest / 60 % 60, rest % 60);
    if h != 0 {
        parts.push(format!("{sign}{h} h"));
    }
    if m != 0 {
        parts.push(format!("{sign}{m} min"));
    }
    if s != 0 || frac != RBig::ZERO {
        let s = RBig::from(IBig::from(s)) + frac;
        parts.push(format!("{sign}{} s", plain(&s)));
    }
    if parts.is_empty() {
        return "0 s".into();
    }
    parts.join(" ")
}

/// An exact number as a terminating decimal, or as a fraction.
fn plain(r: &RBig) -> String {
    let den = r.denominator().clone();
    let mut d = den.clone();
    let (mut twos, mut fives) = (0usize, 0usize);
    let two = dashu_int::UBig::from(2u8);
    let five = dashu_int::UBig::from(5u8);
    while (&d % &two).is_zero() {
        d /= &two;
        twos += 1;
    }
    while (&d % &five).is_zero() {
        d /= &five;
        fives += 1;
    }
    if !d.is_one() {
        return format!("{}/{}", r.numerator(), den);
    }
    let places = twos.max(fives);
    let scaled = r.numerator() * IBig::from(10u8).pow(places) / IBig::from(den);
    let negative = scaled < IBig::ZERO;
    let digits = scaled.unsigned_abs().to_string();
    let text = if places == 0 {
        digits
    } else {
        let padded = format!("{digits:0>width$}", width = places + 1);
        let (w, f) = padded.split_at(padded.len() - places);
        format!("{w}.{f}")
    };
    if negative { format!("-{text}") } else { text }
}
