//! calculon: a calculator engine.
#![allow(dead_code)]

mod budget;
mod error;
mod lex;
mod parse;
mod mag;
mod format;
mod real;

pub use budget::{CancelFlag, Stop};
pub use error::{CalcError, ErrorKind, Span};
