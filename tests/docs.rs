//! The documents' transcripts are tests: every indented block of README.md and docs/*.md whose
//! lines start with `$ ` is run, command by command, in a fresh folder beside a copy of
//! `instances/`, with the `queens` just built first on PATH and `TMPDIR` that folder (so what a
//! document writes to the temporary folder stays in it), and what it prints must match the
//! lines that follow each command. A document that drifts from the product fails here.
//!
//! Matching, line by line after trailing spaces are dropped:
//! - a time (`0.012 ms`, `5.22 ms`, `1.3 s`) matches any time, since machines differ;
//! - `…` alone on a line matches any number of lines (output the document shortens);
//! - `[..]` or `…` inside a line matches any text.
//!
//! A block is not run when the line before it is `<!-- not run: REASON -->` (a server left in
//! the background, a run of minutes): the reason is part of the document's source.
//! A command that needs an outside program (a proof checker, a SAT solver) runs when it is on
//! PATH; without it the block is skipped with a message, and fails under CI (`.ci/run`
//! installs them all).
//!
//! Every other block that holds a command (an indented or fenced block with a line that starts
//! with a program a reader would run: `queens …`, `cargo`, `curl`, a solver, `sbatch`, …) must
//! be a `$` transcript or carry the marker: a command shown without either fails the test,
//! named by file and line, so no documented command goes untested without a stated reason.

use std::path::{Path, PathBuf};
use std::process::Command;

#[path = "support/need.rs"]
mod need;
#[path = "support/temp.rs"]
mod temp;

/// One command of a transcript and the output the document shows for it.
struct Step {
    line: usize,
    command: String,
    expected: Vec<String>,
}

/// The transcripts of one document: blocks of steps, each with the line it starts on.
fn transcripts(text: &str) -> Vec<(usize, Vec<Step>)> {
    let lines: Vec<&str> = text.lines().collect();
    let mut blocks = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let is_block_start = lines[i].starts_with("    $ ")
            && (i == 0 || lines[i - 1].trim().is_empty() || lines[i - 1].starts_with("<!--"));
        if !is_block_start {
            i += 1;
            continue;
        }
        let skipped = (i >= 2 && lines[i - 2].starts_with("<!-- not run:"))
            || (i >= 1 && lines[i - 1].starts_with("<!-- not run:"));
        let start = i + 1;
        let mut steps: Vec<Step> = Vec::new();
        // The block runs until a line that is neither indented nor blank followed by more
        // of the block.
        while i < lines.len() {
            let l = lines[i];
            if let Some(cmd) = l.strip_prefix("    $ ") {
                steps.push(Step {
                    line: i + 1,
                    command: cmd.to_string(),
                    expected: Vec::new(),
                });
            } else if let Some(out) = l.strip_prefix("    ") {
                steps
                    .last_mut()
                    .unwrap()
                    .expected
                    .push(out.trim_end().to_string());
            } else if l.trim().is_empty()
                && lines.get(i + 1).is_some_and(|n| n.starts_with("    $ "))
            {
                // A blank line between two commands of one block.
            } else {
                break;
            }
            i += 1;
        }
        if !skipped {
            blocks.push((start, steps));
        }
    }
    blocks
}

/// The programs a documented command line starts with (after `$ `, `(`, and `NAME=value`
/// assignments). `queens` counts only before a subcommand, so a diagram that starts with the
/// word is no command.
const PROGRAMS: &[&str] = &[
    "queens",
    "cargo",
    "pip",
    "python",
    "python3",
    "bash",
    "sh",
    "curl",
    "cadical",
    "kissat",
    "minisat",
    "picosat",
    "cryptominisat5",
    "drat-trim",
    "lrat-check",
    "cake_lpr",
    "kubectl",
    "sbatch",
    "squeue",
    "srun",
    "docker",
    "export",
    "for",
    "git",
    "apt-get",
    "ulimit",
    "timeout",
    "nice",
];

/// Is `line` a command a reader would type?
fn is_command(line: &str) -> bool {
    let mut words = line
        .trim()
        .trim_start_matches("$ ")
        .trim_start_matches('(')
        .split_whitespace()
        .skip_while(|w| {
            w.split_once('=').is_some_and(|(k, _)| {
                !k.is_empty() && k.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            })
        });
    let Some(first) = words.next() else {
        return false;
    };
    if ["./", "tools/", "benches/", "deploy/"]
        .iter()
        .any(|p| first.starts_with(p))
    {
        return true;
    }
    if first == "queens" {
        return words.next().is_some_and(|w| {
            w.starts_with(|c: char| c.is_ascii_lowercase())
                && w.chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
        });
    }
    PROGRAMS.contains(&first)
}

/// The blocks of a document that hold a command but are neither a `$` transcript nor marked
/// `<!-- not run: REASON -->`: the line each starts on and its first command. Indented blocks
/// (four spaces, after a blank line) and fenced ones (```) are looked at.
fn unmarked_command_blocks(text: &str) -> Vec<(usize, String)> {
    let lines: Vec<&str> = text.lines().collect();
    let marked = |i: usize| {
        (i >= 1 && lines[i - 1].starts_with("<!-- not run:"))
            || (i >= 2
                && lines[i - 1].trim().is_empty()
                && lines[i - 2].starts_with("<!-- not run:"))
    };
    let mut found = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let l = lines[i];
        let (body, next) = if let Some(lang) = l.strip_prefix("```") {
            let end = (i + 1..lines.len())
                .find(|&j| lines[j].starts_with("```"))
                .unwrap_or(lines.len());
            // A block of program text (Python, Rust, JSON…) holds code, not commands; the
            // Python examples run in python/tests.
            let code = ["python", "rust", "json", "toml", "yaml", "js"].contains(&lang.trim());
            (
                if code {
                    &lines[0..0]
                } else {
                    &lines[i + 1..end]
                },
                end + 1,
            )
        } else if l.starts_with("    ")
            && !l.trim().is_empty()
            && (i == 0 || lines[i - 1].trim().is_empty() || lines[i - 1].starts_with("<!--"))
        {
            let mut end = i;
            while end < lines.len()
                && (lines[end].starts_with("    ")
                    || (lines[end].trim().is_empty()
                        && lines.get(end + 1).is_some_and(|n| n.starts_with("    "))))
            {
                end += 1;
            }
            (&lines[i..end], end)
        } else {
            i += 1;
            continue;
        };
        // A block with `$` lines is run from each of them; a paragraph of it that does not
        // start with one is not, and is looked at on its own (with its own marker).
        let transcript = body.iter().any(|b| b.trim_start().starts_with("$ "));
        let mut parts: Vec<(usize, &[&str])> = Vec::new();
        if transcript {
            let mut k = 0;
            while k < body.len() {
                let end = (k..body.len())
                    .find(|&e| body[e].trim().is_empty())
                    .unwrap_or(body.len());
                if !body[k].trim_start().starts_with("$ ") {
                    parts.push((i + k, &body[k..end]));
                }
                k = end + 1;
            }
        } else {
            parts.push((i, body));
        }
        for (at, part) in parts {
            if marked(at) {
                continue;
            }
            if let Some(cmd) = part.iter().find(|b| is_command(b)) {
                found.push((at + 1, cmd.trim().to_string()));
            }
        }
        i = next.max(i + 1);
    }
    found
}

/// The line with every time (digits, an optional fraction, then ` ms` or ` s`) replaced by
/// `TIME`, and trailing spaces dropped.
fn normalize(line: &str) -> String {
    let mut out = String::new();
    let bytes = line.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let start_ok = i == 0 || !(bytes[i - 1].is_ascii_alphanumeric() || bytes[i - 1] == b'.');
        if start_ok && bytes[i].is_ascii_digit() {
            let mut j = i;
            while j < bytes.len() && (bytes[j].is_ascii_digit() || bytes[j] == b'.') {
                j += 1;
            }
            let rest = &line[j..];
            let unit = ["  ms", " ms", " s"]
                .iter()
                .find(|u| {
                    rest.starts_with(**u)
                        && rest[u.len()..]
                            .chars()
                            .next()
                            .is_none_or(|c| !c.is_alphanumeric())
                })
                .copied();
            if let Some(u) = unit {
                out.push_str("TIME");
                i = j + u.len();
                continue;
            }
            out.push_str(&line[i..j]);
            i = j;
            continue;
        }
        let c = line[i..].chars().next().unwrap();
        out.push(c);
        i += c.len_utf8();
    }
    out.trim_end().to_string()
}

/// Does `got` match the pattern line `want` (`[..]` matches any text)?
fn line_matches(want: &str, got: &str) -> bool {
    let want = want.replace('…', "[..]");
    let parts: Vec<&str> = want.split("[..]").collect();
    if parts.len() == 1 {
        return want == *got;
    }
    let mut rest = got;
    for (k, part) in parts.iter().enumerate() {
        if k == 0 {
            let Some(r) = rest.strip_prefix(part) else {
                return false;
            };
            rest = r;
        } else if k == parts.len() - 1 {
            return rest.ends_with(part);
        } else {
            let Some(at) = rest.find(part) else {
                return false;
            };
            rest = &rest[at + part.len()..];
        }
    }
    true
}

/// Do the output lines match the document's (`…` alone matches any run of lines)?
fn output_matches(want: &[String], got: &[String]) -> bool {
    match want.split_first() {
        None => got.is_empty(),
        Some((w, rest)) if w == "…" => (0..=got.len()).any(|k| output_matches(rest, &got[k..])),
        Some((w, rest)) => {
            got.first().is_some_and(|g| line_matches(w, g)) && output_matches(rest, &got[1..])
        }
    }
}

/// The outside programs a command runs, which a machine may lack.
const OUTSIDE: &[&str] = &[
    "drat-trim",
    "lrat-check",
    "cake_lpr",
    "cadical",
    "minisat",
    "picosat",
    "cryptominisat5",
    "curl",
];

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

/// Runs one command line with `sh` in its own process group, its output in files (so a
/// program it leaves in the background cannot hold a pipe open), and kills the group when it
/// ends or after a minute. Returns what it printed, stdout then stderr.
fn run(command: &str, dir: &Path, path_var: &std::ffi::OsStr) -> String {
    use std::os::unix::process::CommandExt;
    let (out_path, err_path) = (dir.join(".stdout"), dir.join(".stderr"));
    let mut child = Command::new("sh")
        .arg("-c")
        .arg(command)
        .current_dir(dir)
        .env("PATH", path_var)
        .env("TMPDIR", dir)
        .stdout(std::fs::File::create(&out_path).unwrap())
        .stderr(std::fs::File::create(&err_path).unwrap())
        .process_group(0)
        .spawn()
        .unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break Some(status);
        }
        if std::time::Instant::now() > deadline {
            break None;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    // The whole group: anything the command left running goes too.
    let _ = Command::new("kill")
        .args(["-KILL", "--", &format!("-{}", child.id())])
        .stderr(std::process::Stdio::null())
        .status();
    let _ = child.wait();
    assert!(status.is_some(), "`{command}` ran for over a minute");
    let mut text = std::fs::read_to_string(&out_path).unwrap();
    text.push_str(&std::fs::read_to_string(&err_path).unwrap());
    text
}

fn run_document(name: &str) -> usize {
    let path = repo().join(name);
    let text = std::fs::read_to_string(&path).unwrap();
    let bin_dir = Path::new(env!("CARGO_BIN_EXE_queens")).parent().unwrap();
    let search = std::env::var_os("PATH").unwrap_or_default();
    let mut dirs = vec![bin_dir.to_path_buf()];
    dirs.extend(std::env::split_paths(&search));
    let path_var = std::env::join_paths(dirs).unwrap();
    let mut ran = 0;
    'blocks: for (start, steps) in transcripts(&text) {
        for step in &steps {
            for program in OUTSIDE {
                let used = step
                    .command
                    .split(|c: char| c.is_whitespace() || c == '|')
                    .any(|w| w == *program);
                if used && need::program(program).is_none() {
                    need::detail(&format!(
                        "the block at {name}:{start}, which runs {program}"
                    ));
                    continue 'blocks;
                }
            }
        }
        let dir = temp::dir("docs");
        copy_dir(&repo().join("instances"), &dir.join("instances"));
        for step in &steps {
            let text = run(&step.command, &dir, &path_var);
            let got: Vec<String> = text.lines().map(normalize).collect();
            let want: Vec<String> = step.expected.iter().map(|l| normalize(l)).collect();
            assert!(
                output_matches(&want, &got),
                "{name}:{}: `{}` printed\n{}\nbut the document shows\n{}",
                step.line,
                step.command,
                text,
                step.expected.join("\n")
            );
            ran += 1;
        }
    }
    ran
}

#[test]
fn the_readme_and_docs_transcripts_are_what_the_product_prints() {
    let mut names = vec!["README.md".to_string()];
    let mut docs: Vec<String> = std::fs::read_dir(repo().join("docs"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".md"))
        .map(|n| format!("docs/{n}"))
        .collect();
    docs.sort();
    names.extend(docs);
    let unmarked: Vec<String> = names
        .iter()
        .flat_map(|name| {
            let text = std::fs::read_to_string(repo().join(name)).unwrap();
            unmarked_command_blocks(&text)
                .into_iter()
                .map(move |(line, cmd)| format!("{name}:{line}: {cmd}"))
        })
        .collect();
    assert!(
        unmarked.is_empty(),
        "documented commands that are neither a `$` transcript the test runs nor marked \
         `<!-- not run: REASON -->` on the line before the block:\n{}",
        unmarked.join("\n")
    );
    let mut total = 0;
    for name in &names {
        total += run_document(name);
    }
    // The README alone shows a handful; a parser that finds none would pass vacuously.
    assert!(total >= 5, "only {total} commands found in {names:?}");
}

#[test]
fn matching_rules() {
    assert_eq!(
        normalize("12×12, classic (backtrack, 140407 nodes, 5.22 ms)"),
        "12×12, classic (backtrack, 140407 nodes, TIME)"
    );
    assert_eq!(normalize("took 1.5 s, 3 sizes"), "took TIME, 3 sizes");
    assert!(line_matches(
        "proof: [..] refutes u.cnf",
        "proof: x (y) refutes u.cnf"
    ));
    assert!(!line_matches(
        "proof: [..] refutes u.cnf",
        "proof: x refutes v.cnf"
    ));
    let got: Vec<String> = ["a", "b", "c", "d"].iter().map(|s| s.to_string()).collect();
    let want = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    assert!(output_matches(&want(&["a", "…", "d"]), &got));
    assert!(!output_matches(&want(&["a", "…", "c"]), &got));
    assert!(!output_matches(&want(&["a", "b"]), &got));
    let blocks = transcripts(
        "text\n\n    $ one\n    out\n\n    $ two\n\n<!-- not run: slow -->\n\n    $ three\n    x\n",
    );
    assert_eq!(blocks.len(), 1);
    assert_eq!(blocks[0].1.len(), 2);
    assert_eq!(blocks[0].1[0].expected, ["out"]);
    // Commands shown without a transcript or a marker are found; output, code and marked
    // blocks are not.
    let doc = "a\n\n    queens solve x\n\nb\n\n    ....Q\n    queens: listening\n\n\
               <!-- not run: a server -->\n\n    queens serve\n\n```sh\ncurl -s x\n```\n\n\
               ```python\nimport queens\n```\n\n    queens (src/: a diagram)\n\n\
               \x20   X=1 sbatch job.sh\n\n    $ queens solve y\n    out\n\n    $ queens count z\n\n\
               \x20   queens check w\n";
    assert_eq!(
        unmarked_command_blocks(doc),
        [
            (3, "queens solve x".to_string()),
            (14, "curl -s x".to_string()),
            (24, "X=1 sbatch job.sh".to_string()),
            (31, "queens check w".to_string())
        ]
    );
}

/// Every file and folder below `dir` (folders end in `/`), relative to the repository, leaving
/// out the build's output and hidden folders.
fn tree(dir: &Path, prefix: &str, out: &mut Vec<String>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let entry = entry.unwrap();
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with('.') || (prefix.is_empty() && name == "target") {
            continue;
        }
        let rel = format!("{prefix}{name}");
        if entry.file_type().unwrap().is_dir() {
            out.push(format!("{rel}/"));
            tree(&entry.path(), &format!("{rel}/"), out);
        } else {
            out.push(rel);
        }
    }
}

/// The backticked spans of `text` that name a repository path: a Rust file, a folder (a
/// trailing `/`), or anything under a top-level folder.
fn named_paths(text: &str) -> Vec<&str> {
    const TOP: &[&str] = &["crates/", "src/", "tests/", "docs/", "python/", "benches/"];
    text.split('`')
        .skip(1)
        .step_by(2)
        .filter(|s| !s.contains(char::is_whitespace) && !s.contains("::") && !s.contains('…'))
        .filter(|s| s.ends_with(".rs") || s.ends_with('/') || TOP.iter().any(|t| s.starts_with(t)))
        .collect()
}

/// docs/architecture.md is where a newcomer learns which file to touch: every path it names
/// exists, whole from the repository's root or as the end of a path (`store/tls.rs`,
/// `amo/`), so a file moved or renamed fails here until the page follows.
#[test]
fn the_architecture_page_names_only_paths_that_exist() {
    let text = std::fs::read_to_string(repo().join("docs/architecture.md")).unwrap();
    let mut files = Vec::new();
    tree(&repo(), "", &mut files);
    let named = named_paths(&text);
    assert!(
        named.len() >= 50,
        "only {} paths found: {named:?}",
        named.len()
    );
    let missing: Vec<&str> = named
        .into_iter()
        .filter(|p| {
            !files
                .iter()
                .any(|f| f == p || f.ends_with(&format!("/{p}")))
        })
        .collect();
    assert!(
        missing.is_empty(),
        "docs/architecture.md names paths that do not exist: {missing:?}"
    );
    assert_eq!(
        named_paths("`a.rs`, `ops::Request`, `x/`, `crates/y`, `queens op`, `b.rs…`"),
        ["a.rs", "x/", "crates/y"]
    );
}
