//! LRAT writers: the trimmed collector a DRAT replay fills (`LratWriter`), binary LRAT
//! numbers, and the chunk pipe from the proof writers to the checker.

use std::io::{self, BufWriter, Write};

use super::code_dimacs;

/// Collects the LRAT steps of a replay, then writes the ones the refutation uses.
///
/// Trimming is backwards, as drat-trim's: the empty clause is used, and so is every clause
/// a used lemma names as a hint; a lemma nobody uses is left out, with its deletion.
/// Consecutive deletions share one line.
#[derive(Default)]
pub(crate) struct LratWriter {
    /// Per lemma: id, then the ends of its literals and hints in `lits` and `hints`.
    lemmas: Vec<(u32, usize, usize)>,
    lits: Vec<u32>,
    hints: Vec<u32>,
    /// Deleted clause ids, each after the lemma count at the time: `(lemmas.len(), id)`.
    deletions: Vec<(usize, u32)>,
    pub(crate) pending_deletions: Vec<u32>,
}

impl LratWriter {
    pub(crate) fn lemma(&mut self, id: u32, lits: &[u32], hints: &[u32]) {
        for d in self.pending_deletions.drain(..) {
            self.deletions.push((self.lemmas.len(), d));
        }
        self.lits.extend_from_slice(lits);
        self.hints.extend_from_slice(hints);
        self.lemmas.push((id, self.lits.len(), self.hints.len()));
    }

    /// Writes the used lemmas and the deletions of used clauses; returns the lemmas written
    /// and their hints.
    pub(crate) fn finish(
        self,
        formula_clauses: u64,
        out: &mut dyn Write,
    ) -> io::Result<(u64, u64)> {
        // Lemma ids increase, so a binary search finds a lemma's index.
        let index = |id: u32| self.lemmas.binary_search_by_key(&id, |l| l.0).ok();
        let mut used = vec![false; self.lemmas.len()];
        if let Some(last) = used.last_mut() {
            *last = true;
        }
        for i in (0..self.lemmas.len()).rev() {
            if !used[i] {
                continue;
            }
            let start = if i == 0 { 0 } else { self.lemmas[i - 1].2 };
            for &h in &self.hints[start..self.lemmas[i].2] {
                if let Some(j) = index(h) {
                    used[j] = true;
                }
            }
        }
        let keep = |id: u32| u64::from(id) <= formula_clauses || index(id).is_some_and(|j| used[j]);
        let mut out = BufWriter::new(out);
        let (mut written, mut hints_written) = (0u64, 0u64);
        let mut last_id = formula_clauses;
        let mut deletions = self.deletions.iter().peekable();
        let mut line = String::new();
        for (i, &(id, lits_end, hints_end)) in self.lemmas.iter().enumerate() {
            line.clear();
            while let Some(&(_, d)) = deletions.next_if(|&&(at, _)| at <= i) {
                if keep(d) {
                    line.push_str(&format!(" {d}"));
                }
            }
            if !line.is_empty() {
                writeln!(out, "{last_id} d{line} 0")?;
            }
            if !used[i] {
                continue;
            }
            let lits_start = if i == 0 { 0 } else { self.lemmas[i - 1].1 };
            let hints_start = if i == 0 { 0 } else { self.lemmas[i - 1].2 };
            write!(out, "{id}")?;
            for &lit in &self.lits[lits_start..lits_end] {
                write!(out, " {}", code_dimacs(lit))?;
            }
            out.write_all(b" 0")?;
            for &hint in &self.hints[hints_start..hints_end] {
                write!(out, " {hint}")?;
            }
            out.write_all(b" 0\n")?;
            written += 1;
            hints_written += (hints_end - hints_start) as u64;
            last_id = u64::from(id);
        }
        out.flush()?;
        Ok((written, hints_written))
    }
}

/// Appends `x` as binary DRAT/LRAT write numbers: LEB128, seven bits a byte, low first.
#[inline]
pub fn put_varint(out: &mut Vec<u8>, mut x: u64) {
    while x >= 0x80 {
        out.push((x as u8 & 0x7f) | 0x80);
        x >>= 7;
    }
    out.push(x as u8);
}

/// Where a proof writer hands its chunks of binary LRAT (whole steps only).
pub trait ChunkSink: Sync {
    /// Takes the bytes of `chunk`, leaving it empty (with room for the next chunk).
    fn send(&self, chunk: &mut Vec<u8>) -> io::Result<()>;
}

/// A bounded queue of binary LRAT chunks from the writers (any threads, each chunk whole
/// steps) to one consumer: a [`ChunkReader`] that checks and writes them as they come
/// ([`super::check::check_and_write`]). Writers wait when the consumer is behind, so at
/// most [`PIPE_CHUNKS`] chunks are in memory.
pub struct LratPipe {
    tx: std::sync::Mutex<Option<std::sync::mpsc::SyncSender<Vec<u8>>>>,
    spare: std::sync::Arc<std::sync::Mutex<Vec<Vec<u8>>>>,
}

/// Chunks in flight between the writers and the consumer.
pub const PIPE_CHUNKS: usize = 8;

impl LratPipe {
    /// A pipe and the reader of its other end.
    pub fn new() -> (LratPipe, ChunkReader) {
        let (tx, rx) = std::sync::mpsc::sync_channel(PIPE_CHUNKS);
        let spare = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let reader = ChunkReader {
            rx,
            cur: Vec::new(),
            pos: 0,
            spare: spare.clone(),
        };
        let pipe = LratPipe {
            tx: std::sync::Mutex::new(Some(tx)),
            spare,
        };
        (pipe, reader)
    }

    /// No more chunks: the reader sees the end of the proof once it has read the rest.
    pub fn close(&self) {
        self.tx.lock().expect("no writer panics").take();
    }
}

impl ChunkSink for LratPipe {
    fn send(&self, chunk: &mut Vec<u8>) -> io::Result<()> {
        if chunk.is_empty() {
            return Ok(());
        }
        let mut next = self
            .spare
            .lock()
            .expect("no reader panics")
            .pop()
            .unwrap_or_else(|| Vec::with_capacity(chunk.capacity()));
        std::mem::swap(chunk, &mut next);
        let tx = self.tx.lock().expect("no writer panics");
        let gone = || io::Error::new(io::ErrorKind::BrokenPipe, "the proof's reader stopped");
        tx.as_ref().ok_or_else(gone)?.send(next).map_err(|_| gone())
    }
}

/// The consumer's end of an [`LratPipe`]: the chunks as one stream of bytes. Buffers it
/// has read go back to the writers.
pub struct ChunkReader {
    rx: std::sync::mpsc::Receiver<Vec<u8>>,
    cur: Vec<u8>,
    pos: usize,
    spare: std::sync::Arc<std::sync::Mutex<Vec<Vec<u8>>>>,
}

impl ChunkReader {
    /// Reads and drops everything still to come, so that no writer waits forever.
    pub fn drain(&mut self) {
        while self.rx.recv().is_ok() {}
    }
}

impl io::Read for ChunkReader {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        while self.pos == self.cur.len() {
            let Ok(next) = self.rx.recv() else {
                return Ok(0);
            };
            let mut old = std::mem::replace(&mut self.cur, next);
            self.pos = 0;
            old.clear();
            if old.capacity() > 0 {
                let mut spare = self.spare.lock().expect("no writer panics");
                if spare.len() < PIPE_CHUNKS {
                    spare.push(old);
                }
            }
        }
        let k = buf.len().min(self.cur.len() - self.pos);
        buf[..k].copy_from_slice(&self.cur[self.pos..self.pos + k]);
        self.pos += k;
        Ok(k)
    }
}
