//! The whole table laid out at once, to the shape of the view: every open
//! tray's cards in rows and its open trays beside them, each tray as
//! small as its cards allow and shaped so that the whole fills the view.
//! A search's table starts so, and the arrange commands do it when
//! nothing is selected: at Fit, the cards are then about as large as the
//! view allows for their number.
//!
//! Trays are packed the tallest first, each where it rests lowest (a
//! skyline), and the cards fill the lowest room left, a row at a time.
//! Each tray tries widths from one card to all in a row and keeps the
//! one whose outline, put into a box of the view's shape, would show
//! largest; inner trays try shapes wider and narrower than the view's.

use std::collections::HashMap;

use collide::{CollideError, Vec2};

use super::layout::{Arrange, TRAY_HEADER, TRAY_MARGIN};
use super::{CARD_HALF, CardId, GroupId, Item, Motion, ROOT, Table};

/// Room between trays side by side or above each other.
pub const TRAY_GAP: f32 = 20.0;

/// Widths tried per tray, spaced evenly in ratio from the narrowest to
/// everything in one row.
const WIDTHS: usize = 96;

/// Where a tray's cards and inner trays go, relative to the top-left of
/// its content (inside its margins and under its name).
#[derive(Default)]
struct Packed {
    /// The content's size.
    size: Vec2,
    /// The cell each card takes.
    cell: Vec2,
    /// Inner trays' outlines' top-left corners.
    trays: Vec<(GroupId, Vec2)>,
    /// Cards' cells' top-left corners.
    cells: Vec<(CardId, Vec2)>,
}

/// The outline around a tray's content, under a name bar `header` tall.
fn outline(content: Vec2, header: f32) -> Vec2 {
    content + Vec2::new(2.0 * TRAY_MARGIN, 2.0 * TRAY_MARGIN + header)
}

/// How much of the view a fitted table fills (the rest is a margin).
pub const FIT_SHARE: f32 = 0.92;

/// The least height of a tray's name bar on the screen at Fit, in
/// points: room for its name at the smallest size it is drawn.
const HEADER_POINTS: f32 = 15.0;

/// How large a box of `size` shows in a view of `aspect` (width over
/// height) and height 1: larger is better.
fn shown(size: Vec2, aspect: f32) -> f32 {
    (aspect / size.x.max(1.0)).min(1.0 / size.y.max(1.0))
}

/// Heights closer than this are one level to the skyline (trays of
/// like cards differ by their cards' turns).
const LEVEL: f32 = 12.0;

/// The top of what is packed so far: runs of `(from x, to x, height)`
/// across the width, left to right.
struct Skyline(Vec<(f32, f32, f32)>);

impl Skyline {
    /// The lowest place a box `w` wide may rest, the leftmost of equals:
    /// its left edge and the height it rests at.
    fn lowest(&self, w: f32, width: f32) -> Option<(f32, f32)> {
        let mut best: Option<(f32, f32)> = None;
        for (i, &(x, _, _)) in self.0.iter().enumerate() {
            if x + w > width + 0.01 {
                break;
            }
            let y = self.0[i..]
                .iter()
                .take_while(|r| r.0 < x + w - 0.01)
                .fold(0.0f32, |y, r| y.max(r.2));
            // Heights a card's turn apart count as equal: leftmost first.
            if best.is_none_or(|b| y < b.1 - LEVEL) {
                best = Some((x, y));
            }
        }
        best
    }

    /// How far right of `x` the skyline stays at or under `y`.
    fn room(&self, x: f32, y: f32, width: f32) -> f32 {
        let mut to = x;
        for r in &self.0 {
            if r.1 <= x + 0.01 {
                continue;
            }
            if r.2 > y + 0.01 {
                break;
            }
            to = r.1;
        }
        to.min(width) - x
    }

    /// Raises `x .. x + w` to `top`.
    fn raise(&mut self, x: f32, w: f32, top: f32) {
        let end = x + w;
        let mut runs = Vec::with_capacity(self.0.len() + 2);
        for &(a, b, y) in &self.0 {
            if b <= x + 0.01 || a >= end - 0.01 {
                runs.push((a, b, y));
                continue;
            }
            if a < x {
                runs.push((a, x, y));
            }
            if b > end {
                runs.push((end, b, y));
            }
        }
        runs.push((x, end, top));
        runs.sort_by(|p, q| p.0.total_cmp(&q.0));
        // Neighbours at one height are one run.
        let mut merged: Vec<(f32, f32, f32)> = Vec::with_capacity(runs.len());
        for r in runs {
            match merged.last_mut() {
                Some(m) if (m.2 - r.2).abs() < 0.01 && (m.1 - r.0).abs() < 0.01 => m.1 = r.1,
                _ => merged.push(r),
            }
        }
        self.0 = merged;
    }
}

/// `trays` (outline sizes, in order) each put where it rests lowest in
/// a column `width` wide (wider only where one tray is), then `cells`
/// cells of size `cell` in rows into the lowest room left: the size
/// used, and the trays' and cells' top-left corners.
fn skyline(trays: &[Vec2], cells: usize, cell: Vec2, width: f32) -> (Vec2, Vec<Vec2>, Vec<Vec2>) {
    let width = trays.iter().fold(width.max(cell.x), |w, s| w.max(s.x));
    let mut sky = Skyline(vec![(0.0, width, 0.0)]);
    let mut used = Vec2::ZERO;
    let mut tray_at = Vec::with_capacity(trays.len());
    for &s in trays {
        let (x, y) = sky.lowest(s.x, width).unwrap_or((0.0, used.y + TRAY_GAP));
        tray_at.push(Vec2::new(x, y));
        used = used.max(Vec2::new(x, y) + s);
        sky.raise(x, (s.x + TRAY_GAP).min(width - x), y + s.y + TRAY_GAP);
    }
    let mut cell_at = Vec::with_capacity(cells);
    while cell_at.len() < cells {
        let (x, y) = sky.lowest(cell.x, width).unwrap_or((0.0, used.y));
        let fit = ((sky.room(x, y, width) / cell.x + 0.001).floor() as usize).max(1);
        let n = fit.min(cells - cell_at.len());
        for k in 0..n {
            cell_at.push(Vec2::new(x + k as f32 * cell.x, y));
        }
        used = used.max(Vec2::new(x + n as f32 * cell.x, y + cell.y));
        sky.raise(x, n as f32 * cell.x, y + cell.y);
    }
    (used, tray_at, cell_at)
}

/// The best of [`WIDTHS`] widths for these trays and cards, as
/// [`skyline`] gives them; with a name bar `header` tall when they lie
/// in a tray.
fn best_width(trays: &[Vec2], cells: usize, cell: Vec2, aspect: f32, header: Option<f32>) -> f32 {
    let widest = trays.iter().fold(cell.x, |w, s| w.max(s.x));
    let all = trays.iter().map(|s| s.x + TRAY_GAP).sum::<f32>() + cells as f32 * cell.x;
    let all = all.max(widest);
    let mut best = (f32::NEG_INFINITY, widest);
    for k in 0..WIDTHS {
        let width = widest * (all / widest).powf(k as f32 / (WIDTHS - 1) as f32);
        let (used, _, _) = skyline(trays, cells, cell, width + 0.01);
        let size = header.map_or(used, |h| outline(used, h));
        let score = shown(size, aspect);
        if score > best.0 {
            best = (score, width + 0.01);
        }
    }
    best.1
}

/// Inner trays' shapes tried, as shares of the view's.
const INNER_SHAPES: [f32; 7] = [0.4, 0.6, 0.8, 1.0, 1.3, 1.7, 2.2];

/// What lies in a group: its open trays, its cards in order, and the
/// cell each card takes.
#[derive(Default)]
struct Contents {
    trays: Vec<GroupId>,
    cards: Vec<CardId>,
    cell: Vec2,
}

/// Room around a card in its cell, and under a stack for its name.
const CELL_GAP: Vec2 = Vec2::new(24.0, 24.0);
const NAME_ROOM: f32 = 22.0;

/// Every group of `order` (deepest first, the table last) packed: the
/// table to `aspect`, the trays to `inner`, under name bars `header`
/// tall.
fn plan(
    order: &[GroupId],
    contents: &HashMap<GroupId, Contents>,
    aspect: f32,
    inner: f32,
    header: f32,
) -> HashMap<GroupId, Packed> {
    let mut packed: HashMap<GroupId, Packed> = HashMap::new();
    let none = Contents::default();
    // A tray alone in the table (or alone in such a tray) is the whole
    // view's: shaped like it.
    let mut parent: HashMap<GroupId, GroupId> = HashMap::new();
    for (&p, c) in contents {
        for &t in &c.trays {
            parent.insert(t, p);
        }
    }
    let alone = |mut g: GroupId| loop {
        if g == ROOT {
            return true;
        }
        let Some(&p) = parent.get(&g) else {
            return false;
        };
        let c = contents.get(&p).unwrap_or(&none);
        if c.trays.len() != 1 || !c.cards.is_empty() {
            return false;
        }
        g = p;
    };
    for &g in order {
        let c = contents.get(&g).unwrap_or(&none);
        let mut within: Vec<(GroupId, Vec2)> = c
            .trays
            .iter()
            .map(|&t| {
                (
                    t,
                    packed
                        .get(&t)
                        .map_or(Vec2::ZERO, |p| outline(p.size, header)),
                )
            })
            .collect();
        within.sort_by(|a, b| b.1.y.total_cmp(&a.1.y).then(a.0.cmp(&b.0)));
        let sizes: Vec<Vec2> = within.iter().map(|t| t.1).collect();
        let shape = if alone(g) { aspect } else { inner };
        let n = c.cards.len();
        let bar = (g != ROOT).then_some(header);
        let width = best_width(&sizes, n, c.cell, shape, bar);
        let (mut size, tray_at, cell_at) = skyline(&sizes, n, c.cell, width);
        if size == Vec2::ZERO {
            // An empty tray is drawn around where its stack was.
            size = super::stack_half() * 2.0;
        }
        packed.insert(
            g,
            Packed {
                size,
                cell: c.cell,
                trays: within.iter().map(|t| t.0).zip(tray_at).collect(),
                cells: c.cards.iter().copied().zip(cell_at).collect(),
            },
        );
    }
    packed
}

impl Table {
    /// Sets the size of the view, in points, that [`Table::pack`] lays
    /// the table out for.
    pub fn set_view_size(&mut self, width: f32, height: f32) {
        if width.is_finite() && height.is_finite() && width > 1.0 && height > 1.0 {
            self.view = Vec2::new(width, height);
        }
    }

    /// Whether every photo on the table has its shape.
    pub fn shapes_known(&self) -> bool {
        self.cards()
            .all(|(_, c)| !matches!(c.item, Item::Photo(r) if !self.shapes.contains_key(&r)))
    }

    /// The view's size as last set.
    pub fn view_size(&self) -> Vec2 {
        self.view
    }

    /// Lays out the whole table (module doc): cards in the order of
    /// `how`, trays the tallest first, the whole
    /// centred where the table's cards were. Cards fly there when
    /// `animate`, passing over each other until all have landed.
    pub fn pack(&mut self, how: Arrange, animate: bool) -> Result<(), CollideError> {
        // What lies in each group.
        let mut contents: HashMap<GroupId, Contents> = HashMap::new();
        let mut lo = Vec2::new(f32::INFINITY, f32::INFINITY);
        let mut hi = -lo;
        for (id, c) in self.cards() {
            if matches!(c.motion, Motion::Gathering | Motion::Dragged) {
                continue;
            }
            let b = c.aabb()?;
            lo = lo.min(b.min());
            hi = hi.max(b.max());
            let into = contents.entry(c.group).or_default();
            match c.item {
                Item::Tray(g) => into.trays.push(g),
                item => {
                    into.cards.push(id);
                    // Cells as large as the group's largest card (turned),
                    // with room under a stack for its name.
                    let size = match item {
                        Item::Stack(_) => b.max() - b.min() + Vec2::new(0.0, NAME_ROOM),
                        // A photo not yet seen may stand or lie.
                        Item::Photo(r) if !self.shapes.contains_key(&r) => {
                            let side = 2.0 * CARD_HALF + 8.0;
                            Vec2::new(side, side)
                        }
                        _ => b.max() - b.min(),
                    };
                    into.cell = into.cell.max(size + CELL_GAP);
                }
            }
        }
        if !lo.is_finite() {
            return Ok(());
        }
        for c in contents.values_mut() {
            self.order_cards(&mut c.cards, how);
        }
        // Deepest first: a tray's size is known before its parent packs.
        let mut order: Vec<GroupId> = contents.values().flat_map(|c| c.trays.clone()).collect();
        order.sort_by_key(|&g| std::cmp::Reverse(self.tree.depth(g)));
        order.push(ROOT);
        // Inner trays shaped like the view, or wider or narrower: the
        // whole that shows largest wins. Name bars tall enough to read at
        // Fit (they take room, so the fit is found again).
        let aspect = self.view.x / self.view.y;
        let mut header = TRAY_HEADER;
        let mut packed = HashMap::new();
        for _ in 0..4 {
            let mut best = f32::NEG_INFINITY;
            for share in INNER_SHAPES {
                let plan = plan(&order, &contents, aspect, aspect * share, header);
                let score = shown(plan.get(&ROOT).map_or(Vec2::ZERO, |p| p.size), aspect);
                if score > best {
                    best = score;
                    packed = plan;
                }
            }
            let size = packed.get(&ROOT).map_or(Vec2::ZERO, |p| p.size);
            let zoom =
                FIT_SHARE * (self.view.x / size.x.max(1.0)).min(self.view.y / size.y.max(1.0));
            let want = (HEADER_POINTS / zoom).max(TRAY_HEADER);
            if want <= header * 1.05 {
                break;
            }
            header = want;
        }
        self.header = header;
        let root = packed.get(&ROOT).map_or(Vec2::ZERO, |p| p.size);
        let origin = (lo + hi) * 0.5 - root * 0.5;
        // Outermost first: each tray's content from its outline's corner.
        let mut todo = vec![(ROOT, origin)];
        let mut places: Vec<(CardId, Vec2)> = Vec::new();
        while let Some((g, at)) = todo.pop() {
            let Some(p) = packed.remove(&g) else { continue };
            for (t, corner) in p.trays {
                let corner = at + corner;
                let size = packed
                    .get(&t)
                    .map_or(Vec2::ZERO, |p| outline(p.size, header));
                self.anchor[t as usize] = corner + size * 0.5;
                todo.push((t, corner + Vec2::new(TRAY_MARGIN, TRAY_MARGIN + header)));
            }
            places.extend(
                p.cells
                    .into_iter()
                    .map(|(id, c)| (id, at + c + p.cell * 0.5)),
            );
        }
        for (id, target) in places {
            let c = &mut self.cards[id as usize];
            c.pile = 0;
            c.dirty = true;
            let angle = c.angle;
            self.send(id, target, angle, animate)?;
        }
        // Trays moved: their places are saved anew.
        for c in &mut self.cards {
            if c.alive && matches!(c.item, Item::Tray(_)) {
                c.dirty = true;
            }
        }
        self.landing = animate;
        self.update_trays(false)
    }
}
