//! A PID controller for variable time steps: derivative on the measurement
//! (no kick when the setpoint jumps), anti-windup, output limits.

use crate::error::{SignalError, check_dt, check_positive};
use crate::math;

/// How the integral is kept from winding up while the output is saturated.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub enum AntiWindup {
    /// No protection beyond the integral limits.
    None,
    /// Conditional integration: the integral does not grow while the output
    /// is saturated and the error pushes it further into saturation.
    #[default]
    Clamp,
    /// Back-calculation: the integral is bled by `(output − unsaturated) / tracking_time`.
    BackCalculation {
        /// Seconds; around √(Ti·Td), or Ti for a PI controller.
        tracking_time: f64,
    },
}

/// The gains and limits of a [`Pid`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PidConfig {
    /// Proportional gain.
    pub kp: f64,
    /// Integral gain, per second.
    pub ki: f64,
    /// Derivative gain, seconds.
    pub kd: f64,
    /// Output limits `(min, max)`.
    pub output_limits: (f64, f64),
    /// Limits of the integral term alone (in output units).
    pub integral_limits: (f64, f64),
    /// Time constant of a first-order filter on the derivative, seconds;
    /// 0 for none. Measurement noise is amplified by kd/dt without it.
    pub derivative_filter: f64,
    /// The anti-windup rule.
    pub anti_windup: AntiWindup,
}

impl Default for PidConfig {
    fn default() -> Self {
        PidConfig {
            kp: 1.0,
            ki: 0.0,
            kd: 0.0,
            output_limits: (f64::NEG_INFINITY, f64::INFINITY),
            integral_limits: (f64::NEG_INFINITY, f64::INFINITY),
            derivative_filter: 0.0,
            anti_windup: AntiWindup::Clamp,
        }
    }
}

/// One step's output and its parts.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct PidOutput {
    /// The control output, within the output limits.
    pub output: f64,
    /// Proportional term.
    pub p: f64,
    /// Integral term.
    pub i: f64,
    /// Derivative term.
    pub d: f64,
    /// Whether the output limits cut the sum.
    pub saturated: bool,
}

/// A PID controller. The integral is stored in output units (ki already
/// applied), so changing `ki` between steps does not bump the output.
#[derive(Debug, Clone, Copy)]
pub struct Pid {
    config: PidConfig,
    integral: f64,
    prev_measurement: Option<f64>,
    derivative: f64,
    /// The last dt and 1/dt: a fixed-step loop divides once.
    inv_dt: (f64, f64),
}

impl Pid {
    /// A controller; errors name the first invalid gain or limit.
    pub fn new(config: PidConfig) -> Result<Self, SignalError> {
        for (name, v) in [
            ("kp", config.kp),
            ("ki", config.ki),
            ("kd", config.kd),
            ("derivative_filter", config.derivative_filter),
        ] {
            if !v.is_finite() {
                return Err(SignalError::InvalidParameter {
                    name,
                    value: v,
                    expected: "finite",
                });
            }
        }
        if config.derivative_filter < 0.0 {
            return Err(SignalError::InvalidParameter {
                name: "derivative_filter",
                value: config.derivative_filter,
                expected: ">= 0",
            });
        }
        for (name, (lo, hi)) in [
            ("output_limits", config.output_limits),
            ("integral_limits", config.integral_limits),
        ] {
            if lo.is_nan() || hi.is_nan() || lo > hi {
                return Err(SignalError::InvalidParameter {
                    name,
                    value: lo,
                    expected: "min <= max, not NaN",
                });
            }
        }
        if let AntiWindup::BackCalculation { tracking_time } = config.anti_windup {
            check_positive("tracking_time", tracking_time)?;
        }
        Ok(Pid {
            config,
            integral: 0.0,
            prev_measurement: None,
            derivative: 0.0,
            inv_dt: (0.0, 0.0),
        })
    }

    /// The configuration.
    pub fn config(&self) -> &PidConfig {
        &self.config
    }

    /// The integral term now.
    pub fn integral(&self) -> f64 {
        self.integral
    }

    /// Forgets the integral and the previous measurement.
    pub fn reset(&mut self) {
        self.integral = 0.0;
        self.prev_measurement = None;
        self.derivative = 0.0;
    }

    /// One control step of `dt` seconds. With `dt = 0` the integral and the
    /// derivative hold and only the proportional term follows the error.
    #[inline(always)]
    pub fn update(
        &mut self,
        dt: f64,
        setpoint: f64,
        measurement: f64,
    ) -> Result<PidOutput, SignalError> {
        check_dt(dt)?;
        if !setpoint.is_finite() {
            return Err(SignalError::NonFiniteInput { what: "setpoint" });
        }
        if !measurement.is_finite() {
            return Err(SignalError::NonFiniteInput {
                what: "measurement",
            });
        }
        let c = &self.config;
        let error = setpoint - measurement;
        let p = c.kp * error;

        let mut derivative = self.derivative;
        if dt > 0.0
            && let Some(prev) = self.prev_measurement
        {
            // On the measurement: a setpoint jump gives no derivative kick.
            if self.inv_dt.0.to_bits() != dt.to_bits() {
                self.inv_dt = (dt, 1.0 / dt);
            }
            let raw = -(measurement - prev) * self.inv_dt.1;
            derivative = if c.derivative_filter > 0.0 {
                let k = -math::exp_m1(-dt / c.derivative_filter);
                derivative + (raw - derivative) * k
            } else {
                raw
            };
        }
        let d = c.kd * derivative;

        let (lo, hi) = c.output_limits;
        let (ilo, ihi) = c.integral_limits;
        let clamp_i = |i: f64| i.max(ilo).min(ihi);
        let mut integral = clamp_i(self.integral + c.ki * error * dt);
        let unsaturated = p + integral + d;
        let mut output = unsaturated.max(lo).min(hi);
        match c.anti_windup {
            AntiWindup::None => {}
            AntiWindup::Clamp => {
                let pushing_up = unsaturated > hi && c.ki * error > 0.0;
                let pushing_down = unsaturated < lo && c.ki * error < 0.0;
                if pushing_up || pushing_down {
                    integral = self.integral;
                    output = (p + integral + d).max(lo).min(hi);
                }
            }
            AntiWindup::BackCalculation { tracking_time } => {
                integral = clamp_i(integral + (output - unsaturated) * dt / tracking_time);
                output = (p + integral + d).max(lo).min(hi);
            }
        }
        let sum = p + integral + d;
        // One test for all: an infinite term makes the sum infinite or NaN.
        if !(sum + output).is_finite() {
            return Err(SignalError::NonFiniteInput {
                what: "measurement (the control terms overflow)",
            });
        }
        self.integral = integral;
        self.derivative = derivative;
        if dt > 0.0 || self.prev_measurement.is_none() {
            self.prev_measurement = Some(measurement);
        }
        Ok(PidOutput {
            output,
            p,
            i: integral,
            d,
            saturated: output != sum,
        })
    }
}
