//! The corpora: a million realistic photo paths from a seeded generator,
//! with captions on a fifth of them, and the real path list of this
//! machine.

use std::fmt::Write as _;

/// xorshift64*: small, seeded, the same corpus on every machine.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed | 1)
    }

    pub fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 11) as usize % n.max(1)
    }

    pub fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len())]
    }
}

/// Words for descriptive names, folders and captions; a few with accents
/// and in other scripts.
pub const WORDS: &[&str] = &[
    "beach",
    "sunset",
    "kitten",
    "cute",
    "dog",
    "picture",
    "holiday",
    "mountain",
    "lake",
    "river",
    "forest",
    "garden",
    "birthday",
    "party",
    "wedding",
    "family",
    "portrait",
    "snow",
    "winter",
    "summer",
    "spring",
    "autumn",
    "city",
    "street",
    "night",
    "bridge",
    "castle",
    "church",
    "museum",
    "market",
    "harbour",
    "boat",
    "train",
    "station",
    "airport",
    "flower",
    "tree",
    "bird",
    "horse",
    "cat",
    "puppy",
    "baby",
    "grandma",
    "grandpa",
    "school",
    "graduation",
    "concert",
    "festival",
    "camping",
    "hiking",
    "skiing",
    "swimming",
    "picnic",
    "dinner",
    "breakfast",
    "cake",
    "christmas",
    "easter",
    "halloween",
    "vacation",
    "trip",
    "road",
    "desert",
    "island",
    "ocean",
    "waves",
    "rainbow",
    "storm",
    "clouds",
    "moon",
    "stars",
    "fireworks",
    "parade",
    "zoo",
    "aquarium",
    "panorama",
    "selfie",
    "group",
    "team",
    "office",
    "kitchen",
    "living",
    "room",
    "house",
    "car",
    "bike",
    "motorbike",
    "sailing",
    "fishing",
    "climbing",
    "valley",
    "glacier",
    "waterfall",
    "canyon",
    "village",
    "farm",
    "café",
    "résumé",
    "straße",
    "zürich",
    "müller",
    "ñandú",
    "crème",
    "brûlée",
    "smörgåsbord",
    "東京",
    "タワー",
    "москва",
    "αθήνα",
];

/// Names of people, for folders and captions.
const PEOPLE: &[&str] = &[
    "Anna", "Ben", "Chris", "Dana", "Emil", "Fatima", "Grete", "Hiro", "Ines", "José",
];

/// The seeded corpus: `n` photos as (path, caption), in folder order (the
/// order an index run walks them), a fifth of them captioned.
pub fn generate(n: usize, seed: u64) -> Vec<(String, String)> {
    let mut rng = Rng::new(seed);
    let mut out = Vec::with_capacity(n);
    let users = ["anna", "ben", "chris"];
    let tops = [
        "Pictures",
        "Photos",
        "Documents/Scans",
        "Downloads",
        "Backup/Phone",
    ];
    while out.len() < n {
        // One event folder at a time, 20 to 300 photos.
        let year = 2005 + rng.below(20);
        let month = 1 + rng.below(12);
        let day = 1 + rng.below(28);
        let mut event = String::new();
        for i in 0..1 + rng.below(3) {
            let w = rng.pick(WORDS);
            match rng.below(3) {
                0 => {
                    if i > 0 {
                        event.push(' ');
                    }
                    event.push_str(&capitalise(w));
                }
                1 => {
                    if i > 0 {
                        event.push('_');
                    }
                    event.push_str(w);
                }
                _ => event.push_str(&capitalise(w)),
            }
        }
        if rng.below(4) == 0 {
            let _ = write!(event, " {}", rng.pick(PEOPLE));
        }
        let dir = format!(
            "/home/{}/{}/{year}/{year}-{month:02}-{day:02} {event}",
            rng.pick(&users),
            rng.pick(&tops)
        );
        let count = 20 + rng.below(281);
        let style = rng.below(10);
        let mut number = rng.below(9000);
        for _ in 0..count.min(n - out.len()) {
            number += 1;
            let name = match style {
                0..=4 => camera_name(&mut rng, number, year, month, day),
                5..=6 => {
                    let mut s = String::new();
                    for _ in 0..2 + rng.below(3) {
                        s.push_str(&capitalise(rng.pick(WORDS)));
                    }
                    if rng.below(2) == 0 {
                        let _ = write!(s, "{}", rng.below(100));
                    }
                    s + rng.pick(&[".jpg", ".png", ".JPG", ".webp"])
                }
                7..=8 => {
                    let sep = rng.pick(&["_", "-", " "]);
                    let words: Vec<&str> = (0..2 + rng.below(3)).map(|_| rng.pick(WORDS)).collect();
                    format!(
                        "{}{sep}{:02}{}",
                        words.join(sep),
                        rng.below(100),
                        rng.pick(&[".jpg", ".jpeg", ".heic", ".png"])
                    )
                }
                _ => format!("{} {}.jpg", capitalise(rng.pick(WORDS)), rng.pick(WORDS)),
            };
            let caption = if rng.below(5) == 0 {
                let mut c = String::new();
                for i in 0..4 + rng.below(7) {
                    if i > 0 {
                        c.push(' ');
                    }
                    if rng.below(8) == 0 {
                        c.push_str(rng.pick(PEOPLE));
                    } else {
                        c.push_str(rng.pick(WORDS));
                    }
                }
                c
            } else {
                String::new()
            };
            out.push((format!("{dir}/{name}"), caption));
        }
    }
    out
}

fn camera_name(rng: &mut Rng, number: usize, year: usize, month: usize, day: usize) -> String {
    match rng.below(5) {
        0 => format!("IMG_{:04}.JPG", number % 10000),
        1 => format!("DSC_{:04}.NEF", number % 10000),
        2 => format!("P10{:05}.RW2", number % 100_000),
        3 => format!(
            "PXL_{year}{month:02}{day:02}_{:06}{:03}.jpg",
            rng.below(240_000),
            rng.below(1000)
        ),
        _ => format!("DSCF{:04}.RAF", number % 10000),
    }
}

fn capitalise(w: &str) -> String {
    let mut c = w.chars();
    match c.next() {
        Some(f) => f.to_uppercase().chain(c).collect(),
        None => String::new(),
    }
}

/// Every path on this machine's root file system (`find / -xdev`), sorted
/// as `find` walks them, without captions.
pub fn real_paths(limit: usize) -> anyhow::Result<Vec<(String, String)>> {
    let out = std::process::Command::new("find")
        .args(["/", "-xdev"])
        .stderr(std::process::Stdio::null())
        .output()?;
    Ok(String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter(|l| !l.is_empty())
        .take(limit)
        .map(|l| (l.to_owned(), String::new()))
        .collect())
}
