//! Compiles `raw/preview.cpp`, photo's flat interface to LibRaw (Debian's
//! `libraw-dev`, C++), and links the thread-safe LibRaw.

fn main() {
    println!("cargo:rerun-if-changed=raw/preview.cpp");
    cc::Build::new()
        .cpp(true)
        .file("raw/preview.cpp")
        .warnings(true)
        .compile("photo_raw");
    println!("cargo:rustc-link-lib=raw_r");
}
