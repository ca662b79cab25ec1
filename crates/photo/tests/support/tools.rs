//! The field's command-line tools the format tests make and check files
//! with (heif-enc, heif-convert, cjxl, djxl, ImageMagick's convert), for
//! photo's and viewer2's tests: without one a test says SKIPPED, and it
//! fails under REQUIRE_IMAGE_TOOLS=1, which CI sets.
#![allow(dead_code)]

use std::process::Command;

/// Whether `tool` runs here (it answers `--help`); `package` is the
/// Debian package that has it.
pub fn tool_present(tool: &str, package: &str, test: &str) -> bool {
    let ok = Command::new(tool)
        .arg("--help")
        .output()
        .is_ok_and(|o| !o.stdout.is_empty() || !o.stderr.is_empty());
    if !ok {
        assert!(
            std::env::var_os("REQUIRE_IMAGE_TOOLS").is_none(),
            "{tool} is required (REQUIRE_IMAGE_TOOLS is set): apt-get install {package}"
        );
        eprintln!("SKIPPED {test}: {tool} is not installed (Debian package {package})");
    }
    ok
}
