//! The thumbnail grid: only the visible rows are laid out (100,000 photos
//! cost what one screen costs), under group headers when grouped, selection with mouse and keys, what the
//! loader makes next (visible first, then the next screens in the
//! scrolling direction), and the atlas pages the thumbnails are uploaded
//! into.

use std::sync::Arc;
use std::time::{Duration, Instant};

use catalog::FileId;
use eframe::egui;

use super::{Thumb, ViewerApp};
use crate::grid_layout::{GridLayout, Line};
use crate::library::{Grouping, Library, month_title};
use crate::loader::Want;
use crate::thumbnail::Source as ThumbSource;

/// A colour label's colour.
pub(super) fn label_colour(label: &str) -> Option<egui::Color32> {
    Some(match label {
        "red" => egui::Color32::from_rgb(220, 60, 60),
        "yellow" => egui::Color32::from_rgb(230, 200, 40),
        "green" => egui::Color32::from_rgb(70, 170, 80),
        "blue" => egui::Color32::from_rgb(60, 120, 220),
        "purple" => egui::Color32::from_rgb(150, 90, 200),
        _ => return None,
    })
}

/// A five-pointed star of outer radius `r` (the fonts have no star
/// glyph): a pentagon and five tips, each convex.
pub(super) fn paint_star(painter: &egui::Painter, c: egui::Pos2, r: f32, colour: egui::Color32) {
    let point = |k: usize, radius: f32| {
        let a = -std::f32::consts::FRAC_PI_2 + k as f32 * std::f32::consts::PI / 5.0;
        c + radius * egui::vec2(a.cos(), a.sin())
    };
    let inner: Vec<egui::Pos2> = (0..5).map(|k| point(2 * k + 1, r * 0.42)).collect();
    painter.add(egui::Shape::convex_polygon(
        inner.clone(),
        colour,
        egui::Stroke::NONE,
    ));
    for k in 0..5 {
        let tip = point(2 * k, r);
        let (a, b) = (inner[(k + 4) % 5], inner[k]);
        painter.add(egui::Shape::convex_polygon(
            vec![tip, b, a],
            colour,
            egui::Stroke::NONE,
        ));
    }
}

/// The height of the name under a thumbnail.
const LABEL_HEIGHT: f32 = 18.0;

/// A header's height above a group's photos.
const HEADER_HEIGHT: f32 = 30.0;

/// A cursor move: by places (left, right, to the ends) or by photo lines
/// (up, down, a page), which a grouped grid counts line by line.
#[derive(Clone, Copy)]
enum Move {
    By(isize),
    Lines(isize),
}

/// The longest a frame spends uploading thumbnails (the rest wait for the
/// next frame, so scrolling stays smooth while thousands arrive).
const UPLOAD_BUDGET: Duration = Duration::from_millis(4);

impl ViewerApp {
    /// Columns for a width.
    fn columns(&self, width: f32, spacing: f32) -> usize {
        (((width + spacing) / (self.cell + spacing)).floor() as usize).max(1)
    }

    pub(super) fn grid(&mut self, ui: &mut egui::Ui) {
        let n = self.rows.len();
        if n == 0 && self.indexing.is_running() && self.query.trim().is_empty() {
            self.indexing.centre(ui);
            return;
        }
        if n == 0 {
            ui.centered_and_justified(|ui| {
                ui.label(if !self.loaded {
                    "Loading the catalogue…".to_owned()
                } else if self.query.trim().is_empty() {
                    "No photos here yet: open folders with `viewer2 DIR…`".to_owned()
                } else {
                    format!("No photo matches {}, even with a typo", self.query.trim())
                });
            });
            return;
        }
        let spacing = ui.spacing().item_spacing;
        let cols = self.columns(ui.available_width(), spacing.x);
        let row_height = self.cell + LABEL_HEIGHT;
        let row_step = row_height + spacing.y;
        let key = (
            Arc::as_ptr(&self.groups) as usize,
            n,
            cols,
            row_step.to_bits(),
        );
        if self.layout_key != Some(key) {
            self.layout_key = Some(key);
            self.layout =
                GridLayout::new(n, &self.groups, cols, row_step, HEADER_HEIGHT + spacing.y);
        }
        let view_height = ui.available_height();
        let rows_per_page = ((view_height / row_step).floor() as usize).max(1);
        self.keyboard(ui, rows_per_page);

        let mut area = egui::ScrollArea::vertical()
            .id_salt("grid")
            .auto_shrink([false, false]);
        let id = ui.make_persistent_id("grid-offset");
        let offset: f32 = ui.data(|d| d.get_temp(id)).unwrap_or(0.0);
        if self.reveal_cursor
            && let Some(c) = self.cursor
        {
            self.reveal_cursor = false;
            let line = self.layout.line_of(c);
            let mut top = self.layout.top(line);
            // The group's header shows with its first row.
            if line > 0 && matches!(self.layout.lines[line - 1], Line::Header { .. }) {
                top = self.layout.top(line - 1);
            }
            let bottom = self.layout.top(line) + row_height;
            if top < offset {
                area = area.vertical_scroll_offset(top);
            } else if bottom > offset + view_height {
                area = area.vertical_scroll_offset(bottom - view_height);
            }
        }
        let mut seen = (usize::MAX, 0usize);
        let layout = std::mem::take(&mut self.layout);
        let out = area.show_viewport(ui, |ui, viewport| {
            ui.set_height(layout.height());
            let origin = ui.max_rect().min;
            let width = ui.max_rect().width();
            for line in layout.lines_between(viewport.min.y, viewport.max.y) {
                let top = origin.y + layout.top(line);
                match layout.lines[line] {
                    Line::Header { group } => {
                        let rect = egui::Rect::from_min_size(
                            egui::pos2(origin.x, top),
                            egui::vec2(width, HEADER_HEIGHT),
                        );
                        self.group_header(ui, group as usize, rect);
                    }
                    Line::Photos { start, end } => {
                        let (start, end) = (start as usize, end as usize);
                        seen = (seen.0.min(start), seen.1.max(end));
                        for place in start..end {
                            let min = egui::pos2(
                                origin.x + (place - start) as f32 * (self.cell + spacing.x),
                                top,
                            );
                            let rect =
                                egui::Rect::from_min_size(min, egui::vec2(self.cell, row_height));
                            self.cell_ui(ui, place, rect);
                        }
                    }
                }
            }
        });
        self.layout = layout;
        let new_offset = out.state.clamped_offset().y;
        if new_offset != offset {
            self.scrolling_down = new_offset > offset;
        }
        ui.data_mut(|d| d.insert_temp(id, new_offset));
        if seen.0 != usize::MAX {
            // The first place showing whole or in part below the top.
            let first_line = self
                .layout
                .lines_between(new_offset, new_offset + 1.0)
                .start;
            let first_shown = self.layout.first_place_from(first_line).unwrap_or(seen.0);
            self.visible = (first_shown.max(seen.0), seen.1);
            self.want_thumbnails(cols * rows_per_page);
        }
    }

    /// A group's header across the grid: the folder (its path from the
    /// library's root) or the month, and how many photos it holds.
    fn group_header(&self, ui: &mut egui::Ui, group: usize, rect: egui::Rect) {
        let Some(g) = self.groups.get(group) else {
            return;
        };
        let end = self
            .groups
            .get(group + 1)
            .map_or(self.rows.len(), |next| next.start as usize);
        let count = end.saturating_sub(g.start as usize);
        let title = match self.grouping {
            Grouping::Month => month_title(&g.key),
            _ => {
                let folders = &self.library.folders;
                let chain: Vec<&str> = folders
                    .chain(&g.key)
                    .into_iter()
                    .map(|i| folders.folders[i].name.as_str())
                    .collect();
                if chain.is_empty() {
                    g.key.clone()
                } else {
                    chain.join(" › ")
                }
            }
        };
        let photos = if count == 1 { "photo" } else { "photos" };
        let spoken = format!("{title}, {count} {photos}");
        ui.interact(
            rect,
            ui.scope_id().with(("group", group)),
            egui::Sense::hover(),
        )
        .widget_info(|| egui::WidgetInfo::labeled(egui::Role::Label, true, &spoken));
        let visuals = ui.visuals();
        let painter = ui.painter_at(rect);
        let strong = visuals.strong_text_color();
        let weak = visuals.weak_text_color();
        let counted = one_line(ui, &format!("{count} {photos}"), 13.0, weak, rect.width());
        let title_room = (rect.width() - counted.size().x - 16.0).max(20.0);
        let title = one_line(ui, &title, 15.0, strong, title_room);
        let y = rect.bottom() - 6.0 - title.size().y;
        let count_x = rect.left() + 2.0 + title.size().x + 12.0;
        painter.galley(egui::pos2(rect.left() + 2.0, y), title, strong);
        painter.galley(
            egui::pos2(count_x, rect.bottom() - 6.0 - counted.size().y),
            counted,
            weak,
        );
        painter.hline(
            rect.x_range(),
            rect.bottom() - 1.0,
            egui::Stroke::new(1.0, visuals.widgets.noninteractive.bg_stroke.color),
        );
    }

    /// One photo's cell: thumbnail (or placeholder, or the reason it is
    /// broken), name, selection.
    fn cell_ui(&mut self, ui: &mut egui::Ui, place: usize, rect: egui::Rect) {
        let i = self.rows[place] as usize;
        let photo = &self.library.photos[i];
        let id = photo.id;
        let is_selected = self.selected.contains(&id);
        let response = ui.interact(rect, ui.scope_id().with(("cell", id)), egui::Sense::click());
        let name = photo.name.clone();
        response.widget_info(|| {
            egui::WidgetInfo::selected(egui::Role::Button, true, is_selected, &name)
        });
        let painter = ui.painter_at(rect);
        let visuals = ui.visuals();
        if is_selected {
            painter.rect_filled(rect, 4.0, visuals.selection.bg_fill);
        } else if response.hovered() {
            painter.rect_filled(rect, 4.0, visuals.widgets.hovered.weak_bg_fill);
        }
        let image_area =
            egui::Rect::from_min_size(rect.min, egui::vec2(self.cell, self.cell)).shrink(4.0);
        let mut response = response;
        if let Some(reason) = self.broken.get(&id) {
            painter.rect_filled(image_area, 2.0, visuals.extreme_bg_color);
            let text = one_line(
                ui,
                "cannot show",
                14.0,
                visuals.warn_fg_color,
                image_area.width() - 4.0,
            );
            let at = image_area.center() - text.size() / 2.0;
            painter.galley(at, text, visuals.warn_fg_color);
            response = response.on_hover_text(format!("{name}: {reason}"));
        } else if !self.paint_thumbnail(&painter, id, image_area) {
            painter.rect_filled(image_area, 2.0, visuals.faint_bg_color);
        } else if let Some(problem) = self.thumbs.get(&id).and_then(|t| t.problem.clone()) {
            // Only part of the file, or its preview: a mark in the corner
            // (a "!" on the warning colour; the default fonts have no ⚠),
            // the reason when hovered.
            let picture = self.shown_at(id, image_area);
            let centre = picture.left_top() + egui::vec2(10.0, 10.0);
            painter.circle_filled(centre, 8.0, visuals.warn_fg_color);
            let mark = one_line(ui, "!", 13.0, egui::Color32::BLACK, 16.0);
            painter.galley(centre - mark.size() / 2.0, mark, egui::Color32::BLACK);
            response = response.on_hover_text(format!("{name}: {problem}"));
        }
        // The user's marks over the picture: stars at its foot, the colour
        // label as a dot in its corner.
        let (rating, label) = {
            let p = &self.library.photos[i];
            (p.rating, p.label.clone())
        };
        if rating > 0 {
            let r = (self.cell / 24.0).clamp(3.0, 7.0);
            let base = image_area.left_bottom() + egui::vec2(r + 4.0, -r - 4.0);
            let band = egui::Rect::from_min_max(
                base - egui::vec2(r + 3.0, r + 3.0),
                base + egui::vec2(2.0 * r * 1.1 * (rating as f32 - 1.0) + r + 3.0, r + 3.0),
            );
            painter.rect_filled(band, 3.0, egui::Color32::from_black_alpha(150));
            for k in 0..rating {
                let c = base + egui::vec2(2.0 * r * 1.1 * k as f32, 0.0);
                paint_star(&painter, c, r, egui::Color32::from_rgb(250, 205, 60));
            }
        }
        if let Some(colour) = label_colour(&label) {
            let r = (self.cell / 28.0).clamp(3.0, 6.0);
            let c = image_area.left_top() + egui::vec2(r + 4.0, r + 4.0);
            painter.circle(
                c,
                r,
                colour,
                egui::Stroke::new(1.0, egui::Color32::from_black_alpha(160)),
            );
        }
        // The name on one line, cut at its end with an ellipsis to fit the
        // cell (centring a longer line would cut its start off instead).
        let label = one_line(ui, &name, 12.0, visuals.text_color(), rect.width() - 8.0);
        let label_pos = egui::pos2(
            rect.center().x - label.size().x / 2.0,
            rect.min.y + self.cell,
        );
        painter.galley(label_pos, label, visuals.text_color());
        if Some(place) == self.cursor {
            painter.rect_stroke(
                rect.shrink(1.0),
                4.0,
                visuals.selection.stroke,
                egui::StrokeKind::Inside,
            );
        }
        if response.clicked() {
            let modifiers = ui.input(|i| i.modifiers);
            self.click(place, modifiers);
        }
        if response.secondary_clicked() && !self.selected.contains(&id) {
            // As file managers do: the menu is for what was clicked.
            self.click(place, egui::Modifiers::NONE);
        }
        response.context_menu(|ui| self.file_actions(ui));
        if response.double_clicked() {
            self.click(place, egui::Modifiers::NONE);
            self.open_loupe(place);
        }
    }

    /// Paints photo `id`'s thumbnail fitted into `area`; false when it
    /// has none in the atlas.
    pub(super) fn paint_thumbnail(
        &self,
        painter: &egui::Painter,
        id: FileId,
        area: egui::Rect,
    ) -> bool {
        let (Some(t), Some(slot)) = (self.thumbs.get(&id), self.atlas.get(id as u64)) else {
            return false;
        };
        let Some(Some(page)) = self.pages.get(slot.page as usize) else {
            return false;
        };
        let side = self.atlas.page_side() as f32;
        let shown = shown_rect(t.size, area);
        let (w, h) = (t.size[0] as f32, t.size[1] as f32);
        // The slot's first pixel is a gutter, so sampling never bleeds
        // into the neighbour.
        let uv = egui::Rect::from_min_size(
            egui::pos2((slot.x + 1) as f32 / side, (slot.y + 1) as f32 / side),
            egui::vec2(w / side, h / side),
        );
        painter.image(page.id(), shown, uv, egui::Color32::WHITE);
        true
    }

    /// Where a thumbnail of `size` is painted in `area`: fitted, centred.
    fn shown_at(&self, id: FileId, area: egui::Rect) -> egui::Rect {
        self.thumbs
            .get(&id)
            .map_or(area, |t| shown_rect(t.size, area))
    }

    fn click(&mut self, place: usize, m: egui::Modifiers) {
        let id = self.id_at(place);
        if m.shift {
            let anchor = self.anchor.unwrap_or(place);
            if !m.command {
                self.selected.clear();
            }
            self.select_range(anchor, place);
        } else if m.command {
            if !self.selected.remove(&id) {
                self.selected.insert(id);
            }
            self.anchor = Some(place);
        } else {
            self.selected.clear();
            self.selected.insert(id);
            self.anchor = Some(place);
        }
        self.cursor = Some(place);
    }

    fn id_at(&self, place: usize) -> FileId {
        self.library.photos[self.rows[place] as usize].id
    }

    fn select_range(&mut self, a: usize, b: usize) {
        let (lo, hi) = (a.min(b), a.max(b));
        for p in lo..=hi.min(self.rows.len().saturating_sub(1)) {
            let id = self.id_at(p);
            self.selected.insert(id);
        }
    }

    /// Arrows, Page Up/Down, Home/End (with Shift to extend the
    /// selection), Enter for the loupe, Ctrl+A for all, S for a slideshow.
    fn keyboard(&mut self, ui: &mut egui::Ui, rows_per_page: usize) {
        if ui.ctx().egui_wants_keyboard_input() || self.rows.is_empty() {
            return;
        }
        let n = self.rows.len();
        let (moves, modifiers, enter, all, show) = ui.input(|i| {
            let page = rows_per_page as isize;
            let step = |key: egui::Key| -> Option<Move> {
                Some(match key {
                    egui::Key::ArrowLeft => Move::By(-1),
                    egui::Key::ArrowRight => Move::By(1),
                    egui::Key::ArrowUp => Move::Lines(-1),
                    egui::Key::ArrowDown => Move::Lines(1),
                    egui::Key::PageUp => Move::Lines(-page),
                    egui::Key::PageDown => Move::Lines(page),
                    egui::Key::Home => Move::By(isize::MIN / 2),
                    egui::Key::End => Move::By(isize::MAX / 2),
                    _ => return None,
                })
            };
            // Every press counts, in order, however many one slow frame
            // holds (`key_pressed` would see three presses as one).
            let moves: Vec<Move> = i
                .events
                .iter()
                .filter_map(|e| match e {
                    egui::Event::Key {
                        key, pressed: true, ..
                    } => step(*key),
                    _ => None,
                })
                .collect();
            (
                moves,
                i.modifiers,
                i.key_pressed(egui::Key::Enter),
                i.modifiers.command && i.key_pressed(egui::Key::A),
                i.key_pressed(egui::Key::S) && !i.modifiers.any(),
            )
        });
        let moved = (!moves.is_empty()).then_some(moves);
        if all {
            for p in 0..n {
                let id = self.id_at(p);
                self.selected.insert(id);
            }
        }
        if let Some(moves) = moved {
            let from = self.cursor.unwrap_or(0) as isize;
            let to = if self.cursor.is_none() {
                0
            } else {
                // Each step is clamped on its own, as it would have been
                // in a frame of its own.
                moves.iter().fold(from, |at, m| match *m {
                    Move::By(d) => at.saturating_add(d).clamp(0, n as isize - 1),
                    Move::Lines(k) => self.layout.step(at as usize, k) as isize,
                }) as usize
            };
            if modifiers.shift {
                let anchor = *self.anchor.get_or_insert(from as usize);
                self.selected.clear();
                self.select_range(anchor, to);
                self.cursor = Some(to);
            } else {
                self.click(to, egui::Modifiers::NONE);
            }
            self.reveal_cursor = true;
        }
        if enter && let Some(c) = self.cursor {
            self.open_loupe(c);
        }
        if show {
            self.start_slideshow();
        }
    }

    /// Asks the loader for the visible photos, then the next screens in
    /// the scrolling direction and a little behind, as many as the atlas
    /// holds. Only asks again when the view or the result changed.
    fn want_thumbnails(&mut self, screen: usize) {
        let n = self.rows.len();
        let (first, last) = self.visible;
        let capacity = self.atlas.capacity();
        let mut places: Vec<usize> = (first..last).collect();
        let ahead = capacity.saturating_sub(places.len()).min(3 * screen);
        let behind = ahead / 4;
        let (fwd, back): (Vec<usize>, Vec<usize>) = if self.scrolling_down {
            (
                (last..n).take(ahead - behind).collect(),
                (0..first).rev().take(behind).collect(),
            )
        } else {
            (
                (0..first).rev().take(ahead - behind).collect(),
                (last..n).take(behind).collect(),
            )
        };
        places.extend(fwd);
        places.extend(back);
        let rows: Vec<u32> = places.iter().map(|&p| self.rows[p]).collect();
        self.ask_for_thumbnails(&rows);
    }

    /// Asks the loader for these photos' thumbnails (library indexes, most
    /// wanted first), unless it was asked for exactly these last; photos
    /// done or broken are left out.
    pub(super) fn ask_for_thumbnails(&mut self, rows: &[u32]) {
        let library = &self.library;
        let ids: Vec<FileId> = rows
            .iter()
            .map(|&r| library.photos[r as usize].id)
            .collect();
        if ids == self.wanted {
            return;
        }
        self.wanted = ids;
        let mut wants = Vec::new();
        self.waiting.clear();
        for (priority, &r) in rows.iter().enumerate() {
            let photo = &library.photos[r as usize];
            let done = self.thumbs.get(&photo.id).is_some_and(|t| !t.preview);
            if done || self.broken.contains_key(&photo.id) {
                continue;
            }
            self.waiting.insert(photo.id);
            wants.push(Want {
                id: photo.id as u64,
                path: photo.path.clone(),
                priority: priority as i64,
            });
        }
        self.loader.want(wants);
    }

    /// Uploads the thumbnails the loader finished into the atlas, for at
    /// most [`UPLOAD_BUDGET`] a frame.
    pub(super) fn receive_thumbnails(&mut self, ctx: &egui::Context) {
        let started = Instant::now();
        while started.elapsed() < UPLOAD_BUDGET {
            let Some(answer) = self.loader.try_recv() else {
                break;
            };
            let id = answer.id as FileId;
            let thumb = match answer.result {
                Ok(t) => t,
                Err(e) => {
                    self.broken.insert(id, e.to_string());
                    self.waiting.remove(&id);
                    continue;
                }
            };
            if thumb.width > super::THUMB_SIZE || thumb.height > super::THUMB_SIZE {
                // An embedded preview bigger than a slot: wait for the
                // real one.
                continue;
            }
            if thumb.rgba.len() != (thumb.width * thumb.height * 4) as usize {
                // Never taken a slot for.
                continue;
            }
            let preview = thumb.source == ThumbSource::Embedded;
            if !preview {
                self.waiting.remove(&id);
            }
            if !preview {
                self.table_thumbnail_arrived(id, &thumb);
            }
            let (library, place, visible) = (&self.library, &self.place, self.visible);
            let on_table = self.table.as_ref().filter(|_| self.on_table);
            let distance = |h: u64| match on_table {
                Some(view) => view.distance(library, h),
                None => distance(library, place, visible, h),
            };
            let Some((slot, evicted)) = self.atlas.insert(answer.id, distance) else {
                continue;
            };
            if let Some(old) = evicted {
                self.thumbs.remove(&(old as FileId));
            }
            let side = self.atlas.page_side() as usize;
            let (w, h) = (thumb.width, thumb.height);
            upload(
                ctx,
                &mut self.pages,
                "thumbnails",
                side,
                slot,
                [w, h],
                &thumb.rgba,
            );
            self.thumbs.insert(
                id,
                Thumb {
                    size: [w, h],
                    full: thumb.full_size,
                    preview,
                    problem: thumb.problem.clone(),
                },
            );
        }
    }
}

/// A thumbnail of `size` fitted into `area`, centred.
fn shown_rect(size: [u32; 2], area: egui::Rect) -> egui::Rect {
    let (w, h) = (size[0].max(1) as f32, size[1].max(1) as f32);
    let scale = (area.width() / w).min(area.height() / h);
    egui::Rect::from_center_size(area.center(), egui::vec2(w, h) * scale)
}

/// How far a photo is from the view, in places (`u64::MAX` when it is not
/// in the result): the atlas evicts the farthest.
fn distance(library: &Library, place: &[u32], visible: (usize, usize), id: u64) -> u64 {
    let Some(i) = library.index_of(id as FileId) else {
        return u64::MAX;
    };
    let p = place.get(i as usize).copied().unwrap_or(u32::MAX);
    if p == u32::MAX {
        return u64::MAX;
    }
    let p = p as usize;
    let (first, last) = visible;
    if p < first {
        (first - p) as u64
    } else if p >= last {
        (p + 1 - last) as u64
    } else {
        0
    }
}

/// Copies a thumbnail (`size`, RGBA) into its atlas slot, past the slot's
/// 1-pixel gutter, making the slot's page texture (`name-N`, `side`²) on
/// first use.
pub(super) fn upload(
    ctx: &egui::Context,
    pages: &mut Vec<Option<egui::TextureHandle>>,
    name: &str,
    side: usize,
    slot: crate::atlas::Slot,
    size: [u32; 2],
    rgba: &[u8],
) {
    let page = slot.page as usize;
    if pages.len() <= page {
        pages.resize(page + 1, None);
    }
    let texture = pages[page].get_or_insert_with(|| {
        ctx.load_texture(
            format!("{name}-{page}"),
            super::table::page_image(side),
            egui::TextureOptions::LINEAR,
        )
    });
    let image =
        egui::ColorImage::from_rgba_unmultiplied([size[0] as usize, size[1] as usize], rgba);
    texture.set_partial(
        [slot.x as usize + 1, slot.y as usize + 1],
        image,
        egui::TextureOptions::LINEAR,
    );
}

/// `text` laid out on one line of at most `width` points, cut at its end
/// with an ellipsis when longer.
fn one_line(
    ui: &egui::Ui,
    text: &str,
    size: f32,
    color: egui::Color32,
    width: f32,
) -> std::sync::Arc<egui::Galley> {
    let mut job = egui::text::LayoutJob::simple_singleline(
        text.to_owned(),
        egui::FontId::proportional(size),
        color,
    );
    job.wrap = egui::text::TextWrapping::truncate_at_width(width.max(1.0));
    ui.fonts_mut(|f| f.layout_job(job))
}
