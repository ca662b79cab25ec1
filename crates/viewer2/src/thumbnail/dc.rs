//! A JPEG at 1/8 scale from its DC coefficients alone.
//!
//! At 1/8 scale each 8×8 block becomes one pixel, its mean, which is its DC
//! coefficient (dequantised, divided by 8, plus 128: libjpeg's 1×1 IDCT).
//! The AC coefficients are still in the stream and must be read, but only
//! to be passed over: none is stored, dequantised or transformed. One
//! lookup on the next 11 bits passes over up to two AC symbols with their
//! magnitude bits, so the chain of dependent table loads that bounds the
//! speed is half as long; the bit buffer is a local of the scan loop, in
//! registers.
//!
//! Baseline and extended sequential 8-bit Huffman JPEGs (what cameras and
//! most software write): grey or YCbCr, sampling factors 1 to 4, restart
//! intervals, one interleaved scan or one scan per component. Anything
//! else (progressive, arithmetic coding, 12 bits, CMYK, RGB-coded) is
//! [`Unsupported`], and the caller uses the general decoder. So is a
//! stream that breaks midway: the general decoder then decides what to
//! show.

use std::io::Read;

use super::{Limits, ThumbError, check_size};

/// Why this decoder declines a file; the caller falls back.
#[derive(Debug)]
pub(crate) enum Declined {
    /// A kind of JPEG this decoder leaves to the general one (named).
    Unsupported(&'static str),
    /// The stream is not as the headers say (named).
    Broken(&'static str),
    /// The full size is refused (over the limits), or reading failed.
    Error(ThumbError),
}

pub(crate) use Declined::Unsupported;

impl From<std::io::Error> for Declined {
    fn from(e: std::io::Error) -> Self {
        Declined::Error(e.into())
    }
}

type Result<T> = std::result::Result<T, Declined>;

/// The 1/8 image: `width × height` RGBA, one pixel per 8×8 block.
#[derive(Debug)]
pub(crate) struct Eighth {
    pub width: u32,
    pub height: u32,
    pub rgba: Vec<u8>,
    /// The image's full size.
    pub full: (u32, u32),
}

/// Bits looked up at once for an AC symbol and its magnitude.
const AC_LOOKUP: u32 = 11;
/// Bits looked up at once for a DC code (and its magnitude bits).
const DC_LOOKUP: u32 = 10;

/// One Huffman table, for decoding (DC) and for passing over (AC).
struct Table {
    /// By the next `DC_LOOKUP` bits: `length << 8 | symbol`, or 0 when the
    /// code is longer.
    fast: Box<[u16; 1 << DC_LOOKUP]>,
    /// By the next `DC_LOOKUP` bits, where a DC code and its magnitude bits
    /// both fit: `bits | magnitude size << 5`; 0 where not.
    whole: Box<[u16; 1 << DC_LOOKUP]>,
    /// By the next `AC_LOOKUP` bits, up to two AC symbols whose codes and
    /// magnitude bits fit: bits to drop and how far each moves along the
    /// block (end of block: 64), `bits₁ | adv₁ << 5 | bits₂ << 12 | adv₂
    /// << 17`, `bits₂` 0 where only one fits; 0 where not even one does.
    /// Two symbols per lookup halve the chain of dependent loads, which is
    /// what bounds the speed.
    skip: Box<[u32; 1 << AC_LOOKUP]>,
    /// Per code length 1..=16: largest code of that length (-1 for none),
    /// and where its symbols start in `symbols` less its first code.
    max_code: [i32; 18],
    offset: [i32; 17],
    symbols: Vec<u8>,
}

impl Table {
    fn new(counts: &[u8; 16], symbols: Vec<u8>) -> Result<Table> {
        let mut max_code = [-1i32; 18];
        let mut offset = [0i32; 17];
        let mut code = 0i32;
        let mut k = 0i32;
        let mut fast = Box::new([0u16; 1 << DC_LOOKUP]);
        let mut whole = Box::new([0u16; 1 << DC_LOOKUP]);
        let mut lengths = Vec::with_capacity(symbols.len());
        for len in 1..=16usize {
            let n = i32::from(counts[len - 1]);
            offset[len] = k - code;
            for _ in 0..n {
                lengths.push((len as u32, code as u32));
                code += 1;
            }
            k += n;
            if n > 0 {
                max_code[len] = code - 1;
            }
            if code > 1 << len {
                return Err(Declined::Broken("a Huffman table with too many codes"));
            }
            code <<= 1;
        }
        // Never matched: ends the slow search.
        max_code[17] = i32::MAX;
        let mut one = vec![0u32; 1 << AC_LOOKUP];
        for (i, &(len, code)) in lengths.iter().enumerate() {
            let symbol = symbols[i];
            if len <= DC_LOOKUP {
                let shift = DC_LOOKUP - len;
                for low in 0..1u32 << shift {
                    fast[((code << shift) | low) as usize] = (len << 8) as u16 | u16::from(symbol);
                }
                let size = u32::from(symbol);
                if len + size <= DC_LOOKUP {
                    for low in 0..1u32 << shift {
                        whole[((code << shift) | low) as usize] = ((len + size) | size << 5) as u16;
                    }
                }
            }
            let (run, size) = (u32::from(symbol >> 4), u32::from(symbol & 15));
            let advance = match (run, size) {
                (0, 0) => 64,
                (15, 0) => 16,
                (_, 0) => 64, // An undefined symbol; ends the block.
                _ => run + 1,
            };
            if len + size <= AC_LOOKUP {
                let shift = AC_LOOKUP - len;
                for low in 0..1u32 << shift {
                    one[((code << shift) | low) as usize] = (len + size) | advance << 5;
                }
            }
        }
        let mut skip = Box::new([0u32; 1 << AC_LOOKUP]);
        for (pattern, (pair, &first)) in skip.iter_mut().zip(&one).enumerate() {
            let (bits, advance) = (first & 31, first >> 5);
            *pair = first;
            if first == 0 || advance >= 64 || bits >= AC_LOOKUP {
                continue;
            }
            // The second symbol must lie wholly in the bits left.
            let second = one[(pattern << bits) & ((1 << AC_LOOKUP) - 1)];
            if second != 0 && second & 31 <= AC_LOOKUP - bits {
                *pair |= second << 12;
            }
        }
        Ok(Table {
            fast,
            whole,
            skip,
            max_code,
            offset,
            symbols,
        })
    }
}

/// One frame component.
#[derive(Clone, Copy)]
struct Component {
    id: u8,
    h: usize,
    v: usize,
    quant: usize,
}

/// The file through a buffer of its own (the bit state of a scan is
/// [`Bits`]).
struct Stream<R> {
    reader: R,
    buf: Vec<u8>,
    pos: usize,
    end: usize,
    /// A marker met inside entropy-coded data: zeros are fed from there.
    marker: Option<u8>,
}

/// The entropy decoder's state, a local of the scan loop so that it lives
/// in registers (written to memory, it made every symbol wait on a store).
#[derive(Clone, Copy)]
struct Bits {
    /// Bits not yet used, most significant first; `n` of them valid.
    acc: u64,
    n: u32,
    /// The next byte of the buffer.
    pos: usize,
}

impl Bits {
    #[inline(always)]
    fn drop(&mut self, n: u32) {
        self.acc <<= n;
        self.n -= n;
    }

    /// `n` bits (at most 16) as a signed coefficient (JPEG's EXTEND).
    #[inline(always)]
    fn receive_extend(&mut self, n: u32) -> i32 {
        if n == 0 {
            return 0;
        }
        let v = (self.acc >> (64 - n)) as i32;
        self.drop(n);
        if v < 1 << (n - 1) {
            v - (1 << n) + 1
        } else {
            v
        }
    }

    /// A Huffman symbol through the slow search (codes longer than the
    /// lookup). Needs at least 16 bits buffered.
    #[inline(never)]
    fn slow_symbol(mut self, t: &Table) -> Result<(Bits, u8)> {
        let mut len = 1;
        let mut code = (self.acc >> 63) as i32;
        while code > t.max_code[len] {
            len += 1;
            code = (self.acc >> (64 - len)) as i32;
        }
        if len > 16 {
            return Err(Declined::Broken("a bad Huffman code"));
        }
        let i = (code + t.offset[len]) as usize;
        let symbol = *t
            .symbols
            .get(i)
            .ok_or(Declined::Broken("a bad Huffman code"))?;
        self.drop(len as u32);
        Ok((self, symbol))
    }
}

const BUFFER: usize = 64 * 1024;

impl<R: Read> Stream<R> {
    /// Refills the buffer, keeping unread bytes; false at the end of the file.
    fn fill(&mut self) -> Result<bool> {
        self.buf.copy_within(self.pos..self.end, 0);
        self.end -= self.pos;
        self.pos = 0;
        loop {
            match self.reader.read(&mut self.buf[self.end..]) {
                Ok(0) => return Ok(false),
                Ok(n) => {
                    self.end += n;
                    return Ok(true);
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e.into()),
            }
        }
    }

    fn byte(&mut self) -> Result<u8> {
        if self.pos == self.end && !self.fill()? {
            return Err(Declined::Broken("the file ends inside a header"));
        }
        self.pos += 1;
        Ok(self.buf[self.pos - 1])
    }

    fn u16(&mut self) -> Result<u16> {
        Ok(u16::from_be_bytes([self.byte()?, self.byte()?]))
    }

    fn skip(&mut self, mut n: usize) -> Result<()> {
        while n > 0 {
            if self.pos == self.end && !self.fill()? {
                return Err(Declined::Broken("the file ends inside a segment"));
            }
            let k = n.min(self.end - self.pos);
            self.pos += k;
            n -= k;
        }
        Ok(())
    }

    /// A segment's body (after its length), whole; segments are small.
    fn segment(&mut self) -> Result<Vec<u8>> {
        let len = usize::from(self.u16()?);
        let len = len
            .checked_sub(2)
            .ok_or(Declined::Broken("a segment shorter than its length field"))?;
        let mut body = Vec::with_capacity(len);
        for _ in 0..len {
            body.push(self.byte()?);
        }
        Ok(body)
    }

    /// Makes sure at least 32 bits are buffered.
    #[inline(always)]
    fn ensure(&mut self, b: &mut Bits) -> Result<()> {
        if b.n < 32 && !self.refill_fast(b) {
            *b = self.refill(*b)?;
        }
        Ok(())
    }

    /// Adds the next whole bytes if the next eight hold no 0xFF (no
    /// stuffing, no marker); false where the careful path must go.
    #[inline(always)]
    fn refill_fast(&self, b: &mut Bits) -> bool {
        let Some(bytes) = self.buf.get(b.pos..b.pos + 8) else {
            return false;
        };
        if self.marker.is_some() || b.pos + 8 > self.end {
            return false;
        }
        let mut word = [0u8; 8];
        word.copy_from_slice(bytes);
        let word = u64::from_be_bytes(word);
        let inverted = !word;
        if inverted.wrapping_sub(0x0101_0101_0101_0101) & !inverted & 0x8080_8080_8080_8080 != 0 {
            return false;
        }
        let n = (64 - b.n) / 8;
        b.acc |= (word & (u64::MAX << (64 - 8 * n))) >> b.n;
        b.n += 8 * n;
        b.pos += n as usize;
        true
    }

    /// Tops the bit buffer up to more than 56 bits, a byte at a time,
    /// stuffing removed. Past a marker, zeros.
    #[inline(never)]
    fn refill(&mut self, mut b: Bits) -> Result<Bits> {
        self.pos = b.pos;
        while b.n <= 56 {
            let byte = self.entropy_byte()?;
            b.acc |= u64::from(byte) << (56 - b.n);
            b.n += 8;
        }
        b.pos = self.pos;
        Ok(b)
    }

    /// The next byte of entropy-coded data, stuffing removed.
    fn entropy_byte(&mut self) -> Result<u8> {
        if self.marker.is_some() {
            return Ok(0);
        }
        if self.pos == self.end && !self.fill()? {
            // Truncated: the general decoder decides what to show.
            return Err(Declined::Broken("the file ends inside the image data"));
        }
        let b = self.buf[self.pos];
        self.pos += 1;
        if b != 0xFF {
            return Ok(b);
        }
        loop {
            if self.pos == self.end && !self.fill()? {
                return Err(Declined::Broken("the file ends inside the image data"));
            }
            let next = self.buf[self.pos];
            self.pos += 1;
            match next {
                0x00 => return Ok(0xFF),
                0xFF => {} // Fill bytes before a marker.
                m => {
                    self.marker = Some(m);
                    return Ok(0);
                }
            }
        }
    }

    /// A DC difference whose code and magnitude are longer than the
    /// lookup.
    #[inline(never)]
    fn dc_slow(&mut self, mut b: Bits, dc: &Table) -> Result<(Bits, i32)> {
        let e = dc.fast[(b.acc >> (64 - DC_LOOKUP)) as usize];
        let size = if e != 0 {
            b.drop(u32::from(e >> 8));
            u32::from(e & 0xFF)
        } else {
            let symbol;
            (b, symbol) = b.slow_symbol(dc)?;
            u32::from(symbol)
        };
        if size > 16 {
            return Err(Declined::Broken("a DC difference of more than 16 bits"));
        }
        self.ensure(&mut b)?;
        let diff = b.receive_extend(size);
        Ok((b, diff))
    }

    /// One block: its DC difference; the AC coefficients passed over.
    #[inline(always)]
    fn block(&mut self, b: &mut Bits, dc: &Table, ac: &Table) -> Result<i32> {
        self.ensure(b)?;
        let e = u32::from(dc.whole[(b.acc >> (64 - DC_LOOKUP)) as usize]);
        let diff = if e != 0 {
            // Code and magnitude in one step.
            let (bits, size) = (e & 31, e >> 5);
            let v = (b.acc >> (64 - bits)) as i32 & ((1 << size) - 1);
            b.drop(bits);
            if size > 0 && v < 1 << (size - 1) {
                v - (1 << size) + 1
            } else {
                v
            }
        } else {
            let diff;
            (*b, diff) = self.dc_slow(*b, dc)?;
            diff
        };
        let mut k = 1;
        while k < 64 {
            self.ensure(b)?;
            let e = ac.skip[(b.acc >> (64 - AC_LOOKUP)) as usize];
            if e != 0 {
                k += (e >> 5 & 127) as usize;
                // The second symbol is this block's only if the first
                // left room: taken without a branch.
                let second = u32::from(k < 64 && e >> 12 != 0);
                k += (second * (e >> 17)) as usize;
                b.drop((e & 31) + second * (e >> 12 & 31));
                continue;
            }
            let rs;
            (*b, rs) = b.slow_symbol(ac)?;
            let (run, size) = (usize::from(rs >> 4), u32::from(rs & 15));
            if size == 0 {
                if run == 15 {
                    k += 16;
                    continue;
                }
                break;
            }
            self.ensure(b)?;
            b.drop(size);
            k += run + 1;
        }
        Ok(diff)
    }

    /// Moves past a restart marker: drops the bits left, then expects
    /// RSTn.
    #[inline(never)]
    fn restart(&mut self, b: Bits) -> Result<Bits> {
        self.pos = b.pos;
        let marker = match self.marker.take() {
            Some(m) => m,
            None => {
                if self.byte()? != 0xFF {
                    return Err(Declined::Broken("data where a restart marker was due"));
                }
                // Fill bytes may come before the marker.
                let mut m = self.byte()?;
                while m == 0xFF {
                    m = self.byte()?;
                }
                m
            }
        };
        if (0xD0..=0xD7).contains(&marker) {
            Ok(Bits {
                acc: 0,
                n: 0,
                pos: self.pos,
            })
        } else {
            Err(Declined::Broken("a marker where a restart marker was due"))
        }
    }
}

/// What the headers before a scan set.
#[derive(Default)]
struct Tables {
    quant: [u16; 4],
    dc: [Option<Table>; 4],
    ac: [Option<Table>; 4],
    restart_interval: usize,
    frame: Option<(u32, u32, Vec<Component>)>,
    adobe_transform: Option<u8>,
}

/// Reads markers up to the next scan and returns its header; `None` at
/// the end of the image.
fn next_scan<R: Read>(
    s: &mut Stream<R>,
    t: &mut Tables,
    limits: Limits,
    covers: &impl Fn(u32, u32) -> bool,
) -> Result<Option<Vec<u8>>> {
    loop {
        // The marker that ended the last scan's data was read already.
        let mut m = match s.marker.take() {
            Some(m) => m,
            None => {
                if s.byte()? != 0xFF {
                    return Err(Declined::Broken("data where a marker was due"));
                }
                s.byte()?
            }
        };
        // Markers may be preceded by fill bytes.
        while m == 0xFF {
            m = s.byte()?;
        }
        match m {
            0xC0 | 0xC1 => {
                if t.frame.is_some() {
                    return Err(Declined::Broken("a second frame header"));
                }
                let (w, h, components) = parse_frame(&s.segment()?)?;
                check_size(w, h, limits).map_err(Declined::Error)?;
                if !covers(w, h) {
                    return Err(Unsupported("1/8 scale is below the target"));
                }
                t.frame = Some((w, h, components));
            }
            0xC2 | 0xC3 | 0xC5..=0xC7 | 0xC9..=0xCB | 0xCD..=0xCF => {
                return Err(Unsupported("not a sequential Huffman JPEG"));
            }
            0xC4 => {
                let body = s.segment()?;
                let mut rest = &body[..];
                while !rest.is_empty() {
                    let (class, id) = (rest[0] >> 4, usize::from(rest[0] & 15));
                    let counts: [u8; 16] = rest
                        .get(1..17)
                        .and_then(|c| c.try_into().ok())
                        .ok_or(Declined::Broken("a short Huffman table"))?;
                    let n: usize = counts.iter().map(|&c| usize::from(c)).sum();
                    let symbols = rest
                        .get(17..17 + n)
                        .ok_or(Declined::Broken("a short Huffman table"))?
                        .to_vec();
                    if id > 3 || class > 1 || n > 256 {
                        return Err(Declined::Broken("a bad Huffman table header"));
                    }
                    let table = Some(Table::new(&counts, symbols)?);
                    if class == 0 {
                        t.dc[id] = table;
                    } else {
                        t.ac[id] = table;
                    }
                    rest = &rest[17 + n..];
                }
            }
            0xDB => {
                let body = s.segment()?;
                let mut rest = &body[..];
                while !rest.is_empty() {
                    let (precision, id) = (rest[0] >> 4, usize::from(rest[0] & 15));
                    let size = if precision == 0 { 64 } else { 128 };
                    let table = rest
                        .get(1..1 + size)
                        .ok_or(Declined::Broken("a short quantisation table"))?;
                    if id > 3 {
                        return Err(Declined::Broken("a quantisation table id over 3"));
                    }
                    t.quant[id] = if precision == 0 {
                        u16::from(table[0])
                    } else {
                        u16::from_be_bytes([table[0], table[1]])
                    };
                    rest = &rest[1 + size..];
                }
            }
            0xDD => {
                let body = s.segment()?;
                let r = body
                    .get(..2)
                    .ok_or(Declined::Broken("a short restart interval"))?;
                t.restart_interval = usize::from(u16::from_be_bytes([r[0], r[1]]));
            }
            0xEE => {
                let body = s.segment()?;
                if body.starts_with(b"Adobe") && body.len() >= 12 {
                    t.adobe_transform = Some(body[11]);
                }
            }
            0xDA => return Ok(Some(s.segment()?)),
            0xD9 => return Ok(None),
            0x01 | 0xD0..=0xD7 => {}
            _ => {
                let len = usize::from(s.u16()?);
                s.skip(
                    len.checked_sub(2)
                        .ok_or(Declined::Broken("a segment shorter than its length field"))?,
                )?;
            }
        }
    }
}

/// Decodes the JPEG `reader` holds at 1/8 scale, if the 1/8 image still
/// covers what `covers(full width, full height)` asks for; otherwise, or
/// for a JPEG it leaves to the general decoder, declines.
pub(crate) fn decode<R: Read>(
    reader: R,
    limits: Limits,
    covers: impl Fn(u32, u32) -> bool,
) -> Result<Eighth> {
    let mut s = Stream {
        reader,
        buf: vec![0u8; BUFFER],
        pos: 0,
        end: 0,
        marker: None,
    };
    if s.byte()? != 0xFF || s.byte()? != 0xD8 {
        return Err(Unsupported("no JPEG signature"));
    }
    let mut t = Tables::default();
    let mut planes: Option<Planes> = None;
    let mut done: Vec<bool> = Vec::new();
    // Scan after scan until every component has been read: usually one
    // scan holds them all, interleaved.
    while let Some(scan) = next_scan(&mut s, &mut t, limits, &covers)? {
        let (width, height, components) = t
            .frame
            .as_ref()
            .ok_or(Declined::Broken("data before the frame"))?;
        if components.len() == 3 {
            let rgb_ids = components.iter().map(|c| c.id).eq(*b"RGB");
            if t.adobe_transform == Some(0) || rgb_ids {
                return Err(Unsupported("RGB-coded colour"));
            }
        }
        let planes = match &mut planes {
            Some(p) => p,
            None => {
                done = vec![false; components.len()];
                planes.insert(new_planes(*width, *height, components)?)
            }
        };
        let count = usize::from(
            *scan
                .first()
                .ok_or(Declined::Broken("an empty scan header"))?,
        );
        if count == 0 || scan.len() < 1 + 2 * count + 3 {
            return Err(Declined::Broken("a short scan header"));
        }
        let mut members = Vec::with_capacity(count);
        for i in 0..count {
            let (id, tables) = (scan[1 + 2 * i], scan[2 + 2 * i]);
            let ci = components
                .iter()
                .position(|c| c.id == id)
                .ok_or(Declined::Broken("a scan names a component the frame lacks"))?;
            if std::mem::replace(&mut done[ci], true) {
                return Err(Declined::Broken("a component scanned twice"));
            }
            let dc = t.dc[usize::from(tables >> 4) & 3].as_ref();
            let ac = t.ac[usize::from(tables & 15) & 3].as_ref();
            let (Some(dc), Some(ac)) = (dc, ac) else {
                return Err(Declined::Broken("a scan names a missing Huffman table"));
            };
            let q = i64::from(t.quant[components[ci].quant]);
            members.push(Member { ci, dc, ac, q });
        }
        let tail = &scan[1 + 2 * count..];
        if (tail[0], tail[1], tail[2]) != (0, 63, 0) {
            return Err(Unsupported("a spectral selection in a sequential scan"));
        }
        decode_scan(
            &mut s,
            *width,
            *height,
            components,
            &members,
            t.restart_interval,
            planes,
        )?;
        if done.iter().all(|&d| d) {
            let (w8, h8) = (width.div_ceil(8), height.div_ceil(8));
            return Ok(Eighth {
                width: w8,
                height: h8,
                rgba: to_rgba(
                    planes,
                    components,
                    (*width, *height),
                    w8 as usize,
                    h8 as usize,
                )?,
                full: (*width, *height),
            });
        }
    }
    Err(Declined::Broken("the image ends before every component"))
}

/// A component of a scan, with its tables.
struct Member<'a> {
    ci: usize,
    dc: &'a Table,
    ac: &'a Table,
    q: i64,
}

fn parse_frame(body: &[u8]) -> Result<(u32, u32, Vec<Component>)> {
    if body.len() < 6 {
        return Err(Declined::Broken("a short frame header"));
    }
    if body[0] != 8 {
        return Err(Unsupported("not 8 bits per sample"));
    }
    let height = u32::from(u16::from_be_bytes([body[1], body[2]]));
    let width = u32::from(u16::from_be_bytes([body[3], body[4]]));
    let n = usize::from(body[5]);
    if n != 1 && n != 3 {
        return Err(Unsupported("neither grey nor three-component colour"));
    }
    if height == 0 {
        return Err(Unsupported("the height comes later (DNL)"));
    }
    let mut components = Vec::with_capacity(n);
    for i in 0..n {
        let c = body
            .get(6 + 3 * i..9 + 3 * i)
            .ok_or(Declined::Broken("a short frame header"))?;
        let (h, v) = (usize::from(c[1] >> 4), usize::from(c[1] & 15));
        if !(1..=4).contains(&h) || !(1..=4).contains(&v) || c[2] > 3 {
            return Err(Declined::Broken("a bad component in the frame header"));
        }
        components.push(Component {
            id: c[0],
            h,
            v,
            quant: usize::from(c[2]),
        });
    }
    if n == 1 {
        // One component is never interleaved: one block per MCU.
        components[0].h = 1;
        components[0].v = 1;
    }
    Ok((width, height, components))
}

/// Each component's block means (level-shifted back to 0..255), on a grid
/// padded to whole MCUs: `(plane, blocks across)`.
type Planes = Vec<(Vec<u8>, usize)>;

/// MCUs across and down.
fn mcus(width: u32, height: u32, components: &[Component]) -> (usize, usize) {
    let hmax = components.iter().map(|c| c.h).max().unwrap_or(1);
    let vmax = components.iter().map(|c| c.v).max().unwrap_or(1);
    (
        (width as usize).div_ceil(8 * hmax),
        (height as usize).div_ceil(8 * vmax),
    )
}

fn new_planes(width: u32, height: u32, components: &[Component]) -> Result<Planes> {
    let (mcus_x, mcus_y) = mcus(width, height, components);
    let mut planes: Planes = Vec::with_capacity(components.len());
    for c in components {
        let across = mcus_x * c.h;
        let n = across * mcus_y * c.v;
        let mut plane = Vec::new();
        plane.try_reserve_exact(n).map_err(|_| {
            Declined::Error(ThumbError::Decode(format!("no memory for {n} blocks")))
        })?;
        plane.resize(n, 0u8);
        planes.push((plane, across));
    }
    Ok(planes)
}

/// libjpeg's 1×1 IDCT: the block's mean, rounded, level-shifted.
#[inline]
fn mean(dc: i32, q: i64) -> u8 {
    (((i64::from(dc) * q + 4) >> 3) + 128).clamp(0, 255) as u8
}

/// One scan into `planes`: interleaved MCUs of its members, or one
/// member's blocks in raster order.
fn decode_scan<R: Read>(
    s: &mut Stream<R>,
    width: u32,
    height: u32,
    components: &[Component],
    members: &[Member],
    restart_interval: usize,
    planes: &mut Planes,
) -> Result<()> {
    let mut b = Bits {
        acc: 0,
        n: 0,
        pos: s.pos,
    };
    let mut predictors = [0i32; 4];
    // Units (MCUs, or blocks of a lone component) left before a restart.
    // (The bit state is passed by value everywhere so that it stays in
    // registers.)
    let mut left = restart_interval;
    macro_rules! next_unit {
        () => {
            if restart_interval > 0 {
                if left == 0 {
                    predictors = [0; 4];
                    left = restart_interval;
                    b = s.restart(b)?;
                }
                left -= 1;
            }
        };
    }
    if let [m] = members {
        // One component alone: its own blocks, whatever the MCU grid.
        let c = components[m.ci];
        let hmax = components.iter().map(|c| c.h).max().unwrap_or(1);
        let vmax = components.iter().map(|c| c.v).max().unwrap_or(1);
        let across = (width as usize * c.h).div_ceil(hmax).div_ceil(8);
        let down = (height as usize * c.v).div_ceil(vmax).div_ceil(8);
        let (plane, stride) = &mut planes[m.ci];
        for y in 0..down {
            let row = &mut plane[y * *stride..y * *stride + across];
            for out in row {
                next_unit!();
                // Wrapping: a corrupt stream may run the sum far off.
                predictors[0] = predictors[0].wrapping_add(s.block(&mut b, m.dc, m.ac)?);
                *out = mean(predictors[0], m.q);
            }
        }
    } else if members
        .iter()
        .all(|m| (components[m.ci].h, components[m.ci].v) == (1, 1))
    {
        // One block of each per MCU (4:4:4): the same place in every plane.
        let (mcus_x, mcus_y) = mcus(width, height, components);
        for my in 0..mcus_y {
            for mx in 0..mcus_x {
                next_unit!();
                for (k, m) in members.iter().enumerate() {
                    let diff = s.block(&mut b, m.dc, m.ac)?;
                    predictors[k] = predictors[k].wrapping_add(diff);
                    let (plane, stride) = &mut planes[m.ci];
                    plane[my * *stride + mx] = mean(predictors[k], m.q);
                }
            }
        }
    } else {
        let (mcus_x, mcus_y) = mcus(width, height, components);
        for my in 0..mcus_y {
            for mx in 0..mcus_x {
                next_unit!();
                for (k, m) in members.iter().enumerate() {
                    let c = components[m.ci];
                    let (plane, stride) = &mut planes[m.ci];
                    for v in 0..c.v {
                        let at = (my * c.v + v) * *stride + mx * c.h;
                        for out in &mut plane[at..at + c.h] {
                            let diff = s.block(&mut b, m.dc, m.ac)?;
                            predictors[k] = predictors[k].wrapping_add(diff);
                            *out = mean(predictors[k], m.q);
                        }
                    }
                }
            }
        }
    }
    s.pos = b.pos;
    Ok(())
}

/// Where each of `out` lines samples a plane `den / num` times coarser
/// with `valid` lines: the two lines around its centre and the second
/// one's weight in 256ths. For half resolution this is libjpeg's "fancy"
/// triangle upsampling (weights ¾ and ¼).
fn lines(out: usize, num: usize, den: usize, valid: usize) -> Vec<(usize, usize, u32)> {
    let last = valid.saturating_sub(1);
    (0..out)
        .map(|x| {
            // In 256ths of a coarse line.
            let centre = ((2 * x + 1) * num * 256 / (2 * den)).saturating_sub(128);
            let i = (centre / 256).min(last);
            let next = (i + 1).min(last);
            let f = if next > i {
                (centre - i * 256) as u32
            } else {
                0
            };
            (i, next, f)
        })
        .collect()
}

/// The planes as one `w × h` RGBA image (the image is `width × height`):
/// chroma interpolated up to the luma grid, then JFIF's YCbCr to RGB, in
/// 16-bit fixed point.
fn to_rgba(
    planes: &Planes,
    components: &[Component],
    (width, height): (u32, u32),
    w: usize,
    h: usize,
) -> Result<Vec<u8>> {
    let mut rgba = Vec::new();
    rgba.try_reserve_exact(w * h * 4)
        .map_err(|_| Declined::Error(ThumbError::Decode(format!("no memory for {w}×{h}"))))?;
    let hmax = components.iter().map(|c| c.h).max().unwrap_or(1);
    let vmax = components.iter().map(|c| c.v).max().unwrap_or(1);
    // Per component: its sampling lines across and down (None where it is
    // on the output's grid), and a row of it on that grid.
    let mut grids = Vec::with_capacity(components.len());
    for c in components {
        let valid_x = (width as usize * c.h).div_ceil(hmax).div_ceil(8).max(1);
        let valid_y = (height as usize * c.v).div_ceil(vmax).div_ceil(8).max(1);
        let full = c.h == hmax && c.v == vmax;
        let across = (!full).then(|| lines(w, c.h, hmax, valid_x));
        let down = (!full).then(|| lines(h, c.v, vmax, valid_y));
        grids.push((across, down, vec![0u32; valid_x], vec![0u8; w]));
    }
    for y in 0..h {
        for (ci, (across, down, coarse, row)) in grids.iter_mut().enumerate() {
            let (plane, stride) = &planes[ci];
            match (across, down) {
                (Some(across), Some(down)) => {
                    let (y0, y1, fy) = down[y];
                    let (r0, r1) = (&plane[y0 * stride..], &plane[y1 * stride..]);
                    for ((v, &a), &b) in coarse.iter_mut().zip(r0).zip(r1) {
                        *v = u32::from(a) * (256 - fy) + u32::from(b) * fy;
                    }
                    for (v, &(x0, x1, fx)) in row.iter_mut().zip(across.iter()) {
                        let blend = coarse[x0] * (256 - fx) + coarse[x1] * fx;
                        *v = ((blend + (1 << 15)) >> 16) as u8;
                    }
                }
                _ => row.copy_from_slice(&plane[y * stride..y * stride + w]),
            }
        }
        if let [(.., luma)] = &grids[..] {
            for &l in luma {
                rgba.extend_from_slice(&[l, l, l, 255]);
            }
            continue;
        }
        let (luma, cb, cr) = (&grids[0].3, &grids[1].3, &grids[2].3);
        for ((&l, &cb), &cr) in luma.iter().zip(cb).zip(cr) {
            let (l, cb, cr) = (i32::from(l), i32::from(cb) - 128, i32::from(cr) - 128);
            // 1.402, 0.344136, 0.714136 and 1.772 in 16 bits.
            let r = l + ((91_881 * cr + (1 << 15)) >> 16);
            let g = l + ((-22_554 * cb - 46_802 * cr + (1 << 15)) >> 16);
            let b = l + ((116_130 * cb + (1 << 15)) >> 16);
            let level = |v: i32| v.clamp(0, 255) as u8;
            rgba.extend_from_slice(&[level(r), level(g), level(b), 255]);
        }
    }
    Ok(rgba)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    //! The 1/8 decode against jpeg-decoder's own 1/8 decode (its scaled
    //! IDCT, the general path), over images, qualities, sampling factors
    //! and restart intervals.

    use super::*;
    use jpeg_encoder::{ColorType, Encoder, SamplingFactor};
    use proptest::prelude::*;

    /// Smooth shading, hard edges and noise, `channels` 1 or 3.
    fn picture(w: u16, h: u16, channels: usize, seed: u32) -> Vec<u8> {
        let mut state = seed | 1;
        let mut out = Vec::with_capacity(usize::from(w) * usize::from(h) * channels);
        for y in 0..u32::from(h) {
            for x in 0..u32::from(w) {
                state ^= state << 13;
                state ^= state >> 17;
                state ^= state << 5;
                for c in 0..channels as u32 {
                    let shade = (x * (3 + c) + y * (5 - c)) % 256;
                    let edge = if (x / 37 + y / 29 + c) % 2 == 0 {
                        40
                    } else {
                        0
                    };
                    let noise = state >> (8 * c) & 15;
                    out.push((shade / 2 + edge + noise).min(255) as u8);
                }
            }
        }
        out
    }

    fn encode(
        pixels: &[u8],
        (w, h): (u16, u16),
        grey: bool,
        quality: u8,
        sampling: SamplingFactor,
        restart: u16,
        progressive: bool,
    ) -> Vec<u8> {
        let mut out = Vec::new();
        let mut e = Encoder::new(&mut out, quality);
        e.set_sampling_factor(sampling);
        if restart > 0 {
            e.set_restart_interval(restart);
        }
        e.set_progressive(progressive);
        let colour = if grey {
            ColorType::Luma
        } else {
            ColorType::Rgb
        };
        e.encode(pixels, w, h, colour).unwrap();
        out
    }

    /// jpeg-decoder at 1/8, as RGBA.
    fn reference(bytes: &[u8]) -> (u32, u32, Vec<u8>) {
        let mut d = jpeg_decoder::Decoder::new(bytes);
        d.read_info().unwrap();
        let info = d.info().unwrap();
        let (w, h) = (info.width.div_ceil(8), info.height.div_ceil(8));
        let (sw, sh) = d.scale(w, h).unwrap();
        assert_eq!((sw, sh), (w, h));
        let pixels = d.decode().unwrap();
        let format = d.info().unwrap().pixel_format;
        (
            u32::from(w),
            u32::from(h),
            super::super::to_rgba(&pixels, format).unwrap(),
        )
    }

    fn ours(bytes: &[u8]) -> Eighth {
        match decode(bytes, Limits::default(), |_, _| true) {
            Ok(e) => e,
            Err(Declined::Unsupported(why) | Declined::Broken(why)) => panic!("declined: {why}"),
            Err(Declined::Error(e)) => panic!("{e}"),
        }
    }

    const SAMPLINGS: [SamplingFactor; 8] = [
        SamplingFactor::F_1_1,
        SamplingFactor::F_2_1,
        SamplingFactor::F_1_2,
        SamplingFactor::F_2_2,
        SamplingFactor::F_4_1,
        SamplingFactor::F_4_2,
        SamplingFactor::F_1_4,
        SamplingFactor::F_2_4,
    ];

    proptest! {
        #![proptest_config(ProptestConfig {
            cases: std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(48),
            ..ProptestConfig::default()
        })]
        #[test]
        fn an_eighth_matches_the_general_decoder(
            w in 1u16..400,
            h in 1u16..300,
            grey in any::<bool>(),
            quality in 30u8..=100,
            sampling in 0usize..SAMPLINGS.len(),
            restart in prop_oneof![Just(0u16), 1u16..40],
            seed in any::<u32>(),
        ) {
            let channels = if grey { 1 } else { 3 };
            let pixels = picture(w, h, channels, seed);
            let bytes = encode(&pixels, (w, h), grey, quality, SAMPLINGS[sampling], restart, false);
            let e = ours(&bytes);
            let (rw, rh, want) = reference(&bytes);
            prop_assert_eq!((e.width, e.height), (rw, rh));
            prop_assert_eq!(e.full, (u32::from(w), u32::from(h)));
            let worst = e.rgba.iter().zip(&want).map(|(a, b)| a.abs_diff(*b)).max().unwrap_or(0);
            if grey {
                // The same 1×1 IDCT, but rounded (as libjpeg does) where
                // jpeg-decoder truncates.
                prop_assert!(worst <= 1, "worst {}", worst);
            } else if sampling == 0 {
                // No chroma upsampling: only rounding, of Y, Cb and Cr (which
                // jpeg-decoder truncates) and of its fixed-point conversion.
                prop_assert!(worst <= 3, "worst {}", worst);
            } else if w >= 64 && h >= 64 {
                // Subsampled chroma has no one right answer at 1/8 (each
                // decoder interpolates its own way): against the true eighth,
                // the block means of a full decode, we are within two levels
                // of the general path's error (on images of 8 × 8 blocks
                // or more, where a mean means something).
                let truth = block_means(&bytes, w, h);
                let error = |a: &[u8]| {
                    let total: u64 = a.iter().zip(&truth).map(|(x, y)| u64::from(x.abs_diff(*y))).sum();
                    total as f64 / truth.len() as f64
                };
                let (ours, general) = (error(&e.rgba), error(&want));
                prop_assert!(ours <= general + 2.0, "ours {} general {}", ours, general);
            }
        }
    }

    /// The 8×8 block means of jpeg-decoder's full-size decode, RGBA.
    fn block_means(bytes: &[u8], w: u16, h: u16) -> Vec<u8> {
        let mut d = jpeg_decoder::Decoder::new(bytes);
        let pixels = d.decode().unwrap();
        let full = super::super::to_rgba(&pixels, d.info().unwrap().pixel_format).unwrap();
        let (w, h) = (usize::from(w), usize::from(h));
        let mut means = Vec::new();
        for by in 0..h.div_ceil(8) {
            for bx in 0..w.div_ceil(8) {
                for c in 0..4 {
                    let (mut total, mut n) = (0usize, 0usize);
                    for y in by * 8..(by * 8 + 8).min(h) {
                        for x in bx * 8..(bx * 8 + 8).min(w) {
                            total += usize::from(full[(y * w + x) * 4 + c]);
                            n += 1;
                        }
                    }
                    means.push(((total + n / 2) / n) as u8);
                }
            }
        }
        means
    }

    proptest! {
        #![proptest_config(ProptestConfig {
            cases: std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(64),
            ..ProptestConfig::default()
        })]
        /// Scribbled files (bytes changed, cut out or cut short, headers
        /// included) give an image or a reason, never a panic or a hang.
        #[test]
        fn scribbled_files_never_panic(
            sampling in 0usize..SAMPLINGS.len(),
            restart in prop_oneof![Just(0u16), 1u16..8],
            edits in proptest::collection::vec((any::<prop::sample::Index>(), any::<u8>(), 0u8..3), 1..12),
            seed in any::<u32>(),
        ) {
            let pixels = picture(96, 64, 3, seed);
            let mut bytes = encode(&pixels, (96, 64), false, 75, SAMPLINGS[sampling], restart, false);
            for (at, value, kind) in edits {
                if bytes.is_empty() {
                    break;
                }
                let i = at.index(bytes.len());
                match kind {
                    0 => bytes[i] = value,
                    1 => {
                        bytes.remove(i);
                    }
                    _ => bytes.truncate(i.max(2)),
                }
            }
            // Whole, and a byte per read (markers at the buffer's end).
            let whole = decode(&bytes[..], Limits::default(), |_, _| true);
            let trickled = decode(Trickle(&bytes), Limits::default(), |_, _| true);
            for e in [whole, trickled].into_iter().flatten() {
                prop_assert_eq!(e.rgba.len(), (e.width * e.height * 4) as usize);
            }
        }
    }

    /// A reader that gives one byte per call, so that every marker meets
    /// the end of the buffer somewhere.
    struct Trickle<'a>(&'a [u8]);

    impl Read for Trickle<'_> {
        fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
            match (self.0.split_first(), out.first_mut()) {
                (Some((&b, rest)), Some(o)) => {
                    *o = b;
                    self.0 = rest;
                    Ok(1)
                }
                _ => Ok(0),
            }
        }
    }

    #[test]
    fn a_file_read_a_byte_at_a_time_decodes_the_same() {
        // One scan per component (factor 4), and restart markers.
        for (sampling, restart) in [(SamplingFactor::F_4_1, 0), (SamplingFactor::F_2_2, 3)] {
            let pixels = picture(200, 120, 3, 11);
            let bytes = encode(&pixels, (200, 120), false, 85, sampling, restart, false);
            let whole = ours(&bytes);
            let trickled = decode(Trickle(&bytes), Limits::default(), |_, _| true);
            let Ok(trickled) = trickled else {
                panic!("{sampling:?}: declined read a byte at a time");
            };
            assert_eq!(trickled.rgba, whole.rgba, "{sampling:?}");
        }
    }

    #[test]
    fn fill_bytes_before_a_restart_marker_are_skipped() {
        let pixels = picture(160, 96, 3, 5);
        let bytes = encode(
            &pixels,
            (160, 96),
            false,
            85,
            SamplingFactor::F_2_2,
            2,
            false,
        );
        // An extra 0xFF before every RSTn, as the standard allows.
        let mut filled = Vec::with_capacity(bytes.len() + 64);
        for (i, &b) in bytes.iter().enumerate() {
            if b == 0xFF && bytes.get(i + 1).is_some_and(|m| (0xD0..=0xD7).contains(m)) {
                filled.push(0xFF);
            }
            filled.push(b);
        }
        assert!(filled.len() > bytes.len(), "the file has restart markers");
        assert_eq!(ours(&filled).rgba, ours(&bytes).rgba);
    }

    #[test]
    fn a_second_frame_header_is_refused() {
        let pixels = picture(64, 48, 3, 2);
        let bytes = encode(
            &pixels,
            (64, 48),
            false,
            85,
            SamplingFactor::F_4_1,
            0,
            false,
        );
        // Repeat the frame header with another size just before the
        // second scan.
        let sof = bytes.windows(2).position(|w| w == [0xFF, 0xC0]).unwrap();
        let len = usize::from(u16::from_be_bytes([bytes[sof + 2], bytes[sof + 3]]));
        let mut frame = bytes[sof..sof + 2 + len].to_vec();
        frame[5..7].copy_from_slice(&480u16.to_be_bytes());
        let scans: Vec<usize> = bytes
            .windows(2)
            .enumerate()
            .filter(|(_, w)| *w == [0xFF, 0xDA])
            .map(|(i, _)| i)
            .collect();
        assert!(scans.len() > 1, "one scan per component");
        let mut twice = bytes[..scans[1]].to_vec();
        twice.extend_from_slice(&frame);
        twice.extend_from_slice(&bytes[scans[1]..]);
        assert!(matches!(
            decode(&twice[..], Limits::default(), |_, _| true),
            Err(Declined::Broken(_))
        ));
    }

    #[test]
    fn progressive_files_are_left_to_the_general_decoder() {
        let pixels = picture(64, 48, 3, 7);
        let bytes = encode(&pixels, (64, 48), false, 90, SamplingFactor::F_2_2, 0, true);
        assert!(matches!(
            decode(&bytes[..], Limits::default(), |_, _| true),
            Err(Declined::Unsupported(_))
        ));
    }

    #[test]
    fn a_truncated_stream_is_declined_not_shown_half_grey() {
        let pixels = picture(256, 256, 3, 9);
        let bytes = encode(
            &pixels,
            (256, 256),
            false,
            90,
            SamplingFactor::F_2_2,
            0,
            false,
        );
        for cut in [bytes.len() / 2, bytes.len() - 40] {
            assert!(matches!(
                decode(&bytes[..cut], Limits::default(), |_, _| true),
                Err(Declined::Broken(_))
            ));
        }
    }

    #[test]
    fn a_target_above_an_eighth_is_declined() {
        let pixels = picture(64, 48, 1, 3);
        let bytes = encode(&pixels, (64, 48), true, 90, SamplingFactor::F_1_1, 0, false);
        assert!(matches!(
            decode(&bytes[..], Limits::default(), |w, h| w / 8 >= 16
                && h / 8 >= 16),
            Err(Declined::Unsupported(_))
        ));
    }
}
