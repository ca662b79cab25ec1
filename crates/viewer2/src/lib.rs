//! viewer2's engine parts, shared by its binary, tests and benchmark.
//! So far: thumbnails (`thumbnail`) and the loader that makes them on a
//! pool of workers (`loader`).

pub mod loader;
pub mod thumbnail;
