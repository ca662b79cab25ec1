//! Dates and times, on a fixed clock (2026-11-29 12:34:56 UTC) in a
//! fixed zone (Europe/London), against hand cases and a day-by-day walk.

mod common;

use calculon::{Calculator, Settings};
use proptest::prelude::*;

/// 2026-11-29 12:34:56 UTC, a Sunday.
const NOW: i64 = 1_795_955_696;

fn calculator() -> Calculator {
    Calculator::new(Settings {
        now: Some(NOW),
        time_zone: Some("Europe/London".into()),
        ..Settings::default()
    })
}

fn check(cases: &[(&str, &str)]) {
    common::check_in(&mut calculator(), cases);
}

#[test]
fn the_peers_date_lines() {
    check(&[
        ("today", "= 2026-11-29 (Sunday)"),
        (
            "now",
            "= 2026-11-29 12:34:56 (Sun, Europe/London, UTC+00:00)",
        ),
        ("today + 3 weeks", "= 2026-12-20 (Sunday)"),
        ("2027-01-01 - today", "= 33 days"),
        ("days until 2027-01-01", "= 33 days"),
        ("days since 2026-11-01", "= 28 days"),
        ("time until 2027-01-01", "= 33 days"),
        (
            "hours until 2026-11-30",
            "≈ 11.4177777777777777777777777778 hours (= 2569/225)",
        ),
        ("(2027-01-01 - today) to hours", "= 792 hours"),
        (
            "2027-01-01 - today to weeks",
            "≈ 4.71428571428571428571428571429 weeks (= 33/7)",
        ),
        (
            "now in Tokyo",
            "= 2026-11-29 21:34:56 (Sun, Asia/Tokyo, UTC+09:00)",
        ),
        ("now to UTC+9", "= 2026-11-29 21:34:56 (Sun, UTC+09:00)"),
        ("now to GMT-03:30", "= 2026-11-29 09:04:56 (Sun, UTC-03:30)"),
        (
            "now to New York",
            "= 2026-11-29 07:34:56 (Sun, America/New_York, UTC-05:00)",
        ),
        (
            "now to america/los_angeles",
            "= 2026-11-29 04:34:56 (Sun, America/Los_Angeles, UTC-08:00)",
        ),
        ("now to UTC", "= 2026-11-29 12:34:56 (Sun, UTC)"),
        ("3:45 pm + 2 h 30 min", "= 6:15 pm"),
        ("15:45 + 2 h 30 min", "= 18:15"),
        ("23:30 + 2 h", "= 01:30 (next day)"),
        ("12:00 am + 90 min", "= 1:30 am"),
        ("10:00 - 8:30", "= 1 h 30 min"),
        ("1 Jan 2027 to weekday", "= Friday"),
        ("Jan 1, 2027 to weekday", "= Friday"),
        ("Jan 1, 2027 - Dec 25, 2026", "= 7 days"),
        ("@1700000000", "= 2023-11-14 22:13:20 (Tue, UTC)"),
        ("@1700000000 to unix", "= 1700000000"),
        ("today to unix", "= 1795910400"),
        ("tomorrow", "= 2026-11-30 (Monday)"),
        ("yesterday - 1 year", "= 2025-11-28 (Friday)"),
        ("today + a week", "= 2026-12-06 (Sunday)"),
        // Calendar steps: the month's last day when the day is missing.
        ("2027-01-31 + 1 month", "= 2027-02-28 (Sunday)"),
        ("2024-02-29 + 1 year", "= 2025-02-28 (Friday)"),
        ("2027-01-31 + 1 month to weekday", "= Sunday"),
        // Exact elapsed time across a clock change (London, 29 March 2026).
        (
            "2026-03-29 00:30 + 1 h",
            "= 2026-03-29 02:30 (Sun, Europe/London, UTC+01:00)",
        ),
        (
            "2026-03-29T00:30 + 2 h to UTC",
            "= 2026-03-29 02:30 (Sun, UTC)",
        ),
        (
            "2027-01-01 09:00 UTC to Tokyo",
            "= 2027-01-01 18:00 (Fri, Asia/Tokyo, UTC+09:00)",
        ),
        ("now - 2026-11-29 00:00", "= 12 h 34 min 56 s"),
        ("now + 1.5 s - now", "= 1.5 s"),
    ]);
}

#[test]
fn bad_dates_name_what_is_wrong() {
    check(&[
        ("2027-02-30", "error: 2027-02-30 is not a date"),
        ("13:00 pm", "error: that is not a time of day"),
        (
            "today + 1.5 month",
            "error: months and years are calendar steps: a whole number of them",
        ),
        (
            "today + today",
            "error: two dates cannot be added; subtract them for the time between",
        ),
        (
            "now to Atlantis",
            "error: \"Atlantis\" is not a time zone (try a city, Area/City or UTC+9), weekday or unix",
        ),
        (
            "today + 3",
            "error: a unit of time after the number (s, min, h, days, weeks, months, years)",
        ),
        (
            "(today",
            "error: expected a closing parenthesis, found the end",
        ),
        (
            "(tomorrow - today + 1 month) to days",
            "error: a span of months or years has no fixed length: ask in days from a date",
        ),
        (
            "2026-01-01 to days",
            "error: a date is shown in a zone, as a weekday or as unix time; subtract two dates for the time between",
        ),
    ]);
}

/// A name the user gave keeps its meaning; `3 pm` stays 3 picometres.
#[test]
fn user_names_and_units_are_not_dates() {
    let mut calc = calculator();
    calc.evaluate("now = 5").expect("definition");
    assert_eq!(
        calc.evaluate("now + 1")
            .map(|a| a.display())
            .ok()
            .as_deref(),
        Some("= 6")
    );
    assert_eq!(
        calc.evaluate("3 pm").map(|a| a.display()).ok().as_deref(),
        Some("= 3 pm")
    );
    assert_eq!(
        calc.evaluate("2 min + 1 s")
            .map(|a| a.display())
            .ok()
            .as_deref(),
        Some("≈ 2.01666666666666666666666666667 min (= 121/60)")
    );
}

/// Days in a month, by the Gregorian rule.
fn month_length(y: i64, m: i64) -> i64 {
    match m {
        2 if (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// The oracle: one day at a time.
fn walk((mut y, mut m, mut d): (i64, i64, i64), days: i64) -> (i64, i64, i64) {
    for _ in 0..days.abs() {
        if days > 0 {
            d += 1;
            if d > month_length(y, m) {
                d = 1;
                m += 1;
                if m > 12 {
                    m = 1;
                    y += 1;
                }
            }
        } else {
            d -= 1;
            if d == 0 {
                m -= 1;
                if m == 0 {
                    m = 12;
                    y -= 1;
                }
                d = month_length(y, m);
            }
        }
    }
    (y, m, d)
}

fn a_date() -> impl Strategy<Value = (i64, i64, i64)> {
    (1600i64..2400, 1i64..=12).prop_flat_map(|(y, m)| (Just(y), Just(m), 1..=month_length(y, m)))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn adding_days_walks_the_calendar(start in a_date(), days in -3000i64..3000) {
        let mut calc = calculator();
        let (y, m, d) = start;
        let line = format!("{y:04}-{m:02}-{d:02} + {days} days");
        let got = calc.evaluate(&line).map(|a| a.value).map_err(|e| e.to_string());
        let (wy, wm, wd) = walk(start, days);
        let want = format!("{wy:04}-{wm:02}-{wd:02}");
        prop_assert!(got.as_deref().is_ok_and(|v| v.starts_with(&want)), "{line}: {got:?}, want {want}");
        // And back: the difference of the two dates is the count of days.
        let back = format!("{want} - {y:04}-{m:02}-{d:02} to days");
        let diff = calc.evaluate(&back).map(|a| a.value).map_err(|e| e.to_string());
        prop_assert_eq!(diff, Ok(format!("{days} days")));
    }
}

/// Issue 45 item 16: what is wrong with a date line is said in its own
/// words (these said `unknown name "today"`, evaluated to 99997, or
/// printed the date library's internal overflow text).
#[test]
fn date_lines_out_of_reach_say_why() {
    let mut calc = calculator();
    for (line, want, not) in [
        ("today + 10^100 days", "\"today\" is a date", "unknown name"),
        ("now + 2^3 hours", "\"now\" is a date", "unknown name"),
        ("99999-01-01", "years have at most four digits", "99997"),
        ("9999-12-31 + 1 day", "beyond the calendar", "timestamp"),
        ("-9999-01-01 - 1 day", "", "timestamp"),
        (
            "1 January 9999 + 2 years",
            "beyond the calendar",
            "parameter",
        ),
    ] {
        let e = calc
            .evaluate(line)
            .map(|a| a.display())
            .unwrap_err()
            .to_string();
        assert!(e.contains(want) && !e.contains(not), "{line}: {e}");
    }
    // A subtraction written as one still works.
    assert_eq!(calc.evaluate("99999 - 1 - 1").unwrap().display(), "= 99997");
}
