//! How a JPEG file ends, without decoding it.

use std::io::BufRead;

/// How a JPEG file ends.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum JpegEnd {
    /// Its end-of-image marker comes after at least one scan.
    Complete,
    /// The file ends early: a download or copy cut short.
    Truncated {
        /// Bytes read before the end.
        after: u64,
        /// Where it ended: "inside a segment", "in the first scan of image
        /// data", ...
        place: &'static str,
    },
    /// The structure is broken before its end (left to the decoder).
    Malformed {
        /// The byte offset.
        at: u64,
        /// What was wrong.
        what: &'static str,
    },
}

impl std::fmt::Display for JpegEnd {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            JpegEnd::Complete => f.write_str("complete"),
            JpegEnd::Truncated { after, place } => {
                write!(f, "it ends after {after} bytes, {place}")
            }
            JpegEnd::Malformed { at, what } => write!(f, "{what} at byte {at}"),
        }
    }
}

fn byte(r: &mut impl BufRead, at: &mut u64) -> std::io::Result<Option<u8>> {
    let b = match r.fill_buf()?.first() {
        Some(&b) => b,
        None => return Ok(None),
    };
    r.consume(1);
    *at += 1;
    Ok(Some(b))
}

/// The next byte that is not a fill byte (0xFF) after a 0xFF.
fn marker_code(r: &mut impl BufRead, at: &mut u64) -> std::io::Result<Option<u8>> {
    let mut code = byte(r, at)?;
    while code == Some(0xFF) {
        code = byte(r, at)?;
    }
    Ok(code)
}

/// Walks a JPEG's segments and entropy-coded scans to its end-of-image
/// marker, reading every byte once and keeping none: how it ends. Bytes
/// after the end-of-image marker are not read (many files carry some).
pub fn jpeg_end(r: &mut impl BufRead) -> std::io::Result<JpegEnd> {
    let mut at: u64 = 0;
    let cut = |after: u64, place: &'static str| Ok(JpegEnd::Truncated { after, place });
    match (byte(r, &mut at)?, byte(r, &mut at)?) {
        (Some(0xFF), Some(0xD8)) => {}
        (Some(0xFF), None) | (None, _) => return cut(at, "before its start-of-image marker"),
        _ => {
            return Ok(JpegEnd::Malformed {
                at: 0,
                what: "no start-of-image marker",
            });
        }
    }
    let mut scans = 0u32;
    // A marker found at the end of a scan, to be read next.
    let mut pending: Option<u8> = None;
    loop {
        let marker = match pending.take() {
            Some(m) => m,
            None => match byte(r, &mut at)? {
                Some(0xFF) => match marker_code(r, &mut at)? {
                    Some(c) => c,
                    None => return cut(at, "inside a marker"),
                },
                // Stray bytes between segments: decoders look on for the
                // next marker, and so does this.
                Some(_) => continue,
                None if scans == 0 => return cut(at, "before any image data"),
                None => return cut(at, "before its end-of-image marker"),
            },
        };
        match marker {
            0xD9 if scans > 0 => return Ok(JpegEnd::Complete),
            0xD9 => {
                return Ok(JpegEnd::Malformed {
                    at,
                    what: "an end-of-image marker before any scan",
                });
            }
            // Markers without a length.
            0x00 | 0x01 | 0xD0..=0xD7 => continue,
            _ => {}
        }
        let (Some(hi), Some(lo)) = (byte(r, &mut at)?, byte(r, &mut at)?) else {
            return cut(at, "inside a segment's length");
        };
        let len = u64::from(u16::from_be_bytes([hi, lo]));
        if len < 2 {
            return Ok(JpegEnd::Malformed {
                at,
                what: "a segment shorter than its own length field",
            });
        }
        let skipped = std::io::copy(
            &mut std::io::Read::take(&mut *r, len - 2),
            &mut std::io::sink(),
        )?;
        at += skipped;
        if skipped < len - 2 {
            return cut(
                at,
                if scans == 0 && marker != 0xDA {
                    "inside a segment before any image data"
                } else {
                    "inside a segment"
                },
            );
        }
        if marker != 0xDA {
            continue;
        }
        // Entropy-coded data runs to the first marker that is neither a
        // stuffed zero nor a restart.
        scans += 1;
        loop {
            let buf = r.fill_buf()?;
            if buf.is_empty() {
                return cut(
                    at,
                    if scans == 1 {
                        "in the first scan of image data"
                    } else {
                        "in a later scan of image data"
                    },
                );
            }
            let Some(ff) = buf.iter().position(|&b| b == 0xFF) else {
                let n = buf.len();
                r.consume(n);
                at += n as u64;
                continue;
            };
            r.consume(ff + 1);
            at += ff as u64 + 1;
            match marker_code(r, &mut at)? {
                None => return cut(at, "in a scan of image data"),
                Some(0x00 | 0xD0..=0xD7) => {}
                Some(c) => {
                    pending = Some(c);
                    break;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use proptest::prelude::*;

    /// A small JPEG's structure: SOI, a segment, SOS with entropy data
    /// holding stuffed zeros and a restart, EOI.
    fn sample() -> Vec<u8> {
        let mut b = vec![0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x06, 1, 2, 3, 4];
        b.extend_from_slice(&[0xFF, 0xDA, 0x00, 0x04, 9, 9]);
        b.extend_from_slice(&[1, 2, 0xFF, 0x00, 3, 0xFF, 0xD0, 4, 5, 0xFF, 0xFF, 0x00, 6]);
        b.extend_from_slice(&[0xFF, 0xD9]);
        b
    }

    #[test]
    fn a_whole_file_is_complete_with_anything_after_it() {
        let mut b = sample();
        assert_eq!(jpeg_end(&mut &b[..]).unwrap(), JpegEnd::Complete);
        b.extend_from_slice(b"trailing junk \xFF\x00");
        assert_eq!(jpeg_end(&mut &b[..]).unwrap(), JpegEnd::Complete);
    }

    proptest! {
        /// Every cut of the file short of its last byte is truncated, and
        /// says after how many bytes.
        #[test]
        fn every_cut_is_truncated(cut in 0usize..30) {
            let b = sample();
            let cut = cut.min(b.len() - 1);
            match jpeg_end(&mut &b[..cut]).unwrap() {
                JpegEnd::Truncated { after, .. } => prop_assert_eq!(after, cut as u64),
                other => prop_assert!(false, "{cut}: {other:?}"),
            }
        }

        /// Random bytes never panic nor loop.
        #[test]
        fn any_bytes_end_somehow(mut b in prop::collection::vec(any::<u8>(), 0..300)) {
            b.splice(0..0, [0xFF, 0xD8]);
            let _ = jpeg_end(&mut &b[..]).unwrap();
        }
    }
}
