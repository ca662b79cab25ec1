//! Compiles `raw/preview.c`, photo's flat interface to LibRaw (Debian's
//! `libraw-dev`), and links the thread-safe LibRaw.

fn main() {
    println!("cargo:rerun-if-changed=raw/preview.c");
    cc::Build::new()
        .file("raw/preview.c")
        .warnings(true)
        .compile("photo_raw");
    println!("cargo:rustc-link-lib=raw_r");
}
