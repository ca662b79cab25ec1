//! `rating:` and `label:` in a query: the user's marks are the window's,
//! not searched text, so the catalogue never sees these terms. They are
//! taken out of the query and applied to its result: `rating:>=4`,
//! `rating:5`, `rating:<3`, `rating:2..4`, `rating:0` (unrated),
//! `label:red`, `label:none`, and each with `-` to exclude. They apply to
//! the whole query, so they stand outside `OR` and parentheses (where
//! they are refused, saying so).

use catalog::LABELS;

use crate::library::Photo;

/// One mark filter of a query.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MarkFilter {
    /// `-rating:…`: the photos it does not match.
    pub exclude: bool,
    /// What it asks for.
    pub test: MarkTest,
}

/// What a mark filter asks for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MarkTest {
    /// A rating from `lo` to `hi` stars, both included.
    Rating {
        /// The least.
        lo: u8,
        /// The most.
        hi: u8,
    },
    /// This label (empty: none).
    Label(String),
    /// A keyword, folded: a whole path (`places|italy|rome`), a path above
    /// one (`places|italy`), or any level of one (`italy`).
    Keyword(String),
    /// A person named in the photo, folded: the whole name or one of its
    /// words.
    Person(String),
}

impl MarkFilter {
    /// Whether a photo passes.
    pub fn passes(&self, p: &Photo) -> bool {
        self.passes_marks(p.rating, &p.label, p.words.as_deref())
    }

    /// Whether a file of this rating, label and words passes.
    pub fn passes_marks(
        &self,
        rating: u8,
        label: &str,
        words: Option<&catalog::FileWords>,
    ) -> bool {
        let hit = match &self.test {
            MarkTest::Rating { lo, hi } => (*lo..=*hi).contains(&rating),
            MarkTest::Label(l) => label == l,
            MarkTest::Keyword(k) => words.is_some_and(|w| {
                w.keywords.iter().any(|path| {
                    let path = catalog::fold(path);
                    // The whole path, a path above it (the tree's node:
                    // `places|italy` finds `Places|Italy|Rome`), or any
                    // one level (`italy`).
                    path == *k
                        || path
                            .strip_prefix(k.as_str())
                            .is_some_and(|r| r.starts_with('|'))
                        || path.split('|').any(|level| level.trim() == k)
                })
            }),
            MarkTest::Person(n) => words.is_some_and(|w| {
                w.people.iter().any(|name| {
                    let name = catalog::fold(name);
                    name == *n || name.split_whitespace().any(|part| part == n)
                })
            }),
        };
        hit != self.exclude
    }
}

/// Splits `rating:`/`label:` terms off a query: the rest (for the
/// catalogue) and the filters. An error names the term and what is wrong.
pub fn split(query: &str) -> Result<(String, Vec<MarkFilter>), String> {
    let mut rest: Vec<&str> = Vec::new();
    let mut filters = Vec::new();
    let mut depth = 0i32;
    let mut quoted = false;
    let mut or = false;
    // Split at white space outside quotes: `keyword:"New York"` is one.
    for word in crate::tags::items(query) {
        let bare = word.strip_prefix('-').unwrap_or(word);
        let lower = bare.to_ascii_lowercase();
        let is_mark = !quoted
            && !word.starts_with('"')
            && ["rating:", "label:", "keyword:", "person:"]
                .iter()
                .any(|f| lower.starts_with(f));
        if is_mark {
            if depth > 0 {
                return Err(format!(
                    "{word}: rating: and label: apply to the whole query; put them outside parentheses"
                ));
            }
            filters.push(MarkFilter {
                exclude: word.starts_with('-'),
                test: test(bare).map_err(|e| format!("{word}: {e}"))?,
            });
            continue;
        }
        for c in word.chars() {
            match c {
                '"' => quoted = !quoted,
                '(' if !quoted => depth += 1,
                ')' if !quoted => depth -= 1,
                _ => {}
            }
        }
        // Only an OR at the top: `(caption:berlin OR dir:berlin)`, a tag
        // of the cloud, is one term of the whole query.
        if word == "OR" && !quoted && depth == 0 {
            or = true;
        }
        rest.push(word);
    }
    if or && !filters.is_empty() {
        return Err(
            "rating: and label: apply to the whole query; they cannot stand beside OR yet"
                .to_owned(),
        );
    }
    Ok((rest.join(" "), filters))
}

fn test(term: &str) -> Result<MarkTest, String> {
    let (field, value) = term.split_once(':').unwrap_or((term, ""));
    let field = field.to_ascii_lowercase();
    let value = value.trim_matches('"');
    if field == "keyword" || field == "person" {
        let v = catalog::fold(value.trim());
        if v.is_empty() {
            return Err(format!("{field}: needs a name ({field}:italy)"));
        }
        return Ok(if field == "keyword" {
            MarkTest::Keyword(v)
        } else {
            MarkTest::Person(v)
        });
    }
    let lower = term.to_ascii_lowercase();
    let term = lower.as_str();
    if let Some(v) = term.strip_prefix("label:") {
        return if v == "none" {
            Ok(MarkTest::Label(String::new()))
        } else if LABELS.contains(&v) {
            Ok(MarkTest::Label(v.to_owned()))
        } else {
            Err(format!("a label is one of {} or none", LABELS.join(", ")))
        };
    }
    let v = term.strip_prefix("rating:").unwrap_or(term);
    let stars = |s: &str| -> Result<u8, String> {
        s.parse::<u8>()
            .ok()
            .filter(|&n| n <= 5)
            .ok_or_else(|| "a rating is 0 to 5 stars: rating:4, rating:>=4, rating:2..4".to_owned())
    };
    let (lo, hi) = if let Some(n) = v.strip_prefix(">=") {
        (stars(n)?, 5)
    } else if let Some(n) = v.strip_prefix("<=") {
        (0, stars(n)?)
    } else if let Some(n) = v.strip_prefix('>') {
        let n = stars(n)?;
        if n == 5 {
            return Err("no rating is above 5".to_owned());
        }
        (n + 1, 5)
    } else if let Some(n) = v.strip_prefix('<') {
        let n = stars(n)?;
        if n == 0 {
            return Err("no rating is below 0".to_owned());
        }
        (0, n - 1)
    } else if let Some((a, b)) = v.split_once("..") {
        (stars(a)?, stars(b)?)
    } else {
        let n = stars(v.strip_prefix('=').unwrap_or(v))?;
        (n, n)
    };
    if lo > hi {
        return Err(format!("{lo} is above {hi}"));
    }
    Ok(MarkTest::Rating { lo, hi })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rating(lo: u8, hi: u8) -> MarkTest {
        MarkTest::Rating { lo, hi }
    }

    #[test]
    fn marks_are_split_off_and_parsed() {
        let (rest, f) = split("kitten rating:>=4 -label:red").unwrap();
        assert_eq!(rest, "kitten");
        assert_eq!(f[0].test, rating(4, 5));
        assert!(f[1].exclude);
        assert_eq!(f[1].test, MarkTest::Label("red".to_owned()));
        for (q, t) in [
            ("rating:5", rating(5, 5)),
            ("rating:<3", rating(0, 2)),
            ("rating:<=3", rating(0, 3)),
            ("rating:>2", rating(3, 5)),
            ("rating:2..4", rating(2, 4)),
            ("rating:0", rating(0, 0)),
            ("label:none", MarkTest::Label(String::new())),
            ("LABEL:Blue", MarkTest::Label("blue".to_owned())),
        ] {
            assert_eq!(split(q).unwrap().1[0].test, t, "{q}");
        }
        for bad in [
            "rating:6",
            "rating:>5",
            "rating:4..2",
            "rating:x",
            "label:teal",
            "(cat rating:3)",
            "cat OR dog rating:3",
        ] {
            assert!(split(bad).is_err(), "{bad}");
        }
        // Inside quotes it is text.
        assert_eq!(split("\"rating:5 club\"").unwrap().1, []);
        // An OR inside parentheses (a merged tag's term) is one term.
        let (rest, f) = split("(caption:berlin OR dir:berlin) rating:3").unwrap();
        assert_eq!(rest, "(caption:berlin OR dir:berlin)");
        assert_eq!(f[0].test, rating(3, 3));
    }
}
