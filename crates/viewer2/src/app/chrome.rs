//! The window's chrome: the menu that reaches every action, the keyboard
//! shortcuts (F1 or ?), About, full screen (F11) and hiding the panels
//! (Tab: the loupe then shows the photo alone on black).

use eframe::egui;

use super::ViewerApp;

/// Every shortcut, by where it works: (keys, what they do).
pub const SHORTCUTS: &[(&str, &[(&str, &str)])] = &[
    (
        "Anywhere",
        &[
            ("/", "search"),
            ("F1 or ?", "these shortcuts"),
            ("F9", "folders or tags in the side panel"),
            ("F11", "full screen"),
            ("Tab", "hide or show the panels"),
            ("Ctrl+Q", "quit"),
        ],
    ),
    (
        "Grid",
        &[
            ("Arrows, Page Up, Page Down, Home, End", "move"),
            ("Shift+arrows, Shift+click", "extend the selection"),
            ("Ctrl+click", "add to the selection or take out"),
            ("Ctrl+A", "select all"),
            ("Enter, double-click", "open in the loupe"),
            ("Backspace, Alt+Up", "the folder above"),
            ("S", "slideshow from the photo"),
        ],
    ),
    (
        "Grid and loupe",
        &[
            ("Delete", "move to the Trash"),
            ("Ctrl+Z", "undo the last change to a file"),
            ("F2", "rename"),
            ("[, ]", "turn left, right (JPEG, without loss)"),
            ("0 to 5", "stars (0 takes them off)"),
            ("6, 7, 8, 9", "label red, yellow, green, blue (again: off)"),
            (
                "Right-click",
                "move, copy, open with, show in the file manager",
            ),
        ],
    ),
    (
        "Loupe",
        &[
            ("Left, Right", "previous, next photo"),
            ("+, −, mouse wheel", "zoom"),
            ("F or X", "fit the window"),
            ("W", "fill the window"),
            ("Z", "one photo pixel per screen pixel"),
            ("S", "start or stop the slideshow"),
            ("Esc, Enter, double-click", "back to the grid"),
        ],
    ),
    (
        "Light table",
        &[
            ("Drag, mouse wheel, arrows, +, −", "move and zoom the view"),
            ("Home", "fit everything"),
            ("G, D, P", "arrange as a grid, by date, in a pile"),
            ("S", "group the selection"),
            ("Enter", "open the photo in the loupe"),
        ],
    ),
];

/// What the chrome shows.
#[derive(Default)]
pub(super) struct Chrome {
    /// The shortcuts window is open.
    pub(super) help: bool,
    /// The About window is open.
    pub(super) about: bool,
    /// The window fills the screen.
    pub(super) full_screen: bool,
    /// The side panels and the status bar are hidden (and, in the loupe,
    /// the search bar and the loupe's own bar: the photo alone).
    pub(super) panels_hidden: bool,
}

impl ViewerApp {
    /// The keys that work anywhere but in a text field.
    pub(super) fn chrome_keys(&mut self, ctx: &egui::Context) {
        let typing = ctx.egui_wants_keyboard_input();
        let (help, full_screen, tab, side) = ctx.input_mut(|i| {
            let help = i.consume_key(egui::Modifiers::NONE, egui::Key::F1)
                || (!typing && i.consume_key(egui::Modifiers::SHIFT, egui::Key::Questionmark))
                || (!typing && i.consume_key(egui::Modifiers::NONE, egui::Key::Questionmark));
            let full = i.consume_key(egui::Modifiers::NONE, egui::Key::F11);
            let tab = !typing && i.consume_key(egui::Modifiers::NONE, egui::Key::Tab);
            let side = i.consume_key(egui::Modifiers::NONE, egui::Key::F9);
            (help, full, tab, side)
        });
        if side {
            // As a file manager's F9: the panel shows, with the other view.
            if self.chrome.panels_hidden {
                self.chrome.panels_hidden = false;
            } else {
                self.show_folders = !self.show_folders;
            }
        }
        if help {
            self.chrome.help = !self.chrome.help;
        }
        if full_screen {
            self.toggle_full_screen(ctx);
        }
        if tab {
            self.chrome.panels_hidden = !self.chrome.panels_hidden;
            // egui took Tab as a move of the keyboard focus to the next
            // widget (done as widgets are laid out): cancel it, so the
            // search box or a button does not take the keys from here on.
            ctx.memory_mut(|m| {
                m.move_focus(egui::FocusDirection::None);
                if let Some(id) = m.focused() {
                    m.surrender_focus(id);
                }
            });
        }
        if self.chrome.help && !typing && ctx.input(|i| i.key_pressed(egui::Key::Escape)) {
            self.chrome.help = false;
            ctx.input_mut(|i| i.consume_key(egui::Modifiers::NONE, egui::Key::Escape));
        }
    }

    pub(super) fn toggle_full_screen(&mut self, ctx: &egui::Context) {
        self.chrome.full_screen = !self.chrome.full_screen;
        ctx.send_viewport_cmd(egui::ViewportCommand::Fullscreen(self.chrome.full_screen));
    }

    /// Whether the window fills the screen.
    pub fn is_full_screen(&self) -> bool {
        self.chrome.full_screen
    }

    /// Whether the panels are hidden (Tab).
    pub fn panels_hidden(&self) -> bool {
        self.chrome.panels_hidden
    }

    /// The menu button and what it reaches.
    pub(super) fn menu(&mut self, ui: &mut egui::Ui) {
        ui.menu_button("Menu", |ui| {
            if ui.button("Grid").clicked() {
                self.on_table = false;
                self.loupe = None;
                ui.close();
            }
            if ui.button("Light table").clicked() {
                self.on_table = true;
                self.loupe = None;
                ui.close();
            }
            let can_open = self.cursor.is_some();
            if ui
                .add_enabled(
                    can_open,
                    egui::Button::new("Open in the loupe").shortcut_text("Enter"),
                )
                .clicked()
            {
                if let Some(c) = self.cursor {
                    self.open_loupe(c);
                }
                ui.close();
            }
            if ui
                .add_enabled(
                    !self.rows.is_empty(),
                    egui::Button::new("Slideshow").shortcut_text("S"),
                )
                .clicked()
            {
                self.start_slideshow();
                ui.close();
            }
            ui.menu_button("Photo", |ui| self.file_actions(ui));
            ui.menu_button("Group by", |ui| {
                for g in crate::library::Grouping::ALL {
                    if ui
                        .add(egui::Button::new(g.label()).selected(self.grouping == g))
                        .clicked()
                    {
                        self.set_grouping(g);
                        self.search();
                        ui.close();
                    }
                }
            });
            ui.separator();
            if ui
                .add(
                    egui::Button::new("Full screen")
                        .shortcut_text("F11")
                        .selected(self.chrome.full_screen),
                )
                .clicked()
            {
                self.toggle_full_screen(ui.ctx());
                ui.close();
            }
            if ui
                .add(
                    egui::Button::new("Folders in the side panel")
                        .shortcut_text("F9")
                        .selected(self.show_folders),
                )
                .clicked()
            {
                self.show_folders = !self.show_folders;
                ui.close();
            }
            if ui
                .add(
                    egui::Button::new("Hide the panels")
                        .shortcut_text("Tab")
                        .selected(self.chrome.panels_hidden),
                )
                .clicked()
            {
                self.chrome.panels_hidden = !self.chrome.panels_hidden;
                ui.close();
            }
            if ui.button("Search").clicked() {
                self.focus_search = true;
                ui.close();
            }
            ui.separator();
            if ui
                .add(egui::Button::new("Keyboard shortcuts").shortcut_text("F1"))
                .clicked()
            {
                self.chrome.help = true;
                ui.close();
            }
            if ui.button("About viewer2").clicked() {
                self.chrome.about = true;
                ui.close();
            }
            ui.separator();
            if ui
                .add(egui::Button::new("Quit").shortcut_text("Ctrl+Q"))
                .clicked()
            {
                self.quitting = true;
                ui.ctx().send_viewport_cmd(egui::ViewportCommand::Close);
                ui.close();
            }
        });
    }

    /// The shortcuts and About windows, when open.
    pub(super) fn chrome_windows(&mut self, ctx: &egui::Context) {
        let mut help = self.chrome.help;
        egui::Window::new("Keyboard shortcuts")
            .open(&mut help)
            .collapsible(false)
            .resizable(false)
            .anchor(egui::Align2::CENTER_CENTER, egui::Vec2::ZERO)
            .show(ctx, |ui| {
                egui::ScrollArea::vertical()
                    .max_height(ctx.content_rect().height() * 0.8)
                    .show(ui, |ui| {
                        // One grid, so the keys of every place line up.
                        egui::Grid::new("shortcuts")
                            .num_columns(2)
                            .spacing([24.0, 4.0])
                            .show(ui, |ui| {
                                for (k, (place, keys)) in SHORTCUTS.iter().enumerate() {
                                    if k > 0 {
                                        ui.label("");
                                        ui.end_row();
                                    }
                                    ui.strong(*place);
                                    ui.end_row();
                                    for (key, what) in *keys {
                                        ui.label(*key);
                                        ui.label(*what);
                                        ui.end_row();
                                    }
                                }
                            });
                    });
            });
        self.chrome.help = help;
        let mut about = self.chrome.about;
        egui::Window::new("About viewer2")
            .open(&mut about)
            .collapsible(false)
            .resizable(false)
            .anchor(egui::Align2::CENTER_CENTER, egui::Vec2::ZERO)
            .show(ctx, |ui| {
                ui.heading(format!("viewer2 {}", env!("CARGO_PKG_VERSION")));
                ui.label(env!("CARGO_PKG_DESCRIPTION"));
                ui.label(format!("License: {}", env!("CARGO_PKG_LICENSE")));
                ui.label("Press F1 for the keyboard shortcuts.");
            });
        self.chrome.about = about;
    }
}
