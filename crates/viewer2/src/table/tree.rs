//! The groups on the light table: the folders of the photos shown, as a
//! tree (a folder holding only one folder and no photo is merged with it,
//! as file managers show `2019/06`), plus the user's own groups, with
//! the moves the user made by dropping cards onto stacks.

use std::collections::HashMap;
use std::path::PathBuf;

use crate::library::{Library, Sort};

/// A group's index in [`Tree::groups`].
pub type GroupId = u32;

/// The table itself: always open, never drawn, the parent of the top
/// stacks.
pub const ROOT: GroupId = 0;

/// The group a card carried onto the bare table is kept as moved into
/// (the root's own key is empty, which a placement reads as "not moved").
pub const ROOT_MOVE: &str = "table";

/// A folder or a user's group.
#[derive(Clone, Debug, PartialEq)]
pub struct Group {
    /// Its key in the saved state: `d:` and the folder's path, or `v:` and
    /// a number for the user's groups.
    pub key: String,
    /// What its stack says.
    pub name: String,
    /// The group it lies in (`None` for [`ROOT`] only).
    pub parent: Option<GroupId>,
    /// Its subgroups, by name.
    pub groups: Vec<GroupId>,
    /// Its photos (library indexes), by name.
    pub photos: Vec<u32>,
    /// Photos in it and in every subgroup.
    pub total: usize,
    /// The photo its stack shows on top: its own first, else a subgroup's.
    pub cover: Option<u32>,
    /// The folder on disk, for a folder group (files dropped onto it can
    /// be moved there).
    pub dir: Option<PathBuf>,
}

/// A group the user made (from a selection), as saved.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UserGroup {
    /// `v:` and a number.
    pub key: String,
    /// Its name.
    pub name: String,
    /// The key of the group it lies in (empty: the table).
    pub parent: String,
}

/// The groups, and where each photo is.
#[derive(Clone, Debug, Default)]
pub struct Tree {
    /// Every group; [`ROOT`] first.
    pub groups: Vec<Group>,
    /// Each shown photo's group, by library index.
    pub photo_group: HashMap<u32, GroupId>,
    by_key: HashMap<String, GroupId>,
}

/// A trie node while building.
#[derive(Default)]
struct Node {
    name: String,
    path: String,
    children: Vec<usize>,
    child_of: HashMap<String, usize>,
    photos: Vec<u32>,
    dir: Option<PathBuf>,
}

impl Tree {
    /// The tree of `rows` (library indexes) by folder, with the user's
    /// groups and moves: `moves` maps a photo card's or a group's key to
    /// the key of the group it was dropped into.
    pub fn build(
        library: &Library,
        rows: &[u32],
        user_groups: &[UserGroup],
        moves: &HashMap<String, String>,
    ) -> Tree {
        let mut sorted = rows.to_vec();
        library.sort(&mut sorted, Sort::Name);
        // A trie of the folders' components.
        let mut nodes = vec![Node::default()];
        for &row in &sorted {
            let photo = &library.photos[row as usize];
            let (dir, _) = catalog::split_path(&photo.text_path);
            let mut at = 0;
            let mut path = String::new();
            for (k, part) in dir.split(['/', '\\']).enumerate() {
                if k > 0 {
                    path.push('/');
                }
                path.push_str(part);
                let next = match nodes[at].child_of.get(part) {
                    Some(&n) => n,
                    None => {
                        let n = nodes.len();
                        nodes.push(Node {
                            name: part.to_owned(),
                            path: path.clone(),
                            ..Node::default()
                        });
                        nodes[at].child_of.insert(part.to_owned(), n);
                        nodes[at].children.push(n);
                        n
                    }
                };
                at = next;
            }
            nodes[at].photos.push(row);
            if nodes[at].dir.is_none() {
                nodes[at].dir = photo.path.parent().map(PathBuf::from);
            }
        }
        let mut tree = Tree {
            groups: vec![Group {
                key: String::new(),
                name: "table".to_owned(),
                parent: None,
                groups: Vec::new(),
                photos: Vec::new(),
                total: 0,
                cover: None,
                dir: None,
            }],
            ..Tree::default()
        };
        if !sorted.is_empty() {
            // The folder every photo is under is the one stack the table
            // starts with.
            let mut top = 0;
            while nodes[top].photos.is_empty() && nodes[top].children.len() == 1 {
                top = nodes[top].children[0];
            }
            // Its own name: the full path is its key (and the tooltip's).
            let name = if nodes[top].name.is_empty() {
                "/".to_owned()
            } else {
                nodes[top].name.clone()
            };
            tree.add_node(&nodes, top, name, ROOT);
        }
        for g in user_groups {
            tree.add_user_group(g.key.clone(), g.name.clone());
        }
        // User groups inside others.
        for g in user_groups {
            if let (Some(&id), Some(&parent)) =
                (tree.by_key.get(&g.key), tree.by_key.get(&g.parent))
            {
                tree.reparent(id, parent);
            }
        }
        for (key, into) in moves {
            let into = match into.as_str() {
                ROOT_MOVE => ROOT,
                key => match tree.by_key.get(key) {
                    Some(&g) => g,
                    None => continue,
                },
            };
            if let Some(id) = key.strip_prefix("f:").and_then(|s| s.parse().ok()) {
                if let Some(row) = library.index_of(id)
                    && tree.photo_group.contains_key(&row)
                {
                    tree.move_photo(row, into);
                }
            } else if let Some(&g) = tree.by_key.get(key.strip_prefix("g:").unwrap_or(key)) {
                tree.reparent(g, into);
            }
        }
        tree.recount(library);
        tree
    }

    /// Adds trie node `n` (merged with single-folder chains) under `parent`.
    fn add_node(&mut self, nodes: &[Node], mut n: usize, mut name: String, parent: GroupId) {
        while nodes[n].photos.is_empty() && nodes[n].children.len() == 1 {
            n = nodes[n].children[0];
            name = format!("{name}/{}", nodes[n].name);
        }
        let id = self.groups.len() as GroupId;
        let key = format!("d:{}", nodes[n].path);
        self.groups.push(Group {
            key: key.clone(),
            name,
            parent: Some(parent),
            groups: Vec::new(),
            photos: nodes[n].photos.clone(),
            total: 0,
            cover: None,
            dir: nodes[n].dir.clone(),
        });
        self.by_key.insert(key, id);
        self.groups[parent as usize].groups.push(id);
        for &row in &nodes[n].photos {
            self.photo_group.insert(row, id);
        }
        let mut children = nodes[n].children.clone();
        children.sort_by_key(|&c| crate::library::natural_key(&nodes[c].name));
        for c in children {
            self.add_node(nodes, c, nodes[c].name.clone(), id);
        }
    }

    /// The group with this key.
    pub fn by_key(&self, key: &str) -> Option<GroupId> {
        self.by_key.get(key).copied()
    }

    /// Whether `a` is `b` or inside it.
    pub fn is_within(&self, mut a: GroupId, b: GroupId) -> bool {
        loop {
            if a == b {
                return true;
            }
            match self.groups[a as usize].parent {
                Some(p) => a = p,
                None => return false,
            }
        }
    }

    /// How deep a group lies (the table's top stacks are 1).
    pub fn depth(&self, mut g: GroupId) -> usize {
        let mut d = 0;
        while let Some(p) = self.groups[g as usize].parent {
            d += 1;
            g = p;
        }
        d
    }

    /// Moves a photo into another group (call [`Tree::recount`] after).
    pub fn move_photo(&mut self, row: u32, into: GroupId) {
        if let Some(old) = self.photo_group.insert(row, into) {
            self.groups[old as usize].photos.retain(|&r| r != row);
        }
        self.groups[into as usize].photos.push(row);
    }

    /// Moves group `g` into `into`, unless that would put it inside itself
    /// (call [`Tree::recount`] after). Returns whether it moved.
    pub fn reparent(&mut self, g: GroupId, into: GroupId) -> bool {
        if g == ROOT || self.is_within(into, g) {
            return false;
        }
        if let Some(old) = self.groups[g as usize].parent {
            self.groups[old as usize].groups.retain(|&c| c != g);
        }
        self.groups[g as usize].parent = Some(into);
        self.groups[into as usize].groups.push(g);
        true
    }

    /// Adds a user's group on the table; returns its id.
    pub fn add_user_group(&mut self, key: String, name: String) -> GroupId {
        let id = self.groups.len() as GroupId;
        self.by_key.insert(key.clone(), id);
        self.groups.push(Group {
            key,
            name,
            parent: Some(ROOT),
            groups: Vec::new(),
            photos: Vec::new(),
            total: 0,
            cover: None,
            dir: None,
        });
        self.groups[ROOT as usize].groups.push(id);
        id
    }

    /// The user's groups, as saved.
    pub fn user_groups(&self) -> Vec<UserGroup> {
        self.groups
            .iter()
            .filter(|g| g.key.starts_with("v:"))
            .map(|g| UserGroup {
                key: g.key.clone(),
                name: g.name.clone(),
                parent: g
                    .parent
                    .map(|p| self.groups[p as usize].key.clone())
                    .unwrap_or_default(),
            })
            .collect()
    }

    /// Sorts each group's photos by name and recomputes totals and covers.
    pub fn recount(&mut self, library: &Library) {
        for g in &mut self.groups {
            library.sort(&mut g.photos, Sort::Name);
        }
        // Children come after their parents except after moves: visit in
        // post-order explicitly.
        let mut order = Vec::with_capacity(self.groups.len());
        let mut stack = vec![(ROOT, false)];
        while let Some((g, done)) = stack.pop() {
            if done {
                order.push(g);
                continue;
            }
            stack.push((g, true));
            for &c in &self.groups[g as usize].groups {
                stack.push((c, false));
            }
        }
        for g in order {
            let group = &self.groups[g as usize];
            let mut total = group.photos.len();
            let mut cover = group.photos.first().copied();
            for &c in &group.groups {
                let child = &self.groups[c as usize];
                total += child.total;
                cover = cover.or(child.cover);
            }
            let group = &mut self.groups[g as usize];
            group.total = total;
            group.cover = cover;
        }
    }
}
