//! File operations in the window: Delete moves to the Trash, F2 renames,
//! 0–5 rate, 6–9 label (red, yellow, green, blue; again takes it off),
//! Move to and Copy to choose a folder in a dialog, [ and ] turn a JPEG,
//! open with the default application, show in the file manager; all on
//! the right-click menu and the main menu. Ctrl+Z takes back the last
//! change, as many times as there were changes while the window is open.
//!
//! The operations run on the catalogue thread ([`crate::edits`]); the
//! window shows what happened, or, naming the file, why not.

use std::path::{Path, PathBuf};

use catalog::FileId;
use eframe::egui;

use super::ViewerApp;
use crate::edits::{Done, FileOp};

/// The rename dialog.
pub(super) struct RenameDialog {
    id: FileId,
    text: String,
    /// Why the last try failed.
    error: Option<String>,
    /// Focus the field (the first frame).
    focus: bool,
    /// A rename is on its way.
    waiting: bool,
}

/// The folder dialog of Move to and Copy to.
pub(super) struct FolderDialog {
    ids: Vec<FileId>,
    copy: bool,
    /// The folder chosen so far, as typed or clicked.
    path: String,
    /// Its subfolders, read when the path changed.
    listed: Option<(String, Result<Vec<String>, String>)>,
}

/// The file operations' state.
#[derive(Default)]
pub(super) struct Files {
    /// What Ctrl+Z takes back, newest last: (what, how).
    undo: Vec<(String, FileOp)>,
    /// Operations on their way, and whether each is an undo.
    in_flight: Vec<bool>,
    /// The last outcome, and whether it is an error.
    status: Option<(String, bool)>,
    pub(super) rename: Option<RenameDialog>,
    pub(super) folder: Option<FolderDialog>,
}

impl Files {
    /// Whether an operation is on its way.
    pub(super) fn is_busy(&self) -> bool {
        !self.in_flight.is_empty()
    }
}

impl ViewerApp {
    /// The photos an action applies to: the selection when the focused
    /// photo is in it, else the focused photo.
    pub(super) fn targets(&self) -> Vec<FileId> {
        let Some(focus) = self.focused_id() else {
            return Vec::new();
        };
        if self.selected.contains(&focus) {
            // In the order shown.
            self.rows
                .iter()
                .map(|&r| self.library.photos[r as usize].id)
                .filter(|id| self.selected.contains(id))
                .collect()
        } else {
            vec![focus]
        }
    }

    pub(super) fn send_edit(&mut self, op: FileOp, is_undo: bool) {
        self.files.in_flight.push(is_undo);
        self.searcher.edit(op);
    }

    /// Moves the photos to the Trash.
    pub(super) fn trash_targets(&mut self) {
        let ids = self.targets();
        if !ids.is_empty() {
            self.send_edit(FileOp::Trash(ids), false);
        }
    }

    /// Turns the photos a quarter (negative: anticlockwise).
    pub(super) fn rotate_targets(&mut self, quarters: i32) {
        let ids = self.targets();
        if !ids.is_empty() {
            self.send_edit(FileOp::Rotate { ids, quarters }, false);
        }
    }

    /// Gives the photos `stars` (0 takes them off).
    pub(super) fn rate_targets(&mut self, stars: u8) {
        let ids = self.targets();
        if !ids.is_empty() {
            self.send_edit(
                FileOp::Mark {
                    ids,
                    rating: Some(stars),
                    label: None,
                },
                false,
            );
        }
    }

    /// Labels the photos; if every one has that label already, takes it
    /// off (a second press undoes the first, as in Lightroom).
    pub(super) fn label_targets(&mut self, label: &str) {
        let ids = self.targets();
        if ids.is_empty() {
            return;
        }
        let all_have = ids.iter().all(|&id| {
            self.library
                .index_of(id)
                .is_some_and(|i| self.library.photos[i as usize].label == label)
        });
        let label = if all_have { "" } else { label };
        self.send_edit(
            FileOp::Mark {
                ids,
                rating: None,
                label: Some(label.to_owned()),
            },
            false,
        );
    }

    /// Takes back the last change.
    pub(super) fn undo(&mut self) {
        match self.files.undo.pop() {
            Some((_, op)) => self.send_edit(op, true),
            None => self.files.status = Some(("Nothing to undo".to_owned(), false)),
        }
    }

    /// Opens the rename dialog on the focused photo.
    pub(super) fn start_rename(&mut self) {
        let Some(id) = self.focused_id() else { return };
        let Some(i) = self.library.index_of(id) else {
            return;
        };
        self.files.rename = Some(RenameDialog {
            id,
            text: self.library.photos[i as usize].name.clone(),
            error: None,
            focus: true,
            waiting: false,
        });
    }

    /// Opens the folder dialog for the photos, starting at the focused
    /// photo's folder.
    pub(super) fn start_move(&mut self, copy: bool) {
        let ids = self.targets();
        let Some(first) = ids.first().and_then(|&id| self.library.index_of(id)) else {
            return;
        };
        let start = self.library.photos[first as usize]
            .path
            .parent()
            .map(|p| p.display().to_string())
            .unwrap_or_default();
        self.files.folder = Some(FolderDialog {
            ids,
            copy,
            path: start,
            listed: None,
        });
    }

    /// The focused photo's path.
    fn focused_path(&self) -> Option<PathBuf> {
        let i = self.library.index_of(self.focused_id()?)?;
        Some(self.library.photos[i as usize].path.clone())
    }

    /// Opens the focused photo with the desktop's default application.
    pub(super) fn open_with_default(&mut self) {
        if let Some(p) = self.focused_path()
            && let Err(e) = self.launch.open_file(&p)
        {
            self.files.status = Some((format!("Cannot open “{}”: {e}", p.display()), true));
        }
    }

    /// Shows the focused photo in the file manager.
    pub(super) fn show_in_folder(&mut self) {
        if let Some(p) = self.focused_path()
            && let Err(e) = self.launch.show_in_folder(&p)
        {
            self.files.status = Some((
                format!("Cannot show “{}” in the file manager: {e}", p.display()),
                true,
            ));
        }
    }

    /// An operation is over.
    pub(super) fn edited(&mut self, done: Done) {
        let was_undo = if self.files.in_flight.is_empty() {
            false
        } else {
            self.files.in_flight.remove(0)
        };
        if !was_undo && let Some(step) = done.undo.clone() {
            self.files.undo.push(step);
        }
        for &id in &done.changed {
            self.forget_picture(id);
        }
        // Their sidecar or file now holds other values: shown afresh.
        for &id in &done.reread {
            self.details.forget(id);
        }
        let mut text = done.message.clone();
        for e in &done.errors {
            if !text.is_empty() {
                text.push_str(" · ");
            }
            text.push_str(e);
        }
        if let Some(r) = &mut self.files.rename
            && r.waiting
        {
            r.waiting = false;
            if done.errors.is_empty() {
                self.files.rename = None;
            } else {
                r.error = Some(done.errors.join("\n"));
            }
        }
        self.files.status = (!text.is_empty()).then_some((text, !done.errors.is_empty()));
    }

    /// Photo `id`'s file changed in place: its thumbnail and loupe picture
    /// are made again.
    fn forget_picture(&mut self, id: FileId) {
        self.atlas.remove(id as u64);
        self.thumbs.remove(&id);
        self.wanted.clear();
        self.details.forget(id);
        if let Some(l) = &mut self.loupe {
            l.forget(id);
        }
    }

    /// Delete, Ctrl+Z, F2, [ and ], anywhere but in a text field.
    pub(super) fn file_keys(&mut self, ctx: &egui::Context) {
        if ctx.egui_wants_keyboard_input() || self.on_table {
            return;
        }
        const STARS: [egui::Key; 6] = [
            egui::Key::Num0,
            egui::Key::Num1,
            egui::Key::Num2,
            egui::Key::Num3,
            egui::Key::Num4,
            egui::Key::Num5,
        ];
        const COLOURS: [egui::Key; 4] = [
            egui::Key::Num6,
            egui::Key::Num7,
            egui::Key::Num8,
            egui::Key::Num9,
        ];
        let (delete, undo, rename, left, right, stars, colour) = ctx.input_mut(|i| {
            (
                i.consume_key(egui::Modifiers::NONE, egui::Key::Delete),
                i.consume_key(egui::Modifiers::COMMAND, egui::Key::Z),
                i.consume_key(egui::Modifiers::NONE, egui::Key::F2),
                i.consume_key(egui::Modifiers::NONE, egui::Key::OpenBracket),
                i.consume_key(egui::Modifiers::NONE, egui::Key::CloseBracket),
                STARS
                    .iter()
                    .position(|&k| i.consume_key(egui::Modifiers::NONE, k)),
                COLOURS
                    .iter()
                    .position(|&k| i.consume_key(egui::Modifiers::NONE, k)),
            )
        });
        if let Some(n) = stars {
            self.rate_targets(n as u8);
        }
        if let Some(c) = colour {
            self.label_targets(catalog::LABELS[c]);
        }
        if delete {
            self.trash_targets();
        }
        if undo {
            self.undo();
        }
        if rename {
            self.start_rename();
        }
        if left {
            self.rotate_targets(-1);
        }
        if right {
            self.rotate_targets(1);
        }
    }

    /// The file actions, for the right-click and main menus.
    pub(super) fn file_actions(&mut self, ui: &mut egui::Ui) {
        let any = self.focused_id().is_some();
        let n = self.targets().len();
        let many = if n > 1 {
            format!(" {n} photos")
        } else {
            String::new()
        };
        let item = |ui: &mut egui::Ui, text: &str, key: &str| {
            let button = if key.is_empty() {
                egui::Button::new(text)
            } else {
                egui::Button::new(text).shortcut_text(key)
            };
            ui.add_enabled(any, button).clicked()
        };
        if item(ui, "Rename…", "F2") {
            self.start_rename();
            ui.close();
        }
        if item(ui, &format!("Move{many} to…"), "") {
            self.start_move(false);
            ui.close();
        }
        if item(ui, &format!("Copy{many} to…"), "") {
            self.start_move(true);
            ui.close();
        }
        if item(ui, "Turn left", "[") {
            self.rotate_targets(-1);
            ui.close();
        }
        if item(ui, "Turn right", "]") {
            self.rotate_targets(1);
            ui.close();
        }
        if item(ui, "Open with the default application", "") {
            self.open_with_default();
            ui.close();
        }
        if item(ui, "Show in the file manager", "") {
            self.show_in_folder();
            ui.close();
        }
        ui.add_enabled_ui(any, |ui| {
            ui.menu_button("Rating", |ui| {
                for stars in 0..=5u8 {
                    let text = if stars == 0 {
                        "No stars".to_owned()
                    } else {
                        format!("{stars} star{}", if stars == 1 { "" } else { "s" })
                    };
                    if ui
                        .add(egui::Button::new(text).shortcut_text(stars.to_string()))
                        .clicked()
                    {
                        self.rate_targets(stars);
                        ui.close();
                    }
                }
            });
            ui.menu_button("Label", |ui| {
                for (k, label) in catalog::LABELS.iter().enumerate() {
                    let mut button = egui::Button::new(*label);
                    if k < 4 {
                        button = button.shortcut_text((k + 6).to_string());
                    }
                    if ui.add(button).clicked() {
                        self.label_targets(label);
                        ui.close();
                    }
                }
                if ui.button("No label").clicked() {
                    let ids = self.targets();
                    self.send_edit(
                        FileOp::Mark {
                            ids,
                            rating: None,
                            label: Some(String::new()),
                        },
                        false,
                    );
                    ui.close();
                }
            });
        });
        if item(ui, &format!("Move{many} to the Trash"), "Delete") {
            self.trash_targets();
            ui.close();
        }
        let last = self.files.undo.last().map(|(what, _)| what.clone());
        let undo = ui.add_enabled(
            last.is_some(),
            egui::Button::new(match &last {
                Some(what) => format!("Undo {what}"),
                None => "Undo".to_owned(),
            })
            .shortcut_text("Ctrl+Z"),
        );
        if undo.clicked() {
            self.undo();
            ui.close();
        }
    }

    /// The last outcome, for the status bar.
    pub(super) fn file_status(&self, ui: &mut egui::Ui) {
        if let Some((text, error)) = &self.files.status {
            ui.separator();
            let label = egui::Label::new(text.as_str()).truncate();
            if *error {
                ui.scope(|ui| {
                    ui.visuals_mut().override_text_color = Some(ui.visuals().error_fg_color);
                    ui.add(label);
                });
            } else {
                ui.add(label);
            }
        }
    }

    /// The rename and folder dialogs, when open.
    pub(super) fn file_dialogs(&mut self, ctx: &egui::Context) {
        self.rename_dialog(ctx);
        self.folder_dialog(ctx);
    }

    fn rename_dialog(&mut self, ctx: &egui::Context) {
        let Some(r) = &mut self.files.rename else {
            return;
        };
        let mut open = true;
        let mut apply = false;
        egui::Window::new("Rename")
            .open(&mut open)
            .collapsible(false)
            .resizable(false)
            .anchor(egui::Align2::CENTER_CENTER, egui::Vec2::ZERO)
            .show(ctx, |ui| {
                let label = ui.label("New name");
                let mut output = egui::TextEdit::singleline(&mut r.text)
                    .desired_width(360.0)
                    .show(ui);
                let edit = output.response.response.clone().labelled_by(label.id);
                if r.focus {
                    edit.request_focus();
                    r.focus = false;
                    // The name without its extension is selected, as file
                    // managers do: typing replaces it and keeps `.jpg`.
                    let stem = crate::fileops::stem_chars(&r.text);
                    output
                        .state
                        .cursor
                        .set_char_range(Some(egui::text::CCursorRange::two(
                            egui::text::CCursor::new(0),
                            egui::text::CCursor::new(stem),
                        )));
                    output.state.store(ui.ctx(), edit.id);
                }
                if edit.lost_focus() && ui.input(|i| i.key_pressed(egui::Key::Enter)) {
                    apply = true;
                }
                if let Some(e) = &r.error {
                    ui.colored_label(ui.visuals().error_fg_color, e);
                }
                ui.horizontal(|ui| {
                    if ui
                        .add_enabled(!r.waiting, egui::Button::new("Rename"))
                        .clicked()
                    {
                        apply = true;
                    }
                    if ui.button("Cancel").clicked() {
                        r.waiting = false;
                        r.error = None;
                        r.text.clear();
                        r.id = -1;
                    }
                });
            });
        let cancelled = r.id < 0 || !open || ctx.input(|i| i.key_pressed(egui::Key::Escape));
        if cancelled {
            self.files.rename = None;
            return;
        }
        if apply {
            match crate::fileops::check_name(r.text.trim()) {
                Ok(()) => {
                    r.error = None;
                    r.waiting = true;
                    let op = FileOp::Rename {
                        id: r.id,
                        name: r.text.trim().to_owned(),
                    };
                    self.send_edit(op, false);
                }
                Err(e) => r.error = Some(e.0),
            }
        }
    }

    fn folder_dialog(&mut self, ctx: &egui::Context) {
        let Some(d) = &mut self.files.folder else {
            return;
        };
        if d.listed.as_ref().is_none_or(|(p, _)| *p != d.path) {
            d.listed = Some((d.path.clone(), subfolders(Path::new(&d.path))));
        }
        let title = if d.copy {
            "Copy to a folder"
        } else {
            "Move to a folder"
        };
        let mut open = true;
        let mut chosen = None;
        let mut cancel = false;
        egui::Window::new(title)
            .open(&mut open)
            .collapsible(false)
            .resizable(true)
            .default_size([480.0, 360.0])
            .anchor(egui::Align2::CENTER_CENTER, egui::Vec2::ZERO)
            .show(ctx, |ui| {
                ui.horizontal(|ui| {
                    if ui.button("Up").on_hover_text("the folder above").clicked()
                        && let Some(up) = Path::new(&d.path).parent()
                    {
                        d.path = up.display().to_string();
                    }
                    let label = ui.label("Destination");
                    ui.add(egui::TextEdit::singleline(&mut d.path).desired_width(f32::INFINITY))
                        .labelled_by(label.id);
                });
                egui::ScrollArea::vertical()
                    .max_height(240.0)
                    .auto_shrink([false, true])
                    .show(ui, |ui| match d.listed.as_ref().map(|(_, l)| l) {
                        Some(Ok(names)) if names.is_empty() => {
                            ui.weak("No folders inside");
                        }
                        Some(Ok(names)) => {
                            for name in names {
                                if ui.selectable_label(false, format!("{name}/")).clicked() {
                                    d.path = Path::new(&d.path).join(name).display().to_string();
                                }
                            }
                        }
                        Some(Err(e)) => {
                            ui.colored_label(ui.visuals().error_fg_color, e);
                        }
                        None => {}
                    });
                ui.separator();
                ui.horizontal(|ui| {
                    let ok = matches!(d.listed, Some((_, Ok(_))));
                    let verb = if d.copy { "Copy here" } else { "Move here" };
                    if ui.add_enabled(ok, egui::Button::new(verb)).clicked() {
                        chosen = Some(PathBuf::from(&d.path));
                    }
                    if ui.button("Cancel").clicked() {
                        cancel = true;
                    }
                });
            });
        if cancel || !open {
            self.files.folder = None;
            return;
        }
        if let Some(to) = chosen {
            let op = if d.copy {
                FileOp::Copy {
                    ids: d.ids.clone(),
                    to,
                }
            } else {
                FileOp::Move {
                    ids: d.ids.clone(),
                    to,
                }
            };
            self.files.folder = None;
            self.send_edit(op, false);
        }
    }
}

/// The folders inside `dir`, by name (hidden ones left out), at most 2,000.
fn subfolders(dir: &Path) -> Result<Vec<String>, String> {
    let entries = std::fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let mut names: Vec<String> = entries
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| !n.starts_with('.'))
        .take(2000)
        .collect();
    names.sort_by_key(|n| n.to_lowercase());
    Ok(names)
}
