//! Units that cancel: random products and quotients of units from the
//! table whose dimensions cancel print without the cancelled units, and
//! their number is the product of the units' sizes (computed here by exact
//! rational arithmetic on plain numbers, without units).

use calculon::Calculator;
use proptest::prelude::*;

/// Groups of units whose dimensions cancel, each unit with its size in SI
/// units as a plain expression and its power (+1 or −1).
const GROUPS: &[&[(&str, &str, i32)]] = &[
    &[("J", "1", 1), ("W", "1", -1), ("s", "1", -1)],
    &[("s", "1", 1), ("MHz", "1000000", 1)],
    &[("N", "1", 1), ("m", "1", 1), ("J", "1", -1)],
    &[("W", "1", 1), ("h", "3600", 1), ("J", "1", -1)],
    &[("kW", "1000", 1), ("h", "3600", 1), ("MJ", "1000000", -1)],
    &[("Pa", "1", 1), ("cm^2", "1/10000", 1), ("N", "1", -1)],
    &[("A", "1", 1), ("min", "60", 1), ("C", "1", -1)],
    &[("V", "1", 1), ("mA", "1/1000", 1), ("W", "1", -1)],
    &[("Hz", "1", 1), ("min", "60", 1)],
    &[("km", "1000", 1), ("mi", "1609344/1000", -1)],
];

/// Units kept: none, or one of a dimension no group uses.
const KEPT: &[&str] = &["", "kg", "lb", "mol", "cd", "B"];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]
    #[test]
    fn cancelled_units_leave_no_trace_and_keep_the_value(
        group in 0..GROUPS.len(),
        kept in 0..KEPT.len(),
        numerator in 1u32..1000,
        denominator in prop_oneof![Just(1u32), Just(2), Just(4), Just(5), Just(8)],
        order in any::<u64>(),
    ) {
        let group = GROUPS[group];
        let kept = KEPT[kept];
        // The terms in a seeded order, the kept unit among them.
        let mut terms: Vec<(String, i32)> = group.iter().map(|(u, _, p)| (u.to_string(), *p)).collect();
        if !kept.is_empty() {
            terms.push((kept.to_string(), 1));
        }
        let n = terms.len();
        for i in (1..n).rev() {
            terms.swap(i, (order as usize / (i + 1) + i) % (i + 1));
        }
        let mut expr = format!("({numerator}/{denominator})");
        for (unit, power) in &terms {
            expr.push_str(if *power > 0 { " * " } else { " / " });
            expr.push_str(unit);
        }
        let mut plain = format!("({numerator}/{denominator})");
        for (_, size, power) in group {
            plain.push_str(if *power > 0 { " * " } else { " / " });
            plain.push_str(&format!("({size})"));
        }
        let mut calc = Calculator::default();
        let got = calc.evaluate(&expr).map(|a| a.display());
        let want = calc.evaluate(&plain).map(|a| a.display());
        let (Ok(got), Ok(want)) = (got, want) else {
            return Err(TestCaseError::fail(format!("{expr} or {plain} failed")));
        };
        // The number, then the kept unit (or nothing): `= 2.7 kg`.
        let want = match (kept.is_empty(), want.split_once(" (= ")) {
            (true, _) => want,
            (false, None) => format!("{want} {kept}"),
            (false, Some((value, fraction))) => format!("{value} {kept} (= {fraction}"),
        };
        prop_assert_eq!(&got, &want, "{}", expr);
        // And it reads back: the printed value in the kept unit is the
        // same quantity, converted to that unit.
        if !kept.is_empty() {
            let back = calc.evaluate(&format!("{expr} to {kept}")).map(|a| a.display());
            prop_assert_eq!(back.ok(), Some(got));
        }
    }
}
