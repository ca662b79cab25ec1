//! viewer2, the photo browser, as a library shared by its binary, its
//! tests and its benchmarks: the window (`app`), the light table without
//! a window (`table`), thumbnails made on a pool of workers and held on
//! the GPU (`thumbnail`, `loader`, `cache`, `freedesktop`, `atlas`), the
//! photos in memory (`library`, `grid_layout`, `folders`, `tags`), the
//! catalogue's thread (`searcher`), the index run (`indexer`, `metadata`)
//! and the safe file operations (`fileops`, `edits`, `launch`).
//!
//! The light table, driven without a window:
//!
//! ```
//! use std::sync::Arc;
//! use catalog::FileRecord;
//! use viewer2::library::Library;
//! use viewer2::table::{Item, Saved, Table};
//! let paths = ["/photos/trip/a.jpg", "/photos/trip/b.jpg", "/photos/home/c.jpg"];
//! let records = paths.iter().enumerate().map(|(k, p)| FileRecord {
//!     id: k as i64 + 1,
//!     path: p.to_string(),
//!     raw_path: None,
//!     caption: String::new(),
//!     camera: String::new(),
//!     date: String::new(),
//!     size: 1,
//!     mtime: 1,
//! });
//! let library = Arc::new(Library::new(records.collect(), &[]));
//! let mut table = Table::new(library, &[0, 1, 2], &Saved::default())?;
//! // As a search's table: every folder open, the whole packed to the view.
//! table.open_for_result()?;
//! let photos = table.cards().filter(|(_, c)| matches!(c.item, Item::Photo(_)));
//! assert_eq!(photos.count(), 3);
//! # Ok::<(), collide::CollideError>(())
//! ```

pub mod app;
pub mod atlas;
pub mod cache;
pub mod details;
pub mod edits;
pub mod fileops;
pub mod folders;
pub mod freedesktop;
pub mod grid_layout;
pub mod indexer;
pub mod keyword_tree;
pub mod launch;
pub mod library;
pub mod loader;
pub mod marks;
pub mod metadata;
pub mod searcher;
pub mod table;
pub mod tags;
pub mod thumbnail;
pub mod write_back;
