#![allow(clippy::unwrap_used, clippy::expect_used)]
//! The light table without a window: the folder tree, opening and closing
//! stacks, pushing, throwing, dropping onto stacks, frame-rate
//! independence, and the saved state, checked against plain oracles
//! (every photo once, no two resting cards overlapping).

use std::collections::HashSet;
use std::sync::Arc;

use catalog::FileRecord;
use collide::Vec2;
use proptest::prelude::*;
use viewer2::library::Library;
use viewer2::table::{Arrange, Event, Item, Motion, ROOT, Saved, Table};

fn cases() -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(24)
}

fn library(paths: &[String]) -> Arc<Library> {
    let records = paths
        .iter()
        .enumerate()
        .map(|(k, p)| FileRecord {
            id: k as i64 + 1,
            path: p.clone(),
            raw_path: None,
            caption: String::new(),
            camera: String::new(),
            date: format!("2020-01-{:02} 10:00:00", 28 - k % 28),
            size: 1,
            mtime: 1,
        })
        .collect();
    Arc::new(Library::new(records, &[]))
}

/// `n` photos spread over a few folders, some nested.
fn paths(n: usize, folders: &[&str]) -> Vec<String> {
    (0..n)
        .map(|k| format!("/photos/{}/IMG_{k}.jpg", folders[k % folders.len()]))
        .collect()
}

fn table(paths: &[String]) -> Table {
    let lib = library(paths);
    let rows: Vec<u32> = (0..lib.len() as u32).collect();
    Table::new(lib, &rows, &Saved::default()).unwrap()
}

/// Pairs of resting cards that overlap and should not (not one inside the
/// other's tray, not in one pile).
fn overlaps(t: &Table) -> Vec<(Item, Item)> {
    let cards: Vec<_> = t
        .cards()
        .filter(|(_, c)| c.motion != Motion::Gathering)
        .map(|(_, c)| c.clone())
        .collect();
    let mut out = Vec::new();
    for (i, a) in cards.iter().enumerate() {
        for b in &cards[i + 1..] {
            let inside = |c: &viewer2::table::Card, g| t.tree.is_within(c.group, g);
            if matches!(a.item, Item::Tray(g) if inside(b, g))
                || matches!(b.item, Item::Tray(g) if inside(a, g))
            {
                continue;
            }
            let sa = collide::Shape::Rect(collide::Rect::new(a.half.x, a.half.y).unwrap());
            let sb = collide::Shape::Rect(collide::Rect::new(b.half.x, b.half.y).unwrap());
            let xa = collide::Transform::new(a.pos, a.angle).unwrap();
            let xb = collide::Transform::new(b.pos, b.angle).unwrap();
            if collide::intersects(&sa, &xa, &sb, &xb).unwrap() {
                out.push((a.item, b.item));
            }
        }
    }
    out
}

/// A card that does not lie inside its own open tray (or lies in a
/// group with no tray), if any.
fn outside_own_tray(t: &Table) -> Option<Item> {
    for (_, c) in t.cards() {
        if c.group == ROOT || matches!(c.item, Item::Tray(_)) || c.motion == Motion::Gathering {
            continue;
        }
        let Some(tray) = t.card_of(Item::Tray(c.group)).and_then(|id| t.card(id)) else {
            return Some(c.item);
        };
        let b = c.aabb().unwrap();
        let (lo, hi) = (tray.pos - tray.half, tray.pos + tray.half);
        let inside = b.min().x >= lo.x - 0.5
            && b.min().y >= lo.y - 0.5
            && b.max().x <= hi.x + 0.5
            && b.max().y <= hi.y + 0.5;
        if !inside {
            return Some(c.item);
        }
    }
    None
}

fn stack_of(t: &Table, name_ends: &str) -> u32 {
    (0..t.tree.groups.len() as u32)
        .find(|&g| t.tree.groups[g as usize].name.ends_with(name_ends))
        .unwrap()
}

/// Drags card `id` from where it lies by `by`, over `seconds`, at `fps`,
/// then lets go and lets the table settle.
fn drag(t: &mut Table, id: u32, by: Vec2, seconds: f64, fps: f64) {
    let from = t.card(id).unwrap().pos;
    t.begin_drag(id, from).unwrap();
    let frames = (seconds * fps).round() as usize;
    for k in 1..=frames {
        let f = k as f32 / frames as f32;
        t.advance(1.0 / fps, Some(from + by * f), k == frames)
            .unwrap();
    }
    for _ in 0..(10.0 * fps) as usize {
        t.advance(1.0 / fps, None, false).unwrap();
    }
    assert!(!t.is_moving(), "the table settles");
}

#[test]
fn folders_become_stacks_and_single_folder_chains_merge() {
    let t = table(&paths(6, &["2019/06/a", "2019/06/b", "2020"]));
    // /photos holds 2019 and 2020; 2019 holds only 06: one stack "2019/06".
    let names: Vec<&str> = t.tree.groups.iter().map(|g| g.name.as_str()).collect();
    assert!(names.contains(&"2019/06"), "{names:?}");
    assert_eq!(t.tree.groups[ROOT as usize].total, 6);
    // The top folder starts open: its two stacks lie on its tray.
    let top = t.tree.groups[ROOT as usize].groups[0];
    assert!(t.is_open(top));
    let stacks: Vec<_> = t
        .cards()
        .filter(|(_, c)| matches!(c.item, Item::Stack(_)))
        .collect();
    assert_eq!(stacks.len(), 2);
    assert!(overlaps(&t).is_empty(), "{:?}", overlaps(&t));
}

#[test]
fn opening_spreads_the_children_and_closing_gathers_them_back() {
    let mut t = table(&paths(40, &["a", "b", "c/d", "c/e"]));
    let c = stack_of(&t, "c");
    let id = t.card_of(Item::Stack(c)).unwrap();
    t.toggle(id).unwrap();
    t.settle_instantly().unwrap();
    let d = stack_of(&t, "d");
    assert!(
        t.card_of(Item::Stack(d)).is_some(),
        "the subfolder's stack is out"
    );
    // Open the nested one too: three levels of trays.
    t.toggle(t.card_of(Item::Stack(d)).unwrap()).unwrap();
    t.settle_instantly().unwrap();
    for &row in &t.tree.groups[d as usize].photos {
        assert!(t.card_of(Item::Photo(row)).is_some());
    }
    assert!(overlaps(&t).is_empty(), "{:?}", overlaps(&t));
    let before: Vec<(Item, Vec2)> = t.cards().map(|(_, c)| (c.item, c.pos)).collect();
    // Close c: everything in it gathers, one stack is left.
    t.toggle(t.card_of(Item::Tray(c)).unwrap()).unwrap();
    t.settle_instantly().unwrap();
    assert!(t.card_of(Item::Stack(d)).is_none());
    assert!(t.card_of(Item::Stack(c)).is_some());
    assert!(!t.is_open(d));
    // Open again: the cards come back where they lay.
    t.toggle(t.card_of(Item::Stack(c)).unwrap()).unwrap();
    t.settle_instantly().unwrap();
    for (item, pos) in before {
        if let (Item::Photo(_), Some(id)) = (item, t.card_of(item)) {
            let now = t.card(id).unwrap().pos;
            assert!((now - pos).length() < 0.01, "{item:?} {pos:?} → {now:?}");
        }
    }
}

#[test]
fn the_same_drag_at_30_60_and_144_fps_ends_the_same() {
    let mut ends = Vec::new();
    for fps in [30.0, 60.0, 144.0] {
        let mut t = table(&paths(30, &["a"]));
        let first = t.card_of(Item::Photo(0)).unwrap();
        // Through the crowd, fast enough to be thrown at the end.
        drag(&mut t, first, Vec2::new(700.0, 260.0), 1.0, fps);
        let mut cards: Vec<(Item, Vec2)> = t.cards().map(|(_, c)| (c.item, c.pos)).collect();
        cards.sort_by_key(|c| format!("{:?}", c.0));
        assert!(overlaps(&t).is_empty(), "{fps} fps: {:?}", overlaps(&t));
        ends.push((fps, cards));
    }
    let (_, base) = &ends[0];
    for (fps, cards) in &ends[1..] {
        for ((ia, pa), (ib, pb)) in base.iter().zip(cards) {
            assert_eq!(ia, ib);
            assert!(
                (*pa - *pb).length() < 0.05,
                "{fps} fps: {ia:?} at {pb:?}, 30 fps {pa:?}"
            );
        }
    }
}

#[test]
fn a_thrown_card_slides_on_and_stops() {
    let mut t = table(&paths(2, &["a"]));
    let id = t.card_of(Item::Photo(0)).unwrap();
    let from = t.card(id).unwrap().pos;
    t.begin_drag(id, from).unwrap();
    for k in 1..=6 {
        // 600 units/s downward.
        t.advance(
            1.0 / 60.0,
            Some(from + Vec2::new(0.0, 10.0 * k as f32)),
            k == 6,
        )
        .unwrap();
    }
    let let_go = t.card(id).unwrap().pos;
    t.settle_instantly().unwrap();
    let end = t.card(id).unwrap().pos;
    // It slides speed × SLIDE_TIME further (150 units), give or take the
    // last step.
    let slid = end.y - let_go.y;
    assert!((slid - 150.0).abs() < 10.0, "slid {slid}");
}

#[test]
fn a_card_dropped_onto_a_stack_joins_its_group() {
    let mut t = table(&paths(10, &["a", "b"]));
    let b = stack_of(&t, "b");
    let a = stack_of(&t, "a");
    t.toggle(t.card_of(Item::Stack(a)).unwrap()).unwrap();
    t.settle_instantly().unwrap();
    let row = t.tree.groups[a as usize].photos[0];
    let card = t.card_of(Item::Photo(row)).unwrap();
    let stack_at = t.card(t.card_of(Item::Stack(b)).unwrap()).unwrap().pos;
    let from = t.card(card).unwrap().pos;
    let total = t.tree.groups[b as usize].total;
    // Up out of the rows, across above them, down onto the stack.
    let path = [
        from,
        from + Vec2::new(0.0, -400.0),
        stack_at + Vec2::new(0.0, -400.0),
        stack_at,
    ];
    t.begin_drag(card, from).unwrap();
    for leg in path.windows(2) {
        for k in 1..=20 {
            let p = leg[0] + (leg[1] - leg[0]) * (k as f32 / 20.0);
            t.advance(1.0 / 60.0, Some(p), false).unwrap();
        }
    }
    // Held still a moment, then let go: dropped, not thrown.
    t.advance(0.2, Some(stack_at), true).unwrap();
    assert_eq!(
        t.take_events(),
        [Event::Dropped {
            item: Item::Photo(row),
            into: b
        }]
    );
    t.settle_instantly().unwrap();
    assert!(
        t.card_of(Item::Photo(row)).is_none(),
        "it went into the stack"
    );
    assert_eq!(t.tree.groups[b as usize].total, total + 1);
    assert!(t.tree.groups[b as usize].photos.contains(&row));
    assert!(!t.tree.groups[a as usize].photos.contains(&row));
    // Opening b shows it there.
    t.toggle(t.card_of(Item::Stack(b)).unwrap()).unwrap();
    t.settle_instantly().unwrap();
    assert_eq!(
        t.card(t.card_of(Item::Photo(row)).unwrap()).unwrap().group,
        b
    );
}

#[test]
fn a_transparent_corner_lets_the_click_through() {
    let mut t = table(&paths(2, &["a"]));
    let (under, over) = (
        t.card_of(Item::Photo(0)).unwrap(),
        t.card_of(Item::Photo(1)).unwrap(),
    );
    // A pile lets them overlap.
    t.select([Item::Photo(0), Item::Photo(1)]);
    t.arrange(Arrange::Pile).unwrap();
    t.settle_instantly().unwrap();
    let p0 = t.card(under).unwrap().pos;
    let p1 = t.card(over).unwrap().pos;
    let (top, bottom) = if t.card(over).unwrap().z > t.card(under).unwrap().z {
        (over, under)
    } else {
        (under, over)
    };
    let top_row = match t.card(top).unwrap().item {
        Item::Photo(r) => r,
        _ => unreachable!(),
    };
    let mid = (p0 + p1) * 0.5;
    let opaque = t.pick(mid, |_, _| true).unwrap();
    assert_eq!(opaque, Some(top));
    // The top photo is transparent everywhere: the click reaches the one
    // below.
    let through = t.pick(mid, |row, _| row != top_row).unwrap();
    assert_eq!(through, Some(bottom));
}

#[test]
fn grouping_the_selection_makes_a_stack() {
    let mut t = table(&paths(8, &["a"]));
    let items = [Item::Photo(0), Item::Photo(1), Item::Photo(2)];
    t.select(items);
    let g = t.group_selection("Picks").unwrap().unwrap();
    t.settle_instantly().unwrap();
    assert_eq!(t.tree.groups[g as usize].total, 3);
    for item in items {
        assert!(t.card_of(item).is_none());
    }
    assert!(t.card_of(Item::Stack(g)).is_some());
}

#[test]
fn a_search_result_becomes_a_stack_that_survives_a_rebuild() {
    let ps = paths(20, &["a", "b/c", "d"]);
    let lib = library(&ps);
    let rows: Vec<u32> = (0..lib.len() as u32).collect();
    let mut saved = Saved::default();
    let mut t = Table::new(Arc::clone(&lib), &rows, &saved).unwrap();
    // "The result": every third photo, most of them in closed stacks.
    let result: Vec<u32> = (0..20).step_by(3).collect();
    let g = t
        .group_photos(&result, "beach", Vec2::new(0.0, -900.0))
        .unwrap()
        .unwrap();
    t.settle_instantly().unwrap();
    assert_eq!(t.tree.groups[g as usize].total, result.len());
    saved.merge(t.take_changes(false));
    let again = Table::new(lib, &rows, &saved).unwrap();
    let g = again.tree.by_key(&t.tree.groups[g as usize].key).unwrap();
    assert_eq!(again.tree.groups[g as usize].name, "beach");
    let mut got = again.tree.groups[g as usize].photos.clone();
    got.sort_unstable();
    assert_eq!(got, result);
    assert!(again.card_of(Item::Stack(g)).is_some());
}

#[test]
fn arranging_by_date_puts_the_oldest_first() {
    let mut t = table(&paths(12, &["a"]));
    t.select((0..12).map(Item::Photo));
    t.arrange(Arrange::ByDate).unwrap();
    t.settle_instantly().unwrap();
    let lib = Arc::clone(t.library());
    let mut by_place: Vec<(i64, i64, String)> = (0..12)
        .map(|r| {
            let c = t.card(t.card_of(Item::Photo(r)).unwrap()).unwrap();
            (
                (c.pos.y / 100.0).round() as i64,
                c.pos.x.round() as i64,
                lib.photos[r as usize].date.clone(),
            )
        })
        .collect();
    by_place.sort();
    let dates: Vec<&String> = by_place.iter().map(|p| &p.2).collect();
    let mut sorted = dates.clone();
    sorted.sort();
    assert_eq!(dates, sorted);
    assert!(overlaps(&t).is_empty());
}

#[test]
fn the_saved_state_restores_the_same_table() {
    let ps = paths(50, &["a", "b/c", "b/d", "e"]);
    let lib = library(&ps);
    let rows: Vec<u32> = (0..lib.len() as u32).collect();
    let mut saved = Saved::default();
    let mut t = Table::new(Arc::clone(&lib), &rows, &saved).unwrap();
    saved.merge(t.take_changes(true));
    let b = stack_of(&t, "b");
    t.toggle(t.card_of(Item::Stack(b)).unwrap()).unwrap();
    t.settle_instantly().unwrap();
    let c = stack_of(&t, "c");
    t.toggle(t.card_of(Item::Stack(c)).unwrap()).unwrap();
    t.settle_instantly().unwrap();
    let row = t.tree.groups[c as usize].photos[0];
    let id = t.card_of(Item::Photo(row)).unwrap();
    drag(&mut t, id, Vec2::new(-300.0, 500.0), 0.5, 60.0);
    // Drop a photo of c onto the stack of d.
    let d = stack_of(&t, "d");
    let other = t.tree.groups[c as usize].photos[1];
    let card = t.card_of(Item::Photo(other)).unwrap();
    let from = t.card(card).unwrap().pos;
    let to = t.card(t.card_of(Item::Stack(d)).unwrap()).unwrap().pos;
    t.begin_drag(card, from).unwrap();
    t.advance(0.3, Some(from + Vec2::new(0.0, -1500.0)), false)
        .unwrap();
    t.advance(0.3, Some(to + Vec2::new(0.0, -1500.0)), false)
        .unwrap();
    t.advance(0.3, Some(to), true).unwrap();
    t.settle_instantly().unwrap();
    // Saved a little at a time, as the window does.
    saved.merge(t.take_changes(false));
    let again = Table::new(lib, &rows, &saved).unwrap();
    let mut a: Vec<(String, Vec2, f32)> = t
        .cards()
        .map(|(_, c)| (format!("{:?}", c.item), c.pos, c.angle))
        .collect();
    let mut b2: Vec<(String, Vec2, f32)> = again
        .cards()
        .map(|(_, c)| (format!("{:?}", c.item), c.pos, c.angle))
        .collect();
    a.sort_by(|x, y| x.0.cmp(&y.0));
    b2.sort_by(|x, y| x.0.cmp(&y.0));
    assert_eq!(a.len(), b2.len());
    for (x, y) in a.iter().zip(&b2) {
        assert_eq!(x.0, y.0);
        assert!((x.1 - y.1).length() < 0.01, "{} {:?} → {:?}", x.0, x.1, y.1);
        assert!((x.2 - y.2).abs() < 1e-6);
    }
    assert!(again.is_open(c));
    assert!(again.tree.groups[d as usize].photos.contains(&other));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases()))]

    /// Whatever is opened and wherever a card is dragged, once the table
    /// settles no two cards overlap (but a card in its own tray), every
    /// card lies inside its own tray, and every shown photo is in exactly
    /// one group.
    #[test]
    fn no_overlap_after_any_opens_and_drags(
        n in 5usize..60,
        opens in prop::collection::vec(0usize..8, 0..4),
        drags in prop::collection::vec((0usize..200, -600f32..600.0, -600f32..600.0, 1u8..4), 1..4),
    ) {
        let ps = paths(n, &["a", "b", "b/x", "c/y", "c/z", "d"]);
        let mut t = table(&ps);
        for g in opens {
            let stacks: Vec<u32> = t.cards().filter(|(_, c)| matches!(c.item, Item::Stack(_))).map(|(id, _)| id).collect();
            if let Some(&id) = stacks.get(g % stacks.len().max(1)) {
                t.toggle(id).unwrap();
                t.settle_instantly().unwrap();
            }
        }
        for (k, dx, dy, speed) in drags {
            let ids: Vec<u32> = t.cards().filter(|(_, c)| !matches!(c.item, Item::Tray(_))).map(|(id, _)| id).collect();
            let id = ids[k % ids.len()];
            drag(&mut t, id, Vec2::new(dx, dy), 1.0 / f64::from(speed), 60.0);
            t.take_events();
        }
        prop_assert!(overlaps(&t).is_empty(), "{:?}", overlaps(&t));
        // Every card lies inside its own open tray (carried out of one, it
        // left that group).
        prop_assert_eq!(outside_own_tray(&t), None);
        let mut seen = HashSet::new();
        for g in &t.tree.groups {
            for &r in &g.photos {
                prop_assert!(seen.insert(r), "photo {} twice", r);
            }
        }
        prop_assert_eq!(seen.len(), n);
    }
}

/// Photos in a random folder tree: each in the folder its path of
/// indexes names (`/photos/f1/f0/IMG_7.jpg`).
fn tree_paths(folders: &[Vec<u8>], n: usize) -> Vec<String> {
    (0..n)
        .map(|k| {
            let dir: Vec<String> = folders[k % folders.len()]
                .iter()
                .map(|i| format!("f{i}"))
                .collect();
            format!("/photos/{}/IMG_{k}.jpg", dir.join("/"))
        })
        .collect()
}

/// The view's zoom at which the whole table fits `view`, over the zoom
/// at which its cards' own area would fill it: how much of the view a
/// fitted table gives its photos, as a length.
fn fill(t: &Table, view: Vec2) -> f32 {
    let mut lo = Vec2::new(f32::INFINITY, f32::INFINITY);
    let mut hi = -lo;
    let mut area = 0.0;
    for (_, c) in t.cards() {
        let b = c.aabb().unwrap();
        lo = lo.min(b.min());
        hi = hi.max(b.max());
        if !matches!(c.item, Item::Tray(_)) {
            area += 4.0 * c.half.x * c.half.y;
        }
    }
    let size = hi - lo;
    let fit = (view.x / size.x).min(view.y / size.y);
    fit / (view.x * view.y / area).sqrt()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases()))]

    /// A search's table, and any table arranged in rows with nothing
    /// selected, is packed: no two cards overlap (but a card in its own
    /// tray), every card lies in its own tray, each group's cards read
    /// in name order along the rows, and fitted to the view the photos
    /// take a fair share of it.
    #[test]
    fn a_packed_table_is_tidy_and_fills_the_view(
        folders in prop::collection::vec(prop::collection::vec(0u8..3, 0..4), 1..10),
        n in 1usize..150,
        view in (400f32..2400.0, 300f32..1400.0),
        searched in any::<bool>(),
        opens in prop::collection::vec(0usize..8, 0..5),
    ) {
        let ps = tree_paths(&folders, n);
        let mut t = table(&ps);
        let view = Vec2::new(view.0, view.1);
        t.set_view_size(view.x, view.y);
        // Shapes known, as the window's table has them once its small
        // thumbnails came (it packs again then).
        for r in 0..n as u32 {
            t.set_photo_shape(r, 3, 2).unwrap();
        }
        if searched {
            t.open_for_result().unwrap();
        } else {
            for g in opens {
                let stacks: Vec<u32> = t.cards().filter(|(_, c)| matches!(c.item, Item::Stack(_))).map(|(id, _)| id).collect();
                if let Some(&id) = stacks.get(g % stacks.len().max(1)) {
                    t.toggle(id).unwrap();
                    t.settle_instantly().unwrap();
                }
            }
            t.arrange(Arrange::Grid).unwrap();
            t.settle_instantly().unwrap();
        }
        prop_assert!(overlaps(&t).is_empty(), "{:?}", overlaps(&t));
        let lib = Arc::clone(t.library());
        let mut by_group: std::collections::BTreeMap<u32, Vec<(f32, f32, String)>> = Default::default();
        for (_, c) in t.cards() {
            let name = match c.item {
                Item::Tray(_) => continue,
                Item::Photo(r) => lib.photos[r as usize].name.clone(),
                Item::Stack(g) => t.tree.groups[g as usize].name.clone(),
            };
            let key = viewer2::library::natural_key(&catalog::fold(&name));
            by_group.entry(c.group).or_default().push((c.pos.y, c.pos.x, key));
        }
        prop_assert_eq!(outside_own_tray(&t), None);
        for cards in by_group.values_mut() {
            cards.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.total_cmp(&b.1)));
            let names: Vec<&String> = cards.iter().map(|c| &c.2).collect();
            let mut sorted = names.clone();
            sorted.sort();
            prop_assert_eq!(names, sorted);
        }
        let fill = fill(&t, view);
        // A few cards pay most for their trays' margins and names; so does
        // a short view, where the name bars (kept readable at Fit, so of a
        // fixed height on screen) take more of it (a 2308 × 300 view with
        // 20 photos in nested trays gives them 0.35).
        let least = if n >= 20 && view.y >= 500.0 { 0.4 } else if n >= 20 { 0.3 } else { 0.25 };
        prop_assert!(fill >= least, "the fitted table gives its photos {fill:.2} of the view");
    }
}

/// An opened stack is no longer a card: it leaves the selection, so the
/// arrange commands then arrange the whole table.
#[test]
fn an_opened_stack_leaves_the_selection() {
    let mut t = table(&paths(20, &["a", "b"]));
    let b = stack_of(&t, "b");
    t.select([Item::Stack(b)]);
    t.toggle(t.card_of(Item::Stack(b)).unwrap()).unwrap();
    t.settle_instantly().unwrap();
    assert!(t.selected().is_empty(), "{:?}", t.selected());
}
