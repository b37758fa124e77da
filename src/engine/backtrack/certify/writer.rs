//! Proof lines for the search's lemmas: text or binary DRAT kept in memory, or binary LRAT
//! streamed to a sink in chunks, with the LRAT ids each thread takes.

use std::io;
use std::sync::atomic::{AtomicU64, Ordering};

use super::{Shared, Style};
use crate::model::Pos;
use crate::proof::lrat::{put_varint, ChunkSink};

/// Proof lines for lemmas that are all negative cell literals: DRAT (text or binary) kept
/// in memory, or binary LRAT, which streams to a [`ChunkSink`] as it is written.
pub(super) struct Writer<'w> {
    pub(super) out: Vec<u8>,
    pub(super) style: Style,
    pub(super) lemmas: u64,
    pub(super) deletions: u64,
    /// Where the last lemma added is in `out` (LRAT: its id, 0).
    pub(super) last: (usize, usize),
    /// LRAT: where `out` goes once it holds [`FLUSH_BYTES`] (`None`: it stays in memory).
    pub(super) sink: Option<&'w dyn ChunkSink>,
    /// LRAT: bytes already handed to `sink`.
    pub(super) flushed: u64,
    /// LRAT: lemma ids.
    ids: IdPool<'w>,
    /// LRAT: an error from `sink`.
    pub(super) error: Option<io::Error>,
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
    pub(super) end: u64,
    free: Vec<u64>,
}

impl IdPool<'_> {
    #[inline]
    pub(super) fn take(&mut self) -> u64 {
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
    /// This writer with LRAT ids from the shared counter.
    pub(super) fn numbered(mut self, shared: &'w Shared) -> Self {
        self.ids.fresh = Some(&shared.next_id);
        self
    }

    pub(super) fn new(style: Style) -> Self {
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

    /// Deletes a lemma written before, at `start..end` of the proof: the same literals
    /// after a `d`, copied. (LRAT deletes by id: [`Writer::delete_ids`].)
    #[inline]
    pub(super) fn delete(&mut self, (start, end): (usize, usize)) {
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
    pub(super) fn delete_ids(&mut self, ids: impl Iterator<Item = u64>) {
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
    pub(super) fn begin_lemma(&mut self) -> usize {
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
    pub(super) fn end_lemma(&mut self, start: usize, hints: &[u64]) {
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
    pub(super) fn position(&self) -> u64 {
        self.flushed + self.out.len() as u64
    }

    /// LRAT: moves `out` to the sink once it is large; false after a write error.
    #[inline]
    pub(super) fn maybe_flush(&mut self) -> bool {
        if self.out.len() >= FLUSH_BYTES {
            self.flush();
        }
        self.error.is_none()
    }

    pub(super) fn flush(&mut self) {
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

/// A queen's negative literal as proof bytes: `-v ` in text, LEB128 of `2v + 1` in binary
/// (DRAT and LRAT).
#[derive(Clone, Copy, Default)]
pub(super) struct CachedLit {
    pub(super) cell: Pos,
    pub(super) bytes: [u8; 16],
    pub(super) len: u8,
}

impl CachedLit {
    pub(super) fn new(cell: Pos, var: u32, binary: bool) -> CachedLit {
        let mut lit = CachedLit {
            cell,
            ..CachedLit::default()
        };
        let mut out = Vec::with_capacity(16);
        if binary {
            let mut x = 2 * u64::from(var) + 1;
            while x >= 0x80 {
                out.push((x as u8 & 0x7f) | 0x80);
                x >>= 7;
            }
            out.push(x as u8);
        } else {
            out.extend_from_slice(format!("-{var} ").as_bytes());
        }
        lit.bytes[..out.len()].copy_from_slice(&out);
        lit.len = out.len() as u8;
        lit
    }
}
