//! LRAT hints: the unit-propagation chain that justifies a refuted node's lemma (each closed
//! cell false by its binary clause with a queen, the line's at-least-one clause falsified),
//! and the lemma written with that chain as its hints.

use super::depths::DepthSet;
use super::search::Search;
use super::shared::{Entry, Kind, Outcome};
use crate::backtrack::board::{Board, Line};
use queens_model::model::Pos;
use queens_proof::{FALSE, OPEN, TRUE};

impl<'s, 'p, S: DepthSet> Search<'s, 'p, S> {
    /// LRAT: the chain of a dead `line` (a leaf): each closed cell made false by the binary
    /// clause it shares with a queen of `ret`, then the line's at-least-one clause falsified.
    /// With `neg` (exactly one cell `x` closed only by the last queen `c`): the chain
    /// derives `¬c` instead: the other cells false, the at-least-one clause makes `x` true,
    /// and `x`'s clause with `c` makes `c` false.
    #[inline]
    pub(super) fn leaf_chain<B: Board>(&mut self, board: &B, line: Line, neg: bool) {
        let sh = self.shared;
        let ids = sh.ids.expect("LRAT");
        let mut chain = std::mem::take(&mut self.chain);
        chain.clear();
        let path = &board.queens()[sh.base..];
        let set = std::mem::replace(&mut self.ret, S::empty(0));
        let last = path.len().wrapping_sub(1);
        let only = self.close_entries(board, line, &[], &set, neg.then_some(last), &mut chain);
        self.ret = set;
        let alo = ids.line(line);
        match (neg, only) {
            (true, Some(x)) => {
                let c = path[last];
                chain.push(Entry {
                    id: alo,
                    eff: cell_eff(sh.n, x, true),
                });
                chain.push(Entry {
                    id: ids.pair(c, x),
                    eff: cell_eff(sh.n, c, false),
                });
                self.kind = Kind::Neg;
            }
            _ => {
                chain.push(Entry { id: alo, eff: 0 });
                self.kind = Kind::Conflict;
            }
        }
        self.chain = chain;
    }

    /// LRAT: the chain of an inner node that branched on `line` with candidates `cells`,
    /// all refuted: the children's parts (from `acc_chain[d]`), each other closed cell of
    /// the line false by a binary clause with a queen of `ret`, the at-least-one clause
    /// falsified. A `forced` node (one candidate `c`, whose child has only a chain): the
    /// other cells false, the at-least-one clause makes `c` true, then the child's chain.
    #[inline]
    pub(super) fn inner_chain<B: Board>(
        &mut self,
        board: &B,
        line: Line,
        cells: &[Pos],
        d: usize,
        forced: bool,
    ) {
        let sh = self.shared;
        let ids = sh.ids.expect("LRAT");
        let mut chain = std::mem::take(&mut self.chain);
        chain.clear();
        let children = std::mem::take(&mut self.acc_chain[d]);
        if !forced {
            chain.extend_from_slice(&children);
        }
        let set = std::mem::replace(&mut self.ret, S::empty(0));
        self.close_entries(board, line, cells, &set, None, &mut chain);
        self.ret = set;
        let alo = ids.line(line);
        if forced {
            chain.push(Entry {
                id: alo,
                eff: cell_eff(sh.n, cells[0], true),
            });
            chain.extend_from_slice(&children);
        } else {
            chain.push(Entry { id: alo, eff: 0 });
        }
        self.acc_chain[d] = children;
        self.chain = chain;
        self.kind = Kind::Conflict;
    }

    /// LRAT: for each cell of `line` open at the root, closed now and not a candidate, the
    /// binary clause with a queen of `set` that attacks it (not the queen at depth `avoid`
    /// if another does). Returns a cell only the `avoid` queen attacks, if there is one
    /// (then it gets no entry).
    fn close_entries<B: Board>(
        &self,
        board: &B,
        line: Line,
        open_cells: &[Pos],
        set: &S,
        avoid: Option<usize>,
        chain: &mut Vec<Entry>,
    ) -> Option<Pos> {
        let sh = self.shared;
        let ids = sh.ids.expect("LRAT");
        let n = sh.n;
        let path = &board.queens()[sh.base..];
        if let Some(masks) = &sh.masks {
            if let Some(mut open) = masks.closed(line, open_cells) {
                let at = |b: usize| match line {
                    Line::Row(r) => (r, b),
                    Line::Col(c) => (b, c),
                    Line::Region(_) => unreachable!("rows and columns only"),
                };
                set.each(|k| {
                    if Some(k) == avoid || open == 0 {
                        return;
                    }
                    let q = path[k];
                    let mut m = masks.attack(q, line) & open;
                    open &= !m;
                    while m != 0 {
                        let x = at(m.trailing_zeros() as usize);
                        m &= m - 1;
                        chain.push(Entry {
                            id: ids.pair(q, x),
                            eff: cell_eff(n, x, false),
                        });
                    }
                });
                return (open != 0).then(|| at(open.trailing_zeros() as usize));
            }
        }
        let problem = sh.problem;
        let mut only = None;
        sh.line_cells(line, |x| {
            if !sh.root[x.0 * n + x.1] || board.available(x) {
                return;
            }
            let mut by = None;
            set.each(|k| {
                if by.is_none() && Some(k) != avoid && problem.attacks(path[k], x) {
                    by = Some(path[k]);
                }
            });
            match by {
                Some(q) => chain.push(Entry {
                    id: ids.pair(q, x),
                    eff: cell_eff(n, x, false),
                }),
                None => only = Some(x),
            }
        });
        only
    }

    /// LRAT: writes the lemma of `ret` with `chain` as its hints (steps that propagate
    /// nothing new are left out; a step that conflicts ends the hints).
    #[inline]
    pub(super) fn emit_chain<B: Board>(&mut self, board: &B) -> Outcome {
        let sh = self.shared;
        let n = sh.n;
        let path = &board.queens()[sh.base..];
        if self.marks.len() < n * n {
            self.marks.resize(n * n, OPEN);
        }
        let set = std::mem::replace(&mut self.ret, S::empty(0));
        set.each(|k| {
            let (r, c) = path[k];
            self.marks[r * n + c] = TRUE;
            self.touched.push(r * n + c);
        });
        self.hints.clear();
        let mut conflict = false;
        for e in &self.chain {
            if e.eff == 0 {
                self.hints.push(e.id);
                conflict = true;
                break;
            }
            let cell = (e.eff.unsigned_abs() - 1) as usize;
            let want = if e.eff > 0 { TRUE } else { FALSE };
            match self.marks[cell] {
                OPEN => {
                    self.marks[cell] = want;
                    self.touched.push(cell);
                    self.hints.push(e.id);
                }
                v if v == want => {}
                _ => {
                    self.hints.push(e.id);
                    conflict = true;
                    break;
                }
            }
        }
        debug_assert!(conflict, "a chain ends in a conflict");
        for &cell in &self.touched {
            self.marks[cell] = OPEN;
        }
        self.touched.clear();
        self.ret = set;
        self.emit_ret(board)
    }
}

/// LRAT: an [`Entry::eff`] that sets a cell true or false.
fn cell_eff(n: usize, (r, c): Pos, value: bool) -> i32 {
    let e = (r * n + c) as i32 + 1;
    if value {
        e
    } else {
        -e
    }
}
