//! The side panels: the tag cloud of the current result (a click adds the
//! tag's term to the query, a second click takes it out), and the focused
//! photo's metadata with the caption editor (saved to the catalogue, so it
//! is searchable at once; an unsaved edit is saved when the focus moves to
//! another photo rather than lost).

use eframe::egui;

use super::{SAVING, ViewerApp};
use crate::details::local_time;
use crate::tags::toggle_term;

impl ViewerApp {
    pub(super) fn tag_cloud(&mut self, ui: &mut egui::Ui) {
        let mut clicked = None;
        egui::ScrollArea::vertical()
            .id_salt("tags")
            .auto_shrink([false, false])
            .show(ui, |ui| {
                // Rows packed here rather than by `horizontal_wrapped`,
                // whose rows after a big tag kept its height: each row is
                // as tall as its own tallest tag.
                let pad = ui.spacing().button_padding;
                let gap = ui.spacing().item_spacing.x;
                let width = ui.available_width();
                // Each tag laid out once: measured here, drawn below.
                let galleys: Vec<std::sync::Arc<egui::Galley>> = self
                    .cloud
                    .iter()
                    .map(|tag| {
                        egui::WidgetText::from(
                            egui::RichText::new(&tag.text).size(tag_size(tag.weight)),
                        )
                        .into_galley(
                            ui,
                            Some(egui::TextWrapMode::Extend),
                            f32::INFINITY,
                            egui::TextStyle::Button,
                        )
                    })
                    .collect();
                let sizes: Vec<f32> = galleys.iter().map(|g| g.size().x + 2.0 * pad.x).collect();
                let mut start = 0;
                while start < self.cloud.len() {
                    let mut end = start + 1;
                    let mut used = sizes[start];
                    while end < self.cloud.len() && used + gap + sizes[end] <= width {
                        used += gap + sizes[end];
                        end += 1;
                    }
                    ui.horizontal(|ui| {
                        for (tag, galley) in self.cloud[start..end].iter().zip(&galleys[start..end])
                        {
                            let active = crate::tags::has_term(&self.query, &tag.term);
                            let text = egui::WidgetText::Galley(std::sync::Arc::clone(galley));
                            let from = tag
                                .sources
                                .iter()
                                .map(|k| k.source_text())
                                .collect::<Vec<_>>()
                                .join(" and ");
                            let hover = if active {
                                format!("{} · click to take it out of the query", tag.term)
                            } else if tag.exact {
                                format!(
                                    "{} photo{} · from {from} · {}",
                                    tag.count,
                                    if tag.count == 1 { "" } else { "s" },
                                    tag.term
                                )
                            } else {
                                format!("from {from} · {}", tag.term)
                            };
                            let response = ui.selectable_label(active, text).on_hover_text(hover);
                            if response.clicked() {
                                clicked = Some(tag.term.clone());
                            }
                        }
                    });
                    start = end;
                }
            });
        if let Some(term) = clicked {
            self.query = toggle_term(&self.query, &term);
            self.search();
        }
    }

    pub(super) fn metadata_panel(&mut self, ui: &mut egui::Ui) {
        let Some(i) = self.cursor.and_then(|c| self.rows.get(c)).copied() else {
            ui.label("Select a photo to see its details.");
            return;
        };
        let photo = self.library.photos[i as usize].clone();
        // An edit of another photo, left unsaved: save it now.
        if let Some((id, text)) = &self.caption_draft
            && *id != photo.id
        {
            self.searcher.set_caption(*id, text);
            self.caption_status = Some((*id, SAVING.to_owned()));
            self.caption_draft = None;
        }
        // Long names and folders wrap instead of widening the panel.
        ui.add(egui::Label::new(egui::RichText::new(&photo.name).heading()).wrap());
        let details = self.details.get(photo.id, &photo.path);
        let mut map_clicked = None;
        // The names' column is as wide as the longest name from the first
        // frame: a column that widened when a longer name arrived would
        // push the grid past the panel for a frame, and the panel keeps
        // the width it was pushed to (a column off the photo grid).
        egui::Grid::new("metadata")
            .num_columns(2)
            .min_col_width(NAME_COLUMN)
            .show(ui, |ui| {
                let (folder, _) = catalog::split_path(&photo.text_path);
                let mut row = |name: &str, value: String| {
                    ui.label(name);
                    ui.add(egui::Label::new(value).wrap());
                    ui.end_row();
                };
                row("Folder", folder.to_owned());
                row("Size", human_bytes(photo.size));
                let pixels = self
                    .thumbs
                    .get(&photo.id)
                    .map(|t| format!("{} × {}", t.full.0, t.full.1))
                    .or_else(|| {
                        details
                            .as_ref()
                            .and_then(|d| d.get("Pixels").map(str::to_owned))
                    });
                if let Some(p) = pixels {
                    row("Pixels", p);
                }
                match &details {
                    Some(d) => {
                        for (what, value) in &d.rows {
                            if *what != "Pixels" && *what != "Position" {
                                row(what, value.clone());
                            }
                        }
                    }
                    // Until the file is read: what the catalogue knows.
                    None => {
                        if !photo.date.is_empty() {
                            row("Taken", photo.date.clone());
                        }
                        if !photo.camera.is_empty() {
                            row("Camera", photo.camera.clone());
                        }
                    }
                }
                if photo.rating > 0 {
                    row(
                        "Your rating",
                        format!("{} of 5 (0–5 to change)", photo.rating),
                    );
                }
                if !photo.label.is_empty() {
                    row("Your label", photo.label.clone());
                }
                row("Modified", local_time(photo.mtime, &self.time_zone));
                // Only a change made here and not in the file yet: a mark
                // read from the file needs no word (it is in the file).
                if let Some(why) = &photo.unwritten {
                    row(
                        "Not yet written",
                        format!("{why}; kept here, written when possible (viewer2 write-sidecars)"),
                    );
                }
                let damage = self
                    .thumbs
                    .get(&photo.id)
                    .and_then(|t| t.problem.clone())
                    .or_else(|| self.loupe.as_ref().and_then(|l| l.problem_of(photo.id)));
                if let Some(reason) = self.broken.get(&photo.id).cloned().or(damage) {
                    row("Problem", reason);
                }
                if let Some(problem) = details.as_ref().and_then(|d| d.problem.clone()) {
                    row("Unreadable", problem);
                }
                if let Some(p) = details.as_ref().and_then(|d| d.position) {
                    ui.label("Position");
                    ui.vertical(|ui| {
                        // Wrapped, as every value: a line that cannot wrap
                        // would widen the panel and take a column off the grid.
                        ui.add(egui::Label::new(p.text()).wrap());
                        if ui
                            .link("Open map")
                            .on_hover_text("OpenStreetMap, in the browser")
                            .clicked()
                        {
                            map_clicked = Some(p.map_url());
                        }
                    });
                    ui.end_row();
                }
            });
        if let Some(url) = map_clicked
            && let Err(e) = self.launch.open_url(&url)
        {
            self.launch_error = Some((photo.id, format!("Cannot open the browser: {e}")));
        }
        if let Some((id, e)) = &self.launch_error
            && *id == photo.id
        {
            ui.colored_label(ui.visuals().error_fg_color, e);
        }
        ui.separator();
        let label = ui.label("Caption");
        // The caption is what goes into the file as `dc:description`: the
        // user's own, else the file's description, never the keywords and
        // other words the catalogue searches besides.
        // A file that cannot be read (not on disk) shows what the
        // catalogue read from it before.
        let base = match &details {
            _ if photo.caption_edited => photo.caption.clone(),
            Some(d) if d.problem.is_none() || d.get("Description").is_some() => {
                d.get("Description").map(str::to_owned).unwrap_or_default()
            }
            Some(_) => photo.caption.clone(),
            None => String::new(),
        };
        let mut text = match &self.caption_draft {
            Some((id, t)) if *id == photo.id => t.clone(),
            _ => base.clone(),
        };
        let response = ui
            .add(
                egui::TextEdit::multiline(&mut text)
                    .desired_rows(4)
                    .desired_width(f32::INFINITY)
                    .hint_text("words to find this photo by"),
            )
            .labelled_by(label.id);
        if response.changed() {
            self.caption_draft = Some((photo.id, text.clone()));
            self.caption_status = None;
        }
        let edited = text != base;
        let save_key = response.has_focus()
            && ui.input_mut(|i| i.consume_key(egui::Modifiers::COMMAND, egui::Key::Enter));
        ui.horizontal(|ui| {
            let save = ui
                .add_enabled(edited, egui::Button::new("Save caption"))
                .on_hover_text("into the catalogue and the photo's XMP sidecar (Ctrl+Enter)");
            if (save.clicked() || save_key) && edited {
                self.searcher.set_caption(photo.id, &text);
                self.caption_status = Some((photo.id, SAVING.to_owned()));
                self.caption_draft = Some((photo.id, text.clone()));
            }
            if let Some((id, s)) = &self.caption_status
                && *id == photo.id
            {
                ui.label(s);
            }
        });
        ui.separator();
        self.keyword_editor(ui, &photo);
        let tags: Vec<String> = self
            .library
            .tags
            .of(i as usize)
            .map(|t| t.text.clone())
            .collect();
        if !tags.is_empty() {
            ui.separator();
            ui.add(egui::Label::new(format!("Tags: {}", tags.join(", "))).wrap());
        }
    }
}

/// The details' names column: "Focal length", the longest name, fits.
const NAME_COLUMN: f32 = 80.0;

/// A tag's font size: 11 points for the rarest shown, 24 for the most
/// common.
fn tag_size(weight: f32) -> f32 {
    11.0 + 13.0 * weight
}

/// `1234567` → `1.2 MB`.
fn human_bytes(n: i64) -> String {
    let n = n.max(0) as f64;
    if n < 1e3 {
        format!("{n} bytes")
    } else if n < 1e6 {
        format!("{:.1} kB", n / 1e3)
    } else if n < 1e9 {
        format!("{:.1} MB", n / 1e6)
    } else {
        format!("{:.2} GB", n / 1e9)
    }
}
