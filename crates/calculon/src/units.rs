//! Units: dimensions, the table of named units (`units.txt`), and SI and
//! binary prefixes.
//!
//! Every unit's size is an exact rational times a power of π (the degree
//! is π/180 rad), so conversions stay exact wherever the numbers are.
//! Lookup tries the name as written, then a prefix plus a unit that takes
//! that kind of prefix (symbols take symbols, `km`; words take words,
//! `kilometre`), then words in lower case.

use std::collections::HashMap;
use std::fmt;
use std::sync::OnceLock;

use dashu_int::{IBig, UBig};
use dashu_ratio::RBig;

use crate::lex::{LexOptions, lex};
use crate::parse::{BinOp, ExprKind, NameKind, Names, Statement, parse};

/// The base dimensions: length, mass, time, current, temperature, amount,
/// luminous intensity, information, money (in euros).
pub(crate) const BASE_NAMES: [&str; 9] = ["m", "kg", "s", "A", "K", "mol", "cd", "bit", "EUR"];
const BASE_TAGS: [&str; 9] = ["L", "M", "T", "I", "K", "N", "J", "B", "X"];
/// Money's place among the base dimensions.
pub(crate) const MONEY: usize = 8;

/// Unit exponents are kept in twelfths, so that roots of units stay
/// exact: `kg^(1/3)`, `Hz^(1/2)`, `sqrt(kg^2)`.
pub(crate) const WHOLE: i32 = 12;

/// An exponent in twelfths as text: `2`, `-1`, `(1/3)`, `(-3/2)`.
pub(crate) fn exponent_text(p: i32) -> String {
    if p % WHOLE == 0 {
        return (p / WHOLE).to_string();
    }
    let g = gcd(p.unsigned_abs(), WHOLE.unsigned_abs()) as i32;
    format!("({}/{})", p / g, WHOLE / g)
}

fn gcd(a: u32, b: u32) -> u32 {
    if b == 0 { a } else { gcd(b, a % b) }
}

/// Exponents of the base dimensions, in twelfths ([`WHOLE`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub(crate) struct Dim(pub(crate) [i16; 9]);

impl Dim {
    pub(crate) const NONE: Dim = Dim([0; 9]);

    pub(crate) fn is_none(self) -> bool {
        self == Dim::NONE
    }

    pub(crate) fn mul(self, other: Dim) -> Dim {
        let mut d = self.0;
        for (a, b) in d.iter_mut().zip(other.0) {
            *a = a.saturating_add(b);
        }
        Dim(d)
    }

    pub(crate) fn inv(self) -> Dim {
        let mut d = self.0;
        for a in &mut d {
            *a = a.saturating_neg();
        }
        Dim(d)
    }

    /// `self^(num/den)`, if every exponent stays a whole number of
    /// twelfths.
    pub(crate) fn pow(self, num: i64, den: i64) -> Option<Dim> {
        let mut d = [0i16; 9];
        for (out, &a) in d.iter_mut().zip(&self.0) {
            let p = i64::from(a).checked_mul(num)?;
            if den == 0 || p % den != 0 {
                return None;
            }
            *out = i16::try_from(p / den).ok()?;
        }
        Some(Dim(d))
    }
}

impl fmt::Display for Dim {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_none() {
            return write!(f, "a plain number");
        }
        let mut first = true;
        for (name, &p) in BASE_NAMES.iter().zip(&self.0) {
            if p == 0 {
                continue;
            }
            if !first {
                write!(f, "·")?;
            }
            first = false;
            if i32::from(p) == WHOLE {
                write!(f, "{name}")?;
            } else {
                write!(f, "{name}^{}", exponent_text(i32::from(p)))?;
            }
        }
        Ok(())
    }
}

/// An exact size: `ratio · π^pi`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Factor {
    pub(crate) ratio: RBig,
    pub(crate) pi: i32,
}

impl Factor {
    pub(crate) fn one() -> Factor {
        Factor {
            ratio: RBig::ONE,
            pi: 0,
        }
    }

    pub(crate) fn mul(&self, o: &Factor) -> Factor {
        Factor {
            ratio: &self.ratio * &o.ratio,
            pi: self.pi + o.pi,
        }
    }

    pub(crate) fn div(&self, o: &Factor) -> Option<Factor> {
        if o.ratio.is_zero() {
            return None;
        }
        Some(Factor {
            ratio: &self.ratio / &o.ratio,
            pi: self.pi - o.pi,
        })
    }

    pub(crate) fn powi(&self, n: i32) -> Factor {
        let e = n.unsigned_abs() as usize;
        let r = RBig::from_parts(
            self.ratio.numerator().pow(e),
            self.ratio.denominator().pow(e),
        );
        Factor {
            ratio: if n < 0 { RBig::ONE / r } else { r },
            pi: self.pi * n,
        }
    }
}

/// A unit as used in an expression: possibly prefixed, with its name as
/// written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Unit {
    pub(crate) name: String,
    pub(crate) factor: Factor,
    pub(crate) dim: Dim,
    /// For affine units (°C, °F): the absolute value, in kelvin, of the
    /// unit's zero.
    pub(crate) zero: Option<RBig>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Prefixes {
    None,
    Si,
    Binary,
    Both,
}

struct Def {
    factor: Factor,
    dim: Dim,
    zero: Option<RBig>,
    prefixes: Prefixes,
    /// Its names and definition as written, for the list of names.
    names: String,
    definition: String,
    /// How a result shows the unit when it was named by a word of several
    /// (`watt_hour`, `square_meters`): its definition in symbols when that
    /// is a plain product (`W h`, `m²`), else its first symbol.
    shown_as: Option<String>,
    /// Its first symbol, to go after a prefix's (`kilowatt_hour` → `kWh`).
    symbol: Option<String>,
}

/// The table of units, built once from `units.txt`.
pub(crate) struct Table {
    defs: Vec<Def>,
    /// Symbols and words, as written.
    names: HashMap<String, (usize, bool)>,
    /// Words in lower case.
    lower: HashMap<String, usize>,
    /// Lines that could not be read (a test keeps this empty).
    pub(crate) bad_lines: Vec<String>,
}

struct Prefix {
    symbols: &'static [&'static str],
    word: &'static [&'static str],
    /// `10^e` or `2^e`.
    base: u32,
    exponent: i32,
}

const SI_PREFIXES: &[Prefix] = &[
    p(&["Q"], &["quetta"], 10, 30),
    p(&["R"], &["ronna"], 10, 27),
    p(&["Y"], &["yotta"], 10, 24),
    p(&["Z"], &["zetta"], 10, 21),
    p(&["E"], &["exa"], 10, 18),
    p(&["P"], &["peta"], 10, 15),
    p(&["T"], &["tera"], 10, 12),
    p(&["G"], &["giga"], 10, 9),
    p(&["M"], &["mega"], 10, 6),
    // Not SI, but in old texts and peers' tables (`myriameter`).
    p(&[], &["myria"], 10, 4),
    p(&["k"], &["kilo"], 10, 3),
    p(&["h"], &["hecto"], 10, 2),
    p(&["da"], &["deca", "deka"], 10, 1),
    p(&["d"], &["deci"], 10, -1),
    p(&["c"], &["centi"], 10, -2),
    p(&["m"], &["milli"], 10, -3),
    p(&["µ", "μ", "u"], &["micro"], 10, -6),
    p(&["n"], &["nano"], 10, -9),
    p(&["p"], &["pico"], 10, -12),
    p(&["f"], &["femto"], 10, -15),
    p(&["a"], &["atto"], 10, -18),
    p(&["z"], &["zepto"], 10, -21),
    p(&["y"], &["yocto"], 10, -24),
    p(&["r"], &["ronto"], 10, -27),
    p(&["q"], &["quecto"], 10, -30),
];

const BINARY_PREFIXES: &[Prefix] = &[
    p(&["Ki"], &["kibi"], 2, 10),
    p(&["Mi"], &["mebi"], 2, 20),
    p(&["Gi"], &["gibi"], 2, 30),
    p(&["Ti"], &["tebi"], 2, 40),
    p(&["Pi"], &["pebi"], 2, 50),
    p(&["Ei"], &["exbi"], 2, 60),
    p(&["Zi"], &["zebi"], 2, 70),
    p(&["Yi"], &["yobi"], 2, 80),
];

const fn p(
    symbols: &'static [&'static str],
    word: &'static [&'static str],
    base: u32,
    exponent: i32,
) -> Prefix {
    Prefix {
        symbols,
        word,
        base,
        exponent,
    }
}

impl Prefix {
    fn factor(&self) -> RBig {
        let p = UBig::from(self.base).pow(self.exponent.unsigned_abs() as usize);
        if self.exponent < 0 {
            RBig::from_parts(IBig::ONE, p)
        } else {
            RBig::from(p)
        }
    }
}

/// The unit table (built on first use).
pub(crate) fn table() -> &'static Table {
    static TABLE: OnceLock<Table> = OnceLock::new();
    TABLE.get_or_init(|| {
        Table::build(&format!(
            "{}\n{}",
            include_str!("units.txt"),
            crate::rates::unit_lines()
        ))
    })
}

impl Table {
    fn build(text: &str) -> Table {
        let mut t = Table {
            defs: Vec::new(),
            names: HashMap::new(),
            lower: HashMap::new(),
            bad_lines: Vec::new(),
        };
        for line in text.lines() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            if t.add_line(line).is_none() {
                t.bad_lines.push(line.to_string());
            }
        }
        t
    }

    fn add_line(&mut self, line: &str) -> Option<()> {
        let (left, right) = line.split_once('=')?;
        let mut left = left.trim();
        let mut prefixes = Prefixes::None;
        for (flag, kind) in [
            ("+si", Prefixes::Si),
            ("+bin", Prefixes::Binary),
            ("+both", Prefixes::Both),
        ] {
            if let Some(rest) = left.strip_prefix(flag) {
                prefixes = kind;
                left = rest.trim();
            }
        }
        let (symbols, words) = match left.split_once('|') {
            Some((s, w)) => (s.trim(), w.trim()),
            None => (left, ""),
        };
        let (definition, offset) = match right.split_once('@') {
            Some((d, o)) => (d.trim(), Some(o.trim())),
            None => (right.trim(), None),
        };
        let (factor, dim) = self.evaluate(definition)?;
        let zero = match offset {
            Some(o) => {
                let (off, off_dim) = self.evaluate(o)?;
                if !off_dim.is_none() || off.pi != 0 {
                    return None;
                }
                Some(&off.ratio * &factor.ratio)
            }
            None => None,
        };
        let index = self.defs.len();
        let names: Vec<&str> = symbols
            .split_whitespace()
            .chain(words.split_whitespace())
            .collect();
        let definition = match definition {
            d if d.starts_with('!') => "a base unit".to_string(),
            d => d.to_string(),
        };
        let prefixes_text = match prefixes {
            Prefixes::None => "",
            Prefixes::Si => " (takes SI prefixes)",
            Prefixes::Binary => " (takes binary prefixes)",
            Prefixes::Both => " (takes SI and binary prefixes)",
        };
        let symbol = symbols.split_whitespace().next().map(str::to_string);
        let shown_as = self.in_symbols(&definition).or_else(|| symbol.clone());
        self.defs.push(Def {
            factor,
            dim,
            zero,
            prefixes,
            names: names.join(", "),
            definition: format!("{definition}{prefixes_text}"),
            shown_as,
            symbol,
        });
        for s in symbols.split_whitespace() {
            self.names.insert(s.to_string(), (index, true));
        }
        for w in words.split_whitespace() {
            self.names.insert(w.to_string(), (index, false));
            self.lower.insert(w.to_lowercase(), index);
        }
        Some(())
    }

    /// A definition that is a product of unit symbols with whole powers
    /// (`W h`, `m^2`, `lbf/in^2`), written as people write it (`W h`,
    /// `m²`, `lbf/in²`).
    fn in_symbols(&self, definition: &str) -> Option<String> {
        let (up, down) = match definition.split_once('/') {
            Some((u, d)) => (u, Some(d)),
            None => (definition, None),
        };
        let render = |part: &str| -> Option<String> {
            let mut out = Vec::new();
            for piece in part.split_whitespace() {
                let (name, power) = match piece.split_once('^') {
                    Some((n, p)) => (n, Some(p.parse::<i64>().ok()?)),
                    None => (piece, None),
                };
                if !matches!(self.names.get(name), Some(&(_, true))) {
                    return None;
                }
                out.push(match power {
                    Some(p) => format!("{name}{}", crate::lex::superscript(p)),
                    None => name.to_string(),
                });
            }
            (!out.is_empty()).then(|| out.join(" "))
        };
        let up = render(up)?;
        match down {
            None => Some(up),
            Some(d) if !d.contains('/') => Some(format!("{up}/{}", render(d)?)),
            Some(_) => None,
        }
    }

    /// Evaluates a definition: numbers, `pi`, units defined above, base
    /// dimensions (`!L`), `*`, `/`, juxtaposition and integer powers.
    fn evaluate(&self, definition: &str) -> Option<(Factor, Dim)> {
        let text = definition.replace('!', "__");
        let tokens = lex(&text, LexOptions::default()).ok()?;
        let statement = parse(&tokens, &DefinitionNames(self), text.len()).ok()?;
        let Statement::Eval { expr, target: None } = statement else {
            return None;
        };
        self.eval_expr(&expr)
    }

    fn eval_expr(&self, e: &crate::parse::Expr) -> Option<(Factor, Dim)> {
        match &e.kind {
            ExprKind::Number(r) => Some((
                Factor {
                    ratio: r.clone(),
                    pi: 0,
                },
                Dim::NONE,
            )),
            ExprKind::Name(name, _) if name == "pi" => Some((
                Factor {
                    ratio: RBig::ONE,
                    pi: 1,
                },
                Dim::NONE,
            )),
            ExprKind::Name(name, _) => {
                if let Some(tag) = name.strip_prefix("__") {
                    let i = BASE_TAGS.iter().position(|t| *t == tag)?;
                    let mut d = [0i16; 9];
                    d[i] = WHOLE as i16;
                    // The gram is defined as 0.001 of the kilogram base.
                    return Some((Factor::one(), Dim(d)));
                }
                let u = self.lookup(name)?;
                Some((u.factor, u.dim))
            }
            ExprKind::Binary { op, lhs, rhs } => {
                let (a, da) = self.eval_expr(lhs)?;
                match op {
                    BinOp::Mul | BinOp::Implicit => {
                        let (b, db) = self.eval_expr(rhs)?;
                        Some((a.mul(&b), da.mul(db)))
                    }
                    BinOp::Div => {
                        let (b, db) = self.eval_expr(rhs)?;
                        Some((a.div(&b)?, da.mul(db.inv())))
                    }
                    BinOp::Pow => {
                        let ExprKind::Number(n) = &rhs.kind else {
                            return None;
                        };
                        if !n.denominator().is_one() {
                            return None;
                        }
                        let n = i32::try_from(n.numerator()).ok()?;
                        Some((a.powi(n), da.pow(i64::from(n), 1)?))
                    }
                    _ => None,
                }
            }
            ExprKind::Neg(inner) => {
                let (a, d) = self.eval_expr(inner)?;
                Some((
                    Factor {
                        ratio: -a.ratio,
                        pi: a.pi,
                    },
                    d,
                ))
            }
            _ => None,
        }
    }

    fn unit(&self, name: &str, index: usize, prefix: Option<&Prefix>) -> Option<Unit> {
        let def = self.defs.get(index)?;
        let mut factor = def.factor.clone();
        if let Some(p) = prefix {
            factor.ratio = &factor.ratio * p.factor();
        }
        // A prefixed scale (`millicelsius`, `kilocelsius`) is a size of
        // degree, not a scale with its own zero.
        let zero = if prefix.is_some() {
            None
        } else {
            def.zero.clone()
        };
        // A word of several (`watt_hour`) is not how a result should read.
        let shown = if name.contains('_') {
            match (prefix, &def.symbol) {
                (None, _) => def.shown_as.clone(),
                (Some(p), Some(symbol)) => p.symbols.first().map(|ps| format!("{ps}{symbol}")),
                (Some(_), None) => None,
            }
            .unwrap_or_else(|| name.replace('_', " "))
        } else {
            name.to_string()
        };
        Some(Unit {
            name: shown,
            factor,
            dim: def.dim,
            zero,
        })
    }

    /// The unit a name stands for, if any.
    pub(crate) fn lookup(&self, name: &str) -> Option<Unit> {
        if let Some(&(index, _)) = self.names.get(name) {
            return self.unit(name, index, None);
        }
        let lists: [(&[Prefix], [Prefixes; 2]); 2] = [
            (SI_PREFIXES, [Prefixes::Si, Prefixes::Both]),
            (BINARY_PREFIXES, [Prefixes::Binary, Prefixes::Both]),
        ];
        for (list, allowed) in lists {
            for prefix in list {
                for (forms, symbol) in [(prefix.symbols, true), (prefix.word, false)] {
                    for form in forms {
                        let Some(rest) = name.strip_prefix(form) else {
                            continue;
                        };
                        let Some(&(index, is_symbol)) = self.names.get(rest) else {
                            continue;
                        };
                        let def = self.defs.get(index)?;
                        // A word prefix may also go before a symbol that
                        // is a word itself (`megabit`, `millisec`).
                        let word_symbol = !symbol
                            && is_symbol
                            && rest.len() >= 3
                            && rest.bytes().all(|b| b.is_ascii_lowercase());
                        if (is_symbol == symbol || word_symbol) && allowed.contains(&def.prefixes) {
                            return self.unit(name, index, Some(prefix));
                        }
                    }
                }
            }
        }
        let lower = name.to_lowercase();
        if let Some(&index) = self.lower.get(&lower) {
            return self.unit(name, index, None);
        }
        None
    }

    /// Every unit name without a prefix (for suggestions and counting).
    pub(crate) fn names(&self) -> impl Iterator<Item = &str> {
        self.names.keys().map(String::as_str)
    }

    /// Every unit: its names and its definition as written.
    pub(crate) fn entries(&self) -> impl Iterator<Item = (&str, &str)> {
        self.defs
            .iter()
            .map(|d| (d.names.as_str(), d.definition.as_str()))
    }

    /// How many names a lookup accepts, prefixed forms included.
    #[cfg(test)]
    pub(crate) fn count_with_prefixes(&self) -> usize {
        let mut n = self.names.len();
        for &(index, symbol) in self.names.values() {
            let Some(def) = self.defs.get(index) else {
                continue;
            };
            let per = |list: &[Prefix]| -> usize {
                list.iter()
                    .map(|p| {
                        if symbol {
                            p.symbols.len()
                        } else {
                            p.word.len()
                        }
                    })
                    .sum()
            };
            n += match def.prefixes {
                Prefixes::None => 0,
                Prefixes::Si => per(SI_PREFIXES),
                Prefixes::Binary => per(BINARY_PREFIXES),
                Prefixes::Both => per(SI_PREFIXES) + per(BINARY_PREFIXES),
            };
        }
        n
    }
}

struct DefinitionNames<'a>(&'a Table);

impl Names for DefinitionNames<'_> {
    fn kind(&self, name: &str) -> Option<NameKind> {
        if name == "pi" {
            return Some(NameKind::Value);
        }
        if name.starts_with("__") || self.0.lookup(name).is_some() {
            return Some(NameKind::Unit);
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_line_reads() {
        assert_eq!(table().bad_lines, Vec::<String>::new());
    }

    #[test]
    fn at_least_a_thousand_names_before_prefixes() {
        let n = table().names().count();
        assert!(n >= 1000, "only {n} unit names");
        // With prefixes (the README quotes both figures).
        let all = table().count_with_prefixes();
        assert!(all >= 5000, "{all} names with prefixes");
        eprintln!("{n} unit names, {all} with prefixes");
    }

    fn size(name: &str) -> (RBig, i32, Dim) {
        let u = table()
            .lookup(name)
            .unwrap_or_else(|| panic!("no unit {name}"));
        (u.factor.ratio, u.factor.pi, u.dim)
    }

    fn r(n: i64, d: u64) -> RBig {
        RBig::from_parts(IBig::from(n), UBig::from(d))
    }

    #[test]
    fn sizes() {
        assert_eq!(size("ft").0, r(3048, 10000));
        assert_eq!(size("km").0, r(1000, 1));
        assert_eq!(size("kilometres").0, r(1000, 1));
        assert_eq!(size("kg").0, r(1, 1));
        assert_eq!(size("mg").0, r(1, 1_000_000));
        assert_eq!(size("KiB").0, r(8192, 1));
        assert_eq!(size("kB").0, r(8000, 1));
        assert_eq!(size("min").0, r(60, 1));
        assert_eq!(size("mi").0, r(1609344, 1000));
        assert_eq!(size("deg").1, 1);
        assert_eq!(size("deg").0, r(1, 180));
        assert_eq!(size("Meter").0, r(1, 1));
        assert_eq!(size("N").2, Dim([12, 12, -24, 0, 0, 0, 0, 0, 0]));
        assert_eq!(size("kWh").0, r(3_600_000, 1));
        assert!(table().lookup("kft").is_none(), "ft takes no prefixes");
        // A prefixed scale is a size of degree, with no zero of its own.
        assert_eq!(table().lookup("k°C").map(|u| u.zero), Some(None));
        assert_eq!(size("millicelsius").0, r(1, 1000));
        let c = table().lookup("°C").map(|u| u.zero);
        assert_eq!(c, Some(Some(r(27315, 100))));
    }
}
