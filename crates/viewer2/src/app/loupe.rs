//! The loupe: one photo fitted to the window; wheel (about the cursor),
//! `+`/`-`, `1` for 1:1 and `0` to fit; drag to pan; Left/Right for the
//! neighbours, which decode ahead; Esc or Enter back to the grid.
//!
//! The photo is decoded at most [`LOUPE_SIZE`] pixels on its long side.
//! Its decode and its neighbours' share a memory budget of half the memory
//! available when the loupe's loader started: each reserves its peak
//! (known from the file's header, by format, bit depth and channels)
//! before it starts, so three decompression bombs side by side wait for
//! each other instead of adding up. A photo whose decode could never fit
//! shows what it needs and what is free, and offers Retry (after the user
//! frees memory: the budget is measured again) or a reduced view (1024 px,
//! which JPEG decodes at 1/2 to 1/8 scale); the window never goes away.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use catalog::FileId;
use eframe::egui;

use super::ViewerApp;
use crate::loader::{Loader, Want};
use crate::thumbnail::{Limits, ThumbError};

/// The longest side the loupe decodes to.
pub const LOUPE_SIZE: u32 = 4096;

/// The longest side of the reduced view.
const REDUCED_SIZE: u32 = 1024;

/// A photo in the loupe.
enum Shown {
    Ready {
        texture: egui::TextureHandle,
        full: (u32, u32),
        /// What is wrong with the file when only part of it shows.
        problem: Option<String>,
    },
    Failed {
        reason: String,
        /// Bytes a full decode needs, where memory was the problem.
        needs: Option<u64>,
    },
}

/// The loupe's state.
pub(super) struct Loupe {
    /// The photo's place in the result.
    pub place: usize,
    /// Screen pixels per photo pixel; `None` fits the window.
    zoom: Option<f32>,
    /// The photo's centre, from the view's centre, in points.
    pan: egui::Vec2,
    images: HashMap<FileId, Shown>,
    waiting: HashSet<FileId>,
    wanted: Vec<FileId>,
    /// The zoom last drawn (screen pixels per photo pixel), for the
    /// percentage shown.
    shown_zoom: Option<f32>,
    /// The slideshow runs: when it steps next.
    slideshow: Option<std::time::Instant>,
}

impl Loupe {
    /// Whether a decode is owed, or not asked for yet (just opened or
    /// restarted).
    pub(super) fn is_waiting(&self) -> bool {
        !self.waiting.is_empty() || self.wanted.is_empty()
    }

    /// Forgets photo `id`'s picture (its file changed): it is decoded
    /// again.
    pub(super) fn forget(&mut self, id: FileId) {
        self.images.remove(&id);
        self.wanted.clear();
    }

    pub(super) fn is_ready(&self, id: FileId) -> bool {
        matches!(self.images.get(&id), Some(Shown::Ready { .. }))
    }

    /// What is wrong with photo `id`'s file, when only part of it shows.
    pub(super) fn problem_of(&self, id: FileId) -> Option<String> {
        match self.images.get(&id) {
            Some(Shown::Ready { problem, .. }) => problem.clone(),
            _ => None,
        }
    }
}

/// The memory a decode may take now: half of what the system has
/// available (the rest is the system's and the other photos').
use crate::loader::available_bytes;

/// The loupe's decode budget: `set` bytes, or half the memory available
/// now.
pub(super) fn budget(set: Option<u64>) -> Arc<photo::MemoryBudget> {
    Arc::new(photo::MemoryBudget::new(
        set.unwrap_or_else(|| available_bytes() / 2),
    ))
}

impl ViewerApp {
    pub(super) fn open_loupe(&mut self, place: usize) {
        if place >= self.rows.len() {
            return;
        }
        self.cursor = Some(place);
        self.loupe = Some(Loupe {
            place,
            zoom: None,
            pan: egui::Vec2::ZERO,
            images: HashMap::new(),
            waiting: HashSet::new(),
            wanted: Vec::new(),
            shown_zoom: None,
            slideshow: None,
        });
    }

    /// Opens the loupe on the focused photo (the first if none) and starts
    /// the slideshow there.
    pub(super) fn start_slideshow(&mut self) {
        if self.loupe.is_none() {
            self.open_loupe(self.cursor.unwrap_or(0));
        }
        if let Some(l) = &mut self.loupe {
            l.slideshow = Some(std::time::Instant::now() + self.slide_interval);
        }
    }

    /// Whether the slideshow runs.
    pub fn slideshow_running(&self) -> bool {
        self.loupe.as_ref().is_some_and(|l| l.slideshow.is_some())
    }

    /// The zoom shown in the loupe, in percent.
    pub fn loupe_zoom_percent(&self) -> Option<f32> {
        Some(self.loupe.as_ref()?.shown_zoom? * 100.0)
    }

    /// Restarts the loupe's loader: `reduced` for the 1024 px view, else
    /// full size with the limit measured again.
    fn restart_loupe_loader(&mut self, reduced: bool) {
        let (size, limits) = if reduced {
            (REDUCED_SIZE, Limits::default())
        } else {
            (LOUPE_SIZE, self.loupe_limits.unwrap_or_default())
        };
        let budget = budget(self.loupe_budget);
        match Loader::with_budget(2, size, limits, Arc::clone(&self.source), None, budget) {
            Ok(l) => self.loupe_loader = l,
            Err(e) => tracing::warn!("cannot restart the loupe's loader: {e}"),
        }
        if let Some(l) = &mut self.loupe {
            l.images.clear();
            l.wanted.clear();
        }
    }

    /// Asks for the photo and its neighbours; picks up what arrived.
    fn loupe_load(&mut self, ctx: &egui::Context) {
        let Some(mut l) = self.loupe.take() else {
            return;
        };
        let n = self.rows.len();
        let places: Vec<usize> = [
            Some(l.place),
            l.place.checked_add(1),
            l.place.checked_sub(1),
        ]
        .into_iter()
        .flatten()
        .filter(|&p| p < n)
        .collect();
        let ids: Vec<FileId> = places
            .iter()
            .map(|&p| self.library.photos[self.rows[p] as usize].id)
            .collect();
        if ids != l.wanted {
            l.wanted = ids.clone();
            l.images.retain(|id, _| ids.contains(id));
            l.waiting.clear();
            let mut wants = Vec::new();
            for (priority, &p) in places.iter().enumerate() {
                let photo = &self.library.photos[self.rows[p] as usize];
                if l.images.contains_key(&photo.id) {
                    continue;
                }
                l.waiting.insert(photo.id);
                wants.push(Want {
                    id: photo.id as u64,
                    path: photo.path.clone(),
                    priority: priority as i64,
                });
            }
            self.loupe_loader.want(wants);
        }
        while let Some(answer) = self.loupe_loader.try_recv() {
            let id = answer.id as FileId;
            if !l.wanted.contains(&id) {
                continue;
            }
            let shown = match answer.result {
                Ok(t) if t.source == crate::thumbnail::Source::Embedded => continue,
                Ok(t) => {
                    let image = egui::ColorImage::from_rgba_unmultiplied(
                        [t.width as usize, t.height as usize],
                        &t.rgba,
                    );
                    Shown::Ready {
                        texture: ctx.load_texture(
                            format!("loupe-{id}"),
                            image,
                            egui::TextureOptions::LINEAR,
                        ),
                        full: t.full_size,
                        problem: t.problem,
                    }
                }
                Err(ThumbError::TooLarge { width, height, .. }) => Shown::Failed {
                    reason: format!("{width}×{height} is too large for the memory free now"),
                    needs: Some(width as u64 * height as u64 * 4),
                },
                Err(ThumbError::OverBudget { needs, .. }) => Shown::Failed {
                    reason: format!(
                        "decoding it needs {}, too much for the memory free now",
                        megabytes(needs)
                    ),
                    needs: Some(needs),
                },
                Err(e) => Shown::Failed {
                    reason: e.to_string(),
                    needs: None,
                },
            };
            l.waiting.remove(&id);
            l.images.insert(id, shown);
        }
        self.loupe = Some(l);
    }

    pub(super) fn loupe_ui(&mut self, ui: &mut egui::Ui) {
        self.loupe_load(ui.ctx());
        let n = self.rows.len();
        let (mut step, mut close, mut zoom_by, mut one_to_one, mut fit, mut fill, mut show) =
            (0isize, false, 1.0f32, false, false, false, false);
        if !ui.ctx().egui_wants_keyboard_input() {
            ui.input(|i| {
                // Every press counts, however many one frame holds.
                step = i.num_presses(egui::Key::ArrowRight) as isize
                    - i.num_presses(egui::Key::ArrowLeft) as isize;
                close = i.key_pressed(egui::Key::Escape) || i.key_pressed(egui::Key::Enter);
                let ins = i.num_presses(egui::Key::Plus) + i.num_presses(egui::Key::Equals);
                let outs = i.num_presses(egui::Key::Minus);
                zoom_by = 1.25f32.powi(ins as i32 - outs as i32);
                // The digits rate (as in the grid): zoom is on letters,
                // as in Geeqie (Z 1:1, X fit).
                one_to_one = i.key_pressed(egui::Key::Z);
                fit = i.key_pressed(egui::Key::X) || i.key_pressed(egui::Key::F);
                fill = i.key_pressed(egui::Key::W);
                show = i.key_pressed(egui::Key::S);
            });
        }
        // Taken out while drawn; put back unless closed.
        let Some(mut l) = self.loupe.take() else {
            return;
        };
        let now = std::time::Instant::now();
        if show {
            l.slideshow = match l.slideshow {
                Some(_) => None,
                None => Some(now + self.slide_interval),
            };
        }
        if let Some(next) = l.slideshow {
            if now >= next {
                // On to the next photo, round to the first after the last.
                step = if l.place + 1 >= n {
                    -(l.place as isize)
                } else {
                    1
                };
                l.slideshow = Some(now + self.slide_interval);
                // The next slide's frame: with no input nothing else would
                // wake the window (issue 48: it advanced only while the
                // mouse moved).
                ui.ctx().request_repaint_after(self.slide_interval);
            } else {
                ui.ctx().request_repaint_after(next - now);
            }
        }
        let mut retry = None;
        let alone = self.chrome.panels_hidden;
        if !alone {
            ui.horizontal(|ui| {
                if ui
                    .button("Grid")
                    .on_hover_text("back to the grid (Esc)")
                    .clicked()
                {
                    close = true;
                }
                if ui
                    .button("Previous")
                    .on_hover_text("the previous photo (Left arrow)")
                    .clicked()
                {
                    step = -1;
                }
                if ui
                    .button("Next")
                    .on_hover_text("the next photo (Right arrow)")
                    .clicked()
                {
                    step = 1;
                }
                if ui
                    .button("Fit")
                    .on_hover_text("fit the window (F or X)")
                    .clicked()
                {
                    fit = true;
                }
                if ui
                    .button("1:1")
                    .on_hover_text("one photo pixel per screen pixel (Z)")
                    .clicked()
                {
                    one_to_one = true;
                }
                if ui
                    .button("Fill")
                    .on_hover_text("fill the window, cropping the edges (W)")
                    .clicked()
                {
                    fill = true;
                }
                let playing = l.slideshow.is_some();
                if ui
                    .selectable_label(playing, "Slideshow")
                    .on_hover_text("step through the result (S)")
                    .clicked()
                {
                    l.slideshow = if playing {
                        None
                    } else {
                        ui.ctx().request_repaint_after(self.slide_interval);
                        Some(now + self.slide_interval)
                    };
                }
                let mut secs = self.slide_interval.as_secs_f32();
                let interval = ui.label("every");
                if ui
                    .add(
                        egui::DragValue::new(&mut secs)
                            .range(1.0..=60.0)
                            .speed(0.2)
                            .suffix(" s"),
                    )
                    .labelled_by(interval.id)
                    .changed()
                {
                    self.slide_interval = std::time::Duration::from_secs_f32(secs);
                }
                if let Some(z) = l.shown_zoom {
                    ui.label(format!("{:.0} %", z * 100.0));
                }
                let photo = &self.library.photos[self.rows[l.place] as usize];
                ui.add(
                    egui::Label::new(format!("{} ({} of {n})", photo.name, l.place + 1)).truncate(),
                );
            });
        }
        if close {
            self.reveal_cursor = true;
            return;
        }
        if step != 0 && l.slideshow.is_some() {
            // A step by hand restarts the interval.
            l.slideshow = Some(now + self.slide_interval);
        }
        if step != 0 {
            let to = (l.place as isize + step).clamp(0, n as isize - 1) as usize;
            if to != l.place {
                // The bar above was drawn with the photo before: once more,
                // or a slideshow's label would name the last photo for a
                // whole slide (nothing else wakes the window).
                ui.ctx().request_repaint();
                l.place = to;
                l.zoom = None;
                l.pan = egui::Vec2::ZERO;
                self.cursor = Some(to);
                let id = self.library.photos[self.rows[to] as usize].id;
                self.selected.clear();
                self.selected.insert(id);
                self.anchor = Some(to);
            }
        }
        let id = self.library.photos[self.rows[l.place] as usize].id;
        let (rect, response) =
            ui.allocate_exact_size(ui.available_size(), egui::Sense::click_and_drag());
        let painter = ui.painter_at(rect);
        let backdrop = if alone {
            egui::Color32::BLACK
        } else {
            egui::Color32::from_gray(24)
        };
        painter.rect_filled(rect, 0.0, backdrop);
        let ppp = ui.ctx().pixels_per_point();
        match l.images.get(&id) {
            Some(Shown::Ready {
                texture,
                full,
                problem,
            }) => {
                let full_px = egui::vec2(full.0.max(1) as f32, full.1.max(1) as f32);
                let fit_zoom =
                    (rect.width() * ppp / full_px.x).min(rect.height() * ppp / full_px.y);
                if fit {
                    l.zoom = None;
                    l.pan = egui::Vec2::ZERO;
                }
                if one_to_one {
                    l.zoom = Some(1.0);
                }
                if fill {
                    l.zoom =
                        Some((rect.width() * ppp / full_px.x).max(rect.height() * ppp / full_px.y));
                    l.pan = egui::Vec2::ZERO;
                }
                let mut zoom = l.zoom.unwrap_or(fit_zoom);
                let mut factor = zoom_by;
                if response.hovered() {
                    let scroll = ui.input(|i| i.smooth_scroll_delta.y);
                    factor *= (scroll * 0.002).exp();
                }
                if factor != 1.0 {
                    let new_zoom = (zoom * factor).clamp(fit_zoom.min(1.0) / 4.0, 32.0);
                    let f = new_zoom / zoom;
                    // Zoom about the cursor (the view's centre for keys).
                    let c = response
                        .hover_pos()
                        .map_or(egui::Vec2::ZERO, |p| p - rect.center());
                    l.pan = c - (c - l.pan) * f;
                    zoom = new_zoom;
                    l.zoom = Some(zoom);
                }
                if response.dragged() {
                    l.pan += response.drag_delta();
                    l.zoom = Some(zoom);
                }
                l.shown_zoom = Some(zoom);
                let shown_size = full_px * zoom / ppp;
                let shown = egui::Rect::from_center_size(rect.center() + l.pan, shown_size);
                painter.image(
                    texture.id(),
                    shown,
                    egui::Rect::from_min_max(egui::pos2(0.0, 0.0), egui::pos2(1.0, 1.0)),
                    egui::Color32::WHITE,
                );
                // Under the picture: why only part of it shows.
                if let Some(problem) = problem {
                    let band = egui::Rect::from_min_max(
                        egui::pos2(rect.left(), rect.bottom() - 28.0),
                        rect.right_bottom(),
                    );
                    let warn = ui.visuals().warn_fg_color;
                    // Legible over the picture when it fills the view.
                    painter.rect_filled(band, 0.0, egui::Color32::from_black_alpha(180));
                    ui.put(band, |ui: &mut egui::Ui| {
                        ui.vertical_centered(|ui| {
                            ui.label(egui::RichText::new(problem.as_str()).color(warn))
                        })
                        .inner
                    });
                }
            }
            Some(Shown::Failed { reason, needs }) => {
                let reason = reason.clone();
                let needs = *needs;
                ui.put(rect.shrink(40.0), |ui: &mut egui::Ui| {
                    ui.vertical_centered(|ui| {
                        ui.colored_label(ui.visuals().warn_fg_color, &reason);
                        if let Some(needs) = needs {
                            ui.label(format!(
                                "Opening it at full size needs {}; {} are free now.",
                                megabytes(needs),
                                megabytes(available_bytes())
                            ));
                            if ui
                                .button("Retry")
                                .on_hover_text("after freeing memory")
                                .clicked()
                            {
                                retry = Some(false);
                            }
                            if ui.button("Reduced size").clicked() {
                                retry = Some(true);
                            }
                        }
                    })
                    .response
                });
            }
            None => {
                // Until the decode arrives: the grid's thumbnail, scaled.
                self.paint_thumbnail(&painter, id, rect);
                ui.put(
                    egui::Rect::from_center_size(rect.center(), egui::vec2(32.0, 32.0)),
                    egui::Spinner::new(),
                );
            }
        }
        if alone {
            // The photo alone: its name, place and zoom, small, in a
            // corner.
            let photo = &self.library.photos[self.rows[l.place] as usize];
            let mut text = format!("{} · {} of {n}", photo.name, l.place + 1);
            if let Some(z) = l.shown_zoom {
                text.push_str(&format!(" · {:.0} %", z * 100.0));
            }
            if l.slideshow.is_some() {
                text.push_str(" · slideshow");
            }
            // On a dark band of its own, readable over any photo.
            let galley = painter.layout_no_wrap(
                text,
                egui::FontId::proportional(13.0),
                egui::Color32::from_gray(200),
            );
            let at = rect.left_bottom() + egui::vec2(12.0, -12.0 - galley.size().y);
            painter.rect_filled(
                egui::Rect::from_min_size(at, galley.size()).expand(4.0),
                4.0,
                egui::Color32::from_black_alpha(170),
            );
            painter.galley(at, galley, egui::Color32::from_gray(200));
        }
        if response.double_clicked() {
            self.reveal_cursor = true;
            return;
        }
        self.loupe = Some(l);
        response.context_menu(|ui| self.file_actions(ui));
        if let Some(reduced) = retry {
            self.restart_loupe_loader(reduced);
        }
    }
}

/// `12345678` → `12 MB`, `123456` → `0.12 MB`.
fn megabytes(bytes: u64) -> String {
    let mb = bytes as f64 / 1e6;
    if mb >= 10.0 {
        format!("{mb:.0} MB")
    } else {
        format!("{mb:.2} MB")
    }
}
