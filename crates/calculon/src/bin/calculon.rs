//! `calculon`: evaluate the arguments, a column on stdin, or a REPL.

use std::io::{IsTerminal, Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{Context, Result};
use calculon::{Answer, AnswerKind, Calculator, CancelFlag, Graph, PlotRequest, Settings};
use clap::Parser;

/// A calculator: exact where it can be, every printed digit certain,
/// units, user functions. See `crates/calculon/README.md`.
#[derive(Parser, Debug)]
#[command(name = "calculon", version)]
struct Args {
    /// The expression (its words are joined with spaces). Without one,
    /// lines are read from stdin: a REPL on a terminal, a column otherwise.
    expression: Vec<String>,

    /// Significant digits of approximate results.
    #[arg(short, long, default_value_t = 30)]
    digits: usize,

    /// `,` is the decimal mark and `.` groups digits (arguments are then
    /// separated by `;`).
    #[arg(long)]
    decimal_comma: bool,

    /// After a column read from stdin, print the sum of its values.
    #[arg(long)]
    sum: bool,

    /// Print how the input was read before each answer.
    #[arg(long)]
    reading: bool,

    /// The definitions file (variables and functions kept between runs).
    /// Default: calculon/definitions.txt in the platform's config folder.
    #[arg(long, value_name = "FILE")]
    definitions: Option<PathBuf>,

    /// Neither read nor write a definitions file.
    #[arg(long)]
    no_definitions: bool,

    /// The most bits an exact number may take (the memory budget).
    #[arg(long, default_value_t = 1 << 23)]
    max_bits: u64,

    /// Seconds one line may take; 0 for no limit.
    #[arg(long, default_value_t = 10.0)]
    timeout: f64,

    /// Open the window: an expression field, a result field that follows
    /// it, a √ button, a history and graphs.
    #[arg(long)]
    gui: bool,

    /// Draw the expression as a PNG graph: a `plot f(x) from a to b`
    /// line, or any expression in x (from -10 to 10).
    #[arg(long, value_name = "FILE.png")]
    plot: Option<PathBuf>,

    /// Register the window with the desktop: `calculon.desktop` under
    /// applications/ and its icon under icons/, in the user's data folder
    /// (or --prefix), so menus list "Calculon".
    #[arg(long)]
    install_desktop: bool,

    /// Fetch the European Central Bank's newest euro reference rates and
    /// keep them (in --rates FILE) for later runs; prints their day.
    #[arg(long)]
    update_rates: bool,

    /// The exchange-rate table to use, and the one --update-rates writes.
    /// Default: calculon/rates.txt in the platform's data folder if it is
    /// there, else the table shipped with calculon.
    #[arg(long, value_name = "FILE")]
    rates: Option<PathBuf>,

    /// Where --update-rates fetches from (the ECB's daily file; a mirror
    /// or a test server may stand in).
    #[arg(
        long,
        value_name = "URL",
        default_value = "https://www.ecb.europa.eu/stats/eurofxref/eurofxref-daily.xml",
        requires = "update_rates"
    )]
    rates_url: String,

    /// Where --install-desktop writes (default: $XDG_DATA_HOME, or
    /// ~/.local/share).
    #[arg(long, value_name = "DIR", requires = "install_desktop")]
    prefix: Option<PathBuf>,
}

/// The desktop entry and its icon, as shipped in `data/`.
const DESKTOP_ENTRY: &str = include_str!("../../data/calculon.desktop");
const ICON: &str = include_str!("../../data/calculon.svg");

/// Writes the desktop entry (its Exec this program's own path, quoted as
/// the specification asks) and the icon, each the safe way; prints where.
fn install_desktop(prefix: Option<PathBuf>) -> Result<()> {
    let data = match prefix {
        Some(p) => p,
        None => match std::env::var_os("XDG_DATA_HOME").filter(|v| !v.is_empty()) {
            Some(d) => PathBuf::from(d),
            None => directories::BaseDirs::new()
                .map(|b| b.home_dir().join(".local/share"))
                .context("no home folder to install into; pass --prefix DIR")?,
        },
    };
    let exe = std::env::current_exe().context("finding this program's path")?;
    let quoted = exe
        .to_string_lossy()
        .replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('`', "\\`")
        .replace('$', "\\$");
    let entry = DESKTOP_ENTRY.replace("Exec=calculon --gui", &format!("Exec=\"{quoted}\" --gui"));
    for (dir, name, text) in [
        (
            data.join("applications"),
            "calculon.desktop",
            entry.as_str(),
        ),
        (
            data.join("icons/hicolor/scalable/apps"),
            "calculon.svg",
            ICON,
        ),
    ] {
        std::fs::create_dir_all(&dir).with_context(|| format!("making {}", dir.display()))?;
        let path = dir.join(name);
        write_safely(&path, text.as_bytes())
            .with_context(|| format!("writing {}", path.display()))?;
        println!("{}", path.display());
    }
    Ok(())
}

/// A new file beside `path`, synced, then renamed over it: `path` is
/// either the old file or the new one, whole.
fn write_safely(path: &std::path::Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".new");
    let tmp = PathBuf::from(tmp);
    let mut f = std::fs::File::create(&tmp)?;
    f.write_all(bytes)?;
    f.sync_all()?;
    drop(f);
    std::fs::rename(&tmp, path)
}

fn main() -> ExitCode {
    tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::from_default_env())
        .with_writer(std::io::stderr)
        .init();
    // A panic inside an evaluation is caught and becomes that line's
    // error; one line here says where it was (the default message adds a
    // backtrace note that helps nobody using the calculator).
    std::panic::set_hook(Box::new(|info| {
        eprintln!("calculon: internal error: {info}")
    }));
    match run(Args::parse()) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        Err(e) => {
            eprintln!("calculon: {e:#}");
            ExitCode::from(2)
        }
    }
}

/// Runs the command; `Ok(false)` when some line had an error.
fn run(args: Args) -> Result<bool> {
    if args.install_desktop {
        install_desktop(args.prefix)?;
        return Ok(true);
    }
    let rates_file = args.rates.clone().or_else(|| {
        directories::ProjectDirs::from("", "", "calculon").map(|d| d.data_dir().join("rates.txt"))
    });
    if args.update_rates {
        let path = rates_file.context("no data folder to keep the rates in; pass --rates FILE")?;
        return update_rates(&args.rates_url, &path).map(|()| true);
    }
    if let Some(path) = &rates_file {
        load_rates(path, args.rates.is_some())?;
    }
    if args.digits == 0 || args.digits > calculon::MAX_DIGITS {
        anyhow::bail!("--digits must be between 1 and {}", calculon::MAX_DIGITS);
    }
    if !(args.timeout.is_finite() && (0.0..=MAX_TIMEOUT_SECONDS).contains(&args.timeout)) {
        anyhow::bail!(
            "--timeout must be a number of seconds from 0 (no limit) to {MAX_TIMEOUT_SECONDS} (a week), not {}",
            args.timeout
        );
    }
    let most_bits = most_bits();
    if !(1..=most_bits).contains(&args.max_bits) {
        anyhow::bail!(
            "--max-bits must be from 1 to {most_bits} (a number that size takes an eighth of the \
             {} MB of memory free now), not {}",
            most_bits / 1_000_000,
            args.max_bits
        );
    }
    let settings = Settings {
        digits: args.digits,
        decimal_comma: args.decimal_comma,
        max_bits: args.max_bits,
        time_limit: (args.timeout > 0.0).then(|| Duration::from_secs_f64(args.timeout)),
        ..Settings::default()
    };
    let mut calc = Calculator::new(settings);
    let definitions = if args.no_definitions {
        None
    } else {
        args.definitions.clone().or_else(default_definitions)
    };
    if let Some(path) = &definitions {
        load_definitions(&mut calc, path)?;
    }
    let mut session = Session {
        calc,
        definitions,
        reading: args.reading,
    };
    if args.gui {
        return window(
            session.calc,
            session.definitions,
            &args.expression.join(" "),
        );
    }
    if !args.expression.is_empty() {
        let line = args.expression.join(" ");
        if let Some(path) = &args.plot {
            return session.plot(&line, path);
        }
        return session.one(&line);
    }
    if args.plot.is_some() {
        anyhow::bail!("--plot needs the expression on the command line");
    }
    if std::io::stdin().is_terminal() {
        session.repl()
    } else {
        session.column(args.sum)
    }
}

/// The longest --timeout: a week (0 means none at all).
const MAX_TIMEOUT_SECONDS: f64 = 7.0 * 24.0 * 3600.0;

/// The largest --max-bits: one number of that size may take an eighth of
/// the memory free now (a product or power holds several at once), and
/// never more than 2³⁶ bits (8 GiB). Where free memory cannot be read,
/// 2³⁴ bits (2 GiB).
fn most_bits() -> u64 {
    let free = std::fs::read_to_string("/proc/meminfo").ok().and_then(|t| {
        t.lines()
            .find_map(|l| l.strip_prefix("MemAvailable:"))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
            .map(|kb| kb.saturating_mul(1024))
    });
    match free {
        // bits = bytes free: such a number takes an eighth of them.
        Some(bytes) => bytes.clamp(1 << 23, 1 << 36),
        None => 1 << 34,
    }
}

/// Runs the window until it is closed.
#[cfg(feature = "gui")]
fn window(calc: Calculator, definitions: Option<PathBuf>, expression: &str) -> Result<bool> {
    let display = ["DISPLAY", "WAYLAND_DISPLAY"]
        .iter()
        .any(|v| std::env::var_os(v).is_some_and(|s| !s.is_empty()));
    if cfg!(target_os = "linux") && !display {
        anyhow::bail!(
            "no display (neither DISPLAY nor WAYLAND_DISPLAY is set): use the command line instead, \
             `calculon EXPR` for one answer or `calculon` alone for a REPL"
        );
    }
    let expression = expression.to_string();
    let options = eframe::NativeOptions {
        viewport: eframe::egui::ViewportBuilder::default()
            .with_title("calculon")
            .with_inner_size([640.0, 560.0]),
        ..Default::default()
    };
    eframe::run_native(
        "calculon",
        options,
        Box::new(move |cc| {
            let mut app = calculon::app::CalculonApp::new(&cc.egui_ctx, calc, definitions);
            if let Some(dirs) = directories::ProjectDirs::from("", "", "calculon") {
                app = app.with_history(dirs.data_dir().join("history.txt"));
            }
            if !expression.is_empty() {
                app.set_expression(&expression);
            }
            Ok(Box::new(calculon::app::Window(app)))
        }),
    )
    .map_err(|e| {
        anyhow::anyhow!("the window could not open: {e}; the command line works without one")
    })?;
    Ok(true)
}

#[cfg(not(feature = "gui"))]
fn window(_: Calculator, _: Option<PathBuf>, _: &str) -> Result<bool> {
    anyhow::bail!("this calculon was built without the window (the `gui` feature)")
}

struct Session {
    calc: Calculator,
    definitions: Option<PathBuf>,
    reading: bool,
}

impl Session {
    fn one(&mut self, line: &str) -> Result<bool> {
        match self.calc.evaluate(line) {
            Ok(answer) => {
                self.print(&answer)?;
                self.saved(&answer)?;
                Ok(true)
            }
            Err(e) => {
                eprintln!("{}", e.render(line));
                Ok(false)
            }
        }
    }

    /// Writes a graph of the line to `path`.
    fn plot(&mut self, line: &str, path: &Path) -> Result<bool> {
        let request = match self.calc.evaluate(line) {
            Ok(Answer {
                kind: AnswerKind::Plot(request),
                ..
            }) => request,
            // Any other expression: a function of x.
            _ => PlotRequest::new(line, "x", "-10", "10"),
        };
        let graph = match self.calc.plot(&request, 2000, &CancelFlag::new()) {
            Ok(g) => g,
            Err(e) => {
                eprintln!("{}", e.render(line));
                return Ok(false);
            }
        };
        let stopped = if graph.stopped.is_some() {
            " (stopped early)"
        } else {
            ""
        };
        draw_png(
            &graph,
            &format!(
                "{} for {} from {} to {}{stopped}",
                request.expression, request.variable, request.from, request.to
            ),
            path,
        )?;
        println!("wrote {}", path.display());
        // Drawn in part: the file stands, and the run says it did not finish.
        if let Some(why) = &graph.stopped {
            eprintln!("calculon: {why}");
            return Ok(false);
        }
        Ok(true)
    }

    fn print(&self, answer: &Answer) -> Result<()> {
        let mut out = std::io::stdout().lock();
        if self.reading {
            writeln!(out, "{}", answer.reading)?;
        }
        writeln!(out, "{}", result_text(answer))?;
        Ok(())
    }

    /// Writes the definitions file after a definition.
    fn saved(&self, answer: &Answer) -> Result<()> {
        if answer.kind == AnswerKind::Definition
            && let Some(path) = &self.definitions
        {
            save_definitions(&self.calc, path)?;
        }
        Ok(())
    }

    /// One answer per line of stdin (blank for blank lines), errors in
    /// place as `error: …`, and the total with `--sum`.
    fn column(&mut self, sum: bool) -> Result<bool> {
        let mut text = Vec::new();
        std::io::stdin()
            .lock()
            .read_to_end(&mut text)
            .context("reading stdin")?;
        let column = self
            .calc
            .evaluate_column_bytes(&text, sum, &CancelFlag::new());
        let mut out = std::io::BufWriter::new(std::io::stdout().lock());
        let mut ok = true;
        let mut defined = false;
        for line in &column.lines {
            match line {
                None => writeln!(out)?,
                Some(Ok(a)) => {
                    defined |= a.kind == AnswerKind::Definition;
                    writeln!(out, "{}", result_text(a))?;
                }
                Some(Err(e)) => {
                    ok = false;
                    writeln!(out, "error: {e}")?;
                }
            }
        }
        if let Some(total) = &column.total {
            match total {
                Ok(a) => writeln!(out, "total: {}", result_text(a))?,
                Err(e) => {
                    ok = false;
                    writeln!(out, "total: error: {e}")?;
                }
            }
        }
        out.flush()?;
        if defined && let Some(path) = &self.definitions {
            save_definitions(&self.calc, path)?;
        }
        Ok(ok)
    }

    fn repl(&mut self) -> Result<bool> {
        let mut editor = rustyline::DefaultEditor::new().context("starting the line editor")?;
        let history = directories::ProjectDirs::from("", "", "calculon")
            .map(|d| d.data_dir().join("history.txt"));
        if let Some(h) = &history {
            // A missing history file is the normal first run.
            let _ = editor.load_history(h);
        }
        println!("calculon: type an expression, `quit` to leave. Definitions: x = 5, f(x) = x^2.");
        loop {
            let line = match editor.readline("> ") {
                Ok(line) => line,
                Err(rustyline::error::ReadlineError::Interrupted) => continue,
                Err(rustyline::error::ReadlineError::Eof) => break,
                Err(e) => return Err(e).context("reading a line"),
            };
            let trimmed = line.trim();
            if trimmed.is_empty() {
                continue;
            }
            if matches!(trimmed, "quit" | "exit" | ":q") {
                break;
            }
            let _ = editor.add_history_entry(trimmed);
            match self.calc.evaluate(trimmed) {
                Ok(answer) => {
                    println!("  {}", answer.reading);
                    println!("{}", answer.display());
                    self.saved(&answer)?;
                }
                Err(e) => println!("{}", e.render(trimmed)),
            }
        }
        if let Some(h) = &history {
            if let Some(dir) = h.parent() {
                std::fs::create_dir_all(dir)
                    .with_context(|| format!("creating {}", dir.display()))?;
            }
            editor
                .save_history(h)
                .with_context(|| format!("saving the history to {}", h.display()))?;
        }
        Ok(true)
    }
}

/// The value as the command line prints it: `42`, `≈ 1.414…`.
fn result_text(a: &Answer) -> String {
    let text = match a.kind {
        AnswerKind::Value if a.approximate => format!("≈ {}", a.value),
        _ => a.value.clone(),
    };
    match &a.note {
        Some(note) => format!("{text} ({note})"),
        None => text,
    }
}

const FONT_PATHS: [&str; 2] = [
    "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
    "/usr/share/fonts/TTF/DejaVuSans.ttf",
];

/// Draws a graph into an 800×500 PNG: the segments in blue, axes with
/// labels when a font is found (DejaVu Sans, Debian's fonts-dejavu-core),
/// without labels otherwise.
fn draw_png(graph: &Graph, title: &str, path: &Path) -> Result<()> {
    use plotters::prelude::*;
    let font = FONT_PATHS.iter().find_map(|p| std::fs::read(p).ok());
    let labelled = match font {
        Some(bytes) => {
            let bytes: &'static [u8] = Box::leak(bytes.into_boxed_slice());
            plotters::style::register_font("sans-serif", FontStyle::Normal, bytes).is_ok()
        }
        None => {
            tracing::warn!("no font found (install fonts-dejavu-core): the graph has no labels");
            false
        }
    };
    let root = BitMapBackend::new(path, (800, 500)).into_drawing_area();
    let err = |e: &dyn std::fmt::Display| anyhow::anyhow!("drawing {}: {e}", path.display());
    root.fill(&WHITE).map_err(|e| err(&e))?;
    let (x0, x1) = graph.x_range;
    let (y0, y1) = graph.y_range;
    let mut builder = ChartBuilder::on(&root);
    builder.margin(12);
    if labelled {
        builder
            .caption(title, ("sans-serif", 18))
            .x_label_area_size(30)
            .y_label_area_size(60);
    }
    let mut chart = builder
        .build_cartesian_2d(x0..x1, y0..y1)
        .map_err(|e| err(&e))?;
    let mut mesh = chart.configure_mesh();
    if !labelled {
        mesh.disable_x_axis().disable_y_axis();
    }
    mesh.draw().map_err(|e| err(&e))?;
    for segment in &graph.segments {
        chart
            .draw_series(LineSeries::new(
                segment
                    .iter()
                    .map(|p| (p[0], p[1].clamp(y0 - (y1 - y0), y1 + (y1 - y0)))),
                BLUE.stroke_width(2),
            ))
            .map_err(|e| err(&e))?;
    }
    root.present().map_err(|e| err(&e))?;
    Ok(())
}

/// Fetches the ECB's daily file, checks it and keeps it the safe way.
fn update_rates(url: &str, path: &Path) -> Result<()> {
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .timeout_global(Some(Duration::from_secs(30)))
        .build()
        .into();
    let xml = agent
        .get(url)
        .call()
        .and_then(|mut r| r.body_mut().read_to_string())
        .with_context(|| format!("fetching {url}"))?;
    let rates = calculon::Rates::from_ecb_xml(&xml).with_context(|| format!("reading {url}"))?;
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).with_context(|| format!("making {}", dir.display()))?;
    }
    // The table replaced stays beside it, to go back to.
    let mut previous = path.as_os_str().to_owned();
    previous.push(".previous");
    let previous = PathBuf::from(previous);
    let kept_previous = path.exists();
    if kept_previous {
        std::fs::copy(path, &previous)
            .with_context(|| format!("keeping {}", previous.display()))?;
    }
    write_safely(path, rates.to_text().as_bytes())
        .with_context(|| format!("writing {}", path.display()))?;
    println!(
        "{} rates of {} kept in {}",
        rates.per_euro.len(),
        rates.date,
        path.display()
    );
    if kept_previous {
        println!("the table before them is in {}", previous.display());
    }
    Ok(())
}

/// Uses the kept rate table, if there is one (a missing default file is
/// the normal case: the shipped table serves).
/// The largest rates file read: the ECB's table is under 1 KB.
const MAX_RATES_BYTES: u64 = 1 << 20;

/// The largest definitions file read.
const MAX_DEFINITIONS_BYTES: u64 = 16 << 20;

/// A regular file's text, at most `limit` bytes; `None` when it does not
/// exist. Anything else (a FIFO, which would wait for a writer forever; a
/// device such as /dev/zero, which never ends; a folder) is refused by
/// what it is before it is opened, and a file that grows past `limit`
/// while read is refused too.
fn read_regular(path: &Path, limit: u64) -> Result<Option<String>> {
    use std::io::Read;
    let meta = match std::fs::metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e).with_context(|| format!("reading {}", path.display())),
    };
    let kind = meta.file_type();
    if !kind.is_file() {
        let what = if kind.is_dir() {
            "a folder"
        } else {
            #[cfg(unix)]
            {
                use std::os::unix::fs::FileTypeExt;
                if kind.is_fifo() {
                    "a FIFO (it would wait for a writer)"
                } else if kind.is_char_device() || kind.is_block_device() {
                    "a device"
                } else if kind.is_socket() {
                    "a socket"
                } else {
                    "not a regular file"
                }
            }
            #[cfg(not(unix))]
            "not a regular file"
        };
        anyhow::bail!("{} is {what}, not a file to read", path.display());
    }
    if meta.len() > limit {
        anyhow::bail!(
            "{} is {} bytes, more than the {} bytes read from such a file",
            path.display(),
            meta.len(),
            limit
        );
    }
    let file = std::fs::File::open(path).with_context(|| format!("reading {}", path.display()))?;
    let mut bytes = Vec::new();
    file.take(limit + 1)
        .read_to_end(&mut bytes)
        .with_context(|| format!("reading {}", path.display()))?;
    if bytes.len() as u64 > limit {
        anyhow::bail!(
            "{} grew past {limit} bytes while it was read",
            path.display()
        );
    }
    String::from_utf8(bytes)
        .map(Some)
        .map_err(|e| anyhow::anyhow!("{}: not UTF-8 text ({e})", path.display()))
}

fn load_rates(path: &Path, asked: bool) -> Result<()> {
    let text = match read_regular(path, MAX_RATES_BYTES)? {
        Some(t) => t,
        None if !asked => return Ok(()),
        None => anyhow::bail!("reading {}: no such file", path.display()),
    };
    let rates =
        calculon::Rates::parse(&text).with_context(|| format!("reading {}", path.display()))?;
    calculon::use_rates(rates).context("using the rates")?;
    Ok(())
}

fn default_definitions() -> Option<PathBuf> {
    directories::ProjectDirs::from("", "", "calculon")
        .map(|d| d.config_dir().join("definitions.txt"))
}

fn load_definitions(calc: &mut Calculator, path: &Path) -> Result<()> {
    let Some(text) = read_regular(path, MAX_DEFINITIONS_BYTES)? else {
        return Ok(());
    };
    for (line, error) in calc.load_definitions(&text) {
        eprintln!("calculon: {}:{line}: {error}", path.display());
    }
    Ok(())
}

fn save_definitions(calc: &Calculator, path: &Path) -> Result<()> {
    calc.save_definitions(path)
        .with_context(|| format!("saving {}", path.display()))
}
