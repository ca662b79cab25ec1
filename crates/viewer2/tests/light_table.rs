#![allow(clippy::unwrap_used, clippy::expect_used)]
//! The light table in the window, driven headless by egui_kittest over
//! photos in nested folders: open a stack and find its cards, drag a card
//! into another and see them apart, drop a photo onto a folder's stack
//! (and move its file), click through a transparent corner, restart and
//! find the same arrangement; and a snapshot rendered with wgpu.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use catalog::{Catalog, NewFile};
use collide::Vec2;
use eframe::egui;
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use viewer2::app::{Options, ViewerApp};
use viewer2::table::{Item, Motion};

mod photos;
mod ui;

use ui::settle;

/// Photos in photos/{trip, trip/beach, home}; `logo.png` has transparent
/// corners.
fn setup() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("photos");
    let mut files = Vec::new();
    for (k, rel) in [
        "trip/IMG_1.jpg",
        "trip/IMG_2.jpg",
        "trip/beach/IMG_3.jpg",
        "trip/beach/IMG_4.jpg",
        "home/IMG_5.jpg",
        "home/logo.png",
    ]
    .iter()
    .enumerate()
    {
        let path = root.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        if rel.ends_with(".png") {
            // Opaque in a disc, transparent in the corners.
            let img = image::RgbaImage::from_fn(200, 200, |x, y| {
                let (dx, dy) = (x as f32 - 100.0, y as f32 - 100.0);
                let inside = dx * dx + dy * dy < 90.0 * 90.0;
                image::Rgba([220, 60, 40, if inside { 255 } else { 0 }])
            });
            img.save(&path).unwrap();
        } else {
            let mut img = photos::picture(300, 200);
            for p in img.pixels_mut() {
                p.0[k % 3] = p.0[k % 3].saturating_add(70);
            }
            std::fs::write(&path, photos::jpeg(&img, 85)).unwrap();
        }
        files.push(path.to_string_lossy().into_owned());
    }
    let cat = dir.path().join("cat.sqlite");
    let mut c = Catalog::open(&cat).unwrap();
    let new: Vec<NewFile<'_>> = files
        .iter()
        .enumerate()
        .map(|(k, path)| NewFile {
            path,
            caption: "",
            size: 1000 + k as i64,
            mtime: 1_700_000_000 + k as i64,
            raw_path: None,
            camera: "",
            date: "",
            identity: Default::default(),
        })
        .collect();
    c.add(&new).unwrap();
    (dir, cat)
}

/// The window on [`setup`]'s photos with the trip folder opened (a
/// double-click on its stack), settled.
fn with_trip_open() -> (tempfile::TempDir, PathBuf, Harness<'static, ViewerApp>) {
    let (dir, cat) = setup();
    let mut h = harness(&cat);
    settle(&mut h);
    let (_, at) = find(&h, "trip").unwrap();
    double_click(&mut h, at);
    settle(&mut h);
    (dir, cat, h)
}

fn app(cat: &Path) -> ViewerApp {
    let mut options = Options::new(cat.to_owned(), vec![]);
    options.threads = 2;
    let mut app = ViewerApp::new(&egui::Context::default(), options).unwrap();
    app.show_table(true);
    app
}

fn harness(cat: &Path) -> Harness<'static, ViewerApp> {
    Harness::builder()
        .with_size(egui::vec2(1200.0, 800.0))
        .with_step_dt(1.0 / 30.0)
        .build_ui_state(|ui, app: &mut ViewerApp| app.ui(ui), app(cat))
}

/// The card of the photo or stack whose name ends with `name`.
fn find(h: &Harness<'static, ViewerApp>, name: &str) -> Option<(Item, Vec2)> {
    let app = h.state();
    let view = app.table_view()?;
    let t = &view.table;
    let lib = t.library();
    t.cards()
        .find(|(_, c)| match c.item {
            Item::Photo(r) => lib.photos[r as usize].name == name,
            Item::Stack(g) => t.tree.groups[g as usize].name.ends_with(name),
            Item::Tray(_) => false,
        })
        .map(|(_, c)| (c.item, c.pos))
}

fn screen(h: &Harness<'static, ViewerApp>, p: Vec2) -> egui::Pos2 {
    h.state().table_view().unwrap().to_screen(p)
}

fn button(h: &mut Harness<'static, ViewerApp>, at: egui::Pos2, pressed: bool) {
    h.event(egui::Event::PointerButton {
        pos: at,
        button: egui::PointerButton::Primary,
        pressed,
        modifiers: egui::Modifiers::NONE,
    });
}

fn double_click(h: &mut Harness<'static, ViewerApp>, at: Vec2) {
    let at = screen(h, at);
    h.event(egui::Event::PointerMoved(at));
    h.step();
    for _ in 0..2 {
        button(h, at, true);
        button(h, at, false);
    }
    h.step();
}

fn click(h: &mut Harness<'static, ViewerApp>, at: Vec2) {
    let at = screen(h, at);
    h.event(egui::Event::PointerMoved(at));
    h.step();
    button(h, at, true);
    h.step();
    button(h, at, false);
    h.step();
}

/// Presses at `path[0]`, moves through the rest a frame per 20 points,
/// and lets go at the end.
fn drag(h: &mut Harness<'static, ViewerApp>, path: &[Vec2]) {
    let path: Vec<egui::Pos2> = path.iter().map(|&p| screen(h, p)).collect();
    h.event(egui::Event::PointerMoved(path[0]));
    h.step();
    button(h, path[0], true);
    h.step();
    for leg in path.windows(2) {
        let steps = ((leg[1] - leg[0]).length() / 20.0).ceil().max(1.0) as usize;
        for k in 1..=steps {
            let p = leg[0] + (leg[1] - leg[0]) * (k as f32 / steps as f32);
            h.event(egui::Event::PointerMoved(p));
            h.step();
        }
    }
    // Held still a moment: let go without a throw.
    for _ in 0..4 {
        h.step();
    }
    button(h, *path.last().unwrap(), false);
    h.step();
}

fn overlap(h: &Harness<'static, ViewerApp>, a: Item, b: Item) -> bool {
    let t = &h.state().table_view().unwrap().table;
    let ca = t.card(t.card_of(a).unwrap()).unwrap();
    let cb = t.card(t.card_of(b).unwrap()).unwrap();
    let sa = collide::Shape::Rect(collide::Rect::new(ca.half.x, ca.half.y).unwrap());
    let sb = collide::Shape::Rect(collide::Rect::new(cb.half.x, cb.half.y).unwrap());
    let xa = collide::Transform::new(ca.pos, ca.angle).unwrap();
    let xb = collide::Transform::new(cb.pos, cb.angle).unwrap();
    collide::intersects(&sa, &xa, &sb, &xb).unwrap()
}

#[test]
fn opening_a_stack_shows_its_cards_and_closing_gathers_them() {
    let (_dir, cat) = setup();
    let mut h = harness(&cat);
    settle(&mut h);
    // The top folder starts open: its folders lie on it as stacks.
    let (_, at) = find(&h, "trip").expect("the trip stack");
    assert!(find(&h, "IMG_1.jpg").is_none());
    double_click(&mut h, at);
    settle(&mut h);
    assert!(find(&h, "IMG_1.jpg").is_some(), "trip's photos are out");
    let (beach, at) = find(&h, "beach").expect("trip's subfolder as a stack");
    double_click(&mut h, at);
    settle(&mut h);
    assert!(find(&h, "IMG_3.jpg").is_some(), "three levels deep");
    let Item::Stack(g) = beach else { panic!() };
    assert!(h.state().table_view().unwrap().table.is_open(g));
    // Double-click trip's tray (its name bar) to close it.
    let t = &h.state().table_view().unwrap().table;
    let trip = t.tree.by_key(&format!(
        "d:{}",
        cat.parent().unwrap().join("photos/trip").to_string_lossy()
    ));
    let tray = t
        .card(t.card_of(Item::Tray(trip.unwrap())).unwrap())
        .unwrap();
    let bar = tray.pos - tray.half + Vec2::new(tray.half.x, 12.0);
    double_click(&mut h, bar);
    settle(&mut h);
    assert!(find(&h, "IMG_1.jpg").is_none());
    assert!(find(&h, "IMG_3.jpg").is_none());
    assert!(find(&h, "trip").is_some(), "gathered into its stack");
}

#[test]
fn a_card_dragged_into_another_pushes_it_aside() {
    let (_dir, _cat, mut h) = with_trip_open();
    let (a, pa) = find(&h, "IMG_1.jpg").unwrap();
    let (b, pb) = find(&h, "IMG_2.jpg").unwrap();
    drag(&mut h, &[pa, pb]);
    settle(&mut h);
    let (_, pb_after) = find(&h, "IMG_2.jpg").unwrap();
    assert!((pb_after - pb).length() > 50.0, "IMG_2 was pushed");
    assert!(!overlap(&h, a, b), "they lie apart");
}

#[test]
fn a_photo_dropped_onto_a_folder_stack_joins_it_and_can_move_its_file() {
    let (dir, cat, mut h) = with_trip_open();
    let (_, from) = find(&h, "IMG_1.jpg").unwrap();
    let (_, to) = find(&h, "home").unwrap();
    let up = Vec2::new(0.0, -700.0);
    // Zoom out so the way round fits in the window.
    for _ in 0..3 {
        h.event(egui::Event::Key {
            key: egui::Key::Minus,
            physical_key: None,
            pressed: true,
            repeat: false,
            modifiers: egui::Modifiers::NONE,
        });
        h.step();
    }
    settle(&mut h);
    let path = [from, from + up, to + up, to].map(|p| p);
    drag(&mut h, &path);
    h.run_steps(2);
    h.get_by_label("Move the file").click();
    settle(&mut h);
    // The file moved, and the catalogue knows. The worker moves the file
    // first and records the move after, so both are waited for.
    let moved = dir.path().join("photos/home/IMG_1.jpg");
    let moved_text = moved.to_string_lossy().into_owned();
    let recorded = || {
        let cat = Catalog::open(&cat).unwrap();
        let paths: Vec<String> = cat.files().unwrap().into_iter().map(|f| f.path).collect();
        (paths.contains(&moved_text), paths)
    };
    let start = Instant::now();
    while !(moved.exists() && recorded().0) && start.elapsed() < Duration::from_secs(10) {
        h.step();
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(moved.exists(), "the file is in home/");
    assert!(!dir.path().join("photos/trip/IMG_1.jpg").exists());
    settle(&mut h);
    let (known, paths) = recorded();
    assert!(known, "{paths:?}");
    // On the table it is in home's stack.
    let (stack, _) = find(&h, "home").unwrap();
    let Item::Stack(home) = stack else { panic!() };
    let app = h.state();
    let t = &app.table_view().unwrap().table;
    let names: Vec<&str> = t.tree.groups[home as usize]
        .photos
        .iter()
        .map(|&r| t.library().photos[r as usize].name.as_str())
        .collect();
    assert!(names.contains(&"IMG_1.jpg"), "{names:?}");
}

#[test]
fn a_click_on_a_transparent_corner_selects_the_card_below() {
    let (_dir, cat) = setup();
    let mut h = harness(&cat);
    settle(&mut h);
    let (_, at) = find(&h, "home").unwrap();
    double_click(&mut h, at);
    settle(&mut h);
    let (logo, _) = find(&h, "logo.png").unwrap();
    let (below, _) = find(&h, "IMG_5.jpg").unwrap();
    // Pile the two, the logo on top.
    {
        let t = &mut h.state_mut().table_view_mut().unwrap().table;
        t.select([below, logo]);
        t.arrange(viewer2::table::Arrange::Pile).unwrap();
        let id = t.card_of(logo).unwrap();
        t.raise(id);
    }
    settle(&mut h);
    let t = &h.state().table_view().unwrap().table;
    let top = t.card(t.card_of(logo).unwrap()).unwrap().clone();
    let under = t.card(t.card_of(below).unwrap()).unwrap().clone();
    assert_eq!(top.motion, Motion::Rest);
    // A point in one of the logo's corners (outside its disc: transparent)
    // that lies on the photo below.
    let (s, c) = top.angle.sin_cos();
    let mut corner = None;
    'search: for i in 0..20 {
        for j in 0..20 {
            let (u, v) = (i as f32 / 19.0 * 1.9 - 0.95, j as f32 / 19.0 * 1.9 - 0.95);
            if u * u + v * v < 1.0 {
                continue; // inside the disc (radius 0.9, and a margin)
            }
            let local = Vec2::new(top.half.x * u, top.half.y * v);
            let p = top.pos + Vec2::new(c * local.x - s * local.y, s * local.x + c * local.y);
            let l = under.to_local(p);
            if l.x.abs() < under.half.x * 0.95 && l.y.abs() < under.half.y * 0.95 {
                corner = Some(p);
                break 'search;
            }
        }
    }
    let corner = corner.expect("a transparent corner over the photo below");
    click(&mut h, corner);
    let selected = h.state().table_view().unwrap().table.selected().clone();
    assert!(
        selected.contains(&below) && !selected.contains(&logo),
        "{selected:?}"
    );
    // The click raised the photo; with the logo on top again, its opaque
    // middle selects the logo.
    {
        let t = &mut h.state_mut().table_view_mut().unwrap().table;
        let id = t.card_of(logo).unwrap();
        t.raise(id);
    }
    click(&mut h, top.pos);
    let selected = h.state().table_view().unwrap().table.selected().clone();
    assert!(selected.contains(&logo), "{selected:?}");
}

#[test]
fn the_arrangement_survives_a_restart() {
    let (_dir, cat) = setup();
    let before: Vec<(Item, Vec2, f32)> = {
        let mut h = harness(&cat);
        settle(&mut h);
        let (_, at) = find(&h, "trip").unwrap();
        double_click(&mut h, at);
        settle(&mut h);
        let (_, pa) = find(&h, "IMG_2.jpg").unwrap();
        drag(&mut h, &[pa, pa + Vec2::new(-260.0, 330.0)]);
        settle(&mut h);
        h.state_mut().flush_table();
        let t = &h.state().table_view().unwrap().table;
        t.cards().map(|(_, c)| (c.item, c.pos, c.angle)).collect()
    };
    // Wait until the catalogue thread wrote it.
    let start = Instant::now();
    loop {
        let c = Catalog::open(&cat).unwrap();
        let open = c.setting("table.open").unwrap().unwrap_or_default();
        if open.contains("trip") && c.placements().unwrap().len() >= 4 {
            break;
        }
        assert!(start.elapsed() < Duration::from_secs(10), "never saved");
        std::thread::sleep(Duration::from_millis(50));
    }
    std::thread::sleep(Duration::from_millis(300));
    let mut h = harness(&cat);
    settle(&mut h);
    let t = &h.state().table_view().unwrap().table;
    assert_eq!(t.cards().count(), before.len());
    for (item, pos, angle) in before {
        let c = t.card(t.card_of(item).expect("the same cards")).unwrap();
        assert!(
            (c.pos - pos).length() < 0.01,
            "{item:?}: {pos:?} → {:?}",
            c.pos
        );
        assert!((c.angle - angle).abs() < 1e-5);
    }
}

/// The table rendered by wgpu (lavapipe in CI), against the stored
/// snapshot. Without an adapter this is skipped, unless REQUIRE_GPU=1.
#[test]
fn snapshot_of_the_light_table() {
    let (_dir, cat) = setup();
    let app = app(&cat);
    let built = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        Harness::builder()
            .with_size(egui::vec2(1000.0, 640.0))
            .with_step_dt(1.0 / 30.0)
            .wgpu()
            .build_ui_state(|ui, app: &mut ViewerApp| app.ui(ui), app)
    }));
    let mut h = match built {
        Ok(h) => h,
        Err(_) if std::env::var("REQUIRE_GPU").as_deref() != Ok("1") => {
            eprintln!(
                "SKIPPED snapshot_of_the_light_table: no wgpu adapter (set REQUIRE_GPU=1 to fail instead)"
            );
            return;
        }
        Err(_) => panic!("no wgpu adapter, and REQUIRE_GPU=1"),
    };
    // The grid first, so every photo's shape is known before its card is
    // laid out (a shape arriving later pushes neighbours at a moment that
    // depends on the loader's timing).
    h.state_mut().show_table(false);
    settle(&mut h);
    h.state_mut().show_table(true);
    settle(&mut h);
    let (_, at) = find(&h, "trip").unwrap();
    double_click(&mut h, at);
    settle(&mut h);
    let (_, at) = find(&h, "home").unwrap();
    double_click(&mut h, at);
    settle(&mut h);
    // Everything in view (Home), the pointer away from the cards.
    h.event(egui::Event::PointerMoved(egui::pos2(990.0, 630.0)));
    h.event(egui::Event::Key {
        key: egui::Key::Home,
        physical_key: None,
        pressed: true,
        repeat: false,
        modifiers: egui::Modifiers::NONE,
    });
    settle(&mut h);
    h.snapshot("viewer2_light_table");
}

/// The text painted on the table (clipped to its view) in the last frame,
/// with the rectangle each piece covers.
fn table_texts(h: &Harness<'static, ViewerApp>) -> Vec<(String, egui::Rect)> {
    let view = h.state().table_view().unwrap().screen();
    h.output()
        .shapes
        .iter()
        .filter(|s| s.clip_rect == view)
        .filter_map(|s| match &s.shape {
            egui::epaint::Shape::Text(t) => Some((
                t.galley.text().to_owned(),
                egui::Rect::from_min_size(t.pos, t.galley.size()),
            )),
            _ => None,
        })
        .collect()
}

/// Eight folders with long names, two photos each, under photos/.
fn setup_long_names() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("photos");
    let mut files = Vec::new();
    for k in 0..8 {
        let folder = root.join(format!(
            "{} Hiking in the Alps with the whole family",
            2014 + k
        ));
        std::fs::create_dir_all(&folder).unwrap();
        for j in 0..2 {
            let path = folder.join(format!("IMG_{k}{j}.jpg"));
            std::fs::write(&path, photos::jpeg(&photos::picture(300, 200), 85)).unwrap();
            files.push(path.to_string_lossy().into_owned());
        }
    }
    let cat = dir.path().join("cat.sqlite");
    let refs: Vec<&str> = files.iter().map(String::as_str).collect();
    ui::add_photos(&cat, &refs);
    (dir, cat)
}

/// Names never pile up: at Fit, the long names of stacks side by side
/// would cover each other; the ones that would are left out, and the
/// pointer over a stack brings its full name back.
#[test]
fn labels_never_overlap_and_the_hovered_name_shows_in_full() {
    let (_dir, cat) = setup_long_names();
    let mut h = harness(&cat);
    settle(&mut h);
    h.key_press(egui::Key::Home);
    settle(&mut h);
    let texts = table_texts(&h);
    assert!(!texts.is_empty(), "no label shows");
    for (i, (a, ra)) in texts.iter().enumerate() {
        for (b, rb) in &texts[i + 1..] {
            assert!(
                !ra.shrink(1.0).intersects(rb.shrink(1.0)),
                "{a:?} is drawn over {b:?}"
            );
        }
    }
    // A stack whose name gave way: hovered, its name shows whole.
    let view = h.state().table_view().unwrap();
    let t = &view.table;
    let hidden = t
        .cards()
        .filter_map(|(_, c)| match c.item {
            Item::Stack(g) => Some((t.tree.groups[g as usize].name.clone(), c.pos)),
            _ => None,
        })
        .find(|(name, _)| {
            !texts
                .iter()
                .any(|(text, _)| text.starts_with(name.as_str()))
        })
        .expect("a stack whose name is left out");
    h.event(egui::Event::PointerMoved(screen(&h, hidden.1)));
    h.run_steps(2);
    assert!(
        table_texts(&h)
            .iter()
            .any(|(text, _)| text.starts_with(hidden.0.as_str())),
        "the hovered stack's name does not show"
    );
}

/// The pointer over a photo: its name shows below it.
#[test]
fn hovering_a_card_shows_its_name() {
    let (_dir, _cat, mut h) = with_trip_open();
    // The pointer off every card (the bare corner of the view).
    let corner = h.state().table_view().unwrap().screen().min + egui::vec2(4.0, 4.0);
    h.event(egui::Event::PointerMoved(corner));
    h.run_steps(2);
    assert!(!table_texts(&h).iter().any(|(t, _)| t == "IMG_1.jpg"));
    let (_, at) = find(&h, "IMG_1.jpg").unwrap();
    h.event(egui::Event::PointerMoved(screen(&h, at)));
    h.run_steps(2);
    assert!(table_texts(&h).iter().any(|(t, _)| t == "IMG_1.jpg"));
    // At the view's right edge, the name stays inside the view, whole.
    let (view, zoom) = {
        let v = h.state().table_view().unwrap();
        (v.screen(), v.zoom())
    };
    h.state_mut()
        .table_view_mut()
        .unwrap()
        .look_at(at - Vec2::new((view.width() / 2.0 - 15.0) / zoom, 0.0));
    h.run_steps(2);
    h.event(egui::Event::PointerMoved(egui::pos2(
        view.max.x - 10.0,
        view.center().y,
    )));
    h.run_steps(2);
    let texts = table_texts(&h);
    let (_, name) = texts
        .iter()
        .find(|(t, _)| t == "IMG_1.jpg")
        .expect("the name at the edge");
    assert!(view.contains_rect(*name), "{name:?} is cut by {view:?}");
}

/// With nothing selected, "Rows by name" lays out every tray's cards
/// (not only the few lying on the bare table), by name as the grid
/// sorts them.
#[test]
fn rows_by_name_with_nothing_selected_arranges_every_tray() {
    let (_dir, _cat, mut h) = with_trip_open();
    // IMG_1 a little lower, still on trip's tray: out of the row.
    let (_, from) = find(&h, "IMG_1.jpg").unwrap();
    drag(&mut h, &[from, from + Vec2::new(0.0, 40.0)]);
    settle(&mut h);
    let (_, one) = find(&h, "IMG_1.jpg").unwrap();
    let (_, two) = find(&h, "IMG_2.jpg").unwrap();
    assert!(
        (one.y - two.y).abs() > 20.0,
        "IMG_1 did not move: {one:?} {two:?}"
    );
    h.key_press(egui::Key::Escape);
    h.run_steps(2);
    assert!(h.state().table_view().unwrap().table.selected().is_empty());
    h.get_by_label("Rows by name").click();
    settle(&mut h);
    let (_, beach) = find(&h, "beach").unwrap();
    let (_, one) = find(&h, "IMG_1.jpg").unwrap();
    let (_, two) = find(&h, "IMG_2.jpg").unwrap();
    assert!(
        (beach.y - one.y).abs() < 1.0 && (one.y - two.y).abs() < 1.0,
        "not in one row: {beach:?} {one:?} {two:?}"
    );
    assert!(beach.x < one.x && one.x < two.x, "not by name");
}

/// One selection: a card clicked on the table is the details panel's
/// photo and the status bar's count; photos selected in the grid are
/// selected on the table.
#[test]
fn the_table_and_the_grid_share_one_selection() {
    let (_dir, _cat, mut h) = with_trip_open();
    let (one, at) = find(&h, "IMG_1.jpg").unwrap();
    click(&mut h, at);
    h.run_steps(2);
    // The details panel's heading (no grid is showing).
    assert!(
        h.query_by_label("IMG_1.jpg").is_some(),
        "the details do not follow"
    );
    assert_eq!(h.query_all_by_label_contains("1 selected").count(), 2);
    assert!(
        h.state()
            .table_view()
            .unwrap()
            .table
            .selected()
            .contains(&one)
    );
    // In the grid: IMG_2 alone.
    h.state_mut().show_table(false);
    h.run_steps(2);
    h.get_by_role_and_label(egui::Role::Button, "IMG_2.jpg")
        .click();
    h.run_steps(2);
    h.state_mut().show_table(true);
    h.run_steps(2);
    let (two, _) = find(&h, "IMG_2.jpg").unwrap();
    let selected = h.state().table_view().unwrap().table.selected().clone();
    assert!(
        selected.contains(&two) && !selected.contains(&one),
        "{selected:?}"
    );
}

/// The tray of the folder `rel` (under photos/): its card's centre and
/// half size.
fn tray(h: &Harness<'static, ViewerApp>, cat: &Path, rel: &str) -> (Vec2, Vec2) {
    let t = &h.state().table_view().unwrap().table;
    let mut path = cat.parent().unwrap().join("photos");
    if !rel.is_empty() {
        path = path.join(rel);
    }
    let g = t
        .tree
        .by_key(&format!("d:{}", path.to_string_lossy()))
        .unwrap();
    let c = t.card(t.card_of(Item::Tray(g)).unwrap()).unwrap();
    (c.pos, c.half)
}

/// A card carried out of its tray and let go on the bare table leaves
/// that folder's group on the table, and the tray keeps to its own cards.
#[test]
fn a_card_carried_out_of_its_tray_leaves_it() {
    let (_dir, cat, mut h) = with_trip_open();
    let (one, from) = find(&h, "IMG_1.jpg").unwrap();
    let (centre, half) = tray(&h, &cat, "trip");
    let (top, top_half) = tray(&h, &cat, "");
    // Below every tray.
    let to = Vec2::new(centre.x, top.y + top_half.y + 200.0);
    drag(&mut h, &[from, to]);
    settle(&mut h);
    let t = &h.state().table_view().unwrap().table;
    let card = t.card(t.card_of(one).unwrap()).unwrap();
    assert_eq!(card.group, viewer2::table::ROOT, "it stayed in trip");
    let (centre, half_after) = tray(&h, &cat, "trip");
    let inside = (card.pos.x - centre.x).abs() <= half_after.x
        && (card.pos.y - centre.y).abs() <= half_after.y;
    assert!(!inside, "trip's tray grew to follow it");
    assert!(half_after.y <= half.y + 1.0, "trip's tray grew");
}

/// While a card is held over a stack, the stack is ringed and says it
/// takes the card; let go there, the card goes in.
#[test]
fn a_stack_under_a_held_card_shows_it_is_the_target() {
    let (_dir, _cat, mut h) = with_trip_open();
    let (_, from) = find(&h, "IMG_2.jpg").unwrap();
    let (beach, to) = find(&h, "beach").unwrap();
    let (a, b) = (screen(&h, from), screen(&h, to));
    h.event(egui::Event::PointerMoved(a));
    h.step();
    button(&mut h, a, true);
    h.step();
    for k in 1..=20 {
        h.event(egui::Event::PointerMoved(a + (b - a) * (k as f32 / 20.0)));
        h.step();
    }
    // Held still over it (a loaded machine may take a few frames more).
    for _ in 0..60 {
        h.step();
        if table_texts(&h).iter().any(|(t, _)| t == "Drop into beach") {
            break;
        }
    }
    assert!(
        table_texts(&h).iter().any(|(t, _)| t == "Drop into beach"),
        "the target does not show: {:?}, {:?} at {:?}",
        table_texts(&h),
        find(&h, "beach"),
        to
    );
    let (_, still) = find(&h, "beach").unwrap();
    assert!((still - to).length() < 1.0, "the target was pushed away");
    button(&mut h, b, false);
    h.run_steps(2);
    // Into beach (its folder asks about the file; only on the table).
    if h.query_by_label("Only on the table").is_some() {
        h.get_by_label("Only on the table").click();
    }
    settle(&mut h);
    let t = &h.state().table_view().unwrap().table;
    let Item::Stack(g) = beach else { panic!() };
    let two = t
        .tree
        .groups
        .get(g as usize)
        .map(|group| group.total)
        .unwrap();
    assert_eq!(two, 3, "beach holds the dropped photo");
}

/// A search's table shows what it found: the folders holding it are open,
/// so a single photo is a card, not a closed stack. Cleared, the table
/// comes back with the folders open as they were before the search.
#[test]
fn a_search_opens_the_folders_of_its_result_and_clearing_it_restores_the_table() {
    let (_dir, _cat, mut h) = with_trip_open();
    assert!(find(&h, "IMG_1.jpg").is_some() && find(&h, "IMG_5.jpg").is_none());
    let search = |h: &mut Harness<'static, ViewerApp>, text: &str| {
        h.get_by_label("Search").focus();
        h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::A);
        h.key_press(egui::Key::Backspace);
        if !text.is_empty() {
            h.get_by_label("Search").type_text(text);
        }
        settle(h);
        // Let the saves of the table being replaced reach the catalogue.
        h.state_mut().flush_table();
        settle(h);
    };
    search(&mut h, "IMG_3");
    assert!(
        find(&h, "IMG_3.jpg").is_some(),
        "the photo found is a closed stack"
    );
    search(&mut h, "IMG_5");
    assert!(
        find(&h, "IMG_5.jpg").is_some(),
        "the photo found is a closed stack"
    );
    search(&mut h, "");
    assert!(find(&h, "IMG_1.jpg").is_some(), "trip did not stay open");
    assert!(
        find(&h, "IMG_5.jpg").is_none(),
        "home stayed open after the search"
    );
    assert!(
        find(&h, "IMG_3.jpg").is_none(),
        "beach stayed open after the search"
    );
}

fn ctrl(h: &mut Harness<'static, ViewerApp>, key: egui::Key, shift: bool) {
    let modifiers = if shift {
        egui::Modifiers::COMMAND | egui::Modifiers::SHIFT
    } else {
        egui::Modifiers::COMMAND
    };
    h.key_press_modifiers(modifiers, key);
    settle(h);
}

/// Ctrl+Z takes back a move, an arrangement and a stack made, in turn;
/// Ctrl+Shift+Z does them again.
#[test]
fn ctrl_z_takes_back_moves_arrangements_and_stacks() {
    let (_dir, _cat, mut h) = with_trip_open();
    let (_, from) = find(&h, "IMG_1.jpg").unwrap();
    drag(&mut h, &[from, from + Vec2::new(0.0, 40.0)]);
    settle(&mut h);
    let (_, moved) = find(&h, "IMG_1.jpg").unwrap();
    assert!((moved - from).length() > 20.0);
    // An arrangement, then a stack of the selection.
    h.key_press(egui::Key::Escape);
    h.run_steps(2);
    h.get_by_label("Rows by name").click();
    settle(&mut h);
    let (_, arranged) = find(&h, "IMG_1.jpg").unwrap();
    let (_, two) = find(&h, "IMG_2.jpg").unwrap();
    click(&mut h, two);
    h.get_by_label("Stack").click();
    settle(&mut h);
    assert!(find(&h, "Selection 1").is_some(), "no stack made");
    ctrl(&mut h, egui::Key::Z, false);
    assert!(find(&h, "Selection 1").is_none(), "the stack stayed");
    assert!(find(&h, "IMG_2.jpg").is_some());
    ctrl(&mut h, egui::Key::Z, false);
    let (_, back) = find(&h, "IMG_1.jpg").unwrap();
    assert!(
        (back - moved).length() < 1.0,
        "the arrangement stayed: {back:?} {moved:?}"
    );
    ctrl(&mut h, egui::Key::Z, false);
    let (_, back) = find(&h, "IMG_1.jpg").unwrap();
    assert!(
        (back - from).length() < 1.0,
        "the move stayed: {back:?} {from:?}"
    );
    ctrl(&mut h, egui::Key::Z, true);
    let (_, again) = find(&h, "IMG_1.jpg").unwrap();
    assert!((again - moved).length() < 1.0, "not moved again");
    ctrl(&mut h, egui::Key::Z, true);
    let (_, again) = find(&h, "IMG_1.jpg").unwrap();
    assert!((again - arranged).length() < 1.0, "not arranged again");
}

/// The drop dialog's Cancel puts the photo back where it lay, in its
/// folder; after "Move the file", Ctrl+Z moves the file back too.
#[test]
fn cancel_takes_a_drop_back_and_ctrl_z_moves_the_file_back() {
    let (dir, _cat, mut h) = with_trip_open();
    let home = |h: &Harness<'static, ViewerApp>| {
        let t = &h.state().table_view().unwrap().table;
        let g = (0..t.tree.groups.len())
            .find(|&g| t.tree.groups[g].name == "home")
            .unwrap();
        t.tree.groups[g].total
    };
    let drop_on_home = |h: &mut Harness<'static, ViewerApp>| {
        let (_, from) = find(h, "IMG_1.jpg").unwrap();
        let (_, to) = find(h, "home").unwrap();
        let up = Vec2::new(0.0, -700.0);
        drag(h, &[from, from + up, to + up, to]);
        h.run_steps(2);
        from
    };
    for _ in 0..3 {
        h.event(egui::Event::Key {
            key: egui::Key::Minus,
            physical_key: None,
            pressed: true,
            repeat: false,
            modifiers: egui::Modifiers::NONE,
        });
        h.step();
    }
    settle(&mut h);
    let from = drop_on_home(&mut h);
    h.get_by_label("Cancel").click();
    settle(&mut h);
    assert!(
        h.query_by_label("Move the file").is_none(),
        "the dialog stayed"
    );
    let (_, back) = find(&h, "IMG_1.jpg").expect("IMG_1 back on trip's tray");
    assert!((back - from).length() < 1.0, "{back:?} {from:?}");
    assert_eq!(home(&h), 2);
    // Now moved, file and all; Ctrl+Z takes both back.
    drop_on_home(&mut h);
    h.get_by_label("Move the file").click();
    settle(&mut h);
    let (old, new) = (
        dir.path().join("photos/trip/IMG_1.jpg"),
        dir.path().join("photos/home/IMG_1.jpg"),
    );
    let start = Instant::now();
    while !new.exists() {
        assert!(start.elapsed() < Duration::from_secs(10), "never moved");
        h.step();
        std::thread::sleep(Duration::from_millis(20));
    }
    ctrl(&mut h, egui::Key::Z, false);
    let start = Instant::now();
    while !old.exists() {
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "the file never came back"
        );
        h.step();
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(!new.exists());
    // The catalogue records the move back, and the table is shown again.
    let start = Instant::now();
    while find(&h, "IMG_1.jpg").is_none() {
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "IMG_1 is not back on trip's tray: {:?}",
            h.state()
                .table_view()
                .unwrap()
                .table
                .cards()
                .map(|(_, c)| c.item)
                .collect::<Vec<_>>()
        );
        settle(&mut h);
        std::thread::sleep(Duration::from_millis(20));
    }
    assert_eq!(home(&h), 2);
}

/// 300 photos in 15 folders, three years of five each, under photos/.
fn setup_300() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("photos");
    let mut files = Vec::new();
    let jpeg = photos::jpeg(&photos::picture(90, 60), 80);
    for year in ["2019", "2020", "2021"] {
        for place in ["Rome", "Café Crème", "Beach", "Alps", "Paris"] {
            let folder = root.join(year).join(place);
            std::fs::create_dir_all(&folder).unwrap();
            for k in 0..20 {
                let path = folder.join(format!("DSC_{k:04}.jpg"));
                std::fs::write(&path, &jpeg).unwrap();
                files.push(path.to_string_lossy().into_owned());
            }
        }
    }
    let cat = dir.path().join("cat.sqlite");
    let paths: Vec<&str> = files.iter().map(String::as_str).collect();
    ui::add_photos(&cat, &paths);
    (dir, cat)
}

/// A search's table is laid out to the view: at Fit (where it opens) its
/// 300 photos take a fair share of the view (each tray no larger than
/// its cards need, the whole shaped like the view), and every tray's
/// name shows in its name bar.
#[test]
fn a_search_table_at_fit_shows_large_photos_and_every_tray_name() {
    let (_dir, cat) = setup_300();
    let mut h = harness(&cat);
    settle(&mut h);
    h.get_by_label("Search").focus();
    h.get_by_label("Search").type_text("dsc");
    settle(&mut h);
    settle(&mut h);
    let view = h.state().table_view().unwrap();
    let (t, screen, zoom) = (&view.table, view.screen(), view.zoom());
    let mut area = 0.0;
    let mut widths = Vec::new();
    let mut trays = Vec::new();
    for (_, c) in t.cards() {
        match c.item {
            Item::Photo(_) => {
                area += 4.0 * c.half.x * c.half.y * zoom * zoom;
                widths.push(2.0 * c.half.x * zoom);
                let r = egui::Rect::from_center_size(
                    view.to_screen(c.pos),
                    egui::vec2(2.0 * c.half.x * zoom, 2.0 * c.half.y * zoom),
                );
                assert!(screen.contains_rect(r), "a card out of view at Fit");
            }
            Item::Tray(g) => trays.push(t.tree.groups[g as usize].name.clone()),
            Item::Stack(_) => {}
        }
    }
    assert_eq!(widths.len(), 300, "every photo a card");
    // The side of the view's area shared out among the cards, against
    // the side of the area they take.
    let fill = (area / (screen.width() * screen.height())).sqrt();
    assert!(
        fill >= 0.5,
        "the photos take {fill:.2} of the view's side ({:.0} points wide)",
        widths[0]
    );
    let texts = table_texts(&h);
    for name in &trays {
        assert!(
            texts
                .iter()
                .any(|(t, _)| t.starts_with(&format!("{name}  ·"))),
            "{name}'s tray is not named: {texts:?}"
        );
    }
    assert!(trays.len() >= 16, "{trays:?}");
}

/// Every photo and stack cover on the table that shows 64 points or
/// larger is drawn from its full thumbnail once it came, not the small
/// one: checked on the meshes painted in the table's view, by their
/// texture's name.
fn small_thumbnails_drawn(h: &Harness<'static, ViewerApp>) -> usize {
    let view = h.state().table_view().unwrap().screen();
    let textures = h.ctx.tex_manager();
    let textures = textures.read();
    h.output()
        .shapes
        .iter()
        .filter(|s| s.clip_rect == view)
        .filter_map(|s| match &s.shape {
            egui::epaint::Shape::Mesh(m) => Some(m),
            _ => None,
        })
        .filter(|m| {
            textures
                .meta(m.texture_id)
                .is_some_and(|meta| meta.name.starts_with("minis"))
        })
        .count()
}

/// After the grid filled the thumbnail atlas, a search and the loupe,
/// the table's stack covers (photos the grid did not hold) still get
/// their full thumbnails: a cover is as near the view as its stack.
#[test]
fn stack_covers_get_their_full_thumbnails_after_the_grid_filled_the_atlas() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("photos");
    let jpeg = photos::jpeg(&photos::picture(300, 200), 80);
    let mut files = Vec::new();
    // A query is also a substring of the whole path (`b_` once found
    // every photo because the random `.tmpXXXXXX` held a `b`): the files
    // have names of their own and the search asks for names only.
    let words = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot"];
    for (folder, word) in ["a", "b", "c", "d", "e", "f"].into_iter().zip(words) {
        std::fs::create_dir_all(root.join(folder)).unwrap();
        for k in 1..=30 {
            let path = root.join(folder).join(format!("{word}_{k:02}.jpg"));
            std::fs::write(&path, &jpeg).unwrap();
            files.push(path.to_string_lossy().into_owned());
        }
    }
    let cat = dir.path().join("cat.sqlite");
    let paths: Vec<&str> = files.iter().map(String::as_str).collect();
    ui::add_photos(&cat, &paths);
    let mut options = Options::new(cat.clone(), vec![]);
    options.threads = 2;
    // One atlas page: 49 thumbnails, fewer than the photos.
    options.gpu_budget = 16 << 20;
    let app = ViewerApp::new(&egui::Context::default(), options).unwrap();
    let mut h = Harness::builder()
        .with_size(egui::vec2(1200.0, 800.0))
        .with_step_dt(1.0 / 30.0)
        .build_ui_state(|ui, app: &mut ViewerApp| app.ui(ui), app);
    settle(&mut h);
    // The grid, a search, the loupe and back.
    h.get_by_label("Search").focus();
    h.get_by_label("Search").type_text("name:bravo");
    // Until the search has answered (settling alone may come first).
    let start = Instant::now();
    while h.state().shown() != 30 && start.elapsed() < Duration::from_secs(10) {
        settle(&mut h);
    }
    assert_eq!(h.state().shown(), 30, "the search did not answer");
    h.get_by_role_and_label(egui::Role::Button, "bravo_01.jpg")
        .click();
    h.run_steps(2);
    h.key_press(egui::Key::Enter);
    settle(&mut h);
    assert!(h.state().loupe_photo().is_some(), "the loupe did not open");
    h.key_press(egui::Key::Escape);
    settle(&mut h);
    h.get_by_label("Search").focus();
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::A);
    h.key_press(egui::Key::Backspace);
    settle(&mut h);
    h.state_mut().show_table(true);
    settle(&mut h);
    // Let the loader answer what the table asked.
    let start = Instant::now();
    while small_thumbnails_drawn(&h) > 0 && start.elapsed() < Duration::from_secs(10) {
        h.step();
        std::thread::sleep(Duration::from_millis(20));
    }
    let view = h.state().table_view().unwrap();
    let zoom = view.zoom();
    assert!(find(&h, "f").is_some(), "folder f's stack");
    assert!(
        2.0 * viewer2::table::CARD_HALF * zoom >= 64.0,
        "the stacks are drawn small ({zoom})"
    );
    assert_eq!(
        small_thumbnails_drawn(&h),
        0,
        "covers stayed at their small thumbnails"
    );
}

/// A search's table zoomed into before its thumbnails came stays as the
/// user left it: it is not laid out and fitted again under their hands.
#[test]
fn a_search_table_touched_early_is_not_laid_out_again() {
    let (_dir, cat) = setup_300();
    let mut h = harness(&cat);
    settle(&mut h);
    h.get_by_label("Search").focus();
    h.get_by_label("Search").type_text("dsc");
    // Until the table is built and fitted, a frame at a time.
    for _ in 0..200 {
        h.step();
        if h.state().table_view().is_some_and(|v| v.table.len() > 300) {
            break;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    h.run_steps(2);
    let fitted = h.state().table_view().unwrap().zoom();
    let centre = h.state().table_view().unwrap().screen().center();
    h.event(egui::Event::PointerMoved(centre));
    for _ in 0..3 {
        h.event(egui::Event::MouseWheel {
            unit: egui::MouseWheelUnit::Point,
            delta: egui::vec2(0.0, 120.0),
            phase: egui::TouchPhase::Move,
            modifiers: egui::Modifiers::NONE,
            source: egui::MouseWheelSource::Wheel,
        });
        h.step();
    }
    settle(&mut h);
    let zoom = h.state().table_view().unwrap().zoom();
    assert!(
        zoom > fitted * 1.2,
        "fitted again: zoom {zoom} after the wheel, {fitted} at Fit"
    );
}
