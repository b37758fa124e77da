//! `queens grade`'s answer as text: how hard a region puzzle is for a player who reasons (the
//! command is made from the operation's declaration, `crate::derived`).

use queens::ops::{self, GradeRequest, GradeResponse};
use queens::{report, Problem};
use std::io::{self, Write};

use crate::print::{Style, Text};

impl Text for ops::Grade {
    fn text(
        out: &mut impl Write,
        q: &GradeRequest,
        r: &GradeResponse,
        s: &Style,
    ) -> io::Result<()> {
        grade(out, &q.instance.0, r, s)
    }
}

fn grade(
    out: &mut impl Write,
    problem: &Problem,
    r: &GradeResponse,
    style: &Style,
) -> io::Result<()> {
    if let Some(steps) = &r.steps {
        let mut queens = problem.fixed().to_vec();
        for (i, s) in steps.iter().enumerate() {
            writeln!(out, "{:>3}. {}: {}", i + 1, s.technique, s.reason)?;
            queens.extend(&s.place);
        }
        queens.sort_unstable();
        if r.solved_by_logic {
            write!(out, "{}", report::board(problem, &queens, style.color))?;
        }
    }
    let techniques: Vec<String> = r
        .techniques
        .iter()
        .map(|(t, k)| format!("{t} {k}"))
        .collect();
    writeln!(
        out,
        "grade: {} ({} steps{}; {})",
        r.grade,
        r.step_count,
        r.hardest
            .as_deref()
            .map(|h| format!(", hardest {h}"))
            .unwrap_or_default(),
        if r.solved_by_logic {
            techniques.join(", ")
        } else {
            "the techniques do not solve it".to_string()
        }
    )
}
