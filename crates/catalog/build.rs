//! Compiles SQLite's recovery extension (vendored in `sqlite-recover/`)
//! against the headers of the SQLite that `libsqlite3-sys` bundles.

fn main() {
    let dir = "sqlite-recover";
    println!("cargo:rerun-if-changed={dir}");
    let mut build = cc::Build::new();
    if let Ok(include) = std::env::var("DEP_SQLITE3_INCLUDE") {
        build.include(include);
    }
    build
        .include(dir)
        .file(format!("{dir}/sqlite3recover.c"))
        .file(format!("{dir}/dbdata.c"))
        // SQLite's own sources are not warning-free under every compiler.
        .warnings(false)
        .compile("sqlite3recover");
}
