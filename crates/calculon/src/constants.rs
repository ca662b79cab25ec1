//! Named constants: mathematical ones computed at the working precision,
//! physical ones (CODATA 2018, exact where the 2019 SI fixes them) as
//! expressions in units.

/// Mathematical constants.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum MathConstant {
    Pi,
    E,
    Tau,
    Phi,
    I,
}

pub(crate) fn math_constant(name: &str) -> Option<MathConstant> {
    Some(match name {
        "pi" | "π" => MathConstant::Pi,
        "e" => MathConstant::E,
        "tau" | "τ" => MathConstant::Tau,
        "phi" | "φ" | "golden_ratio" => MathConstant::Phi,
        "i" => MathConstant::I,
        _ => return None,
    })
}

/// Physical constants: aliases, then the value as an expression.
pub(crate) const PHYSICAL: &[(&[&str], &str)] = &[
    (&["c", "speed_of_light"], "299792458 m/s"),
    (
        &["electron_charge", "charge_of_electron"],
        "1.602176634e-19 C",
    ),
    (&["G", "gravitational_constant"], "6.67430e-11 m^3/(kg s^2)"),
    (
        &["ℎ", "h_planck", "planck", "planck_constant"],
        "6.62607015e-34 J s",
    ),
    (
        &["ħ", "hbar", "reduced_planck"],
        "6.62607015e-34 J s / (2 pi)",
    ),
    (
        &["k_B", "boltzmann", "boltzmann_constant"],
        "1.380649e-23 J/K",
    ),
    (
        &["N_A", "avogadro", "avogadro_constant"],
        "6.02214076e23 mol^-1",
    ),
    (
        &["R", "gas_constant", "molar_gas_constant"],
        "8.31446261815324 J/(mol K)",
    ),
    (
        &["ε0", "ε_0", "epsilon_0", "eps0", "vacuum_permittivity"],
        "8.8541878128e-12 F/m",
    ),
    (
        &["μ0", "μ_0", "mu_0", "mu0", "vacuum_permeability"],
        "1.25663706212e-6 N/A^2",
    ),
    (
        &["σ_SB", "sigma_SB", "stefan_boltzmann"],
        "5.670374419e-8 W/(m^2 K^4)",
    ),
    (&["α", "alpha_fs", "fine_structure"], "7.2973525693e-3"),
    (&["F_const", "faraday_constant"], "96485.33212 C/mol"),
    (&["R_inf", "rydberg_constant"], "10973731.568160 m^-1"),
    (&["Z_0", "impedance_of_free_space"], "376.730313668 Ω"),
    (&["μ_B", "mu_B", "bohr_magneton"], "9.2740100783e-24 J/T"),
    (&["μ_N", "mu_N", "nuclear_magneton"], "5.0507837461e-27 J/T"),
    (&["G_0", "conductance_quantum"], "7.748091729e-5 S"),
    (&["K_J", "josephson_constant"], "483597.8484e9 Hz/V"),
    (&["Φ_0", "flux_quantum"], "2.067833848e-15 Wb"),
    (&["k_e", "coulomb_constant"], "8.9875517923e9 N m^2/C^2"),
    (&["g_earth", "standard_gravity_constant"], "9.80665 m/s^2"),
    (&["atm_pressure"], "101325 Pa"),
    (&["V_m", "molar_volume"], "22.41396954e-3 m^3/mol"),
    (&["b_wien", "wien"], "2.897771955e-3 m K"),
    (&["r_e", "electron_radius"], "2.8179403262e-15 m"),
    (&["λ_C", "compton_wavelength"], "2.42631023867e-12 m"),
];

/// The planets', the Moon's and the Sun's figures people ask for (`mass of
/// earth`, `radius of moon`, `escape velocity of mars`): NASA's Planetary
/// Fact Sheets (NSSDCA, D. R. Williams; the Sun's radius is the IAU 2015
/// nominal value). Radii are volumetric means.
pub(crate) const BODIES_SOURCE: &str = "NASA planetary fact sheet";

/// Each body's figures: aliases, then the value.
pub(crate) const BODIES: &[(&[&str], &str)] = &[
    (&["sun_mass", "mass_of_sun"], "1.9885e30 kg"),
    (
        &["sun_radius", "radius_of_sun", "mean_radius_of_sun"],
        "695700 km",
    ),
    (
        &["sun_escape_velocity", "escape_velocity_of_sun"],
        "617.6 km/s",
    ),
    (&["mercury_mass", "mass_of_mercury"], "3.3010e23 kg"),
    (
        &[
            "mercury_radius",
            "radius_of_mercury",
            "mean_radius_of_mercury",
        ],
        "2439.7 km",
    ),
    (
        &["mercury_escape_velocity", "escape_velocity_of_mercury"],
        "4.25 km/s",
    ),
    (&["venus_mass", "mass_of_venus"], "4.8673e24 kg"),
    (
        &["venus_radius", "radius_of_venus", "mean_radius_of_venus"],
        "6051.8 km",
    ),
    (
        &["venus_escape_velocity", "escape_velocity_of_venus"],
        "10.36 km/s",
    ),
    (
        &["earth_mass", "mass_of_earth", "mass_of_the_earth"],
        "5.9722e24 kg",
    ),
    (
        &[
            "earth_radius",
            "radius_of_earth",
            "radius_of_the_earth",
            "mean_radius_of_earth",
        ],
        "6371.0 km",
    ),
    (
        &[
            "earth_escape_velocity",
            "escape_velocity_of_earth",
            "escape_velocity_of_the_earth",
        ],
        "11.186 km/s",
    ),
    (
        &["moon_mass", "mass_of_moon", "mass_of_the_moon"],
        "7.346e22 kg",
    ),
    (
        &[
            "moon_radius",
            "radius_of_moon",
            "radius_of_the_moon",
            "mean_radius_of_moon",
        ],
        "1737.4 km",
    ),
    (
        &[
            "moon_escape_velocity",
            "escape_velocity_of_moon",
            "escape_velocity_of_the_moon",
        ],
        "2.38 km/s",
    ),
    (&["mars_mass", "mass_of_mars"], "6.4169e23 kg"),
    (
        &["mars_radius", "radius_of_mars", "mean_radius_of_mars"],
        "3389.5 km",
    ),
    (
        &["mars_escape_velocity", "escape_velocity_of_mars"],
        "5.027 km/s",
    ),
    (&["jupiter_mass", "mass_of_jupiter"], "1.89813e27 kg"),
    (
        &[
            "jupiter_radius",
            "radius_of_jupiter",
            "mean_radius_of_jupiter",
        ],
        "69911 km",
    ),
    (
        &["jupiter_escape_velocity", "escape_velocity_of_jupiter"],
        "59.5 km/s",
    ),
    (&["saturn_mass", "mass_of_saturn"], "5.6832e26 kg"),
    (
        &["saturn_radius", "radius_of_saturn", "mean_radius_of_saturn"],
        "58232 km",
    ),
    (
        &["saturn_escape_velocity", "escape_velocity_of_saturn"],
        "35.5 km/s",
    ),
    (&["uranus_mass", "mass_of_uranus"], "8.6811e25 kg"),
    (
        &["uranus_radius", "radius_of_uranus", "mean_radius_of_uranus"],
        "25362 km",
    ),
    (
        &["uranus_escape_velocity", "escape_velocity_of_uranus"],
        "21.3 km/s",
    ),
    (&["neptune_mass", "mass_of_neptune"], "1.02409e26 kg"),
    (
        &[
            "neptune_radius",
            "radius_of_neptune",
            "mean_radius_of_neptune",
        ],
        "24622 km",
    ),
    (
        &["neptune_escape_velocity", "escape_velocity_of_neptune"],
        "23.5 km/s",
    ),
];

pub(crate) fn physical(name: &str) -> Option<&'static str> {
    PHYSICAL
        .iter()
        .chain(BODIES)
        .find(|(names, _)| names.contains(&name))
        .map(|(_, value)| *value)
}

/// Every constant name (for suggestions).
pub(crate) fn names() -> impl Iterator<Item = &'static str> {
    ["pi", "π", "e", "tau", "τ", "phi", "φ", "golden_ratio", "i"]
        .into_iter()
        .chain(
            PHYSICAL
                .iter()
                .chain(BODIES)
                .flat_map(|(names, _)| names.iter().copied()),
        )
}
