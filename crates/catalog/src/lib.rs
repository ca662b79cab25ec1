//! The photo catalogue's search (issue 6), first part: the seed's tokenizer
//! and the query language, with the reference semantics every index will
//! be tested against.
//!
//! - [`fold`]: case and accent folding, so `É`, `é` and `e` (in NFC or NFD)
//!   are one letter to the search.
//! - [`tokenize`]: the seed's split of a file name or caption into words:
//!   on separators, on a lower→upper case change (`CuteKittenPicture.jpg` →
//!   cute, kitten, picture, jpg) and on a letter/digit boundary (`IMG1234` →
//!   img, 1234), each word with its position.
//! - [`parse`]: the query language (`cat cute OR dog -drooly "red car"
//!   kiten~ (a OR b)`), with errors that point at the character.
//! - [`Query::matches`]: what a query means for one document, written
//!   plainly. It is the oracle the index's answers are compared with.
//!
//! ```
//! use catalog::parse;
//! // (cat AND cute) OR (dog AND drooly AND NOT png)
//! let q = parse("cat cute OR dog drooly -png")?;
//! assert!(q.matches(&["CuteCat_2019.jpg"]));
//! assert!(!q.matches(&["dog drooly.png"]));
//! assert!(q.matches(&["dog drooly.jpg"]));
//! # Ok::<(), catalog::QueryError>(())
//! ```

mod fold;
mod index;
mod postings;
mod query;
mod store;
mod token;

pub use fold::fold;
pub use index::{IndexBuilder, IndexError, IndexSize, SearchIndex, Source};
pub use query::{
    Clause, Document, Mode, Prepared, Query, QueryError, Scope, Term, extension, parse, split_path,
};
pub use store::{Catalog, CatalogError, Field, FileId, NewFile, Stamp};
pub use token::{Token, tokenize};
