//! The keyword tree beside the tag cloud and the folder tree (as
//! digiKam's tag panel): every keyword path the photos' files name
//! (`Places|Italy|Rome`), as a hierarchy, each node with the number of
//! photos at it or below it. Names that differ only in case or accents
//! are one node (the first spelling seen is shown).

use std::collections::HashMap;

use crate::library::Photo;

/// One keyword of the tree.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KeywordNode {
    /// Its own name (`Rome`).
    pub name: String,
    /// Its path from the top, levels joined with `|` (`Places|Italy|Rome`).
    pub path: String,
    /// Photos with this keyword or one below it.
    pub count: usize,
    /// The keywords below, by name.
    pub children: Vec<usize>,
}

/// The hierarchy of every keyword in a set of photos.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct KeywordTree {
    /// Every node; `roots` and `children` index into it.
    pub nodes: Vec<KeywordNode>,
    /// The top-level keywords, by name.
    pub roots: Vec<usize>,
}

impl KeywordTree {
    /// The tree of the photos' keywords.
    pub fn build<'a>(photos: impl IntoIterator<Item = &'a Photo>) -> KeywordTree {
        let mut tree = KeywordTree::default();
        let mut by_key: HashMap<String, usize> = HashMap::new();
        // The last photo counted at each node, so a photo with two
        // keywords under one node counts once there.
        let mut last: Vec<Option<i64>> = Vec::new();
        for p in photos {
            let Some(words) = &p.words else { continue };
            for path in &words.keywords {
                let mut key = String::new();
                let mut shown = String::new();
                let mut parent: Option<usize> = None;
                for level in path.split('|').map(str::trim).filter(|l| !l.is_empty()) {
                    if !key.is_empty() {
                        key.push('|');
                        shown.push('|');
                    }
                    key.push_str(&catalog::fold(level));
                    shown.push_str(level);
                    let i = match by_key.get(&key) {
                        Some(&i) => i,
                        None => {
                            let i = tree.nodes.len();
                            tree.nodes.push(KeywordNode {
                                name: level.to_owned(),
                                path: shown.clone(),
                                count: 0,
                                children: Vec::new(),
                            });
                            last.push(None);
                            by_key.insert(key.clone(), i);
                            match parent {
                                Some(up) => tree.nodes[up].children.push(i),
                                None => tree.roots.push(i),
                            }
                            i
                        }
                    };
                    if last[i] != Some(p.id) {
                        last[i] = Some(p.id);
                        tree.nodes[i].count += 1;
                    }
                    parent = Some(i);
                }
            }
        }
        let key = |t: &KeywordTree, i: usize| catalog::fold(&t.nodes[i].name);
        let mut roots = std::mem::take(&mut tree.roots);
        roots.sort_by_cached_key(|&i| key(&tree, i));
        tree.roots = roots;
        for n in 0..tree.nodes.len() {
            let mut children = std::mem::take(&mut tree.nodes[n].children);
            children.sort_by_cached_key(|&i| key(&tree, i));
            tree.nodes[n].children = children;
        }
        tree
    }

    /// Every keyword path, for completion: (path, photos), the most used
    /// first.
    pub fn paths(&self) -> Vec<(&str, usize)> {
        let mut out: Vec<(&str, usize)> = self
            .nodes
            .iter()
            .map(|n| (n.path.as_str(), n.count))
            .collect();
        out.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
        out
    }

    /// The paths that `typed` completes (any level starting with it,
    /// folded), the most used first, at most `limit`.
    pub fn complete(&self, typed: &str, limit: usize) -> Vec<String> {
        let t = catalog::fold(typed.trim());
        if t.is_empty() {
            return Vec::new();
        }
        self.paths()
            .into_iter()
            .filter(|(p, _)| {
                let f = catalog::fold(p);
                f.starts_with(&t) || f.split('|').any(|l| l.starts_with(&t))
            })
            .take(limit)
            .map(|(p, _)| p.to_owned())
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    fn photo(id: i64, keywords: &[&str]) -> Photo {
        let mut p = Photo::from_record(catalog::FileRecord {
            id,
            path: format!("/p/{id}.jpg"),
            ..Default::default()
        });
        p.words = Some(Arc::new(catalog::FileWords {
            keywords: keywords.iter().map(|k| (*k).to_owned()).collect(),
            people: Vec::new(),
        }));
        p
    }

    #[test]
    fn paths_become_a_tree_counted_once_a_photo() {
        let photos = [
            photo(1, &["Places|Italy|Rome", "Places|Italy|Florence"]),
            photo(2, &["places|italy|Rome", "evening"]),
            photo(3, &["Places|France"]),
        ];
        let t = KeywordTree::build(&photos);
        let names: Vec<(&str, usize)> = t
            .roots
            .iter()
            .map(|&i| (t.nodes[i].name.as_str(), t.nodes[i].count))
            .collect();
        assert_eq!(names, [("evening", 1), ("Places", 3)]);
        let places = &t.nodes[t.roots[1]];
        let below: Vec<(&str, usize)> = places
            .children
            .iter()
            .map(|&i| (t.nodes[i].name.as_str(), t.nodes[i].count))
            .collect();
        assert_eq!(below, [("France", 1), ("Italy", 2)]);
        assert_eq!(t.complete("ro", 5), ["Places|Italy|Rome"]);
        assert_eq!(t.complete("pla", 1), ["Places"]);
    }
}
