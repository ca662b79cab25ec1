//! What the command-line tests share: running `viewer2`, making files,
//! and running it as an ordinary user (root reads any folder).
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::process::Command;

/// Runs `viewer2 --catalog CATALOG ARGS…`: (success, stdout, stderr).
pub fn viewer2(catalog: &Path, args: &[&str]) -> (bool, String, String) {
    viewer2_as(Command::new(env!("CARGO_BIN_EXE_viewer2")), catalog, args)
}

/// Runs `command --catalog CATALOG ARGS…` (`viewer2` as another user,
/// say): (success, stdout, stderr).
pub fn viewer2_as(mut command: Command, catalog: &Path, args: &[&str]) -> (bool, String, String) {
    let out = command
        .arg("--catalog")
        .arg(catalog)
        .args(args)
        .output()
        .unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Writes `bytes` zero bytes at `path`, making its folders.
pub fn touch(path: &Path, bytes: usize) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, vec![0u8; bytes]).unwrap();
}

/// Whether the tests run as root.
pub fn is_root() -> bool {
    String::from_utf8(Command::new("id").arg("-u").output().unwrap().stdout)
        .unwrap()
        .trim()
        == "0"
}

/// A `viewer2` command that runs as an ordinary user: itself when the
/// tests do, else `nobody` through `setpriv` (util-linux), from a copy of
/// the program in `dir` that user may run. As root, `open` lists the
/// folders and files that user must be able to write and is made so.
#[cfg(unix)]
pub fn as_ordinary_user(dir: &Path, open: &[&Path]) -> Command {
    use std::os::unix::fs::PermissionsExt;
    if !is_root() {
        return Command::new(env!("CARGO_BIN_EXE_viewer2"));
    }
    for p in open {
        let mode = if p.is_dir() { 0o777 } else { 0o666 };
        std::fs::set_permissions(p, std::fs::Permissions::from_mode(mode)).unwrap();
    }
    let exe = dir.join("viewer2");
    if !exe.exists() {
        std::fs::copy(env!("CARGO_BIN_EXE_viewer2"), &exe).unwrap();
        std::fs::set_permissions(&exe, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let mut c = Command::new("setpriv");
    c.args(["--reuid=65534", "--regid=65534", "--clear-groups"])
        .arg(exe);
    c
}
