//! Dwell: the choice among scored candidates (a lock-on target, the best
//! cover point, the menu item under a wobbling cursor) that changes only
//! when a challenger has been clearly better for a while.

use super::Discrete;
use crate::error::{SignalError, check_non_negative};
use alloc::vec::Vec;

/// A candidate's lead while it is not clearly better than the choice.
const NOT_LEADING: f64 = f64::NEG_INFINITY;

/// Picks one of several scored candidates and keeps it until another has
/// been better by more than `margin` for `dwell` seconds without a break.
///
/// The rules, in order:
/// - Scores are given each update as a slice, one per candidate by index;
///   `f64::NEG_INFINITY` marks a candidate that is not available (out of
///   sight, dead). NaN and +∞ are errors. The slice may change length.
/// - With no choice yet, or when the chosen one is unavailable or gone, the
///   best available candidate is taken at once (equal scores: the lowest
///   index); with none available the choice is `None`.
/// - Otherwise a challenger's time counts while its score exceeds the
///   chosen one's by more than `margin` (equal scores never switch), and
///   resets when it does not. The first to reach `dwell` takes over, at
///   that moment inside the step; if several reach it in one step, the one
///   that led longest, then the higher score, then the lower index.
///   Challengers then count again against the new choice.
#[derive(Debug, Clone, PartialEq)]
pub struct Dwell {
    margin: f64,
    dwell: f64,
    chosen: Option<usize>,
    leads: Vec<f64>,
    since_change: f64,
}

impl Dwell {
    /// `margin` (score units) and `dwell` (seconds) finite and ≥ 0. Both 0
    /// is the naive rule: the best score every step.
    pub fn new(margin: f64, dwell: f64) -> Result<Self, SignalError> {
        Ok(Dwell {
            margin: check_non_negative("margin", margin)?,
            dwell: check_non_negative("dwell", dwell)?,
            chosen: None,
            leads: Vec::new(),
            since_change: f64::INFINITY,
        })
    }

    /// The current choice.
    pub fn chosen(&self) -> Option<usize> {
        self.chosen
    }

    /// Seconds since the choice last changed.
    pub fn since_change(&self) -> f64 {
        self.since_change
    }

    /// How long each candidate has been clearly better than the choice
    /// (−∞ where it is not).
    pub fn leads(&self) -> &[f64] {
        &self.leads
    }

    /// Forgets the choice: the next update takes the best at once.
    pub fn reset(&mut self) {
        self.chosen = None;
        self.leads.iter_mut().for_each(|l| *l = NOT_LEADING);
        self.since_change = f64::INFINITY;
    }

    fn best(scores: &[f64]) -> Option<usize> {
        let mut best: Option<(usize, f64)> = None;
        for (i, &s) in scores.iter().enumerate() {
            if s > f64::NEG_INFINITY && best.is_none_or(|(_, b)| s > b) {
                best = Some((i, s));
            }
        }
        best.map(|(i, _)| i)
    }

    /// The challenger that reached the dwell first: the longest lead, then
    /// the higher score, then the lower index.
    fn first_to_dwell(&self, scores: &[f64]) -> Option<(usize, f64)> {
        let mut winner: Option<(usize, f64, f64)> = None;
        for (j, (&lead, &s)) in self.leads.iter().zip(scores).enumerate() {
            let earlier = winner.is_none_or(|(_, wl, ws)| lead > wl || (lead == wl && s > ws));
            if lead >= self.dwell && earlier {
                winner = Some((j, lead, s));
            }
        }
        winner.map(|(j, lead, _)| (j, lead))
    }

    fn change(&mut self, to: Option<usize>, since: f64) {
        if to != self.chosen {
            self.chosen = to;
            self.since_change = since;
        }
    }
}

impl Discrete<&[f64]> for Dwell {
    type Output = Option<usize>;

    fn check_input(&self, scores: &&[f64]) -> Result<(), SignalError> {
        if scores.iter().any(|s| s.is_nan() || *s == f64::INFINITY) {
            return Err(SignalError::NonFiniteInput {
                what: "score (NaN or +inf; -inf marks an unavailable candidate)",
            });
        }
        if scores.len() > self.leads.len() {
            // Checked here so that the update itself cannot fail.
            let mut probe: Vec<f64> = Vec::new();
            probe
                .try_reserve_exact(scores.len())
                .map_err(|_| SignalError::OutOfMemory {
                    items: scores.len(),
                })?;
        }
        Ok(())
    }

    fn update_unchecked(&mut self, dt: f64, scores: &[f64]) -> Option<usize> {
        if self.leads.len() != scores.len() {
            self.leads.resize(scores.len(), NOT_LEADING);
        }
        let current = self
            .chosen
            .and_then(|c| scores.get(c).map(|&s| (c, s)))
            .filter(|&(_, s)| s > f64::NEG_INFINITY);
        let Some((c, score_c)) = current else {
            // Taken at the start of the step: the scores hold over it.
            let best = Self::best(scores);
            self.leads.iter_mut().for_each(|l| *l = NOT_LEADING);
            if best == self.chosen {
                self.since_change += dt;
            } else {
                self.change(best, dt);
            }
            return self.chosen;
        };
        let (mut c, mut score_c) = (c, score_c);
        for (j, (lead, &s)) in self.leads.iter_mut().zip(scores).enumerate() {
            *lead = if j != c && s > score_c + self.margin {
                lead.max(0.0) + dt
            } else {
                NOT_LEADING
            };
        }
        let mut changed = None;
        // A long step can hold several switches: after each, challengers
        // count again from the switch, and may reach the dwell before the
        // step ends. Each switch is to a strictly higher score (better by
        // more than the margin), so there are fewer than the candidates,
        // whatever the step's length.
        while let Some((j, lead)) = self.first_to_dwell(scores) {
            let since = lead - self.dwell;
            changed = Some(since);
            c = j;
            score_c = scores.get(j).copied().unwrap_or(f64::NEG_INFINITY);
            for (k, (l, &s)) in self.leads.iter_mut().zip(scores).enumerate() {
                *l = if k != c && s > score_c + self.margin {
                    since
                } else {
                    NOT_LEADING
                };
            }
        }
        match changed {
            Some(since) if Some(c) != self.chosen => self.change(Some(c), since),
            Some(since) => self.since_change = since,
            None => self.since_change += dt,
        }
        self.chosen
    }
}
