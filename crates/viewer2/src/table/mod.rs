//! The light table (issue 8), without a window: photos and folder stacks
//! as cards on an endless table, stacks that open into trays of their
//! photos and subfolders (to any depth) and close again, cards that push
//! each other aside, slide when thrown and can be dropped onto a stack.
//!
//! The window (`app::table`) draws it and feeds it the pointer; tests and
//! the benchmark drive it directly.
//!
//! - `tree`: the groups (folders, merged where a folder holds only one
//!   folder, and the user's own groups).
//! - `layout`: where opened stacks spread their cards, the arrange
//!   commands, the trays' outlines.
//! - `pack`: the whole table laid out at once, to the view's shape.
//! - `labels`: which names show, so that none is drawn over another.
//! - `physics`: the fixed-rate step: motion (springs and friction from
//!   `signals`) and collisions (`collide`'s grid and oriented-box contacts).
//!
//! Units are the table's: a card is 150 units on its long side, one unit
//! is one point at zoom 1.

pub mod labels;
mod layout;
mod pack;
mod physics;
pub mod tree;

use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::Arc;

use catalog::Placement;
use collide::{Aabb, CollideError, Grid, Handle, Vec2};

use crate::library::Library;
pub use layout::{Arrange, CELL};
pub use pack::FIT_SHARE;
pub use tree::{Group, GroupId, ROOT, Tree, UserGroup};

/// A card's index in [`Table::cards`] (reused after the card leaves).
pub type CardId = u32;

/// The physics runs at this rate whatever the frame rate: the same input
/// over the same time gives the same table.
pub const STEP: f64 = 1.0 / 120.0;

/// Half the long side of a photo card.
pub const CARD_HALF: f32 = 75.0;

/// What a card is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Item {
    /// A photo (library index).
    Photo(u32),
    /// A closed group, drawn as a stack of prints.
    Stack(GroupId),
    /// An open group: the tray its cards lie on.
    Tray(GroupId),
}

/// How a card moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Motion {
    /// Still.
    Rest,
    /// On its way to a place (a stack opening, an arrange command): passes
    /// over other cards, and pushes them aside when it lands.
    Flying,
    /// On its way into a stack (closing, or dropped onto it): leaves the
    /// table when it arrives.
    Gathering,
    /// Held by the pointer.
    Dragged,
    /// Thrown: slides to a stop, pushing what it meets.
    Sliding,
}

/// One card.
#[derive(Clone, Debug)]
pub struct Card {
    /// What it shows.
    pub item: Item,
    /// Its centre.
    pub pos: Vec2,
    /// Its rotation in radians.
    pub angle: f32,
    /// Half its width and height.
    pub half: Vec2,
    /// How it moves now.
    pub motion: Motion,
    /// The group it lies in (a tray: its group's parent).
    pub group: GroupId,
    /// Drawing order: higher on top.
    pub z: u32,
    /// Velocity of the spring that flies it.
    vel: Vec2,
    /// Where it flies or slides to.
    target: Vec2,
    handle: Option<Handle>,
    /// Cards of one pile (an arrange command) do not push each other.
    pile: u32,
    /// Moved by a push in the last step: pushes in this one.
    pushed: bool,
    /// Pushes what it overlaps in this step (dragged, sliding, landed,
    /// pushed in the last step, a tray that grew).
    active: bool,
    /// Changed since the last save.
    dirty: bool,
    alive: bool,
}

impl Card {
    /// The box around it, turned.
    pub fn aabb(&self) -> Result<Aabb, CollideError> {
        let (s, c) = self.angle.sin_cos();
        let ex = (c * self.half.x).abs() + (s * self.half.y).abs();
        let ey = (s * self.half.x).abs() + (c * self.half.y).abs();
        Aabb::new(
            [self.pos.x - ex, self.pos.y - ey],
            [self.pos.x + ex, self.pos.y + ey],
        )
    }

    /// A world point in the card's own frame (x right, y down, centre 0).
    pub fn to_local(&self, p: Vec2) -> Vec2 {
        let d = p - self.pos;
        let (s, c) = self.angle.sin_cos();
        Vec2::new(c * d.x + s * d.y, -s * d.x + c * d.y)
    }

    /// The card's corners in the world, clockwise from the top left.
    pub fn corners(&self) -> [Vec2; 4] {
        let (s, c) = self.angle.sin_cos();
        let (hx, hy) = (self.half.x, self.half.y);
        [(-hx, -hy), (hx, -hy), (hx, hy), (-hx, hy)]
            .map(|(x, y)| Vec2::new(self.pos.x + c * x - s * y, self.pos.y + s * x + c * y))
    }
}

/// What happened that the window may act on.
#[derive(Clone, Debug, PartialEq)]
pub enum Event {
    /// A card was dropped onto a stack and is now in its group.
    Dropped {
        /// The card's item (a photo or a stack).
        item: Item,
        /// The group it went into.
        into: GroupId,
    },
}

/// What the catalogue holds of a table, read at start.
#[derive(Clone, Debug, Default)]
pub struct Saved {
    /// Where each card lay, by key; positions are relative to the group's
    /// stack (absolute for the table's own cards).
    pub placements: HashMap<String, Placement>,
    /// The keys of the open groups.
    pub open: Vec<String>,
    /// The user's groups.
    pub user_groups: Vec<UserGroup>,
    /// The window's view: the centre's x and y, and the zoom.
    pub view: Option<[f32; 3]>,
}

impl Saved {
    /// Applies a save, as the catalogue does (tests use it as the
    /// catalogue's stand-in).
    pub fn merge(&mut self, changes: Changes) {
        for p in changes.placements {
            self.placements.insert(p.key.clone(), p);
        }
        if let Some(open) = changes.open {
            self.open = open;
        }
        if let Some(groups) = changes.user_groups {
            self.user_groups = groups;
        }
    }
}

/// What changed since the last save.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Changes {
    /// Cards that moved.
    pub placements: Vec<Placement>,
    /// The open groups' keys, when they changed.
    pub open: Option<Vec<String>>,
    /// The user's groups, when they changed.
    pub user_groups: Option<Vec<UserGroup>>,
}

impl Changes {
    /// Whether there is nothing to save.
    pub fn is_empty(&self) -> bool {
        self.placements.is_empty() && self.open.is_none() && self.user_groups.is_none()
    }
}

/// The card being dragged.
#[derive(Clone, Debug)]
struct Drag {
    card: CardId,
    /// Card centre minus pointer, at the grab.
    grab: Vec2,
    /// Cards it lay on or under when picked up: it passes over them.
    lifted: HashSet<CardId>,
    /// The pointer at the last frame's end, and now.
    from: Vec2,
    to: Vec2,
    /// Where a tray's cards were moved to so far (trays move by deltas).
    tray_at: Vec2,
    /// The card's own tray when it was picked up (centre, half size): let
    /// go outside it, the card leaves that group.
    home: Option<(Vec2, Vec2)>,
    /// Where the card lay when it was picked up.
    start: Vec2,
}

/// The table.
pub struct Table {
    library: Arc<Library>,
    /// The groups.
    pub tree: Tree,
    cards: Vec<Card>,
    free: Vec<CardId>,
    card_of: HashMap<Item, CardId>,
    /// Per group: open, and where its stack lies (its cards spread around
    /// that point).
    open: Vec<bool>,
    anchor: Vec<Vec2>,
    /// Where cards not on the table lay, by key, relative to their group's
    /// stack, and turned how.
    remembered: HashMap<String, (Vec2, f32)>,
    /// Keys of cards that left the table since the last save (their
    /// remembered place is saved).
    remembered_dirty: HashSet<String>,
    /// Photo and group keys moved into another group, and where.
    moves: HashMap<String, String>,
    open_dirty: bool,
    /// Whether which groups are open, and where cards lie, is the user's
    /// to keep (not a search's table, which opens every folder of its
    /// result and lays them out anew: only the moves into other groups
    /// made on it are saved, as `moves` differs from this).
    keeps_open: bool,
    moves_before: HashMap<String, String>,
    groups_dirty: bool,
    grid: Grid,
    /// The card of each grid handle index.
    body_of: Vec<CardId>,
    /// Real time fed in, and the time the physics reached.
    clock: f64,
    sim: f64,
    drag: Option<Drag>,
    /// The pointer's recent positions while dragging, for the throw.
    history: VecDeque<(f64, Vec2)>,
    next_z: u32,
    next_pile: u32,
    selected: HashSet<Item>,
    events: Vec<Event>,
    /// Photos' sizes, once known, by library index.
    shapes: HashMap<u32, (u32, u32)>,
    /// The springs' and the friction's step, computed once.
    steps: physics::Steps,
    /// Counts the cards put on or taken off the table.
    revision: u64,
    /// The view's size in points, for [`Table::pack`].
    view: Vec2,
    /// The height of the trays' name bars: taller than
    /// [`layout::TRAY_HEADER`] where a packed table is small at Fit.
    header: f32,
    /// Cards fly to a packed layout: none pushes another until all have
    /// landed (trays change shape on the way).
    landing: bool,
    /// Scratch for the physics step.
    pairs: Vec<collide::Pair>,
    handles: Vec<Handle>,
}

/// A small deterministic turn for a card, like a print dropped by hand
/// (±3°).
fn tilt(key: &str) -> f32 {
    let mut h: u32 = 0x811c_9dc5;
    for b in key.bytes() {
        h = (h ^ u32::from(b)).wrapping_mul(0x0100_0193);
    }
    ((h % 1001) as f32 / 1000.0 - 0.5) * 0.105
}

impl Table {
    /// The table of `rows` (library indexes) by folder, as `saved` left it.
    /// Without a saved state the top folder's stack starts open.
    pub fn new(library: Arc<Library>, rows: &[u32], saved: &Saved) -> Result<Table, CollideError> {
        let mut moves = HashMap::new();
        let mut remembered = HashMap::new();
        for p in saved.placements.values() {
            if !p.group.is_empty() {
                moves.insert(p.key.clone(), p.group.clone());
            }
            let (x, y, a) = (p.x as f32, p.y as f32, p.angle as f32);
            if x.is_finite() && y.is_finite() && a.is_finite() && x.abs().max(y.abs()) < 1e29 {
                remembered.insert(p.key.clone(), (Vec2::new(x, y), a));
            }
        }
        let tree = Tree::build(&library, rows, &saved.user_groups, &moves);
        let groups = tree.groups.len();
        let mut table = Table {
            library,
            tree,
            cards: Vec::new(),
            free: Vec::new(),
            card_of: HashMap::new(),
            open: vec![false; groups],
            anchor: vec![Vec2::ZERO; groups],
            remembered,
            remembered_dirty: HashSet::new(),
            moves,
            open_dirty: false,
            keeps_open: true,
            moves_before: HashMap::new(),
            groups_dirty: false,
            grid: Grid::new(),
            body_of: Vec::new(),
            clock: 0.0,
            sim: 0.0,
            drag: None,
            history: VecDeque::new(),
            next_z: 1,
            next_pile: 1,
            selected: HashSet::new(),
            events: Vec::new(),
            shapes: HashMap::new(),
            steps: physics::steps()?,
            revision: 0,
            view: Vec2::new(1000.0, 625.0),
            header: layout::TRAY_HEADER,
            landing: false,
            pairs: Vec::new(),
            handles: Vec::new(),
        };
        table.open[ROOT as usize] = true;
        table.spread(ROOT, false)?;
        let first_run = saved.placements.is_empty() && saved.open.is_empty();
        if first_run {
            let tops = table.tree.groups[ROOT as usize].groups.clone();
            if let [only] = tops[..] {
                table.open_group(only, false)?;
            }
        } else {
            // Parents before children, so each opens from its stack.
            let mut open: Vec<GroupId> = saved
                .open
                .iter()
                .filter_map(|k| table.tree.by_key(k))
                .collect();
            open.sort_by_key(|&g| table.tree.depth(g));
            for g in open {
                table.open_group(g, false)?;
            }
        }
        table.open_dirty = false;
        for c in &mut table.cards {
            c.dirty = false;
        }
        table.settle_instantly()?;
        Ok(table)
    }

    /// Opens every group, for a search's table: each folder holding a
    /// photo found shows it, the whole packed to the view's shape
    /// ([`Table::pack`]). Which groups are open is then not saved (the
    /// user's table comes back as it was when the search is cleared), nor
    /// are the places the opening gave the cards.
    pub fn open_for_result(&mut self) -> Result<(), CollideError> {
        self.keeps_open = false;
        self.moves_before = self.moves.clone();
        let mut groups: Vec<GroupId> = (0..self.tree.groups.len() as GroupId)
            .filter(|&g| g != ROOT)
            .collect();
        groups.sort_by_key(|&g| self.tree.depth(g));
        for g in groups {
            if !self.is_open(g) {
                self.open_group(g, false)?;
            }
        }
        self.settle_instantly()?;
        self.pack(Arrange::Grid, false)?;
        self.open_dirty = false;
        for c in &mut self.cards {
            c.dirty = false;
        }
        self.settle_instantly()
    }

    /// Whether which groups are open, and where the cards lie, is the
    /// user's table to keep (false for a search's table).
    pub fn keeps_open(&self) -> bool {
        self.keeps_open
    }

    /// The height of the trays' name bars, in table units.
    pub fn header(&self) -> f32 {
        self.header
    }

    /// The library the cards' photo indexes refer to.
    pub fn library(&self) -> &Arc<Library> {
        &self.library
    }

    /// Every card on the table, with its id.
    pub fn cards(&self) -> impl Iterator<Item = (CardId, &Card)> {
        self.cards
            .iter()
            .enumerate()
            .filter(|(_, c)| c.alive)
            .map(|(i, c)| (i as CardId, c))
    }

    /// How many cards lie on the table (trays included).
    pub fn len(&self) -> usize {
        self.cards.len() - self.free.len()
    }

    /// Whether the table is empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// A card.
    pub fn card(&self, id: CardId) -> Option<&Card> {
        self.cards.get(id as usize).filter(|c| c.alive)
    }

    /// The card showing `item`, if it is on the table.
    pub fn card_of(&self, item: Item) -> Option<CardId> {
        self.card_of.get(&item).copied()
    }

    /// Changes whenever a card is put on or taken off the table (the
    /// window asks for thumbnails again at once).
    pub fn revision(&self) -> u64 {
        self.revision
    }

    /// Whether a group is open.
    pub fn is_open(&self, g: GroupId) -> bool {
        self.open.get(g as usize).copied().unwrap_or(false)
    }

    /// The card that shows photo `row`: its own, or the closed stack it
    /// is the cover of.
    pub fn showing(&self, row: u32) -> Option<CardId> {
        if let Some(id) = self.card_of(Item::Photo(row)) {
            return Some(id);
        }
        let mut g = *self.tree.photo_group.get(&row)?;
        loop {
            let group = &self.tree.groups[g as usize];
            if group.cover != Some(row) {
                return None;
            }
            if let Some(id) = self.card_of(Item::Stack(g)) {
                return Some(id);
            }
            g = group.parent?;
        }
    }

    /// Whether anything still moves (the window keeps drawing while so).
    pub fn is_moving(&self) -> bool {
        self.drag.is_some()
            || self
                .cards()
                .any(|(_, c)| c.motion != Motion::Rest || c.pushed)
    }

    /// The selected cards' items.
    pub fn selected(&self) -> &HashSet<Item> {
        &self.selected
    }

    /// Replaces the selection.
    pub fn select(&mut self, items: impl IntoIterator<Item = Item>) {
        self.selected = items
            .into_iter()
            .filter(|i| !matches!(i, Item::Tray(_)))
            .collect();
    }

    /// Adds an item to the selection or takes it out.
    pub fn toggle_selected(&mut self, item: Item) {
        if !self.selected.remove(&item) && !matches!(item, Item::Tray(_)) {
            self.selected.insert(item);
        }
    }

    /// Events since the last call.
    pub fn take_events(&mut self) -> Vec<Event> {
        std::mem::take(&mut self.events)
    }

    /// A card's key in the saved state.
    pub fn key_of(&self, item: Item) -> String {
        match item {
            Item::Photo(row) => catalog::file_key(self.library.photos[row as usize].id),
            Item::Stack(g) | Item::Tray(g) => format!("g:{}", self.tree.groups[g as usize].key),
        }
    }

    /// Puts a card on the table; returns its id.
    fn add_card(
        &mut self,
        item: Item,
        pos: Vec2,
        angle: f32,
        half: Vec2,
        group: GroupId,
    ) -> Result<CardId, CollideError> {
        let z = self.raise_z();
        let mut card = Card {
            item,
            pos,
            angle,
            half,
            motion: Motion::Rest,
            group,
            z,
            vel: Vec2::ZERO,
            target: pos,
            handle: None,
            pile: 0,
            pushed: false,
            active: false,
            dirty: true,
            alive: true,
        };
        let handle = self.grid.insert(card.aabb()?)?;
        card.handle = Some(handle);
        let id = match self.free.pop() {
            Some(id) => {
                self.cards[id as usize] = card;
                id
            }
            None => {
                self.cards.push(card);
                (self.cards.len() - 1) as CardId
            }
        };
        let slot = handle.index() as usize;
        if self.body_of.len() <= slot {
            self.body_of.resize(slot + 1, CardId::MAX);
        }
        self.body_of[slot] = id;
        self.card_of.insert(item, id);
        self.revision += 1;
        Ok(id)
    }

    /// Takes a card off the table.
    fn remove_card(&mut self, id: CardId) -> Result<(), CollideError> {
        let card = &mut self.cards[id as usize];
        if !card.alive {
            return Ok(());
        }
        card.alive = false;
        let item = card.item;
        if let Some(h) = card.handle.take() {
            self.grid.remove(h)?;
        }
        if self.card_of.get(&item) == Some(&id) {
            self.card_of.remove(&item);
        }
        self.free.push(id);
        self.revision += 1;
        if self.drag.as_ref().is_some_and(|d| d.card == id) {
            self.drag = None;
        }
        Ok(())
    }

    fn raise_z(&mut self) -> u32 {
        self.next_z += 1;
        self.next_z
    }

    /// Puts a card on top of the others.
    pub fn raise(&mut self, id: CardId) {
        let z = self.raise_z();
        if let Some(c) = self.cards.get_mut(id as usize) {
            c.z = z;
        }
    }

    /// Tells the grid a card moved.
    fn moved(&mut self, id: CardId) -> Result<(), CollideError> {
        let card = &mut self.cards[id as usize];
        card.dirty = true;
        if let Some(h) = card.handle {
            let aabb = card.aabb()?;
            self.grid.update(h, aabb)?;
        }
        Ok(())
    }

    /// The size of a photo's card once its shape is known.
    pub fn set_photo_shape(
        &mut self,
        row: u32,
        width: u32,
        height: u32,
    ) -> Result<(), CollideError> {
        self.shapes.insert(row, (width, height));
        let Some(id) = self.card_of(Item::Photo(row)) else {
            return Ok(());
        };
        let half = photo_half(width, height);
        let card = &mut self.cards[id as usize];
        if (card.half.x - half.x).abs() < 0.01 && (card.half.y - half.y).abs() < 0.01 {
            return Ok(());
        }
        card.half = half;
        // A card that grew pushes its neighbours aside.
        card.pushed = card.motion == Motion::Rest;
        self.moved(id)
    }

    /// Opens a closed group's stack: its cards spread around it (flying
    /// there from the stack when `animate`), on a tray that pushes the
    /// cards around it aside.
    pub fn open_group(&mut self, g: GroupId, animate: bool) -> Result<(), CollideError> {
        if self.is_open(g) || g as usize >= self.tree.groups.len() {
            return Ok(());
        }
        let Some(stack) = self.card_of(Item::Stack(g)) else {
            return Ok(());
        };
        let (at, parent) = {
            let c = &self.cards[stack as usize];
            (c.pos, c.group)
        };
        self.remove_card(stack)?;
        // Opened, it is no longer a card to select.
        self.selected.remove(&Item::Stack(g));
        self.anchor[g as usize] = at;
        self.open[g as usize] = true;
        self.open_dirty = true;
        let tray = self.add_card(Item::Tray(g), at, 0.0, Vec2::new(1.0, 1.0), parent)?;
        self.cards[tray as usize].z = 0;
        self.spread(g, animate)?;
        self.update_trays(false)?;
        Ok(())
    }

    /// Closes an open group (and every open group in it): its cards fly
    /// back into its stack and leave the table.
    pub fn close_group(&mut self, g: GroupId) -> Result<(), CollideError> {
        if !self.is_open(g) || g == ROOT {
            return Ok(());
        }
        let at = self.anchor[g as usize];
        let parent = self.tree.groups[g as usize].parent.unwrap_or(ROOT);
        // Every card inside, remembered where it lies, flies home.
        let inside: Vec<CardId> = self
            .cards()
            .filter(|(_, c)| c.group != parent && self.tree.is_within(c.group, g))
            .map(|(i, _)| i)
            .collect();
        for id in inside {
            let item = self.cards[id as usize].item;
            if let Item::Tray(t) = item {
                self.remember_group(t);
                self.remove_card(id)?;
                continue;
            }
            self.remember(id);
            let c = &mut self.cards[id as usize];
            c.motion = Motion::Gathering;
            c.target = at;
            self.selected.remove(&item);
        }
        for sub in self.subgroups(g) {
            self.open[sub as usize] = false;
        }
        self.open[g as usize] = false;
        self.open_dirty = true;
        if let Some(tray) = self.card_of(Item::Tray(g)) {
            self.remove_card(tray)?;
        }
        let angle = self.angle_for(Item::Stack(g));
        self.add_card(Item::Stack(g), at, angle, stack_half(), parent)?;
        self.update_trays(false)?;
        Ok(())
    }

    /// `g` and every group inside it.
    fn subgroups(&self, g: GroupId) -> Vec<GroupId> {
        let mut out = vec![g];
        let mut k = 0;
        while k < out.len() {
            out.extend_from_slice(&self.tree.groups[out[k] as usize].groups);
            k += 1;
        }
        out
    }

    /// Remembers where a card lies, relative to its group's stack.
    fn remember(&mut self, id: CardId) {
        let c = &self.cards[id as usize];
        let (item, rel, angle) = (c.item, c.pos - self.anchor[c.group as usize], c.angle);
        let key = self.key_of(item);
        self.remembered.insert(key.clone(), (rel, angle));
        self.remembered_dirty.insert(key);
    }

    /// Remembers where an open group's stack lies.
    fn remember_group(&mut self, g: GroupId) {
        let parent = self.tree.groups[g as usize].parent.unwrap_or(ROOT);
        let rel = self.anchor[g as usize] - self.anchor[parent as usize];
        let key = self.key_of(Item::Stack(g));
        let angle = self.angle_for(Item::Stack(g));
        self.remembered.insert(key.clone(), (rel, angle));
        self.remembered_dirty.insert(key);
    }

    fn angle_for(&self, item: Item) -> f32 {
        let key = self.key_of(item);
        // A folder's turn comes from its name, not its path: the same
        // folder lies the same way wherever the photos are mounted.
        let seed = match item {
            Item::Stack(g) | Item::Tray(g) => self.tree.groups[g as usize].name.as_str(),
            Item::Photo(_) => key.as_str(),
        };
        self.remembered
            .get(&key)
            .map_or_else(|| tilt(seed), |&(_, a)| a)
    }

    /// Double-click: opens a stack, closes a tray.
    pub fn toggle(&mut self, id: CardId) -> Result<(), CollideError> {
        match self.card(id).map(|c| c.item) {
            Some(Item::Stack(g)) => self.open_group(g, true),
            Some(Item::Tray(g)) => self.close_group(g),
            _ => Ok(()),
        }
    }

    /// The topmost card under `p` (a tray only where no card is), where
    /// `hit` says, for a photo and a point on it (0..1 across and down),
    /// whether the photo is opaque there.
    pub fn pick(
        &mut self,
        p: Vec2,
        hit: impl Fn(u32, [f32; 2]) -> bool,
    ) -> Result<Option<CardId>, CollideError> {
        self.pick_except(p, CardId::MAX, hit)
    }

    /// [`Table::pick`], looking through card `except`.
    fn pick_except(
        &mut self,
        p: Vec2,
        except: CardId,
        hit: impl Fn(u32, [f32; 2]) -> bool,
    ) -> Result<Option<CardId>, CollideError> {
        self.handles.clear();
        self.grid.query_point(p, &mut self.handles)?;
        let mut best: Option<(u32, CardId)> = None;
        let mut tray: Option<(usize, CardId)> = None;
        for h in &self.handles {
            let id = self.body_of[h.index() as usize];
            let c = &self.cards[id as usize];
            if !c.alive || c.motion == Motion::Gathering || id == except {
                continue;
            }
            let l = c.to_local(p);
            if l.x.abs() > c.half.x || l.y.abs() > c.half.y {
                continue;
            }
            match c.item {
                Item::Tray(g) => {
                    let depth = self.tree.depth(g);
                    if tray.is_none_or(|(d, _)| depth > d) {
                        tray = Some((depth, id));
                    }
                    continue;
                }
                Item::Photo(row) => {
                    let uv = [(l.x / c.half.x + 1.0) * 0.5, (l.y / c.half.y + 1.0) * 0.5];
                    if !hit(row, uv) {
                        continue;
                    }
                }
                Item::Stack(_) => {}
            }
            if best.is_none_or(|(z, _)| c.z > z) {
                best = Some((c.z, id));
            }
        }
        Ok(best.map(|(_, id)| id).or(tray.map(|(_, id)| id)))
    }

    /// The cards (not trays) whose boxes meet `region`.
    pub fn in_region(&mut self, region: &Aabb) -> Result<Vec<CardId>, CollideError> {
        self.handles.clear();
        self.grid.query_region(region, &mut self.handles)?;
        let mut out: Vec<CardId> = self
            .handles
            .iter()
            .map(|h| self.body_of[h.index() as usize])
            .filter(|&id| {
                let c = &self.cards[id as usize];
                c.alive && !matches!(c.item, Item::Tray(_)) && c.motion != Motion::Gathering
            })
            .collect();
        out.sort_unstable();
        Ok(out)
    }

    /// Starts dragging a card with the pointer at `p`: it rises on top and
    /// passes over the cards it lay on.
    pub fn begin_drag(&mut self, id: CardId, p: Vec2) -> Result<(), CollideError> {
        let Some(c) = self.card(id) else {
            return Ok(());
        };
        if c.motion == Motion::Gathering {
            return Ok(());
        }
        let grab = c.pos - p;
        let region = c.aabb()?;
        let is_tray = matches!(c.item, Item::Tray(_));
        let mut lifted = HashSet::new();
        for other in self.in_region(&region)? {
            if other != id && self.overlap(id, other)? {
                lifted.insert(other);
            }
        }
        if !is_tray {
            self.raise(id);
        }
        let c = &mut self.cards[id as usize];
        c.motion = Motion::Dragged;
        c.vel = Vec2::ZERO;
        let pos = c.pos;
        let home = match c.group {
            ROOT => None,
            g => self
                .card_of(Item::Tray(g))
                .map(|t| (self.cards[t as usize].pos, self.cards[t as usize].half)),
        };
        self.history.clear();
        self.history.push_back((self.clock, p));
        self.drag = Some(Drag {
            card: id,
            grab,
            lifted,
            from: p,
            to: p,
            tray_at: pos,
            home,
            start: pos,
        });
        Ok(())
    }

    /// The card being dragged.
    pub fn dragged(&self) -> Option<CardId> {
        self.drag.as_ref().map(|d| d.card)
    }

    /// Where the held card lay when it was picked up.
    pub fn drag_origin(&self) -> Option<Vec2> {
        self.drag.as_ref().map(|d| d.start)
    }

    /// Whether two cards' turned rectangles overlap.
    fn overlap(&self, a: CardId, b: CardId) -> Result<bool, CollideError> {
        let (ca, cb) = (&self.cards[a as usize], &self.cards[b as usize]);
        let (sa, xa) = physics::shape_of(ca)?;
        let (sb, xb) = physics::shape_of(cb)?;
        collide::intersects(&sa, &xa, &sb, &xb)
    }

    /// Advances the table by `dt` seconds of real time, in fixed steps of
    /// [`STEP`]. While dragging, `pointer` is where the pointer is at the
    /// end of this time (the steps in between follow a straight line to
    /// it); `release` lets the card go there: thrown if it was moving,
    /// dropped into a stack if it is over one.
    pub fn advance(
        &mut self,
        dt: f64,
        pointer: Option<Vec2>,
        release: bool,
    ) -> Result<(), CollideError> {
        let dt = if dt.is_finite() {
            dt.clamp(0.0, 0.25)
        } else {
            0.0
        };
        let start = self.clock;
        self.clock += dt;
        if let (Some(d), Some(p)) = (&mut self.drag, pointer)
            && p.is_finite()
        {
            d.to = p;
            self.history.push_back((self.clock, p));
            while self.history.len() > 2
                && self
                    .history
                    .get(1)
                    .is_some_and(|&(t, _)| t < self.clock - 0.1)
            {
                self.history.pop_front();
            }
        }
        // A hair of slack, so frame times that add up to a step's time
        // in exact arithmetic take that step whatever their rounding.
        while self.sim + STEP <= self.clock + 1e-7 {
            self.sim += STEP;
            let f = if dt > 0.0 {
                ((self.sim - start) / dt).clamp(0.0, 1.0) as f32
            } else {
                1.0
            };
            let pointer = self.drag.as_ref().map(|d| d.from + (d.to - d.from) * f);
            self.step(pointer)?;
        }
        if let Some(d) = &mut self.drag {
            d.from = d.to;
        }
        if release {
            self.release()?;
        }
        Ok(())
    }

    /// Lets the dragged card go.
    fn release(&mut self) -> Result<(), CollideError> {
        let Some(drag) = self.drag.take() else {
            return Ok(());
        };
        let id = drag.card;
        let item = self.cards[id as usize].item;
        // Dropped onto a stack?
        if matches!(item, Item::Photo(_) | Item::Stack(_)) {
            let p = drag.to;
            let target = self.pick_except(p, id, |_, _| true)?.and_then(|t| {
                match self.cards[t as usize].item {
                    Item::Stack(g) => Some((t, g)),
                    _ => None,
                }
            });
            if let Some((stack, into)) = target
                && self.put_into(id, item, into)?
            {
                let at = self.cards[stack as usize].pos;
                let c = &mut self.cards[id as usize];
                c.motion = Motion::Gathering;
                c.target = at;
                self.events.push(Event::Dropped { item, into });
                return Ok(());
            }
        }
        // Carried out of its tray (not onto a stack): it leaves that group
        // for the tray it lies on now, or the bare table; the tray it left
        // does not grow to follow it.
        if matches!(item, Item::Photo(_) | Item::Stack(_)) {
            self.rehome(id, item, drag.to, drag.home)?;
        }
        let v = self.throw_velocity();
        let c = &mut self.cards[id as usize];
        c.pile = 0;
        if v.length() > 60.0 && !matches!(item, Item::Tray(_)) {
            c.motion = Motion::Sliding;
            c.target = c.pos + v * physics::SLIDE_TIME as f32;
        } else {
            c.motion = Motion::Rest;
            c.target = c.pos;
            // Pushes off what it was held over (a stack). It stays where it
            // is, so the grid is told that it moved: otherwise the next
            // step's moved pairs would not include what it lies on.
            c.pushed = true;
            if let Some(h) = c.handle {
                self.grid.touch(h)?;
            }
        }
        self.cards[id as usize].dirty = true;
        Ok(())
    }

    /// The stack a held card would go into if let go now: the one under
    /// the pointer.
    pub fn drop_target(&mut self) -> Option<CardId> {
        let drag = self.drag.as_ref()?;
        let (card, at) = (drag.card, drag.to);
        if !matches!(
            self.cards[card as usize].item,
            Item::Photo(_) | Item::Stack(_)
        ) {
            return None;
        }
        let t = self.pick_except(at, card, |_, _| true).ok()??;
        matches!(self.cards[t as usize].item, Item::Stack(_)).then_some(t)
    }

    /// The deepest open tray around `p`, but the trays of `item` itself
    /// (a stack's own, and those inside it); [`ROOT`] where none is.
    fn tray_at(&self, p: Vec2, item: Item) -> GroupId {
        let mut best: Option<(usize, GroupId)> = None;
        for c in self.cards.iter().filter(|c| c.alive) {
            let Item::Tray(g) = c.item else { continue };
            if let Item::Stack(own) = item
                && self.tree.is_within(g, own)
            {
                continue;
            }
            let l = c.to_local(p);
            if l.x.abs() <= c.half.x && l.y.abs() <= c.half.y {
                let depth = self.tree.depth(g);
                if best.is_none_or(|(d, _)| depth > d) {
                    best = Some((depth, g));
                }
            }
        }
        best.map_or(ROOT, |(_, g)| g)
    }

    /// Moves a card let go at `p` into the group whose tray it lies on,
    /// where that is not its own: as a drop onto that group's stack, but
    /// it stays where it is. Within its own tray as it was when picked up
    /// (`home`) it stays in its group, unless let go on a tray inside it.
    fn rehome(
        &mut self,
        id: CardId,
        item: Item,
        p: Vec2,
        home: Option<(Vec2, Vec2)>,
    ) -> Result<(), CollideError> {
        let own = self.cards[id as usize].group;
        let into = self.tray_at(p, item);
        let at_home =
            home.is_some_and(|(c, h)| (p.x - c.x).abs() <= h.x && (p.y - c.y).abs() <= h.y);
        if into == own
            || (at_home && !self.tree.is_within(into, own))
            || !self.put_into(id, item, into)?
        {
            return Ok(());
        }
        let c = &self.cards[id as usize];
        let (key, rel, angle) = (
            self.key_of(item),
            c.pos - self.anchor[into as usize],
            c.angle,
        );
        self.remembered.insert(key.clone(), (rel, angle));
        self.remembered_dirty.insert(key);
        self.cards[id as usize].dirty = true;
        self.selected.insert(item);
        self.events.push(Event::Dropped { item, into });
        Ok(())
    }

    /// The pointer's velocity over its last 50 ms.
    fn throw_velocity(&self) -> Vec2 {
        let Some(&(t1, p1)) = self.history.back() else {
            return Vec2::ZERO;
        };
        let t0 = t1 - 0.05;
        let mut p0 = None;
        for w in self.history.iter().collect::<Vec<_>>().windows(2) {
            let (&(ta, pa), &(tb, pb)) = (w[0], w[1]);
            if ta <= t0 && t0 <= tb && tb > ta {
                let f = ((t0 - ta) / (tb - ta)) as f32;
                p0 = Some(pa + (pb - pa) * f);
            }
        }
        match p0 {
            Some(p0) => (p1 - p0) * 20.0,
            None => Vec2::ZERO,
        }
    }

    /// Moves a dropped card's item into group `into`; false when it cannot
    /// go there (a group into itself).
    fn put_into(&mut self, id: CardId, item: Item, into: GroupId) -> Result<bool, CollideError> {
        let key = self.key_of(item);
        match item {
            Item::Photo(row) => self.tree.move_photo(row, into),
            Item::Stack(g) => {
                if !self.tree.reparent(g, into) {
                    return Ok(false);
                }
            }
            Item::Tray(_) => return Ok(false),
        }
        self.tree.recount(&self.library);
        // It lies in the new group's stack, at a fresh place when opened.
        self.remembered.remove(&key);
        self.remembered_dirty.insert(key.clone());
        let into_key = match into {
            ROOT => tree::ROOT_MOVE.to_owned(),
            g => self.tree.groups[g as usize].key.clone(),
        };
        self.moves.insert(key, into_key);
        self.cards[id as usize].group = into;
        self.selected.remove(&item);
        Ok(true)
    }

    /// Makes a group of the selected cards, as a stack where they were.
    pub fn group_selection(&mut self, name: &str) -> Result<Option<GroupId>, CollideError> {
        let items: Vec<Item> = self
            .selected
            .iter()
            .copied()
            .filter(|i| matches!(i, Item::Photo(_) | Item::Stack(_)))
            .collect();
        if items.is_empty() {
            return Ok(None);
        }
        let g = self.new_user_group(name);
        let mut centre = Vec2::ZERO;
        let mut count = 0.0f32;
        for &item in &items {
            if let Some(id) = self.card_of(item) {
                centre += self.cards[id as usize].pos;
                count += 1.0;
            }
        }
        let centre = centre * (1.0 / count.max(1.0));
        let angle = self.angle_for(Item::Stack(g));
        let stack = self.add_card(Item::Stack(g), centre, angle, stack_half(), ROOT)?;
        for item in items {
            if let Some(id) = self.card_of(item)
                && self.put_into(id, item, g)?
            {
                let c = &mut self.cards[id as usize];
                c.motion = Motion::Gathering;
                c.target = centre;
            }
        }
        self.raise(stack);
        Ok(Some(g))
    }

    /// Makes a group of photos (library indexes; a search result), wherever
    /// they lie, as a stack at `at`: the ones on the table fly into it.
    pub fn group_photos(
        &mut self,
        rows: &[u32],
        name: &str,
        at: Vec2,
    ) -> Result<Option<GroupId>, CollideError> {
        let rows: Vec<u32> = rows
            .iter()
            .copied()
            .filter(|r| self.tree.photo_group.contains_key(r))
            .collect();
        if rows.is_empty() || !at.is_finite() {
            return Ok(None);
        }
        let g = self.new_user_group(name);
        let angle = self.angle_for(Item::Stack(g));
        let stack = self.add_card(Item::Stack(g), at, angle, stack_half(), ROOT)?;
        let into_key = self.tree.groups[g as usize].key.clone();
        for row in rows {
            let item = Item::Photo(row);
            let key = self.key_of(item);
            self.tree.move_photo(row, g);
            self.remembered.remove(&key);
            self.remembered_dirty.insert(key.clone());
            self.moves.insert(key, into_key.clone());
            self.selected.remove(&item);
            if let Some(id) = self.card_of(item) {
                let c = &mut self.cards[id as usize];
                c.group = g;
                c.motion = Motion::Gathering;
                c.target = at;
            }
        }
        self.tree.recount(&self.library);
        self.raise(stack);
        Ok(Some(g))
    }

    /// A new, empty group of the user's on the table.
    fn new_user_group(&mut self, name: &str) -> GroupId {
        let n = self
            .tree
            .groups
            .iter()
            .filter(|g| g.key.starts_with("v:"))
            .filter_map(|g| g.key[2..].parse::<u32>().ok())
            .max()
            .unwrap_or(0)
            + 1;
        let g = self.tree.add_user_group(format!("v:{n}"), name.to_owned());
        self.open.push(false);
        self.anchor.push(Vec2::ZERO);
        self.groups_dirty = true;
        g
    }

    /// What changed since the last call, for the catalogue (every card
    /// when `all`).
    pub fn take_changes(&mut self, all: bool) -> Changes {
        let mut placements = Vec::new();
        for k in 0..self.cards.len() {
            let c = &self.cards[k];
            if !c.alive || !(c.dirty || all) || c.motion == Motion::Gathering {
                continue;
            }
            let (item, pos, angle, group) = (c.item, c.pos, c.angle, c.group);
            self.cards[k].dirty = false;
            let (rel, angle) = match item {
                // An open group's place is its stack's.
                Item::Tray(g) => {
                    let parent = self.tree.groups[g as usize].parent.unwrap_or(ROOT);
                    (
                        self.anchor[g as usize] - self.anchor[parent as usize],
                        self.angle_for(Item::Stack(g)),
                    )
                }
                _ => (pos - self.anchor[group as usize], angle),
            };
            let key = self.key_of(item);
            placements.push(self.placement(key, rel, angle));
        }
        let mut keys: Vec<String> = if all {
            self.remembered.keys().cloned().collect()
        } else {
            self.remembered_dirty.drain().collect()
        };
        self.remembered_dirty.clear();
        keys.sort();
        let on_table: HashSet<&str> = placements.iter().map(|p| p.key.as_str()).collect();
        let mut more = Vec::new();
        for key in keys {
            if on_table.contains(key.as_str()) {
                continue;
            }
            match self.remembered.get(&key) {
                Some(&(rel, angle)) => more.push(self.placement(key, rel, angle)),
                // Forgotten (moved into another group): its move is kept.
                None => {
                    if self.moves.contains_key(&key) {
                        more.push(self.placement(key.clone(), Vec2::new(f32::NAN, 0.0), 0.0));
                    }
                }
            }
        }
        placements.extend(more);
        if !self.keeps_open {
            // A search's table: only what changed group, with no place.
            placements.retain(|p| self.moves.get(&p.key) != self.moves_before.get(&p.key));
            for p in &mut placements {
                p.x = UNPLACED;
                p.y = UNPLACED;
            }
        }
        let open = ((self.open_dirty || all) && self.keeps_open).then(|| {
            self.open_dirty = false;
            let mut keys: Vec<String> = (1..self.tree.groups.len())
                .filter(|&g| self.open[g])
                .map(|g| self.tree.groups[g].key.clone())
                .collect();
            keys.sort();
            keys
        });
        let user_groups = (self.groups_dirty || all).then(|| {
            self.groups_dirty = false;
            self.tree.user_groups()
        });
        Changes {
            placements,
            open,
            user_groups,
        }
    }

    /// A placement record; a card with no place yet (NaN) is saved far
    /// off so it still carries its group: the next opening lays it out.
    fn placement(&self, key: String, rel: Vec2, angle: f32) -> Placement {
        let group = self.moves.get(&key).cloned().unwrap_or_default();
        let (x, y) = if rel.is_finite() {
            (f64::from(rel.x), f64::from(rel.y))
        } else {
            (UNPLACED, UNPLACED)
        };
        Placement {
            key,
            x,
            y,
            angle: f64::from(angle),
            group,
        }
    }

    /// Runs the physics until nothing moves (at most a minute of table
    /// time): loading, tests.
    pub fn settle_instantly(&mut self) -> Result<(), CollideError> {
        for _ in 0..(60.0 / STEP) as usize {
            if !self.is_moving() {
                break;
            }
            self.advance(STEP, None, false)?;
        }
        Ok(())
    }
}

/// Where a card dropped into a closed group is saved: no place yet.
pub const UNPLACED: f64 = 1.0e30;

/// A photo card's half size for a photo `width × height`.
pub fn photo_half(width: u32, height: u32) -> Vec2 {
    let (w, h) = (width.max(1) as f32, height.max(1) as f32);
    let r = (w / h).clamp(0.25, 4.0);
    if r >= 1.0 {
        Vec2::new(CARD_HALF, CARD_HALF / r)
    } else {
        Vec2::new(CARD_HALF * r, CARD_HALF)
    }
}

/// A stack's half size.
pub fn stack_half() -> Vec2 {
    Vec2::new(CARD_HALF, CARD_HALF * 0.8)
}
