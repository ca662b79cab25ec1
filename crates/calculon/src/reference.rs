//! The list of names a user can look up: every function, constant and
//! unit with what it is, and the user's own definitions.

use crate::eval::Calculator;

/// What kind of name an [`Entry`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum EntryKind {
    /// A variable or function the user defined.
    Yours,
    /// A built-in function.
    Function,
    /// A mathematical or physical constant.
    Constant,
    /// A unit (or currency).
    Unit,
}

/// One name (or several names for one thing) and what it means.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    /// The names, first the one to insert: `sin`, `m, meter, metre`.
    pub names: String,
    /// What to type: `sin(x)`, `m`.
    pub usage: String,
    /// What it is: `sine (radians)`, `a base unit (takes SI prefixes)`.
    pub definition: String,
    /// Its kind.
    pub kind: EntryKind,
}

impl Entry {
    /// Whether every word of `query` is in the names or the definition
    /// (ignoring case).
    pub fn matches(&self, query: &str) -> bool {
        let hay = format!("{} {} {}", self.names, self.usage, self.definition).to_lowercase();
        query
            .to_lowercase()
            .split_whitespace()
            .all(|w| hay.contains(w))
    }
}

/// Built-in functions: names, usage, what they do.
const FUNCTIONS: &[(&str, &str, &str)] = &[
    (
        "sqrt",
        "sqrt(x)",
        "square root (√, Ctrl+R); of units too: sqrt(4 m^2) = 2 m",
    ),
    ("cbrt", "cbrt(x)", "cube root, real for negative x"),
    ("root", "root(x, n)", "n-th root"),
    ("exp", "exp(x)", "e to the power x"),
    ("ln", "ln(x)", "natural logarithm"),
    (
        "log, log10",
        "log(x) or log(x, base)",
        "logarithm, base 10 unless given",
    ),
    ("log2", "log2(x)", "logarithm base 2"),
    (
        "sin",
        "sin(x)",
        "sine; x in radians, or with a unit (sin 30°)",
    ),
    ("cos", "cos(x)", "cosine; x in radians, or with a unit"),
    ("tan", "tan(x)", "tangent; x in radians, or with a unit"),
    ("asin, arcsin", "asin(x)", "inverse sine, in radians"),
    ("acos, arccos", "acos(x)", "inverse cosine, in radians"),
    ("atan, arctan", "atan(x)", "inverse tangent, in radians"),
    (
        "atan2",
        "atan2(y, x)",
        "angle of the point (x, y), in radians",
    ),
    (
        "sind, cosd, tand",
        "sind(x)",
        "sine, cosine, tangent of x in degrees",
    ),
    (
        "asind, acosd, atand",
        "asind(x)",
        "inverse sine, cosine, tangent, in degrees",
    ),
    ("cis", "cis(x)", "cos x + i sin x, e^(ix)"),
    (
        "sinh, cosh, tanh",
        "sinh(x)",
        "hyperbolic sine, cosine, tangent",
    ),
    (
        "asinh, acosh, atanh",
        "asinh(x)",
        "inverse hyperbolic functions",
    ),
    (
        "abs",
        "abs(x)",
        "absolute value (modulus of a complex number)",
    ),
    (
        "floor",
        "floor(x)",
        "largest integer ≤ x (in x's units: floor(5.5 ft) = 5 ft)",
    ),
    ("ceil", "ceil(x)", "smallest integer ≥ x"),
    (
        "round",
        "round(x)",
        "nearest integer, halves away from zero",
    ),
    ("trunc", "trunc(x)", "integer part, toward zero"),
    ("sign, sgn", "sign(x)", "-1, 0 or 1"),
    ("min", "min(a, b, …)", "smallest of the values"),
    ("max", "max(a, b, …)", "largest of the values"),
    ("sum", "sum(a, b, …)", "sum of the values"),
    ("product", "product(a, b, …)", "product of the values"),
    ("mean, average, avg", "mean(a, b, …)", "arithmetic mean"),
    (
        "median",
        "median(a, b, …)",
        "middle value (mean of the two middle ones)",
    ),
    ("count", "count(a, b, …)", "how many values"),
    (
        "stdev, stddev",
        "stdev(a, b, …)",
        "sample standard deviation",
    ),
    ("variance, var", "variance(a, b, …)", "sample variance"),
    ("gcd", "gcd(a, b, …)", "greatest common divisor"),
    ("lcm", "lcm(a, b, …)", "least common multiple"),
    (
        "factorial, fact",
        "factorial(n) or n!",
        "n! (gamma function for non-integers)",
    ),
    (
        "binomial, choose, ncr",
        "binomial(n, k)",
        "ways to choose k of n",
    ),
    (
        "mod",
        "mod(a, b) or a mod b",
        "remainder with the sign of b; units too",
    ),
    (
        "xor",
        "xor(a, b) or a xor b",
        "bitwise exclusive or of integers",
    ),
    ("shl, shr", "shl(a, n) or a << n", "bit shifts of integers"),
    ("re, im", "re(z)", "real and imaginary parts"),
    ("conj", "conj(z)", "complex conjugate"),
    ("arg", "arg(z)", "angle of a complex number, in radians"),
    ("hypot", "hypot(a, b)", "√(a² + b²) without overflow"),
    (
        "if",
        "if(condition, then, else)",
        "then when the condition is not 0, else otherwise",
    ),
];

impl Calculator {
    /// Every name a line may use, with what it means: the user's
    /// definitions first, then functions, constants and units (currencies
    /// with their rate's day), each group in alphabetical order.
    pub fn reference(&self) -> Vec<Entry> {
        let mut out: Vec<Entry> = self
            .definition_lines()
            .map(|(name, line)| Entry {
                names: name.to_string(),
                usage: name.to_string(),
                definition: line.to_string(),
                kind: EntryKind::Yours,
            })
            .collect();
        for (names, usage, what) in FUNCTIONS {
            out.push(Entry {
                names: (*names).into(),
                usage: (*usage).into(),
                definition: (*what).into(),
                kind: EntryKind::Function,
            });
        }
        for (names, value) in [
            (
                "pi, π",
                "3.14159… (the circle's circumference over its diameter)",
            ),
            ("e", "2.71828… (the base of natural logarithms)"),
            ("tau, τ", "2π"),
            ("phi, φ, golden_ratio", "(1 + √5)/2"),
            ("i", "the imaginary unit, √-1"),
        ] {
            out.push(Entry {
                names: names.into(),
                usage: first(names),
                definition: value.into(),
                kind: EntryKind::Constant,
            });
        }
        for (names, value) in crate::constants::PHYSICAL {
            out.push(Entry {
                names: names.join(", "),
                usage: names.first().copied().unwrap_or_default().into(),
                definition: (*value).into(),
                kind: EntryKind::Constant,
            });
        }
        for (names, value) in crate::constants::BODIES {
            out.push(Entry {
                names: names.join(", "),
                usage: names.first().copied().unwrap_or_default().into(),
                definition: format!("{value} ({})", crate::constants::BODIES_SOURCE),
                kind: EntryKind::Constant,
            });
        }
        let rates_day = &crate::rates::Rates::current().date;
        for (names, definition) in crate::units::table().entries() {
            let definition = if definition.starts_with("EUR/") {
                format!("{definition} (ECB rate of {rates_day})")
            } else {
                definition.to_string()
            };
            out.push(Entry {
                names: names.into(),
                usage: first(names),
                definition,
                kind: EntryKind::Unit,
            });
        }
        out.sort_by_key(|e| (e.kind, e.names.to_lowercase()));
        out
    }
}

fn first(names: &str) -> String {
    names.split(", ").next().unwrap_or(names).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every built-in function, constant and unit is in the list (a new
    /// one without a line there fails here).
    #[test]
    fn every_name_is_listed() {
        let mut calc = Calculator::default();
        calc.evaluate("f(x) = x^2 + 1")
            .map(|_| ())
            .unwrap_or_else(|e| panic!("{e}"));
        let entries = calc.reference();
        let listed = |name: &str| {
            entries
                .iter()
                .any(|e| e.names.split(", ").any(|n| n == name))
        };
        for name in crate::functions::NAMES
            .iter()
            .copied()
            .chain(crate::constants::names())
            .chain(crate::units::table().names())
        {
            assert!(listed(name), "{name} is not in the list of names");
        }
        assert_eq!(entries[0].kind, EntryKind::Yours);
        assert_eq!(entries[0].definition, "f(x) = x^2 + 1");
    }

    #[test]
    fn a_search_matches_every_word() {
        let calc = Calculator::default();
        let found: Vec<String> = calc
            .reference()
            .into_iter()
            .filter(|e| e.matches("LIGHT year"))
            .map(|e| e.usage)
            .collect();
        assert!(found.iter().any(|u| u == "ly"), "{found:?}");
        let usd: Vec<Entry> = calc
            .reference()
            .into_iter()
            .filter(|e| e.matches("usd"))
            .collect();
        assert!(
            usd.iter().any(|e| e.definition.contains("ECB rate of")),
            "{usd:?}"
        );
    }
}
