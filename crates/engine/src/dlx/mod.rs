//! Knuth's Dancing Links: queens as exact cover, searched by Algorithm X on doubly linked
//! lists ("Dancing Links", 2000, where n-queens is the example).
//!
//! Each open cell is an option. Its items: its row and its column (primary: each is covered
//! exactly once, so n queens stand on the board), its region on a region puzzle (primary),
//! and its two diagonals under the `full` rule or the four 2×2 blocks it lies in under the
//! `touch` rule (secondary: covered at most once; two queens touch at a corner exactly when
//! they share a 2×2 block). Blocked cells and cells on excluded diagonals are options left
//! out; fixed queens are options chosen before the search. The search picks the primary
//! item with the fewest options left (Knuth's MRV heuristic), tries each, and undoes by
//! relinking ("the dance"). Every board it finds is checked by the verifier before it is
//! given.

use std::sync::atomic::Ordering;
use std::time::Instant;

use crate::answer::{Counted, SolvedColumns};
use crate::checked::cells_answer;
use crate::engines::{Engine, Leaf};
use crate::leaf::About;
use crate::work::{ms, Work};
use queens_model::error::Error;
use queens_model::model::{DiagonalRule, Pos, Problem};
use queens_model::Budget;

/// Largest board the engine takes: n² options of up to 7 nodes each, 16 bytes a node
/// (about 30 MB at 512).
pub const MAX_DLX_N: usize = 512;

/// Knuth's Dancing Links engine (see the module documentation).
pub struct Dlx;

/// Its row of the engine table.
pub const LEAF: Leaf = Leaf {
    about: About {
        name: "dlx",
        help: "Knuth's Dancing Links: exact cover by Algorithm X (rows, columns and regions \
               exactly once, diagonals at most once), boards up to 512; complete, it counts \
               and lists",
    },
    build: || Box::new(Dlx),
};

/// The exact-cover matrix as linked lists. Nodes `0..=items` are the item headers (0 the
/// root of the list of primary items still to cover); the option nodes follow, each option
/// a contiguous run of nodes.
struct Links {
    left: Vec<u32>,
    right: Vec<u32>,
    up: Vec<u32>,
    down: Vec<u32>,
    /// The item of each node (its own index for a header).
    item: Vec<u32>,
    /// The option of each option node.
    option: Vec<u32>,
    /// Options left in each item.
    len: Vec<u32>,
    /// The first node of each option, and one past the last option's end.
    start: Vec<u32>,
    /// The cell of each option.
    cell: Vec<Pos>,
    /// Whether an item is covered (fixed queens check theirs).
    covered: Vec<bool>,
}

impl Links {
    /// The matrix of `problem`.
    fn new(problem: &Problem) -> Links {
        let n = problem.n();
        let regions = problem.regions();
        let touch = problem.rule() == DiagonalRule::Touch;
        // Items: rows 1..=n, columns, regions (primary), then the secondary items.
        let primary = if regions.is_some() { 3 * n } else { 2 * n };
        let secondary = if touch {
            (n.saturating_sub(1)) * (n.saturating_sub(1))
        } else {
            2 * (2 * n - 1)
        };
        let items = primary + secondary;
        let mut l = Links {
            left: Vec::new(),
            right: Vec::new(),
            up: Vec::new(),
            down: Vec::new(),
            item: Vec::new(),
            option: Vec::new(),
            len: vec![0; items + 1],
            start: Vec::new(),
            cell: Vec::new(),
            covered: vec![false; items + 1],
        };
        for i in 0..=items {
            let i = i as u32;
            l.up.push(i);
            l.down.push(i);
            l.item.push(i);
            l.option.push(u32::MAX);
            // Primary items in a circular list from the root; secondary ones alone.
            let (left, right) = if (i as usize) <= primary {
                (
                    if i == 0 { primary as u32 } else { i - 1 },
                    if i as usize == primary { 0 } else { i + 1 },
                )
            } else {
                (i, i)
            };
            l.left.push(left);
            l.right.push(right);
        }
        let mut its = Vec::with_capacity(8);
        for r in 0..n {
            for c in 0..n {
                if !problem.is_open((r, c)) {
                    continue;
                }
                its.clear();
                its.push(1 + r);
                its.push(1 + n + c);
                if let Some(g) = regions {
                    its.push(1 + 2 * n + g.id((r, c)));
                }
                if touch {
                    // The 2×2 blocks whose top-left corner is (br, bc), holding (r, c).
                    for br in r.saturating_sub(1)..=r.min(n - 2) {
                        for bc in c.saturating_sub(1)..=c.min(n - 2) {
                            if n >= 2 {
                                its.push(1 + primary + br * (n - 1) + bc);
                            }
                        }
                    }
                } else {
                    its.push(1 + primary + r + c);
                    its.push(1 + primary + (2 * n - 1) + (c + n - 1 - r));
                }
                l.add_option((r, c), &its);
            }
        }
        l.start.push(l.item.len() as u32);
        l
    }

    fn add_option(&mut self, cell: Pos, items: &[usize]) {
        let o = self.cell.len() as u32;
        self.cell.push(cell);
        self.start.push(self.item.len() as u32);
        for &i in items {
            let x = self.item.len() as u32;
            let i = i as u32;
            let last = self.up[i as usize];
            self.up.push(last);
            self.down.push(i);
            self.down[last as usize] = x;
            self.up[i as usize] = x;
            self.item.push(i);
            self.option.push(o);
            self.left.push(0);
            self.right.push(0);
            self.len[i as usize] += 1;
        }
    }

    /// The nodes of option `o`.
    fn nodes(&self, o: u32) -> std::ops::Range<u32> {
        self.start[o as usize]..self.start[o as usize + 1]
    }

    /// Removes the other nodes of `x`'s option from their items.
    fn hide(&mut self, x: u32) {
        let o = self.option[x as usize];
        for q in self.nodes(o) {
            if q == x {
                continue;
            }
            let (u, d) = (self.up[q as usize], self.down[q as usize]);
            self.down[u as usize] = d;
            self.up[d as usize] = u;
            self.len[self.item[q as usize] as usize] -= 1;
        }
    }

    fn unhide(&mut self, x: u32) {
        let o = self.option[x as usize];
        for q in self.nodes(o).rev() {
            if q == x {
                continue;
            }
            let (u, d) = (self.up[q as usize], self.down[q as usize]);
            self.down[u as usize] = q;
            self.up[d as usize] = q;
            self.len[self.item[q as usize] as usize] += 1;
        }
    }

    /// Covers item `i`: out of the list of items, and every option holding it hidden.
    fn cover(&mut self, i: u32) {
        self.covered[i as usize] = true;
        let mut p = self.down[i as usize];
        while p != i {
            self.hide(p);
            p = self.down[p as usize];
        }
        let (l, r) = (self.left[i as usize], self.right[i as usize]);
        self.right[l as usize] = r;
        self.left[r as usize] = l;
    }

    fn uncover(&mut self, i: u32) {
        let (l, r) = (self.left[i as usize], self.right[i as usize]);
        self.right[l as usize] = i;
        self.left[r as usize] = i;
        let mut p = self.up[i as usize];
        while p != i {
            self.unhide(p);
            p = self.up[p as usize];
        }
        self.covered[i as usize] = false;
    }

    /// Chooses the option of node `x`: covers the items of its other nodes.
    fn choose(&mut self, x: u32) {
        let o = self.option[x as usize];
        for q in self.nodes(o) {
            if q != x {
                self.cover(self.item[q as usize]);
            }
        }
    }

    fn unchoose(&mut self, x: u32) {
        let o = self.option[x as usize];
        for q in self.nodes(o).rev() {
            if q != x {
                self.uncover(self.item[q as usize]);
            }
        }
    }

    /// Chooses a fixed queen's option before the search: false when the cell is no option
    /// or one of its items is already covered (it breaks a rule with another fixed queen).
    fn fix(&mut self, cell: Pos) -> bool {
        let Ok(o) = self.cell.binary_search(&cell) else {
            return false;
        };
        let nodes = self.nodes(o as u32);
        if nodes
            .clone()
            .any(|q| self.covered[self.item[q as usize] as usize])
        {
            return false;
        }
        for q in nodes {
            self.cover(self.item[q as usize]);
        }
        true
    }
}

/// One search of Algorithm X: its stop conditions, and what it found.
struct Search<'a> {
    links: Links,
    budget: &'a Budget,
    chosen: Vec<u32>,
    fixed: Vec<Pos>,
    nodes: u64,
    stopped: bool,
    /// Called on each solution (all its cells); false stops the search.
    visit: &'a mut dyn FnMut(&[Pos]) -> bool,
}

impl Search<'_> {
    /// Algorithm X from the current state; false once the search must stop.
    fn run(&mut self) -> bool {
        let root = 0u32;
        if self.links.right[root as usize] == root {
            let mut cells: Vec<Pos> = self.fixed.clone();
            cells.extend(
                self.chosen
                    .iter()
                    .map(|&x| self.links.cell[self.links.option[x as usize] as usize]),
            );
            cells.sort_unstable();
            return (self.visit)(&cells);
        }
        self.nodes += 1;
        if self.nodes % 4096 == 0 && self.exhausted() {
            self.stopped = true;
            return false;
        }
        // The primary item with the fewest options left.
        let (mut best, mut fewest) = (root, u32::MAX);
        let mut i = self.links.right[root as usize];
        while i != root {
            let len = self.links.len[i as usize];
            if len < fewest {
                (best, fewest) = (i, len);
                if len == 0 {
                    break;
                }
            }
            i = self.links.right[i as usize];
        }
        if fewest == 0 {
            return true;
        }
        self.links.cover(best);
        let mut x = self.links.down[best as usize];
        let mut go_on = true;
        while x != best {
            self.links.choose(x);
            self.chosen.push(x);
            go_on = self.run();
            self.chosen.pop();
            self.links.unchoose(x);
            if !go_on {
                break;
            }
            x = self.links.down[x as usize];
        }
        self.links.uncover(best);
        go_on
    }

    fn exhausted(&self) -> bool {
        self.budget.deadline.is_some_and(|d| Instant::now() >= d)
            || self
                .budget
                .cancel
                .as_ref()
                .is_some_and(|c| c.load(Ordering::Relaxed))
    }
}

/// Runs the search on `problem`, calling `visit` on each solution until it returns false.
/// Returns the nodes searched and whether the budget stopped it.
pub fn search(
    problem: &Problem,
    budget: &Budget,
    visit: &mut dyn FnMut(&[Pos]) -> bool,
) -> Result<(u64, bool), Error> {
    supports(problem)?;
    let mut links = Links::new(problem);
    for &q in problem.fixed() {
        if !links.fix(q) {
            return Ok((0, false));
        }
    }
    let mut s = Search {
        links,
        budget,
        chosen: Vec::new(),
        fixed: problem.fixed().to_vec(),
        nodes: 0,
        stopped: false,
        visit,
    };
    s.run();
    Ok((s.nodes, s.stopped))
}

/// Whether the engine takes `problem`: boards up to [`MAX_DLX_N`].
pub fn supports(problem: &Problem) -> Result<(), Error> {
    if problem.n() > MAX_DLX_N {
        let n = problem.n();
        return Err(Error::too_large_at_field(
            "n",
            format!(
                "the dlx engine keeps n² options and works on boards up to \
                 {MAX_DLX_N}×{MAX_DLX_N}; a {n}×{n} board goes to backtrack, local or auto"
            ),
        ));
    }
    Ok(())
}

fn work(nodes: u64) -> Work {
    Work {
        nodes: Some(nodes),
        ..Work::default()
    }
}

impl Engine for Dlx {
    fn name(&self) -> &'static str {
        LEAF.about.name
    }

    fn solve(&self, problem: &Problem, budget: &Budget) -> Result<SolvedColumns, Error> {
        let start = Instant::now();
        let mut found = None;
        let (nodes, stopped) = search(problem, budget, &mut |q| {
            found = Some(q.to_vec());
            false
        })?;
        let mut w = work(nodes);
        w.time_ms = ms(start);
        cells_answer(problem, found, stopped, "dlx", w)
    }

    fn list(
        &self,
        problem: &Problem,
        cap: Option<u64>,
        budget: &Budget,
        visit: &mut dyn FnMut(&[Pos]) -> bool,
    ) -> Result<(Work, bool), Error> {
        let start = Instant::now();
        let mut seen = 0u64;
        let (nodes, stopped) = search(problem, budget, &mut |q| {
            seen += 1;
            visit(q) && cap.is_none_or(|k| seen < k)
        })?;
        let mut w = work(nodes);
        w.time_ms = ms(start);
        Ok((w, stopped))
    }

    fn count(
        &self,
        problem: &Problem,
        limit: Option<u64>,
        budget: &Budget,
    ) -> Option<Result<Counted, Error>> {
        let start = Instant::now();
        let mut count = 0u64;
        let got = search(problem, budget, &mut |_| {
            count += 1;
            limit.is_none_or(|k| count < k)
        });
        Some(got.map(|(nodes, stopped)| {
            let mut w = work(nodes);
            w.time_ms = ms(start);
            Counted {
                count,
                unique: None,
                limited: limit.is_some_and(|k| count >= k),
                interrupted: stopped,
                work: w,
            }
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn count(p: &Problem) -> u64 {
        Dlx.count(p, None, &Budget::default())
            .unwrap()
            .unwrap()
            .count
    }

    /// A000170: the solutions of the empty n×n board, n = 1 to 12.
    #[test]
    fn counts_a000170_to_12() {
        let want = [1, 0, 0, 2, 10, 4, 40, 92, 352, 724, 2680, 14200];
        for (i, &w) in want.iter().enumerate() {
            assert_eq!(count(&Problem::new(i + 1).unwrap()), w, "n = {}", i + 1);
        }
    }

    /// A000170 at n = 13 and 14 (seconds in a release build).
    #[test]
    #[ignore]
    fn counts_a000170_at_13_and_14() {
        assert_eq!(count(&Problem::new(13).unwrap()), 73712);
        assert_eq!(count(&Problem::new(14).unwrap()), 365596);
    }

    /// Fixed queens are chosen rows, blocked cells missing options: the same counts as the
    /// backtracker, and a clash of fixed queens is "no".
    #[test]
    fn fixed_and_blocked_cells_agree_with_the_backtracker() {
        let p = Problem::new(8)
            .unwrap()
            .with_fixed(&[(0, 0)])
            .unwrap()
            .with_blocked(&[(1, 4), (5, 5)])
            .unwrap();
        let bt = crate::backtrack::count(&p, &crate::backtrack::Config::default(), None);
        assert_eq!(count(&p), bt.total);
        let clash = Problem::new(8)
            .unwrap()
            .with_fixed(&[(0, 0), (1, 1)])
            .unwrap();
        assert_eq!(count(&clash), 0);
    }
}
