//! The engine, line by line: input → the answer's one-line display.

mod common;

use calculon::{Calculator, ErrorKind};

/// Evaluates each line in one calculator and compares the display (or
/// the error message, prefixed with `error: `).
fn check(cases: &[(&str, &str)]) {
    common::check_in(&mut Calculator::default(), cases);
}

#[test]
fn exact_arithmetic() {
    check(&[
        ("1/3*3", "= 1"),
        ("(10^100+1)-10^100", "= 1"),
        ("0.1+0.2", "= 0.3"),
        (
            "2^1024",
            "= 179769313486231590772930519078902473361797697894230657273430081157732675805500963132708477322407536021120113879871393357658789768814416622492847430639474124377767893424865485276302219601246094119453082952085005768838150682342462881473913110540827237163350510684586298239947245938479716304835356329624224137216",
        ),
        ("1/3", "≈ 0.333333333333333333333333333333 (= 1/3)"),
        ("2/3", "≈ 0.666666666666666666666666666667 (= 2/3)"),
        ("1/8", "= 0.125"),
        ("-7/2", "= -3.5"),
        ("6/2(1+2)", "= 1"),
        ("2^-2", "= 0.25"),
        ("2^3^2", "= 512"),
        ("-2^2", "= -4"),
        ("5!", "= 120"),
        ("0!", "= 1"),
        ("7 mod 3", "= 1"),
        ("-7 mod 3", "= 2"),
        ("gcd(12, 18)", "= 6"),
        ("lcm(4, 6)", "= 12"),
        ("binomial(50, 25)", "= 126410606437752"),
        ("1,234,567 + 1", "= 1234568"),
        ("0xff", "= 255"),
        ("255 to hex", "= 0xff"),
        ("10 to bin", "= 0b1010"),
        ("0.75 to fraction", "= 3/4"),
        ("1e3", "= 1000"),
        ("1.5e-3", "= 0.0015"),
    ]);
}

#[test]
fn factorial_of_171_is_exact() {
    let mut calc = Calculator::default();
    let a = calc.evaluate("171!").map(|a| a.value).unwrap_or_default();
    assert_eq!(a.len(), 310);
    assert!(a.starts_with("1241018070217667823424840524103103992616605577501693185388951803611996075221691752992751978120487585"));
    assert!(
        a.ends_with(&format!("1{}", "0".repeat(41)))
            || a.ends_with(&format!("2{}", "0".repeat(41)))
            || a.trim_end_matches('0').len() == 310 - 41
    );
}

#[test]
fn approximate_results_print_only_certain_digits() {
    check(&[
        ("sqrt 2", "≈ 1.41421356237309504880168872421"),
        ("pi", "≈ 3.14159265358979323846264338328"),
        ("e", "≈ 2.71828182845904523536028747135"),
        ("ln 2", "≈ 0.693147180559945309417232121458"),
        ("sqrt(16)", "= 4"),
        ("sqrt(-4)", "= 2i"),
        ("√2 * √2", "≈ 2"),
        ("sin(30 deg)", "= 0.5"),
        ("sin 30°", "= 0.5"),
        ("cos(60°)", "= 0.5"),
        ("sind(90)", "= 1"),
        ("asind(0.5)", "= 30 deg"),
        ("sin(pi)", "= 0"),
        ("cos(pi)", "= -1"),
        ("sin(pi/6)", "= 0.5"),
        ("tan(45°)", "= 1"),
        ("sin(1e-200)", "≈ 1e-200"),
        ("sin(10^100)", "≈ -0.372376123661276688262086695553"),
        ("log10(1000)", "= 3"),
        ("log2(1024)", "= 10"),
        ("exp(0)", "= 1"),
        ("ln(1)", "= 0"),
        ("(1+2i)(3-i)", "= 5 + 5i"),
        ("i^2", "= -1"),
        ("cbrt(-27)", "= -3"),
        ("2^0.5", "≈ 1.41421356237309504880168872421"),
        ("4^0.5", "= 2"),
        ("atan(1)*4", "≈ 3.14159265358979323846264338328"),
    ]);
}

#[test]
fn units() {
    check(&[
        ("5 ft 10 in to cm", "= 177.8 cm"),
        ("1.74 m to ft in", "≈ 5 ft 8.5 in"),
        ("60 mph to km/h", "= 96.56064 km/h"),
        ("1 m / 1 m", "= 1"),
        ("1 km / 1 m", "= 1000"),
        ("3 m * 2 m", "= 6 m²"),
        ("1 m + 1 ft", "= 1.3048 m"),
        (
            "2 kg to lb",
            "≈ 4.4092452436975516144594760269 lb (= 200000000/45359237)",
        ),
        ("1 GiB to MB", "= 1073.741824 MB"),
        (
            "100 km/h to m/s",
            "≈ 27.7777777777777777777777777778 m/s (= 250/9)",
        ),
        ("1 m to kg", "error: cannot convert m to kg"),
        ("1 m + 1 s", "error: cannot add m and s"),
        ("20 °C to °F", "= 68 °F"),
        ("0 K to °C", "= -273.15 °C"),
        ("20 °C + 5 °C", "= 25 °C (°C after + read as a difference)"),
        ("20 °C - 15 °C", "= 5 Δ°C"),
        ("sqrt(4 m^2)", "= 2 m"),
        ("c to km/s", "= 299792.458 km/s"),
        ("1 h 30 min to min", "= 90 min"),
        ("100000 s to d h min s", "= 1 d 3 h 46 min 40 s"),
        ("min(3, 2)", "= 2"),
        ("5 min to s", "= 300 s"),
    ]);
}

#[test]
fn percent_rules() {
    check(&[
        ("100 + 10%", "= 110"),
        ("100 - 10%", "= 90"),
        ("100 - 10% - 10%", "= 81"),
        ("10% of 200", "= 20"),
        ("10% + 100", "= 100.1"),
        ("50 * 10%", "= 5"),
    ]);
}

#[test]
fn definitions() {
    check(&[
        ("x = 5", "x = 5"),
        ("x^2", "= 25"),
        ("2x", "= 10"),
        ("f(x) = x^2 + 1", "f(x) = x^2 + 1"),
        ("f(3)", "= 10"),
        ("g(a, b) = a*b + x", "g(a, b) = a × b + x"),
        ("g(2, 3)", "= 11"),
        ("ans * 2", "= 22"),
        (
            "f2(n) = if(n <= 1, 1, n * f2(n - 1))",
            "f2(n) = if(n <= 1, 1, n × f2(n - 1))",
        ),
        ("f2(20)", "= 2432902008176640000"),
        ("loop(n) = loop(n + 1)", "loop(n) = loop(n + 1)"),
        ("loop(1)", "error: recursion deeper than 1000 calls"),
        ("2 < 3", "= 1"),
        ("1 m == 100 cm", "= 1"),
        ("1 m != 100 cm", "= 0"),
        (
            "pi = 3",
            "error: cannot redefine \"pi\": it is a built-in constant",
        ),
        (
            "sqrt = 3",
            "error: cannot redefine \"sqrt\": it is a built-in function",
        ),
    ]);
}

#[test]
fn errors_name_the_problem() {
    check(&[
        (
            "sqr(2)",
            "error: unknown name \"sqr\"; did you mean \"sqrt\"?",
        ),
        ("1/0", "error: division by zero"),
        ("ln(0)", "error: logarithm of zero"),
        (
            "10^10^10",
            "error: the exact result would have about 10,000,000,000 digits (33,219,280,949 bits), over the limit of 8,388,608 bits (about 2,525,223 digits)",
        ),
        (
            "100000000!",
            "error: the exact result would have about 756,570,556 digits (2,513,272,986 bits), over the limit of 8,388,608 bits (about 2,525,223 digits)",
        ),
        ("", "error: nothing to calculate"),
        (
            "f(",
            "error: expected a number, a name or '(', found the end of the input",
        ),
    ]);
}

#[test]
fn cancelled_evaluation_stops() {
    let mut calc = Calculator::default();
    let flag = calculon::CancelFlag::new();
    flag.cancel();
    let e = calc.evaluate_with("1+1", &flag).map_err(|e| e.kind);
    assert_eq!(e, Err(ErrorKind::Cancelled));
}

#[test]
fn plots_break_at_poles_and_follow_units() {
    let mut calc = Calculator::default();
    let Ok(calculon::Answer {
        kind: calculon::AnswerKind::Plot(request),
        ..
    }) = calc.evaluate("plot tan(x) from -4 to 4")
    else {
        panic!("not a plot");
    };
    let flag = calculon::CancelFlag::new();
    let graph = calc.plot(&request, 400, &flag).map_err(|e| e.to_string());
    assert_eq!(graph.as_ref().map(|g| g.segments.len()), Ok(3));
    // A range with constants, and a user function of x.
    assert!(calc.evaluate("f(t) = t^2").is_ok());
    let request = calculon::PlotRequest::new("f(x) - 1", "x", "-pi", "2pi");
    let graph = calc.plot(&request, 50, &flag).map_err(|e| e.to_string());
    let g = graph.unwrap_or_else(|e| panic!("{e}"));
    assert!((g.x_range.0 + std::f64::consts::PI).abs() < 1e-12);
    let first = g.segments[0][0];
    assert!((first[1] - (std::f64::consts::PI.powi(2) - 1.0)).abs() < 1e-9);
    // A bad range says so.
    let bad = calculon::PlotRequest::new("x", "x", "1 m", "2");
    assert!(calc.plot(&bad, 10, &flag).is_err());
}

/// Found by cargo-fuzz: a power with a huge exponent ran out of memory
/// printing (it computed 10^1900603049 exactly), and `exp(10^9)` took
/// minutes. Huge magnitudes now print through a scaled ball, and exp
/// reduces its argument by multiples of ln 2.
#[test]
fn huge_magnitudes_print_at_once() {
    check(&[
        (
            "8**2104555555.5",
            "≈ 1.73907217672524974912132893835e1900603049",
        ),
        ("8**2104555.5", "≈ 9.97973072729856365418520680801e1900602"),
        ("exp(10^9)", "≈ 8.00298177066097253304190937437e434294481"),
        ("exp(-1000)", "≈ 5.07595889754945676529180947957e-435"),
        ("1/3^5000000", "≈ 5.32600644709173127593367258406e-2385607"),
    ]);
}

#[test]
fn definitions_persist_through_their_file() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let path = dir.path().join("sub/definitions.txt");
    let mut calc = Calculator::default();
    for line in ["x = 5", "f(t) = t^2 + x", "x = 6"] {
        assert!(calc.evaluate(line).is_ok(), "{line}");
    }
    calc.save_definitions(&path)
        .unwrap_or_else(|e| panic!("{e}"));
    let text = std::fs::read_to_string(&path).unwrap_or_default();
    // The latest definition of each name, in order, as typed.
    assert!(text.ends_with("f(t) = t^2 + x\nx = 6\n"), "{text}");
    let mut again = Calculator::default();
    assert!(again.load_definitions(&text).is_empty());
    assert_eq!(
        again.evaluate("f(2)").map(|a| a.display()),
        Ok("= 10".to_string())
    );
    // A line that no longer reads is reported with its number, the rest kept.
    let failures = again.load_definitions("y = 1\nz = nosuchname\n");
    assert_eq!(
        failures.iter().map(|(n, _)| *n).collect::<Vec<_>>(),
        vec![2]
    );
    assert_eq!(
        again.evaluate("y").map(|a| a.display()),
        Ok("= 1".to_string())
    );
}

/// gcd with zeros (dashu's own gcd panics on two), negative numbers to
/// exact fractional powers (the principal value), and limits that say how
/// far off a result is rather than a saturated count.
#[test]
fn zeros_negative_roots_and_sizes_beyond_reach() {
    check(&[
        ("gcd(0,0)", "= 0"),
        ("gcd(1-1, 2-2)", "= 0"),
        ("gcd(0,0,0)", "= 0"),
        ("gcd(0, -6)", "= 6"),
        ("gcd(12, 0, 18)", "= 6"),
        ("lcm(0,0)", "= 0"),
        ("(-1)^(1/2)", "= i"),
        ("(-4)^(1/2)", "= 2i"),
        ("(-1)^0.5", "= i"),
        ("(-1)^(3/2)", "= -i"),
        ("(-4)^(-1/2)", "= -0.5i"),
        ("(-8)^(1/3)", "≈ 1 + 1.73205080756887729352744634151i"),
        (
            "(-1)^(1/4)",
            "≈ 0.707106781186547524400844362105 + 0.707106781186547524400844362105i",
        ),
        (
            "exp(-10^100)",
            "error: the result is too small to represent: about 10^-4.343e+99, a positive number",
        ),
        (
            "exp(10^100)",
            "error: the result is too large to represent: about 10^4.343e+99, a positive number",
        ),
        (
            "1e100!",
            "error: the exact result would have about 9.957e+101 digits (3.308e+102 bits), over the \
             limit of 8,388,608 bits (about 2,525,223 digits)",
        ),
    ]);
}

/// Lines on stdin that are not UTF-8 get an error with their number; the
/// others, before and after, their answers.
#[test]
fn a_line_that_is_not_text_is_one_error() {
    let mut calc = Calculator::default();
    let column = calc.evaluate_column_bytes(
        b"1+1\nx = 7\n\xff\xfe bad\r\n2*x\n",
        true,
        &calculon::CancelFlag::new(),
    );
    let shown: Vec<String> = column
        .lines
        .iter()
        .map(|l| match l {
            None => "-".into(),
            Some(Ok(a)) => a.display(),
            Some(Err(e)) => format!("error: {e}"),
        })
        .collect();
    assert_eq!(
        shown,
        [
            "= 2",
            "x = 7",
            "error: line 3 is not UTF-8 text: byte 1 is 0xff",
            "= 14"
        ]
    );
    assert_eq!(column.total.unwrap().unwrap().display(), "= 16");
}

/// Roundings and formats asked in words, as fend and Qalculate take them.
#[test]
fn rounding_and_formats_asked_in_words() {
    check(&[
        (
            "pi to 50 digits",
            "≈ 3.1415926535897932384626433832795028841971693993751",
        ),
        ("2/3 to 3 sf", "≈ 0.667"),
        ("1/3 to 3 significant figures", "≈ 0.333"),
        ("sqrt 2 to 5 sig figs", "≈ 1.4142"),
        ("12345 to 3 sf", "≈ 12300"),
        ("1 to 3 sf", "= 1.00"),
        ("2.5 kg to 3 sf", "= 2.50 kg"),
        ("pi to 2 dp", "≈ 3.14"),
        ("e to 3 decimal places", "≈ 2.718"),
        ("7 to 2 dp", "= 7.00"),
        ("1.005 to 2 dp", "≈ 1.01"),
        ("-2.5 to 0 dp", "≈ -3"),
        ("0 to 2 dp", "= 0.00"),
        ("1e-10 to 3 dp", "≈ 0.000"),
        ("(1+2i)/3 to 2 dp", "≈ 0.33 + 0.67i"),
        ("0.75 to fraction", "= 3/4"),
        ("7/2 to mixed fraction", "= 3 1/2"),
        ("-7/2 to mixed fraction", "= -3 1/2"),
        ("1234 to sci", "= 1.234e3"),
        ("12345678 to eng", "= 12.345678e6"),
        ("0.00012 to eng", "= 120e-6"),
        ("5 to base 3", "= 12"),
        ("255 to base 16", "= ff"),
        ("100 to base 36", "= 2s"),
        ("255 to hex", "= 0xff"),
        (
            "5 to base 1",
            "error: the base must be a whole number from 2 to 36",
        ),
        (
            "5 to 0 sf",
            "error: the number of digits must be a whole number from 1 to 1000000",
        ),
    ]);
}

/// Several statements on a line, comments, names in capitals, and what
/// an unknown name is told: as fend and Qalculate read them.
#[test]
fn statements_comments_capitals_and_unknown_names() {
    check(&[
        ("f(x) = x^2 + 1; f(3)", "= 10"),
        ("a = 5; b = 2; a*b", "= 10"),
        ("1 + 1;", "= 2"),
        ("2 + 3 # the rest is a comment", "= 5"),
        ("SIN PI", "= 0"),
        ("LOG 100", "= 2"),
        ("EXP 0", "= 1"),
        ("PI to 3 sf", "≈ 3.14"),
        // Capitals that name something of their own keep it.
        ("G to 3 sf", "≈ 0.0000000000667 m³/(kg·s²)"),
        // A free single letter is a function of it, never a unit typo.
        (
            "sin(x)/x",
            "error: x has no value: this is a function of x (plot it, or define f(x) = …)",
        ),
        (
            "3x",
            "error: x has no value: this is a function of x (plot it, or define f(x) = …)",
        ),
        ("xy", "error: unknown name \"xy\""),
        (
            "cso(1)",
            "error: unknown name \"cso\"; did you mean \"cos\"?",
        ),
        (
            "sqr(2)",
            "error: unknown name \"sqr\"; did you mean \"sqrt\"?",
        ),
        (
            "5 metr",
            "error: unknown name \"metr\"; did you mean \"metre\"?",
        ),
    ]);
    // The error of a later statement points into it.
    let mut calc = Calculator::default();
    let e = calc.evaluate("1 + 1; 2 * foo").err().map(|e| e.span);
    assert_eq!(e, Some(11..14));
}

/// Statistics on lists, bitwise operators on integers, and `mod` on
/// integers and units.
#[test]
fn statistics_bitwise_and_mod() {
    check(&[
        ("mean(1, 2, 3, 4)", "= 2.5"),
        ("median(3, 1, 2)", "= 2"),
        ("median(4, 1, 3, 2)", "= 2.5"),
        ("stdev(2, 4, 4, 4, 5, 5, 7, 9) to 6 sf", "≈ 2.13809"),
        (
            "variance(1, 2, 3, 4)",
            "≈ 1.66666666666666666666666666667 (= 5/3)",
        ),
        ("sum(1 m, 2 ft)", "= 1.6096 m"),
        ("product(2, 3, 4)", "= 24"),
        ("count(7, 8, 9)", "= 3"),
        ("min(3, 1, 2)", "= 1"),
        ("max(3 kg, 2000 g)", "= 3 kg"),
        ("mean(1 kg, 3 kg)", "= 2 kg"),
        (
            "median(1, 2 m)",
            "error: cannot compare a plain number and m",
        ),
        ("12 and 10", "= 8"),
        ("12 or 10", "= 14"),
        ("12 xor 10", "= 6"),
        ("not 5", "= -6"),
        ("1 << 10", "= 1024"),
        ("1024 >> 3", "= 128"),
        ("0xff and 0x0f to hex", "= 0xf"),
        ("1.5 and 1", "error: and needs an exact integer"),
        ("7 mod 3", "= 1"),
        ("-7 mod 3", "= 2"),
        ("7.5 m mod 2 m", "= 1.5 m"),
    ]);
}

/// Number words and lone SI prefixes, feet and inch marks, mixed numbers,
/// and a fraction before a unit, read as people write them.
#[test]
fn number_words_marks_and_fractions() {
    check(&[
        ("hundred", "= 100"),
        ("dozen", "= 12"),
        ("3 dozen", "= 36"),
        ("gross", "= 144"),
        ("two million", "= 2000000"),
        ("thirty-five", "= 35"),
        ("two hundred thirty-five thousand", "= 235000"),
        ("1.5 million", "= 1500000"),
        ("a quarter", "= 0.25"),
        ("three quarters", "= 0.75"),
        ("half", "= 0.5"),
        ("kilo", "= 1000"),
        ("milli", "= 0.001"),
        ("yotta", "= 1000000000000000000000000"),
        ("two = 3; two", "= 3"),
        ("5'10\" to cm", "= 177.8 cm"),
        ("3'6\" to cm", "= 106.68 cm"),
        ("1' to inches", "= 12 inches"),
        ("2.54 cm to \"", "= 1 inch"),
        ("-8 1/2'", "= -8.5 ft"),
        ("8 1/2", "= 8.5"),
        ("1/2 cup to ml", "= 118.29411825 ml"),
        // Still as documented: implicit products bind tighter than `/`.
        ("6/2(1+2)", "= 1"),
        ("60 km / 2 h", "= 30 km/h"),
    ]);
}

/// Units with negative powers written every usual way, `per`, and
/// compounds of coherent SI units named by their derived unit.
#[test]
fn unit_powers_per_and_derived_names() {
    check(&[
        ("2 lb^-1 kg^-1", "= 0.90718474 lb⁻²"),
        ("9.8 m s^-2", "= 9.8 m/s²"),
        ("2^-2", "= 0.25"),
        ("-2^2", "= -4"),
        ("10 per second", "= 10 second⁻¹"),
        ("60 miles per hour to km/h", "= 96.56064 km/h"),
        ("1 / (0.5 kg)", "= 2 kg⁻¹"),
        ("sqrt(kg^2)", "= 1 kg"),
        ("(5 V)/(2 ohm)", "= 2.5 A"),
        ("N m", "= 1 J"),
        ("W s", "= 1 J"),
        ("kg m/s^2", "= 1 N"),
        ("2 A * 3 ohm", "= 6 V"),
        ("N m to J", "= 1 J"),
        ("kW h to MJ", "= 3.6 MJ"),
        // Not coherent, or no name: as typed.
        ("kW h", "= 1 kW·h"),
        ("100 km/h", "= 100 km/h"),
    ]);
}

/// Roots of units stay exact: exponents in halves, thirds, quarters and
/// sixths; anything finer is refused with the unit named.
#[test]
fn fractional_unit_powers() {
    check(&[
        ("kg^(1/3)", "= 1 kg^(1/3)"),
        ("cbrt(1 kg)", "= 1 kg^(1/3)"),
        ("cbrt(27 kg)", "= 3 kg^(1/3)"),
        ("(kg^(1/3))^3", "= 1 kg"),
        ("sqrt kg^2", "= 1 kg"),
        ("sqrt(4 m)", "= 2 m^(1/2)"),
        ("sqrt(4 m) * sqrt(9 m)", "= 6 m"),
        ("1 / sqrt(s)", "= 1 s^(-1/2)"),
        ("m^(3/2)", "= 1 m^(3/2)"),
        ("8 m^(3/4) * 2 m^(1/4)", "= 16 m"),
        ("sqrt(1 Hz)", "= 1 Hz^(1/2)"),
        (
            "sqrt(4 lb) to kg^(1/2)",
            "≈ 1.34698533028388991434650833077 kg^(1/2)",
        ),
        ("sqrt(1 m^2/s^2)", "= 1 m/s"),
        (
            "kg^(1/5)",
            "error: that power of kg would need a fractional unit exponent",
        ),
    ]);
}

/// Unit names of several words, and C / F as temperatures when the other
/// side of a conversion is one (the reading says which was taken).
#[test]
fn spaced_unit_names_and_temperature_letters() {
    check(&[
        ("1 light year to km", "= 9460730472580.8 km"),
        ("1 light second to km", "= 299792.458 km"),
        ("1 nautical mile to m", "= 1852 m"),
        ("1 fluid ounce to ml", "= 29.5735295625 ml"),
        ("1 US gallon to l", "= 3.785411784 l"),
        ("1 imperial fluid ounce to ml", "= 28.4130625 ml"),
        ("2 cups to ml", "= 473.176473 ml"),
        ("3 teaspoons to ml", "= 14.78676478125 ml"),
        ("20 C to F", "= 68 °F"),
        ("68 F to C", "= 20 °C"),
        ("300 K to C", "= 26.85 °C"),
        ("20 °C to °F", "= 68 °F"),
        // Alone, or against another charge, C is the coulomb.
        ("5 C", "= 5 C"),
        ("1 C to mA s", "= 1000 mA·s"),
    ]);
    let reading = Calculator::default()
        .evaluate("20 C to F")
        .map(|a| a.reading)
        .unwrap_or_default();
    assert_eq!(reading, "20 °C → °F");
}

/// With digit grouping on (the window's default), whole parts show in
/// groups of three parted by thin spaces, and read back as the same
/// number.
#[test]
fn digit_grouping_reads_back() {
    let mut calc = Calculator::new(calculon::Settings {
        group_digits: true,
        ..calculon::Settings::default()
    });
    let show = |calc: &mut Calculator, line: &str| {
        calc.evaluate(line)
            .map(|a| a.display())
            .unwrap_or_else(|e| format!("error: {e}"))
    };
    assert_eq!(show(&mut calc, "1234567"), "= 1\u{2009}234\u{2009}567");
    assert_eq!(show(&mut calc, "1234"), "= 1234");
    assert_eq!(
        show(&mut calc, "1234567.654321"),
        "= 1\u{2009}234\u{2009}567.654321"
    );
    assert_eq!(show(&mut calc, "12345 m"), "= 12\u{2009}345 m");
    assert_eq!(show(&mut calc, "12345678 to hex"), "= 0xbc614e");
    assert_eq!(show(&mut calc, "1.5e-12"), "= 0.0000000000015");
    for line in ["2^100", "10^21 + 0.5", "-98765432", "12345678.25 kg"] {
        let shown = show(&mut calc, line);
        let again = show(&mut calc, shown.trim_start_matches("= "));
        assert_eq!(again, shown, "{line} does not read back");
    }
}

/// The notation setting applies where a line asks for no format.
#[test]
fn notation_setting() {
    let mut calc = Calculator::new(calculon::Settings {
        notation: calculon::Notation::Fraction,
        ..calculon::Settings::default()
    });
    let mut show = |line: &str| {
        calc.evaluate(line)
            .map(|a| a.display())
            .unwrap_or_else(|e| format!("error: {e}"))
    };
    assert_eq!(show("0.75"), "= 3/4");
    assert_eq!(show("2"), "= 2");
    assert_eq!(show("sqrt 2 to 3 sf"), "≈ 1.41");
    assert_eq!(show("0.75 to sci"), "= 7.5e-1");
    let mut calc = Calculator::new(calculon::Settings {
        notation: calculon::Notation::Engineering,
        ..calculon::Settings::default()
    });
    assert_eq!(
        calc.evaluate("12345678")
            .map(|a| a.display())
            .ok()
            .as_deref(),
        Some("= 12.345678e6")
    );
}

/// Numbers as locales print them and spreadsheets paste them: groups of
/// three parted by spaces; recurring decimals; other bases by prefix.
#[test]
fn numbers_as_pasted_and_written_elsewhere() {
    check(&[
        ("12 345", "= 12345"),
        ("1 234 567.5", "= 1234567.5"),
        ("12 345 + 1", "= 12346"),
        ("max(1 000, 2)", "= 1000"),
        ("1 234 567 m", "= 1234567 m"),
        // Not groups of three: two numbers, which is an error.
        (
            "1234 567",
            "error: expected an operator between the numbers, found a second number",
        ),
        ("8 1/2", "= 8.5"),
        ("0.(3)", "≈ 0.333333333333333333333333333333 (= 1/3)"),
        ("1.2(3) to fraction", "= 37/30"),
        ("6#100", "= 36"),
        ("16#ff", "= 255"),
        (
            "2#102",
            "error: malformed number \"2#102\": digit out of range for the base",
        ),
        ("5 # five", "= 5"),
        ("0xff & 0xcb", "= 203"),
        ("0b0011 | 0b0101", "= 7"),
        ("mod(-7, 3)", "= 2"),
        ("5 m/s to s/m", "= 0.2 s/m"),
        ("10 N / 5 Pa", "= 2 m²"),
        ("1 N s", "= 1 N·s"),
    ]);
}

// ------------------------------------------------------------------
// What people type (issue 49): each family fails without its change.

#[test]
fn products_by_parentheses() {
    check(&[
        ("5(6)", "= 30"),
        ("(4)(6)", "= 24"),
        ("2 (5)", "= 10"),
        ("2( 5)", "= 10"),
        ("(2)3", "= 6"),
        ("-(3)(4)", "= -12"),
        // Two bare numbers are still refused, and 6/2(1+2) keeps its reading.
        (
            "2 3",
            "error: expected an operator between the numbers, found a second number",
        ),
        ("6/2(1+2)", "= 1"),
    ]);
}

#[test]
fn unclosed_parentheses_are_closed_and_said() {
    let mut calc = Calculator::default();
    common::check_in(
        &mut calc,
        &[
            ("2*(1+3", "= 8 (the end of the line closed a parenthesis)"),
            (
                "log10 (1m / (1m",
                "= 0 (the end of the line closed 2 parentheses)",
            ),
            ("sqrt(4", "= 2 (the end of the line closed a parenthesis)"),
            (
                "(1+2))",
                "error: expected an operator or the end of the input, found ')'",
            ),
        ],
    );
    assert_eq!(calc.evaluate("2*(1+3").unwrap().reading, "2 × (1 + 3)");
}

#[test]
fn units_that_cancel_are_left_out() {
    check(&[
        ("c/(145MHz) to 5 sf", "≈ 2.0675 m"),
        ("1 J/(W s)", "= 1"),
        ("3 Hz * 2 s", "= 6"),
        ("2 W h / J", "= 7200"),
        ("1 N m / J", "= 1"),
        ("5 m/km", "= 0.005"),
        ("60 km/h * 2 h", "= 120 km"),
        ("6 A s / C * 2 kg", "= 12 kg"),
        // Nothing cancels: the units stay as typed.
        ("1 kWh/yr", "= 1 kWh/yr"),
        // Asked for a unit: that unit.
        ("1 J/(W s) to percent", "= 100 percent"),
    ]);
}

#[test]
fn units_print_as_people_write_them() {
    check(&[
        ("3 square feet to square meters", "= 0.27870912 m²"),
        ("1 watt hour / lb", "= 1 W h/lb"),
        ("3 m * 2 m", "= 6 m²"),
        ("9.8 m s^-2", "= 9.8 m/s²"),
        ("1 / (0.5 kg)", "= 2 kg⁻¹"),
        ("1 nautical mile", "= 1 nmi"),
        // Superscripts are read back as typed.
        ("13¹³", "= 302875106592253"),
        ("2⁻¹", "= 0.5"),
        ("3 m² * 2 m⁻¹", "= 6 m"),
        (
            "2⁻",
            "error: a superscript minus needs superscript digits after it",
        ),
        (
            "2¹²³⁴⁵⁶⁷⁸⁹⁰¹²",
            "error: a superscript power this large is not one",
        ),
        ("10 m³ to L", "= 10000 L"),
    ]);
}

#[test]
fn unit_names_and_spellings_people_use() {
    check(&[
        ("5 KB", "= 5 kB (KB read as kilobytes, kB)"),
        ("5 gb", "= 5 GB (gb read as gigabytes, GB)"),
        ("5 Kb", "= 5 kb (Kb read as kilobits, kb)"),
        ("3 mib to KiB", "= 3072 KiB (mib read as mebibytes, MiB)"),
        ("60 RPM to rpm", "= 60 rpm"),
        (
            "5 sqm to sqft",
            "≈ 53.8195520835486115416675277795 sqft (= 7812500/145161)",
        ),
        ("2 sqft to sqin", "= 288 sqin"),
        ("300 °K to °C", "= 26.85 °C"),
        ("20 oC to oF", "= 68 oF"),
        ("1 kilocelsius to K", "= 1000 K"),
        ("1 millicelsius to K", "= 0.001 K"),
        ("20 °C + 1 kilocelsius", "= 1020 °C"),
        ("4U to cm", "= 17.78 cm"),
        ("1 kilopond to N", "= 9.80665 N"),
        ("1 megapond to N", "= 9806.65 N"),
        ("1 myriameter to km", "= 10 km"),
        ("1 myria meter to km", "= 10 km"),
        ("1 quintillion", "= 1000000000000000000"),
        ("1 vigintillion / 10^63", "= 1"),
        ("1 centillion / 10^303", "= 1"),
        ("1 thousand dozen", "= 12000"),
        ("two dozen", "= 24"),
        ("three thousand two hundred", "= 3200"),
        ("cis(pi)", "= -1"),
        ("cis(pi/2)", "= i"),
        ("electron_charge", "= 0.0000000000000000001602176634 C"),
        ("/s", "= 1 s⁻¹"),
        ("per second", "= 1 second⁻¹"),
        ("5 /s", "= 5 s⁻¹"),
        ("4 m + 0", "= 4 m"),
        ("0 - 4 m", "= -4 m"),
        ("0 + 2 kg", "= 2 kg"),
    ]);
}

#[test]
fn chains_and_empty_statements() {
    let mut calc = Calculator::default();
    common::check_in(
        &mut calc,
        &[
            ("a = b = 2", "a = b = 2"),
            ("a + b", "= 4"),
            ("1;;2", "= 2"),
        ],
    );
    let column = calc.evaluate_column(
        "#!/usr/bin/env calculon\n1+1\n;;\n2*3\n",
        false,
        &Default::default(),
    );
    let shown: Vec<Option<String>> = column
        .lines
        .iter()
        .map(|l| {
            l.as_ref().map(|r| match r {
                Ok(a) => a.display(),
                Err(e) => format!("error: {e}"),
            })
        })
        .collect();
    assert_eq!(shown, [None, Some("= 2".into()), None, Some("= 6".into())]);
}

#[test]
fn physical_data_people_ask_for() {
    check(&[
        ("mass of earth", "= 5972200000000000000000000 kg"),
        ("radius of moon", "= 1737.4 km"),
        ("escape velocity of earth", "= 11.186 km/s"),
        ("escape velocity of the earth", "= 11.186 km/s"),
        ("mass of the moon / mass of earth to 3 sf", "≈ 0.0123"),
        ("radius of mars", "= 3389.5 km"),
        ("mass of jupiter / mass of earth to 4 sf", "≈ 317.8"),
    ]);
    // Their source is named in the list of names.
    let entry = calculon::Calculator::default()
        .reference()
        .into_iter()
        .find(|e| e.names.contains("mass_of_earth"))
        .expect("mass of earth in the list of names");
    assert!(entry.definition.contains("NASA"), "{entry:?}");
}

#[test]
fn temperatures_added_say_how_they_were_read() {
    check(&[
        (
            "1 K + 1 °C",
            "= 275.15 K (°C after + read as an absolute temperature)",
        ),
        ("20 °C + 5 °C", "= 25 °C (°C after + read as a difference)"),
        ("20 °C - 15 °C", "= 5 Δ°C"),
        ("20 °C + 1 K", "= 21 °C"),
    ]);
    let answer = Calculator::default().evaluate("1 K + 1 °C").unwrap();
    assert_eq!(
        answer.note.as_deref(),
        Some("°C after + read as an absolute temperature")
    );
}

#[test]
fn which_year_a_rate_divides_by() {
    check(&[
        // The year is the Julian year (365.25 d), as the light year's;
        // fend divides by the tropical year. Both can be named.
        (
            "1 kWh/yr to W",
            "≈ 0.114077116130504220853296828656 W (= 500/4383)",
        ),
        (
            "1 kWh/julian year to W",
            "≈ 0.114077116130504220853296828656 W (= 500/4383)",
        ),
        (
            "1 kWh/tropical year to W",
            "≈ 0.114079555449677559612340147962 W (= 12500000/109572657)",
        ),
        ("1 year to days", "= 365.25 days"),
    ]);
}
