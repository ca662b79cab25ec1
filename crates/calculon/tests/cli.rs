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

fn calculon(args: &[&str]) -> (Option<i32>, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_calculon"))
        .args(["--no-definitions"])
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Issue 45 item 13: option values out of range are refused saying the
/// range, never a panic (`--timeout 1e20` once panicked converting to a
/// Duration; a huge `--max-bits` let `2^2^40` run out of memory).
#[test]
fn options_out_of_range_are_refused_with_their_range() {
    for (args, what) in [
        (
            &["--timeout", "1e20", "1+1"][..],
            "--timeout must be a number of seconds from 0",
        ),
        (&["--timeout=-1", "1+1"][..], "--timeout must be"),
        (&["--timeout", "nan", "1+1"][..], "--timeout must be"),
        (&["--timeout", "inf", "1+1"][..], "--timeout must be"),
        (
            &["--max-bits", "18446744073709551615", "2^2^40"][..],
            "--max-bits must be from 1 to",
        ),
        (
            &["--max-bits", "0", "1"][..],
            "--max-bits must be from 1 to",
        ),
        (&["--digits", "0", "1"][..], "--digits must be between"),
    ] {
        let (code, _, err) = calculon(args);
        assert_eq!(code, Some(2), "{args:?}: {err}");
        assert!(err.contains(what), "{args:?}: {err}");
    }
    // In range, a huge power is refused by the budget, not by memory.
    let (code, out, err) = calculon(&["--max-bits", "100000000", "2^2^40"]);
    assert_eq!(code, Some(1), "{out}{err}");
    assert!(err.contains("over the limit"), "{err}");
}

/// Issue 45 item 10: the rates and definitions files are regular files
/// read up to a stated size: /dev/zero once read to 2 GB, and a FIFO
/// waited forever.
#[cfg(unix)]
#[test]
fn rates_and_definitions_are_regular_files_of_bounded_size() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let fifo = dir.path().join("rates.fifo");
    let made = Command::new("mkfifo").arg(&fifo).status();
    let big = dir.path().join("big.txt");
    std::fs::write(&big, vec![b'#'; 17 << 20]).unwrap_or_else(|e| panic!("{e}"));
    let folder = dir.path().to_str().unwrap_or_default().to_owned();
    let mut cases = vec![
        ("--rates", "/dev/zero".to_owned(), "is a device"),
        ("--definitions", "/dev/zero".to_owned(), "is a device"),
        ("--rates", folder.clone(), "is a folder"),
        ("--definitions", folder, "is a folder"),
        (
            "--rates",
            big.to_string_lossy().into_owned(),
            "more than the 1048576 bytes",
        ),
        (
            "--definitions",
            big.to_string_lossy().into_owned(),
            "more than the 16777216 bytes",
        ),
    ];
    if made.is_ok_and(|s| s.success()) {
        cases.push(("--rates", fifo.to_string_lossy().into_owned(), "is a FIFO"));
        cases.push((
            "--definitions",
            fifo.to_string_lossy().into_owned(),
            "is a FIFO",
        ));
    }
    for (option, path, what) in cases {
        let out = Command::new(env!("CARGO_BIN_EXE_calculon"))
            .args([option, &path, "1+1"])
            .output()
            .unwrap_or_else(|e| panic!("{e}"));
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{option} {path}: {err}");
        assert!(err.contains(what), "{option} {path}: {err}");
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(48))]
    /// The standing guard over options: any value of --timeout,
    /// --max-bits and --digits with a line that would run long or large
    /// exits 0, 1 or 2 with no panic.
    #[test]
    fn any_option_values_exit_cleanly(
        timeout in proptest::prop_oneof![
            proptest::prelude::Just("1e20".to_owned()), proptest::prelude::Just("-0".to_owned()),
            proptest::prelude::Just("0.001".to_owned()), proptest::prelude::Just("1e-300".to_owned()),
            proptest::prelude::Just("18446744073709551616".to_owned()), "[0-9]{1,25}(\\.[0-9]{1,3})?",
            "-?[0-9]e[0-9]{1,3}", "[a-z]{1,4}",
        ],
        max_bits in proptest::prop_oneof![
            proptest::prelude::Just(u64::MAX), proptest::prelude::Just(0u64), 1u64..64,
            (1u64 << 20)..(1u64 << 26), proptest::prelude::any::<u64>(),
        ],
        digits in proptest::prop_oneof![proptest::prelude::Just(0usize), 1usize..60, proptest::prelude::any::<usize>()],
        line in proptest::prop_oneof![
            proptest::prelude::Just("2^2^40"), proptest::prelude::Just("1/3"),
            proptest::prelude::Just("7^(10^5) mod 13"), proptest::prelude::Just("sqrt(2)"),
        ],
    ) {
        let (code, _, err) = calculon(&[
            "--timeout", &timeout, "--max-bits", &max_bits.to_string(),
            "--digits", &digits.to_string(), "--", line,
        ]);
        proptest::prop_assert!(matches!(code, Some(0..=2)), "exit {code:?}: {err}");
        proptest::prop_assert!(!err.contains("panicked"), "{err}");
    }
}
