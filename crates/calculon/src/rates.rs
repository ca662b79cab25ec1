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
    /// `#` starts a comment.
    pub fn parse(text: &str) -> Result<Rates, RatesError> {
        let mut date = None;
        let mut per_euro = Vec::new();
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
                if !is_date(value) {
                    return Err(bad("the date must be YYYY-MM-DD"));
                }
                date = Some(value.to_string());
            } else {
                check_entry(key, value).map_err(|w| bad(&w))?;
                per_euro.push((key.to_string(), value.to_string()));
            }
        }
        let date = date.ok_or(RatesError::Malformed {
            line: 0,
            what: "no `date` line".into(),
        })?;
        Ok(Rates { date, per_euro })
    }

    /// Reads the ECB's daily file (`eurofxref-daily.xml`).
    pub fn from_ecb_xml(xml: &str) -> Result<Rates, RatesError> {
        let mut date = None;
        let mut per_euro = Vec::new();
        for element in xml.split('<').filter(|e| e.starts_with("Cube")) {
            if let Some(t) = attribute(element, "time") {
                date = Some(t);
            }
            if let (Some(code), Some(rate)) =
                (attribute(element, "currency"), attribute(element, "rate"))
                && check_entry(&code, &rate).is_ok()
            {
                per_euro.push((code, rate));
            }
        }
        let date = date
            .filter(|d| is_date(d))
            .ok_or(RatesError::Missing("date"))?;
        if per_euro.is_empty() {
            return Err(RatesError::Missing("rate"));
        }
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

fn is_date(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() == 10
        && b[4] == b'-'
        && b[7] == b'-'
        && b.iter()
            .enumerate()
            .all(|(i, c)| i == 4 || i == 7 || c.is_ascii_digit())
}

fn check_entry(code: &str, rate: &str) -> Result<(), String> {
    if code.len() != 3 || !code.bytes().all(|c| c.is_ascii_uppercase()) {
        return Err(format!("{code:?} is not a three-letter currency code"));
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
}
