//! The library's folders as a tree, for the folder panel and the
//! breadcrumb: each folder with how many photos it holds directly and with
//! its subfolders. The chain of single folders above the photos
//! (`/home/anna/Pictures`) is one root, named by its last folder.
//!
//! A folder is a text path prefix (no trailing separator), so choosing one
//! filters by `photo.text_path`.

use std::collections::BTreeMap;

use crate::library::Photo;

/// One folder.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Folder {
    /// Its name (a root: the last folder of its path).
    pub name: String,
    /// Its path, as text.
    pub path: String,
    /// Photos directly in it.
    pub direct: u32,
    /// Photos in it and its subfolders.
    pub total: u32,
    /// Its subfolders (indexes into [`FolderTree::folders`]), by name.
    pub children: Vec<usize>,
    /// The folder above, if it is in the tree.
    pub parent: Option<usize>,
}

/// Every folder of a library.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FolderTree {
    /// The folders; the roots first.
    pub folders: Vec<Folder>,
    /// The roots (indexes).
    pub roots: Vec<usize>,
    /// Each folder's index by its path (the breadcrumb and the grid's
    /// group headers look folders up every frame).
    by_path: std::collections::HashMap<String, usize>,
}

/// A path's folder part (before the last `/` or `\`).
pub fn folder_of(text_path: &str) -> &str {
    let (dir, _) = catalog::split_path(text_path);
    dir.trim_end_matches(['/', '\\'])
}

/// Whether `path` lies in folder `folder` (directly, or with
/// `subfolders`, anywhere below it).
pub fn contains(folder: &str, text_path: &str, subfolders: bool) -> bool {
    let dir = folder_of(text_path);
    if subfolders {
        dir == folder
            || (dir.len() > folder.len()
                && dir.starts_with(folder)
                && matches!(dir.as_bytes()[folder.len()], b'/' | b'\\'))
    } else {
        dir == folder
    }
}

/// The folder above `folder` (text), if any.
pub fn parent_of(folder: &str) -> Option<&str> {
    let i = folder.rfind(['/', '\\'])?;
    let up = &folder[..i];
    (!up.is_empty()).then_some(up)
}

impl FolderTree {
    /// The tree of the photos' folders.
    pub fn new(photos: &[Photo]) -> FolderTree {
        // Every folder that holds photos, with its count.
        let mut direct: BTreeMap<&str, u32> = BTreeMap::new();
        for p in photos {
            *direct.entry(folder_of(&p.text_path)).or_insert(0) += 1;
        }
        // Every folder on the way to those.
        let mut all: BTreeMap<String, ()> = BTreeMap::new();
        for &dir in direct.keys() {
            all.entry(dir.to_owned()).or_insert(());
            let mut up = dir;
            while let Some(p) = parent_of(up) {
                all.entry(p.to_owned()).or_insert(());
                up = p;
            }
        }
        // Children by parent; the top folders have none above.
        let mut children: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
        let mut tops: Vec<&str> = Vec::new();
        for dir in all.keys() {
            match parent_of(dir) {
                Some(p) => children.entry(p).or_default().push(dir),
                None => tops.push(dir),
            }
        }
        // A root: down the chain of folders with one subfolder and no
        // photos of their own.
        let mut roots: Vec<&str> = Vec::new();
        for top in tops {
            let mut at = top;
            while !direct.contains_key(at)
                && let Some(kids) = children.get(at)
                && kids.len() == 1
            {
                at = kids[0];
            }
            roots.push(at);
        }
        let mut tree = FolderTree::default();
        for root in roots {
            let i = tree.add(root, None, &direct, &children);
            tree.roots.push(i);
        }
        tree
    }

    fn add(
        &mut self,
        path: &str,
        parent: Option<usize>,
        direct: &BTreeMap<&str, u32>,
        children: &BTreeMap<&str, Vec<&str>>,
    ) -> usize {
        let i = self.folders.len();
        let name = path
            .rsplit(['/', '\\'])
            .find(|s| !s.is_empty())
            .unwrap_or(path)
            .to_owned();
        let own = direct.get(path).copied().unwrap_or(0);
        self.by_path.insert(path.to_owned(), i);
        self.folders.push(Folder {
            name,
            path: path.to_owned(),
            direct: own,
            total: own,
            children: Vec::new(),
            parent,
        });
        let mut kids: Vec<&str> = children.get(path).cloned().unwrap_or_default();
        kids.sort_by_key(|k| crate::library::natural_key(&catalog::fold(k)));
        for k in kids {
            let c = self.add(k, Some(i), direct, children);
            self.folders[i].children.push(c);
            self.folders[i].total += self.folders[c].total;
        }
        i
    }

    /// The folder with this path, if it is in the tree.
    pub fn find(&self, path: &str) -> Option<usize> {
        self.by_path.get(path).copied()
    }

    /// The folders from a root down to `path`'s folder: the breadcrumb.
    pub fn chain(&self, path: &str) -> Vec<usize> {
        let mut out = Vec::new();
        let mut at = self.find(path);
        while let Some(i) = at {
            out.push(i);
            at = self.folders[i].parent;
        }
        out.reverse();
        out
    }
}
