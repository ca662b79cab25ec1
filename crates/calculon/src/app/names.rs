//! The list of names: every function, constant, unit and definition with
//! what it means, searched as one types; a click puts the name into the
//! expression.

use eframe::egui;

use crate::{Entry, EntryKind};

/// At most this many entries are drawn at once; the rest are counted.
const SHOWN: usize = 300;

/// The open list: the search typed and the entries it searches.
pub(crate) struct NamesList {
    pub(crate) query: String,
    entries: Vec<Entry>,
    /// Focus the search field on the first frame.
    fresh: bool,
}

impl NamesList {
    /// The list of `entries`, each name kept only where the window's
    /// fonts can draw it (`ℎ` has no glyph in egui's own fonts; `hbar`
    /// and `h_planck` say the same).
    pub(crate) fn new(ctx: &egui::Context, entries: Vec<Entry>) -> Self {
        let font = egui::TextStyle::Button.resolve(&ctx.global_style());
        let drawable = |text: &str| ctx.fonts_mut(|f| f.has_glyphs(&font, text));
        let entries = entries
            .into_iter()
            .filter_map(|mut e| {
                let names: Vec<&str> = e.names.split(", ").filter(|n| drawable(n)).collect();
                let first = names.first()?.to_string();
                if !drawable(&e.usage) {
                    e.usage = first;
                }
                e.names = names.join(", ");
                if !drawable(&e.definition) {
                    e.definition = e
                        .definition
                        .chars()
                        .map(|c| {
                            if drawable(c.encode_utf8(&mut [0; 4])) {
                                c
                            } else {
                                '?'
                            }
                        })
                        .collect();
                }
                Some(e)
            })
            .collect();
        NamesList {
            query: String::new(),
            entries,
            fresh: true,
        }
    }

    /// Draws the list in its own window; what the user picked to insert,
    /// and whether the window stays open.
    pub(crate) fn show(&mut self, ctx: &egui::Context) -> (Option<String>, bool) {
        let mut open = true;
        let mut picked = None;
        // At the right, below the fields: the expression stays in view.
        let screen = ctx.content_rect();
        egui::Window::new("Names")
            .open(&mut open)
            .pivot(egui::Align2::RIGHT_TOP)
            .default_pos(screen.right_top() + egui::vec2(-12.0, 150.0))
            .default_width(460.0)
            .default_height(420.0)
            .show(ctx, |ui| {
                let label = ui.label("Search names");
                let search = ui
                    .add(
                        egui::TextEdit::singleline(&mut self.query)
                            .hint_text("sin, light year, boltzmann, USD …")
                            .desired_width(f32::INFINITY),
                    )
                    .labelled_by(label.id);
                if self.fresh {
                    search.request_focus();
                    self.fresh = false;
                }
                let found: Vec<&Entry> = self
                    .entries
                    .iter()
                    .filter(|e| e.matches(&self.query))
                    .collect();
                ui.label(
                    egui::RichText::new(format!("{} of {} names", found.len(), self.entries.len()))
                        .weak(),
                );
                egui::ScrollArea::vertical().show(ui, |ui| {
                    let mut last_kind = None;
                    for entry in found.iter().take(SHOWN) {
                        if last_kind != Some(entry.kind) {
                            ui.label(egui::RichText::new(kind_name(entry.kind)).strong());
                            last_kind = Some(entry.kind);
                        }
                        let others: Vec<&str> = entry
                            .names
                            .split(", ")
                            .filter(|n| {
                                *n != entry.usage && !entry.usage.starts_with(&format!("{n}("))
                            })
                            .collect();
                        let text = if others.is_empty() {
                            format!("{} — {}", entry.usage, entry.definition)
                        } else {
                            format!(
                                "{} ({}) — {}",
                                entry.usage,
                                others.join(", "),
                                entry.definition
                            )
                        };
                        if ui
                            .add(egui::Button::new(text).wrap().frame(false))
                            .on_hover_text("put it into the expression")
                            .clicked()
                        {
                            picked = Some(insertion(entry));
                        }
                    }
                    if found.len() > SHOWN {
                        ui.label(format!(
                            "… and {} more: type to narrow",
                            found.len() - SHOWN
                        ));
                    }
                });
            });
        let stays = open && picked.is_none();
        (picked, stays)
    }
}

/// What a pick puts into the expression: a function with its
/// parenthesis open, anything else as its name.
fn insertion(entry: &Entry) -> String {
    match entry.kind {
        EntryKind::Function => {
            let name = entry.usage.split('(').next().unwrap_or(&entry.usage);
            format!("{name}(")
        }
        _ => entry.usage.clone(),
    }
}

fn kind_name(kind: EntryKind) -> &'static str {
    match kind {
        EntryKind::Yours => "Your definitions",
        EntryKind::Function => "Functions",
        EntryKind::Constant => "Constants",
        EntryKind::Unit => "Units and currencies",
    }
}
