//! The game solved by retrograde analysis over every set of queens (n ≤ 6, 2^36 sets), with
//! bitmaps instead of a memo table, and the reachable positions (Q11) by the same sweep run
//! forwards.
//!
//! A position is a set S of queens (in the complementary game: the set of squares emptied so
//! far, so that every game adds a square). A move adds a square whose parity (the parity of
//! the queens of S attacking it, no blocking) equals the variant's *target*: 0 in the standard
//! game, 1 in the alternate one, and in the complementary one the parity of the square's own
//! number of attacking squares (removing a queen of even value from the full board is adding
//! a square with that parity to the set of emptied squares). Who cannot move loses, so
//! `win(S)` depends only on the sets one larger: the sets are solved from the full board
//! down, and reachability from the empty set up.
//!
//! **Layout.** Bit `c` of S is square `(c / n, c % n)`. The lowest 6 squares index a bit of a
//! `u64` word (64 sets in one word); the next 12 index a word of a *block* (4096 words,
//! 32 KiB); the rest (18 squares for n = 6) are the block's *high set*. Blocks are stored level
//! by level (the number of queens in the high set), ranked in colex order (combinatorial
//! number system), and only two levels are in memory at once: for n = 6 at most
//! C(18,9) + C(18,10) blocks, 3.0 GB.
//!
//! **Bit-parallel step.** For a word (fixed high set and middle squares) the 64 sets differ in
//! the lowest 6 squares, and whether square c is open is linear in those: open iff
//! `odd[c](a) == eff_c`, where `odd[c]` is the fixed mask of the 64 low sets attacking c an odd
//! number of times and `eff_c` is the parity of the other queens plus the target. So one move
//! is an AND and an OR over 64 sets: `win |= open_mask(c) & !child_word`. Moves inside the
//! word are shifts (`a → a | 1 << m` is `word >> (1 << m)`), resolved layer by layer of the
//! low popcount.

use std::fs;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::Instant;

use serde::{Deserialize, Serialize};

use super::rules::Variant;
use queens_model::model::Pos;

/// Largest board side the retrograde solver takes (2^36 sets; n = 7 would need 2^49).
pub const MAX_N: usize = 6;

/// Squares indexed inside one word.
const WORD_CELLS: usize = 6;
/// Squares indexed inside one block (word and middle).
const LO_CELLS: usize = 18;

/// The two sweeps: the winner (full board down) and the reachable sets (empty board up).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Pass {
    /// `win(S)` for every set, fullest level first.
    Solve,
    /// Whether S is reachable from the start, emptiest level first.
    Reach,
}

impl Pass {
    fn name(self) -> &'static str {
        match self {
            Pass::Solve => "solve",
            Pass::Reach => "reach",
        }
    }
}

/// Squares, masks and ranks of the n×n board in the retrograde layout, for one variant.
pub struct Layout {
    n: usize,
    cells: usize,
    variant: Variant,
    word_cells: usize,
    mid_cells: usize,
    hi_cells: usize,
    block_words: usize,
    attack: Vec<u64>,
    /// Bit c: the parity a square must have to be open.
    target: u64,
    /// `odd[c]`: the low sets (bit a of the word) attacking square c an odd number of times.
    odd: Vec<u64>,
    /// `pmid[m]`: the parity of every square under the middle squares `m`.
    pmid: Vec<u64>,
    /// `layer[p]`: the low sets of p queens.
    layer: [u64; WORD_CELLS + 1],
    /// The low sets that exist (all 64 unless the board has fewer than 6 squares).
    valid: u64,
    /// `nobit[m]` / `hasbit[m]`: the low sets without / with square m.
    nobit: [u64; WORD_CELLS],
    hasbit: [u64; WORD_CELLS],
    binom: Vec<Vec<u64>>,
}

impl Layout {
    /// The layout of the n×n board (1 ≤ n ≤ [`MAX_N`]) for `variant`.
    pub fn new(n: usize, variant: Variant) -> Layout {
        assert!(
            (1..=MAX_N).contains(&n),
            "the retrograde solver takes n = 1..={MAX_N}"
        );
        let cells = n * n;
        let word_cells = cells.min(WORD_CELLS);
        let mid_cells = cells.min(LO_CELLS) - word_cells;
        let hi_cells = cells - word_cells - mid_cells;
        let attack: Vec<u64> = (0..cells)
            .map(|a| {
                (0..cells)
                    .filter(|&b| super::rules::attacks((a / n, a % n), (b / n, b % n)))
                    .fold(0, |m, b| m | 1u64 << b)
            })
            .collect();
        let target = match variant {
            Variant::Standard => 0,
            Variant::Alternate => (1u64 << cells) - 1,
            Variant::Complementary => (0..cells)
                .filter(|&c| attack[c].count_ones() % 2 == 1)
                .fold(0, |m, c| m | 1u64 << c),
        };
        let valid = match 1u64 << word_cells {
            64 => !0,
            sets => (1u64 << sets) - 1,
        };
        let low = |f: &dyn Fn(u64) -> bool| (0..64u64).filter(|&a| f(a)).fold(0, |m, a| m | 1 << a);
        let word_mask = (1u64 << word_cells) - 1;
        let odd = (0..cells)
            .map(|c| low(&|a| (a & word_mask & attack[c]).count_ones() % 2 == 1) & valid)
            .collect();
        let pmid = (0..1usize << mid_cells)
            .map(|m| {
                (0..mid_cells)
                    .filter(|&i| m >> i & 1 == 1)
                    .fold(0, |p, i| p ^ attack[word_cells + i])
            })
            .collect();
        let mut layer = [0; WORD_CELLS + 1];
        for (p, l) in layer.iter_mut().enumerate() {
            *l = low(&|a| a.count_ones() as usize == p) & valid;
        }
        let mut nobit = [0; WORD_CELLS];
        let mut hasbit = [0; WORD_CELLS];
        for m in 0..WORD_CELLS {
            nobit[m] = low(&|a| a >> m & 1 == 0) & valid;
            hasbit[m] = low(&|a| a >> m & 1 == 1) & valid;
        }
        let mut binom = vec![vec![0u64; 40]; 40];
        for a in 0..40 {
            binom[a][0] = 1;
            for b in 1..=a {
                binom[a][b] = binom[a - 1][b - 1] + binom[a - 1][b];
            }
        }
        Layout {
            n,
            cells,
            variant,
            word_cells,
            mid_cells,
            hi_cells,
            block_words: 1 << mid_cells,
            attack,
            target,
            odd,
            pmid,
            layer,
            valid,
            nobit,
            hasbit,
            binom,
        }
    }

    /// Squares of the high set (the level index runs 0..=this).
    pub fn hi_cells(&self) -> usize {
        self.hi_cells
    }

    /// Blocks at level j.
    pub fn level_blocks(&self, j: usize) -> u64 {
        self.binom[self.hi_cells][j]
    }

    /// Bytes of one block.
    pub fn block_bytes(&self) -> u64 {
        self.block_words as u64 * 8
    }

    /// Bytes of level j.
    pub fn level_bytes(&self, j: usize) -> u64 {
        self.level_blocks(j) * self.block_bytes()
    }

    /// Sets at level j (blocks times sets per block).
    fn level_sets(&self, j: usize) -> u64 {
        self.level_blocks(j) << (self.word_cells + self.mid_cells)
    }

    /// The colex rank of the high set `hi` among those of its size.
    fn rank(&self, mut hi: u64) -> usize {
        let mut r = 0;
        let mut k = 1;
        while hi != 0 {
            let c = hi.trailing_zeros() as usize;
            r += self.binom[c][k];
            k += 1;
            hi &= hi - 1;
        }
        r as usize
    }

    /// The high set of size j at colex rank `r`.
    fn unrank(&self, mut r: u64, j: usize) -> u64 {
        let mut hi = 0;
        let mut top = self.hi_cells;
        for k in (1..=j).rev() {
            let mut c = k - 1;
            while c + 1 < top && self.binom[c + 1][k] <= r {
                c += 1;
            }
            r -= self.binom[c][k];
            hi |= 1 << c;
            top = c;
        }
        hi
    }

    /// Where set `s` lives: (level, block rank, word, bit).
    fn locate(&self, s: u64) -> (usize, usize, usize, u32) {
        let lo = self.word_cells + self.mid_cells;
        let hi = s >> lo;
        let mid = (s >> self.word_cells) as usize & (self.block_words - 1);
        let a = (s & ((1 << self.word_cells) - 1)) as u32;
        (hi.count_ones() as usize, self.rank(hi), mid, a)
    }

    /// Parity of every square under the queens of `s`.
    fn parity(&self, s: u64) -> u64 {
        let mut p = 0;
        let mut b = s;
        while b != 0 {
            p ^= self.attack[b.trailing_zeros() as usize];
            b &= b - 1;
        }
        p
    }

    /// The legal moves from set `s` (`first`: no move made yet, the alternate game's free
    /// move).
    pub fn moves(&self, s: u64, first: bool) -> u64 {
        let full = (1u64 << self.cells) - 1;
        if first && self.variant == Variant::Alternate {
            return full & !s;
        }
        full & !s & !(self.parity(s) ^ self.target)
    }

    /// The mask of low sets for which square c is open, given `eff` (parity of the queens
    /// outside the word, plus the target).
    #[inline(always)]
    fn open(&self, eff: u64, c: usize) -> u64 {
        if eff >> c & 1 == 1 {
            self.odd[c]
        } else {
            !self.odd[c] & self.valid
        }
    }

    /// Solves block `hi` (level j) into `out`, given the blocks of level j + 1 it moves to.
    fn solve_block(&self, hi: u64, out: &mut [u64], children: &[(usize, &[u64])]) {
        let lo = self.word_cells + self.mid_cells;
        let hi_sq = hi << lo;
        let p_hi = self.parity(hi_sq) ^ self.target;
        let mid_full = self.block_words - 1;
        for mid in (0..self.block_words).rev() {
            let eff = p_hi ^ self.pmid[mid];
            let mut win = 0u64;
            let mut free = !mid & mid_full;
            while free != 0 {
                let i = free.trailing_zeros() as usize;
                free &= free - 1;
                win |= self.open(eff, self.word_cells + i) & !out[mid | 1 << i];
            }
            for &(c, child) in children {
                win |= self.open(eff, c) & !child[mid];
            }
            let mut opn = [0u64; WORD_CELLS];
            for (m, o) in opn.iter_mut().enumerate().take(self.word_cells) {
                *o = self.open(eff, m) & self.nobit[m];
            }
            for p in (0..self.word_cells).rev() {
                let lose = !win;
                let mut w = 0;
                for (m, o) in opn.iter().enumerate().take(self.word_cells) {
                    w |= o & (lose >> (1 << m));
                }
                win |= w & self.layer[p];
            }
            out[mid] = win & self.valid;
        }
    }

    /// The sets of the start's orbit of one move: the empty set, and in the alternate game
    /// the single queens (its first move is free), as bits of word `mid` of block `hi`.
    fn seed(&self, hi: u64, mid: usize) -> u64 {
        let alt = self.variant == Variant::Alternate;
        match (hi.count_ones(), mid.count_ones()) {
            (0, 0) if alt => 1 | self.layer[1],
            (0, 0) => 1,
            (0, 1) | (1, 0) if alt => 1,
            _ => 0,
        }
    }

    /// Marks the reachable sets of block `hi` (level j) in `out`, given the blocks of level
    /// j − 1 they come from; adds to `counts` (reachable, terminal) per number of queens.
    fn reach_block(
        &self,
        hi: u64,
        out: &mut [u64],
        parents: &[(usize, &[u64])],
        counts: &mut Counts,
    ) {
        let lo = self.word_cells + self.mid_cells;
        let hi_sq = hi << lo;
        let p_hi = self.parity(hi_sq) ^ self.target;
        let mid_full = self.block_words - 1;
        let free_hi: Vec<usize> = (0..self.hi_cells)
            .filter(|&h| hi >> h & 1 == 0)
            .map(|h| lo + h)
            .collect();
        let base = hi.count_ones() as usize;
        for mid in 0..self.block_words {
            let eff = p_hi ^ self.pmid[mid];
            let mut r = self.seed(hi, mid);
            let mut has = mid;
            while has != 0 {
                let i = has.trailing_zeros() as usize;
                has &= has - 1;
                r |= self.open(eff, self.word_cells + i) & out[mid ^ 1 << i];
            }
            for &(c, parent) in parents {
                r |= self.open(eff, c) & parent[mid];
            }
            let mut opn = [0u64; WORD_CELLS];
            let mut movable = 0u64;
            for (m, slot) in opn.iter_mut().enumerate().take(self.word_cells) {
                let o = self.open(eff, m);
                *slot = o & self.hasbit[m];
                movable |= o & self.nobit[m];
            }
            for p in 1..=self.word_cells {
                let mut w = 0;
                for (m, o) in opn.iter().enumerate().take(self.word_cells) {
                    w |= o & (r << (1 << m));
                }
                r |= w & self.layer[p];
            }
            r &= self.valid;
            out[mid] = r;
            if r == 0 {
                continue;
            }
            let mut free = !mid & mid_full;
            while free != 0 {
                let i = free.trailing_zeros() as usize;
                free &= free - 1;
                movable |= self.open(eff, self.word_cells + i);
            }
            for &c in &free_hi {
                movable |= self.open(eff, c);
            }
            let mut terminal = r & !movable;
            if hi == 0 && mid == 0 && self.variant == Variant::Alternate {
                // The empty board: the alternate game's first move goes anywhere.
                terminal &= !1;
            }
            let k = base + mid.count_ones() as usize;
            for p in 0..=self.word_cells {
                counts.reachable[k + p] += u64::from((r & self.layer[p]).count_ones());
                counts.terminal[k + p] += u64::from((terminal & self.layer[p]).count_ones());
            }
        }
    }
}

/// Per number of queens (squares added): reachable sets, terminal ones, and for each of the
/// 7 symmetries other than the identity the reachable sets it fixes (for Burnside's count).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Counts {
    /// Reachable sets with k squares.
    pub reachable: Vec<u64>,
    /// Of them, sets with no legal move.
    pub terminal: Vec<u64>,
    /// Reachable sets with k squares fixed by a symmetry, summed over the 7 symmetries.
    pub fixed: Vec<u64>,
}

impl Counts {
    fn new(cells: usize) -> Counts {
        Counts {
            reachable: vec![0; cells + 1],
            terminal: vec![0; cells + 1],
            fixed: vec![0; cells + 1],
        }
    }

    fn add(&mut self, o: &Counts) {
        for (a, b) in [
            (&mut self.reachable, &o.reachable),
            (&mut self.terminal, &o.terminal),
            (&mut self.fixed, &o.fixed),
        ] {
            for (x, y) in a.iter_mut().zip(b) {
                *x += y;
            }
        }
    }
}

/// One layer of the reachable sets, as the memoised search reports it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ReachLayer {
    /// Moves made.
    pub moves: usize,
    /// Queens on the board.
    pub queens: usize,
    /// Positions up to symmetry (Burnside: the mean number of fixed sets over the 8
    /// symmetries).
    pub classes: u64,
    /// Positions.
    pub positions: u64,
    /// Of them, positions with no legal move.
    pub terminal: u64,
}

/// Progress of a sweep, for a bar or a log line.
#[derive(Clone, Debug)]
pub struct Progress {
    /// Which sweep.
    pub pass: Pass,
    /// The level in progress, and the number of levels.
    pub level: usize,
    /// Levels in all (0..levels).
    pub levels: usize,
    /// Sets done in this sweep, including levels done before a resume.
    pub done: u64,
    /// Sets in the sweep.
    pub total: u64,
    /// Sets done in this process (for the rate).
    pub done_here: u64,
    /// Seconds since this process started the sweep.
    pub secs: f64,
}

/// How a run is set up.
pub struct Options<'a> {
    /// Worker threads.
    pub threads: usize,
    /// Checkpoint folder (each finished level is written there), if any.
    pub checkpoint: Option<PathBuf>,
    /// Continue from the checkpoints in the folder (otherwise the folder must hold none).
    pub resume: bool,
    /// Also run the reachability sweep.
    pub reachable: bool,
    /// Levels 0..=keep of the solve sweep stay (in memory and on disk) for the strategy.
    pub keep: usize,
    /// Refuse a run whose estimated memory is over this many bytes.
    pub max_memory: Option<u64>,
    /// Stop (the level in progress is lost) once this passes.
    pub deadline: Option<Instant>,
    /// Stop when set (checked between chunks of blocks).
    pub cancel: Option<&'a AtomicBool>,
    /// Called from time to time during a sweep.
    pub progress: Option<&'a (dyn Fn(&Progress) + Sync)>,
}

/// Why a run stopped without its answer.
#[derive(Debug)]
pub enum RetroError {
    /// The deadline passed or the run was cancelled; the finished levels are checkpointed.
    Stopped,
    /// Anything else: bad folder, bad checkpoint, over the memory limit.
    Error(queens_model::error::Error),
}

impl From<queens_model::error::Error> for RetroError {
    fn from(e: queens_model::error::Error) -> Self {
        RetroError::Error(e)
    }
}

/// The result of a complete run.
pub struct Solution {
    /// The layout (for lookups).
    pub layout: Layout,
    /// Levels 0..=keep of the solve sweep.
    kept: Vec<Words>,
    /// True when the first player wins.
    pub first_wins: bool,
    /// Every winning first move.
    pub winning_moves: Vec<Pos>,
    /// Losing sets (for the player to move) per number of squares, over all 2^(n²) sets.
    pub losing: Vec<u64>,
    /// The reachable sets, when asked for.
    pub reach: Option<Vec<ReachLayer>>,
    /// Levels computed in this process (the others came from checkpoints), per sweep.
    pub computed: (usize, usize),
}

/// Bytes a run needs at most: two levels of blocks plus the kept low levels and the fixed
/// sets of the symmetries.
pub fn memory_estimate(layout: &Layout, keep: usize, reachable: bool) -> u64 {
    let h = layout.hi_cells;
    let pairs = (0..=h)
        .map(|j| layout.level_bytes(j) + if j < h { layout.level_bytes(j + 1) } else { 0 })
        .max()
        .unwrap_or(0);
    let kept: u64 = (0..=keep.min(h)).map(|j| layout.level_bytes(j)).sum();
    let fixed = if reachable {
        fixed_sets(layout.n).len() as u64 * 8
    } else {
        0
    };
    pairs + kept + fixed + (160 << 20)
}

/// The sets fixed by each of the 7 symmetries other than the identity (a set once per
/// symmetry fixing it).
fn fixed_sets(n: usize) -> Vec<u64> {
    let cells = n * n;
    let mut out = Vec::new();
    for s in 1..8 {
        let mut seen = vec![false; cells];
        let mut cycles = Vec::new();
        for c in 0..cells {
            if seen[c] {
                continue;
            }
            let mut mask = 0u64;
            let mut x = c;
            while !seen[x] {
                seen[x] = true;
                mask |= 1 << x;
                let (r, col) = super::search::symmetry(s, n, (x / n, x % n));
                x = r * n + col;
            }
            cycles.push(mask);
        }
        for sub in 0..1u64 << cycles.len() {
            out.push(
                (0..cycles.len())
                    .filter(|&i| sub >> i & 1 == 1)
                    .fold(0, |m, i| m | cycles[i]),
            );
        }
    }
    out
}

// ---- level storage ----

/// A level's words, from the system allocator rather than the binary's global one: a level
/// is hundreds of MB to 1.6 GB, and the global allocator (mimalloc) purges freed memory
/// lazily, so a freed level stayed resident while the next was filled (4.0 GB peaks for a
/// 3.0 GB working set). The system's calloc maps fresh zero pages and unmaps them on free.
pub struct Words {
    ptr: std::ptr::NonNull<u64>,
    len: usize,
}

// SAFETY: `Words` owns its allocation like a `Vec<u64>`; shared access is read-only.
unsafe impl Send for Words {}
// SAFETY: as above.
unsafe impl Sync for Words {}

impl Words {
    /// `len` zero words.
    pub fn zeroed(len: usize) -> Words {
        if len == 0 {
            return Words {
                ptr: std::ptr::NonNull::dangling(),
                len: 0,
            };
        }
        let layout = std::alloc::Layout::array::<u64>(len).expect("a level fits in memory");
        // SAFETY: the layout has a non-zero size.
        let raw = unsafe { std::alloc::GlobalAlloc::alloc_zeroed(&std::alloc::System, layout) };
        let ptr = std::ptr::NonNull::new(raw.cast::<u64>())
            .unwrap_or_else(|| std::alloc::handle_alloc_error(layout));
        Words { ptr, len }
    }
}

impl std::ops::Deref for Words {
    type Target = [u64];

    fn deref(&self) -> &[u64] {
        // SAFETY: `ptr` points at `len` initialised (zeroed, then written) words we own.
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.len) }
    }
}

impl std::ops::DerefMut for Words {
    fn deref_mut(&mut self) -> &mut [u64] {
        // SAFETY: as in `deref`, and `&mut self` makes the access unique.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.as_ptr(), self.len) }
    }
}

impl Clone for Words {
    fn clone(&self) -> Words {
        let mut w = Words::zeroed(self.len);
        w.copy_from_slice(self);
        w
    }
}

impl Drop for Words {
    fn drop(&mut self) {
        if self.len > 0 {
            let layout = std::alloc::Layout::array::<u64>(self.len).expect("as allocated");
            // SAFETY: allocated by `System` with this layout in `zeroed`.
            unsafe {
                std::alloc::GlobalAlloc::dealloc(
                    &std::alloc::System,
                    self.ptr.as_ptr().cast::<u8>(),
                    layout,
                )
            };
        }
    }
}

// ---- checkpoints ----

/// The folder's description of the run it holds.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
struct RunFile {
    format: u32,
    n: usize,
    variant: Variant,
}

/// What a finished level adds to the answer.
#[derive(Clone, Debug, Serialize, Deserialize)]
struct LevelFile {
    pass: Pass,
    level: usize,
    /// Reach sweep: counts of this level. Solve sweep: `reachable` holds the losing sets.
    counts: Counts,
    checksum: u64,
    secs: f64,
}

const MAGIC: &[u8; 8] = b"QMOD2LV1";

fn checksum(data: &[u64]) -> u64 {
    data.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &w| {
        (h ^ w).wrapping_mul(0x0000_0100_0000_01b3).rotate_left(17)
    })
}

fn io_err(path: &Path) -> impl Fn(std::io::Error) -> queens_model::error::Error + '_ {
    move |e| queens_model::error::Error::Io {
        path: path.to_path_buf(),
        source: e,
    }
}

fn bad_checkpoint(path: &Path, what: &str) -> queens_model::error::Error {
    queens_model::error::Error::input(
        &path.display().to_string(),
        format!("{what} (a damaged or foreign checkpoint: delete it and the level is recomputed)"),
    )
}

struct Folder {
    dir: PathBuf,
}

impl Folder {
    fn bits(&self, pass: Pass, j: usize) -> PathBuf {
        self.dir.join(format!("{}-{j:02}.bits", pass.name()))
    }

    fn meta(&self, pass: Pass, j: usize) -> PathBuf {
        self.dir.join(format!("{}-{j:02}.json", pass.name()))
    }

    /// Opens (or creates) the folder for this run.
    fn open(
        dir: &Path,
        layout: &Layout,
        resume: bool,
    ) -> Result<Folder, queens_model::error::Error> {
        fs::create_dir_all(dir).map_err(io_err(dir))?;
        let run = RunFile {
            format: 1,
            n: layout.n,
            variant: layout.variant,
        };
        let path = dir.join("run.json");
        match fs::read_to_string(&path) {
            Ok(text) => {
                let found: RunFile = serde_json::from_str(&text)
                    .map_err(|e| bad_checkpoint(&path, &format!("invalid JSON: {e}")))?;
                if found != run {
                    return Err(queens_model::error::Error::input(
                        &path.display().to_string(),
                        format!(
                            "the folder holds the checkpoints of n = {}, {} game, not n = {}, {}",
                            found.n, found.variant, run.n, run.variant
                        ),
                    ));
                }
                if !resume {
                    return Err(queens_model::error::Error::input(
                        &dir.display().to_string(),
                        "the folder already holds checkpoints of this run: pass \
                                  --resume to continue it, or name an empty folder",
                    ));
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                let text = serde_json::to_string_pretty(&run).expect("serialises");
                write_atomic(&path, text.as_bytes())?;
            }
            Err(e) => return Err(io_err(&path)(e)),
        }
        Ok(Folder {
            dir: dir.to_path_buf(),
        })
    }

    fn level_meta(
        &self,
        pass: Pass,
        j: usize,
    ) -> Result<Option<LevelFile>, queens_model::error::Error> {
        let path = self.meta(pass, j);
        match fs::read_to_string(&path) {
            Ok(text) => {
                let m: LevelFile = serde_json::from_str(&text)
                    .map_err(|e| bad_checkpoint(&path, &format!("invalid JSON: {e}")))?;
                if m.pass != pass || m.level != j {
                    return Err(bad_checkpoint(&path, "names another level"));
                }
                Ok(Some(m))
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(io_err(&path)(e)),
        }
    }

    /// Writes level j: the bits first, then the description that marks it finished; both
    /// by rename, so a crash leaves the level whole or absent.
    fn save(&self, meta: &LevelFile, data: &[u64]) -> Result<(), queens_model::error::Error> {
        let path = self.bits(meta.pass, meta.level);
        let tmp = path.with_extension("bits.tmp");
        {
            let file = fs::File::create(&tmp).map_err(io_err(&tmp))?;
            let mut w = std::io::BufWriter::with_capacity(1 << 20, file);
            w.write_all(MAGIC).map_err(io_err(&tmp))?;
            w.write_all(&(data.len() as u64).to_le_bytes())
                .map_err(io_err(&tmp))?;
            for chunk in data.chunks(1 << 16) {
                let bytes: Vec<u8> = chunk.iter().flat_map(|w| w.to_le_bytes()).collect();
                w.write_all(&bytes).map_err(io_err(&tmp))?;
            }
            let file = w.into_inner().map_err(|e| io_err(&tmp)(e.into_error()))?;
            file.sync_all().map_err(io_err(&tmp))?;
        }
        fs::rename(&tmp, &path).map_err(io_err(&path))?;
        let text = serde_json::to_string_pretty(meta).expect("serialises");
        write_atomic(&self.meta(meta.pass, meta.level), text.as_bytes())
    }

    fn load(&self, meta: &LevelFile, words: usize) -> Result<Words, queens_model::error::Error> {
        let path = self.bits(meta.pass, meta.level);
        let mut file = fs::File::open(&path).map_err(io_err(&path))?;
        let mut head = [0u8; 16];
        file.read_exact(&mut head).map_err(io_err(&path))?;
        if &head[..8] != MAGIC {
            return Err(bad_checkpoint(&path, "not a level file"));
        }
        let len = u64::from_le_bytes(head[8..].try_into().expect("8 bytes"));
        if len != words as u64 {
            return Err(bad_checkpoint(
                &path,
                &format!("holds {len} words, the level has {words}"),
            ));
        }
        let mut data = Words::zeroed(words);
        let mut buf = vec![0u8; 1 << 19];
        let mut r = std::io::BufReader::with_capacity(1 << 20, file);
        for chunk in data.chunks_mut(1 << 16) {
            let bytes = &mut buf[..chunk.len() * 8];
            r.read_exact(bytes).map_err(io_err(&path))?;
            for (w, b) in chunk.iter_mut().zip(bytes.chunks_exact(8)) {
                *w = u64::from_le_bytes(b.try_into().expect("8 bytes"));
            }
        }
        if checksum(&data) != meta.checksum {
            return Err(bad_checkpoint(&path, "checksum mismatch"));
        }
        Ok(data)
    }

    fn remove_bits(&self, pass: Pass, j: usize) {
        let _ = fs::remove_file(self.bits(pass, j));
    }
}

fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), queens_model::error::Error> {
    let tmp = path.with_extension("tmp");
    {
        let mut f = fs::File::create(&tmp).map_err(io_err(&tmp))?;
        f.write_all(bytes).map_err(io_err(&tmp))?;
        f.sync_all().map_err(io_err(&tmp))?;
    }
    fs::rename(&tmp, path).map_err(io_err(path))
}

// ---- the sweeps ----

/// Where a sweep stands, for its progress reports: the sets finished before this process
/// started (a resumed run) and since, and when this process started the sweep.
struct Sweep {
    pass: Pass,
    levels: usize,
    total: u64,
    done_before: u64,
    done_here: u64,
    started: Instant,
}

impl Sweep {
    /// A sweep over every set of `layout`'s board, starting now; `done_before` of its sets
    /// were finished by an earlier run.
    fn start(pass: Pass, layout: &Layout, done_before: u64) -> Sweep {
        Sweep {
            pass,
            levels: layout.hi_cells + 1,
            total: 1u64 << layout.cells,
            done_before,
            done_here: 0,
            started: Instant::now(),
        }
    }

    /// Reports `sets` sets of `level` done, once the sweep has run for a second (short runs
    /// stay quiet).
    fn report(&self, opts: &Options, level: usize, sets: u64) {
        let secs = self.started.elapsed().as_secs_f64();
        if let Some(p) = opts.progress.filter(|_| secs >= 1.0) {
            p(&Progress {
                pass: self.pass,
                level,
                levels: self.levels,
                done: self.done_before + self.done_here + sets,
                total: self.total,
                done_here: self.done_here + sets,
                secs,
            });
        }
    }
}

/// Runs the blocks of one level on `threads` threads: `work(rank, hi, out)` fills a block.
/// Reports progress through `sweep` every ten seconds and when the level is done.
fn run_level(
    layout: &Layout,
    j: usize,
    opts: &Options,
    sweep: &Sweep,
    work: &(dyn Fn(u64, &mut [u64], &mut Counts) + Sync),
) -> Result<(Words, Counts), RetroError> {
    let blocks = layout.level_blocks(j) as usize;
    let bw = layout.block_words;
    let per_block = 1u64 << (layout.word_cells + layout.mid_cells);
    let mut data = Words::zeroed(blocks * bw);
    const CHUNK: usize = 16;
    let queue = Mutex::new(data.chunks_mut(bw * CHUNK).enumerate());
    let done = AtomicU64::new(0);
    let stop = AtomicBool::new(false);
    let total = Mutex::new(Counts::new(layout.cells));
    let threads = opts.threads.max(1);
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| {
                let mut counts = Counts::new(layout.cells);
                loop {
                    if stop.load(Ordering::Relaxed) {
                        break;
                    }
                    let next = queue.lock().expect("no panics hold the lock").next();
                    let Some((chunk, slice)) = next else { break };
                    for (i, block) in slice.chunks_mut(bw).enumerate() {
                        let rank = (chunk * CHUNK + i) as u64;
                        work(layout.unrank(rank, j), block, &mut counts);
                    }
                    done.fetch_add((slice.len() / bw) as u64, Ordering::Relaxed);
                }
                total.lock().expect("no panics hold the lock").add(&counts);
            });
        }
        // The calling thread watches: progress, deadline, cancel.
        let mut last = Instant::now();
        let level_start = last;
        loop {
            let d = done.load(Ordering::Relaxed);
            if d >= blocks as u64 {
                break;
            }
            if opts.deadline.is_some_and(|t| Instant::now() >= t)
                || opts.cancel.is_some_and(|c| c.load(Ordering::Relaxed))
            {
                stop.store(true, Ordering::Relaxed);
                break;
            }
            if last.elapsed().as_secs_f64() >= 10.0 {
                sweep.report(opts, j, d * per_block);
                last = Instant::now();
            }
            // Short levels (small boards) should not wait for the watcher.
            let nap = if level_start.elapsed().as_millis() < 200 {
                1
            } else {
                50
            };
            std::thread::sleep(std::time::Duration::from_millis(nap));
        }
    });
    if stop.load(Ordering::Relaxed) {
        return Err(RetroError::Stopped);
    }
    sweep.report(opts, j, blocks as u64 * per_block);
    let counts = total.into_inner().expect("no panics hold the lock");
    Ok((data, counts))
}

/// The sets at levels j.. that were finished before, in sweep order.
fn finished(folder: Option<&Folder>, pass: Pass, order: &[usize]) -> Result<usize, RetroError> {
    let Some(f) = folder else { return Ok(0) };
    let mut k = 0;
    for &j in order {
        if f.level_meta(pass, j)?.is_none() {
            break;
        }
        k += 1;
    }
    Ok(k)
}

/// Solves the game on the n×n board (n ≤ [`MAX_N`]) in `variant`, and with
/// `opts.reachable` counts its reachable positions.
pub fn sweep(n: usize, variant: Variant, opts: &Options) -> Result<Solution, RetroError> {
    let layout = Layout::new(n, variant);
    let keep = opts.keep.max(1).min(layout.hi_cells);
    let need = memory_estimate(&layout, keep, opts.reachable);
    if let Some(max) = opts.max_memory.filter(|&m| need > m) {
        return Err(queens_model::error::Error::too_large(format!(
            "the retrograde run of n = {n} needs about {} MB (two levels of {} KB blocks), over \
             the limit of {} MB: raise --max-memory",
            need >> 20,
            layout.block_bytes() >> 10,
            max >> 20
        ))
        .about("n")
        .into());
    }
    let folder = match &opts.checkpoint {
        Some(dir) => Some(Folder::open(dir, &layout, opts.resume)?),
        None => None,
    };
    let h = layout.hi_cells;
    let bw = layout.block_words;
    let mut computed = (0, 0);

    // The solve sweep, fullest level first.
    let order: Vec<usize> = (0..=h).rev().collect();
    let skip = finished(folder.as_ref(), Pass::Solve, &order)?;
    let mut losing = vec![0u64; layout.cells + 1];
    let mut kept: Vec<Words> = (0..=keep).map(|_| Words::zeroed(0)).collect();
    let mut next = Words::zeroed(0);
    let mut done_before = 0u64;
    if let Some(f) = &folder {
        for &j in &order[..skip] {
            let meta = f.level_meta(Pass::Solve, j)?.expect("finished");
            losing
                .iter_mut()
                .zip(&meta.counts.reachable)
                .for_each(|(a, b)| *a += b);
            done_before += layout.level_sets(j);
            let last = j == order[skip - 1];
            if j <= keep || last {
                let data = f.load(&meta, layout.level_blocks(j) as usize * bw)?;
                if j <= keep {
                    kept[j] = data.clone();
                }
                if last {
                    next = data;
                }
            }
        }
    }
    let mut sweep = Sweep::start(Pass::Solve, &layout, done_before);
    for &j in &order[skip..] {
        let t0 = Instant::now();
        let next_ref = &next;
        let work = |hi: u64, out: &mut [u64], counts: &mut Counts| {
            let mut children: [(usize, &[u64]); 64] = [(0, &[]); 64];
            let mut k = 0;
            for b in 0..h {
                if hi >> b & 1 == 0 {
                    let r = layout.rank(hi | 1 << b);
                    children[k] = (
                        layout.word_cells + layout.mid_cells + b,
                        &next_ref[r * bw..(r + 1) * bw],
                    );
                    k += 1;
                }
            }
            layout.solve_block(hi, out, &children[..k]);
            let base = hi.count_ones() as usize;
            for (mid, &w) in out.iter().enumerate() {
                let lose = !w & layout.valid;
                let q = base + mid.count_ones() as usize;
                for p in 0..=layout.word_cells {
                    counts.reachable[q + p] += u64::from((lose & layout.layer[p]).count_ones());
                }
            }
        };
        let (data, counts) = run_level(&layout, j, opts, &sweep, &work)?;
        losing
            .iter_mut()
            .zip(&counts.reachable)
            .for_each(|(a, b)| *a += b);
        if let Some(f) = &folder {
            f.save(
                &LevelFile {
                    pass: Pass::Solve,
                    level: j,
                    counts,
                    checksum: checksum(&data),
                    secs: t0.elapsed().as_secs_f64(),
                },
                &data,
            )?;
            if j < h && j + 1 > keep {
                f.remove_bits(Pass::Solve, j + 1);
            }
        }
        sweep.done_here += layout.level_sets(j);
        computed.0 += 1;
        if j <= keep {
            kept[j] = data.clone();
        }
        next = data;
    }
    drop(next);

    let mut sol = Solution {
        layout,
        kept,
        first_wins: false,
        winning_moves: Vec::new(),
        losing,
        reach: None,
        computed,
    };
    let root_moves = sol.layout.moves(0, true);
    for c in 0..sol.layout.cells {
        if root_moves >> c & 1 == 1 && !sol.wins(1 << c) {
            sol.winning_moves.push((c / n, c % n));
        }
    }
    sol.first_wins = !sol.winning_moves.is_empty();

    if opts.reachable {
        sol.reach = Some(reach(
            &sol.layout,
            opts,
            folder.as_ref(),
            &mut sol.computed,
        )?);
    }
    Ok(sol)
}

fn reach(
    layout: &Layout,
    opts: &Options,
    folder: Option<&Folder>,
    computed: &mut (usize, usize),
) -> Result<Vec<ReachLayer>, RetroError> {
    let h = layout.hi_cells;
    let bw = layout.block_words;
    let order: Vec<usize> = (0..=h).collect();
    let skip = finished(folder, Pass::Reach, &order)?;
    let mut counts = Counts::new(layout.cells);
    let mut prev = Words::zeroed(0);
    let mut done_before = 0u64;
    if let Some(f) = folder {
        for &j in &order[..skip] {
            let meta = f.level_meta(Pass::Reach, j)?.expect("finished");
            counts.add(&meta.counts);
            done_before += layout.level_sets(j);
            if j == order[skip - 1] {
                prev = f.load(&meta, layout.level_blocks(j) as usize * bw)?;
            }
        }
    }
    // The sets the symmetries fix, by level of their high set.
    let mut fixed: Vec<Vec<u64>> = vec![Vec::new(); h + 1];
    for s in fixed_sets(layout.n) {
        let (j, ..) = layout.locate(s);
        fixed[j].push(s);
    }
    let mut sweep = Sweep::start(Pass::Reach, layout, done_before);
    for &j in &order[skip..] {
        let t0 = Instant::now();
        let prev_ref = &prev;
        let work = |hi: u64, out: &mut [u64], counts: &mut Counts| {
            let mut parents: [(usize, &[u64]); 64] = [(0, &[]); 64];
            let mut k = 0;
            for b in 0..h {
                if hi >> b & 1 == 1 {
                    let r = layout.rank(hi ^ 1 << b);
                    parents[k] = (
                        layout.word_cells + layout.mid_cells + b,
                        &prev_ref[r * bw..(r + 1) * bw],
                    );
                    k += 1;
                }
            }
            layout.reach_block(hi, out, &parents[..k], counts);
        };
        let (data, mut level_counts) = run_level(layout, j, opts, &sweep, &work)?;
        for &s in &fixed[j] {
            let (_, rank, mid, a) = layout.locate(s);
            if data[rank * bw + mid] >> a & 1 == 1 {
                level_counts.fixed[s.count_ones() as usize] += 1;
            }
        }
        counts.add(&level_counts);
        if let Some(f) = folder {
            f.save(
                &LevelFile {
                    pass: Pass::Reach,
                    level: j,
                    counts: level_counts,
                    checksum: checksum(&data),
                    secs: t0.elapsed().as_secs_f64(),
                },
                &data,
            )?;
            if j > 0 {
                f.remove_bits(Pass::Reach, j - 1);
            }
        }
        sweep.done_here += layout.level_sets(j);
        computed.1 += 1;
        prev = data;
    }
    Ok((0..=layout.cells)
        .filter(|&k| counts.reachable[k] > 0)
        .map(|k| {
            let sum = counts.reachable[k] + counts.fixed[k];
            debug_assert_eq!(sum % 8, 0, "Burnside's sum is a multiple of 8");
            ReachLayer {
                moves: k,
                queens: if layout.variant == Variant::Complementary {
                    layout.cells - k
                } else {
                    k
                },
                classes: sum / 8,
                positions: counts.reachable[k],
                terminal: counts.terminal[k],
            }
        })
        .collect())
}

/// The winner's strategy for the first plies: a winning move, and for every reply the next
/// winning move, and so on. The second player's strategy starts without a move: its
/// replies are the first player's moves.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct Strategy {
    /// The winning move here (None at the root of the second player's strategy).
    #[serde(rename = "move", default, skip_serializing_if = "Option::is_none")]
    pub mv: Option<Pos>,
    /// Every legal reply with the answer to it (empty at the last ply, or when the move
    /// leaves no reply: the game is won).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub replies: Vec<Reply>,
}

/// One reply of the loser and the strategy after it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct Reply {
    /// The reply.
    pub reply: Pos,
    /// The winner's answer and on (absent at the last ply).
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub then: Option<Strategy>,
}

impl Solution {
    /// True when the player to move at set `s` (some move made already) wins. Needs `s`'s
    /// level to be kept (at most `keep` squares in the high set).
    pub fn wins(&self, s: u64) -> bool {
        let (j, rank, mid, a) = self.layout.locate(s);
        let data = &self.kept[j];
        assert!(!data.is_empty(), "level {j} is not kept");
        data[rank * self.layout.block_words + mid] >> a & 1 == 1
    }

    /// The winner's strategy for `plies` plies, its last ply a move of the winner (so
    /// rounded up to odd when the first player wins, to even when the second does), within
    /// what the kept levels can look up.
    pub fn strategy(&self, plies: usize) -> Strategy {
        // Kept levels hold the sets of at most `keep` high squares; with every level kept
        // (small boards) any depth can be looked up.
        let keep = self.kept.len() - 1;
        let cap = if keep >= self.layout.hi_cells {
            usize::MAX
        } else {
            keep
        };
        let parity = usize::from(self.first_wins);
        let mut p = plies.max(1);
        if p % 2 != parity {
            p += 1;
        }
        while p > cap {
            p -= 2;
        }
        if self.first_wins {
            return self.strategy_at(0, true, p);
        }
        let n = self.layout.n;
        let first = self.layout.moves(0, true);
        Strategy {
            mv: None,
            replies: (0..self.layout.cells)
                .filter(|&c| first >> c & 1 == 1)
                .map(|c| Reply {
                    reply: (c / n, c % n),
                    then: (p >= 2).then(|| self.strategy_at(1 << c, false, p - 1)),
                })
                .collect(),
        }
    }

    fn strategy_at(&self, s: u64, first: bool, plies: usize) -> Strategy {
        let n = self.layout.n;
        let pos = |c: usize| (c / n, c % n);
        let moves = self.layout.moves(s, first);
        let m = (0..self.layout.cells)
            .find(|&c| moves >> c & 1 == 1 && !self.wins(s | 1 << c))
            .expect("a won position has a move to a lost one");
        let after = s | 1 << m;
        let r = self.layout.moves(after, false);
        let replies = if plies >= 2 {
            (0..self.layout.cells)
                .filter(|&c| r >> c & 1 == 1)
                .map(|c| Reply {
                    reply: pos(c),
                    then: (plies >= 3).then(|| self.strategy_at(after | 1 << c, false, plies - 2)),
                })
                .collect()
        } else {
            Vec::new()
        };
        Strategy {
            mv: Some(pos(m)),
            replies,
        }
    }
}

/// Peak resident memory of this process in bytes (Linux), if known.
pub fn peak_memory() -> Option<u64> {
    let text = fs::read_to_string("/proc/self/status").ok()?;
    let line = text.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}
