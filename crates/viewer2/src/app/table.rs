//! The light table in the window: the camera (pan with a drag on the
//! table, the middle button or the arrows; zoom with the wheel around the
//! pointer, smoothed by a critically damped spring), the cards drawn as
//! turned prints with shadows in a few meshes, the input fed to the
//! model (`crate::table`), thumbnails at the size each card shows at
//! (full ones near, 32-pixel ones far, the photo's average colour when a
//! card is a few pixels), and the saves to the catalogue once a second.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use catalog::FileId;
use collide::mask::Mask;
use collide::{Aabb, Vec2};
use eframe::egui;
use egui::epaint::{Mesh, Vertex};
use signals::{Smoother, SpringDamper, System};

use super::ViewerApp;
use super::table_history::{FileMove, History};
use crate::atlas::Atlas;
use crate::loader::{Loader, Want};
use crate::table::labels::{Candidate, Standing, place};
use crate::table::{Arrange, CardId, Event, GroupId, Item, Motion, Saved, Table};

/// The side of a far card's small thumbnail.
pub const MINI_SIZE: u32 = 32;

/// Below this many pixels on its long side a card shows its small
/// thumbnail; below [`COLOUR_BELOW`], its average colour.
const MINI_BELOW: f32 = 64.0;
const COLOUR_BELOW: f32 = 10.0;

/// The table's colour.
const FELT: egui::Color32 = egui::Color32::from_rgb(44, 50, 47);

/// How often the table is saved while it changes (a crash loses at most
/// this much movement).
const SAVE_EVERY: Duration = Duration::from_secs(1);

/// Zoom limits (points per table unit).
const ZOOM_MIN: f32 = 0.002;
const ZOOM_MAX: f32 = 8.0;

/// What a drag on the table does.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Gesture {
    /// Moves a card (the model knows which).
    Card,
    /// Moves the view.
    Pan,
    /// Selects the cards in a rectangle, from this screen point.
    Band(egui::Pos2),
}

/// The light table's window state.
pub struct TableView {
    /// The model.
    pub table: Table,
    /// The table point at the view's centre.
    centre: Vec2,
    /// Points per table unit, smoothed toward the wheel's target.
    zoom: Smoother<f32, SpringDamper>,
    zoom_target: f32,
    /// The table point kept under the pointer while zooming.
    zoom_anchor: Option<(egui::Pos2, Vec2)>,
    /// The view's rectangle on the screen in the last frame.
    screen: egui::Rect,
    gesture: Option<Gesture>,
    last_save: Instant,
    /// A photo dropped onto a folder's stack: move its file too?
    pub(super) confirm: Option<(u32, GroupId)>,
    /// The card (or tray) under the pointer, when nothing is held.
    pub(super) hovered: Option<CardId>,
    /// The stack a held card would go into if let go now.
    pub(super) drop_target: Option<CardId>,
    /// Steps to take back and to do again.
    pub(super) history: History,
    /// A card was taken up, or let go, in this frame's input.
    drag_began: bool,
    drag_ended: bool,
    /// The selection as last matched with the window's (the grid's, the
    /// details panel's, the status bar's), from each side.
    last_selection: std::collections::HashSet<Item>,
    grid_selection: std::collections::HashSet<FileId>,
    /// The photo last clicked or taken up: the one the details show.
    clicked: Option<u32>,
    /// Small thumbnails, their atlas and their average colours.
    mini_loader: Loader,
    mini_atlas: Atlas,
    mini_pages: Vec<Option<egui::TextureHandle>>,
    minis: HashMap<FileId, [u32; 2]>,
    colours: HashMap<FileId, egui::Color32>,
    mini_wanted: Vec<FileId>,
    /// Small thumbnails asked and not answered yet.
    mini_waiting: std::collections::HashSet<FileId>,
    /// The result the table was built for.
    built_for: u64,
    /// Fit every card in view at the first frame (no saved view).
    fit_pending: bool,
    /// A search's table, untouched since it was laid out: laid out again
    /// (and fitted) once every photo's shape is known, since cells of
    /// photos not yet seen are square.
    pub(super) repack_on_shapes: bool,
    /// The view Fit gave the table (centre, zoom's logarithm).
    fitted: Option<(Vec2, f32)>,
    /// When the loaders were last asked, for which view and which cards
    /// (the table's revision): asked again at once when cards came or
    /// went, at most every [`WANT_EVERY`] as the view moves (sorting
    /// thousands of cards by distance each frame of a zoom would cost the
    /// frame), and after [`WANT_ANYWAY`] in any case (cards fly about).
    wanted_at: Option<(Instant, [f32; 4], u64)>,
}

/// A stack's cover, as a share of its box: room for the two prints drawn
/// under it, turned and offset (up to 8 units and 0.07 rad).
const STACK_COVER: f32 = 0.84;

/// The largest search result whose folders all open on the table.
const RESULT_OPENED: usize = 2000;

/// The least time between two asks while the view moves.
const WANT_EVERY: Duration = Duration::from_millis(120);
/// The most time between two asks (cards move, stacks open).
const WANT_ANYWAY: Duration = Duration::from_millis(500);

impl TableView {
    /// A table for the shown result.
    fn new(
        table: Table,
        saved: &Saved,
        mini_loader: Loader,
        built_for: u64,
    ) -> Result<TableView, signals::SignalError> {
        let [x, y, z] = saved.view.unwrap_or([0.0, 0.0, 0.5]);
        let z = z.clamp(ZOOM_MIN, ZOOM_MAX);
        // The zoom glides in about a tenth of a second, critically damped.
        let zoom = Smoother::new(SpringDamper::critical(0.08)?, z.ln())?;
        Ok(TableView {
            table,
            centre: Vec2::new(x, y),
            zoom,
            zoom_target: z.ln(),
            zoom_anchor: None,
            screen: egui::Rect::NOTHING,
            gesture: None,
            last_save: Instant::now(),
            confirm: None,
            hovered: None,
            drop_target: None,
            history: History::default(),
            drag_began: false,
            drag_ended: false,
            last_selection: Default::default(),
            grid_selection: Default::default(),
            clicked: None,
            mini_loader,
            mini_atlas: Atlas::new(32 << 20, 2048, MINI_SIZE + 2),
            mini_pages: Vec::new(),
            minis: HashMap::new(),
            colours: HashMap::new(),
            mini_wanted: Vec::new(),
            mini_waiting: std::collections::HashSet::new(),
            built_for,
            fit_pending: saved.view.is_none(),
            repack_on_shapes: false,
            fitted: None,
            wanted_at: None,
        })
    }

    /// Whether cards move or small thumbnails are owed.
    pub fn is_busy(&self) -> bool {
        self.table.is_moving()
            || !self.mini_waiting.is_empty()
            || (self.zoom.value() - self.zoom_target).abs() > 1e-4
    }

    /// Where the table showed on the screen in the last frame.
    pub fn screen(&self) -> egui::Rect {
        self.screen
    }

    /// Points per table unit now.
    pub fn zoom(&self) -> f32 {
        self.zoom.value().exp()
    }

    /// A table point on the screen.
    pub fn to_screen(&self, p: Vec2) -> egui::Pos2 {
        let c = self.screen.center();
        let z = self.zoom();
        egui::pos2(
            c.x + (p.x - self.centre.x) * z,
            c.y + (p.y - self.centre.y) * z,
        )
    }

    /// A screen point on the table.
    pub fn to_table(&self, p: egui::Pos2) -> Vec2 {
        let c = self.screen.center();
        let z = self.zoom();
        Vec2::new(
            self.centre.x + (p.x - c.x) / z,
            self.centre.y + (p.y - c.y) / z,
        )
    }

    /// The part of the table in view.
    fn view_region(&self, margin: f32) -> Option<Aabb> {
        let a = self.to_table(self.screen.min);
        let b = self.to_table(self.screen.max);
        let m = Vec2::new(margin, margin) * (1.0 / self.zoom());
        Aabb::new(a - m, b + m).ok()
    }

    /// Zooms to `target` (points per unit) keeping `anchor` (a screen
    /// point) where it is.
    fn zoom_to(&mut self, target: f32, anchor: egui::Pos2) {
        self.zoom_target = target.clamp(ZOOM_MIN, ZOOM_MAX).ln();
        self.zoom_anchor = Some((anchor, self.to_table(anchor)));
    }

    /// Centres the view on a table point.
    pub fn look_at(&mut self, p: Vec2) {
        self.centre = p;
        self.zoom_anchor = None;
    }

    /// Shows every card.
    pub fn fit_all(&mut self) {
        let mut lo = Vec2::new(f32::INFINITY, f32::INFINITY);
        let mut hi = -lo;
        for (_, c) in self.table.cards() {
            if let Ok(b) = c.aabb() {
                lo = lo.min(b.min());
                hi = hi.max(b.max());
            }
        }
        if !lo.is_finite() || !self.screen.is_positive() {
            return;
        }
        self.centre = (lo + hi) * 0.5;
        let size = hi - lo;
        let z = (self.screen.width() / size.x.max(1.0)).min(self.screen.height() / size.y.max(1.0))
            * crate::table::FIT_SHARE;
        self.zoom_target = z.clamp(ZOOM_MIN, ZOOM_MAX).ln();
        self.zoom_anchor = None;
        let _ = self.zoom.set_state(self.zoom_target, 0.0);
    }

    /// How far the card showing photo `id` (its own, or the stack it is
    /// the cover of) is from the view's centre, in table units
    /// (`u64::MAX` when none is on the table): the atlases evict the
    /// farthest.
    pub(super) fn distance(&self, library: &crate::library::Library, id: u64) -> u64 {
        distance_from(
            &self.table,
            self.to_table(self.screen.center()),
            library,
            id,
        )
    }

    /// The view to save: the user's table's (a search's view is not
    /// kept, so clearing the search gives back the view before it).
    pub(super) fn saved_view(&self) -> Option<[f32; 3]> {
        self.table
            .keeps_open()
            .then(|| [self.centre.x, self.centre.y, self.zoom_target.exp()])
    }
}

impl ViewerApp {
    /// The light table, if it was opened.
    pub fn table_view(&self) -> Option<&TableView> {
        self.table.as_ref()
    }

    /// The light table, mutably (tests arrange it).
    pub fn table_view_mut(&mut self) -> Option<&mut TableView> {
        self.table.as_mut()
    }

    /// Builds the table for the shown result, or again when the result
    /// changed (saving what moved first, so nothing is lost).
    fn ensure_table(&mut self) {
        if self.saved_table.is_none() {
            return;
        }
        // Rebuilt for a new result, or a new library (a file moved, an
        // index run: the same search answered again).
        if self.table.as_ref().is_some_and(|t| {
            t.built_for == self.shown_seq
                && std::sync::Arc::ptr_eq(t.table.library(), &self.library)
        }) {
            return;
        }
        let old = self.table.take();
        let size = old.as_ref().map(|v| v.screen.size());
        // The steps to take back stay: a file moved by the table reloads the
        // library, and Ctrl+Z must still reach that move.
        let mut history = History::default();
        let mini_loader = match old {
            Some(mut old) => {
                history = std::mem::take(&mut old.history);
                let changes = old.table.take_changes(false);
                let view = old.saved_view();
                if let Some(saved) = &mut self.saved_table {
                    saved.merge(changes.clone());
                    if view.is_some() {
                        saved.view = view;
                    }
                }
                self.searcher.save_table(changes, view);
                Ok(old.mini_loader)
            }
            None => Loader::with_budget(
                1,
                MINI_SIZE,
                crate::thumbnail::Limits::default(),
                std::sync::Arc::clone(&self.source),
                None,
                std::sync::Arc::clone(&self.decode_budget),
            ),
        };
        let mini_loader = match mini_loader {
            Ok(l) => l,
            Err(e) => {
                self.table_error = Some(format!("cannot start the table's loader: {e}"));
                return;
            }
        };
        let Some(saved) = self.saved_table.as_ref() else {
            return;
        };
        match self.build_table(saved, size) {
            Ok(table) => match TableView::new(table, saved, mini_loader, self.shown_seq) {
                Ok(mut view) => {
                    view.history = history;
                    // A search's table is laid out anew: all of it in view.
                    view.fit_pending |= !view.table.keeps_open();
                    view.repack_on_shapes = !view.table.keeps_open();
                    self.table = Some(view);
                    self.table_error = None;
                }
                Err(e) => self.table_error = Some(format!("cannot start the table: {e}")),
            },
            Err(e) => self.table_error = Some(format!("cannot lay out the table: {e}")),
        }
    }

    /// The table of the shown result as `saved` has it: a search's opens
    /// the folders of what it found (up to a size where spreading every
    /// card would hold the window up); photos take the shapes of the
    /// thumbnails at hand.
    pub(super) fn build_table(
        &self,
        saved: &Saved,
        view: Option<egui::Vec2>,
    ) -> Result<Table, collide::CollideError> {
        let searched = !self.query.trim().is_empty() && self.rows.len() <= RESULT_OPENED;
        let mut table = Table::new(std::sync::Arc::clone(&self.library), &self.rows, saved)?;
        if let Some(v) = view {
            table.set_view_size(v.x, v.y);
        }
        if searched {
            table.open_for_result()?;
        }
        for (&id, t) in &self.thumbs {
            if let Some(row) = self.library.index_of(id) {
                let _ = table.set_photo_shape(row, t.full.0, t.full.1);
            }
        }
        Ok(table)
    }

    /// Saves what moved, at most once a second (or now, when `now`).
    pub(super) fn save_table(&mut self, now: bool) {
        let Some(view) = &mut self.table else {
            return;
        };
        if !now && view.last_save.elapsed() < SAVE_EVERY {
            return;
        }
        view.last_save = Instant::now();
        let changes = view.table.take_changes(false);
        let v = view.saved_view();
        let view_changed = v.is_some() && self.saved_table.as_ref().is_none_or(|s| s.view != v);
        if changes.is_empty() && !view_changed {
            return;
        }
        if let Some(saved) = &mut self.saved_table {
            saved.merge(changes.clone());
            if v.is_some() {
                saved.view = v;
            }
        }
        self.searcher.save_table(changes, v);
    }

    /// Draws the light table and applies what the user did.
    pub(super) fn table_ui(&mut self, ui: &mut egui::Ui) {
        self.ensure_table();
        if let Some(e) = &self.table_error {
            ui.colored_label(ui.visuals().error_fg_color, e);
            return;
        }
        if self.table.is_none() {
            ui.centered_and_justified(|ui| ui.label("Laying out the table…"));
            return;
        }
        self.table_toolbar(ui);
        let rect = ui.available_rect_before_wrap();
        let response = ui.allocate_rect(rect, egui::Sense::click_and_drag());
        let dt = f64::from(ui.input(|i| i.stable_dt).clamp(0.0, 0.1));
        // The state before a card may be taken up: a step once it moved.
        let pressed = self
            .table
            .as_ref()
            .is_some_and(|v| v.table.dragged().is_none())
            && response.drag_started();
        let before = if pressed { self.table_state() } else { None };
        self.table_input(ui, &response, rect, dt);
        self.table_steps(ui, before);
        self.match_selection();
        self.receive_minis(ui.ctx());
        if let Some(view) = &mut self.table {
            view.screen = rect;
        }
        self.paint_table(ui, rect);
        self.want_table_thumbnails();
        self.confirm_move(ui);
        for event in self
            .table
            .as_mut()
            .map(|v| v.table.take_events())
            .unwrap_or_default()
        {
            let Event::Dropped { item, into } = event;
            let Item::Photo(row) = item else { continue };
            let (dir, photo) = (
                self.table
                    .as_ref()
                    .and_then(|v| v.table.tree.groups[into as usize].dir.clone()),
                &self.library.photos[row as usize],
            );
            if let Some(dir) = dir
                && photo.path.parent() != Some(dir.as_path())
                && let Some(view) = &mut self.table
            {
                view.confirm = Some((row, into));
            }
        }
        self.save_table(false);
        let moving = self
            .table
            .as_ref()
            .is_some_and(|v| v.table.is_moving() || (v.zoom.value() - v.zoom_target).abs() > 1e-4);
        if moving {
            ui.ctx().request_repaint();
        }
    }

    fn table_toolbar(&mut self, ui: &mut egui::Ui) {
        let Some(view) = &mut self.table else { return };
        let mut arrange = None;
        let mut group = false;
        let mut fit = false;
        let mut stack_result = false;
        ui.horizontal(|ui| {
            if ui
                .button("Rows by name")
                .on_hover_text("arrange the selection, or every card, in rows by name (G)")
                .clicked()
            {
                arrange = Some(Arrange::Grid);
            }
            if ui
                .button("By date")
                .on_hover_text("arrange the selection, or every card, in rows by date taken (D)")
                .clicked()
            {
                arrange = Some(Arrange::ByDate);
            }
            if ui
                .button("Pile")
                .on_hover_text("gather the selection, or each tray's cards, into a pile (P)")
                .clicked()
            {
                arrange = Some(Arrange::Pile);
            }
            if ui
                .button("Stack")
                .on_hover_text("make a group of the selection (S)")
                .clicked()
            {
                group = true;
            }
            let query = self.query.trim();
            if ui
                .add_enabled(!query.is_empty(), egui::Button::new("Stack result"))
                .on_hover_text("make a group of every photo the search found")
                .clicked()
            {
                stack_result = true;
            }
            if ui
                .button("Fit")
                .on_hover_text("show every card (Home)")
                .clicked()
            {
                fit = true;
            }
            if let Some(status) = &self.table_status {
                ui.label(status);
            }
            let n = view.table.selected().len();
            ui.label(format!(
                "{} cards{}",
                view.table.len(),
                if n > 0 {
                    format!(", {n} selected")
                } else {
                    String::new()
                }
            ));
        });
        let keys = if ui.ctx().egui_wants_keyboard_input() {
            Default::default()
        } else {
            ui.input(|i| {
                (
                    i.key_pressed(egui::Key::G),
                    i.key_pressed(egui::Key::D),
                    i.key_pressed(egui::Key::P),
                    i.key_pressed(egui::Key::S),
                    i.key_pressed(egui::Key::Home),
                )
            })
        };
        if keys.0 {
            arrange = Some(Arrange::Grid);
        }
        if keys.1 {
            arrange = Some(Arrange::ByDate);
        }
        if keys.2 {
            arrange = Some(Arrange::Pile);
        }
        group |= keys.3;
        fit |= keys.4;
        // Each action a step to take back.
        if (arrange.is_some() || group || stack_result)
            && let Some(state) = self.table_state()
        {
            self.push_table_step(state);
        }
        let Some(view) = &mut self.table else { return };
        if stack_result {
            let rows: Vec<u32> = self.rows.iter().copied().collect();
            let at = view.to_table(view.screen.center());
            if let Err(e) = view.table.group_photos(&rows, self.query.trim(), at) {
                tracing::warn!("group: {e}");
            }
        }
        if let Some(how) = arrange
            && let Err(e) = view.table.arrange(how)
        {
            tracing::warn!("arrange: {e}");
        }
        if group {
            let name = format!("Selection {}", view.table.tree.user_groups().len() + 1);
            if let Err(e) = view.table.group_selection(&name) {
                tracing::warn!("group: {e}");
            }
        }
        if fit {
            view.fit_all();
        }
    }

    /// Pointer, wheel and keys.
    fn table_input(&mut self, ui: &egui::Ui, response: &egui::Response, rect: egui::Rect, dt: f64) {
        let library = std::sync::Arc::clone(&self.library);
        let (pointer, modifiers, scroll, keys) = ui.input(|i| {
            (
                i.pointer.interact_pos(),
                i.modifiers,
                i.smooth_scroll_delta.y,
                (
                    i.key_pressed(egui::Key::ArrowLeft),
                    i.key_pressed(egui::Key::ArrowRight),
                    i.key_pressed(egui::Key::ArrowUp),
                    i.key_pressed(egui::Key::ArrowDown),
                    i.key_pressed(egui::Key::Plus) || i.key_pressed(egui::Key::Equals),
                    i.key_pressed(egui::Key::Minus),
                    i.key_pressed(egui::Key::Enter),
                    i.key_pressed(egui::Key::Escape),
                ),
            )
        });
        let typing = ui.ctx().egui_wants_keyboard_input();
        let mut open_loupe = None;
        let Some(view) = &mut self.table else { return };
        view.screen = rect;
        if view.fit_pending {
            view.fit_pending = false;
            // A search's table was packed for a guess at the view's size.
            let guess = view.table.view_size();
            view.table.set_view_size(rect.width(), rect.height());
            if !view.table.keeps_open() && (view.table.view_size() - guess).length() > 4.0 {
                let packed = view.table.pack(Arrange::Grid, false);
                if let Err(e) = packed.and_then(|()| view.table.settle_instantly()) {
                    tracing::warn!("table: {e}");
                }
            }
            view.fit_all();
            view.fitted = Some((view.centre, view.zoom_target));
        }
        view.table.set_view_size(rect.width(), rect.height());
        // Touched (a card taken up, the view panned or zoomed): the layout
        // is the user's now, not to be redone under their hands.
        let moved = view.fitted != Some((view.centre, view.zoom_target));
        if view.repack_on_shapes && (view.table.dragged().is_some() || moved) {
            view.repack_on_shapes = false;
        }
        // Every shape known, or every small thumbnail asked answered (a
        // broken photo gives none).
        let answered = view.wanted_at.is_some() && view.mini_waiting.is_empty();
        if view.repack_on_shapes && (answered || view.table.shapes_known()) {
            view.repack_on_shapes = false;
            let packed = view.table.pack(Arrange::Grid, false);
            if let Err(e) = packed.and_then(|()| view.table.settle_instantly()) {
                tracing::warn!("table: {e}");
            }
            view.fit_all();
            view.fitted = Some((view.centre, view.zoom_target));
        }
        let hit = |masks: &HashMap<FileId, Option<Mask>>, row: u32, uv: [f32; 2]| {
            let id = library.photos[row as usize].id;
            match masks.get(&id) {
                Some(Some(m)) if m.width() > 0 && m.height() > 0 => {
                    let x = (uv[0] * m.width() as f32) as usize;
                    let y = (uv[1] * m.height() as f32) as usize;
                    m.get(x.min(m.width() - 1), y.min(m.height() - 1))
                }
                _ => true,
            }
        };
        let masks = &self.masks;
        let pick = |view: &mut TableView, p: egui::Pos2| -> Option<CardId> {
            let at = view.to_table(p);
            let found = view.table.pick(at, |row, uv| hit(masks, row, uv));
            found.ok().flatten()
        };
        // Wheel: zoom about the pointer.
        if response.hovered() && scroll != 0.0 {
            let anchor = pointer.unwrap_or(rect.center());
            let target = (view.zoom_target + scroll * 0.0025).exp();
            view.zoom_to(target, anchor);
        }
        if !typing {
            let step = rect.width().min(rect.height()) * 0.2 / view.zoom();
            if keys.0 {
                view.centre.x -= step;
            }
            if keys.1 {
                view.centre.x += step;
            }
            if keys.2 {
                view.centre.y -= step;
            }
            if keys.3 {
                view.centre.y += step;
            }
            if keys.4 {
                view.zoom_to(view.zoom_target.exp() * 1.25, rect.center());
            }
            if keys.5 {
                view.zoom_to(view.zoom_target.exp() / 1.25, rect.center());
            }
            if keys.7 {
                view.table.select([]);
            }
            if keys.6 {
                let photos: Vec<u32> = view
                    .table
                    .selected()
                    .iter()
                    .filter_map(|i| match i {
                        Item::Photo(r) => Some(*r),
                        _ => None,
                    })
                    .collect();
                if let [row] = photos[..] {
                    open_loupe = Some(row);
                }
            }
        }
        view.hovered = match pointer {
            Some(p) if response.hovered() && view.gesture.is_none() => pick(view, p),
            _ => None,
        };
        // Gestures.
        let mut release = false;
        if response.drag_started() {
            let origin = ui.input(|i| i.pointer.press_origin()).or(pointer);
            let middle = ui.input(|i| i.pointer.middle_down() || i.pointer.secondary_down());
            view.gesture = Some(match origin {
                Some(o) if !middle => match pick(view, o) {
                    Some(id) if !modifiers.shift => {
                        let at = view.to_table(o);
                        let _ = view.table.begin_drag(id, at);
                        view.drag_began = true;
                        if let Some(c) = view.table.card(id)
                            && !view.table.selected().contains(&c.item)
                            && !matches!(c.item, Item::Tray(_))
                        {
                            if let Item::Photo(row) = c.item {
                                view.clicked = Some(row);
                            }
                            view.table.select([c.item]);
                        }
                        Gesture::Card
                    }
                    _ if modifiers.shift => Gesture::Band(o),
                    _ => Gesture::Pan,
                },
                _ => Gesture::Pan,
            });
        }
        if response.dragged() && view.gesture == Some(Gesture::Pan) {
            let d = response.drag_delta();
            let z = view.zoom();
            view.centre -= Vec2::new(d.x / z, d.y / z);
        }
        if response.drag_stopped() {
            match view.gesture.take() {
                Some(Gesture::Card) => {
                    release = true;
                    view.drag_ended = true;
                }
                Some(Gesture::Band(from)) => {
                    if let Some(to) = pointer
                        && let Ok(region) = Aabb::new(
                            view.to_table(from).min(view.to_table(to)),
                            view.to_table(from).max(view.to_table(to)),
                        )
                    {
                        let ids = view.table.in_region(&region).unwrap_or_default();
                        let items: Vec<Item> = ids
                            .iter()
                            .filter_map(|&id| view.table.card(id).map(|c| c.item))
                            .collect();
                        view.table.select(items);
                    }
                }
                _ => {}
            }
        }
        if response.double_clicked()
            && let Some(p) = pointer
            && let Some(id) = pick(view, p)
        {
            match view.table.card(id).map(|c| c.item) {
                Some(Item::Photo(row)) => open_loupe = Some(row),
                Some(_) => {
                    if let Err(e) = view.table.toggle(id) {
                        tracing::warn!("open: {e}");
                    }
                }
                None => {}
            }
        } else if response.clicked()
            && let Some(p) = pointer
        {
            match pick(view, p).and_then(|id| view.table.card(id).map(|c| (id, c.item))) {
                Some((id, item)) if !matches!(item, Item::Tray(_)) => {
                    if let Item::Photo(row) = item {
                        view.clicked = Some(row);
                    }
                    if modifiers.shift || modifiers.command {
                        view.table.toggle_selected(item);
                    } else {
                        view.table.select([item]);
                    }
                    view.table.raise(id);
                }
                _ => view.table.select([]),
            }
        }
        // The camera: the zoom's spring, the anchor kept under the pointer.
        let _ = view.zoom.update(dt, view.zoom_target);
        if let Some((screen, table)) = view.zoom_anchor {
            let c = rect.center();
            let z = view.zoom();
            view.centre = Vec2::new(
                table.x - (screen.x - c.x) / z,
                table.y - (screen.y - c.y) / z,
            );
            if (view.zoom.value() - view.zoom_target).abs() < 1e-4 {
                view.zoom_anchor = None;
            }
        }
        // The physics, with the held card's pointer.
        let held = view.gesture == Some(Gesture::Card) || release;
        let at = pointer.filter(|_| held).map(|p| view.to_table(p));
        if let Err(e) = view.table.advance(dt, at, release) {
            tracing::warn!("table step: {e}");
        }
        view.drop_target = view.table.drop_target();
        if let Some(row) = open_loupe {
            let place = self.place.get(row as usize).copied().unwrap_or(u32::MAX);
            if place != u32::MAX {
                self.cursor = Some(place as usize);
                self.open_loupe(place as usize);
            }
        }
    }

    /// Drags made steps; Ctrl+Z and Ctrl+Shift+Z (or Ctrl+Y).
    fn table_steps(&mut self, ui: &egui::Ui, before: Option<Saved>) {
        let Some(view) = &mut self.table else { return };

        if std::mem::take(&mut view.drag_began)
            && let (Some(state), Some(id), Some(from)) =
                (before, view.table.dragged(), view.table.drag_origin())
        {
            view.history.before_drag = Some((state, id, from));
        }
        if std::mem::take(&mut view.drag_ended)
            && let Some((state, id, from)) = view.history.before_drag.take()
        {
            // A card let go where it was taken up changed nothing.
            let moved = view
                .table
                .card(id)
                .is_none_or(|c| c.motion != Motion::Rest || (c.pos - from).length() > 1.0);
            if moved {
                self.push_table_step(state);
            }
        }
        if ui.ctx().egui_wants_keyboard_input() {
            return;
        }
        let (undo, redo) = ui.input_mut(|i| {
            let redo = i.consume_key(
                egui::Modifiers::COMMAND | egui::Modifiers::SHIFT,
                egui::Key::Z,
            ) || i.consume_key(egui::Modifiers::COMMAND, egui::Key::Y);
            (i.consume_key(egui::Modifiers::COMMAND, egui::Key::Z), redo)
        });
        if undo {
            self.step_table(true);
        }
        if redo {
            self.step_table(false);
        }
    }

    /// One selection everywhere: a change on the table selects the same
    /// photos in the grid (the status bar counts them, the details panel
    /// shows the one clicked); a change made in the grid selects the same
    /// cards on the table.
    fn match_selection(&mut self) {
        let Some(view) = &mut self.table else { return };
        let library = std::sync::Arc::clone(view.table.library());
        if *view.table.selected() != view.last_selection {
            view.last_selection = view.table.selected().clone();
            let rows: Vec<u32> = view
                .last_selection
                .iter()
                .filter_map(|i| match i {
                    Item::Photo(r) => Some(*r),
                    _ => None,
                })
                .collect();
            let ids: std::collections::HashSet<FileId> = rows
                .iter()
                .map(|&r| library.photos[r as usize].id)
                .collect();
            let focus = view
                .clicked
                .filter(|r| rows.contains(r))
                .or_else(|| rows.iter().min().copied())
                .map(|r| library.photos[r as usize].id);
            view.grid_selection = ids.clone();
            self.selected = ids;
            if let Some(id) = focus
                && let Some(i) = self.library.index_of(id)
                && let Some(&place) = self.place.get(i as usize)
                && place != u32::MAX
            {
                self.cursor = Some(place as usize);
            }
        } else if self.selected != view.grid_selection {
            let items: Vec<Item> = self
                .selected
                .iter()
                .filter_map(|&id| library.index_of(id))
                .map(Item::Photo)
                .collect();
            view.table.select(items);
            view.last_selection = view.table.selected().clone();
            view.grid_selection = self.selected.clone();
        }
    }

    /// The dialog that asks whether a dropped photo's file moves too.
    fn confirm_move(&mut self, ui: &mut egui::Ui) {
        let Some(view) = &mut self.table else { return };
        let Some((row, into)) = view.confirm else {
            return;
        };
        let photo = &self.library.photos[row as usize];
        let group = &view.table.tree.groups[into as usize];
        let Some(dir) = group.dir.clone() else {
            view.confirm = None;
            return;
        };
        let mut answer = None;
        egui::Modal::new(egui::Id::unique("move-file")).show(ui.ctx(), |ui| {
            ui.heading("Move the file too?");
            ui.label(format!(
                "{} is now in “{}” on the table. Also move the file into {}?",
                photo.name,
                group.name,
                dir.display()
            ));
            ui.horizontal(|ui| {
                if ui.button("Move the file").clicked() {
                    answer = Some(Some(true));
                }
                if ui.button("Only on the table").clicked() {
                    answer = Some(Some(false));
                }
                if ui.button("Cancel").clicked() {
                    answer = Some(None);
                }
            });
        });
        let (id, from) = (
            photo.id,
            photo.path.parent().map(std::path::Path::to_path_buf),
        );
        match answer {
            Some(Some(yes)) => {
                view.confirm = None;
                if yes {
                    // The drop's step takes the file back too.
                    if let (Some(step), Some(from)) = (view.history.undo.last_mut(), from) {
                        step.file = Some(FileMove {
                            id,
                            from,
                            to: dir.clone(),
                        });
                    }
                    self.searcher.move_file(id, dir);
                }
            }
            Some(None) => {
                view.confirm = None;
                self.cancel_drop();
            }
            None => {}
        }
    }

    /// Asks the loaders for the cards in view (and a margin around it):
    /// full thumbnails for near cards, nearest the centre first; small
    /// ones for far cards.
    fn want_table_thumbnails(&mut self) {
        let Some(view) = &mut self.table else { return };
        let Some(region) = view.view_region(200.0) else {
            return;
        };
        let key = [
            region.min().x,
            region.min().y,
            region.max().x,
            region.max().y,
        ];
        let revision = view.table.revision();
        if let Some((at, last, last_revision)) = view.wanted_at
            && last_revision == revision
        {
            let due = if last == key { WANT_ANYWAY } else { WANT_EVERY };
            if at.elapsed() < due {
                return;
            }
        }
        view.wanted_at = Some((Instant::now(), key, revision));
        let Ok(ids) = view.table.in_region(&region) else {
            return;
        };
        let centre = view.to_table(view.screen.center());
        let zoom = view.zoom_target.exp();
        let full_size = 2.0 * crate::table::CARD_HALF * zoom >= MINI_BELOW;
        let mut photos: Vec<(f32, u32)> = ids
            .iter()
            .filter_map(|&id| {
                let c = view.table.card(id)?;
                let row = match c.item {
                    Item::Photo(r) => r,
                    Item::Stack(g) => view.table.tree.groups[g as usize].cover?,
                    Item::Tray(_) => return None,
                };
                Some(((c.pos - centre).length_squared(), row))
            })
            .collect();
        photos.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        photos.dedup_by_key(|p| p.1);
        if full_size {
            let rows: Vec<u32> = photos
                .iter()
                .take(self.atlas.capacity())
                .map(|&(_, r)| r)
                .collect();
            self.ask_for_thumbnails(&rows);
        }
        let Some(view) = &mut self.table else { return };
        let library = &self.library;
        photos.truncate(view.mini_atlas.capacity());
        let ids: Vec<FileId> = photos
            .iter()
            .map(|&(_, r)| library.photos[r as usize].id)
            .collect();
        if ids != view.mini_wanted {
            view.mini_wanted = ids;
            view.mini_waiting.clear();
            let wants: Vec<Want> = photos
                .iter()
                .enumerate()
                .filter_map(|(priority, &(_, r))| {
                    let p = &library.photos[r as usize];
                    (!view.minis.contains_key(&p.id) && !self.broken.contains_key(&p.id)).then(
                        || Want {
                            id: p.id as u64,
                            path: p.path.clone(),
                            priority: priority as i64,
                        },
                    )
                })
                .collect();
            view.mini_waiting = wants.iter().map(|w| w.id as FileId).collect();
            view.mini_loader.want(wants);
        }
    }

    /// Uploads finished small thumbnails, and notes each photo's average
    /// colour and shape.
    fn receive_minis(&mut self, ctx: &egui::Context) {
        let Some(view) = &mut self.table else { return };
        let started = Instant::now();
        let centre = view.to_table(view.screen.center());
        while started.elapsed() < Duration::from_millis(3) {
            let Some(answer) = view.mini_loader.try_recv() else {
                break;
            };
            let id = answer.id as FileId;
            let Ok(thumb) = answer.result else {
                view.mini_waiting.remove(&id);
                // Unreadable: its card keeps the usual shape, now known.
                if let Some(row) = self.library.index_of(id) {
                    let _ = view.table.set_photo_shape(row, 3, 2);
                }
                continue;
            };
            let (w, h) = (thumb.width, thumb.height);
            if w > MINI_SIZE || h > MINI_SIZE {
                // An embedded preview: the real one follows.
                continue;
            }
            view.mini_waiting.remove(&id);
            if w > MINI_SIZE || h > MINI_SIZE || thumb.rgba.len() != (w * h * 4) as usize {
                continue;
            }
            view.colours.insert(id, average(&thumb.rgba));
            if let Some(row) = self.library.index_of(id) {
                let _ = view
                    .table
                    .set_photo_shape(row, thumb.full_size.0, thumb.full_size.1);
            }
            let table = &view.table;
            let library = &self.library;
            let distance = |h: u64| distance_from(table, centre, library, h);
            let Some((slot, evicted)) = view.mini_atlas.insert(answer.id, distance) else {
                continue;
            };
            if let Some(old) = evicted {
                view.minis.remove(&(old as FileId));
            }
            let side = view.mini_atlas.page_side() as usize;
            super::grid::upload(
                ctx,
                &mut view.mini_pages,
                "minis",
                side,
                slot,
                [w, h],
                &thumb.rgba,
            );
            view.minis.insert(id, [w, h]);
        }
    }

    /// Notes a full thumbnail's transparency (for picking on the table)
    /// and, with the table open, its shape and colour.
    pub(super) fn table_thumbnail_arrived(
        &mut self,
        id: FileId,
        thumb: &crate::thumbnail::Thumbnail,
    ) {
        if let Some(view) = &mut self.table {
            if let Some(row) = self.library.index_of(id) {
                let _ = view
                    .table
                    .set_photo_shape(row, thumb.full_size.0, thumb.full_size.1);
            }
            view.colours
                .entry(id)
                .or_insert_with(|| average(&thumb.rgba));
        }
        if let std::collections::hash_map::Entry::Vacant(slot) = self.masks.entry(id) {
            let transparent = thumb.rgba.chunks_exact(4).any(|p| p[3] < 128);
            let mask = transparent
                .then(|| {
                    Mask::from_alpha(
                        thumb.width as usize,
                        thumb.height as usize,
                        &thumb.rgba,
                        4,
                        3,
                        127,
                    )
                    .ok()
                })
                .flatten();
            slot.insert(mask);
        }
    }

    /// Paints the table: trays, then shadows, then the cards in their
    /// order, each card one run of quads on one texture.
    fn paint_table(&mut self, ui: &mut egui::Ui, rect: egui::Rect) {
        let painter = ui.painter_at(rect);
        painter.rect_filled(rect, 0.0, FELT);
        let ids = {
            let Some(view) = &mut self.table else { return };
            let Some(region) = view.view_region(20.0) else {
                return;
            };
            let Ok(ids) = view.table.in_region(&region) else {
                return;
            };
            ids
        };
        let Some(view) = &self.table else { return };
        let zoom = view.zoom();
        // Trays, outer ones first.
        let mut trays: Vec<(usize, GroupId, egui::Rect)> = Vec::new();
        for (_, c) in view.table.cards() {
            if let Item::Tray(g) = c.item {
                let min = view.to_screen(c.pos - c.half);
                let max = view.to_screen(c.pos + c.half);
                trays.push((
                    view.table.tree.depth(g),
                    g,
                    egui::Rect::from_min_max(min, max),
                ));
            }
        }
        trays.sort_by_key(|t| (t.0, t.1));
        // Names, laid out first and placed together at the end, so none
        // is drawn over another (`table::labels`).
        let hovered_item = view
            .hovered
            .and_then(|id| view.table.card(id))
            .map(|c| c.item);
        let mut labels = Labels {
            bounds: rect,
            candidates: Vec::new(),
            galleys: Vec::new(),
        };
        for (depth, g, r) in &trays {
            if !r.intersects(rect) {
                continue;
            }
            let shade = 12 + 6 * (*depth as u8).min(6);
            painter.rect_filled(
                *r,
                8.0 * zoom.min(1.0),
                egui::Color32::from_rgba_unmultiplied(255, 255, 255, shade),
            );
            let hovered = hovered_item == Some(Item::Tray(*g));
            // Named in its name bar where that holds the name, on a dark
            // band over its cards where not (but not once too small to
            // read), and always under the pointer.
            let in_bar = view.table.header() * zoom >= 12.0;
            if in_bar || zoom > 0.12 || hovered {
                let group = &view.table.tree.groups[*g as usize];
                let galley = painter.layout_no_wrap(
                    format!("{}  ·  {} photos", group.name, group.total),
                    egui::FontId::proportional((16.0 * zoom).clamp(9.0, 22.0)),
                    egui::Color32::from_gray(220),
                );
                let at = r.min + egui::vec2(10.0 * zoom, 8.0 * zoom);
                let standing = if hovered {
                    Standing::Hovered
                } else {
                    Standing::Tray
                };
                labels.add(galley, at, standing, group.total as u32, hovered || !in_bar);
            }
        }
        let mut cards: Vec<CardId> = ids
            .into_iter()
            .filter(|&id| {
                view.table
                    .card(id)
                    .is_some_and(|c| !matches!(c.item, Item::Tray(_)))
            })
            .collect();
        cards.sort_by_key(|&id| view.table.card(id).map_or(0, |c| c.z));
        // Shadows under every card, in one mesh.
        let mut shadows = Mesh::default();
        let lift = |m: Motion| if m == Motion::Dragged { 2.5 } else { 1.0 };
        for &id in &cards {
            let Some(c) = view.table.card(id) else {
                continue;
            };
            if 2.0 * c.half.x * zoom < COLOUR_BELOW || self.is_masked(view, c.item) {
                continue;
            }
            let off = Vec2::new(3.0, 5.0) * lift(c.motion);
            let mut shade = c.clone();
            if let Item::Stack(_) = c.item {
                // Under the prints, which lie inside the box.
                shade.half = c.half * STACK_COVER + Vec2::new(6.0, 5.0);
            }
            let corners = shade.corners().map(|p| view.to_screen(p + off));
            quad(
                &mut shadows,
                corners,
                [egui::epaint::WHITE_UV; 4],
                egui::Color32::from_black_alpha(70),
            );
        }
        painter.add(egui::Shape::mesh(shadows));
        // The cards, in runs of one texture.
        let mut run = Mesh::default();
        let selected_colour = ui.visuals().selection.stroke.color;
        let mut stacks = Vec::new();
        for &id in &cards {
            let Some(c) = view.table.card(id) else {
                continue;
            };
            // A stack is drawn inside its box, the prints under its cover
            // included: drawn past it, they lay over a neighbouring tray
            // that only touches the box.
            let mut inset;
            let c = if let Item::Stack(_) = c.item {
                inset = c.clone();
                inset.half = c.half * STACK_COVER;
                &inset
            } else {
                c
            };
            let px = 2.0 * c.half.x.max(c.half.y) * zoom;
            let row = match c.item {
                Item::Photo(r) => Some(r),
                Item::Stack(g) => view.table.tree.groups[g as usize].cover,
                Item::Tray(_) => None,
            };
            let photo_id = row.map(|r| self.library.photos[r as usize].id);
            let image = photo_id.and_then(|pid| self.card_image(view, pid, px));
            let texture = image.map_or(egui::TextureId::default(), |i| i.0);
            if run.texture_id != texture && !run.is_empty() {
                painter.add(egui::Shape::mesh(std::mem::take(&mut run)));
            }
            run.texture_id = texture;
            let white = image.map_or(egui::epaint::WHITE_UV, |i| i.2);
            let corners = |c: &crate::table::Card, grow: f32| {
                let mut g = c.clone();
                g.half += Vec2::new(grow, grow);
                g.corners().map(|p| view.to_screen(p))
            };
            if view.table.selected().contains(&c.item) {
                quad(
                    &mut run,
                    corners(c, 5.0 / zoom.max(0.05)),
                    [white; 4],
                    selected_colour,
                );
            }
            if let Item::Stack(_) = c.item {
                // Two prints under the cover.
                for (k, turn) in [(2.0f32, 0.07f32), (1.0, -0.05)] {
                    let mut under = c.clone();
                    under.angle += turn;
                    under.pos += Vec2::new(k * 4.0, k * 3.0);
                    quad(
                        &mut run,
                        corners(&under, 0.0),
                        [white; 4],
                        egui::Color32::from_gray(225 - 15 * k as u8),
                    );
                }
                if zoom > 0.2 || hovered_item == Some(c.item) {
                    stacks.push((c.pos + Vec2::new(0.0, c.half.y + 14.0), c.item));
                }
            }
            let masked = matches!(c.item, Item::Photo(_)) && self.is_masked(view, c.item);
            if masked {
                // A cut-out casts the shadow of its shape.
                if let Some((_, uv, _)) = image {
                    let mut shadow = c.clone();
                    shadow.pos += Vec2::new(3.0, 5.0) * lift(c.motion);
                    quad(
                        &mut run,
                        corners(&shadow, 0.0),
                        uv,
                        egui::Color32::from_black_alpha(90),
                    );
                }
            } else {
                // The print's white border.
                quad(
                    &mut run,
                    corners(c, 0.0),
                    [white; 4],
                    egui::Color32::from_gray(245),
                );
            }
            let inset = if masked {
                0.0
            } else {
                -(c.half.x.min(c.half.y) * 0.06)
            };
            let inner = corners(c, inset);
            match image {
                Some((_, uv, _)) => quad(&mut run, inner, uv, egui::Color32::WHITE),
                None => {
                    let colour = photo_id
                        .and_then(|pid| view.colours.get(&pid).copied())
                        .unwrap_or(egui::Color32::from_gray(90));
                    quad(&mut run, inner, [white; 4], colour);
                }
            }
        }
        if !run.is_empty() {
            painter.add(egui::Shape::mesh(run));
        }
        for (at, item) in stacks {
            if let Item::Stack(g) = item {
                let group = &view.table.tree.groups[g as usize];
                let galley = painter.layout_no_wrap(
                    format!("{} ({})", group.name, group.total),
                    egui::FontId::proportional((14.0 * zoom).clamp(9.0, 18.0)),
                    egui::Color32::from_gray(230),
                );
                let top = view.to_screen(at);
                let at = egui::pos2(top.x - galley.size().x / 2.0, top.y);
                let hovered = hovered_item == Some(item);
                let standing = if hovered {
                    Standing::Hovered
                } else if view.table.selected().contains(&item) {
                    Standing::Selected
                } else {
                    Standing::Stack
                };
                labels.add(galley, at, standing, group.total as u32, hovered);
            }
        }
        // The card under the pointer: outlined, and named below it.
        if let Some(id) = view.hovered
            && let Some(c) = view.table.card(id)
            && !matches!(c.item, Item::Tray(_))
        {
            outline(
                &painter,
                view,
                c,
                3.0,
                egui::Stroke::new(2.0, egui::Color32::from_gray(250)),
            );
            if let Item::Photo(row) = c.item {
                let galley = painter.layout_no_wrap(
                    self.library.photos[row as usize].name.clone(),
                    egui::FontId::proportional(13.0),
                    egui::Color32::WHITE,
                );
                let bottom = view.to_screen(c.pos + Vec2::new(0.0, c.half.y));
                let at = egui::pos2(bottom.x - galley.size().x / 2.0, bottom.y + 6.0);
                labels.add(galley, at, Standing::Hovered, 1, true);
            }
        }
        // The stack a held card would go into: ringed, and named.
        if let Some(id) = view.drop_target
            && let Some(c) = view.table.card(id)
            && let Item::Stack(g) = c.item
        {
            outline(
                &painter,
                view,
                c,
                8.0,
                egui::Stroke::new(3.0, selected_colour),
            );
            let galley = painter.layout_no_wrap(
                format!("Drop into {}", view.table.tree.groups[g as usize].name),
                egui::FontId::proportional(14.0),
                egui::Color32::WHITE,
            );
            // Above the ring, 8 points out.
            let top = view.to_screen(c.pos - Vec2::new(0.0, c.half.y)) - egui::vec2(0.0, 8.0);
            let at = egui::pos2(top.x - galley.size().x / 2.0, top.y - galley.size().y - 6.0);
            labels.add(galley, at, Standing::Hovered, u32::MAX, true);
        }
        labels.paint(&painter);
        if let (Some(Gesture::Band(from)), Some(to)) =
            (view.gesture, ui.input(|i| i.pointer.interact_pos()))
        {
            let r = egui::Rect::from_two_pos(from, to);
            painter.rect_filled(r, 0.0, selected_colour.gamma_multiply(0.15));
            painter.rect_stroke(
                r,
                0.0,
                egui::Stroke::new(1.0, selected_colour),
                egui::StrokeKind::Inside,
            );
        }
    }

    /// Whether a card is a photo with transparency (drawn cut out).
    fn is_masked(&self, _view: &TableView, item: Item) -> bool {
        let Item::Photo(row) = item else {
            return false;
        };
        let id = self.library.photos[row as usize].id;
        matches!(self.masks.get(&id), Some(Some(_)))
    }

    /// The texture, the four corners' texture coordinates and a white
    /// texel for a photo shown `px` pixels wide: its full thumbnail when
    /// near, its small one when far or while the full one loads.
    fn card_image(
        &self,
        view: &TableView,
        id: FileId,
        px: f32,
    ) -> Option<(egui::TextureId, [egui::Pos2; 4], egui::Pos2)> {
        if px < COLOUR_BELOW {
            return None;
        }
        let full = || {
            let t = self.thumbs.get(&id)?;
            let slot = self.atlas.get(id as u64)?;
            let page = self.pages.get(slot.page as usize)?.as_ref()?;
            Some((page.id(), slot, t.size, self.atlas.page_side()))
        };
        let mini = || {
            let size = *view.minis.get(&id)?;
            let slot = view.mini_atlas.get(id as u64)?;
            let page = view.mini_pages.get(slot.page as usize)?.as_ref()?;
            Some((page.id(), slot, size, view.mini_atlas.page_side()))
        };
        let (tex, slot, size, side) = if px >= MINI_BELOW {
            full().or_else(mini)?
        } else {
            mini().or_else(full)?
        };
        let s = side as f32;
        let (u0, v0) = ((slot.x + 1) as f32 / s, (slot.y + 1) as f32 / s);
        let (u1, v1) = (u0 + size[0] as f32 / s, v0 + size[1] as f32 / s);
        let uv = [
            egui::pos2(u0, v0),
            egui::pos2(u1, v0),
            egui::pos2(u1, v1),
            egui::pos2(u0, v1),
        ];
        Some((tex, uv, white_uv(side)))
    }
}

/// How far the card showing photo `id` lies from `centre` (see
/// [`TableView::distance`]).
fn distance_from(table: &Table, centre: Vec2, library: &crate::library::Library, id: u64) -> u64 {
    library
        .index_of(id as FileId)
        .and_then(|r| table.showing(r))
        .and_then(|c| table.card(c))
        .map_or(u64::MAX, |c| (c.pos - centre).length() as u64)
}

/// A line around a card, `points` outside its edges on the screen.
fn outline(
    painter: &egui::Painter,
    view: &TableView,
    card: &crate::table::Card,
    points: f32,
    stroke: egui::Stroke,
) {
    let mut grown = card.clone();
    let grow = points / view.zoom().max(0.05);
    grown.half += Vec2::new(grow, grow);
    let corners: Vec<egui::Pos2> = grown.corners().iter().map(|&p| view.to_screen(p)).collect();
    painter.add(egui::Shape::closed_line(corners, stroke));
}

/// A page's blank image, with a white block in the corner no slot uses,
/// so plain quads can be drawn with the page's texture (one mesh per run
/// of cards, not two).
pub(super) fn page_image(side: usize) -> egui::ColorImage {
    let mut image = egui::ColorImage::filled([side, side], egui::Color32::TRANSPARENT);
    for y in side - 4..side {
        for x in side - 4..side {
            image.pixels[y * side + x] = egui::Color32::WHITE;
        }
    }
    image
}

/// The white texel of a page made by [`page_image`].
fn white_uv(side: u32) -> egui::Pos2 {
    let t = (side as f32 - 2.0) / side as f32;
    egui::pos2(t, t)
}

/// Appends a textured quad (corners clockwise from the top left).
fn quad(mesh: &mut Mesh, corners: [egui::Pos2; 4], uv: [egui::Pos2; 4], colour: egui::Color32) {
    let base = mesh.vertices.len() as u32;
    for (pos, uv) in corners.into_iter().zip(uv) {
        mesh.vertices.push(Vertex {
            pos,
            uv,
            color: colour,
        });
    }
    mesh.add_triangle(base, base + 1, base + 2);
    mesh.add_triangle(base, base + 2, base + 3);
}

/// The average colour of RGBA pixels (a far card's whole picture).
fn average(rgba: &[u8]) -> egui::Color32 {
    let mut sum = [0u64; 3];
    let mut n = 0u64;
    for p in rgba.chunks_exact(4) {
        if p[3] >= 128 {
            sum[0] += u64::from(p[0]);
            sum[1] += u64::from(p[1]);
            sum[2] += u64::from(p[2]);
            n += 1;
        }
    }
    let n = n.max(1);
    egui::Color32::from_rgb((sum[0] / n) as u8, (sum[1] / n) as u8, (sum[2] / n) as u8)
}

/// The names a frame of the table would draw, placed together so that
/// none overlaps another (`table::labels::place`).
struct Labels {
    /// The view: a name is kept inside it (one at the edge would be cut).
    bounds: egui::Rect,
    candidates: Vec<Candidate>,
    galleys: Vec<(std::sync::Arc<egui::Galley>, egui::Pos2, bool)>,
}

impl Labels {
    /// A name at `at` (its top-left corner); `backed` draws it on a dark
    /// band (over cards, as the hovered card's).
    fn add(
        &mut self,
        galley: std::sync::Arc<egui::Galley>,
        at: egui::Pos2,
        standing: Standing,
        size: u32,
        backed: bool,
    ) {
        let extent = galley.size();
        let kept = egui::pos2(
            at.x.min(self.bounds.max.x - extent.x - 6.0)
                .max(self.bounds.min.x + 6.0),
            at.y.min(self.bounds.max.y - extent.y - 4.0)
                .max(self.bounds.min.y + 4.0),
        );
        // A tray's name kept at the view's edge lies over cards: it is
        // backed, and of the nested trays pinned there the innermost (the
        // fewest photos) is the one named.
        let (size, backed) = if (kept - at).length() > 0.5 && standing == Standing::Tray {
            (u32::MAX - size, true)
        } else {
            (size, backed)
        };
        let at = kept;
        let r = egui::Rect::from_min_size(at, extent).expand(2.0);
        self.candidates.push(Candidate {
            min: [r.min.x, r.min.y],
            max: [r.max.x, r.max.y],
            standing,
            size,
        });
        self.galleys.push((galley, at, backed));
    }

    fn paint(self, painter: &egui::Painter) {
        let shown = place(&self.candidates);
        for ((galley, at, backed), show) in self.galleys.into_iter().zip(shown) {
            if !show {
                continue;
            }
            if backed {
                painter.rect_filled(
                    egui::Rect::from_min_size(at, galley.size()).expand2(egui::vec2(5.0, 2.0)),
                    4.0,
                    egui::Color32::from_black_alpha(190),
                );
            }
            painter.galley(at, galley, egui::Color32::from_gray(230));
        }
    }
}
