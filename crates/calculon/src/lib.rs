//! calculon: a calculator engine.
#![allow(dead_code)]

mod budget;
mod complex;
mod constants;
mod error;
mod eval;
mod format;
mod functions;
mod lex;
mod mag;
mod parse;
mod plot;
mod quantity;
mod real;
mod units;

pub use budget::{CancelFlag, Stop};
pub use error::{CalcError, ErrorKind, Span};
pub use eval::{Answer, AnswerKind, Calculator, Column, MAX_DIGITS, PlotRequest, Settings};
pub use format::Radix;
pub use plot::{Graph, sample};
