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

pub(crate) fn physical(name: &str) -> Option<&'static str> {
    PHYSICAL
        .iter()
        .find(|(names, _)| names.contains(&name))
        .map(|(_, value)| *value)
}

/// Every constant name (for suggestions).
pub(crate) fn names() -> impl Iterator<Item = &'static str> {
    ["pi", "π", "e", "tau", "τ", "phi", "φ", "golden_ratio", "i"]
        .into_iter()
        .chain(PHYSICAL.iter().flat_map(|(names, _)| names.iter().copied()))
}
