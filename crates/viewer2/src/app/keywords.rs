//! Keywords in the window: the tree beside the tag cloud and the folders
//! (a click filters by a keyword and everything below it, a second click
//! takes the filter off), and under a photo's details its keywords (×
//! takes one off the selection) and a box that adds one to the selection,
//! completing from the library's keywords. Each change is written to the
//! photos' sidecars and undone by Ctrl+Z.

use std::sync::Arc;

use eframe::egui;

use super::ViewerApp;
use crate::edits::FileOp;
use crate::keyword_tree::KeywordTree;
use crate::library::Photo;
use crate::tags::{has_term, toggle_term};

/// The query term a keyword node filters by.
pub(crate) fn keyword_term(path: &str) -> String {
    if path.contains(char::is_whitespace) || path.contains('"') {
        format!("keyword:\"{}\"", path.replace('"', ""))
    } else {
        format!("keyword:{path}")
    }
}

impl ViewerApp {
    /// The tree of the library's keywords, built again when the library
    /// changes.
    fn keywords(&mut self) -> Arc<KeywordTree> {
        let now = Arc::as_ptr(&self.library);
        match &self.keyword_tree {
            Some((built, tree)) if *built == now => Arc::clone(tree),
            _ => {
                let tree = Arc::new(KeywordTree::build(&self.library.photos));
                self.keyword_tree = Some((now, Arc::clone(&tree)));
                tree
            }
        }
    }

    /// The keyword tree, each keyword with its photo count.
    pub(super) fn keyword_panel(&mut self, ui: &mut egui::Ui) {
        let tree = self.keywords();
        if tree.nodes.is_empty() {
            ui.add(
                egui::Label::new(
                    "No keywords yet. Type one under a photo's details, or index photos \
                     tagged in Lightroom, digiKam or darktable.",
                )
                .wrap(),
            );
            return;
        }
        let mut clicked = None;
        egui::ScrollArea::vertical()
            .id_salt("keywords")
            .auto_shrink([false, false])
            .show(ui, |ui| {
                for &root in &tree.roots {
                    self.keyword_node(ui, &tree, root, &mut clicked);
                }
            });
        if let Some(term) = clicked {
            self.query = toggle_term(&self.query, &term);
            self.search();
        }
    }

    fn keyword_node(
        &self,
        ui: &mut egui::Ui,
        tree: &KeywordTree,
        i: usize,
        clicked: &mut Option<String>,
    ) {
        let n = &tree.nodes[i];
        let term = keyword_term(&n.path);
        let active = has_term(&self.query, &term);
        let text = format!("{} ({})", n.name, n.count);
        let hover = format!(
            "{} photo{} · {term}",
            n.count,
            if n.count == 1 { "" } else { "s" }
        );
        if n.children.is_empty() {
            if ui
                .selectable_label(active, text)
                .on_hover_text(hover)
                .clicked()
            {
                *clicked = Some(term);
            }
            return;
        }
        let id = ui.make_persistent_id(("keyword", &n.path));
        egui::collapsing_header::CollapsingState::load_with_default_open(ui.ctx(), id, true)
            .show_header(ui, |ui| {
                if ui
                    .selectable_label(active, text)
                    .on_hover_text(hover)
                    .clicked()
                {
                    *clicked = Some(term.clone());
                }
            })
            .body(|ui| {
                for &c in &n.children {
                    self.keyword_node(ui, tree, c, clicked);
                }
            });
    }

    /// Under the details: the photo's keywords and the box that adds one.
    pub(super) fn keyword_editor(&mut self, ui: &mut egui::Ui, photo: &Photo) {
        let mine: Vec<String> = photo
            .words
            .as_ref()
            .map(|w| w.keywords.clone())
            .unwrap_or_default();
        let mut remove = None;
        ui.horizontal_wrapped(|ui| {
            for k in &mine {
                let shown = format!("{} ×", k.replace('|', " › "));
                if ui
                    .small_button(shown)
                    .on_hover_text(format!("take “{k}” off the selected photos"))
                    .clicked()
                {
                    remove = Some(k.clone());
                }
            }
        });
        let label = ui.label("Add keyword");
        let response = ui
            .add(
                egui::TextEdit::singleline(&mut self.keyword_draft)
                    .desired_width(f32::INFINITY)
                    .hint_text("Places|Italy|Rome"),
            )
            .labelled_by(label.id);
        let mut add = None;
        if response.lost_focus() && ui.input(|i| i.key_pressed(egui::Key::Enter)) {
            add = Some(self.keyword_draft.clone());
        }
        if !self.keyword_draft.trim().is_empty() {
            let tree = self.keywords();
            let known: Vec<String> = tree
                .complete(&self.keyword_draft, 6)
                .into_iter()
                .filter(|p| !mine.contains(p))
                .collect();
            for path in known {
                if ui
                    .button(path.replace('|', " › "))
                    .on_hover_text(format!("add “{path}” to the selected photos"))
                    .clicked()
                {
                    add = Some(path);
                }
            }
        }
        let ids = self.targets();
        if let Some(path) = remove
            && !ids.is_empty()
        {
            self.send_edit(
                FileOp::Keyword {
                    ids,
                    path,
                    remove: true,
                },
                false,
            );
        } else if let Some(path) = add {
            let path: String = path
                .split('|')
                .map(str::trim)
                .filter(|l| !l.is_empty())
                .collect::<Vec<_>>()
                .join("|");
            if !path.is_empty() && !ids.is_empty() {
                self.keyword_draft.clear();
                self.send_edit(
                    FileOp::Keyword {
                        ids,
                        path,
                        remove: false,
                    },
                    false,
                );
            }
        }
    }
}
