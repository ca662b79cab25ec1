//! The fixed-rate step: cards move (springs and friction from `signals`,
//! exact at any step), then the cards that push (dragged, sliding, just
//! landed, just pushed, a tray that grew) push what they overlap out by
//! the contact's minimum translation, found through `collide`'s grid and
//! its oriented-box contact. A pushed card pushes in the next step, so a
//! crowd gives way card by card, outward from the one moved.

use collide::{CollideError, Rect, Shape, Transform, Vec2};
use signals::{Dynamics, Exponential, SpringDamper};

use super::{Card, CardId, GroupId, Item, Motion, STEP, Table};

/// How long a spread or gathering card takes to settle, roughly: the
/// critically damped spring's smoothing time.
pub const SPREAD_TIME: f64 = 0.12;

/// A thrown card's friction: its speed falls by e every this many
/// seconds, and it stops `speed × SLIDE_TIME` away.
pub const SLIDE_TIME: f64 = 0.25;

/// Pushed cards end this far apart, so they no longer touch.
pub const GAP: f32 = 3.0;

/// A card's rectangle and placement for the narrow phase.
pub(super) fn shape_of(c: &Card) -> Result<(Shape, Transform), CollideError> {
    Ok((
        Shape::Rect(Rect::new(c.half.x.max(0.5), c.half.y.max(0.5))?),
        Transform::new(c.pos, c.angle)?,
    ))
}

/// The transitions of one step, computed once per table.
#[derive(Clone, Copy, Debug)]
pub(super) struct Steps {
    /// Error and velocity after a step of the spreading spring.
    ee: f32,
    ed: f32,
    de: f32,
    dd: f32,
    /// What remains of a slide's distance to go after a step.
    slide: f32,
}

pub(super) fn steps() -> Result<Steps, CollideError> {
    // Both constructors only fail for non-positive times, and these are
    // constants.
    let bad = |_| CollideError::InvalidShapeParameter {
        name: "motion time",
        value: 0.0,
        expected: "> 0",
    };
    let spring = SpringDamper::critical(SPREAD_TIME).map_err(bad)?;
    let t = spring.transition_single(STEP);
    let slide = Exponential::time_constant(SLIDE_TIME).map_err(bad)?;
    let s = slide.transition_single(STEP);
    Ok(Steps {
        ee: t.ee as f32,
        ed: t.ed as f32,
        de: t.de as f32,
        dd: t.dd as f32,
        slide: s.ee as f32,
    })
}

impl Table {
    /// One step of [`STEP`] seconds, with the dragged card's pointer.
    pub(super) fn step(&mut self, pointer: Option<Vec2>) -> Result<(), CollideError> {
        let k = self.steps;
        for c in &mut self.cards {
            c.active = c.pushed && c.alive;
            c.pushed = false;
        }
        // Motion.
        let dragged = self.drag.as_ref().map(|d| d.card);
        let mut gone = Vec::new();
        for id in 0..self.cards.len() {
            let c = &mut self.cards[id];
            if !c.alive {
                continue;
            }
            match c.motion {
                Motion::Rest => continue,
                Motion::Dragged => {
                    if Some(id as CardId) != dragged {
                        c.motion = Motion::Rest;
                        continue;
                    }
                    let Some(p) = pointer else { continue };
                    let Some(d) = self.drag.as_mut() else {
                        continue;
                    };
                    let want = p + d.grab;
                    if let Item::Tray(g) = c.item {
                        let delta = want - d.tray_at;
                        d.tray_at = want;
                        self.cards[id].active = true;
                        self.translate_group(g, delta)?;
                        continue;
                    }
                    c.pos = want;
                    c.target = want;
                    c.active = true;
                }
                Motion::Flying | Motion::Gathering => {
                    let e = c.pos - c.target;
                    let v = c.vel;
                    let e1 = e * k.ee + v * k.ed;
                    c.vel = e * k.de + v * k.dd;
                    c.pos = c.target + e1;
                    if e1.length() < 0.5 && c.vel.length() < 20.0 {
                        c.pos = c.target;
                        c.vel = Vec2::ZERO;
                        if c.motion == Motion::Gathering {
                            gone.push(id as CardId);
                            continue;
                        }
                        c.motion = Motion::Rest;
                        // Lands: pushes aside what it landed on.
                        c.active = true;
                    }
                }
                Motion::Sliding => {
                    c.pos = c.target + (c.pos - c.target) * k.slide;
                    c.active = true;
                    if (c.pos - c.target).length() < 0.5 {
                        c.pos = c.target;
                        c.motion = Motion::Rest;
                    }
                }
            }
            self.moved(id as CardId)?;
        }
        for id in gone {
            self.remove_card(id)?;
        }
        if self.landing
            && !self
                .cards
                .iter()
                .any(|c| c.alive && c.motion == Motion::Flying)
        {
            self.landing = false;
        }
        self.update_trays(true)?;
        // Collisions.
        let mut pairs = std::mem::take(&mut self.pairs);
        pairs.clear();
        self.grid.find_moved_pairs(&mut pairs)?;
        let mut bodies: Vec<(CardId, CardId)> = pairs
            .iter()
            .map(|p| {
                let (a, b) = (self.body_of[p.a as usize], self.body_of[p.b as usize]);
                (a.min(b), a.max(b))
            })
            .collect();
        self.pairs = pairs;
        bodies.sort_unstable();
        for (a, b) in bodies {
            self.resolve(a, b)?;
        }
        Ok(())
    }

    /// Pushes one of two overlapping cards out of the other, if one of
    /// them pushes and they are not meant to overlap.
    fn resolve(&mut self, a: CardId, b: CardId) -> Result<(), CollideError> {
        let (ca, cb) = (&self.cards[a as usize], &self.cards[b as usize]);
        if !(ca.alive && cb.alive) || !(ca.active || cb.active) || self.landing {
            return Ok(());
        }
        let ghost = |c: &Card| matches!(c.motion, Motion::Flying | Motion::Gathering);
        if ghost(ca) || ghost(cb) || (ca.pile != 0 && ca.pile == cb.pile) {
            return Ok(());
        }
        // A tray holds its own cards, and the trays inside it.
        let inside = |c: &Card, g: GroupId| self.tree.is_within(c.group, g);
        if matches!(ca.item, Item::Tray(g) if inside(cb, g))
            || matches!(cb.item, Item::Tray(g) if inside(ca, g))
        {
            return Ok(());
        }
        if let Some(d) = &self.drag
            && ((d.card == a && d.lifted.contains(&b)) || (d.card == b && d.lifted.contains(&a)))
        {
            return Ok(());
        }
        // A held card passes over stacks, so it can be dropped onto one; let
        // go elsewhere, it pushes the stack off.
        let held_over_stack = |held: &Card, other: &Card| {
            held.motion == Motion::Dragged && matches!(other.item, Item::Stack(_))
        };
        if held_over_stack(ca, cb) || held_over_stack(cb, ca) {
            return Ok(());
        }
        let (sa, xa) = shape_of(ca)?;
        let (sb, xb) = shape_of(cb)?;
        let Some(contact) = collide::contact(&sa, &xa, &sb, &xb)? else {
            return Ok(());
        };
        let push = contact.normal * (contact.depth + GAP);
        // While a card is held, stacks hold still: each may be where it is
        // going, and a target pushed off by the cards its neighbours shove
        // would slip from under the pointer.
        let holding = self.drag.is_some();
        let pinned =
            |c: &Card| c.motion == Motion::Dragged || (holding && matches!(c.item, Item::Stack(_)));
        let (kin_a, kin_b) = (pinned(ca), pinned(cb));
        match (ca.active, cb.active) {
            (true, false) if !kin_b => self.push(b, push)?,
            (false, true) if !kin_a => self.push(a, -push)?,
            // Pushed into a stack that holds still: it gives way itself.
            (true, false) if !kin_a => self.push(a, -push)?,
            (false, true) if !kin_b => self.push(b, push)?,
            (true, true) => match (kin_a, kin_b) {
                (true, false) => self.push(b, push)?,
                (false, true) => self.push(a, -push)?,
                (false, false) => {
                    self.push(a, push * -0.5)?;
                    self.push(b, push * 0.5)?;
                }
                (true, true) => {}
            },
            _ => {}
        }
        Ok(())
    }

    /// Moves a card by a push (a tray takes its cards along); it pushes in
    /// the next step.
    fn push(&mut self, id: CardId, delta: Vec2) -> Result<(), CollideError> {
        let c = &mut self.cards[id as usize];
        c.pushed = true;
        if let Item::Tray(g) = c.item {
            return self.translate_group(g, delta);
        }
        c.pos += delta;
        c.target += delta;
        self.moved(id)
    }

    /// Moves an open group, its tray and everything on it.
    pub(super) fn translate_group(&mut self, g: GroupId, delta: Vec2) -> Result<(), CollideError> {
        for sub in self.subgroups(g) {
            self.anchor[sub as usize] += delta;
        }
        let dragged = self.drag.as_ref().map(|d| d.card);
        for id in 0..self.cards.len() {
            let c = &self.cards[id];
            if !c.alive || Some(id as CardId) == dragged && !matches!(c.item, Item::Tray(_)) {
                continue;
            }
            let on_it = match c.item {
                Item::Tray(t) => self.tree.is_within(t, g),
                _ => self.tree.is_within(c.group, g),
            };
            if on_it {
                let c = &mut self.cards[id];
                c.pos += delta;
                c.target += delta;
                self.moved(id as CardId)?;
            }
        }
        Ok(())
    }
}
