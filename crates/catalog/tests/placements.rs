//! The light table's placements: saves against a map, across reopening,
//! and a bad one refused without writing anything.

use std::collections::BTreeMap;

use catalog::{Catalog, CatalogError, Placement};
use proptest::prelude::*;

fn placement(key: u8, x: f64, y: f64, angle: f64, group: u8) -> Placement {
    Placement {
        key: format!("f:{key}"),
        x,
        y,
        angle,
        group: if group == 0 {
            String::new()
        } else {
            format!("d:/photos/{group}")
        },
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// Any sequence of saves and removals leaves what a map would hold.
    #[test]
    fn saves_leave_what_a_map_holds(
        batches in prop::collection::vec(
            (
                prop::collection::vec((0u8..20, -1e6f64..1e6, -1e6f64..1e6, -0.2f64..0.2, 0u8..3), 0..8),
                prop::collection::vec(0u8..20, 0..3),
            ),
            1..6,
        )
    ) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("c.sqlite");
        let mut expected = BTreeMap::new();
        {
            let mut cat = Catalog::open(&path).unwrap();
            for (puts, removes) in &batches {
                let puts: Vec<Placement> =
                    puts.iter().map(|&(k, x, y, a, g)| placement(k, x, y, a, g)).collect();
                let removes: Vec<String> = removes.iter().map(|k| format!("f:{k}")).collect();
                cat.save_placements(&puts, &removes).unwrap();
                for p in puts {
                    expected.insert(p.key.clone(), p);
                }
                for k in &removes {
                    expected.remove(k);
                }
            }
        }
        // Read back after reopening the file.
        let cat = Catalog::open(&path).unwrap();
        let got = cat.placements().unwrap();
        let want: Vec<Placement> = expected.into_values().collect();
        prop_assert_eq!(got, want);
    }
}

#[test]
fn a_non_finite_placement_is_refused_and_nothing_is_written() {
    let mut cat = Catalog::in_memory().unwrap();
    cat.save_placements(&[placement(1, 1.0, 2.0, 0.1, 0)], &[])
        .unwrap();
    let bad = [
        placement(2, 5.0, 5.0, 0.0, 0),
        placement(3, f64::NAN, 0.0, 0.0, 0),
    ];
    let err = cat.save_placements(&bad, &["f:1".into()]).unwrap_err();
    assert!(
        matches!(&err, CatalogError::BadPlacement { key, .. } if key == "f:3"),
        "{err}"
    );
    assert!(err.to_string().contains("f:3"), "{err}");
    assert_eq!(cat.placements().unwrap(), [placement(1, 1.0, 2.0, 0.1, 0)]);
}

#[test]
fn settings_are_kept_and_replaced() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("c.sqlite");
    {
        let mut cat = Catalog::open(&path).unwrap();
        assert_eq!(cat.setting("table.view").unwrap(), None);
        cat.set_setting("table.view", "1 2 3").unwrap();
        cat.set_setting("table.view", "4 5 6").unwrap();
    }
    let cat = Catalog::open(&path).unwrap();
    assert_eq!(cat.setting("table.view").unwrap().as_deref(), Some("4 5 6"));
}
