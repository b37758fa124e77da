//! Hall's condition on the core: can every free row get its own free column?
//!
//! Ignoring the diagonals, a completion is a perfect matching of free rows to free columns
//! over the open cells. Hopcroft and Karp's algorithm finds a maximum matching in
//! O(cells · √rows); when it is not perfect, the rows reachable from an unmatched row by
//! alternating paths have fewer columns among their open cells than there are of them
//! (König), which is the reason given.

use std::collections::VecDeque;

use super::core::{Core, NONE};

/// Free rows that cannot all be matched to free columns, described for people; `None` when
/// a perfect matching exists.
pub(super) fn hall_violation(core: &Core) -> Option<String> {
    let rows = core.rows();
    let mut row_mate = vec![NONE; rows];
    let mut col_mate = vec![NONE; rows];
    let neighbours = |i: u32| core.row_cells(i).map(|x| core.cell_col[x as usize]);
    // A greedy start matches most rows at once.
    for i in 0..rows as u32 {
        if let Some(j) = neighbours(i).find(|&j| col_mate[j as usize] == NONE) {
            row_mate[i as usize] = j;
            col_mate[j as usize] = i;
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
            for j in neighbours(i) {
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
        let mut next = core.row_start[..rows].to_vec();
        for root in 0..rows as u32 {
            if row_mate[root as usize] != NONE {
                continue;
            }
            let mut path: Vec<u32> = vec![root];
            while let Some(&i) = path.last() {
                let end = core.row_start[i as usize + 1];
                let mut advanced = false;
                while next[i as usize] < end {
                    let j = core.cell_col[next[i as usize] as usize];
                    next[i as usize] += 1;
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
    let free = row_mate.iter().position(|&j| j == NONE)?;
    // Rows and columns reachable from an unmatched row by alternating paths: every column
    // reached is matched to a reached row, so the rows outnumber their columns by one.
    let mut row_seen = vec![false; rows];
    let mut col_seen = vec![false; rows];
    let mut stack = vec![free as u32];
    row_seen[free] = true;
    while let Some(i) = stack.pop() {
        for j in neighbours(i) {
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
    Some(format!(
        "the {} free rows {} have usable cells in only {} {columns} {}, so they cannot all get \
         a queen",
        reached_rows.len(),
        list(&reached_rows),
        reached_cols.len(),
        list(&reached_cols)
    ))
}

/// `[a, b, c, …]`, at most eight numbers shown.
fn list(xs: &[u32]) -> String {
    let shown: Vec<String> = xs.iter().take(8).map(u32::to_string).collect();
    let more = if xs.len() > 8 { ", …" } else { "" };
    format!("[{}{more}]", shown.join(", "))
}
