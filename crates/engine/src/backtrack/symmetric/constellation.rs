//! Constellations: the queens of the four border lines, one class per symmetry, and the search
//! of the middle rows in interleaved lanes.

use std::sync::atomic::{AtomicUsize, Ordering};

use super::halt::Halt;

/// Largest n the symmetric counter handles (its masks are `u64` and hold a row's columns and
/// the diagonals through them).
pub const MAX_N: usize = 31;

/// A cell as (row, column).
type Cell = (usize, usize);

/// The eight symmetries of the n×n square as maps of cells: the identity, the rotations by
/// 90°, 180° and 270°, then the four reflections.
fn transform(g: usize, n: usize, (r, c): Cell) -> Cell {
    let e = n - 1;
    match g {
        0 => (r, c),
        1 => (c, e - r),
        2 => (e - r, e - c),
        3 => (e - c, r),
        4 => (r, e - c),
        5 => (e - r, c),
        6 => (c, r),
        _ => (e - c, e - r),
    }
}

/// The 90° and 180° rotations in [`transform`]'s numbering (270° fixes what 90° fixes).
const ROT90: usize = 1;
const ROT180: usize = 2;

/// The queens on the border lines of a placement: in row 0 at column `i`, in the last row at
/// column `j`, in column 0 at row `k`, in the last column at row `l`. A queen in a corner is
/// two of them, so `i == 0` exactly when `k == 0`, and so on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Border {
    i: usize,
    j: usize,
    k: usize,
    l: usize,
}

impl Border {
    /// The four border queens, a corner queen twice.
    fn named(self, n: usize) -> [Cell; 4] {
        let e = n - 1;
        [(0, self.i), (e, self.j), (self.k, 0), (self.l, e)]
    }

    /// The border queens as cells, each once (three of them when one stands in a corner).
    fn cells(self, n: usize) -> Vec<Cell> {
        let mut cells = self.named(n).to_vec();
        cells.sort_unstable();
        cells.dedup();
        cells
    }

    /// True when these queens can be a placement's border: every border line holds exactly
    /// the queen named for it, and no two of them attack each other.
    fn is_valid(self, n: usize) -> bool {
        let e = n - 1;
        let cells = self.named(n);
        cells.iter().enumerate().all(|(a, &(r1, c1))| {
            (r1 != 0 || c1 == self.i)
                && (r1 != e || c1 == self.j)
                && (c1 != 0 || r1 == self.k)
                && (c1 != e || r1 == self.l)
                && cells[a + 1..].iter().all(|&(r2, c2)| {
                    (r1, c1) == (r2, c2)
                        || (r1 != r2 && c1 != c2 && r1 + c2 != r2 + c1 && r1 + c1 != r2 + c2)
                })
        })
    }

    /// The border of the image of any placement with this border under symmetry `g`. Each
    /// symmetry maps the border lines onto the border lines, so every field is set.
    fn image(self, g: usize, n: usize) -> Border {
        let e = n - 1;
        let mut b = self;
        for q in self.named(n) {
            let (r, c) = transform(g, n, q);
            if r == 0 {
                b.i = c;
            }
            if r == e {
                b.j = c;
            }
            if c == 0 {
                b.k = r;
            }
            if c == e {
                b.l = r;
            }
        }
        b
    }
}

/// One task of the count: the placements with border `border`, standing for the
/// `class_size` borders its symmetries make (each has as many placements).
#[derive(Clone, Debug)]
pub(super) struct Constellation {
    /// The smallest border of the class.
    border: Border,
    /// Distinct images of the border under the eight symmetries: 8, 4 or 2.
    class_size: u64,
    /// Whether the 180° and the 90° rotations map the border to itself: only then can they
    /// map one of its placements to itself (a reflection never does for n ≥ 2).
    fixed_by_180: bool,
    fixed_by_90: bool,
}

/// All constellations of the n×n board, one per class of borders, in a fixed order (by the
/// smallest border of each class).
pub(super) fn all(n: usize) -> Vec<Constellation> {
    let mut out = Vec::new();
    for i in 0..n {
        for j in 0..n {
            for k in 0..n {
                for l in 0..n {
                    let border = Border { i, j, k, l };
                    if !border.is_valid(n) {
                        continue;
                    }
                    let mut images = [border; 8];
                    for (g, image) in images.iter_mut().enumerate() {
                        *image = border.image(g, n);
                    }
                    if images.iter().any(|&b| b < border) {
                        continue;
                    }
                    let fixed_by_180 = images[ROT180] == border;
                    let fixed_by_90 = images[ROT90] == border;
                    images.sort_unstable();
                    let distinct = 1 + images.windows(2).filter(|w| w[0] != w[1]).count();
                    out.push(Constellation {
                        border,
                        class_size: distinct as u64,
                        fixed_by_180,
                        fixed_by_90,
                    });
                }
            }
        }
    }
    out
}

/// What one constellation contributed.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Tally {
    /// To the total: its placements times its class size (a lower bound if interrupted).
    pub total: u64,
    /// To the count up to symmetry (0 if interrupted).
    pub unique: u64,
    /// Queens placed.
    pub nodes: u64,
    pub interrupted: bool,
}

impl Constellation {
    /// The tally of a finished search that found `placements` with `nodes` queens placed:
    /// by Burnside's lemma over the border's stabiliser (8 / class size symmetries), the
    /// placements fall into (placements + those each other symmetry fixes) / stabiliser classes.
    fn tally(&self, n: usize, placements: u64, nodes: u64, halt: &Halt) -> Tally {
        let mut tally = Tally {
            total: placements * self.class_size,
            unique: 0,
            nodes,
            interrupted: false,
        };
        let (mut f180, mut f90) = (0, 0);
        if self.fixed_by_180 {
            let mut s = HalfTurn::new(n, &self.border.cells(n), self.fixed_by_90);
            tally.interrupted = !s.search(0, halt);
            tally.nodes += s.nodes;
            (f180, f90) = (s.f180, s.f90);
        }
        if !tally.interrupted {
            let stabiliser = 8 / self.class_size;
            let fixed = placements + f180 + 2 * f90;
            debug_assert_eq!(fixed % stabiliser, 0, "{self:?}");
            tally.unique = fixed / stabiliser;
        }
        tally
    }
}

/// Searches run side by side in one thread. The search is a chain of dependent, hard to
/// predict steps; independent chains keep the core busy while one waits. Measured at n = 16
/// on one thread (CPU seconds, six runs each): recursion 1.24 s, two lanes 0.74–0.76 s,
/// three 0.70–0.81 s, four 0.75–0.82 s.
const LANES: usize = 3;

/// Stack slots per lane: more than the free rows of any board up to [`MAX_N`].
const DEPTH: usize = 32;
const _: () = assert!(MAX_N - 3 < DEPTH);

/// Lane-loop rounds between two looks at the deadline and stop flag: about a millisecond.
const HALT_POLL: u32 = 1 << 16;

/// What a step at a free row needs to know of the two free rows after it.
#[derive(Clone, Copy, Default)]
struct Level {
    /// Rows from this free row to the next one (1, or more past border queens' rows).
    gap: u64,
    /// The next free row's cells that no border queen attacks (bit c is column c).
    open: u64,
    /// The same for the free row after that, its gap counted from the next one; all cells
    /// when there is none.
    gap2: u64,
    open2: u64,
    /// 1 when the next free row is the last one.
    last: u64,
}

/// A search state: free row `level` with open cells `free` left to try, and the attacks of
/// the queens above it (diagonals going left and right, columns).
#[derive(Clone, Copy, Default)]
struct Entry {
    ld: u64,
    rd: u64,
    col: u64,
    free: u64,
    level: usize,
}

/// One lane: a constellation's search as an explicit stack, advanced one queen per step.
struct Lane {
    /// The task it searches (an index into the task list), if any.
    task: Option<usize>,
    levels: [Level; DEPTH],
    stack: [Entry; DEPTH],
    sp: usize,
    /// Placements found and queens placed in the current task.
    found: u64,
    steps: u64,
}

impl Lane {
    fn idle() -> Lane {
        Lane {
            task: None,
            levels: [Level::default(); DEPTH],
            stack: [Entry::default(); DEPTH],
            sp: 0,
            found: 0,
            steps: 0,
        }
    }

    /// Sets up the search for the placements of the free rows around the border queens
    /// `queens`; returns false when it is already done (no stack left to run).
    fn start(&mut self, n: usize, queens: &[Cell]) -> bool {
        let mut cols = 0u64;
        for &(_, c) in queens {
            cols |= 1 << c;
        }
        // The free rows and their cells in no border queen's column or diagonal.
        let mut rows = Vec::with_capacity(n);
        for r in (0..n).filter(|&r| queens.iter().all(|q| q.0 != r)) {
            let mut open = ((1u64 << n) - 1) & !cols;
            for &(qr, qc) in queens {
                let d = qr.abs_diff(r);
                if qc + d < n {
                    open &= !(1 << (qc + d));
                }
                if qc >= d {
                    open &= !(1 << (qc - d));
                }
            }
            rows.push((r as u64, open));
        }
        let m = rows.len();
        for t in 0..m.saturating_sub(1) {
            let (r, _) = rows[t];
            let (r1, open) = rows[t + 1];
            let (gap2, open2) = rows.get(t + 2).map_or((0, !0), |&(r2, o)| (r2 - r1, o));
            self.levels[t] = Level {
                gap: r1 - r,
                open,
                gap2,
                open2,
                last: (t + 2 == m) as u64,
            };
        }
        self.sp = 0;
        self.steps = 0;
        self.found = 0;
        match rows.first() {
            None => self.found = 1,
            Some(&(_, open)) if m == 1 => self.found = open.count_ones() as u64,
            Some(&(_, open)) => {
                self.stack[0] = Entry {
                    free: open,
                    ..Entry::default()
                };
                self.sp = (open != 0) as usize;
            }
        }
        self.sp != 0
    }

    /// Runs this lane alone until its task is done or `rounds` steps pass; returns the
    /// steps taken.
    fn advance(&mut self, rounds: u32) -> u32 {
        let (mut sp, mut found, mut done) = (self.sp, 0, 0);
        while sp != 0 && done < rounds {
            let (s, f) = step(&mut self.stack, &self.levels, sp);
            (sp, found, done) = (s, found + f, done + 1);
        }
        (self.sp, self.found, self.steps) = (sp, self.found + found, self.steps + done as u64);
        done
    }
}

/// Places the next queen of the top state of `stack` (with `sp` states): pops the state when
/// that was its last cell, counts the placement when the next row is the last and has an open
/// cell, and pushes the next row's state when it and the row after it have one. No branches:
/// which of these happen is arithmetic on the stack pointer and the count. Returns the new
/// stack pointer and the placements found (0 or 1).
#[inline(always)]
fn step(stack: &mut [Entry; DEPTH], levels: &[Level; DEPTH], sp: usize) -> (usize, u64) {
    let s = (sp - 1) % DEPTH;
    let e = stack[s];
    let bit = e.free & e.free.wrapping_neg();
    let rest = e.free ^ bit;
    stack[s].free = rest;
    let sp = s + (rest != 0) as usize;
    let lv = levels[e.level % DEPTH];
    let (ld, rd, col) = ((e.ld | bit) << lv.gap, (e.rd | bit) >> lv.gap, e.col | bit);
    let open = lv.open & !(ld | rd | col);
    // Two rows ahead too: a cheap test that cuts many dead states before they are pushed.
    let after = lv.open2 & !((ld << lv.gap2) | (rd >> lv.gap2) | col);
    let alive = (open != 0) as u64;
    let push = (lv.last ^ 1) & alive & (after != 0) as u64;
    stack[sp % DEPTH] = Entry {
        ld,
        rd,
        col,
        free: open,
        level: e.level + 1,
    };
    (sp + push as usize, lv.last & alive)
}

/// Runs all lanes side by side until one of them finishes its task or `rounds` rounds
/// pass; returns the rounds run.
fn advance_all(lanes: &mut [Lane; LANES], rounds: u32) -> u32 {
    let mut sp: [usize; LANES] = std::array::from_fn(|k| lanes[k].sp);
    let mut found = [0u64; LANES];
    let mut done = 0;
    while done < rounds && sp.iter().all(|&s| s != 0) {
        for k in 0..LANES {
            let (s, f) = step(&mut lanes[k].stack, &lanes[k].levels, sp[k]);
            sp[k] = s;
            found[k] += f;
        }
        done += 1;
    }
    for (k, lane) in lanes.iter_mut().enumerate() {
        lane.sp = sp[k];
        lane.found += found[k];
        lane.steps += u64::from(done);
    }
    done
}

/// Searches tasks taken from `tasks` by the shared index `next` until none is left, calling
/// `done` with each one's index and tally; stops early (tallying the tasks under way as
/// interrupted) when `halt` says so.
pub(super) fn search(
    n: usize,
    tasks: &[Constellation],
    next: &AtomicUsize,
    halt: &Halt,
    mut done: impl FnMut(usize, Tally),
) {
    let mut lanes: [Lane; LANES] = std::array::from_fn(|_| Lane::idle());
    let mut more = true;
    let mut since_poll = 0;
    loop {
        for lane in &mut lanes {
            while lane.sp == 0 {
                if let Some(t) = lane.task.take() {
                    let tally = tasks[t].tally(n, lane.found, lane.steps + lane.found, halt);
                    done(t, tally);
                }
                if !more {
                    break;
                }
                let t = next.fetch_add(1, Ordering::Relaxed);
                let Some(task) = tasks.get(t) else {
                    more = false;
                    break;
                };
                lane.task = Some(t);
                lane.start(n, &task.border.image(ROT180, n).cells(n));
            }
        }
        if lanes.iter().all(|l| l.sp != 0) {
            since_poll += advance_all(&mut lanes, HALT_POLL);
        } else if let Some(lane) = lanes.iter_mut().find(|l| l.sp != 0) {
            // The last tasks: one lane left, no partner to interleave with.
            since_poll += lane.advance(HALT_POLL);
        } else {
            return;
        }
        if since_poll >= HALT_POLL {
            since_poll = 0;
            if halt.now() {
                for lane in &mut lanes {
                    if let Some(t) = lane.task.take() {
                        let total = lane.found * tasks[t].class_size;
                        let nodes = lane.steps + lane.found;
                        let interrupted = true;
                        let tally = Tally {
                            total,
                            nodes,
                            interrupted,
                            ..Tally::default()
                        };
                        done(t, tally);
                    }
                }
                return;
            }
        }
    }
}

/// The placements with a given border that the 180° rotation maps to themselves, by placing
/// queens in pairs (r, c) and (n-1-r, n-1-c), row r from the top; and those the 90° rotation
/// maps to themselves, found among them. They are few, so a plain search will do.
struct HalfTurn {
    n: usize,
    check_90: bool,
    col: [usize; MAX_N],
    has: [bool; MAX_N],
    cols: u64,
    diag_sum: u64,
    diag_diff: u64,
    f180: u64,
    f90: u64,
    nodes: u64,
}

impl HalfTurn {
    fn new(n: usize, queens: &[Cell], check_90: bool) -> HalfTurn {
        let mut s = HalfTurn {
            n,
            check_90,
            col: [0; MAX_N],
            has: [false; MAX_N],
            cols: 0,
            diag_sum: 0,
            diag_diff: 0,
            f180: 0,
            f90: 0,
            nodes: 0,
        };
        for &(r, c) in queens {
            s.toggle(r, c);
        }
        s
    }

    fn free(&self, r: usize, c: usize) -> bool {
        let (sum, diff) = (r + c, r + self.n - 1 - c);
        (self.cols >> c | self.diag_sum >> sum | self.diag_diff >> diff) & 1 == 0
    }

    /// Places a queen on a free cell, or takes it away.
    fn toggle(&mut self, r: usize, c: usize) {
        let (sum, diff) = (r + c, r + self.n - 1 - c);
        self.cols ^= 1 << c;
        self.diag_sum ^= 1 << sum;
        self.diag_diff ^= 1 << diff;
        self.col[r] = c;
        self.has[r] = !self.has[r];
    }

    /// Counts from row `r` on; false when `halt` stopped it.
    fn search(&mut self, r: usize, halt: &Halt) -> bool {
        let e = self.n - 1;
        if r > e - r {
            self.f180 += 1;
            if self.check_90 && (0..self.n).all(|r| self.col[self.col[r]] == e - r) {
                self.f90 += 1;
            }
            return true;
        }
        if self.has[r] {
            return self.search(r + 1, halt);
        }
        for c in 0..self.n {
            if !self.free(r, c) {
                continue;
            }
            self.toggle(r, c);
            let mut go_on = true;
            if r == e - r {
                // The middle row of an odd board: its queen must be its own image.
                if c == e - c {
                    self.nodes += 1;
                    go_on = self.search(r + 1, halt);
                }
            } else if self.free(e - r, e - c) {
                self.toggle(e - r, e - c);
                self.nodes += 2;
                let stop = self.nodes % u64::from(HALT_POLL) == 0 && halt.now();
                go_on = !stop && self.search(r + 1, halt);
                self.toggle(e - r, e - c);
            }
            self.toggle(r, c);
            if !go_on {
                return false;
            }
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every valid border is in exactly one class, and the class sizes add up to them all.
    #[test]
    fn classes_partition_the_borders() {
        for n in 5..=12 {
            let mut valid = 0;
            for i in 0..n {
                for j in 0..n {
                    for k in 0..n {
                        for l in 0..n {
                            valid += Border { i, j, k, l }.is_valid(n) as u64;
                        }
                    }
                }
            }
            let classes = all(n);
            assert_eq!(
                classes.iter().map(|c| c.class_size).sum::<u64>(),
                valid,
                "n = {n}"
            );
            for c in &classes {
                let stabiliser = (0..8).filter(|&g| c.border.image(g, n) == c.border).count();
                assert_eq!(stabiliser as u64 * c.class_size, 8, "{c:?}");
            }
        }
    }
}
