//! The window, driven headless by egui_kittest: type into the expression
//! field, read the result field.

use std::time::{Duration, Instant};

use calculon::Calculator;
use calculon::app::CalculonApp;
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;

fn harness() -> Harness<'static, CalculonApp> {
    let ctx = eframe::egui::Context::default();
    harness_of(CalculonApp::new(&ctx, Calculator::default(), None))
}

fn harness_of(app: CalculonApp) -> Harness<'static, CalculonApp> {
    Harness::builder()
        .with_size(eframe::egui::vec2(700.0, 700.0))
        .build_ui_state(|ui, app: &mut CalculonApp| app.ui(ui), app)
}

/// A window with `text` typed into the expression field, answered.
fn typed(text: &str) -> Harness<'static, CalculonApp> {
    let mut h = harness();
    h.get_by_label("Expression").focus();
    h.get_by_label("Expression").type_text(text);
    settle(&mut h);
    h
}

/// Steps the UI until the worker has answered (or 30 s pass: a guard
/// against a hang, longer than the 10 s a line may take, since a plot
/// under that budget on a loaded machine can use all of it).
fn settle(h: &mut Harness<'static, CalculonApp>) {
    let start = Instant::now();
    loop {
        h.step();
        if !h.state().is_busy() {
            h.run_steps(2);
            // Settled only when those frames started no new work.
            if !h.state().is_busy() {
                return;
            }
        }
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "the worker did not answer"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
}

fn result(h: &Harness<'static, CalculonApp>) -> String {
    h.get_by_label("Result").value().unwrap_or_default()
}

#[test]
fn the_result_follows_the_expression() {
    let mut h = harness();
    h.get_by_label("Expression").focus();
    h.get_by_label("Expression").type_text("6/2(1+2)");
    settle(&mut h);
    assert_eq!(result(&h), "= 1");
    // The reading is shown with it.
    assert!(h.query_by_label_contains("6 / (2 × (1 + 2))").is_some());
    // More typing replaces the answer.
    h.get_by_label("Expression").type_text(" + 1");
    settle(&mut h);
    assert_eq!(result(&h), "= 2");
}

#[test]
fn a_pasted_column_gets_a_result_per_line_and_a_total() {
    let mut h = harness();
    h.get_by_label("Expression").focus();
    h.get_by_label("Expression").type_text("1,000.50\n2\n\n3/4");
    settle(&mut h);
    assert_eq!(result(&h), "= 1000.5\n= 2\n\n= 0.75");
    assert!(h.query_by_label_contains("total = 1003.25").is_some());
}

/// Currency signs in a pasted column are currencies, before or after the
/// number: a column of dollar amounts totals in dollars.
#[test]
fn currency_signs_in_a_column_are_currencies() {
    let mut h = harness();
    h.get_by_label("Expression").focus();
    h.get_by_label("Expression")
        .type_text("$1,000.50\n$2\n0.75 $\n€10 to $");
    settle(&mut h);
    assert_eq!(
        result(&h),
        "= 1000.5 $\n= 2 $\n= 0.75 $\n≈ 11.17 $ (ECB rates of 2026-10-30)"
    );
    assert!(
        h.query_by_label_contains("total ≈ 1014.42 $").is_some(),
        "the lines: {:?}",
        result(&h)
    );
}

/// In a narrow window the tool row wraps: every control stays on screen
/// (at the default 640 points the notation choice was cut off).
#[test]
fn the_tool_row_wraps_in_a_narrow_window() {
    let ctx = eframe::egui::Context::default();
    let app = CalculonApp::new(&ctx, Calculator::default(), None);
    let mut h = Harness::builder()
        .with_size(eframe::egui::vec2(520.0, 560.0))
        .build_ui_state(|ui, app: &mut CalculonApp| app.ui(ui), app);
    settle(&mut h);
    for label in [
        "Keep",
        "Digits",
        "Decimal comma",
        "Group digits",
        "Notation",
    ] {
        let rect = h.get_by_label(label).rect();
        assert!(
            rect.max.x <= 520.0 && rect.min.x >= 0.0,
            "{label} lies at {rect:?}, past the window's 520 points"
        );
    }
}

/// A column whose line converts money totals in the converted currency,
/// as the line shows it (not in the currency it was typed in).
#[test]
fn a_columns_total_is_in_the_units_its_lines_show() {
    let mut h = harness();
    h.get_by_label("Expression").focus();
    h.get_by_label("Expression")
        .type_text("100 USD to EUR\n20 EUR");
    settle(&mut h);
    assert!(
        h.query_by_label_contains("total ≈ 109.51 EUR").is_some(),
        "no total in euros; the lines: {:?}",
        result(&h)
    );
}

#[test]
fn the_root_button_and_keeping_a_definition() {
    let mut h = harness();
    h.get_by_label("Expression").focus();
    h.get_by_label("Expression").type_text("x = 16");
    settle(&mut h);
    h.get_by_label("Keep").click();
    settle(&mut h);
    assert_eq!(h.state().history().len(), 1);
    // The field is empty again; √ then x uses the kept definition.
    h.get_by_label("√").click();
    h.run_steps(2);
    h.get_by_label("Expression").type_text("x");
    settle(&mut h);
    assert_eq!(result(&h), "= 4");
}

#[test]
fn the_plot_button_draws_the_expression() {
    let mut h = harness();
    h.get_by_label("Expression").focus();
    h.get_by_label("Expression").type_text("tan(x)");
    settle(&mut h);
    h.get_by_label("Plot").click();
    settle(&mut h);
    // tan on -10..10 has six poles: seven pieces.
    assert_eq!(h.state().graph_segments(), Some(7));
}

#[test]
fn the_decimal_comma_switch_changes_how_numbers_read() {
    let mut h = harness();
    h.get_by_label("Expression").focus();
    h.get_by_label("Expression").type_text("1.234,5 * 2");
    settle(&mut h);
    assert!(result(&h).starts_with("error"), "{}", result(&h));
    h.get_by_label("Decimal comma").click();
    settle(&mut h);
    assert_eq!(result(&h), "= 2469");
}

/// The expression field has the keys at launch (no click first) and gets
/// them back after Esc: typing always goes into it.
#[test]
fn typing_goes_into_the_field_at_launch_and_after_escape() {
    let mut h = harness();
    h.run_steps(2);
    h.event(eframe::egui::Event::Text("2+3".into()));
    settle(&mut h);
    assert_eq!(result(&h), "= 5");
    h.key_press(eframe::egui::Key::Escape);
    h.run_steps(2);
    h.event(eframe::egui::Event::Text("*2".into()));
    settle(&mut h);
    assert_eq!(result(&h), "= 8");
}

/// Ctrl+Q asks the window to close (the binary then ends the process at
/// once: everything is saved as it is made).
#[test]
fn ctrl_q_quits() {
    let mut h = harness();
    h.run_steps(2);
    assert!(!h.state().quit_requested());
    h.key_press_modifiers(eframe::egui::Modifiers::COMMAND, eframe::egui::Key::Q);
    h.run_steps(1);
    assert!(h.state().quit_requested());
}

/// An expression in a free `x` is a function: the result says so (no
/// error) and its graph is drawn.
#[test]
fn an_expression_in_x_is_a_function_with_its_graph() {
    let h = typed("sin(x)/x");
    let shown = result(&h);
    assert_eq!(shown, "a function of x: its graph is below");
    assert!(h.query_by_label_contains("error").is_none());
    assert!(
        h.query_by_label_contains("sin(x)/x for x from -10 to 10")
            .is_some(),
        "no graph"
    );
}

/// While a newer line is worked on, the last line's answer goes (after a
/// moment): a stale answer is never shown as the new line's.
#[test]
fn a_stale_answer_never_shows_for_a_newer_line() {
    let mut h = typed("1+1");
    assert_eq!(result(&h), "= 2");
    // Slow to answer (over a second): a huge argument's sine.
    h.get_by_label("Expression").type_text("+sin(10^2000000)");
    for _ in 0..4 {
        std::thread::sleep(Duration::from_millis(80));
        h.step();
    }
    assert!(h.state().is_busy(), "answered too fast to tell");
    assert_eq!(result(&h), "", "the answer to 1+1 is still shown");
    assert!(h.query_by_label("calculating…").is_some());
}

/// The texts painted in the last frame.
fn painted(h: &Harness<'static, CalculonApp>) -> Vec<String> {
    h.output()
        .shapes
        .iter()
        .filter_map(|s| match &s.shape {
            eframe::egui::epaint::Shape::Text(t) => Some(t.galley.text().to_owned()),
            _ => None,
        })
        .collect()
}

/// The graph follows its expression: a new range gives new axes at once.
#[test]
fn the_graph_takes_the_range_of_its_line_at_once() {
    let mut h = typed("sin(x)/x");
    assert!(!painted(&h).iter().any(|t| t == "-30"));
    h.get_by_label("Expression").focus();
    h.key_press_modifiers(eframe::egui::Modifiers::COMMAND, eframe::egui::Key::A);
    h.get_by_label("Expression")
        .type_text("plot sin(x)/x from -30 to 30");
    settle(&mut h);
    h.run_steps(3);
    let texts = painted(&h);
    assert!(
        texts.iter().any(|t| t == "-30" || t == "-20"),
        "the axes stayed: {texts:?}"
    );
}

/// A long result shows its ends and how many digits it has, with Show all
/// and Copy (the whole result, also Ctrl+Shift+C).
#[test]
fn a_long_result_shows_its_ends_and_copies_whole() {
    let mut h = typed("3000!");
    let shown = result(&h);
    assert!(shown.chars().count() < 160, "{} characters", shown.len());
    assert!(shown.ends_with("(9,131 digits)"), "{shown}");
    h.get_by_label("Show all").click();
    h.run_steps(2);
    assert!(result(&h).len() > 9000);
    h.get_by_label("Copy").click();
    h.run_steps(1);
    let copied = h
        .output()
        .platform_output
        .commands
        .iter()
        .any(|c| matches!(c, eframe::egui::OutputCommand::CopyText(t) if t.len() > 9000));
    assert!(copied, "the whole result was not copied");
}

/// Digit grouping is on by default in the window and can be turned off;
/// the notation choice applies to lines that ask for no format.
#[test]
fn grouping_and_notation_settings() {
    let mut h = typed("1234567");
    assert_eq!(result(&h), "= 1\u{2009}234\u{2009}567");
    h.get_by_label("Group digits").click();
    settle(&mut h);
    assert_eq!(result(&h), "= 1234567");
    h.get_by_label("Notation").click();
    h.run_steps(2);
    h.get_by_label("scientific").click();
    settle(&mut h);
    assert_eq!(result(&h), "= 1.234567e6");
}

/// The history is kept across restarts, each line once (a definition kept
/// again replaces the older one), and a click puts a line back.
#[test]
fn the_history_survives_a_restart_and_keeps_each_line_once() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let file = dir.path().join("history.txt");
    let open = |file: &std::path::Path| {
        let ctx = eframe::egui::Context::default();
        harness_of(CalculonApp::new(&ctx, Calculator::default(), None).with_history(file.into()))
    };
    let mut h = open(&file);
    for line in ["f(x) = x^2", "2+2", "f(x) = x^2"] {
        h.get_by_label("Expression").focus();
        h.get_by_label("Expression").type_text(line);
        settle(&mut h);
        h.key_press(eframe::egui::Key::Enter);
        settle(&mut h);
    }
    let kept: Vec<String> = h
        .state()
        .history()
        .iter()
        .map(|e| e.expression.clone())
        .collect();
    assert_eq!(kept, ["2+2", "f(x) = x^2"]);
    drop(h);
    let mut h = open(&file);
    h.run_steps(2);
    let kept: Vec<String> = h
        .state()
        .history()
        .iter()
        .map(|e| e.expression.clone())
        .collect();
    assert_eq!(kept, ["2+2", "f(x) = x^2"], "not kept across a restart");
    h.get_by_label_contains("2+2").click();
    settle(&mut h);
    assert_eq!(result(&h), "= 4");
}

/// Tab completes the name before the cursor: the whole name when one
/// fits, the shared part and the choices when several do.
#[test]
fn tab_completes_names() {
    let mut h = harness();
    h.get_by_label("Expression").focus();
    h.get_by_label("Expression").type_text("sqr");
    h.run_steps(1);
    h.key_press(eframe::egui::Key::Tab);
    h.run_steps(1);
    // Typed straight on: the field kept the keys.
    h.event(eframe::egui::Event::Text("(16)".into()));
    settle(&mut h);
    assert_eq!(result(&h), "= 4");
    // Several names start "ta": the choices show.
    h.key_press_modifiers(eframe::egui::Modifiers::COMMAND, eframe::egui::Key::A);
    h.get_by_label("Expression").type_text("ta");
    h.run_steps(1);
    h.key_press(eframe::egui::Key::Tab);
    h.run_steps(2);
    assert!(
        h.query_by_label_contains("Tab: ").is_some(),
        "no choices shown"
    );
    assert!(
        h.query_by_label_contains("tanh").is_some(),
        "tanh is not a choice"
    );
}

/// Shift+Enter starts a new line (Enter alone keeps the lines), and what
/// is typed after Enter, before the kept lines' answer comes, stays in
/// the field.
#[test]
fn shift_enter_is_a_new_line_and_typing_after_enter_is_kept() {
    let mut h = typed("1+1");
    h.key_press_modifiers(eframe::egui::Modifiers::SHIFT, eframe::egui::Key::Enter);
    h.event(eframe::egui::Event::Text("2+2".into()));
    settle(&mut h);
    assert!(h.state().history().is_empty(), "Shift+Enter kept the line");
    assert_eq!(result(&h), "= 2\n= 4");
    // Enter on a slow line, then more typed while the worker keeps it.
    h.event(eframe::egui::Event::Text("+sin(10^100000)".into()));
    settle(&mut h);
    h.key_press(eframe::egui::Key::Enter);
    h.event(eframe::egui::Event::Text("7*6".into()));
    h.step();
    assert!(h.state().is_busy(), "kept too fast to tell");
    settle(&mut h);
    assert_eq!(h.state().history().len(), 2);
    assert_eq!(result(&h), "= 42", "what was typed after Enter was lost");
}

/// Several functions between commas share one graph, each in its colour
/// and named in a legend; with or without `plot … from … to …`.
#[test]
fn several_functions_share_one_graph() {
    let mut h = typed("sin x, cos x");
    assert!(result(&h).contains("function of x"), "{}", result(&h));
    assert_eq!(h.state().graph_functions(), ["sin x", "cos x"]);
    h.run_steps(2);
    let texts = painted(&h);
    assert!(
        texts.iter().any(|t| t == "sin x") && texts.iter().any(|t| t == "cos x"),
        "no legend: {texts:?}"
    );
    h.get_by_label("Expression").focus();
    h.key_press_modifiers(eframe::egui::Modifiers::COMMAND, eframe::egui::Key::A);
    h.get_by_label("Expression")
        .type_text("plot x^2, 2x, max(1, x) from 0 to 2");
    settle(&mut h);
    assert_eq!(h.state().graph_functions(), ["x^2", "2x", "max(1, x)"]);
}

/// The pointer over the graph shows its coordinates, and the axes are
/// marked with round numbers.
#[test]
fn the_pointer_shows_coordinates_and_axes_read_round() {
    let mut h = typed("plot x/3 from 0 to 1");
    h.run_steps(2);
    let hint = h.get_by_label("point at the graph for its coordinates");
    let below = hint.rect();
    // The graph is just above the hint: point at its middle.
    let at = eframe::egui::pos2(below.center().x, below.top() - 130.0);
    h.input_mut()
        .events
        .push(eframe::egui::Event::PointerMoved(at));
    h.run_steps(3);
    let texts = painted(&h);
    let shown = texts
        .iter()
        .find(|t| t.starts_with("x = "))
        .unwrap_or_else(|| panic!("no coordinates: {texts:?}"));
    let numbers: Vec<f64> = shown
        .split_whitespace()
        .filter_map(|w| w.parse().ok())
        .collect();
    assert_eq!(numbers.len(), 2, "{shown}");
    assert!((0.0..=1.0).contains(&numbers[0]), "{shown}");
    // Axis marks: short decimals, never float noise such as 0.30000000000000004.
    for t in &texts {
        if let Ok(v) = t.parse::<f64>() {
            let decimals = t.split_once('.').map_or(0, |(_, d)| d.len());
            assert!(decimals <= 3, "{t} ({v}) is not a round label");
        }
    }
}

/// The Names button (or F1) opens a searchable list of every function,
/// constant and unit with its definition; a click puts the name into the
/// expression, where typing goes on.
#[test]
fn the_list_of_names_searches_and_inserts() {
    let mut h = typed("2 ");
    h.get_by_label("Names").click();
    h.run_steps(2);
    h.get_by_label("Search names").type_text("boltzmann");
    h.run_steps(2);
    h.get_by_label_contains("k_B (boltzmann, boltzmann_constant) — 1.380649e-23 J/K")
        .click();
    h.run_steps(2);
    h.get_by_label("Expression").type_text(" * 300 K");
    settle(&mut h);
    assert_eq!(
        h.get_by_label("Expression").value().as_deref(),
        Some("2 k_B * 300 K")
    );
    assert!(
        result(&h).contains("8283894") && result(&h).ends_with(" J"),
        "{}",
        result(&h)
    );
    assert!(
        h.query_by_label("Search names").is_none(),
        "the list stayed open"
    );
    // F1 opens it too; a function goes in with its parenthesis.
    h.key_press(eframe::egui::Key::F1);
    h.run_steps(2);
    h.get_by_label("Search names")
        .type_text("inverse hyperbolic");
    h.run_steps(2);
    h.get_by_label_contains("inverse hyperbolic functions")
        .click();
    h.run_steps(2);
    assert_eq!(
        h.get_by_label("Expression").value().as_deref(),
        Some("2 k_B * 300 Kasinh(")
    );
}

/// Issue 45 item 6: `x^x^x^x` typed in the window once left it "drawing…"
/// for over 20 s at 845 MB; its graph is drawn (points beyond the float
/// range are gaps) and nothing is left waiting.
#[test]
fn a_tower_of_powers_is_drawn_not_left_drawing() {
    let h = typed("x^x^x^x");
    assert!(!h.state().is_busy());
    assert!(h.state().graph_segments().is_some_and(|n| n > 0));
    assert!(h.query_by_label_contains("drawing").is_none());
}

#[test]
fn what_the_line_left_open_or_read_by_case_is_said_in_the_window() {
    // Issue 49: the end of the line closes a parenthesis and says so; a
    // data size typed in other case says how it was read; units that
    // cancel are left out of the result shown.
    let h = typed("2*(1+3");
    assert_eq!(result(&h), "= 8 (the end of the line closed a parenthesis)");
    let h = typed("5 KB to bit");
    assert_eq!(result(&h), "= 40\u{2009}000 bit (KB read as kilobytes, kB)");
    let h = typed("c/(145MHz) to 5 sf");
    assert_eq!(result(&h), "≈ 2.0675 m");
    let h = typed("5(6)");
    assert_eq!(result(&h), "= 30");
}
