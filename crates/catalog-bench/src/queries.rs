//! The query set: 1–4 terms mixing AND, OR and `-`; terms with very many,
//! few and zero hits; a class with 1–2 character terms.

use crate::corpus::Rng;

/// Which goal a query belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Class {
    /// Every term has three characters or more.
    Long,
    /// At least one term has one or two characters.
    Short,
}

/// One alternative: terms that must all occur, terms that must not.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct Alt {
    pub pos: Vec<String>,
    pub neg: Vec<String>,
}

/// A query, as every peer will be asked it.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct BenchQuery {
    pub class: Class,
    pub alts: Vec<Alt>,
}

impl BenchQuery {
    /// The catalogue's query language.
    pub fn text(&self) -> String {
        self.alts
            .iter()
            .map(|a| {
                let mut parts = a.pos.clone();
                parts.extend(a.neg.iter().map(|n| format!("-{n}")));
                parts.join(" ")
            })
            .collect::<Vec<_>>()
            .join(" OR ")
    }

    /// Whether plocate can ask it (patterns are ANDed; no OR, no NOT).
    pub fn plocate_can(&self) -> bool {
        self.alts.len() == 1 && self.alts[0].neg.is_empty()
    }
}

/// Terms drawn from the corpus: common ones, pieces of random words, and
/// strings that occur nowhere.
struct Pools {
    many: Vec<String>,
    pieces: Vec<String>,
    short: Vec<String>,
}

fn pools(corpus: &[(String, String)], rng: &mut Rng) -> Pools {
    let mut pieces = Vec::new();
    let mut short = Vec::new();
    while pieces.len() < 2000 {
        let (path, caption) = &corpus[rng.below(corpus.len())];
        let text = if !caption.is_empty() && rng.below(3) == 0 {
            caption
        } else {
            path
        };
        let words: Vec<String> = catalog::tokenize(text)
            .into_iter()
            .map(|t| t.word)
            .filter(|w| w.is_ascii() && w.len() >= 3)
            .collect();
        if words.is_empty() {
            continue;
        }
        let w = &words[rng.below(words.len())];
        let len = 3 + rng.below(w.len() - 2);
        let from = rng.below(w.len() - len + 1);
        pieces.push(w[from..from + len].to_owned());
        let s = 1 + rng.below(2);
        let at = rng.below(w.len() - s + 1);
        short.push(w[at..at + s].to_owned());
    }
    Pools {
        many: [
            "img", "jpg", "dsc", "pxl", "2019", "photos", "pictures", "home", "raf", "beach",
        ]
        .map(str::to_owned)
        .to_vec(),
        pieces,
        short,
    }
}

/// A term of three characters or more: very many hits, few, or none.
fn long_term(p: &Pools, rng: &mut Rng) -> String {
    match rng.below(8) {
        0 | 1 => p.many[rng.below(p.many.len())].clone(),
        2 => {
            // Nowhere in the corpus.
            let letters = b"qxzjvwk";
            (0..4 + rng.below(3))
                .map(|_| letters[rng.below(letters.len())] as char)
                .collect()
        }
        _ => p.pieces[rng.below(p.pieces.len())].clone(),
    }
}

/// `n` queries of each class.
pub fn generate(corpus: &[(String, String)], n: usize, seed: u64) -> Vec<BenchQuery> {
    let mut rng = Rng::new(seed);
    let p = pools(corpus, &mut rng);
    let mut out = Vec::new();
    for class in [Class::Long, Class::Short] {
        for _ in 0..n {
            let terms = 1 + rng.below(4);
            let mut words: Vec<String> = (0..terms).map(|_| long_term(&p, &mut rng)).collect();
            if class == Class::Short {
                let i = rng.below(words.len());
                words[i] = p.short[rng.below(p.short.len())].clone();
            }
            // AND only (plocate can ask these), with an exclusion, or two
            // alternatives.
            let alts = match rng.below(10) {
                0..=3 => vec![Alt {
                    pos: words,
                    neg: Vec::new(),
                }],
                4..=6 if words.len() >= 2 => {
                    let neg = words.split_off(1);
                    vec![Alt { pos: words, neg }]
                }
                _ if words.len() >= 2 => {
                    let second = words.split_off(words.len() / 2);
                    vec![
                        Alt {
                            pos: words,
                            neg: Vec::new(),
                        },
                        Alt {
                            pos: second,
                            neg: Vec::new(),
                        },
                    ]
                }
                _ => vec![Alt {
                    pos: words,
                    neg: Vec::new(),
                }],
            };
            out.push(BenchQuery { class, alts });
        }
    }
    out
}
