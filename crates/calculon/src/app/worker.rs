//! The window's worker thread: every evaluation and plot runs here, never
//! on the UI thread. Each job carries a generation; the window drops
//! answers to jobs it has since replaced, and cancels those jobs.

use std::path::PathBuf;
use std::sync::mpsc::{Receiver, Sender, channel};

use eframe::egui;

use crate::{Calculator, CancelFlag, Column, Graph, PlotRequest};

pub(crate) enum Job {
    /// Results for the expression field, in a copy of the calculator.
    Preview {
        generation: u64,
        text: String,
        calc: Calculator,
        cancel: CancelFlag,
    },
    /// The field's lines kept: definitions take effect, the history grows.
    Commit {
        text: String,
        calc: Calculator,
        save_to: Option<PathBuf>,
    },
    Plot {
        generation: u64,
        request: PlotRequest,
        calc: Calculator,
        cancel: CancelFlag,
    },
}

pub(crate) enum Done {
    Preview {
        generation: u64,
        column: Column,
    },
    Commit {
        text: String,
        column: Column,
        /// Boxed: a calculator is large next to the other answers.
        calc: Box<Calculator>,
        saved: Result<(), String>,
    },
    Plot {
        generation: u64,
        /// Each function's expression and curve.
        graph: Result<Vec<(String, Graph)>, String>,
    },
}

/// Starts the worker; it ends when the job sender is dropped.
pub(crate) fn spawn(ctx: egui::Context) -> (Sender<Job>, Receiver<Done>) {
    let (jobs, job_rx) = channel::<Job>();
    let (done_tx, done) = channel::<Done>();
    std::thread::Builder::new()
        .name("calculon-worker".into())
        .spawn(move || {
            while let Ok(job) = job_rx.recv() {
                let done = run(job);
                if done_tx.send(done).is_err() {
                    break;
                }
                ctx.request_repaint();
            }
        })
        .map_err(|e| eprintln!("calculon: cannot start the worker thread: {e}"))
        .ok();
    (jobs, done)
}

fn run(job: Job) -> Done {
    match job {
        Job::Preview {
            generation,
            text,
            mut calc,
            cancel,
        } => Done::Preview {
            generation,
            column: calc.evaluate_column(&text, true, &cancel),
        },
        Job::Commit {
            text,
            mut calc,
            save_to,
        } => {
            let column = calc.evaluate_column(&text, false, &CancelFlag::new());
            let saved = match &save_to {
                Some(path) => calc
                    .save_definitions(path)
                    .map_err(|e| format!("saving {}: {e}", path.display())),
                None => Ok(()),
            };
            Done::Commit {
                text,
                column,
                calc: Box::new(calc),
                saved,
            }
        }
        Job::Plot {
            generation,
            request,
            calc,
            cancel,
        } => Done::Plot {
            generation,
            graph: calc
                .plot_all(&request, 2000, &cancel)
                .map_err(|e| e.to_string()),
        },
    }
}
