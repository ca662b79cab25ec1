//! Currencies at the shipped ECB rates (a saved file: never the network).

use calculon::{Calculator, Rates};
use proptest::prelude::*;

fn show(calc: &mut Calculator, line: &str) -> String {
    calc.evaluate(line)
        .map(|a| a.display())
        .unwrap_or_else(|e| format!("error: {e}"))
}

#[test]
fn conversions_name_the_rates_day() {
    let day = &Rates::current().date;
    let mut calc = Calculator::default();
    for (line, want) in [
        (
            "100 EUR to USD",
            format!("= 111.72 USD (ECB rates of {day})"),
        ),
        (
            "100 USD to EUR",
            format!("≈ 89.51 EUR (ECB rates of {day})"),
        ),
        (
            "100 gbp to eur",
            format!("≈ 119.93 eur (ECB rates of {day})"),
        ),
        (
            "5 dollars to yen",
            format!("≈ 786.25 yen (ECB rates of {day})"),
        ),
        (
            "20 USD + 5 EUR",
            format!("≈ 25.59 USD (ECB rates of {day})"),
        ),
        // One currency: no rate was used.
        ("12.5 EUR * 3", "= 37.5 EUR".to_string()),
        ("10 EUR / 3", "≈ 3.33 EUR".to_string()),
        ("10 EUR / 3 to 5 sf", "≈ 3.3333 EUR".to_string()),
        ("10 EUR/kg * 500 g", "= 5 EUR".to_string()),
        (
            "100 USD to kg",
            "error: cannot convert USD to kg".to_string(),
        ),
    ] {
        assert_eq!(show(&mut calc, line), want, "{line}");
    }
    assert_eq!(day, "2026-10-30", "the shipped table's day");
}

proptest! {
    /// Against the closed form: amount × (units of B per euro) / (units of
    /// A per euro), to the cent.
    #[test]
    fn a_conversion_is_the_ratio_of_the_rates(
        a in 0usize..29, b in 0usize..29, cents in 1u64..100_000_000,
    ) {
        let rates = &Rates::current().per_euro;
        prop_assume!(a < rates.len() && b < rates.len() && a != b);
        let (ca, ra) = &rates[a];
        let (cb, rb) = &rates[b];
        let amount = cents as f64 / 100.0;
        let want = amount * rb.parse::<f64>().unwrap_or(f64::NAN) / ra.parse::<f64>().unwrap_or(f64::NAN);
        let mut calc = Calculator::default();
        let line = format!("{amount} {ca} to {cb}");
        let got = calc.evaluate(&line).map_err(|e| TestCaseError::fail(format!("{line}: {e}")))?;
        let number: f64 = got.value.trim_end_matches(cb.as_str()).trim().replace('\u{2009}', "").parse().map_err(|e| TestCaseError::fail(format!("{line}: {} ({e})", got.value)))?;
        prop_assert!((number - want).abs() <= 0.005 + want * 1e-12, "{line}: {} against {want}", got.value);
    }
}

/// A column's total, and `ans`, are in the units a converted line
/// showed, not the ones it was typed in.
#[test]
fn a_total_follows_the_lines_conversions() {
    let total = |text: &str| {
        let mut calc = Calculator::default();
        let column = calc.evaluate_column(text, true, &calculon::CancelFlag::new());
        column
            .total
            .map(|t| {
                t.map(|a| a.display())
                    .unwrap_or_else(|e| format!("error: {e}"))
            })
            .unwrap_or_default()
    };
    assert_eq!(total("100 USD to EUR\n20 EUR\n"), "≈ 109.51 EUR");
    assert_eq!(total("20 EUR\n100 USD to EUR\n"), "≈ 109.51 EUR");
    assert_eq!(total("3 ft to cm\n10 cm\n"), "= 101.44 cm");
    let mut calc = Calculator::default();
    show(&mut calc, "100 USD to EUR");
    assert_eq!(show(&mut calc, "ans * 2"), "≈ 179.02 EUR");
    show(&mut calc, "20 C to F");
    assert_eq!(show(&mut calc, "ans"), "= 68 °F");
}

/// `$ € £ ¥` are USD, EUR, GBP and JPY, before or after the number.
#[test]
fn currency_signs_are_currencies() {
    let day = &Rates::current().date;
    let mut calc = Calculator::default();
    for (line, want) in [
        ("€12.50", "= 12.5 €".to_string()),
        ("12.50 €", "= 12.5 €".to_string()),
        ("$5 + $3", "= 8 $".to_string()),
        ("2 * -$3", "= -6 $".to_string()),
        (
            "$1,200.50 to EUR",
            format!("≈ 1074.56 EUR (ECB rates of {day})"),
        ),
        ("£3 to €", format!("≈ 3.60 € (ECB rates of {day})")),
        ("¥500 to USD", format!("≈ 3.18 USD (ECB rates of {day})")),
        ("1 $ to USD", "= 1 USD".to_string()),
    ] {
        assert_eq!(show(&mut calc, line), want, "{line}");
    }
}
