//! What the calculator's line-by-line tests share.

use calculon::Calculator;

/// Evaluates each line in `calc`, in order, and compares the display (or
/// the error message, prefixed with `error: `); fails listing every line
/// that differs.
#[allow(dead_code)]
pub fn check_in(calc: &mut Calculator, cases: &[(&str, &str)]) {
    let mut failures = Vec::new();
    for (input, want) in cases {
        let got = match calc.evaluate(input) {
            Ok(a) => a.display(),
            Err(e) => format!("error: {e}"),
        };
        if got != *want {
            failures.push(format!("{input:?}\n   got  {got}\n   want {want}"));
        }
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}

/// Runs a reference script from `tests/reference` on `lines` (its stdin)
/// with the venv's Python (`CALCULON_PYTHON`, or `target/py-venv`, which
/// `./scripts/test.sh` makes) and returns its stdout. Without Python or
/// the script's packages it prints a `SKIPPED:` line saying why and
/// returns `None`, or fails under `REQUIRE_PY_REFERENCE=1` (CI).
#[allow(dead_code)]
pub fn reference(script: &str, what: &str, lines: &str) -> Option<String> {
    use std::io::Write;
    use std::path::PathBuf;
    use std::process::{Command, Stdio};

    let python = std::env::var("CALCULON_PYTHON")
        .map(PathBuf::from)
        .ok()
        .or_else(|| {
            let venv =
                PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../target/py-venv/bin/python");
            venv.exists().then_some(venv)
        });
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/reference")
        .join(script);
    let output = python.and_then(|py| {
        let mut child = Command::new(py)
            .arg(&script)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .ok()?;
        let mut stdin = child.stdin.take()?;
        // Written from a thread: the script answers while it reads.
        let lines = lines.to_owned();
        let feeder = std::thread::spawn(move || stdin.write_all(lines.as_bytes()));
        let out = child.wait_with_output().ok();
        let _ = feeder.join();
        out
    });
    match output {
        Some(o) if o.status.success() => Some(String::from_utf8_lossy(&o.stdout).into_owned()),
        other => {
            let why = match other {
                Some(o) => String::from_utf8_lossy(&o.stderr).into_owned(),
                None => "no Python from the venv (set CALCULON_PYTHON, or run ./scripts/test.sh, which makes target/py-venv)".into(),
            };
            assert!(
                std::env::var("REQUIRE_PY_REFERENCE").as_deref() != Ok("1"),
                "REQUIRE_PY_REFERENCE=1 but {what} could not run: {why}"
            );
            eprintln!("SKIPPED: {what}: {why}");
            None
        }
    }
}

/// The lines of a reference script's answer other than its last
/// `checked N`, and N; fails listing them if any, or if fewer than
/// `least` cases were checked.
#[allow(dead_code)]
pub fn no_mismatches(answer: &str, least: usize) {
    let mismatches: Vec<&str> = answer
        .lines()
        .filter(|l| !l.starts_with("checked "))
        .collect();
    let checked = answer
        .lines()
        .find_map(|l| l.strip_prefix("checked "))
        .unwrap_or("0");
    assert!(
        mismatches.is_empty(),
        "{} of {checked} differ:\n{}",
        mismatches.len(),
        mismatches.join("\n")
    );
    assert!(
        checked.parse::<usize>().unwrap_or(0) >= least,
        "too few cases checked: {checked}"
    );
}

/// A small deterministic generator (xorshift), so failures repeat.
#[allow(dead_code)]
pub struct Rng(pub u64);

#[allow(dead_code)]
impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    pub fn int(&mut self, lo: i64, hi: i64) -> i64 {
        lo + self.below((hi - lo + 1) as u64) as i64
    }

    /// Log-uniform in [lo, hi].
    pub fn log_uniform(&mut self, lo: f64, hi: f64) -> f64 {
        let t = (self.next() >> 11) as f64 / (1u64 << 53) as f64;
        (lo.ln() + t * (hi.ln() - lo.ln())).exp()
    }
}
