//! A background index run as the window shows it: which folders, how far
//! (files found while walking; a bar of files read, the rate and the time
//! left), and the run's summary or failure. While a first run has nothing
//! to show yet, the centre says the same in large.

use std::path::PathBuf;
use std::time::Instant;

use eframe::egui;

use crate::indexer::Progress;

/// The indexing status shown at the bottom.
#[derive(Clone, Debug, Default)]
pub(super) enum Indexing {
    /// No run.
    #[default]
    Idle,
    /// Where a run has got.
    Running(Progress),
    /// The last run's summary.
    Done(String),
    /// Why the last run failed.
    Failed(String),
}

/// The run and what the rate is measured from.
#[derive(Default)]
pub(super) struct IndexStatus {
    pub(super) state: Indexing,
    /// The folders being indexed, as shown.
    roots: String,
    /// When reading began, and how many files were read then.
    reading_since: Option<(Instant, usize)>,
    /// When the summary was first shown (the window's clock, seconds).
    shown_since: Option<f64>,
}

/// How long a finished run's summary stays in the status bar: long
/// enough to read, then it goes by itself (a failure stays).
pub(super) const SUMMARY_SECONDS: f64 = 10.0;

impl IndexStatus {
    pub(super) fn new(dirs: &[PathBuf]) -> IndexStatus {
        let roots: Vec<String> = dirs.iter().map(|d| d.display().to_string()).collect();
        IndexStatus {
            roots: roots.join(", "),
            ..IndexStatus::default()
        }
    }

    pub(super) fn is_running(&self) -> bool {
        matches!(self.state, Indexing::Running(_))
    }

    /// A run's step arrived.
    pub(super) fn progress(&mut self, p: Progress) {
        if let Progress::Reading { done, .. } = p {
            if self.reading_since.is_none() {
                self.reading_since = Some((Instant::now(), done));
            }
        } else {
            self.reading_since = None;
        }
        self.state = Indexing::Running(p);
    }

    /// A run ended.
    pub(super) fn finished(&mut self, outcome: Result<String, String>) {
        self.reading_since = None;
        self.shown_since = None;
        self.state = match outcome {
            Ok(summary) => Indexing::Done(summary),
            Err(e) => Indexing::Failed(e),
        };
    }

    /// What the run is doing, in words: "Reading 250 of 1,000 new or
    /// changed files · 120 files/s · about 7 s left".
    fn words(&self) -> String {
        match self.state {
            Indexing::Running(Progress::Files(n)) => {
                format!("Looking for photos: {} found", thousands(n))
            }
            Indexing::Running(Progress::Reading { done, total }) => {
                let mut s = format!(
                    "Reading {} of {} new or changed files",
                    thousands(done),
                    thousands(total)
                );
                if let Some((since, from)) = self.reading_since {
                    let secs = since.elapsed().as_secs_f64();
                    let read = done.saturating_sub(from);
                    if read > 0 && secs > 0.2 {
                        let rate = read as f64 / secs;
                        let left = total.saturating_sub(done) as f64 / rate;
                        s.push_str(&format!(
                            " · {} files/s · {}",
                            thousands(rate.round() as usize),
                            time_left(left)
                        ));
                    }
                }
                s
            }
            Indexing::Running(Progress::BuildingIndex) => "Building the search index".to_owned(),
            _ => String::new(),
        }
    }

    /// The fraction done, where known.
    fn fraction(&self) -> Option<f32> {
        match self.state {
            Indexing::Running(Progress::Reading { done, total }) if total > 0 => {
                Some(done as f32 / total as f32)
            }
            _ => None,
        }
    }

    /// The status bar's part.
    pub(super) fn status(&mut self, ui: &mut egui::Ui) {
        if matches!(self.state, Indexing::Done(_)) {
            let now = ui.input(|i| i.time);
            let since = *self.shown_since.get_or_insert(now);
            let left = SUMMARY_SECONDS - (now - since);
            if left <= 0.0 {
                self.state = Indexing::Idle;
                self.shown_since = None;
            } else {
                // Gone on time with no input at all.
                ui.ctx()
                    .request_repaint_after(std::time::Duration::from_secs_f64(left));
            }
        }
        match &self.state {
            Indexing::Idle => {}
            Indexing::Running(_) => {
                let label = format!("Indexing {}: {}", self.roots, self.words());
                match self.fraction() {
                    Some(f) => {
                        ui.add(
                            egui::ProgressBar::new(f)
                                .desired_width(160.0)
                                .show_percentage(),
                        );
                    }
                    None => {
                        ui.spinner();
                    }
                }
                ui.add(egui::Label::new(label).truncate());
            }
            Indexing::Done(s) => {
                ui.label(s);
            }
            Indexing::Failed(e) => {
                ui.colored_label(ui.visuals().error_fg_color, format!("Indexing failed: {e}"));
            }
        }
    }

    /// The centre's message while a run has nothing to show yet.
    pub(super) fn centre(&self, ui: &mut egui::Ui) {
        ui.vertical_centered(|ui| {
            ui.add_space(ui.available_height() * 0.35);
            ui.add(
                egui::Label::new(egui::RichText::new(format!("Indexing {}", self.roots)).heading())
                    .truncate(),
            );
            ui.add_space(8.0);
            let bar = match self.fraction() {
                Some(f) => egui::ProgressBar::new(f).show_percentage(),
                None => egui::ProgressBar::new(0.0).animate(true),
            };
            ui.add(bar.desired_width(ui.available_width().min(420.0)));
            ui.add_space(4.0);
            ui.label(self.words());
        });
    }
}

/// `12345` → `12,345`.
fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// `about 7 s left`, `about 3 min left`.
fn time_left(secs: f64) -> String {
    if !secs.is_finite() {
        return String::new();
    }
    if secs < 60.0 {
        format!("about {} s left", secs.ceil().max(1.0) as u64)
    } else if secs < 3600.0 {
        format!("about {} min left", (secs / 60.0).ceil() as u64)
    } else {
        format!("about {:.1} h left", secs / 3600.0)
    }
}

#[cfg(test)]
mod tests {
    use super::{thousands, time_left};

    #[test]
    fn numbers_and_times_read_well() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1000), "1,000");
        assert_eq!(thousands(1234567), "1,234,567");
        assert_eq!(time_left(0.2), "about 1 s left");
        assert_eq!(time_left(61.0), "about 2 min left");
        assert_eq!(time_left(5400.0), "about 1.5 h left");
    }
}
