//! Every non-attacking placement of up to `k` queens, one or more of each orbit under the
//! square's eight symmetries, checked against a set of witnesses: full solutions, each closed
//! under the symmetries, one of which must contain the placement.
//!
//! **The placements walked.** For a placement `P` let `m` be the smallest distance from one of
//! its queens to the nearest edge. One symmetry takes that edge to the top and that queen to
//! row `m`; then no queen lies above row `m`, below row `n - 1 - m`, or outside the columns
//! `m..=n - 1 - m`, and the left-right mirror keeps all of that, so the queen of row `m` may
//! also be put in the left half. The walk therefore visits, for each `m`, the placements whose
//! first queen is `(m, c)` with `m ≤ c ≤ (n - 1) / 2` and whose other queens lie in rows
//! `m + 1..=n - 1 - m` and columns `m..=n - 1 - m`: at least one member of every orbit, about
//! an eighth of all placements.
//!
//! **The cover check.** Depth first, each node keeps the list of witnesses that contain its
//! queens (a child's list is its parent's, bucketed by the witnesses' column in the child's
//! row). One queen short of `k`, the witnesses left mark, row by row, the cells they hold:
//! those are exactly the covered placements one queen larger, and only the free cells left
//! unmarked are handed to [`Settle::uncovered`]. A placement is covered when a witness
//! contains it; since the witnesses are closed under the symmetries, that holds for the whole
//! orbit.
//!
//! **Why lists are bytes.** A list holds copies of its witnesses' columns in the rows below
//! its node's last queen (a `Records`), not indices into the spelled images: the images
//! holding one first queen run to hundreds of megabytes at n = 26, and a list of indices
//! costs a cache miss at every witness each time it is read. Bucketing copies each record
//! once per row, cut to the rows below, so from depth 2 down every list is read in order from
//! cache. The lists one queen short of `k` are never built: their parent marks their cells
//! in one pass over its own list (`Walker::mark`).

use std::collections::HashSet;

/// A cell: `(row, column)`, 0-based.
pub type Cell = (usize, usize);

/// The largest board the walk takes: a row's free columns are one `u64`.
pub const MAX_WALK_N: usize = 64;

/// The image of a cell under symmetry `s` (`0..8`): bit 2 transposes, then bit 0 flips the
/// rows and bit 1 the columns; the eight combinations are the square's eight symmetries.
pub fn map_cell(n: usize, (r, c): Cell, s: usize) -> Cell {
    let (r, c) = if s & 4 != 0 { (c, r) } else { (r, c) };
    let r = if s & 1 != 0 { n - 1 - r } else { r };
    let c = if s & 2 != 0 { n - 1 - c } else { c };
    (r, c)
}

/// The image of a full solution (one column per row) under symmetry `s`.
pub fn map_solution(cols: &[u8], s: usize) -> Vec<u8> {
    let mut out = vec![0u8; cols.len()];
    map_solution_into(cols, s, &mut out);
    out
}

/// [`map_solution`] into `out` (as long as `cols`), with no allocation.
fn map_solution_into(cols: &[u8], s: usize, out: &mut [u8]) {
    let n = cols.len();
    for (r, &c) in cols.iter().enumerate() {
        let (r2, c2) = map_cell(n, (r, c as usize), s);
        out[r2] = c2 as u8;
    }
}

/// The witnesses: full solutions of the `n`×`n` board, each standing for its eight
/// symmetric images, one column per row. Callers add only verified solutions.
///
/// In compact form: the solutions are `n` bytes each in one arena (the cover's lines, in the
/// order added), each known by a 128-bit fingerprint of its least image, and only the images
/// the walk is reading are spelled out: those holding the first queen it is at
/// ([`Witnesses::focus`]), about one in `n` of them. A solution then costs about `n + 40`
/// bytes however many first queens the walk has, instead of `8n` bytes and eight
/// fingerprints.
#[derive(Clone, Debug)]
pub struct Witnesses {
    n: usize,
    /// The solutions as they were added, `n` bytes each.
    lines: Vec<u8>,
    /// Fingerprints (128 bits) of each solution's least image: a set of the solutions
    /// themselves would cost a heap block each.
    known: HashSet<u128>,
    /// Distinct images of the solutions held.
    images: usize,
    /// The images spelled out (`n` columns each): those holding `focus`, or all of them.
    cols: Vec<u8>,
    /// The cell every image in `cols` holds (`None`: all images are there).
    focus: Option<Cell>,
}

/// A column no image holds: the focus of witnesses that spell out none.
const NOTHING: usize = usize::MAX;

/// The solutions of a [`Witnesses`], `n` bytes each, in the order added.
#[derive(Clone, Copy, Debug)]
pub struct Lines<'a> {
    n: usize,
    bytes: &'a [u8],
}

impl<'a> Lines<'a> {
    /// Solutions held.
    pub fn len(&self) -> usize {
        self.bytes.len().checked_div(self.n).unwrap_or(0)
    }

    /// True when there is none.
    pub fn is_empty(&self) -> bool {
        self.bytes.is_empty()
    }

    /// Solution `i` (one column per row).
    pub fn get(&self, i: usize) -> &'a [u8] {
        &self.bytes[i * self.n..(i + 1) * self.n]
    }

    /// The first `count` solutions.
    pub fn prefix(&self, count: usize) -> Lines<'a> {
        Lines {
            n: self.n,
            bytes: &self.bytes[..count * self.n],
        }
    }

    /// The solutions in order.
    pub fn iter(&self) -> impl Iterator<Item = &'a [u8]> + 'a {
        self.bytes.chunks_exact(self.n.max(1))
    }

    /// The board size.
    pub fn n(&self) -> usize {
        self.n
    }
}

impl Witnesses {
    /// No witnesses on an `n`×`n` board.
    pub fn new(n: usize) -> Witnesses {
        Witnesses {
            n,
            lines: Vec::new(),
            known: HashSet::new(),
            images: 0,
            cols: Vec::new(),
            // No image is spelled out until a walk asks for them.
            focus: Some((0, NOTHING)),
        }
    }

    /// The board size.
    pub fn n(&self) -> usize {
        self.n
    }

    /// Witnesses held, symmetric images included.
    pub fn len(&self) -> usize {
        self.images
    }

    /// True when there is none.
    pub fn is_empty(&self) -> bool {
        self.images == 0
    }

    /// The solutions added, each once (their images are not listed).
    pub fn solutions(&self) -> Lines<'_> {
        Lines {
            n: self.n,
            bytes: &self.lines,
        }
    }

    /// Bytes the witnesses take: the solutions, their fingerprints and the images spelled
    /// out.
    pub fn bytes(&self) -> usize {
        // A hash set's slot: the fingerprint and one control byte.
        self.lines.capacity() + self.known.capacity() * 17 + self.cols.capacity()
    }

    /// True when a solution (one column per row) is held, itself or as an image.
    pub fn contains(&self, cols: &[u8]) -> bool {
        self.known.contains(&fingerprint(&least_image(cols)))
    }

    /// Adds a solution (one column per row, already verified) and its images; false when it
    /// was held already.
    pub fn add(&mut self, cols: &[u8]) -> bool {
        assert_eq!(cols.len(), self.n, "a witness has one column per row");
        let images = distinct_images(cols);
        if !self.known.insert(fingerprint(&images[0])) {
            return false;
        }
        self.lines.extend_from_slice(cols);
        self.images += images.len();
        for image in &images {
            if self.focus.is_none_or(|(r, c)| image[r] as usize == c) {
                self.cols.extend_from_slice(image);
            }
        }
        true
    }

    /// Spells out only the images holding `cell` (`None`: all of them), in the order their
    /// solutions were added; the walk reads those ([`Witnesses::spelled`]).
    pub fn focus(&mut self, cell: Option<Cell>) {
        if self.focus == cell && (cell.is_some() || self.cols.len() == self.images * self.n) {
            return;
        }
        self.focus = cell;
        self.cols.clear();
        let n = self.n;
        let cols = &mut self.cols;
        for line in self.lines.chunks_exact(n.max(1)) {
            match cell {
                None => {
                    for image in distinct_images(line) {
                        cols.extend_from_slice(&image);
                    }
                }
                Some((r, c)) => {
                    // Only the images whose symmetry takes a cell of the solution to `(r, c)`
                    // are made, straight into place, each once.
                    let first = cols.len();
                    for s in 0..8 {
                        let (r0, c0) = map_cell(n, (r, c), inverse(s));
                        if line[r0] as usize != c0 {
                            continue;
                        }
                        let at = cols.len();
                        cols.resize(at + n, 0);
                        map_solution_into(line, s, &mut cols[at..]);
                        let (before, image) = cols[first..].split_at(at - first);
                        if before.chunks_exact(n).any(|b| b == image) {
                            cols.truncate(at);
                        }
                    }
                }
            }
        }
    }

    /// Images spelled out ([`Witnesses::focus`]).
    fn spelled(&self) -> usize {
        self.cols.len() / self.n
    }

    /// The column of spelled image `w` in row `r`.
    #[inline]
    fn col(&self, w: u32, r: usize) -> usize {
        self.cols[w as usize * self.n + r] as usize
    }

    /// Spelled image `w`, one column per row.
    fn image(&self, w: u32) -> &[u8] {
        &self.cols[w as usize * self.n..(w as usize + 1) * self.n]
    }

    /// True when spelled image `w` holds every cell of `cells`.
    fn holds(&self, w: u32, cells: &[Cell]) -> bool {
        cells.iter().all(|&(r, c)| self.col(w, r) == c)
    }
}

/// The symmetry that undoes `s` ([`map_cell`]): the transposition and the flips commute
/// only without the transposition; with it, the two flips trade places.
fn inverse(s: usize) -> usize {
    if s & 4 != 0 {
        4 | (s & 1) << 1 | (s & 2) >> 1
    } else {
        s
    }
}

/// The distinct images of a solution under the eight symmetries, the least first, then in
/// the order of the symmetries.
fn distinct_images(cols: &[u8]) -> Vec<Vec<u8>> {
    let mut images: Vec<Vec<u8>> = Vec::with_capacity(8);
    for s in 0..8 {
        let image = map_solution(cols, s);
        if !images.contains(&image) {
            images.push(image);
        }
    }
    let least = (0..images.len())
        .min_by(|&a, &b| images[a].cmp(&images[b]))
        .unwrap_or(0);
    let first = images.remove(least);
    images.insert(0, first);
    images
}

/// The least of a solution's images.
fn least_image(cols: &[u8]) -> Vec<u8> {
    (0..8)
        .map(|s| map_solution(cols, s))
        .min()
        .unwrap_or_default()
}

/// 128 bits of a solution: two 64-bit FNV-1a-style hashes with different seeds and mixing.
fn fingerprint(cols: &[u8]) -> u128 {
    let (mut a, mut b) = (0xcbf2_9ce4_8422_2325u64, 0x9e37_79b9_7f4a_7c15u64);
    for &c in cols {
        a = (a ^ u64::from(c)).wrapping_mul(0x0000_0100_0000_01b3);
        b = (b ^ u64::from(c))
            .wrapping_mul(0xff51_afd7_ed55_8ccd)
            .rotate_left(29);
    }
    u128::from(a) << 64 | u128::from(b)
}

/// Whether the walk goes on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flow {
    /// Go on.
    Continue,
    /// Stop here.
    Stop,
}

/// What the walk asks of its caller.
pub trait Settle {
    /// A placement no witness contains: add one that does (and go on), or stop.
    fn uncovered(&mut self, placement: &[Cell], witnesses: &mut Witnesses) -> Flow;

    /// Between branches: `done` of `total` first queens walked, `stats` counted so far.
    /// [`Flow::Stop`] stops.
    fn tick(&mut self, _done: u64, _total: u64, _stats: &WalkStats) -> Flow {
        Flow::Continue
    }

    /// Before each first queen walked: the `done` first queens before it are finished, and
    /// `witnesses` are what they left (a resumable point). [`Flow::Stop`] stops.
    fn finished(&mut self, _done: u64, _witnesses: &Witnesses) -> Flow {
        Flow::Continue
    }

    /// With `k ≥ 3`, before each row of the second queen: the first queens before `index`
    /// are finished, and so are the placements of first queen `index` whose second queen
    /// lies above row `row` (a resumable point finer than [`Settle::finished`]: see
    /// [`walk_part_resume`]). [`Flow::Stop`] stops.
    fn row_finished(&mut self, _index: u64, _row: usize, _witnesses: &Witnesses) -> Flow {
        Flow::Continue
    }
}

/// What a walk counted.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WalkStats {
    /// Placements of exactly `k` queens walked.
    pub placements: u64,
    /// Placements of 1 to `k - 1` queens walked.
    pub smaller: u64,
    /// Placements handed to [`Settle::uncovered`].
    pub uncovered: u64,
    /// Placements still uncovered after that.
    pub left: u64,
}

/// How a walk ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Walked {
    /// Every placement walked is covered.
    Covered(WalkStats),
    /// Stopped by the caller, or some placement is left uncovered: the first placement left
    /// uncovered, if any (`None`: stopped between branches).
    Stopped(WalkStats, Option<Vec<Cell>>),
}

/// Walks every placement of 1 to `k` queens on the `n`×`n` board as the module documentation
/// describes (with `k = 0`, the empty placement), whose queens all lie in `within` (one mask
/// of columns per row; `None`: the whole board), and hands those no witness covers to
/// `settle`.
pub fn walk(
    k: usize,
    within: Option<&[u64]>,
    witnesses: &mut Witnesses,
    settle: &mut dyn Settle,
) -> Walked {
    walk_part(k, within, (0, 1), witnesses, settle)
}

/// The first queens `(m, c)` the walk meets, in its order: `m` from 0, then `c` from `m`,
/// both up to `(n - 1) / 2`. A part `(i, parts)` of [`walk_part`] takes those whose index
/// in this list is `i` modulo `parts`.
pub fn first_queens(n: usize) -> Vec<Cell> {
    let half = n.saturating_sub(1) / 2;
    (0..=half)
        .flat_map(|m| (m..=half).map(move |c| (m, c)))
        .collect()
}

/// [`walk`], restricted to part `index` of `parts`: the placements whose first queen's index
/// in [`first_queens`] is `index` modulo `parts` (the empty placement, when `k = 0`, is in
/// part 0). Every placement the whole walk meets lies in exactly one part, so witnesses that
/// cover every part's walk, together, cover the whole walk.
pub fn walk_part(
    k: usize,
    within: Option<&[u64]>,
    part: (usize, usize),
    witnesses: &mut Witnesses,
    settle: &mut dyn Settle,
) -> Walked {
    walk_part_from(k, within, part, 0, witnesses, settle)
}

/// [`walk_part`], skipping the first `from` first queens of [`first_queens`] (finished by an
/// earlier walk whose witnesses `witnesses` holds): with the same witnesses and the same
/// answers from `settle`, it walks the rest as the whole walk would have.
pub fn walk_part_from(
    k: usize,
    within: Option<&[u64]>,
    part: (usize, usize),
    from: u64,
    witnesses: &mut Witnesses,
    settle: &mut dyn Settle,
) -> Walked {
    walk_part_resume(k, within, part, (from, 0), witnesses, settle)
}

/// [`walk_part_from`], resuming inside a first queen: with `from = (f, row)` and `row > 0`,
/// the first `f` first queens are skipped, and of first queen `f` only the placements
/// whose second queen lies in row `row` or below are walked (the point
/// [`Settle::row_finished`] reported; the first queen alone and the placements above were
/// walked before).
pub fn walk_part_resume(
    k: usize,
    within: Option<&[u64]>,
    (index, parts): (usize, usize),
    (from, from_row): (u64, usize),
    witnesses: &mut Witnesses,
    settle: &mut dyn Settle,
) -> Walked {
    assert!(index < parts, "part {index} of {parts} does not exist");
    let n = witnesses.n();
    assert!(
        (1..=MAX_WALK_N).contains(&n),
        "walk boards of 1..={MAX_WALK_N} rows"
    );
    let mut w = Walker {
        n,
        k,
        witnesses,
        settle,
        within: within.map(<[u64]>::to_vec),
        part: (index, parts),
        hi: 0,
        allowed: vec![0; n],
        queens: Vec::with_capacity(k),
        lists: vec![Records::default(); k + 1],
        sorted: vec![Vec::new(); k + 1],
        starts: vec![vec![0; n + 1]; k + 1],
        fill: vec![0; n + 1],
        marks: vec![0; n * n],
        late: vec![Records::default(); k + 1],
        cov: vec![0; n],
        stats: WalkStats::default(),
        stopped_at: None,
        done: 0,
        total: 0,
        from,
        from_row: if k >= 3 { from_row } else { 0 },
    };
    if w.run() && w.stopped_at.is_none() {
        Walked::Covered(w.stats)
    } else {
        Walked::Stopped(w.stats, w.stopped_at)
    }
}

struct Walker<'a> {
    n: usize,
    k: usize,
    witnesses: &'a mut Witnesses,
    settle: &'a mut dyn Settle,
    within: Option<Vec<u64>>,
    /// Which first queens are walked: index modulo count ([`walk_part`]).
    part: (usize, usize),
    /// The last row and column of the current box.
    hi: usize,
    /// The columns each row may use (box and `within`).
    allowed: Vec<u64>,
    queens: Vec<Cell>,
    /// `lists[d]` (`d ≥ 2`): the witnesses holding the first `d` queens, as records of the
    /// rows below the last of them. At depth 1 the list is every image spelled out, read in
    /// place.
    lists: Vec<Records>,
    /// The list of depth `d` bucketed by column in the row being walked at depth `d`, as
    /// the children's records (the rows below that row), `starts[d]` records apart.
    sorted: Vec<Vec<u8>>,
    starts: Vec<Vec<u32>>,
    /// Scratch for [`Walker::bucket`]: where each column's next record goes.
    fill: Vec<u32>,
    /// [`Walker::mark`]'s marks: for column `c`, the cells of row `r` at `c * n + r`.
    marks: Vec<u64>,
    /// Witnesses added to the list of depth `d` after it was bucketed, laid out as it is.
    late: Vec<Records>,
    /// One queen short of `k`: the cells the witnesses left hold, per row.
    cov: Vec<u64>,
    stats: WalkStats,
    stopped_at: Option<Vec<Cell>>,
    /// First queens walked, of `total`, for [`Settle::tick`].
    done: u64,
    total: u64,
    /// First queens before this index are skipped ([`walk_part_from`]).
    from: u64,
    /// Of first queen `from`, the second queen's rows above this one are skipped
    /// ([`walk_part_resume`]; 0: none).
    from_row: usize,
}

impl Walker<'_> {
    fn run(&mut self) -> bool {
        let n = self.n;
        if self.k == 0 {
            if self.witnesses.is_empty() && self.part.0 == 0 {
                self.stats.uncovered += 1;
                let flow = self.settle.uncovered(&[], self.witnesses);
                if self.witnesses.is_empty() {
                    self.stats.left += 1;
                    self.stopped_at = Some(Vec::new());
                }
                return flow == Flow::Continue;
            }
            return true;
        }
        let half = (n - 1) / 2;
        self.total = (0..=half).map(|m| (half + 1 - m) as u64).sum();
        for m in 0..=half {
            self.hi = n - 1 - m;
            let boxed = bits(m, self.hi);
            for r in 0..n {
                let band = self.within.as_ref().map_or(u64::MAX, |w| w[r]);
                self.allowed[r] = if (m..=self.hi).contains(&r) {
                    boxed & band
                } else {
                    0
                };
            }
            for c in m..=half {
                if self.done < self.from {
                    self.done += 1;
                    continue;
                }
                // Resumed inside this first queen: the point is the one resumed from.
                let inside = self.done == self.from && self.from_row > 0;
                if !inside && self.settle.finished(self.done, self.witnesses) == Flow::Stop {
                    return false;
                }
                if self.settle.tick(self.done, self.total, &self.stats) == Flow::Stop {
                    return false;
                }
                let index = self.done as usize;
                self.done += 1;
                if index % self.part.1 != self.part.0 || self.allowed[m] >> c & 1 == 0 {
                    continue;
                }
                self.queens.clear();
                self.queens.push((m, c));
                // Every image spelled out holds the first queen.
                self.witnesses.focus(Some((m, c)));
                self.late[1].reset(0, n);
                // Resumed inside this first queen: it was settled before.
                let resumed = index as u64 == self.from && self.from_row > 0;
                if !resumed && !self.settle_node(1) {
                    return false;
                }
                if self.k > 1 && !self.descend(1) {
                    return false;
                }
            }
        }
        true
    }

    /// The placement of the `d` queens: covered, or settled; false when the walk stops.
    fn settle_node(&mut self, d: usize) -> bool {
        if d == self.k {
            self.stats.placements += 1;
        } else {
            self.stats.smaller += 1;
        }
        if self.count(d) != 0 {
            return true;
        }
        self.ask(d, None)
    }

    /// Hands the first `d` queens plus `extra` to the caller, then files the witnesses it
    /// added (a placement still uncovered is counted, the first kept); false when the caller
    /// stops the walk.
    fn ask(&mut self, d: usize, extra: Option<Cell>) -> bool {
        let before = self.witnesses.spelled() as u32;
        let mut placement = self.queens[..d].to_vec();
        placement.extend(extra);
        self.stats.uncovered += 1;
        let flow = self.settle.uncovered(&placement, self.witnesses);
        let after = self.witnesses.spelled() as u32;
        let mut covered = false;
        for x in before..after {
            for j in 1..=d {
                if self.witnesses.holds(x, &self.queens[..j]) {
                    let image = self.witnesses.image(x);
                    // At depth 1 the list is the spelled images themselves.
                    if j >= 2 {
                        self.lists[j].push(image);
                    }
                    self.late[j].push(image);
                }
            }
            if extra.is_some() && self.witnesses.holds(x, &self.queens[..d]) {
                let rl = self.queens[d - 1].0;
                for r in rl + 1..=self.hi {
                    self.cov[r] |= 1 << self.witnesses.col(x, r);
                }
            }
            covered |= self.witnesses.holds(x, &placement);
        }
        if !covered {
            self.stats.left += 1;
            if self.stopped_at.is_none() {
                self.stopped_at = Some(placement);
            }
        }
        flow == Flow::Continue
    }

    /// The columns of row `r` no queen attacks, within the allowed ones.
    fn free(&self, r: usize) -> u64 {
        let mut hit = 0u64;
        for &(qr, qc) in &self.queens {
            let dr = r - qr;
            hit |= 1 << qc;
            if qc + dr < self.n {
                hit |= 1 << (qc + dr);
            }
            if qc >= dr {
                hit |= 1 << (qc - dr);
            }
        }
        self.allowed[r] & !hit
    }

    /// Walks the children of the node holding `d` queens (`1 ≤ d < k`).
    fn descend(&mut self, d: usize) -> bool {
        let rl = self.queens[d - 1].0;
        if d == self.k - 1 {
            return self.leaves(d, rl, None);
        }
        // The children hold `k - 1` queens: their lists are only ever marked, so the marks
        // are made here, in one pass, and no record is copied.
        let last = d + 2 == self.k;
        for r in rl + 1..=self.hi {
            // A first queen's subtree can take minutes: the caller may save and stop at
            // each row of the second queen too.
            if d == 1 {
                let index = self.done - 1;
                if index == self.from && r < self.from_row {
                    continue;
                }
                if self.settle.row_finished(index, r, self.witnesses) == Flow::Stop {
                    return false;
                }
                if self.settle.tick(self.done, self.total, &self.stats) == Flow::Stop {
                    return false;
                }
            }
            let free = self.free(r);
            if free == 0 {
                continue;
            }
            if last {
                self.mark(d, r);
            } else {
                self.bucket(d, r);
            }
            // The children's records: the rows below `r`.
            let stride = self.hi - r;
            let mut cols = free;
            while cols != 0 {
                let c = cols.trailing_zeros() as usize;
                cols &= cols - 1;
                let mut child = std::mem::take(&mut self.lists[d + 1]);
                child.reset(r + 1, stride);
                let (s, e) = (self.starts[d][c] as usize, self.starts[d][c + 1] as usize);
                if !last {
                    child
                        .bytes
                        .extend_from_slice(&self.sorted[d][s * stride..e * stride]);
                }
                child.count = e - s;
                let late = &self.late[d];
                for record in late.records() {
                    if record[r - late.base] as usize == c {
                        let from = r + 1 - late.base;
                        child.bytes.extend_from_slice(&record[from..from + stride]);
                        child.count += 1;
                    }
                }
                self.lists[d + 1] = child;
                self.late[d + 1].reset(r + 1, stride);
                self.queens.push((r, c));
                let ok = self.settle_node(d + 1)
                    && if last {
                        self.leaves(d + 1, r, Some(c))
                    } else {
                        self.descend(d + 1)
                    };
                self.queens.pop();
                if !ok {
                    return false;
                }
            }
        }
        true
    }

    /// The witnesses holding the first `d` queens.
    fn count(&self, d: usize) -> usize {
        if d == 1 {
            self.witnesses.spelled()
        } else {
            self.lists[d].count
        }
    }

    /// Buckets the list of depth `d` by column in row `r` into `sorted[d]`, each record
    /// cut to the rows below `r`: a child's list is then one run of bytes, read in order,
    /// however scattered its witnesses lie among the spelled images.
    fn bucket(&mut self, d: usize, r: usize) {
        let (n, cut) = (self.n, self.hi - r);
        let Walker {
            witnesses,
            lists,
            sorted,
            starts,
            fill,
            late,
            ..
        } = self;
        let (bytes, base, stride) = source(witnesses, lists, d);
        let at = r - base;
        let starts = &mut starts[d];
        starts.iter_mut().for_each(|s| *s = 0);
        let records = bytes.chunks_exact(stride.max(1));
        for record in records.clone() {
            starts[record[at] as usize + 1] += 1;
        }
        for c in 0..n {
            starts[c + 1] += starts[c];
        }
        let sorted = &mut sorted[d];
        sorted.clear();
        sorted.resize(starts[n] as usize * cut, 0);
        fill.copy_from_slice(starts);
        for record in records {
            let c = record[at] as usize;
            let to = fill[c] as usize * cut;
            sorted[to..to + cut].copy_from_slice(&record[at + 1..at + 1 + cut]);
            fill[c] += 1;
        }
        late[d].reset(base, stride);
    }

    /// [`Walker::bucket`] for children that hold `k - 1` queens: counts the list of depth `d`
    /// by column in row `r` into `starts[d]`, as `bucket` does, and, for each column `c`,
    /// marks in `marks` (row `r'` of column `c` at `c * n + r'`) the cells below `r` that
    /// the records of column `c` hold, which is all [`Walker::leaves`] reads of them.
    fn mark(&mut self, d: usize, r: usize) {
        let (n, hi) = (self.n, self.hi);
        let Walker {
            witnesses,
            lists,
            starts,
            marks,
            late,
            ..
        } = self;
        let (bytes, base, stride) = source(witnesses, lists, d);
        let at = r - base;
        let starts = &mut starts[d];
        starts.iter_mut().for_each(|s| *s = 0);
        for c in 0..n {
            marks[c * n + r + 1..=c * n + hi].fill(0);
        }
        for record in bytes.chunks_exact(stride.max(1)) {
            let c = record[at] as usize;
            starts[c + 1] += 1;
            let held = &mut marks[c * n + r + 1..=c * n + hi];
            for (held, &b) in held.iter_mut().zip(&record[at + 1..]) {
                *held |= 1 << b;
            }
        }
        for c in 0..n {
            starts[c + 1] += starts[c];
        }
        late[d].reset(base, stride);
    }

    /// The placements one queen larger than the node holding `d = k - 1` queens, the last in
    /// row `rl`. With `marked = Some(c)`, the cells its list's records hold were marked by
    /// [`Walker::mark`] for column `c`, and the list holds only the records added since.
    fn leaves(&mut self, d: usize, rl: usize, marked: Option<usize>) -> bool {
        let n = self.n;
        for r in rl + 1..=self.hi {
            self.cov[r] = marked.map_or(0, |c| self.marks[c * n + r]);
        }
        let (bytes, base, stride) = source(self.witnesses, &self.lists, d);
        let from = rl + 1 - base;
        let cov = &mut self.cov[rl + 1..=self.hi];
        for record in bytes.chunks_exact(stride.max(1)) {
            for (held, &c) in cov.iter_mut().zip(&record[from..]) {
                *held |= 1 << c;
            }
        }
        for r in rl + 1..=self.hi {
            let free = self.free(r);
            self.stats.placements += u64::from(free.count_ones());
            let mut open = free & !self.cov[r];
            while open != 0 {
                let c = open.trailing_zeros() as usize;
                open &= open - 1;
                if self.cov[r] >> c & 1 != 0 {
                    continue;
                }
                if !self.ask(d, Some((r, c))) {
                    return false;
                }
            }
        }
        true
    }
}

/// The witnesses of one node of the walk, as bytes: each record is the columns of one image
/// in rows `base..base + stride`, the rows below the node's last queen, which are all its
/// subtree reads. Read in order, they stay in cache where indices into the spelled images
/// would miss it at every witness.
#[derive(Clone, Debug, Default)]
struct Records {
    base: usize,
    stride: usize,
    /// Records held (`bytes` is `count * stride` long; `stride` may be 0).
    count: usize,
    bytes: Vec<u8>,
}

impl Records {
    /// Empties the list, its records to hold rows `base..base + stride`.
    fn reset(&mut self, base: usize, stride: usize) {
        self.base = base;
        self.stride = stride;
        self.count = 0;
        self.bytes.clear();
    }

    /// Adds the record of a whole image (one column per row).
    fn push(&mut self, image: &[u8]) {
        self.bytes
            .extend_from_slice(&image[self.base..self.base + self.stride]);
        self.count += 1;
    }

    /// The records in order.
    fn records(&self) -> impl Iterator<Item = &[u8]> {
        self.bytes.chunks_exact(self.stride.max(1))
    }
}

/// The list of depth `d` of a walk: its records, the first row they hold and their length.
/// At depth 1 it is every image spelled out, read in place.
fn source<'a>(
    witnesses: &'a Witnesses,
    lists: &'a [Records],
    d: usize,
) -> (&'a [u8], usize, usize) {
    if d == 1 {
        (&witnesses.cols, 0, witnesses.n)
    } else {
        let list = &lists[d];
        (&list.bytes, list.base, list.stride)
    }
}

/// The mask of columns `lo..=hi`.
fn bits(lo: usize, hi: usize) -> u64 {
    let upto = if hi >= 63 {
        u64::MAX
    } else {
        (1u64 << (hi + 1)) - 1
    };
    upto & !((1u64 << lo) - 1)
}

/// The cells within distance `band` of an edge, one column mask per row (for
/// [`walk`]'s `within`).
pub fn edge_band(n: usize, band: usize) -> Vec<u64> {
    (0..n)
        .map(|r| {
            if r.min(n - 1 - r) <= band {
                bits(0, n - 1)
            } else {
                (0..n)
                    .filter(|&c| c.min(n - 1 - c) <= band)
                    .fold(0, |m, c| m | 1 << c)
            }
        })
        .collect()
}

/// The cells within distance `radius` of the board's centre (rows and columns
/// `(n - 1) / 2 - radius..=n / 2 + radius`), one column mask per row.
pub fn centre_box(n: usize, radius: usize) -> Vec<u64> {
    let lo = ((n - 1) / 2).saturating_sub(radius);
    let hi = (n / 2 + radius).min(n - 1);
    (0..n)
        .map(|r| {
            if (lo..=hi).contains(&r) {
                bits(lo, hi)
            } else {
                0
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn peaceful(cur: &[Cell], (r, c): Cell) -> bool {
        cur.iter()
            .all(|&(a, b)| a != r && b != c && a + c != r + b && a + b != r + c)
    }

    /// Every non-attacking placement of exactly `k` queens (brute force).
    fn all_placements(n: usize, k: usize) -> Vec<Vec<Cell>> {
        fn rec(n: usize, k: usize, from: usize, cur: &mut Vec<Cell>, out: &mut Vec<Vec<Cell>>) {
            if cur.len() == k {
                out.push(cur.clone());
                return;
            }
            for x in from..n * n {
                if peaceful(cur, (x / n, x % n)) {
                    cur.push((x / n, x % n));
                    rec(n, k, x + 1, cur, out);
                    cur.pop();
                }
            }
        }
        let mut out = Vec::new();
        rec(n, k, 0, &mut Vec::new(), &mut out);
        out
    }

    fn solutions(n: usize) -> Vec<Vec<u8>> {
        all_placements(n, n)
            .into_iter()
            .map(|p| p.iter().map(|&(_, c)| c as u8).collect())
            .collect()
    }

    fn canonical(n: usize, p: &[Cell]) -> Vec<Cell> {
        (0..8)
            .map(|s| {
                let mut q: Vec<Cell> = p.iter().map(|&x| map_cell(n, x, s)).collect();
                q.sort_unstable();
                q
            })
            .min()
            .unwrap()
    }

    /// Focused on a cell, the witnesses spell out exactly the distinct images holding it,
    /// each once, whether the solutions came before or after the focus, the symmetric
    /// solutions (whose images repeat) among them.
    #[test]
    fn a_focus_spells_each_image_holding_its_cell_once() {
        for n in [4, 5, 6, 8, 9] {
            let all = solutions(n);
            for r in 0..n {
                for c in 0..n {
                    let mut early = Witnesses::new(n);
                    early.focus(Some((r, c)));
                    let mut late = Witnesses::new(n);
                    for s in &all {
                        early.add(s);
                        late.add(s);
                    }
                    late.focus(Some((r, c)));
                    // The solutions are closed under the symmetries: the images holding
                    // the cell are the solutions that hold it.
                    let mut want: Vec<Vec<u8>> =
                        all.iter().filter(|s| s[r] as usize == c).cloned().collect();
                    want.sort();
                    for w in [&early, &late] {
                        let mut got: Vec<Vec<u8>> = (0..w.spelled() as u32)
                            .map(|i| w.image(i).to_vec())
                            .collect();
                        got.sort();
                        assert_eq!(got, want, "n = {n}, cell ({r}, {c})");
                    }
                }
            }
        }
    }

    /// Records the placements handed over, adding nothing.
    struct Record(Vec<Vec<Cell>>);
    impl Settle for Record {
        fn uncovered(&mut self, placement: &[Cell], _: &mut Witnesses) -> Flow {
            self.0.push(placement.to_vec());
            Flow::Continue
        }
    }

    /// Adds, for each placement handed over, the first solution of a list that holds it.
    struct Oracle(Vec<Vec<u8>>, u64);
    impl Settle for Oracle {
        fn uncovered(&mut self, p: &[Cell], w: &mut Witnesses) -> Flow {
            self.1 += 1;
            match self
                .0
                .iter()
                .find(|s| p.iter().all(|&(r, c)| s[r] as usize == c))
            {
                Some(s) => {
                    w.add(s);
                    Flow::Continue
                }
                None => Flow::Stop,
            }
        }
    }

    /// The placements the walk's bounds admit (module documentation), by brute force.
    fn bounded(n: usize, k: usize) -> Vec<Vec<Cell>> {
        let half = (n - 1) / 2;
        all_placements(n, k)
            .into_iter()
            .filter(|p| {
                let (m, c) = p[0];
                let hi = n - 1 - m;
                m <= half
                    && (m..=half).contains(&c)
                    && p.iter()
                        .all(|&(r, c)| (m..=hi).contains(&r) && (m..=hi).contains(&c))
            })
            .collect()
    }

    #[test]
    fn the_bounds_meet_every_orbit() {
        for n in 4..=8 {
            for k in 1..=3 {
                let want: HashSet<_> = all_placements(n, k)
                    .iter()
                    .map(|p| canonical(n, p))
                    .collect();
                let got: HashSet<_> = bounded(n, k).iter().map(|p| canonical(n, p)).collect();
                assert_eq!(got, want, "n = {n}, k = {k}");
            }
        }
    }

    #[test]
    fn the_walk_counts_the_bounded_placements_and_settles_each_uncovered_one() {
        for n in 5..=8 {
            let sols = solutions(n);
            for k in 1..=5 {
                // Every solution a witness: the walk meets exactly the bounded placements,
                // and hands over exactly those no solution holds.
                let mut all = Witnesses::new(n);
                for s in &sols {
                    all.add(s);
                }
                let mut rec = Record(Vec::new());
                let walked = walk(k, None, &mut all, &mut rec);
                let placements = bounded(n, k);
                let smaller: usize = (1..k).map(|j| bounded(n, j).len()).sum();
                let stats = match walked {
                    Walked::Stopped(s, Some(_)) => s,
                    Walked::Stopped(_, None) => panic!("n = {n}, k = {k}: stopped"),
                    Walked::Covered(s) => s,
                };
                assert_eq!(stats.left, stats.uncovered, "n = {n}, k = {k}");
                assert_eq!(
                    stats.placements,
                    placements.len() as u64,
                    "n = {n}, k = {k}"
                );
                assert_eq!(stats.smaller, smaller as u64, "n = {n}, k = {k}");
                let holds = |p: &[Cell]| {
                    sols.iter()
                        .any(|s| p.iter().all(|&(r, c)| s[r] as usize == c))
                };
                let mut want: Vec<Vec<Cell>> = (1..=k)
                    .flat_map(|j| bounded(n, j))
                    .filter(|p| !holds(p))
                    .collect();
                want.sort();
                rec.0.sort();
                assert_eq!(rec.0, want, "n = {n}, k = {k}");
                // Witnesses found one at a time cover what the oracle can complete.
                let mut found = Witnesses::new(n);
                let mut oracle = Oracle(sols.clone(), 0);
                let walked = walk(k, None, &mut found, &mut oracle);
                let complete = want.is_empty();
                assert_eq!(
                    matches!(walked, Walked::Covered(_)),
                    complete,
                    "n = {n}, k = {k}"
                );
                if let Walked::Stopped(_, Some(p)) = walked {
                    assert!(!holds(&p), "n = {n}, k = {k}: {p:?} completes");
                }
            }
        }
    }

    #[test]
    fn the_parts_of_a_walk_meet_each_placement_once() {
        for n in 5..=8 {
            for k in 0..=5 {
                let mut whole = Record(Vec::new());
                walk(k, None, &mut Witnesses::new(n), &mut whole);
                whole.0.sort();
                for parts in [1, 2, 3, 5] {
                    let mut got = Vec::new();
                    for i in 0..parts {
                        let mut rec = Record(Vec::new());
                        walk_part(k, None, (i, parts), &mut Witnesses::new(n), &mut rec);
                        assert!(
                            rec.0.iter().all(|p| p.first().map_or(0, |&q| {
                                first_queens(n).iter().position(|&f| f == q).unwrap()
                            }) % parts
                                == i),
                            "n = {n}, k = {k}: a placement of another part"
                        );
                        got.extend(rec.0);
                    }
                    got.sort();
                    assert_eq!(got, whole.0, "n = {n}, k = {k}, {parts} parts");
                }
            }
        }
    }

    /// Records the placements handed over, and stops at the `stop_at`-th resumable point
    /// inside a first queen, keeping it.
    struct StopInside {
        got: Vec<Vec<Cell>>,
        points: usize,
        stop_at: usize,
        at: Option<(u64, usize)>,
    }
    impl Settle for StopInside {
        fn uncovered(&mut self, placement: &[Cell], _: &mut Witnesses) -> Flow {
            self.got.push(placement.to_vec());
            Flow::Continue
        }
        fn row_finished(&mut self, index: u64, row: usize, _: &Witnesses) -> Flow {
            self.points += 1;
            if self.points == self.stop_at {
                self.at = Some((index, row));
                return Flow::Stop;
            }
            Flow::Continue
        }
    }

    #[test]
    fn a_walk_resumed_inside_a_first_queen_meets_the_rest_once() {
        for n in [7, 8] {
            let mut whole = Record(Vec::new());
            walk(3, None, &mut Witnesses::new(n), &mut whole);
            for stop_at in [1, 2, 5, 9, 17] {
                let mut first = StopInside {
                    got: Vec::new(),
                    points: 0,
                    stop_at,
                    at: None,
                };
                walk(3, None, &mut Witnesses::new(n), &mut first);
                let (index, row) = first.at.expect("stopped inside a first queen");
                let mut rest = Record(Vec::new());
                walk_part_resume(
                    3,
                    None,
                    (0, 1),
                    (index, row),
                    &mut Witnesses::new(n),
                    &mut rest,
                );
                let mut got = first.got;
                got.extend(rest.0);
                assert_eq!(got, whole.0, "n = {n}, stopped at point {stop_at}");
            }
        }
    }

    #[test]
    fn images_are_solutions_and_distinct() {
        let sols = solutions(8);
        let mut w = Witnesses::new(8);
        for s in &sols {
            w.add(s);
        }
        assert_eq!(w.len(), 92);
        assert_eq!(w.solutions().len(), 12);
    }
}
