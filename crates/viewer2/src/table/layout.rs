//! Where cards go: the places an opened stack spreads its cards to, the
//! arrange commands, and the trays' outlines around open groups.

use std::collections::HashSet;

use collide::{CollideError, Vec2};

use super::{CARD_HALF, CardId, GroupId, Item, Motion, ROOT, Table, photo_half, stack_half};

/// The spacing of laid-out cards: a card of any shape, turned a little,
/// with room around it.
pub const CELL: Vec2 = Vec2::new(2.0 * CARD_HALF + 40.0, 2.0 * CARD_HALF + 30.0);

/// Room around a tray's cards, and above them for its name.
pub const TRAY_MARGIN: f32 = 20.0;
/// The height of a tray's name bar (a packed table's may be taller:
/// `Table::header`).
pub const TRAY_HEADER: f32 = 30.0;

/// The arrange commands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arrange {
    /// In rows, by name.
    Grid,
    /// In rows, by the date taken (undated last).
    ByDate,
    /// In one pile (the cards of a pile do not push each other).
    Pile,
}

impl Table {
    /// Puts a group's cards on the table around its stack: each where it
    /// was last, the others in rows around the stack, skipping cells the
    /// remembered ones cover. They fly out of the stack when `animate`.
    pub(super) fn spread(&mut self, g: GroupId, animate: bool) -> Result<(), CollideError> {
        let at = self.anchor[g as usize];
        let group = &self.tree.groups[g as usize];
        let items: Vec<Item> = group
            .groups
            .iter()
            .map(|&s| Item::Stack(s))
            .chain(group.photos.iter().map(|&r| Item::Photo(r)))
            .collect();
        let mut placed: Vec<(Item, Vec2, f32)> = Vec::with_capacity(items.len());
        let mut fresh = Vec::new();
        let mut taken = HashSet::new();
        for &item in &items {
            let key = self.key_of(item);
            match self.remembered.get(&key) {
                Some(&(rel, angle)) => {
                    // The cells it covers stay free of new cards.
                    let (cx, cy) = cell_of(rel);
                    for dx in -1..=1 {
                        for dy in -1..=1 {
                            let c = Vec2::new(cx as f32 + dx as f32, cy as f32 + dy as f32);
                            let centre = Vec2::new(c.x * CELL.x, c.y * CELL.y);
                            if (centre.x - rel.x).abs() < CELL.x - 1.0
                                && (centre.y - rel.y).abs() < CELL.y - 1.0
                            {
                                taken.insert((cx + dx, cy + dy));
                            }
                        }
                    }
                    placed.push((item, at + rel, angle));
                }
                None => fresh.push(item),
            }
        }
        // Rows about as wide as tall on a wide screen, centred on the stack.
        let n = items.len().max(1);
        let cols = ((n as f32 * 1.6).sqrt().ceil() as i64).max(1);
        let rows = (n as i64 + cols - 1) / cols;
        let (x0, y0) = (-(cols - 1) / 2, -(rows - 1) / 2);
        let mut slot = 0i64;
        for item in fresh {
            let cell = loop {
                let cell = (x0 + slot % cols, y0 + slot / cols);
                slot += 1;
                if !taken.contains(&cell) {
                    break cell;
                }
            };
            let rel = Vec2::new(cell.0 as f32 * CELL.x, cell.1 as f32 * CELL.y);
            let angle = self.angle_for(item);
            placed.push((item, at + rel, angle));
        }
        for (item, target, angle) in placed {
            let half = self.half_of(item);
            let id = match self.card_of(item) {
                // Still on its way into the stack: turns back.
                Some(id) => id,
                None => self.add_card(item, if animate { at } else { target }, angle, half, g)?,
            };
            self.cards[id as usize].group = g;
            self.send(id, target, angle, animate)?;
        }
        Ok(())
    }

    /// Sends a card to `target`, turned by `angle`: flying there when
    /// `animate`, put there at once otherwise.
    pub(super) fn send(
        &mut self,
        id: CardId,
        target: Vec2,
        angle: f32,
        animate: bool,
    ) -> Result<(), CollideError> {
        let c = &mut self.cards[id as usize];
        c.target = target;
        c.angle = angle;
        if animate {
            c.motion = Motion::Flying;
            return Ok(());
        }
        c.pos = target;
        c.vel = Vec2::ZERO;
        c.motion = Motion::Rest;
        self.moved(id)
    }

    /// A card's size.
    pub(super) fn half_of(&self, item: Item) -> Vec2 {
        match item {
            Item::Photo(row) => match self.shapes.get(&row) {
                Some(&(w, h)) => photo_half(w, h),
                None => photo_half(3, 2),
            },
            _ => stack_half(),
        }
    }

    /// Fits each open group's tray around its cards (inner trays first).
    /// A tray that changed pushes what it now overlaps: at once inside a
    /// step (`in_step`), in the next step otherwise.
    pub(super) fn update_trays(&mut self, in_step: bool) -> Result<(), CollideError> {
        let groups = self.tree.groups.len();
        let mut lo = vec![Vec2::new(f32::INFINITY, f32::INFINITY); groups];
        let mut hi = vec![Vec2::new(f32::NEG_INFINITY, f32::NEG_INFINITY); groups];
        let mut trays: Vec<(usize, GroupId, CardId)> = Vec::new();
        for (id, c) in self.cards.iter().enumerate() {
            if !c.alive || c.motion == Motion::Gathering {
                continue;
            }
            if let Item::Tray(g) = c.item {
                trays.push((self.tree.depth(g), g, id as CardId));
                continue;
            }
            // A held card is above the table: its tray does not follow it
            // (and push what lies where it is carried) until it is let go.
            if c.group == ROOT || c.motion == Motion::Dragged {
                continue;
            }
            let b = c.aabb()?;
            let g = c.group as usize;
            lo[g] = lo[g].min(b.min());
            hi[g] = hi[g].max(b.max());
        }
        // Deepest first, so a tray's size is known to its parent's.
        trays.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
        for (_, g, id) in trays {
            let gi = g as usize;
            if !lo[gi].is_finite() {
                let at = self.anchor[gi];
                lo[gi] = at - stack_half();
                hi[gi] = at + stack_half();
            }
            let min = lo[gi] - Vec2::new(TRAY_MARGIN, TRAY_MARGIN + self.header);
            let max = hi[gi] + Vec2::new(TRAY_MARGIN, TRAY_MARGIN);
            let parent = self.tree.groups[gi].parent.unwrap_or(ROOT) as usize;
            if parent != ROOT as usize {
                lo[parent] = lo[parent].min(min);
                hi[parent] = hi[parent].max(max);
            }
            let pos = (min + max) * 0.5;
            let half = (max - min) * 0.5;
            let c = &mut self.cards[id as usize];
            let changed = (c.pos - pos).length() > 0.01 || (c.half - half).length() > 0.01;
            if changed {
                c.pos = pos;
                c.target = pos;
                c.half = half;
                if in_step {
                    c.active = true;
                } else {
                    c.pushed = true;
                }
                self.moved(id)?;
            }
        }
        Ok(())
    }

    /// Arranges the selected cards in rows or a pile; with none
    /// selected, every card: in rows, the whole table packed to the
    /// view's shape ([`Table::pack`]); in piles, each open tray's cards
    /// (and the table's own) in one. They fly there and push aside what
    /// they land on.
    pub fn arrange(&mut self, how: Arrange) -> Result<(), CollideError> {
        let ids: Vec<CardId> = self
            .selected
            .iter()
            .filter_map(|&i| self.card_of(i))
            .collect();
        if !ids.is_empty() {
            return self.arrange_cards(ids, how);
        }
        if how != Arrange::Pile {
            return self.pack(how, true);
        }
        let mut by_group: std::collections::BTreeMap<GroupId, Vec<CardId>> = Default::default();
        for (id, c) in self.cards() {
            if !matches!(c.item, Item::Tray(_)) {
                by_group.entry(c.group).or_default().push(id);
            }
        }
        for ids in by_group.into_values() {
            self.arrange_cards(ids, how)?;
        }
        Ok(())
    }

    /// Arranges these cards among themselves.
    fn arrange_cards(&mut self, mut ids: Vec<CardId>, how: Arrange) -> Result<(), CollideError> {
        ids.retain(|&id| self.cards[id as usize].motion != Motion::Gathering);
        if ids.is_empty() {
            return Ok(());
        }
        self.order_cards(&mut ids, how);
        let mut lo = Vec2::new(f32::INFINITY, f32::INFINITY);
        let mut centre = Vec2::ZERO;
        for &id in &ids {
            let c = &self.cards[id as usize];
            lo = lo.min(c.aabb()?.min());
            centre += c.pos;
        }
        let centre = centre * (1.0 / ids.len() as f32);
        let pile = if how == Arrange::Pile {
            self.next_pile += 1;
            self.next_pile
        } else {
            0
        };
        let cols = ((ids.len() as f32 * 1.6).sqrt().ceil() as usize).max(1);
        for (k, &id) in ids.iter().enumerate() {
            let key = self.key_of(self.cards[id as usize].item);
            let jitter = super::tilt(&key);
            let (target, angle) = match how {
                Arrange::Pile => (
                    centre + Vec2::new(jitter * 120.0, super::tilt(&format!("{key}y")) * 120.0),
                    jitter * 3.0,
                ),
                _ => (
                    lo + CELL * 0.5
                        + Vec2::new((k % cols) as f32 * CELL.x, (k / cols) as f32 * CELL.y),
                    jitter,
                ),
            };
            let c = &mut self.cards[id as usize];
            if matches!(c.item, Item::Tray(_)) {
                continue;
            }
            c.target = target;
            c.angle = angle;
            c.pile = pile;
            c.motion = Motion::Flying;
            c.dirty = true;
            if pile != 0 {
                let z = self.raise_z();
                self.cards[id as usize].z = z;
            }
        }
        Ok(())
    }

    /// Sorts cards as an arrange command lays them out: by name as the
    /// grid sorts names (case and accents aside), or by date taken with
    /// the undated last.
    pub(super) fn order_cards(&self, ids: &mut [CardId], how: Arrange) {
        let library = std::sync::Arc::clone(&self.library);
        let name_of = |t: &Table, id: CardId| match t.cards[id as usize].item {
            // As the grid sorts names: case and accents aside.
            Item::Photo(r) => {
                crate::library::natural_key(&catalog::fold(&library.photos[r as usize].name))
            }
            Item::Stack(g) | Item::Tray(g) => {
                crate::library::natural_key(&catalog::fold(&t.tree.groups[g as usize].name))
            }
        };
        match how {
            Arrange::ByDate => {
                let date = |id: CardId| match self.cards[id as usize].item {
                    Item::Photo(r) if !library.photos[r as usize].date.is_empty() => {
                        (0, library.photos[r as usize].date.clone())
                    }
                    _ => (1, String::new()),
                };
                ids.sort_by_cached_key(|&id| (date(id), name_of(self, id)));
            }
            _ => ids.sort_by_cached_key(|&id| name_of(self, id)),
        }
    }
}

/// The layout cell a point relative to a stack falls in.
fn cell_of(rel: Vec2) -> (i64, i64) {
    (
        (rel.x / CELL.x).round() as i64,
        (rel.y / CELL.y).round() as i64,
    )
}
