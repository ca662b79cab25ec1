//! Undo and redo on the light table (Ctrl+Z, Ctrl+Shift+Z): each step is
//! the table's saved state before an action (a card moved or dropped, an
//! arrangement, a stack made), and, when the action moved a photo's file,
//! that move. Taking a step back rebuilds the table from its state (the
//! table rebuilds exactly from what it saves) and moves the file back, by
//! the same safe move.

use std::path::PathBuf;

use catalog::{FileId, Placement};

use super::ViewerApp;
use crate::table::{Changes, Saved, UNPLACED};

/// The most steps kept.
const STEPS: usize = 100;

/// A photo's file moved by a table action.
#[derive(Clone, Debug)]
pub(super) struct FileMove {
    pub(super) id: FileId,
    pub(super) from: PathBuf,
    pub(super) to: PathBuf,
}

/// One step: the state before (or, to redo, after) an action.
#[derive(Clone, Debug)]
pub(super) struct Step {
    state: Saved,
    pub(super) file: Option<FileMove>,
}

/// The steps to take back and to do again.
#[derive(Default)]
pub(super) struct History {
    pub(super) undo: Vec<Step>,
    redo: Vec<Step>,
    /// The state when a card was taken up, and where it lay: a step once
    /// the drag changed something.
    pub(super) before_drag: Option<(Saved, crate::table::CardId, collide::Vec2)>,
}

impl ViewerApp {
    /// The table's state now, saved first, so the catalogue holds it too.
    pub(super) fn table_state(&mut self) -> Option<Saved> {
        let view = self.table.as_mut()?;
        let changes = view.table.take_changes(false);
        let at = view.saved_view();
        let saved = self.saved_table.as_mut()?;
        saved.merge(changes.clone());
        if at.is_some() {
            saved.view = at;
        }
        if !changes.is_empty() {
            self.searcher.save_table(changes, at);
        }
        Some(saved.clone())
    }

    /// Records the state before an action as a step to take back.
    pub(super) fn push_table_step(&mut self, state: Saved) {
        let Some(view) = &mut self.table else { return };
        // The user's own now: not laid out again as thumbnails come.
        view.repack_on_shapes = false;
        let h = &mut view.history;
        h.undo.push(Step { state, file: None });
        if h.undo.len() > STEPS {
            h.undo.remove(0);
        }
        h.redo.clear();
    }

    /// Puts the table back as `state` had it: the catalogue gets every
    /// placement of it (and the keys placed since, as never placed), and
    /// the table is rebuilt from it where the view is.
    fn restore_table(&mut self, mut state: Saved) {
        let Some(now) = self.table_state() else {
            return;
        };
        let mut changes = Changes {
            placements: state.placements.values().cloned().collect(),
            open: Some(state.open.clone()),
            user_groups: Some(state.user_groups.clone()),
        };
        for key in now.placements.keys() {
            if !state.placements.contains_key(key) {
                let p = Placement {
                    key: key.clone(),
                    x: UNPLACED,
                    y: UNPLACED,
                    angle: 0.0,
                    group: String::new(),
                };
                changes.placements.push(p.clone());
                state.placements.insert(key.clone(), p);
            }
        }
        state.view = now.view;
        self.searcher.save_table(changes, state.view);
        self.saved_table = Some(state.clone());
        let size = self.table.as_ref().map(|v| v.screen().size());
        match self.build_table(&state, size) {
            Ok(table) => {
                if let Some(view) = &mut self.table {
                    view.table = table;
                    view.hovered = None;
                    view.drop_target = None;
                    view.confirm = None;
                }
            }
            Err(e) => self.table_status = Some(format!("cannot put the table back: {e}")),
        }
    }

    /// Takes the last step back (Ctrl+Z), or, `back` false, does the
    /// last step taken back again (Ctrl+Shift+Z, Ctrl+Y): the state now
    /// goes on the other list, the step's state comes back, and its file
    /// goes to the folder it was in before (back) or after.
    pub(super) fn step_table(&mut self, back: bool) {
        let Some(view) = &mut self.table else { return };
        let from = if back {
            &mut view.history.undo
        } else {
            &mut view.history.redo
        };
        let Some(step) = from.pop() else { return };
        if let Some(now) = self.table_state()
            && let Some(view) = &mut self.table
        {
            let to = if back {
                &mut view.history.redo
            } else {
                &mut view.history.undo
            };
            to.push(Step {
                state: now,
                file: step.file.clone(),
            });
        }
        self.restore_table(step.state);
        if let Some(f) = step.file {
            self.searcher
                .move_file(f.id, if back { f.from } else { f.to });
        }
        self.table_status = Some(if back { "Undone" } else { "Redone" }.to_owned());
    }

    /// Cancel in the move dialog: the drop is taken back, with nothing to
    /// do again.
    pub(super) fn cancel_drop(&mut self) {
        let Some(step) = self.table.as_mut().and_then(|v| v.history.undo.pop()) else {
            return;
        };
        self.restore_table(step.state);
    }
}
