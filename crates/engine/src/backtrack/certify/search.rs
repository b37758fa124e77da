//! The depth-first refutation of one (sub)tree: each failed node's set of queens found by
//! backjumping, its lemma written, its children's lemmas deleted.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use super::depths::DepthSet;
use super::shared::{
    proof_bytes, CachedLit, DratProof, Entry, Kind, Outcome, Refutation, Shared, Split,
    TaskOutcome, TaskResult,
};
use crate::backtrack::board::{Board, Line};
use crate::backtrack::config::Config;
use queens_model::model::Pos;
use queens_proof::write::{Style, Writer};

/// One depth-first refutation of a subtree, into its own proof buffer.
pub(super) struct Search<'s, 'p, S> {
    pub(super) shared: &'s Shared<'p>,
    pub(super) nodes: u64,
    pub(super) limit: u64,
    deadline: Option<Instant>,
    stop: Option<&'s AtomicBool>,
    /// Set by another thread when this search is no longer needed.
    cancel: Option<&'s AtomicBool>,
    /// The set a refuted node returns.
    pub(super) ret: S,
    /// Per depth: the node's set so far.
    acc: Vec<S>,
    /// Where the lemmas still needed are in the proof, deepest last: a node that writes its
    /// lemma deletes those its children left.
    pending: Vec<(usize, usize)>,
    /// Whether the lemma of `ret` is in the proof (a forced node's is not: the check of
    /// the first lemma above it propagates through it).
    pub(super) written: bool,
    pub(super) cells: Vec<Vec<Pos>>,
    pub(super) w: Writer<'s>,
    /// LRAT: how the set in `ret` is justified.
    pub(super) kind: Kind,
    /// LRAT: the chain of a node refuted without a lemma of its own (see [`Kind`]).
    pub(super) chain: Vec<Entry>,
    /// LRAT, per depth: the children's parts of the node's chain so far.
    pub(super) acc_chain: Vec<Vec<Entry>>,
    /// LRAT scratch: per-cell values, the hints written.
    pub(super) marks: Vec<u8>,
    pub(super) touched: Vec<usize>,
    pub(super) hints: Vec<u64>,
    /// The literal of each path depth's queen, as last written.
    pub(super) lits: Vec<CachedLit>,
    /// Bytes of `w.out` already counted in `shared.bytes`.
    pub(super) counted: u64,
    /// Above this depth a [`Split`] answers instead of searching (the parallel top part).
    pub(super) split: Option<Split<'s, S>>,
}

impl<'s, 'p, S: DepthSet> Search<'s, 'p, S> {
    pub(super) fn new(
        shared: &'s Shared<'p>,
        config: &'s Config,
        cancel: Option<&'s AtomicBool>,
    ) -> Self {
        Search {
            shared,
            nodes: 0,
            limit: u64::MAX,
            deadline: config.deadline,
            stop: config.stop.as_deref(),
            cancel,
            ret: S::empty(shared.n),
            acc: Vec::new(),
            pending: Vec::new(),
            written: false,
            cells: Vec::new(),
            w: Writer::new(shared.style).numbered(&shared.next_id),
            kind: Kind::Conflict,
            chain: Vec::new(),
            acc_chain: Vec::new(),
            marks: Vec::new(),
            touched: Vec::new(),
            hints: Vec::new(),
            lits: Vec::new(),
            counted: 0,
            split: None,
        }
    }

    /// The answer once the root's outcome is known (`written`: LRAT bytes written out).
    pub(super) fn finish(self, outcome: Outcome, written: u64) -> Refutation {
        match outcome {
            Outcome::Refuted => {
                debug_assert!(self.ret.is_empty(), "the root's set is empty");
                let lrat = self.shared.style == Style::Lrat;
                Refutation::Unsat(DratProof {
                    bytes: if lrat { Vec::new() } else { self.w.out },
                    lemmas: self.w.lemmas,
                    deletions: self.w.deletions,
                    written,
                })
            }
            Outcome::Sat(q) => Refutation::Sat(q),
            Outcome::Interrupted | Outcome::Cut => Refutation::Interrupted,
            Outcome::TooLarge => Refutation::TooLarge(proof_bytes(self.shared)),
        }
    }

    fn stopped(&self) -> Option<Outcome> {
        if self.cancel.is_some_and(|c| c.load(Ordering::Relaxed)) {
            return Some(Outcome::Cut);
        }
        if self.stop.is_some_and(|s| s.load(Ordering::Relaxed))
            || self.deadline.is_some_and(|d| Instant::now() >= d)
        {
            return Some(Outcome::Interrupted);
        }
        None
    }

    /// Searches below the board's current node. On [`Outcome::Refuted`] the node's set is in
    /// `ret` and its lemma has been written.
    pub(super) fn node<B: Board>(&mut self, board: &mut B, write: bool) -> Outcome {
        let sh = self.shared;
        let queens = board.queens().len();
        if queens == sh.n {
            let mut q = board.queens().to_vec();
            q.sort_unstable();
            return Outcome::Sat(q);
        }
        let d = queens - sh.base;
        if let Some(split) = &self.split {
            if d == split.depth {
                let taken = split
                    .index
                    .get(board.queens())
                    .and_then(|&i| split.results[i].lock().expect("no thread panics").take());
                return self.take_task(taken);
            }
        }
        if self.nodes & 0xfff == 0 {
            if let Some(out) = self.stopped() {
                return out;
            }
        }
        if self.nodes >= self.limit {
            return Outcome::Cut;
        }
        while self.acc.len() <= d {
            self.acc.push(S::empty(sh.n));
            self.cells.push(Vec::new());
        }
        let mut cells = std::mem::take(&mut self.cells[d]);
        let outcome = match board.branch_line(&mut cells) {
            Err(line) => {
                let mut set = S::empty(sh.n);
                let only_last = self.cover(board, line, &[], &mut set);
                self.ret = set;
                // A dead line with one cell open before the last queen needs no lemma: the
                // parent's check propagates that cell true, and the last queen false.
                self.written = false;
                let skip = only_last == 1;
                if sh.ids.is_some() {
                    self.leaf_chain(board, line, write && skip);
                    if write && !skip {
                        self.emit_chain(board)
                    } else {
                        Outcome::Refuted
                    }
                } else if write && !skip {
                    self.emit_ret(board)
                } else {
                    Outcome::Refuted
                }
            }
            Ok(line) => self.inner(board, line, &mut cells, d, write),
        };
        self.cells[d] = cells;
        outcome
    }

    /// A node that branches on `line`'s `cells`. Children write lemmas only when there are
    /// two or more: a single candidate is forced, and the check of the first lemma above
    /// propagates through it.
    fn inner<B: Board>(
        &mut self,
        board: &mut B,
        line: Line,
        cells: &mut [Pos],
        d: usize,
        write: bool,
    ) -> Outcome {
        self.acc[d] = S::empty(self.shared.n);
        let lrat = self.shared.ids.is_some();
        if lrat {
            while self.acc_chain.len() <= d {
                self.acc_chain.push(Vec::new());
            }
            self.acc_chain[d].clear();
        }
        let mut forced = false;
        let entry = self.pending.len();
        let children_write = cells.len() > 1;
        let mut outcome = None;
        for i in 0..cells.len() {
            board.order(cells, i);
            self.nodes += 1;
            board.place(cells[i]);
            let out = self.node(board, children_write);
            board.undo();
            match out {
                Outcome::Refuted if self.ret.has(d) => {
                    self.acc[d].union(&self.ret);
                    if lrat {
                        // The child's part of this node's chain: its lemma propagates its
                        // queen false, or its chain is inlined.
                        let (r, c) = cells[i];
                        let cell = (r * self.shared.n + c) as i32;
                        match self.kind {
                            Kind::Lemma(id) => self.acc_chain[d].push(Entry {
                                id,
                                eff: -(cell + 1),
                            }),
                            kind => {
                                forced = kind == Kind::Conflict;
                                let chain = std::mem::take(&mut self.chain);
                                self.acc_chain[d].extend_from_slice(&chain);
                                self.chain = chain;
                            }
                        }
                    }
                }
                // The child's set refutes this node too: hand it up, skip the rest (its
                // lemma is written now if the child was forced and wrote none). Lemmas
                // pending deletion stay for the node that uses it.
                Outcome::Refuted => {
                    outcome = Some(if write && !self.written {
                        if lrat {
                            self.emit_chain(board)
                        } else {
                            self.emit_ret(board)
                        }
                    } else {
                        Outcome::Refuted
                    });
                    break;
                }
                other => {
                    outcome = Some(other);
                    break;
                }
            }
        }
        if let Some(out) = outcome {
            return out;
        }
        let mut set = self.acc[d].clone();
        set.remove(d);
        self.cover(board, line, cells, &mut set);
        self.ret = set;
        if lrat {
            self.inner_chain(board, line, cells, d, forced);
        }
        if !write {
            self.written = false;
            return Outcome::Refuted;
        }
        let out = if lrat {
            self.emit_chain(board)
        } else {
            self.emit_ret(board)
        };
        if self.ret.is_empty() {
            // The empty clause: the proof is complete.
            return out;
        }
        // The lemmas below this node served only to check its own: delete them.
        let lemma = self.pending.pop();
        if lrat {
            let ids = self.pending[entry..].iter().map(|p| p.0 as u64);
            self.w.delete_ids(ids);
        }
        for i in entry..self.pending.len() {
            if lrat {
                break;
            }
            let range = self.pending[i];
            self.w.delete(range);
        }
        self.pending.truncate(entry);
        self.pending.extend(lemma);
        out
    }

    /// Adds to `set`, for every cell of `line` that was open at the root and is closed now,
    /// a path queen that attacks it (one in `set` already if there is one, else the
    /// earliest).
    ///
    /// Returns how many of those cells only the last queen closes, when that is known
    /// cheaply (rows and columns of boards up to 64 wide), else `u32::MAX`.
    fn cover<B: Board>(&self, board: &B, line: Line, open_cells: &[Pos], set: &mut S) -> u32 {
        let sh = self.shared;
        let path = &board.queens()[sh.base..];
        if let (Some(masks), Some((&last, before))) = (&sh.masks, path.split_last()) {
            if let Some(mut open) = masks.closed(line, open_cells) {
                // Word-sized lines: one mask per queen. Queens in the set first, then the
                // earliest that closes something still open; the last queen last.
                set.each(|k| open &= !masks.attack(path[k], line));
                for (k, &q) in before.iter().enumerate() {
                    if open == 0 {
                        break;
                    }
                    let m = masks.attack(q, line);
                    if open & m != 0 {
                        open &= !m;
                        set.insert(k);
                    }
                }
                if open != 0 {
                    debug_assert_eq!(
                        open & !masks.attack(last, line),
                        0,
                        "a closed cell is attacked"
                    );
                    set.insert(before.len());
                }
                return open.count_ones();
            }
        }
        let problem = sh.problem;
        sh.line_cells(line, |x| {
            if !sh.root[x.0 * sh.n + x.1] || board.available(x) {
                return;
            }
            let mut covered = false;
            set.each(|k| covered |= problem.attacks(path[k], x));
            if covered {
                return;
            }
            let k = path
                .iter()
                .position(|&q| problem.attacks(q, x))
                .expect("a cell closed since the root is attacked by a queen on the path");
            set.insert(k);
        });
        u32::MAX
    }

    /// Writes the lemma of `ret`, or the answer if it is over the byte limit.
    #[inline]
    pub(super) fn emit_ret<B: Board>(&mut self, board: &B) -> Outcome {
        let set = std::mem::replace(&mut self.ret, S::empty(0));
        let ok = self.write_set(board, &set);
        self.ret = set;
        self.written = true;
        if self.shared.style == Style::Lrat {
            self.kind = Kind::Lemma(self.w.last.0 as u64);
        }
        self.pending.push(self.w.last);
        if ok {
            Outcome::Refuted
        } else {
            Outcome::TooLarge
        }
    }

    /// Writes the clause "not all queens of `set`"; false once the proof is over its byte
    /// limit.
    fn write_set<B: Board>(&mut self, board: &B, set: &S) -> bool {
        let sh = self.shared;
        let path = &board.queens()[sh.base..];
        // Each literal's bytes come from a table (or a per-depth cache on huge boards) and
        // are copied as fixed 16-byte moves into a stack buffer: a lemma is a few moves.
        let mut buf = [0u8; 256];
        let mut len = 0;
        let start = self.w.begin_lemma();
        let binary = sh.style != Style::Text;
        if sh.lits.is_empty() && self.lits.len() < path.len() {
            self.lits.resize(path.len(), CachedLit::default());
        }
        let mut lits = std::mem::take(&mut self.lits);
        set.each(|k| {
            let (r, c) = path[k];
            let lit = if sh.lits.is_empty() {
                let lit = &mut lits[k];
                if lit.cell != path[k] || lit.len == 0 {
                    *lit = CachedLit::new(path[k], sh.vars[r * sh.n + c], binary);
                }
                &*lit
            } else {
                &sh.lits[r * sh.n + c]
            };
            if len > buf.len() - 16 {
                self.w.out.extend_from_slice(&buf[..len]);
                len = 0;
            }
            buf[len..len + 16].copy_from_slice(&lit.bytes);
            len += lit.len as usize;
        });
        self.lits = lits;
        self.w.out.extend_from_slice(&buf[..len]);
        let hints = std::mem::take(&mut self.hints);
        self.w.end_lemma(start, &hints);
        self.hints = hints;
        if !self.w.maybe_flush() {
            return false;
        }
        let total_len = self.w.position();
        if total_len - self.counted >= 1 << 16 {
            let total = sh
                .bytes
                .fetch_add(total_len - self.counted, Ordering::Relaxed)
                + total_len
                - self.counted;
            self.counted = total_len;
            return total <= sh.max_bytes;
        }
        true
    }

    fn take_task(&mut self, taken: Option<TaskResult<S>>) -> Outcome {
        let Some(result) = taken else {
            return Outcome::Cut;
        };
        match result.outcome {
            TaskOutcome::Refuted(set) => {
                self.ret = set;
                self.written = true;
                self.kind = Kind::Lemma(result.lemma);
                Outcome::Refuted
            }
            TaskOutcome::Sat(q) => Outcome::Sat(q),
            TaskOutcome::Interrupted => Outcome::Interrupted,
            TaskOutcome::Cut => Outcome::Cut,
            TaskOutcome::TooLarge => Outcome::TooLarge,
        }
    }
}
