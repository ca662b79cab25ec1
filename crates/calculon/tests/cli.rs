//! The command as an application installs it: `--install-desktop` writes a
//! valid desktop entry that runs this very program, and its icon.

use std::process::Command;

#[test]
fn install_desktop_writes_a_valid_entry_and_its_icon() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let out = Command::new(env!("CARGO_BIN_EXE_calculon"))
        .args(["--install-desktop", "--prefix"])
        .arg(dir.path())
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let entry_path = dir.path().join("applications/calculon.desktop");
    let entry = std::fs::read_to_string(&entry_path).unwrap_or_else(|e| panic!("{e}"));
    assert!(entry.contains("Name=Calculon"));
    let exec = format!("Exec=\"{}\" --gui", env!("CARGO_BIN_EXE_calculon"));
    assert!(entry.contains(&exec), "{entry}");
    let icon = dir.path().join("icons/hicolor/scalable/apps/calculon.svg");
    assert!(std::fs::read_to_string(icon).is_ok_and(|s| s.starts_with("<svg")));
    // Valid by the freedesktop checker, where it is installed.
    match Command::new("desktop-file-validate")
        .arg(&entry_path)
        .output()
    {
        Ok(v) => assert!(v.status.success(), "{}", String::from_utf8_lossy(&v.stdout)),
        Err(_) => eprintln!("SKIPPED: desktop-file-validate is not installed"),
    }
}

#[test]
fn version_prints() {
    let out = Command::new(env!("CARGO_BIN_EXE_calculon"))
        .arg("--version")
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("calculon "));
}
