//! The one writer of proof lines: text and binary DRAT and binary LRAT additions and
//! deletions, kept in memory or handed to a [`ChunkSink`] in chunks of whole steps.
//!
//! The backtracker writes every lemma of its refutations through `Writer`; the SAT
//! engine's DRAT bytes are varisat's own, and the one line the product adds to them (the
//! empty clause varisat leaves out when loading the formula already refutes it) is
//! `empty_clause`. The LRAT that [`super::drat_to_lrat`] and [`super::check_and_write`]
//! produce is written by those two as they check.

use std::io;
use std::sync::atomic::{AtomicU64, Ordering};

use super::lrat::{put_varint, ChunkSink};

/// How a DRAT proof is written: text, or binary (`a`/`d`, LEB128 literals).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DratStyle {
    /// `-3 -17 0` lines, `d -3 -17 0` deletions.
    Text,
    /// The binary DRAT format drat-trim reads.
    Binary,
}

/// The lines a [`Writer`] writes: the [`DratStyle`]s, and binary LRAT.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Style {
    /// Text DRAT.
    Text,
    /// Binary DRAT.
    Binary,
    /// Binary LRAT: `a`, id, literals, 0, hints, 0; `d`, ids, 0.
    Lrat,
}

impl From<DratStyle> for Style {
    fn from(style: DratStyle) -> Style {
        match style {
            DratStyle::Text => Style::Text,
            DratStyle::Binary => Style::Binary,
        }
    }
}

/// Appends the bytes of literal `var` or `-var`: `-3 ` in text, the LEB128 varint of
/// `2 * var + negative` in binary DRAT and LRAT.
pub fn put_lit(out: &mut Vec<u8>, var: u64, negative: bool, binary: bool) {
    if binary {
        put_varint(out, 2 * var + u64::from(negative));
    } else {
        let sign = if negative { "-" } else { "" };
        out.extend_from_slice(format!("{sign}{var} ").as_bytes());
    }
}

/// A proof that is the empty clause alone, for a formula refuted before any search: `0\n`
/// in text DRAT, `a\0` in binary.
pub fn empty_clause(style: DratStyle) -> Vec<u8> {
    let mut w = Writer::new(style.into());
    let start = w.begin_lemma();
    w.end_lemma(start, &[]);
    w.out
}

/// Proof lines, one lemma at a time: DRAT (text or binary) kept in memory, or binary LRAT,
/// which goes to a [`ChunkSink`] in chunks as it is written.
///
/// A lemma is [`Writer::begin_lemma`], its literals appended to [`Writer::out`] by the
/// caller (from bytes it made once with [`put_lit`]: the backtracker's lemmas are a few
/// copies of cached bytes each), then [`Writer::end_lemma`]. DRAT deletes a lemma by
/// copying its bytes ([`Writer::delete`]), LRAT by id ([`Writer::delete_ids`]).
pub struct Writer<'w> {
    /// The lines not yet handed to the sink (all of them without one).
    pub out: Vec<u8>,
    style: Style,
    /// Lemmas added.
    pub lemmas: u64,
    /// Lemmas deleted.
    pub deletions: u64,
    /// Where the last lemma added is in `out` (LRAT: its id, 0).
    pub last: (usize, usize),
    /// LRAT: where `out` goes once it holds `FLUSH_BYTES` (`None`: it stays in memory).
    pub sink: Option<&'w dyn ChunkSink>,
    /// LRAT: bytes already handed to `sink`.
    pub flushed: u64,
    /// LRAT: lemma ids.
    ids: IdPool<'w>,
    /// LRAT: an error from `sink`.
    pub error: Option<io::Error>,
}

/// LRAT bytes kept in memory before they go to the sink.
const FLUSH_BYTES: usize = 1 << 20;

/// Fresh lemma ids a thread takes from the shared counter at a time.
const ID_BLOCK: u64 = 64;

/// One thread's lemma ids: those of lemmas it deleted first (last deleted, first reused),
/// else fresh ones from a block taken from the counter all threads share. An id is thus
/// never the id of a live clause, and ids stay about as large as the number of live
/// lemmas (one path's worth per thread), not the number of lemmas.
#[derive(Default)]
struct IdPool<'w> {
    fresh: Option<&'w AtomicU64>,
    next: u64,
    end: u64,
    free: Vec<u64>,
}

impl IdPool<'_> {
    #[inline]
    fn take(&mut self) -> u64 {
        if let Some(id) = self.free.pop() {
            return id;
        }
        if self.next == self.end {
            let start = self
                .fresh
                .map_or(self.end, |f| f.fetch_add(ID_BLOCK, Ordering::Relaxed));
            self.next = start;
            self.end = start + ID_BLOCK;
        }
        self.next += 1;
        self.next - 1
    }
}

impl<'w> Writer<'w> {
    /// An empty writer of `style` lines, in memory.
    pub fn new(style: Style) -> Self {
        Writer {
            out: Vec::new(),
            style,
            lemmas: 0,
            deletions: 0,
            last: (0, 0),
            sink: None,
            flushed: 0,
            ids: IdPool::default(),
            error: None,
        }
    }

    /// This writer with LRAT ids taken in blocks from `next_id`, the first id no writer
    /// has taken yet (shared by the writers of one proof).
    pub fn numbered(mut self, next_id: &'w AtomicU64) -> Self {
        self.ids.fresh = Some(next_id);
        self
    }

    /// Deletes a lemma written before, at `start..end` of the proof: the same literals
    /// after a `d`, copied. (LRAT deletes by id: [`Writer::delete_ids`].)
    #[inline]
    pub fn delete(&mut self, (start, end): (usize, usize)) {
        self.deletions += 1;
        match self.style {
            Style::Text => self.out.extend_from_slice(b"d "),
            // Past the lemma's `a`.
            Style::Binary => self.out.push(b'd'),
            Style::Lrat => unreachable!("LRAT deletes by id"),
        }
        let from = if self.style == Style::Binary {
            start + 1
        } else {
            start
        };
        self.out.extend_from_within(from..end);
    }

    /// LRAT: one deletion step for these lemma ids, which become free for reuse.
    #[inline]
    pub fn delete_ids(&mut self, ids: impl Iterator<Item = u64>) {
        let start = self.out.len();
        self.out.push(b'd');
        for id in ids {
            put_varint(&mut self.out, 2 * id);
            self.ids.free.push(id);
            self.deletions += 1;
        }
        if self.out.len() > start + 1 {
            self.out.push(0);
        } else {
            self.out.truncate(start);
        }
    }

    /// Starts a lemma (binary DRAT's `a`, binary LRAT's `a` and id); returns where it
    /// starts. Its literals are written into `out` directly, then [`Writer::end_lemma`]
    /// closes it.
    #[inline]
    pub fn begin_lemma(&mut self) -> usize {
        let start = self.out.len();
        match self.style {
            Style::Binary => self.out.push(b'a'),
            Style::Lrat => {
                let id = self.ids.take();
                self.out.push(b'a');
                put_varint(&mut self.out, 2 * id);
                self.last = (id as usize, 0);
            }
            Style::Text => {}
        }
        start
    }

    /// Closes the lemma begun at `start` (its terminating 0; LRAT: and its hints) and
    /// remembers where it is.
    #[inline]
    pub fn end_lemma(&mut self, start: usize, hints: &[u64]) {
        match self.style {
            Style::Text => self.out.extend_from_slice(b"0\n"),
            Style::Binary => self.out.push(0),
            Style::Lrat => {
                self.out.push(0);
                for &h in hints {
                    put_varint(&mut self.out, 2 * h);
                }
                self.out.push(0);
                self.lemmas += 1;
                return;
            }
        }
        self.lemmas += 1;
        self.last = (start, self.out.len());
    }

    /// LRAT: bytes written so far, flushed or not.
    #[inline]
    pub fn position(&self) -> u64 {
        self.flushed + self.out.len() as u64
    }

    /// LRAT: moves `out` to the sink once it is large; false after a write error.
    #[inline]
    pub fn maybe_flush(&mut self) -> bool {
        if self.out.len() >= FLUSH_BYTES {
            self.flush();
        }
        self.error.is_none()
    }

    /// Hands `out` to the sink, if there is one (an error is kept in `error`).
    pub fn flush(&mut self) {
        let Some(sink) = self.sink else {
            return;
        };
        let len = self.out.len() as u64;
        if self.error.is_none() && len > 0 {
            if let Err(e) = sink.send(&mut self.out) {
                self.error = Some(e);
            }
        }
        self.flushed += len;
        self.out.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literals_are_text_or_leb128() {
        let mut out = Vec::new();
        put_lit(&mut out, 3, true, false);
        put_lit(&mut out, 17, false, false);
        assert_eq!(out, b"-3 17 ");
        out.clear();
        // 2 * 3 + 1 = 7; 2 * 100 = 200 = 0xc8 → 0xc8 0x01.
        put_lit(&mut out, 3, true, true);
        put_lit(&mut out, 100, false, true);
        assert_eq!(out, [7, 0xc8, 0x01]);
    }

    #[test]
    fn the_empty_clause_alone() {
        assert_eq!(empty_clause(DratStyle::Text), b"0\n");
        assert_eq!(empty_clause(DratStyle::Binary), b"a\0");
    }

    #[test]
    fn drat_deletions_copy_the_lemma() {
        for (style, want) in [
            (Style::Text, &b"-1 -2 0\nd -1 -2 0\n"[..]),
            (Style::Binary, &b"a\x03\x05\0d\x03\x05\0"[..]),
        ] {
            let mut w = Writer::new(style);
            let start = w.begin_lemma();
            put_lit(&mut w.out, 1, true, style == Style::Binary);
            put_lit(&mut w.out, 2, true, style == Style::Binary);
            w.end_lemma(start, &[]);
            w.delete(w.last);
            assert_eq!(w.out, want);
            assert_eq!((w.lemmas, w.deletions), (1, 1));
        }
    }

    #[test]
    fn lrat_ids_are_reused_once_deleted() {
        let next = AtomicU64::new(10);
        let mut w = Writer::new(Style::Lrat).numbered(&next);
        let start = w.begin_lemma();
        put_lit(&mut w.out, 1, true, true);
        w.end_lemma(start, &[4, 5]);
        let first = w.last.0 as u64;
        assert_eq!(first, 10);
        // a, id 10, literal -1, 0, hints 4 5, 0.
        assert_eq!(w.out, [b'a', 20, 3, 0, 8, 10, 0]);
        w.out.clear();
        w.delete_ids([first].into_iter());
        assert_eq!(w.out, [b'd', 20, 0]);
        let start = w.begin_lemma();
        w.end_lemma(start, &[]);
        assert_eq!(w.last.0 as u64, first, "a deleted id is taken first");
        // The block of fresh ids is taken whole.
        assert_eq!(next.load(Ordering::Relaxed), 10 + ID_BLOCK);
    }
}
