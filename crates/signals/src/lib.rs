//! Systems that turn jumpy game signals (teleports, target switches, bursty
//! server updates, health that jumps, noisy hands) into smooth output, and
//! the analysis that shows how each behaves.
//!
//! Every system takes the elapsed time of each step and is exact where a
//! closed form exists: the linear ones ([`Exponential`], [`SpringDamper`] at
//! any damping ratio, the second-order low-pass, the tracking spring) give
//! the same output whether a second is stepped once or in a thousand
//! uneven pieces, under zero- or first-order [`Hold`].
//!
//! Discrete signals — buttons from analog values and sticks, debounced
//! bools, lock-on choices, gestures, rate-limited modes — are the
//! [`discrete`] systems ([`Discrete`]), decided by time and not by frames;
//! [`Inertialiser`] carries a continuous signal across its jumps.
//!
//! ```
//! use signals::{Hold, Smoother, SpringDamper, System};
//!
//! // The engines' "smooth damp", stepped exactly: frame-rate independent.
//! let spring = SpringDamper::critical(0.3)?;
//! let mut camera = Smoother::new(spring, [0.0f32, 0.0])?.with_hold(Hold::FirstOrder);
//! for _ in 0..60 {
//!     camera.update(1.0 / 60.0, [10.0, 5.0])?;
//! }
//! let [x, _] = camera.value();
//! assert!(x > 9.0 && x < 10.0);
//! # Ok::<(), signals::SignalError>(())
//! ```
//!
//! Values are anything with a [`Space`]: `f32`, `f64`, arrays `[F; N]`,
//! wrapping [`Angle`]s and 3-D [`Rotation`]s (smoothed in the tangent space,
//! the short way round). Without the default `std` feature the crate is
//! `no_std` (with `alloc`) and takes its math from `libm` (feature `libm`).
#![cfg_attr(not(feature = "std"), no_std)]

extern crate alloc;

#[cfg(feature = "std")]
pub mod analysis;
mod batch;
pub mod discrete;
mod error;
mod exponential;
mod inertialise;
mod interpolate;
mod limit;
mod math;
mod one_euro;
mod pid;
mod smooth_damp;
mod smoother;
mod snapshot;
mod space;
mod spring;
mod system;

pub use batch::{Batch, step_first_order, step_second_order};
pub use discrete::{
    Debounce, Discrete, DiscreteBatch, Dwell, Edge, GestureEvents, GestureTimings, Gestures,
    Hysteresis, ModeLimiter, Stick, StickDirection, StickRule, WhileCooling,
};
pub use error::SignalError;
pub use exponential::Exponential;
pub use inertialise::Inertialiser;
pub use interpolate::{catmull_rom, catmull_rom_timed, hermite, interpolate, lerp};
pub use limit::{Backlash, RateLimiter, dead_zone, dead_zone_radial};
pub use math::Float;
pub use one_euro::OneEuro;
pub use pid::{AntiWindup, Pid, PidConfig, PidOutput};
pub use smooth_damp::SmoothDamp;
pub use smoother::{Dynamics, Smoother, Transition};
pub use snapshot::{PushOutcome, SnapshotBuffer, SnapshotConfig, SnapshotStats};
pub use space::{Angle, Rotation, Space, Vector};
pub use spring::SpringDamper;
pub use system::{Hold, System};

/// The README's examples, compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
