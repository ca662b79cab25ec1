//! The photo catalogue (issue 6): SQLite tables with the seed's token
//! search, and a search index for substring, fuzzy and field queries,
//! ranked, checked against a plain reference meaning.
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
//! - [`Catalog`]: the SQLite file, with the seed's tables and search
//!   ([`Catalog::search_seed`]), and the default search through a
//!   [`SearchIndex`] stored beside the files.
//! - [`Placement`]: where the viewer's light table left each card
//!   ([`Catalog::save_placements`]), and named settings.
//!
//! ```
//! use catalog::{Catalog, Mode, parse};
//! let mut cat = Catalog::in_memory()?;
//! let ids = cat.add_files(&[
//!     ("/photos/2019/CuteKittenPicture.jpg", ""),
//!     ("/photos/2019/dog drooly.png", "in the garden"),
//! ])?;
//! // (kitten AND cute) OR (dog AND garden), no PNG.
//! let q = parse("kitten cute OR dog garden -ext:png")?;
//! assert_eq!(cat.search_ranked(&q, Mode::Default, 50)?, [ids[0]]);
//! // Substrings across word boundaries ("tek" in "CuteKitten"), typos.
//! assert_eq!(cat.search(&parse("tek")?, Mode::Default)?, [ids[0]]);
//! assert_eq!(cat.search(&parse("drooley~")?, Mode::Default)?, [ids[1]]);
//! // The seed's own design: its tables and SQL.
//! assert_eq!(cat.search_seed(&parse("kitten -jpg")?)?, Vec::<i64>::new());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod fold;
mod index;
mod keywords;
mod marks;
mod placements;
mod postings;
mod query;
mod rank;
mod recover;
mod store;
mod token;

pub use fold::fold;
pub use index::{IndexBuilder, IndexError, IndexSize, SearchIndex, Source};
pub use keywords::FileWords;
pub use marks::{LABELS, Marks};
pub use placements::Placement;
pub use query::{
    Clause, Document, MAX_DEPTH, Mode, Prepared, Query, QueryError, Scope, Term, extension, parse,
    split_path,
};
pub use recover::{RECOVERED_TABLES, Recovered, TableReport, recover_file};
pub use store::{
    Catalog, CatalogError, Field, FileId, FileRecord, Forgotten, Identity, Moved, NewFile, Outside,
    Presence, Reconcile, Stamp, Vanished, file_key,
};
pub use token::{Token, literal, tokenize, words_as_written};

/// The README's examples, run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
