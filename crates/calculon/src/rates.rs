//! Currencies: the European Central Bank's euro reference rates, as units
//! of a ninth base dimension (money, in euros).
//!
//! A table is shipped (`rates.txt`, dated); [`use_rates`] puts a newer one
//! in its place before the first line is evaluated (the command line does
//! so with the file `calculon --update-rates` writes). Each rate is an
//! exact decimal, so `100 USD to EUR` is exactly 100/1.1172 euros at that
//! day's rate; answers that convert between currencies name the day.

use std::sync::OnceLock;

/// Why a rate table was refused.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum RatesError {
    /// A line that is neither `date YYYY-MM-DD` nor `CODE rate`.
    #[error("line {line}: {what}")]
    Malformed {
        /// The line, from 1 (0: the table as a whole).
        line: usize,
        /// What was wrong with it.
        what: String,
    },
    /// The ECB's file held no `time` or no rate.
    #[error("no {0} in the European Central Bank's file")]
    Missing(&'static str),
    /// The units were already built with other rates.
    #[error("the rates are already in use; set them before the first evaluation")]
    AlreadyInUse,
}

/// A day's rates: units of each currency to one euro.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rates {
    /// The day the ECB published them, `YYYY-MM-DD`.
    pub date: String,
    /// `(code, rate)`, the rate as the ECB wrote it (a decimal).
    pub per_euro: Vec<(String, String)>,
}

const SHIPPED: &str = include_str!("rates.txt");

static CHOSEN: OnceLock<Rates> = OnceLock::new();

impl Rates {
    /// Reads the table format: `date YYYY-MM-DD`, then `CODE rate` lines;
    /// `#` starts a comment. Refused, naming the line: a date that is not
    /// a day of the calendar (or before the euro, 1999), a rate for EUR
    /// (the base: one euro is one euro), a currency listed twice, a rate
    /// that is not a positive decimal of at most [`MAX_RATE_CHARS`]
    /// characters.
    pub fn parse(text: &str) -> Result<Rates, RatesError> {
        let mut date: Option<(usize, String)> = None;
        let mut per_euro = Vec::new();
        let mut lines = Vec::new();
        for (k, raw) in text.lines().enumerate() {
            let line = raw.split_once('#').map_or(raw, |(l, _)| l).trim();
            if line.is_empty() {
                continue;
            }
            let bad = |what: &str| RatesError::Malformed {
                line: k + 1,
                what: what.to_string(),
            };
            let (key, value) = line
                .split_once(char::is_whitespace)
                .ok_or_else(|| bad("expected `date YYYY-MM-DD` or `CODE rate`"))?;
            let value = value.trim();
            if key == "date" {
                if let Some((first, _)) = &date {
                    return Err(bad(&format!(
                        "a second date (the first is on line {first})"
                    )));
                }
                check_date(value).map_err(|w| bad(&w))?;
                date = Some((k + 1, value.to_string()));
            } else {
                per_euro.push((key.to_string(), value.to_string()));
                lines.push(k + 1);
            }
        }
        let date = date
            .ok_or(RatesError::Malformed {
                line: 0,
                what: "no `date` line".into(),
            })?
            .1;
        check_entries(&per_euro, &lines)?;
        Ok(Rates { date, per_euro })
    }

    /// Reads the ECB's daily file (`eurofxref-daily.xml`), refusing what
    /// [`Rates::parse`] refuses, naming the file's line: the same table
    /// arrives whichever way it is read.
    pub fn from_ecb_xml(xml: &str) -> Result<Rates, RatesError> {
        let mut date: Option<(usize, String)> = None;
        let mut per_euro = Vec::new();
        let mut lines = Vec::new();
        let mut line = 1;
        let mut counted = 0;
        for (at, _) in xml.match_indices('<') {
            line += xml[counted..at].bytes().filter(|&b| b == b'\n').count();
            counted = at;
            let element = &xml[at + 1..];
            let element = &element[..element.find('>').unwrap_or(element.len())];
            if !element.starts_with("Cube") {
                continue;
            }
            if let Some(t) = attribute(element, "time") {
                if let Some((first, _)) = &date {
                    return Err(RatesError::Malformed {
                        line,
                        what: format!("a second day (the first is on line {first})"),
                    });
                }
                check_date(&t).map_err(|what| RatesError::Malformed { line, what })?;
                date = Some((line, t));
            }
            match (attribute(element, "currency"), attribute(element, "rate")) {
                (Some(code), Some(rate)) => {
                    per_euro.push((code, rate));
                    lines.push(line);
                }
                (None, None) => {}
                _ => {
                    return Err(RatesError::Malformed {
                        line,
                        what: "a Cube with a currency or a rate but not both".into(),
                    });
                }
            }
        }
        let date = date.ok_or(RatesError::Missing("date"))?.1;
        if per_euro.is_empty() {
            return Err(RatesError::Missing("rate"));
        }
        check_entries(&per_euro, &lines)?;
        Ok(Rates { date, per_euro })
    }

    /// The table format [`Rates::parse`] reads.
    pub fn to_text(&self) -> String {
        let mut text = String::from(
            "# The European Central Bank's euro reference rates: units of each\n# currency to one euro.\n",
        );
        text.push_str(&format!("date {}\n", self.date));
        for (code, rate) in &self.per_euro {
            text.push_str(&format!("{code} {rate}\n"));
        }
        text
    }

    /// The rates in use: those given to [`use_rates`], or the shipped ones.
    pub fn current() -> &'static Rates {
        CHOSEN.get_or_init(|| {
            Rates::parse(SHIPPED).unwrap_or(Rates {
                date: "none".into(),
                per_euro: Vec::new(),
            })
        })
    }

    /// The shipped table's date.
    pub fn shipped_date() -> String {
        Rates::parse(SHIPPED).map(|r| r.date).unwrap_or_default()
    }
}

/// Uses `rates` for every calculator in this process; must come before the
/// first evaluation.
pub fn use_rates(rates: Rates) -> Result<(), RatesError> {
    CHOSEN.set(rates).map_err(|_| RatesError::AlreadyInUse)
}

/// The longest rate written (the ECB's have at most 6 significant
/// digits): longer is not a rate but an attempt to make every conversion
/// slow.
pub const MAX_RATE_CHARS: usize = 24;

/// The most currencies a table may list (the ECB's has about 30).
pub const MAX_CURRENCIES: usize = 400;

/// `YYYY-MM-DD`, a day of the calendar, from the euro's first (1999) on.
fn check_date(s: &str) -> Result<(), String> {
    let b = s.as_bytes();
    let shaped = b.len() == 10
        && b[4] == b'-'
        && b[7] == b'-'
        && b.iter()
            .enumerate()
            .all(|(i, c)| i == 4 || i == 7 || c.is_ascii_digit());
    if !shaped {
        return Err(format!("{s:?}: the date must be YYYY-MM-DD"));
    }
    let (y, m, d) = (&s[..4], &s[5..7], &s[8..]);
    let (Ok(y), Ok(m), Ok(d)) = (y.parse::<i16>(), m.parse::<i8>(), d.parse::<i8>()) else {
        return Err(format!("{s:?}: the date must be YYYY-MM-DD"));
    };
    if !(1..=12).contains(&m) {
        return Err(format!("{s:?}: there is no month {m}"));
    }
    if jiff::civil::Date::new(y, m, d).is_err() {
        return Err(format!("{s:?}: that month has no day {d}"));
    }
    if y < 1999 {
        return Err(format!("{s:?}: the euro's rates begin in 1999"));
    }
    Ok(())
}

/// Each entry's code and rate, no EUR, no currency twice; `lines[i]` is
/// entry i's line.
fn check_entries(per_euro: &[(String, String)], lines: &[usize]) -> Result<(), RatesError> {
    if per_euro.len() > MAX_CURRENCIES {
        return Err(RatesError::Malformed {
            line: lines.get(MAX_CURRENCIES).copied().unwrap_or(0),
            what: format!("more than {MAX_CURRENCIES} currencies"),
        });
    }
    let mut seen: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
    for ((code, rate), &line) in per_euro.iter().zip(lines) {
        let bad = |what: String| RatesError::Malformed { line, what };
        check_entry(code, rate).map_err(bad)?;
        if code == "EUR" {
            return Err(bad(
                "EUR is the base of the table (one euro is one euro): it has no rate".into(),
            ));
        }
        if let Some(first) = seen.insert(code, line) {
            return Err(bad(format!(
                "{code} is listed twice (first on line {first})"
            )));
        }
    }
    Ok(())
}

fn check_entry(code: &str, rate: &str) -> Result<(), String> {
    if code.len() != 3 || !code.bytes().all(|c| c.is_ascii_uppercase()) {
        return Err(format!("{code:?} is not a three-letter currency code"));
    }
    if rate.len() > MAX_RATE_CHARS {
        return Err(format!(
            "a rate of {} characters (at most {MAX_RATE_CHARS})",
            rate.len()
        ));
    }
    let digits = rate.replacen('.', "", 1);
    if digits.is_empty()
        || !digits.bytes().all(|c| c.is_ascii_digit())
        || digits.bytes().all(|c| c == b'0')
    {
        return Err(format!("{rate:?} is not a positive decimal rate"));
    }
    Ok(())
}

/// `name='value'` or `name="value"` in an XML start tag.
fn attribute(element: &str, name: &str) -> Option<String> {
    let at = element.find(&format!("{name}="))? + name.len() + 1;
    let rest = &element[at..];
    let quote = rest.chars().next().filter(|c| *c == '\'' || *c == '"')?;
    let value = &rest[1..];
    Some(value[..value.find(quote)?].to_string())
}

/// Everyday names of some currencies (a code is always understood).
pub(crate) const CURRENCY_WORDS: &[(&str, &str)] = &[
    ("USD", "dollar dollars $"),
    ("JPY", "yen ¥"),
    ("GBP", "pound_sterling £"),
    ("CNY", "yuan renminbi"),
    ("INR", "rupee rupees"),
    ("CHF", "franc francs"),
    ("PLN", "zloty zlotys"),
    ("HUF", "forint forints"),
    ("THB", "baht"),
    ("ZAR", "rand rands"),
    ("MXN", "peso pesos"),
    ("KRW", "won"),
];

/// The unit lines for the rates in use (see `units.txt` for the format).
pub(crate) fn unit_lines() -> String {
    let mut text = String::new();
    for (code, rate) in &Rates::current().per_euro {
        let words = CURRENCY_WORDS
            .iter()
            .find(|(c, _)| c == code)
            .map_or("", |(_, w)| w);
        // Codes are words, so `usd` reads too.
        text.push_str(&format!("| {code} {words} = EUR/{rate}\n"));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shipped_table_reads() {
        let r = Rates::parse(SHIPPED).expect("shipped rates");
        assert!(r.per_euro.len() >= 25);
        assert_eq!(Rates::parse(&r.to_text()), Ok(r));
    }

    #[test]
    fn the_ecb_file_reads() {
        let xml = "<?xml version=\"1.0\"?><gesmes:Envelope><Cube>\n<Cube time='2026-10-02'>\n<Cube currency='USD' rate='1.1225'/>\n<Cube currency=\"JPY\" rate=\"176.99\"/></Cube></Cube></gesmes:Envelope>";
        let r = Rates::from_ecb_xml(xml).expect("rates");
        assert_eq!(r.date, "2026-10-02");
        assert_eq!(
            r.per_euro,
            vec![
                ("USD".into(), "1.1225".into()),
                ("JPY".into(), "176.99".into())
            ]
        );
        assert_eq!(
            Rates::from_ecb_xml("<html>down</html>"),
            Err(RatesError::Missing("date"))
        );
    }

    #[test]
    fn bad_tables_name_the_line() {
        assert_eq!(
            Rates::parse("date 2026-10-30\nUSD one\n"),
            Err(RatesError::Malformed {
                line: 2,
                what: "\"one\" is not a positive decimal rate".into()
            })
        );
        assert!(Rates::parse("USD 1.1\n").is_err());
    }

    /// Issue 45 item 4: contradictory or impossible tables are refused,
    /// naming the line, in the table and in the ECB's XML alike.
    #[test]
    fn contradictions_and_impossible_dates_are_refused() {
        let line = |r: Result<Rates, RatesError>| match r {
            Err(RatesError::Malformed { line, what }) => (line, what),
            other => panic!("{other:?}"),
        };
        for (table, at, what) in [
            ("date 2026-10-30\nUSD 1.1\nEUR 2\n", 3, "EUR is the base"),
            (
                "date 2026-10-30\nUSD 1.1\nGBP 0.8\nUSD 1.3\n",
                4,
                "USD is listed twice (first on line 2)",
            ),
            ("date 2026-99-99\nUSD 1.1\n", 1, "no month 99"),
            ("date 2026-02-30\nUSD 1.1\n", 1, "no day 30"),
            ("date 2025-02-29\nUSD 1.1\n", 1, "no day 29"),
            ("date 1970-01-01\nUSD 1.1\n", 1, "begin in 1999"),
            ("date 2026-10-30\ndate 2026-10-31\n", 2, "a second date"),
            ("date 2026-10-30\nUSD 0.000\n", 2, "not a positive decimal"),
            (
                "date 2026-10-30\nUSD 1111111111111111111111111111111\n",
                2,
                "at most 24",
            ),
        ] {
            let (l, w) = line(Rates::parse(table));
            assert_eq!(l, at, "{table:?}: {w}");
            assert!(w.contains(what), "{table:?}: {w}");
        }
        assert!(Rates::parse("date 2024-02-29\nUSD 1.1\n").is_ok());
        let xml = |body: &str| {
            format!(
                "<?xml version=\"1.0\"?>\n<gesmes:Envelope><Cube>\n{body}</Cube></gesmes:Envelope>"
            )
        };
        for (body, at, what) in [
            (
                "<Cube time='2026-10-02'>\n<Cube currency='USD' rate='1.1'/>\n<Cube currency='EUR' rate='2'/></Cube>",
                5,
                "EUR is the base",
            ),
            (
                "<Cube time='2026-10-02'>\n<Cube currency='USD' rate='1.1'/>\n<Cube currency='USD' rate='1.2'/></Cube>",
                5,
                "listed twice (first on line 4)",
            ),
            (
                "<Cube time='2026-99-99'>\n<Cube currency='USD' rate='1.1'/></Cube>",
                3,
                "no month 99",
            ),
            (
                "<Cube time='2026-10-02'>\n<Cube currency='USD' rate='-1'/></Cube>",
                4,
                "not a positive decimal",
            ),
            (
                "<Cube time='2026-10-02'>\n<Cube currency='usd' rate='1'/></Cube>",
                4,
                "three-letter",
            ),
            (
                "<Cube time='2026-10-02'>\n<Cube currency='USD'/></Cube>",
                4,
                "not both",
            ),
        ] {
            let (l, w) = line(Rates::from_ecb_xml(&xml(body)));
            assert_eq!(l, at, "{body:?}: {w}");
            assert!(w.contains(what), "{body:?}: {w}");
        }
    }

    proptest::proptest! {
        /// Any bytes as a table or as the ECB's XML: a table whose every
        /// entry passes the rules, or an error naming a line of the input.
        #[test]
        fn any_text_is_a_sound_table_or_an_error_on_a_line(
            text in "(date [0-9-]{10}|[A-Z]{3} [0-9.]{1,6}|EUR 1|USD 2|<Cube time='2026-1[0-3]-0[0-9]'>|<Cube currency='[A-Z]{3}' rate='[0-9.]{1,4}'/>|[ -~]{0,12}|\n){0,40}",
        ) {
            for parsed in [Rates::parse(&text), Rates::from_ecb_xml(&text)] {
                match parsed {
                    Ok(r) => {
                        proptest::prop_assert!(check_date(&r.date).is_ok());
                        let lines = vec![1; r.per_euro.len()];
                        proptest::prop_assert!(check_entries(&r.per_euro, &lines).is_ok());
                    }
                    Err(RatesError::Malformed { line, .. }) => {
                        proptest::prop_assert!(line <= text.lines().count().max(1));
                    }
                    Err(_) => {}
                }
            }
        }
    }
}
