//! Narrow-phase benchmark (written below).
fn main() {}
