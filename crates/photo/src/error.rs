//! The one error type.

/// Why a photo file could not be opened or decoded.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum PhotoError {
    /// Reading failed.
    #[error("cannot read: {0}")]
    Io(#[from] std::io::Error),
    /// Not a regular file: a folder, a device, a FIFO or a socket.
    #[error("{what}, not a photo file")]
    NotAFile {
        /// "a folder", "a device", "a FIFO (named pipe)", "a socket".
        what: &'static str,
    },
    /// A file bigger than the caller reads.
    #[error("the file is {size} bytes, more than the {limit} read")]
    FileTooLarge {
        /// Its size.
        size: u64,
        /// The most read.
        limit: u64,
    },
    /// A header giving no pixels.
    #[error("the header gives a {width}×{height} image")]
    Empty {
        /// The width given.
        width: u32,
        /// The height given.
        height: u32,
    },
    /// A header promising more pixels than allowed.
    #[error(
        "{width}×{height} is over the limit of {max_side} pixels a side and {max_pixels} pixels in all"
    )]
    TooLarge {
        /// The width given.
        width: u32,
        /// The height given.
        height: u32,
        /// The longest side allowed.
        max_side: u32,
        /// The most pixels allowed.
        max_pixels: u64,
    },
    /// The decoder found the data broken.
    #[error("{format}: {detail}")]
    Corrupt {
        /// "PNG", "JPEG".
        format: &'static str,
        /// What the decoder said.
        detail: String,
    },
    /// A buffer the image needs could not be had.
    #[error("out of memory: {bytes} bytes for the pixels could not be had")]
    OutOfMemory {
        /// Its size.
        bytes: u64,
    },
    /// The memory a decode needs is more than its budget allows at all.
    #[error("decoding needs about {needs} MB, more than the {budget} MB allowed for decoding")]
    OverBudget {
        /// Megabytes needed.
        needs: u64,
        /// Megabytes the budget holds.
        budget: u64,
    },
}
