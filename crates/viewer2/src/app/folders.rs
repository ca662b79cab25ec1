//! The folder tree (beside the tag cloud), the breadcrumb above the grid,
//! and going up a folder (Backspace, Alt+Up). Choosing a folder shows its
//! photos, with its subfolders' unless *Subfolders* is off; the query
//! still applies within it.

use eframe::egui;

use super::ViewerApp;
use crate::folders::parent_of;

impl ViewerApp {
    /// Shows folder `path` (or every photo).
    pub(super) fn choose_folder(&mut self, path: Option<String>) {
        if self.folder != path {
            self.folder = path;
            self.reveal_folder = true;
            self.search();
        }
    }

    /// The folder tree, each folder with its photo count.
    pub(super) fn folder_tree(&mut self, ui: &mut egui::Ui) {
        let mut chosen: Option<Option<String>> = None;
        if ui
            .selectable_label(
                self.folder.is_none(),
                format!("All photos ({})", self.library.len()),
            )
            .clicked()
        {
            chosen = Some(None);
        }
        let library = std::sync::Arc::clone(&self.library);
        let tree = &library.folders;
        egui::ScrollArea::vertical()
            .id_salt("folders")
            .auto_shrink([false, false])
            .show(ui, |ui| {
                for &root in &tree.roots {
                    self.folder_node(ui, tree, root, 0, &mut chosen);
                }
            });
        self.reveal_folder = false;
        if let Some(f) = chosen {
            self.choose_folder(f);
        }
    }

    fn folder_node(
        &self,
        ui: &mut egui::Ui,
        tree: &crate::folders::FolderTree,
        i: usize,
        depth: usize,
        chosen: &mut Option<Option<String>>,
    ) {
        let f = &tree.folders[i];
        let selected = self.folder.as_deref() == Some(f.path.as_str());
        let text = format!("{} ({})", f.name, f.total);
        if f.children.is_empty() {
            let r = ui.selectable_label(selected, text).on_hover_text(&f.path);
            if r.clicked() {
                *chosen = Some(Some(f.path.clone()));
            }
            return;
        }
        // Open down to the chosen folder, and the first two levels.
        let on_way = self
            .folder
            .as_deref()
            .is_some_and(|c| crate::folders::contains(&f.path, &format!("{c}/x"), true));
        let id = ui.make_persistent_id(("folder", &f.path));
        let mut state = egui::collapsing_header::CollapsingState::load_with_default_open(
            ui.ctx(),
            id,
            depth < 1,
        );
        // Just chosen: open down to it, and it.
        if on_way && self.reveal_folder {
            state.set_open(true);
        }
        state
            .show_header(ui, |ui| {
                let r = ui.selectable_label(selected, text).on_hover_text(&f.path);
                if r.clicked() {
                    *chosen = Some(Some(f.path.clone()));
                }
            })
            .body(|ui| {
                for &c in &f.children {
                    self.folder_node(ui, tree, c, depth + 1, chosen);
                }
            });
    }

    /// "All photos › Pictures › 2019 › 06 Holiday Rome", each a button,
    /// and *Subfolders*, when a folder is shown.
    pub(super) fn breadcrumb(&mut self, ui: &mut egui::Ui) {
        let Some(current) = self.folder.clone() else {
            return;
        };
        let library = std::sync::Arc::clone(&self.library);
        let chain = library.folders.chain(&current);
        let mut chosen: Option<Option<String>> = None;
        if ui.small_button("All photos").clicked() {
            chosen = Some(None);
        }
        for i in chain {
            ui.label("›");
            let f = &library.folders.folders[i];
            if ui
                .add(
                    egui::Button::new(&f.name)
                        .small()
                        .selected(f.path == current),
                )
                .on_hover_text(&f.path)
                .clicked()
            {
                chosen = Some(Some(f.path.clone()));
            }
        }
        if ui
            .checkbox(&mut self.subfolders, "Subfolders")
            .on_hover_text("the photos of the folders inside too")
            .changed()
        {
            self.search();
        }
        ui.separator();
        if let Some(f) = chosen {
            self.choose_folder(f);
        }
    }

    /// Backspace or Alt+Up: the folder above (from a root, every photo).
    pub(super) fn folder_keys(&mut self, ctx: &egui::Context) {
        if ctx.egui_wants_keyboard_input() || self.on_table || self.loupe.is_some() {
            return;
        }
        let up = ctx.input_mut(|i| {
            i.consume_key(egui::Modifiers::NONE, egui::Key::Backspace)
                | i.consume_key(egui::Modifiers::ALT, egui::Key::ArrowUp)
        });
        if !up {
            return;
        }
        let Some(current) = self.folder.clone() else {
            return;
        };
        let above = parent_of(&current)
            .filter(|p| self.library.folders.find(p).is_some())
            .map(str::to_owned);
        self.choose_folder(above);
    }
}
