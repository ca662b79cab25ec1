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

/// `--update-rates` from a local stand-in for the ECB (never the network):
/// the table is kept the safe way, the one before it beside it, and later
/// runs use it and name its day.
#[test]
fn update_rates_keeps_the_ecb_table_and_later_runs_use_it() {
    use std::io::{Read, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap_or_else(|e| panic!("{e}"));
    let port = listener
        .local_addr()
        .unwrap_or_else(|e| panic!("{e}"))
        .port();
    let server = std::thread::spawn(move || {
        for _ in 0..2 {
            let Ok((mut stream, _)) = listener.accept() else {
                return;
            };
            let mut request = [0u8; 4096];
            let _ = stream.read(&mut request);
            let body = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<gesmes:Envelope><Cube><Cube time='2026-11-27'>\n<Cube currency='USD' rate='1.25'/>\n<Cube currency='GBP' rate='0.8'/></Cube></Cube></gesmes:Envelope>";
            let _ = write!(
                stream,
                "HTTP/1.1 200 OK\r\nContent-Type: text/xml\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            );
        }
    });
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let table = dir.path().join("rates.txt");
    let update = || {
        Command::new(env!("CARGO_BIN_EXE_calculon"))
            .args([
                "--update-rates",
                "--rates-url",
                &format!("http://127.0.0.1:{port}/daily.xml"),
                "--rates",
            ])
            .arg(&table)
            .output()
            .unwrap_or_else(|e| panic!("{e}"))
    };
    let out = update();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("2 rates of 2026-11-27 kept in"));
    let out = update();
    assert!(String::from_utf8_lossy(&out.stdout).contains("the table before them is in"));
    assert!(dir.path().join("rates.txt.previous").exists());
    let _ = server.join();
    let run = |line: &str| {
        let out = Command::new(env!("CARGO_BIN_EXE_calculon"))
            .args(["--no-definitions", "--rates"])
            .arg(&table)
            .arg(line)
            .output()
            .unwrap_or_else(|e| panic!("{e}"));
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    };
    assert_eq!(run("100 EUR to USD"), "125 USD (ECB rates of 2026-11-27)");
    assert_eq!(
        run("100 GBP to USD"),
        "156.25 USD (ECB rates of 2026-11-27)"
    );
    // A broken table is refused with its line named; nothing is guessed.
    std::fs::write(&table, "date 2026-11-27\nUSD lots\n").unwrap_or_else(|e| panic!("{e}"));
    let out = Command::new(env!("CARGO_BIN_EXE_calculon"))
        .args(["--no-definitions", "--rates"])
        .arg(&table)
        .arg("1 USD")
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr)
            .contains("line 2: \"lots\" is not a positive decimal rate"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
