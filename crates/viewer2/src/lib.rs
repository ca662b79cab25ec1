//! viewer2's engine parts, shared by its binary, tests and benchmark.
//! So far: thumbnails (`thumbnail`).

pub mod thumbnail;
