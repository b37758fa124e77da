//! Hall's condition on the core: can every free row get its own free column?
//!
//! Ignoring the diagonals, a completion is a perfect matching of free rows to free columns
//! over the open cells. Hopcroft and Karp's algorithm finds a maximum matching in
//! O(cells · √rows); when it is not perfect, the rows reachable from an unmatched row by
//! alternating paths have fewer columns among their open cells than there are of them
//! (König), which is the reason given. It runs on a built core, or on the bitmaps alone
//! ([`Open`]) with a limit on the cells it looks at, for a core too large to build yet.

use std::collections::VecDeque;

use super::core::{Core, NONE};
use super::open::Open;
use queens_model::Budget;

/// The free rows × free columns as a bipartite graph: row `i`'s possible neighbours are at
/// positions `0..width(i)`, and [`Bipartite::at`] says which of them is an edge.
trait Bipartite {
    fn rows(&self) -> usize;
    fn width(&self, i: u32) -> u32;
    /// The column at position `k` of row `i`, when that cell is open.
    fn at(&self, i: u32, k: u32) -> Option<u32>;
    fn original_row(&self, i: u32) -> u32;
    fn original_col(&self, j: u32) -> u32;
}

impl Bipartite for Core {
    fn rows(&self) -> usize {
        Core::rows(self)
    }
    #[inline]
    fn width(&self, i: u32) -> u32 {
        self.row_start[i as usize + 1] - self.row_start[i as usize]
    }
    #[inline]
    fn at(&self, i: u32, k: u32) -> Option<u32> {
        Some(self.cell_col[(self.row_start[i as usize] + k) as usize])
    }
    fn original_row(&self, i: u32) -> u32 {
        Core::original_row(self, i)
    }
    fn original_col(&self, j: u32) -> u32 {
        Core::original_col(self, j)
    }
}

impl Bipartite for Open<'_> {
    fn rows(&self) -> usize {
        self.rows.len()
    }
    #[inline]
    fn width(&self, _: u32) -> u32 {
        self.cols.len() as u32
    }
    #[inline]
    fn at(&self, i: u32, k: u32) -> Option<u32> {
        let (r, c) = (self.rows[i as usize], self.cols[k as usize]);
        self.open(r as usize, c as usize).then_some(k)
    }
    fn original_row(&self, i: u32) -> u32 {
        self.rows[i as usize]
    }
    fn original_col(&self, j: u32) -> u32 {
        self.cols[j as usize]
    }
}

/// What Hall's condition says of a board.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Hall {
    /// Every free row can get its own free column.
    Holds,
    /// Free rows that cannot all be matched to free columns: the sentence and the sets.
    Fails(crate::answer::Reason),
    /// The limit on looks, or the budget, ran out first.
    Unknown,
}

/// Looks at cells, counting down; out of looks or budget, the search stops.
struct Looks<'b> {
    left: u64,
    budget: Option<&'b Budget>,
    out: bool,
}

impl Looks<'_> {
    #[inline]
    fn take(&mut self) -> bool {
        if self.left == 0 {
            self.out = true;
        } else {
            self.left -= 1;
            if self.left % 65_536 == 0 && self.budget.is_some_and(|b| b.exhausted()) {
                self.out = true;
            }
        }
        !self.out
    }
}

/// Free rows of a built core that cannot all be matched to free columns, described for
/// people; `None` when a perfect matching exists, or when `budget` ran out first (the search
/// that follows then stops at once).
pub(super) fn hall_violation(
    core: &Core,
    budget: Option<&Budget>,
) -> Option<crate::answer::Reason> {
    let mut looks = Looks {
        left: u64::MAX,
        budget,
        out: false,
    };
    match hall(core, &mut looks) {
        Hall::Fails(why) => Some(why),
        Hall::Holds | Hall::Unknown => None,
    }
}

/// Cells Hall's condition looks at on the bitmaps of a core too large to build yet, at once
/// (a few milliseconds): it settles the boards of up to about 2,000 free rows.
pub const HALL_QUICK_LOOKS: u64 = 1 << 22;

/// Cells Hall's condition looks at on the bitmaps in all (about a third of a second): past
/// it the condition is left unknown and the engines decide.
pub const HALL_LOOKS: u64 = 100_000_000;

/// Hall's condition on a core not built, read from its bitmaps: at most `max_looks` cells
/// looked at, and stopped when `budget` is exhausted.
pub fn hall_on_bitmaps(open: &Open, max_looks: u64, budget: &Budget) -> Hall {
    let mut looks = Looks {
        left: max_looks,
        budget: Some(budget),
        out: false,
    };
    hall(open, &mut looks)
}

fn hall<G: Bipartite>(core: &G, looks: &mut Looks) -> Hall {
    let rows = core.rows();
    let mut row_mate = vec![NONE; rows];
    let mut col_mate = vec![NONE; rows];
    // A greedy start matches most rows at once.
    for i in 0..rows as u32 {
        for k in 0..core.width(i) {
            if !looks.take() {
                return Hall::Unknown;
            }
            if let Some(j) = core.at(i, k).filter(|&j| col_mate[j as usize] == NONE) {
                row_mate[i as usize] = j;
                col_mate[j as usize] = i;
                break;
            }
        }
    }
    let mut dist = vec![u32::MAX; rows];
    let mut queue = VecDeque::new();
    loop {
        // Layers from the free rows along alternating paths.
        queue.clear();
        for i in 0..rows {
            if row_mate[i] == NONE {
                dist[i] = 0;
                queue.push_back(i as u32);
            } else {
                dist[i] = u32::MAX;
            }
        }
        let mut found = false;
        while let Some(i) = queue.pop_front() {
            for k in 0..core.width(i) {
                if !looks.take() {
                    return Hall::Unknown;
                }
                let Some(j) = core.at(i, k) else { continue };
                let m = col_mate[j as usize];
                if m == NONE {
                    found = true;
                } else if dist[m as usize] == u32::MAX {
                    dist[m as usize] = dist[i as usize] + 1;
                    queue.push_back(m);
                }
            }
        }
        if !found {
            break;
        }
        // Vertex-disjoint shortest augmenting paths, by iterative depth-first search.
        let mut next = vec![0u32; rows];
        for root in 0..rows as u32 {
            if row_mate[root as usize] != NONE {
                continue;
            }
            let mut path: Vec<u32> = vec![root];
            while let Some(&i) = path.last() {
                let end = core.width(i);
                let mut advanced = false;
                while next[i as usize] < end {
                    let k = next[i as usize];
                    next[i as usize] += 1;
                    if !looks.take() {
                        return Hall::Unknown;
                    }
                    let Some(j) = core.at(i, k) else { continue };
                    let m = col_mate[j as usize];
                    if m == NONE {
                        // Augment along the path: each row takes the column it reached.
                        let mut j = j;
                        while let Some(r) = path.pop() {
                            let old = row_mate[r as usize];
                            row_mate[r as usize] = j;
                            col_mate[j as usize] = r;
                            j = old;
                        }
                        advanced = true;
                        break;
                    }
                    if dist[m as usize] == dist[i as usize] + 1 {
                        path.push(m);
                        advanced = true;
                        break;
                    }
                }
                if !advanced {
                    dist[i as usize] = u32::MAX;
                    path.pop();
                }
            }
        }
    }
    let Some(free) = row_mate.iter().position(|&j| j == NONE) else {
        return Hall::Holds;
    };
    // Rows and columns reachable from an unmatched row by alternating paths: every column
    // reached is matched to a reached row, so the rows outnumber their columns by one.
    let mut row_seen = vec![false; rows];
    let mut col_seen = vec![false; rows];
    let mut stack = vec![free as u32];
    row_seen[free] = true;
    while let Some(i) = stack.pop() {
        for j in (0..core.width(i)).filter_map(|k| core.at(i, k)) {
            if !col_seen[j as usize] {
                col_seen[j as usize] = true;
                let m = col_mate[j as usize];
                if m != NONE && !row_seen[m as usize] {
                    row_seen[m as usize] = true;
                    stack.push(m);
                }
            }
        }
    }
    let reached_rows: Vec<u32> = (0..rows as u32)
        .filter(|&i| row_seen[i as usize])
        .map(|i| core.original_row(i))
        .collect();
    let reached_cols: Vec<u32> = (0..rows as u32)
        .filter(|&j| col_seen[j as usize])
        .map(|j| core.original_col(j))
        .collect();
    let columns = match reached_cols.len() {
        1 => "column",
        _ => "columns",
    };
    let text = format!(
        "the {} free rows {} have usable cells in only {} {columns} {}, so they cannot all get \
         a queen",
        reached_rows.len(),
        list(&reached_rows),
        reached_cols.len(),
        list(&reached_cols)
    );
    Hall::Fails(crate::answer::Reason {
        text,
        hall: Some(crate::answer::HallSets {
            rows: sorted(reached_rows),
            columns: sorted(reached_cols),
        }),
    })
}

fn sorted(mut xs: Vec<u32>) -> Vec<u32> {
    xs.sort_unstable();
    xs
}

/// `[a, b, c, …]`, at most eight numbers shown.
fn list(xs: &[u32]) -> String {
    let shown: Vec<String> = xs.iter().take(8).map(u32::to_string).collect();
    let more = if xs.len() > 8 { ", …" } else { "" };
    format!("[{}{more}]", shown.join(", "))
}
