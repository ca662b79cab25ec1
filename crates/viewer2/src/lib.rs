//! viewer2's engine parts, shared by its binary, tests and benchmark.
//! So far: thumbnails (`thumbnail`), the loader that makes them on a pool
//! of workers (`loader`), and their cache on disk (`cache`).

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
pub mod launch;
pub mod library;
pub mod loader;
pub mod marks;
pub mod metadata;
pub mod searcher;
pub mod table;
pub mod tags;
pub mod thumbnail;
