//! The systems the report covers, each at settings a game might pick, plus
//! the per-frame `lerp` that many games write (to show its pitfall).

use signals::{
    Exponential, Hold, OneEuro, RateLimiter, SignalError, SmoothDamp, Smoother, SpringDamper,
    System,
};

/// A factory of fresh systems.
pub type Make = Box<dyn Fn() -> Box<dyn System<f64>>>;

/// The common per-frame `x = lerp(x, g, k)`, ignoring the elapsed time:
/// frame-rate dependent by construction.
#[derive(Debug, Clone, Copy)]
pub struct LerpPerFrame {
    k: f64,
    x: f64,
    v: f64,
}

impl LerpPerFrame {
    pub fn new(k: f64) -> Self {
        LerpPerFrame { k, x: 0.0, v: 0.0 }
    }
}

impl System<f64> for LerpPerFrame {
    fn update(&mut self, dt: f64, target: f64) -> Result<f64, SignalError> {
        if !(dt.is_finite() && dt >= 0.0 && target.is_finite()) {
            return Err(SignalError::NonFiniteInput {
                what: "dt or target",
            });
        }
        let next = self.x + (target - self.x) * self.k;
        self.v = if dt > 0.0 { (next - self.x) / dt } else { 0.0 };
        self.x = next;
        Ok(next)
    }
    fn value(&self) -> f64 {
        self.x
    }
    fn velocity(&self) -> f64 {
        self.v
    }
    fn reset(&mut self, value: f64) -> Result<(), SignalError> {
        if !value.is_finite() {
            return Err(SignalError::NonFiniteInput {
                what: "initial value",
            });
        }
        self.x = value;
        self.v = 0.0;
        Ok(())
    }
}

fn boxed<S: System<f64> + 'static>(f: impl Fn() -> S + 'static) -> Make {
    Box::new(move || Box::new(f()))
}

/// Settings are valid constants: a failure here is a bug in this list.
#[allow(clippy::expect_used)]
pub fn all() -> Vec<(&'static str, Make)> {
    let exp = Exponential::half_life(0.1).expect("valid");
    let critical = SpringDamper::critical(0.2).expect("valid");
    vec![
        (
            "exponential, half-life 0.1 s (ZOH)",
            boxed(move || Smoother::new(exp, 0.0).expect("valid")),
        ),
        (
            "exponential, half-life 0.1 s (FOH)",
            boxed(move || {
                Smoother::new(exp, 0.0)
                    .expect("valid")
                    .with_hold(Hold::FirstOrder)
            }),
        ),
        (
            "critical spring, smooth time 0.2 s (ZOH)",
            boxed(move || Smoother::new(critical, 0.0).expect("valid")),
        ),
        (
            "critical spring, smooth time 0.2 s (FOH)",
            boxed(move || {
                Smoother::new(critical, 0.0)
                    .expect("valid")
                    .with_hold(Hold::FirstOrder)
            }),
        ),
        (
            "engine SmoothDamp, smooth time 0.2 s",
            boxed(|| SmoothDamp::new(0.2, 0.0).expect("valid")),
        ),
        (
            "spring 2 Hz, ζ = 0.4 (FOH)",
            boxed(|| {
                Smoother::new(SpringDamper::frequency_hz(2.0, 0.4).expect("valid"), 0.0)
                    .expect("valid")
                    .with_hold(Hold::FirstOrder)
            }),
        ),
        (
            "Butterworth low-pass 2 Hz (FOH)",
            boxed(|| {
                Smoother::new(SpringDamper::butterworth(2.0).expect("valid"), 0.0)
                    .expect("valid")
                    .with_hold(Hold::FirstOrder)
            }),
        ),
        (
            "tracking spring, ω = 10, ζ = 1 (FOH)",
            boxed(|| {
                Smoother::new(SpringDamper::new(10.0, 1.0).expect("valid").tracking(), 0.0)
                    .expect("valid")
                    .with_hold(Hold::FirstOrder)
            }),
        ),
        (
            "1€, min cutoff 1 Hz, β = 1",
            boxed(|| OneEuro::new(1.0, 1.0, 1.0).expect("valid")),
        ),
        (
            "rate limiter, 4 units/s",
            boxed(|| RateLimiter::new(4.0, 0.0).expect("valid")),
        ),
        ("per-frame lerp, k = 0.1", boxed(|| LerpPerFrame::new(0.1))),
    ]
}
