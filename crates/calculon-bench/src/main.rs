//! calculon side by side with qalc (libqalculate), fend and GNU bc, in one
//! run:
//!
//! - π, e, √2 and ln 2 to 10,000 digits, every digit checked against each
//!   peer that finishes;
//! - a pasted column of 10,000 lines (digit groups, dollar signs, CRLF,
//!   tabs) with its total;
//! - cold start to the first answer, from the command line and (with an X
//!   display) to the first answer painted in the window.
//!
//! Run (the calculon binary must be built beside this one):
//!
//!     cargo build --release -p calculon && cargo run --release -p calculon-bench
//!
//! Peers come from Debian (`apt-get install qalc bc`) and crates.io
//! (`cargo install fend`); a missing peer is reported and left out.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use calculon::{Calculator, Settings};
use clap::Parser;

#[derive(Parser, Debug)]
struct Args {
    /// Digits of each constant.
    #[arg(long, default_value_t = 10_000)]
    digits: usize,
    /// Lines in the pasted column.
    #[arg(long, default_value_t = 1_000)]
    lines: usize,
    /// Runs per timing (the median is reported).
    #[arg(long, default_value_t = 5)]
    runs: usize,
    /// Seconds after which a bc run is stopped (its long series).
    #[arg(long, default_value_t = 30)]
    bc_timeout: u64,
    /// Which tables: any of digits, column, start, window (the last needs
    /// an X display).
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "digits,column,start,window"
    )]
    parts: Vec<String>,
}

/// A constant in each program's syntax.
struct Constant {
    name: &'static str,
    ours: &'static str,
    qalc: &'static str,
    bc: &'static str,
}

const CONSTANTS: [Constant; 4] = [
    Constant {
        name: "π",
        ours: "pi",
        qalc: "pi",
        bc: "4*a(1)",
    },
    Constant {
        name: "e",
        ours: "e",
        qalc: "e",
        bc: "e(1)",
    },
    Constant {
        name: "√2",
        ours: "sqrt 2",
        qalc: "sqrt(2)",
        bc: "sqrt(2)",
    },
    Constant {
        name: "ln 2",
        ours: "ln 2",
        qalc: "ln(2)",
        bc: "l(2)",
    },
];

fn main() -> Result<()> {
    let args = Args::parse();
    let ours = our_binary()?;
    let qalc = which("qalc");
    let bc = which("bc");
    let fend = which("fend");
    for (name, found, how) in [
        ("qalc", &qalc, "apt-get install qalc"),
        ("bc", &bc, "apt-get install bc"),
        ("fend", &fend, "cargo install fend"),
    ] {
        if found.is_none() {
            eprintln!("{name} not found ({how}): left out");
        }
    }
    println!(
        "# calculon vs qalc, fend and bc ({} runs each, median wall time)\n",
        args.runs
    );
    let part = |name: &str| args.parts.iter().any(|p| p == name);
    if part("digits") {
        constants(&args, &ours, qalc.as_deref(), bc.as_deref())?;
    }
    if part("column") {
        column(&args, &ours, qalc.as_deref(), bc.as_deref())?;
    }
    if part("start") {
        cold_start(
            &args,
            &ours,
            qalc.as_deref(),
            bc.as_deref(),
            fend.as_deref(),
        )?;
    }
    if part("window") {
        window_start(&args, &ours)?;
    }
    Ok(())
}

/// `target/release/calculon`, beside this binary.
fn our_binary() -> Result<PathBuf> {
    let me = std::env::current_exe().context("locating this binary")?;
    let path = me.with_file_name("calculon");
    if !path.exists() {
        bail!(
            "{} is missing: build it first with `cargo build --release -p calculon`",
            path.display()
        );
    }
    Ok(path)
}

fn which(program: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join(program))
        .find(|p| p.is_file())
}

/// Runs a command (with optional stdin) and returns its stdout and wall
/// time, or `None` when it ran past `timeout` (it is then killed).
fn timed(
    mut cmd: Command,
    stdin: Option<&str>,
    timeout: Duration,
) -> Result<Option<(String, Duration)>> {
    cmd.stdin(if stdin.is_some() {
        Stdio::piped()
    } else {
        Stdio::null()
    })
    .stdout(Stdio::piped())
    .stderr(Stdio::null());
    let start = Instant::now();
    let mut child = cmd.spawn().with_context(|| format!("starting {cmd:?}"))?;
    if let (Some(text), Some(mut pipe)) = (stdin, child.stdin.take()) {
        pipe.write_all(text.as_bytes())?;
    }
    let mut out = child.stdout.take().context("no stdout")?;
    let reader = std::thread::spawn(move || {
        let mut s = String::new();
        std::io::Read::read_to_string(&mut out, &mut s).map(|_| s)
    });
    loop {
        if child.try_wait()?.is_some() {
            break;
        }
        if start.elapsed() > timeout {
            child.kill()?;
            child.wait()?;
            return Ok(None);
        }
        std::thread::sleep(Duration::from_micros(200));
    }
    let elapsed = start.elapsed();
    let text = reader
        .join()
        .map_err(|_| anyhow::anyhow!("reader thread failed"))??;
    Ok(Some((text, elapsed)))
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

/// Runs `make()` `runs` times; the median, and the last output.
fn median_run(
    runs: usize,
    timeout: Duration,
    stdin: Option<&str>,
    make: impl Fn() -> Command,
) -> Result<Option<(String, Duration)>> {
    let mut times = Vec::new();
    let mut last = String::new();
    for _ in 0..runs.max(1) {
        match timed(make(), stdin, timeout)? {
            Some((out, t)) => {
                times.push(t);
                last = out;
            }
            None => return Ok(None),
        }
    }
    Ok(Some((last, median(times))))
}

/// The significant digits of a printed number (sign, point, `≈`,
/// backslash-newlines and spaces dropped; leading zeros dropped).
fn digits_of(text: &str) -> String {
    let d: String = text.chars().filter(char::is_ascii_digit).collect();
    d.trim_start_matches('0').to_string()
}

/// How many leading digits two outputs share.
fn agreeing(a: &str, b: &str) -> usize {
    a.bytes().zip(b.bytes()).take_while(|(x, y)| x == y).count()
}

/// The first `n` digits of a longer digit string, rounded half up on the
/// digit after them (the peers print more digits than asked: qalc rounds
/// further out, bc truncates further out).
fn rounded_to(digits: &str, n: usize) -> String {
    let mut d: Vec<u8> = digits.bytes().take(n).collect();
    if digits.as_bytes().get(n).is_some_and(|&c| c >= b'5') {
        let mut i = d.len();
        loop {
            if i == 0 {
                d.insert(0, b'1');
                d.pop();
                break;
            }
            i -= 1;
            if d[i] == b'9' {
                d[i] = b'0';
            } else {
                d[i] += 1;
                break;
            }
        }
    }
    String::from_utf8(d).unwrap_or_default()
}

fn ms(d: Duration) -> String {
    let ms = d.as_secs_f64() * 1000.0;
    if ms < 10.0 {
        format!("{ms:.2} ms")
    } else {
        format!("{ms:.0} ms")
    }
}

fn ratio(peer: Option<Duration>, ours: Duration) -> String {
    match peer {
        Some(p) => format!("{:.1}×", p.as_secs_f64() / ours.as_secs_f64()),
        None => "—".into(),
    }
}

fn constants(args: &Args, ours: &Path, qalc: Option<&Path>, bc: Option<&Path>) -> Result<()> {
    let n = args.digits;
    println!("## {n} digits\n");
    println!(
        "| constant | calculon (library) | calculon (command) | qalc | bc -l | qalc ÷ calculon | bc ÷ calculon | digits agreeing with qalc, bc |"
    );
    println!("| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |");
    for c in &CONSTANTS {
        // In process: a fresh calculator each run (no warm constant cache).
        let mut lib_times = Vec::new();
        let mut lib_out = String::new();
        for _ in 0..args.runs.max(1) {
            let mut calc = Calculator::new(Settings {
                digits: n,
                time_limit: None,
                ..Settings::default()
            });
            let start = Instant::now();
            let answer = calc
                .evaluate(c.ours)
                .map_err(|e| anyhow::anyhow!("{}: {e}", c.ours))?;
            lib_times.push(start.elapsed());
            lib_out = answer.value;
        }
        let lib = median(lib_times);
        let cmd = median_run(args.runs, Duration::from_secs(60), None, || {
            let mut cmd = Command::new(ours);
            cmd.args(["--no-definitions", "-d", &n.to_string(), c.ours]);
            cmd
        })?
        .context("calculon ran past 60 s")?;
        let ours_digits = digits_of(&lib_out);
        let q = match qalc {
            Some(q) => median_run(args.runs, Duration::from_secs(60), None, || {
                let mut cmd = Command::new(q);
                cmd.args(["-t", "-set", &format!("precision {}", n + 10), c.qalc]);
                cmd
            })?,
            None => None,
        };
        let b = match bc {
            Some(b) => {
                let program = format!("scale={}\n{}\n", n + 10, c.bc);
                // bc's series are slow: one run, stopped at the timeout.
                median_run(
                    1,
                    Duration::from_secs(args.bc_timeout),
                    Some(&program),
                    || {
                        let mut cmd = Command::new(b);
                        cmd.arg("-l").env("BC_LINE_LENGTH", "0");
                        cmd
                    },
                )?
            }
            None => None,
        };
        // Every digit: ours against the peer's longer output rounded to
        // as many digits as we printed.
        let agree = |out: &Option<(String, Duration)>| match out {
            Some((text, _)) => {
                let theirs = rounded_to(&digits_of(text), ours_digits.len());
                let same = agreeing(&ours_digits, &theirs);
                if same == ours_digits.len() {
                    format!("all {same}")
                } else {
                    format!("{same} of {}", ours_digits.len())
                }
            }
            None => "—".into(),
        };
        let bc_time = match (&b, bc) {
            (Some((_, t)), _) => ms(*t),
            (None, Some(_)) => format!("> {} s", args.bc_timeout),
            (None, None) => "—".into(),
        };
        println!(
            "| {} | {} | {} | {} | {} | {} | {} | {}, {} |",
            c.name,
            ms(lib),
            ms(cmd.1),
            q.as_ref().map_or("—".into(), |x| ms(x.1)),
            bc_time,
            ratio(q.as_ref().map(|x| x.1), cmd.1),
            ratio(b.as_ref().map(|x| x.1), cmd.1),
            agree(&q),
            agree(&b),
        );
    }
    println!(
        "\nDigits agreeing: calculon's significant digits against the peer's output (asked for 10 more digits) rounded to as many digits.\n"
    );
    Ok(())
}

/// A column as pasted from a spreadsheet, and the same numbers plain (for
/// the peers, which read neither digit groups nor currency signs), and
/// the exact total in cents.
fn make_column(lines: usize) -> (String, String, i128) {
    let mut state = 0x2545_F491_4F6C_DD1Du64;
    let mut next = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let (mut pasted, mut plain, mut total) = (String::new(), String::new(), 0i128);
    for i in 0..lines {
        let cents = (next() % 100_000_000) as i128 - 20_000_000;
        total += cents;
        let (sign, abs) = (if cents < 0 { "-" } else { "" }, cents.unsigned_abs());
        let whole = abs / 100;
        let grouped = {
            let s = whole.to_string();
            let mut g = String::new();
            for (k, ch) in s.chars().enumerate() {
                if k > 0 && (s.len() - k) % 3 == 0 {
                    g.push(',');
                }
                g.push(ch);
            }
            g
        };
        let frac = abs % 100;
        // One currency for the column (a sum of dollars and euros would
        // need the rates), its sign written as spreadsheets do.
        let end = ["\r\n", "\n", "\t\n", " \n"][i % 4];
        pasted.push_str(&format!("{sign}${grouped}.{frac:02}{end}"));
        plain.push_str(&format!("{sign}{whole}.{frac:02}\n"));
    }
    (pasted, plain, total)
}

fn column(args: &Args, ours: &Path, qalc: Option<&Path>, bc: Option<&Path>) -> Result<()> {
    let (pasted, plain, total) = make_column(args.lines);
    println!("## A pasted column of {} lines\n", args.lines);
    let run = median_run(args.runs, Duration::from_secs(60), Some(&pasted), || {
        let mut cmd = Command::new(ours);
        cmd.args(["--no-definitions", "--sum"]);
        cmd
    })?
    .context("calculon ran past 60 s")?;
    let results = run.0.lines().count();
    let want = format!(
        "total: {}{}.{:02}",
        if total < 0 { "-" } else { "" },
        total.unsigned_abs() / 100,
        total.unsigned_abs() % 100
    );
    let got_total = run.0.lines().last().unwrap_or_default();
    let got_total = got_total.strip_suffix(" $").unwrap_or(got_total);
    let total_ok = got_total.trim_end_matches('0').trim_end_matches('.')
        == want.trim_end_matches('0').trim_end_matches('.');
    let q = match qalc {
        Some(q) => {
            let dir = std::env::temp_dir().join(format!("calculon-bench-{}", std::process::id()));
            std::fs::create_dir_all(&dir)?;
            let file = dir.join("column.txt");
            std::fs::write(&file, &plain)?;
            // qalc pauses about 20 ms per line it reads from a file or a
            // pipe (its CPU time is a fraction of that): one run.
            let r = median_run(1, Duration::from_secs(600), None, || {
                let mut cmd = Command::new(q);
                cmd.arg("-t").arg("-f").arg(&file);
                cmd
            })?;
            let _ = std::fs::remove_dir_all(&dir);
            r
        }
        None => None,
    };
    let b = match bc {
        Some(b) => median_run(args.runs, Duration::from_secs(60), Some(&plain), || {
            let mut cmd = Command::new(b);
            cmd.arg("-l");
            cmd
        })?,
        None => None,
    };
    println!("| program | input | time | results | ÷ calculon |");
    println!("| --- | --- | ---: | ---: | ---: |");
    println!(
        "| calculon --sum | pasted (groups, currency, CRLF, tabs) | {} | {results} lines, total {} | 1× |",
        ms(run.1),
        if total_ok { "exact" } else { "WRONG" }
    );
    if let Some((out, t)) = &q {
        println!(
            "| qalc -f | plain numbers | {} | {} lines | {} |",
            ms(*t),
            out.lines().count(),
            ratio(Some(*t), run.1)
        );
    }
    if let Some((out, t)) = &b {
        println!(
            "| bc -l | plain numbers | {} | {} lines | {} |",
            ms(*t),
            out.lines().count(),
            ratio(Some(*t), run.1)
        );
    }
    println!();
    Ok(())
}

fn cold_start(
    args: &Args,
    ours: &Path,
    qalc: Option<&Path>,
    bc: Option<&Path>,
    fend: Option<&Path>,
) -> Result<()> {
    let runs = args.runs.max(21);
    println!("## Cold start to the first answer (`1+1`, median of {runs})\n");
    let mine = median_run(runs, Duration::from_secs(10), None, || {
        let mut cmd = Command::new(ours);
        cmd.args(["--no-definitions", "1+1"]);
        cmd
    })?
    .context("calculon ran past 10 s")?;
    println!("| program | time | ÷ calculon |");
    println!("| --- | ---: | ---: |");
    println!("| calculon 1+1 | {} | 1× |", ms(mine.1));
    if let Some(q) = qalc
        && let Some((_, t)) = median_run(runs, Duration::from_secs(10), None, || {
            let mut cmd = Command::new(q);
            cmd.args(["-t", "1+1"]);
            cmd
        })?
    {
        println!("| qalc -t 1+1 | {} | {} |", ms(t), ratio(Some(t), mine.1));
    }
    if let Some(f) = fend
        && let Some((_, t)) = median_run(runs, Duration::from_secs(10), None, || {
            let mut cmd = Command::new(f);
            cmd.arg("1+1");
            cmd
        })?
    {
        println!("| fend 1+1 | {} | {} |", ms(t), ratio(Some(t), mine.1));
    }
    if let Some(b) = bc
        && let Some((_, t)) = median_run(runs, Duration::from_secs(10), Some("1+1\n"), || {
            let mut cmd = Command::new(b);
            cmd.arg("-l");
            cmd
        })?
    {
        println!(
            "| echo 1+1 \\| bc -l | {} | {} |",
            ms(t),
            ratio(Some(t), mine.1)
        );
    }
    println!();
    Ok(())
}

/// The window: from starting `calculon --gui 1+1` to its first answer
/// painted (the app logs that frame), median of the runs; needs $DISPLAY.
fn window_start(args: &Args, ours: &Path) -> Result<()> {
    use std::io::BufRead;
    if std::env::var_os("DISPLAY").is_none() {
        eprintln!("no X display ($DISPLAY): the window's start-up is left out");
        return Ok(());
    }
    let runs = args.runs.max(11);
    let mut times = Vec::new();
    for _ in 0..runs {
        let start = Instant::now();
        let mut child = Command::new(ours)
            .args(["--no-definitions", "--gui", "1+1"])
            .env("RUST_LOG", "calculon::startup=info")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .context("starting the window")?;
        let err = child.stderr.take().context("no stderr")?;
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in std::io::BufReader::new(err).lines().map_while(Result::ok) {
                if line.contains("first answer shown") {
                    let _ = tx.send(Instant::now());
                    return;
                }
            }
        });
        let shown = rx.recv_timeout(Duration::from_secs(20));
        let _ = child.kill();
        let _ = child.wait();
        match shown {
            Ok(at) => times.push(at - start),
            Err(_) => bail!("the window showed no answer within 20 s"),
        }
    }
    println!(
        "## The window: start to the first answer painted (`calculon --gui 1+1`, median of {runs})\n"
    );
    println!("| program | time |");
    println!("| --- | ---: |");
    println!("| calculon --gui 1+1 | {} |", ms(median(times)));
    println!();
    Ok(())
}
