//! The window: an expression field and a result field that follows it as
//! you type, a √ button (Ctrl+R), a history, and graphs.
//!
//! The calculator is the model; this module only draws it and sends jobs
//! to the worker thread (`worker.rs`), which answers on a channel. Typing
//! cancels the evaluation of the previous text, so a slow line (10,000
//! digits of π, a huge factorial) never holds the window up.

mod names;
mod worker;

use std::path::PathBuf;
use std::sync::mpsc::{Receiver, Sender};

use eframe::egui;

use crate::{
    AnswerKind, CalcError, Calculator, CancelFlag, Column, ErrorKind, Graph, Notation, PlotRequest,
    Settings,
};
use worker::{Done, Job};

/// One kept line of the history.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HistoryEntry {
    /// The expression as typed.
    pub expression: String,
    /// Its answer as shown.
    pub result: String,
}

/// The window's state.
pub struct CalculonApp {
    calc: Calculator,
    definitions: Option<PathBuf>,
    expression: String,
    digits: usize,
    decimal_comma: bool,
    /// The preview in flight or shown.
    generation: u64,
    /// When the newest line was sent to the worker: an older answer is
    /// not shown once it has waited [`STALE_AFTER`].
    asked_at: std::time::Instant,
    cancel: CancelFlag,
    preview: Option<Column>,
    waiting: bool,
    history: Vec<HistoryEntry>,
    plot_generation: u64,
    plot_cancel: CancelFlag,
    /// Whether an answer has been shown yet (logged once, for the
    /// start-up figure).
    first_answer_shown: bool,
    /// The list of names, when open.
    names: Option<names::NamesList>,
    /// The graph's title and its functions' curves (or why there are none).
    plot: Option<(String, Result<Curves, String>)>,
    plot_waiting: bool,
    /// Kept lines sent to the worker whose answers have not come back.
    commits_waiting: usize,
    /// Ctrl+Q was pressed.
    quitting: bool,
    /// A long result is shown whole.
    show_all: bool,
    /// Where the history is kept across restarts.
    history_file: Option<PathBuf>,
    /// The names Tab could complete to, when it could not choose.
    choices: String,
    /// Whole parts in groups of three (on by default here).
    group_digits: bool,
    /// How results show when a line asks for no format.
    notation: Notation,
    status: Option<String>,
    jobs: Sender<Job>,
    done: Receiver<Done>,
}

const EXPRESSION_ID: &str = "calculon-expression";

impl CalculonApp {
    /// A window on `calc`; definitions kept with Enter are saved to
    /// `definitions` when given.
    pub fn new(ctx: &egui::Context, calc: Calculator, definitions: Option<PathBuf>) -> Self {
        let (jobs, done) = worker::spawn(ctx.clone());
        let digits = calc.settings().digits;
        let decimal_comma = calc.settings().decimal_comma;
        CalculonApp {
            calc,
            definitions,
            expression: String::new(),
            digits,
            decimal_comma,
            generation: 0,
            asked_at: std::time::Instant::now(),
            cancel: CancelFlag::new(),
            preview: None,
            waiting: false,
            history: Vec::new(),
            plot_generation: 0,
            plot_cancel: CancelFlag::new(),
            plot: None,
            names: None,
            first_answer_shown: false,
            plot_waiting: false,
            commits_waiting: 0,
            quitting: false,
            show_all: false,
            history_file: None,
            choices: String::new(),
            group_digits: true,
            notation: Notation::Auto,
            status: None,
            jobs,
            done,
        }
    }

    /// Puts `text` in the expression field (and evaluates it).
    pub fn set_expression(&mut self, text: &str) {
        self.expression = text.to_string();
        self.preview_now();
    }

    /// The kept lines, oldest first.
    pub fn history(&self) -> &[HistoryEntry] {
        &self.history
    }

    /// The functions the graph shows.
    pub fn graph_functions(&self) -> Vec<String> {
        match &self.plot {
            Some((_, Ok(g))) => g.iter().map(|(f, _)| f.clone()).collect(),
            _ => Vec::new(),
        }
    }

    /// Whether a graph is shown (and how many pieces it has).
    pub fn graph_segments(&self) -> Option<usize> {
        match &self.plot {
            Some((_, Ok(g))) => Some(g.iter().map(|(_, g)| g.segments.len()).sum()),
            _ => None,
        }
    }

    /// What Tab adds to the name before the cursor: the rest of the one
    /// name it starts, or the part all the names it starts share; the
    /// choices are shown under the field when there are several.
    fn completion(&mut self, ctx: &egui::Context, id: egui::Id) -> Option<String> {
        let at = egui::TextEdit::load_state(ctx, id)
            .and_then(|s| s.cursor.char_range())
            .map_or_else(|| self.expression.chars().count(), |r| r.primary.index.0);
        let before: String = self.expression.chars().take(at).collect();
        let word: String = before
            .chars()
            .rev()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect();
        if word.is_empty() || word.starts_with(|c: char| c.is_ascii_digit()) {
            return None;
        }
        let names = self.calc.names_starting(&word);
        let first = names.first()?;
        let shared: String = first
            .chars()
            .enumerate()
            .take_while(|(k, c)| names.iter().all(|n| n.chars().nth(*k) == Some(*c)))
            .map(|(_, c)| c)
            .collect();
        self.choices = if names.len() > 1 {
            names
                .iter()
                .take(12)
                .cloned()
                .collect::<Vec<_>>()
                .join("  ")
        } else {
            String::new()
        };
        let rest: String = shared.chars().skip(word.chars().count()).collect();
        (!rest.is_empty()).then_some(rest)
    }

    /// Keeps the history in `path` across restarts: what it holds now is
    /// read, and every kept line is written to it (the safe way).
    pub fn with_history(mut self, path: PathBuf) -> Self {
        if let Ok(text) = std::fs::read_to_string(&path) {
            self.history = text
                .lines()
                .filter_map(|l| l.split_once('\t'))
                .map(|(e, r)| HistoryEntry {
                    expression: e.to_string(),
                    result: r.to_string(),
                })
                .collect();
        }
        self.history_file = Some(path);
        self
    }

    fn save_history(&self) -> Result<(), String> {
        let Some(path) = &self.history_file else {
            return Ok(());
        };
        let text: String = self
            .history
            .iter()
            .map(|h| {
                let clean = |s: &str| s.replace(['\t', '\n', '\r'], " ");
                format!("{}\t{}\n", clean(&h.expression), clean(&h.result))
            })
            .collect();
        let write = || -> std::io::Result<()> {
            use std::io::Write;
            if let Some(dir) = path.parent() {
                std::fs::create_dir_all(dir)?;
            }
            let mut tmp = path.as_os_str().to_owned();
            tmp.push(".new");
            let tmp = PathBuf::from(tmp);
            let mut f = std::fs::File::create(&tmp)?;
            f.write_all(text.as_bytes())?;
            f.sync_all()?;
            std::fs::rename(&tmp, path)
        };
        write().map_err(|e| format!("the history was not saved to {}: {e}", path.display()))
    }

    /// Whether Ctrl+Q asked the window to close.
    pub fn quit_requested(&self) -> bool {
        self.quitting
    }

    /// Whether the worker still owes an answer.
    pub fn is_busy(&self) -> bool {
        self.waiting || self.plot_waiting || self.commits_waiting > 0
    }

    /// Draws the window and applies what the user did.
    pub fn ui(&mut self, ui: &mut egui::Ui) {
        self.receive();
        if ui.input_mut(|i| i.consume_key(egui::Modifiers::COMMAND, egui::Key::Q)) {
            self.quitting = true;
            ui.ctx().send_viewport_cmd(egui::ViewportCommand::Close);
        }
        let expression_id = egui::Id::unique(EXPRESSION_ID);
        // The field has the keys at launch and gets them back whenever
        // nothing else holds them (after Esc, after a button): typing
        // never goes nowhere.
        if ui.memory(|m| m.focused().is_none()) {
            ui.memory_mut(|m| m.request_focus(expression_id));
        }
        let focused = ui.memory(|m| m.has_focus(expression_id));
        // Enter keeps the line (Shift+Enter starts a new one); Ctrl+R
        // inserts a square root.
        let mut commit = false;
        let mut root = false;
        let mut complete = false;
        if focused {
            // Enter alone: egui's `consume_key` would take Shift+Enter too,
            // which starts a new line.
            commit = ui.input_mut(|i| consume_plain(i, egui::Key::Enter));
            root = ui.input_mut(|i| i.consume_key(egui::Modifiers::COMMAND, egui::Key::R));
            complete = ui.input_mut(|i| i.consume_key(egui::Modifiers::NONE, egui::Key::Tab));
        }

        let label = ui.label("Expression");
        let edit = egui::TextEdit::multiline(&mut self.expression)
            .id(expression_id)
            // Tab completes names here, never moves the keys elsewhere.
            .lock_focus(true)
            .desired_rows(3)
            .desired_width(f32::INFINITY)
            .font(egui::TextStyle::Monospace)
            .hint_text("2pi, 5 ft 10 in to cm, f(x) = x^2 + 1, plot sin(x)/x … or paste a column")
            .show(ui);
        let response = egui::Response::clone(&edit.response).labelled_by(label.id);
        let mut changed = response.changed();

        let mut plot = false;
        let mut digits_changed = false;
        let mut open_names = ui.input_mut(|i| i.consume_key(egui::Modifiers::NONE, egui::Key::F1));
        // Wrapped: in a narrow window no control goes past the edge.
        ui.horizontal_wrapped(|ui| {
            if ui
                .button("√")
                .on_hover_text("square root (Ctrl+R)")
                .clicked()
            {
                root = true;
            }
            if ui
                .button("Plot")
                .on_hover_text("draw the expression as a function of x")
                .clicked()
            {
                plot = true;
            }
            if ui
                .button("Names")
                .on_hover_text("every function, constant and unit, searchable (F1)")
                .clicked()
            {
                open_names = true;
            }
            if ui
                .button("Keep")
                .on_hover_text("keep the line in the history; definitions take effect (Enter)")
                .clicked()
            {
                commit = true;
            }
            let digits_label = ui.label("Digits");
            digits_changed = ui
                .add(egui::DragValue::new(&mut self.digits).range(1..=100_000))
                .labelled_by(digits_label.id)
                .changed();
            digits_changed |= ui
                .checkbox(&mut self.decimal_comma, "Decimal comma")
                .on_hover_text("read and write 1.234,5 (arguments separated by ;)")
                .changed();
            digits_changed |= ui
                .checkbox(&mut self.group_digits, "Group digits")
                .on_hover_text("1 234 567: whole parts in groups of three")
                .changed();
            let before = self.notation;
            egui::ComboBox::from_label("Notation")
                .selected_text(notation_name(self.notation))
                .show_ui(ui, |ui| {
                    for n in [
                        Notation::Auto,
                        Notation::Scientific,
                        Notation::Engineering,
                        Notation::Fraction,
                    ] {
                        ui.selectable_value(&mut self.notation, n, notation_name(n));
                    }
                });
            digits_changed |= self.notation != before;
        });
        if open_names {
            self.names = Some(names::NamesList::new(ui.ctx(), self.calc.reference()));
        }
        if let Some(list) = &mut self.names {
            let (picked, open) = list.show(ui.ctx());
            if let Some(text) = picked {
                insert_at_cursor(ui.ctx(), expression_id, &mut self.expression, &text);
                ui.memory_mut(|m| m.request_focus(expression_id));
                changed = true;
            }
            if !open {
                self.names = None;
            }
        }
        if complete && let Some(rest) = self.completion(ui.ctx(), expression_id) {
            insert_at_cursor(ui.ctx(), expression_id, &mut self.expression, &rest);
            ui.memory_mut(|m| m.request_focus(expression_id));
            changed = true;
        }
        if root {
            insert_at_cursor(ui.ctx(), expression_id, &mut self.expression, "√");
            ui.memory_mut(|m| m.request_focus(expression_id));
            changed = true;
        }
        if changed && !complete {
            self.choices.clear();
        }
        if !self.choices.is_empty() {
            ui.label(egui::RichText::new(format!("Tab: {}", self.choices)).weak());
        }
        if changed || digits_changed {
            self.preview_now();
        }
        if commit {
            self.commit();
        }
        if plot {
            self.plot_expression();
        }

        self.results_ui(ui);
        self.plot_ui(ui);
        self.history_ui(ui);
    }

    fn settings(&self) -> Settings {
        Settings {
            digits: self.digits.clamp(1, crate::MAX_DIGITS),
            decimal_comma: self.decimal_comma,
            group_digits: self.group_digits,
            notation: self.notation,
            ..self.calc.settings().clone()
        }
    }

    fn calculator(&self) -> Calculator {
        let mut c = self.calc.clone();
        c.set_settings(self.settings());
        c
    }

    /// Evaluates the field's text on the worker, cancelling the previous
    /// evaluation.
    fn preview_now(&mut self) {
        self.cancel.cancel();
        self.cancel = CancelFlag::new();
        self.generation += 1;
        if self.expression.trim().is_empty() {
            self.preview = None;
            self.waiting = false;
            return;
        }
        self.waiting = true;
        self.asked_at = std::time::Instant::now();
        self.send(Job::Preview {
            generation: self.generation,
            text: self.expression.clone(),
            calc: self.calculator(),
            cancel: self.cancel.clone(),
        });
    }

    fn commit(&mut self) {
        if self.expression.trim().is_empty() {
            return;
        }
        let sent = self.send(Job::Commit {
            text: self.expression.clone(),
            calc: self.calculator(),
            save_to: self.definitions.clone(),
        });
        if sent {
            self.commits_waiting += 1;
        }
    }

    fn plot_expression(&mut self) {
        let text = self.expression.trim().to_string();
        if text.is_empty() {
            return;
        }
        // A `plot …` line brings its own range (read from the worker's
        // preview: nothing is evaluated on this thread); anything else is
        // drawn as a function of x over -10..10.
        let previewed = match self.preview.as_ref().map(|c| c.lines.as_slice()) {
            Some([Some(Ok(a))]) => match &a.kind {
                AnswerKind::Plot(r) => Some(r.clone()),
                _ => None,
            },
            _ => None,
        };
        let request = previewed.unwrap_or_else(|| PlotRequest::new(&text, "x", "-10", "10"));
        self.start_plot(request);
    }

    fn start_plot(&mut self, request: PlotRequest) {
        self.plot_cancel.cancel();
        self.plot_cancel = CancelFlag::new();
        self.plot_generation += 1;
        self.plot_waiting = true;
        self.plot = Some((
            format!(
                "{} for {} from {} to {}",
                request.expression, request.variable, request.from, request.to
            ),
            Err("drawing…".into()),
        ));
        self.send(Job::Plot {
            generation: self.plot_generation,
            request,
            calc: self.calculator(),
            cancel: self.plot_cancel.clone(),
        });
    }

    /// Sends `job` to the worker; whether it went.
    fn send(&mut self, job: Job) -> bool {
        let sent = self.jobs.send(job).is_ok();
        if !sent {
            self.status = Some("the worker thread has stopped: restart calculon".into());
        }
        sent
    }

    /// Applies the worker's answers, dropping stale ones.
    fn receive(&mut self) {
        while let Ok(done) = self.done.try_recv() {
            match done {
                Done::Preview { generation, column } => {
                    if generation == self.generation {
                        self.waiting = false;
                        // A `plot` line draws as soon as it reads.
                        let plot = match column.lines.as_slice() {
                            [Some(Ok(a))] => match &a.kind {
                                AnswerKind::Plot(r) => Some(r.clone()),
                                _ => None,
                            },
                            _ => None,
                        };
                        // An expression in a free x is a function: its graph.
                        let function = matches!(
                            column.lines.as_slice(),
                            [Some(Err(e))] if free_x(e)
                        );
                        self.preview = Some(column);
                        self.show_all = false;
                        if let Some(r) = plot {
                            self.start_plot(r);
                        } else if function {
                            let text = self.expression.trim().to_string();
                            self.start_plot(PlotRequest::new(&text, "x", "-10", "10"));
                        }
                    }
                }
                Done::Commit {
                    text,
                    column,
                    calc,
                    saved,
                } => {
                    self.commits_waiting = self.commits_waiting.saturating_sub(1);
                    for (line, answer) in text.lines().zip(&column.lines) {
                        let result = match answer {
                            None => continue,
                            Some(Ok(a)) => a.display(),
                            Some(Err(e)) => format!("error: {e}"),
                        };
                        let expression = line.trim().to_string();
                        // Each line once: a definition kept again replaces
                        // the older one.
                        self.history.retain(|h| h.expression != expression);
                        self.history.push(HistoryEntry { expression, result });
                    }
                    if self.history.len() > HISTORY_KEPT {
                        let extra = self.history.len() - HISTORY_KEPT;
                        self.history.drain(..extra);
                    }
                    if let Err(e) = self.save_history() {
                        self.status = Some(e);
                    }
                    self.calc = *calc;
                    self.status = saved.err();
                    // What was kept leaves the field; what was typed since
                    // (the worker answers later) stays.
                    let rest = self
                        .expression
                        .strip_prefix(text.as_str())
                        .map(|r| r.trim_start().to_string());
                    if let Some(rest) = rest {
                        self.expression = rest;
                        self.preview = None;
                        self.generation += 1;
                        if !self.expression.is_empty() {
                            self.preview_now();
                        }
                    }
                }
                Done::Plot { generation, graph } => {
                    if generation == self.plot_generation {
                        self.plot_waiting = false;
                        if let Some((title, _)) = self.plot.take() {
                            self.plot = Some((title, graph));
                        }
                    }
                }
            }
        }
    }

    fn results_ui(&mut self, ui: &mut egui::Ui) {
        let (text, reading, total) = match &self.preview {
            None => (String::new(), String::new(), None),
            Some(column) => {
                if !self.first_answer_shown {
                    // For the start-up benchmark (RUST_LOG=calculon::startup=info).
                    tracing::info!(target: "calculon::startup", "first answer shown");
                    self.first_answer_shown = true;
                }
                let lines: Vec<String> = column
                    .lines
                    .iter()
                    .map(|l| match l {
                        None => String::new(),
                        Some(Ok(a)) => a.display(),
                        Some(Err(e)) if free_x(e) => "a function of x: its graph is below".into(),
                        Some(Err(e)) => format!("error: {e}"),
                    })
                    .collect();
                let reading = match column.lines.as_slice() {
                    [Some(Ok(a))] => a.reading.clone(),
                    [Some(Err(e))] if free_x(e) => format!("f(x) = {}", self.expression.trim()),
                    [Some(Err(e))] => e.render(self.expression.trim()),
                    _ => String::new(),
                };
                let values = column
                    .lines
                    .iter()
                    .filter(|l| matches!(l, Some(Ok(a)) if a.kind == AnswerKind::Value))
                    .count();
                let total = match (&column.total, values > 1) {
                    (Some(Ok(t)), true) => Some(format!("total {}", t.display())),
                    (Some(Err(e)), true) => Some(format!("total: {e}")),
                    _ => None,
                };
                (lines.join("\n"), reading, total)
            }
        };
        // A line being worked on: the last one's answer would be stale.
        let stale = self.waiting && self.asked_at.elapsed() >= STALE_AFTER;
        let (text, reading, total) = if stale {
            (String::new(), String::new(), None)
        } else {
            (text, reading, total)
        };
        if self.waiting && !stale {
            ui.ctx().request_repaint_after(STALE_AFTER);
        }
        // Long results show their ends and their length, not a wall of
        // digits that pushes the window apart.
        let long = text.lines().any(|l| l.chars().count() > LONG_RESULT);
        let short: String = if long && !self.show_all {
            text.lines().map(shorten).collect::<Vec<_>>().join("\n")
        } else {
            text.clone()
        };
        let label = ui.label("Result");
        let mut shown = short.as_str();
        let rows = shown.lines().count().clamp(1, 12);
        let copy_keys = ui.input_mut(|i| {
            i.consume_key(
                egui::Modifiers::COMMAND | egui::Modifiers::SHIFT,
                egui::Key::C,
            )
        });
        let mut copy = copy_keys;
        ui.horizontal(|ui| {
            ui.add(
                egui::TextEdit::multiline(&mut shown)
                    .desired_rows(rows)
                    .desired_width((ui.available_width() - 110.0).max(100.0))
                    .font(egui::TextStyle::Monospace),
            )
            .labelled_by(label.id);
            ui.vertical(|ui| {
                if !text.is_empty() {
                    copy |= ui
                        .button("Copy")
                        .on_hover_text("copy the whole result (Ctrl+Shift+C)")
                        .clicked();
                }
                if long {
                    let what = if self.show_all {
                        "Show less"
                    } else {
                        "Show all"
                    };
                    if ui.button(what).clicked() {
                        self.show_all = !self.show_all;
                    }
                }
            });
        });
        if copy && !text.is_empty() {
            ui.ctx().copy_text(text.clone());
        }
        if !reading.is_empty() {
            ui.label(
                egui::RichText::new(format!("read as: {reading}"))
                    .weak()
                    .monospace(),
            );
        }
        if let Some(total) = total {
            ui.label(egui::RichText::new(total).strong());
        }
        if self.waiting {
            ui.label(egui::RichText::new("calculating…").weak());
        }
        if let Some(status) = &self.status {
            ui.colored_label(ui.visuals().error_fg_color, status);
        }
    }

    fn plot_ui(&mut self, ui: &mut egui::Ui) {
        let Some((title, _)) = &self.plot else { return };
        let title = title.clone();
        ui.separator();
        ui.horizontal(|ui| {
            ui.label(egui::RichText::new(title).strong());
            if ui.button("Close graph").clicked() {
                self.plot_cancel.cancel();
                self.plot = None;
                self.plot_waiting = false;
            }
        });
        let Some((_, graph)) = &self.plot else { return };
        match graph {
            Err(message) => {
                ui.label(message.as_str());
            }
            Ok(curves) => {
                let Some((_, first)) = curves.first() else {
                    return;
                };
                // Out of time part-way: what was drawn, and why no more.
                for (name, g) in curves {
                    if let Some(why) = &g.stopped {
                        ui.colored_label(ui.visuals().warn_fg_color, format!("{name}: {why}"));
                    }
                }
                let (x0, x1) = first.x_range;
                // Every curve's own range (not the extremes near a pole);
                // points far outside it are pinned, so a pole is a line
                // off the edge rather than a squashed curve.
                let (y0, y1) = curves
                    .iter()
                    .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), (_, g)| {
                        (lo.min(g.y_range.0), hi.max(g.y_range.1))
                    });
                let far = (y1 - y0).max(f64::MIN_POSITIVE) * 10.0;
                let mut pointer = None;
                // A new graph gets new axes (its own range), not the last
                // graph's panned and zoomed view.
                // As tall as the window allows, leaving room for the
                // coordinates and a few lines of history.
                let height = (ui.available_height() - 150.0).clamp(240.0, 700.0);
                let mut plot = egui_plot::Plot::new(("calculon-graph", self.plot_generation))
                    .height(height)
                    .default_x_bounds(x0, x1.max(x0 + f64::EPSILON))
                    .default_y_bounds(y0, y1.max(y0 + f64::EPSILON))
                    .x_grid_spacer(egui_plot::uniform_grid_spacer(|input| {
                        round_steps(input.bounds.1 - input.bounds.0)
                    }))
                    .y_grid_spacer(egui_plot::uniform_grid_spacer(|input| {
                        round_steps(input.bounds.1 - input.bounds.0)
                    }))
                    .x_axis_formatter(|mark, _| round_label(mark.value, mark.step_size))
                    .y_axis_formatter(|mark, _| round_label(mark.value, mark.step_size))
                    // The coordinates show under the graph instead.
                    .show_x(false)
                    .show_y(false);
                if curves.len() > 1 {
                    plot = plot.legend(egui_plot::Legend::default());
                }
                plot.show(ui, |p| {
                    for (k, (name, g)) in curves.iter().enumerate() {
                        // One colour for every piece of one curve.
                        let colour = CURVE_COLOURS[k % CURVE_COLOURS.len()];
                        for segment in &g.segments {
                            let points: Vec<[f64; 2]> = segment
                                .iter()
                                .map(|&[x, y]| [x, y.clamp(y0 - far, y1 + far)])
                                .collect();
                            p.line(egui_plot::Line::new(name.as_str(), points).color(colour));
                        }
                    }
                    if p.response().hovered()
                        && let Some(at) = p.pointer_coordinate()
                    {
                        let b = p.plot_bounds();
                        pointer = Some(([at.x, at.y], [b.width(), b.height()]));
                    }
                });
                let text = match pointer {
                    Some(([x, y], [w, h])) => format!(
                        "x = {}   y = {}",
                        round_label(x, w / 1000.0),
                        round_label(y, h / 1000.0)
                    ),
                    None => "point at the graph for its coordinates".to_string(),
                };
                ui.label(egui::RichText::new(text).weak());
            }
        }
    }

    fn history_ui(&mut self, ui: &mut egui::Ui) {
        if self.history.is_empty() {
            return;
        }
        ui.separator();
        ui.label("History");
        let mut pick = None;
        egui::ScrollArea::vertical()
            .max_height(200.0)
            .show(ui, |ui| {
                for (i, h) in self.history.iter().enumerate().rev() {
                    if ui
                        .button(format!("{}   {}", h.expression, h.result))
                        .on_hover_text("edit this line again")
                        .clicked()
                    {
                        pick = Some(i);
                    }
                }
            });
        if let Some(i) = pick
            && let Some(h) = self.history.get(i)
        {
            self.expression = h.expression.clone();
            self.preview_now();
        }
    }
}

/// Inserts `text` at the field's cursor (or at the end when it has none).
fn insert_at_cursor(ctx: &egui::Context, id: egui::Id, field: &mut String, text: &str) {
    let state = egui::TextEdit::load_state(ctx, id);
    let at = state
        .as_ref()
        .and_then(|s| s.cursor.char_range())
        .map(|r| r.primary.index.0)
        .unwrap_or_else(|| field.chars().count());
    let byte = field.char_indices().nth(at).map_or(field.len(), |(b, _)| b);
    field.insert_str(byte, text);
    if let Some(mut state) = state {
        let cursor = egui::text::CCursor::new(at + text.chars().count());
        state
            .cursor
            .set_char_range(Some(egui::text::CCursorRange::one(cursor)));
        state.store(ctx, id);
    }
}

/// The window as an eframe app.
pub struct Window(pub CalculonApp);

impl eframe::App for Window {
    fn ui(&mut self, ui: &mut egui::Ui, _frame: &mut eframe::Frame) {
        egui::CentralPanel::default().show(ui, |ui| self.0.ui(ui));
        // Everything is saved as it is made (definitions on Keep): closing
        // need not wait for a worker still computing, nor for the graphics
        // driver's exit handlers (a second and more under a software
        // renderer).
        let closing = ui.ctx().input(|i| i.viewport().close_requested());
        if self.0.quit_requested() || closing {
            // SAFETY: `_exit` ends the process at once; nothing is left
            // unwritten (every file is written and synced when it changes),
            // and no Rust code runs after it.
            #[cfg(unix)]
            unsafe {
                libc::_exit(0)
            }
            #[cfg(not(unix))]
            std::process::exit(0);
        }
    }
}

/// How long the last answer stays while a newer line is worked on (so
/// fast answers replace it without a blank in between).
const STALE_AFTER: std::time::Duration = std::time::Duration::from_millis(150);

/// Whether an error says the line is a function of a free `x`.
fn free_x(e: &CalcError) -> bool {
    matches!(&e.kind, ErrorKind::FreeVariable { name } if name == "x")
}

/// A graph's functions, each with its curve.
type Curves = Vec<(String, Graph)>;

/// Curve colours, told apart by most eyes (Okabe and Ito's palette).
const CURVE_COLOURS: [egui::Color32; 6] = [
    egui::Color32::from_rgb(86, 180, 233),
    egui::Color32::from_rgb(230, 159, 0),
    egui::Color32::from_rgb(0, 158, 115),
    egui::Color32::from_rgb(204, 121, 167),
    egui::Color32::from_rgb(240, 228, 66),
    egui::Color32::from_rgb(213, 94, 0),
];

/// Grid steps for a visible `range`: about eight labelled marks, each a
/// 1, 2 or 5 times a power of ten, with thinner lines at a fifth of it.
pub(crate) fn round_steps(range: f64) -> [f64; 3] {
    let target = (range.abs() / 8.0).max(f64::MIN_POSITIVE);
    let power = 10f64.powf(target.log10().floor());
    let m = target / power;
    let step = power
        * if m < 1.5 {
            1.0
        } else if m < 3.5 {
            2.0
        } else if m < 7.5 {
            5.0
        } else {
            10.0
        };
    [step / 5.0, step, step * 5.0]
}

/// `value` with as many decimals as `step` needs, so axis marks read
/// `0.2`, `-30`, `1500` (not `0.20000000000000004`).
pub(crate) fn round_label(value: f64, step: f64) -> String {
    let decimals = if step > 0.0 && step.is_finite() {
        (-step.log10().floor()).clamp(0.0, 12.0) as usize
    } else {
        3
    };
    let text = format!("{value:.decimals$}");
    // No "-0".
    if text
        .trim_start_matches('-')
        .chars()
        .all(|c| c == '0' || c == '.')
    {
        return text.trim_start_matches('-').to_string();
    }
    text
}

/// Results longer than this many characters are shown by their ends.
const LONG_RESULT: usize = 160;

/// `= 28242294079…00000000 (456,574 digits)`: a long line's first and last
/// characters and how many digits it has.
fn shorten(line: &str) -> String {
    let chars: Vec<char> = line.chars().collect();
    if chars.len() <= LONG_RESULT {
        return line.to_string();
    }
    let digits = chars.iter().filter(|c| c.is_ascii_digit()).count();
    // Short enough for one line of the field at the window's usual width.
    let head: String = chars[..30].iter().collect();
    let tail: String = chars[chars.len() - 12..].iter().collect();
    let digits = crate::format::grouped(&digits.to_string(), ',');
    format!("{head}…{tail} ({digits} digits)")
}

fn notation_name(n: Notation) -> &'static str {
    match n {
        Notation::Auto => "auto",
        Notation::Scientific => "scientific",
        Notation::Engineering => "engineering",
        Notation::Fraction => "fraction",
    }
}

/// The most history lines kept.
const HISTORY_KEPT: usize = 1000;

/// Takes a press of `key` with no modifier at all (not Shift+`key`).
fn consume_plain(input: &mut egui::InputState, key: egui::Key) -> bool {
    let before = input.events.len();
    input.events.retain(|e| {
        !matches!(e, egui::Event::Key { key: k, pressed: true, modifiers, .. }
            if *k == key && modifiers.is_none())
    });
    input.events.len() != before
}
