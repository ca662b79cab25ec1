//! What people type that is not yet arithmetic, turned into tokens the
//! parser reads: number words (`two million`, `thirty-five`, `a quarter`,
//! `three quarters`), lone SI prefixes (`kilo`, `milli`), mixed numbers
//! (`8 1/2`), a fraction of two integers before a unit (`1/2 cup`, read
//! as half a cup, not 1/(2 cup)), unit names of two or three words
//! (`light year`, `US gallon`), and `C` / `F` as Celsius and Fahrenheit
//! in a conversion with a temperature (`20 C to F`, `300 K to C`).
//!
//! Runs on the lexer's tokens before parsing; a name the user defined
//! keeps its meaning.

use dashu_int::IBig;
use dashu_ratio::RBig;

use crate::lex::{Tok, Token};

/// A word for a whole number below a hundred.
fn small(word: &str) -> Option<u32> {
    const ONES: [&str; 20] = [
        "zero",
        "one",
        "two",
        "three",
        "four",
        "five",
        "six",
        "seven",
        "eight",
        "nine",
        "ten",
        "eleven",
        "twelve",
        "thirteen",
        "fourteen",
        "fifteen",
        "sixteen",
        "seventeen",
        "eighteen",
        "nineteen",
    ];
    const TENS: [&str; 8] = [
        "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety",
    ];
    if let Some(k) = ONES.iter().position(|w| *w == word) {
        return Some(k as u32);
    }
    TENS.iter()
        .position(|w| *w == word)
        .map(|k| 20 + 10 * k as u32)
}

/// A word that multiplies what came before it: `hundred`, `thousand`, …
fn scale(word: &str) -> Option<RBig> {
    let power = match word {
        "hundred" => 2,
        "thousand" => 3,
        "million" => 6,
        "billion" => 9,
        "trillion" => 12,
        "quadrillion" => 15,
        "quintillion" => 18,
        "sextillion" => 21,
        "septillion" => 24,
        "octillion" => 27,
        "nonillion" => 30,
        "decillion" => 33,
        "undecillion" => 36,
        "duodecillion" => 39,
        "tredecillion" => 42,
        "quattuordecillion" => 45,
        "quindecillion" => 48,
        "sexdecillion" => 51,
        "septendecillion" => 54,
        "octodecillion" => 57,
        "novemdecillion" => 60,
        "vigintillion" => 63,
        "centillion" => 303,
        _ => return None,
    };
    Some(RBig::from(IBig::from(10u8).pow(power)))
}

/// A word for a count: `dozen`, `gross`.
fn count(word: &str) -> Option<u32> {
    Some(match word {
        "dozen" => 12,
        "gross" => 144,
        _ => return None,
    })
}

/// A word for a fraction: `half`, `quarter`, `third`, … (and plurals).
fn fraction(word: &str) -> Option<u32> {
    let singular = word.strip_suffix('s').unwrap_or(word);
    Some(match singular {
        "half" | "halve" => 2,
        "third" => 3,
        "quarter" | "fourth" => 4,
        "fifth" => 5,
        "sixth" => 6,
        "eighth" => 8,
        "tenth" => 10,
        _ => return None,
    })
}

/// An SI prefix said alone: the number it names.
fn prefix(word: &str) -> Option<RBig> {
    let power: i32 = match word {
        "quetta" => 30,
        "ronna" => 27,
        "yotta" => 24,
        "zetta" => 21,
        "exa" => 18,
        "peta" => 15,
        "tera" => 12,
        "giga" => 9,
        "mega" => 6,
        "myria" => 4,
        "kilo" => 3,
        "hecto" => 2,
        "deca" | "deka" => 1,
        "deci" => -1,
        "centi" => -2,
        "milli" => -3,
        "micro" => -6,
        "nano" => -9,
        "pico" => -12,
        "femto" => -15,
        "atto" => -18,
        "zepto" => -21,
        "yocto" => -24,
        "ronto" => -27,
        "quecto" => -30,
        _ => return None,
    };
    let p = RBig::from(IBig::from(10u8).pow(power.unsigned_abs() as usize));
    Some(if power >= 0 { p } else { RBig::ONE / p })
}

fn is_number_word(word: &str) -> bool {
    small(word).is_some()
        || scale(word).is_some()
        || count(word).is_some()
        || fraction(word).is_some()
        || prefix(word).is_some()
}

/// Rewrites `tokens` in place; `defined` says whether the user gave a
/// name a meaning (it then keeps it), `unit` whether a name is a unit.
pub(crate) fn read_words(
    tokens: &mut Vec<Token>,
    defined: &dyn Fn(&str) -> bool,
    unit: &dyn Fn(&str) -> bool,
) {
    let word_at = |tokens: &[Token], k: usize| -> Option<String> {
        match tokens.get(k).map(|t| &t.tok) {
            Some(Tok::Ident(w)) => {
                let lower = w.to_lowercase();
                // Not a name being defined (`two = 3`, `half(x) = x/2`).
                let defining = matches!(
                    tokens.get(k + 1).map(|t| &t.tok),
                    Some(Tok::Equals | Tok::LParen)
                );
                (is_number_word(&lower) && !defined(w) && !defining).then_some(lower)
            }
            _ => None,
        }
    };
    join_spaced_units(tokens, defined, unit);
    temperature_sides(tokens);
    let mut out: Vec<Token> = Vec::with_capacity(tokens.len());
    let mut k = 0;
    while k < tokens.len() {
        // `a` or `an` before a number word is one of it (`a quarter`).
        let article = matches!(&tokens[k].tok, Tok::Ident(w) if (w == "a" || w == "an"))
            && word_at(tokens, k + 1).is_some();
        let first = if article { k + 1 } else { k };
        if let Some((value, end)) = number_words(tokens, first, &word_at) {
            let span = tokens[k].span.start..tokens[end - 1].span.end;
            out.push(Token {
                tok: Tok::Number(value),
                span,
            });
            k = end;
            continue;
        }
        // A number times the words after it: `3 dozen`, `1.5 million`.
        if let Some(Tok::Number(n)) = tokens.get(k).map(|t| &t.tok)
            && let Some(word) = word_at(tokens, k + 1)
            && (scale(&word).is_some()
                || count(&word).is_some()
                || fraction(&word).is_some()
                || prefix(&word).is_some())
            && let Some((value, end)) = number_words(tokens, k + 1, &word_at)
        {
            out.push(Token {
                tok: Tok::Number(n * value),
                span: tokens[k].span.start..tokens[end - 1].span.end,
            });
            k = end;
            continue;
        }
        // A mixed number: `8 1/2` (integers, the fraction proper).
        if let (
            Some(Tok::Number(whole)),
            Some(Tok::Number(num)),
            Some(Tok::Slash),
            Some(Tok::Number(den)),
        ) = (
            tokens.get(k).map(|t| &t.tok),
            tokens.get(k + 1).map(|t| &t.tok),
            tokens.get(k + 2).map(|t| &t.tok),
            tokens.get(k + 3).map(|t| &t.tok),
        ) && [whole, num, den].iter().all(|n| n.denominator().is_one())
            && num < den
            && !matches!(tokens.get(k + 4).map(|t| &t.tok), Some(Tok::Caret))
        {
            let value = whole + num / den;
            out.push(Token {
                tok: Tok::Number(value),
                span: tokens[k].span.start..tokens[k + 3].span.end,
            });
            k += 4;
            continue;
        }
        // A fraction of integers before a unit: `1/2 cup` is half a cup.
        if let (
            Some(Tok::Number(num)),
            Some(Tok::Slash),
            Some(Tok::Number(den)),
            Some(Tok::Ident(u)),
        ) = (
            tokens.get(k).map(|t| &t.tok),
            tokens.get(k + 1).map(|t| &t.tok),
            tokens.get(k + 2).map(|t| &t.tok),
            tokens.get(k + 3).map(|t| &t.tok),
        ) && num.denominator().is_one()
            && den.denominator().is_one()
            && !den.is_zero()
            && unit(u)
            && !defined(u)
            && !matches!(out.last().map(|t| &t.tok), Some(Tok::Slash | Tok::Caret))
        {
            out.push(Token {
                tok: Tok::Number(num / den),
                span: tokens[k].span.start..tokens[k + 2].span.end,
            });
            k += 3;
            continue;
        }
        out.push(tokens[k].clone());
        k += 1;
    }
    *tokens = out;
}

/// The number a run of number words from `k` names, and where the run
/// ends: `two hundred thirty-five thousand`, `three quarters`, `kilo`.
fn number_words(
    tokens: &[Token],
    k: usize,
    word_at: &dyn Fn(&[Token], usize) -> Option<String>,
) -> Option<(RBig, usize)> {
    let first = word_at(tokens, k)?;
    if let Some(p) = prefix(&first) {
        return Some((p, k + 1));
    }
    let mut total = RBig::ZERO;
    let mut current: Option<RBig> = None;
    let mut j = k;
    while let Some(word) = word_at(tokens, j) {
        if let Some(n) = small(&word) {
            // `thirty-five`: a tens word, a hyphen and a ones word, touching.
            let mut n = n;
            if n >= 20
                && n % 10 == 0
                && matches!(tokens.get(j + 1).map(|t| &t.tok), Some(Tok::Minus))
                && let Some(ones) = word_at(tokens, j + 2).and_then(|w| small(&w))
                && (1..10).contains(&ones)
                && tokens[j].span.end == tokens[j + 1].span.start
                && tokens[j + 1].span.end == tokens[j + 2].span.start
            {
                n += ones;
                j += 2;
            }
            let n = RBig::from(n);
            current = Some(current.map_or(n.clone(), |c| c + n));
        } else if let Some(s) = scale(&word) {
            let c = current.take().unwrap_or(RBig::ONE);
            if word == "hundred" {
                current = Some(c * s);
            } else {
                total += c * s;
            }
        } else if let Some(c) = count(&word) {
            // A count multiplies what is before it: `thousand dozen` is
            // 12,000, `two dozen` 24.
            match current.take() {
                Some(n) => current = Some(n * RBig::from(c)),
                None if !total.is_zero() => total *= RBig::from(c),
                None => current = Some(RBig::from(c)),
            }
        } else if let Some(d) = fraction(&word) {
            current = Some(current.unwrap_or(RBig::ONE) / RBig::from(d));
            j += 1;
            break;
        } else {
            break;
        }
        j += 1;
    }
    (j > k).then(|| (total + current.unwrap_or(RBig::ZERO), j))
}

/// Unit names written as words apart (`light year`, `nautical mile`,
/// `imperial fluid ounce`): two or three names side by side whose joining
/// with `_` is a unit become that unit.
fn join_spaced_units(
    tokens: &mut Vec<Token>,
    defined: &dyn Fn(&str) -> bool,
    unit: &dyn Fn(&str) -> bool,
) {
    let mut k = 0;
    while k < tokens.len() {
        let mut joined = None;
        // Up to five words: `escape velocity of the earth`.
        for n in [5, 4, 3, 2] {
            let words: Option<Vec<&str>> = tokens
                .get(k..k + n)
                .map(|run| {
                    run.iter()
                        .map(|t| match &t.tok {
                            Tok::Ident(w) if !defined(w) => Some(w.as_str()),
                            _ => None,
                        })
                        .collect()
                })
                .and_then(|w| w);
            if let Some(words) = words {
                let name = words.join("_");
                if unit(&name) {
                    joined = Some((n, name));
                    break;
                }
            }
        }
        if let Some((n, name)) = joined {
            let span = tokens[k].span.start..tokens[k + n - 1].span.end;
            tokens.splice(
                k..k + n,
                [Token {
                    tok: Tok::Ident(name),
                    span,
                }],
            );
        }
        k += 1;
    }
}

/// `C` is the coulomb and `F` the farad, but in a conversion whose other
/// side is a temperature, or between the two of them, they are Celsius
/// and Fahrenheit: `20 C to F`, `300 K to C`. The reading shows `°C`.
fn temperature_sides(tokens: &mut [Token]) {
    let temperature = |w: &str| {
        matches!(
            w,
            "K" | "kelvin" | "°C" | "°F" | "degC" | "degF" | "celsius" | "fahrenheit"
        )
    };
    let ambiguous = |w: &str| w == "C" || w == "F";
    let Some(at) = tokens.iter().position(|t| match &t.tok {
        Tok::Ident(w) => w == "to" || w == "in" || w == "as",
        Tok::Arrow => true,
        _ => false,
    }) else {
        return;
    };
    let name = |t: Option<&Token>| match t.map(|t| &t.tok) {
        Some(Tok::Ident(w)) => Some(w.clone()),
        _ => None,
    };
    let (Some(left), Some(right)) = (
        name(tokens.get(at.wrapping_sub(1))),
        name(tokens.get(at + 1)),
    ) else {
        return;
    };
    if tokens.len() != at + 2 {
        return;
    }
    let sides =
        (ambiguous(&left) || temperature(&left)) && (ambiguous(&right) || temperature(&right));
    if !sides || !(ambiguous(&left) || ambiguous(&right)) {
        return;
    }
    for k in [at - 1, at + 1] {
        if let Tok::Ident(w) = &tokens[k].tok
            && ambiguous(w)
        {
            tokens[k].tok = Tok::Ident(format!("°{w}"));
        }
    }
}
