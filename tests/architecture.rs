//! The crate graph is the data flow, and the compiler holds it only as long as the manifests
//! do: this test reads them (`cargo metadata`, `cargo tree`) and fails when an arrow points up, or when the
//! verifier's or the proof checkers' crate gains a path to anything that searches.

use std::collections::{BTreeMap, BTreeSet};
use std::process::Command;

use serde_json::Value;

/// The workspace's crates from the bottom up: each may depend only on crates before it.
const LAYERS: &[&str] = &[
    "queens-model",
    "queens-proof",
    "queens-engine",
    "queens-games",
    "queens-ops",
    "queens-server",
    "queens",
];

/// Crates that search: neither the verifier nor a checker may reach one, however indirectly.
const SEARCHERS: &[&str] = &["queens-engine", "varisat", "queens-games", "queens-ops"];

/// The crates that judge answers: the verifier's and the proof checkers'.
const JUDGES: &[&str] = &["queens-model", "queens-proof"];

fn metadata() -> Value {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let mut cmd = Command::new(cargo);
    // The workspace's own manifests only: no download, no resolution.
    cmd.args([
        "metadata",
        "--format-version",
        "1",
        "--no-deps",
        "--offline",
    ])
    .current_dir(env!("CARGO_MANIFEST_DIR"));
    let out = cmd.output().expect("run cargo metadata");
    assert!(
        out.status.success(),
        "cargo metadata failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("cargo metadata prints JSON")
}

#[test]
fn every_arrow_points_down() {
    let meta = metadata();
    let mut seen = BTreeSet::new();
    for package in meta["packages"].as_array().unwrap() {
        let name = package["name"].as_str().unwrap();
        let Some(level) = LAYERS.iter().position(|l| *l == name) else {
            // Outside the layers: the feature pins (no code) and the Python bindings, which
            // sit on the operations layer beside the service (the test below).
            continue;
        };
        seen.insert(name.to_string());
        for dep in package["dependencies"].as_array().unwrap() {
            let dep_name = dep["name"].as_str().unwrap();
            if let Some(dep_level) = LAYERS.iter().position(|l| *l == dep_name) {
                assert!(
                    dep_level < level,
                    "{name} depends on {dep_name} ({} dependency), which is not below it: \
                     the crates' order is {LAYERS:?}",
                    dep["kind"].as_str().unwrap_or("normal"),
                );
            }
        }
    }
    let want: BTreeSet<String> = LAYERS.iter().map(|s| s.to_string()).collect();
    assert_eq!(seen, want, "every layer is a package of the workspace");
}

/// `cargo tree` for one package (normal and build dependencies, this platform only), offline:
/// the build that runs this test has fetched everything it lists.
fn tree(args: &[&str]) -> String {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = Command::new(cargo)
        .args(["tree", "--offline", "-e", "normal,build"])
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("run cargo tree");
    assert!(
        out.status.success(),
        "cargo tree {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn the_verifier_and_the_checkers_reach_nothing_that_searches() {
    for judge in JUDGES {
        let listing = tree(&["-p", judge, "--prefix", "none", "-f", "{p}"]);
        let reached: BTreeSet<&str> = listing
            .lines()
            .filter_map(|l| l.split_whitespace().next())
            .collect();
        assert!(reached.contains(judge), "cargo tree lists {judge} itself");
        for searcher in SEARCHERS {
            if reached.contains(searcher) {
                let path = tree(&["-p", judge, "-i", searcher]);
                panic!("{judge} reaches {searcher}, which searches:\n{path}");
            }
        }
    }
}

/// What a Python wheel must not carry: the service, its async runtime and HTTP stack, and the
/// job stores' database drivers.
const SERVICE_ONLY: &[&str] = &[
    "queens",
    "queens-server",
    "tokio",
    "axum",
    "hyper",
    "rusqlite",
    "tokio-postgres",
];

#[test]
fn the_python_module_sits_on_the_operations_layer_without_the_service() {
    let listing = tree(&["-p", "queens-python", "--prefix", "none", "-f", "{p}"]);
    let reached: BTreeSet<&str> = listing
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    assert!(
        reached.contains("queens-ops") && reached.contains("pyo3"),
        "cargo tree lists the operations layer and PyO3 under queens-python:\n{listing}"
    );
    for crate_name in SERVICE_ONLY {
        if reached.contains(crate_name) {
            let path = tree(&["-p", "queens-python", "-i", crate_name]);
            panic!("the Python module reaches {crate_name}, a part of the service:\n{path}");
        }
    }
}

// ---------------------------------------------------------------------------------------------
// No circles between files.

/// No file of a crate uses an item of another file that, through any chain of such uses, uses
/// an item of the first: the graph "file A uses an item defined in file B" has no strongly
/// connected component of more than one file, in every crate of the workspace (its `src/`:
/// libraries, the binary, the Python bindings).
///
/// How the graph is made, simply and without a Rust parser: each file is cut into tokens
/// (comments, strings and character literals dropped), and the module tree is followed from
/// each crate root through its `mod x;` declarations (a file `x.rs` or `x/mod.rs`) and its
/// inline `mod x { … }` blocks, so `self`, `super` and `crate` mean what they mean to the
/// compiler. An edge comes from:
///
/// - a `use` of an item (`use crate::a::B`, `use super::b::{C, D}`, relative `use x::Y` where
///   `x` is a module in scope): the file that defines it. A `use` of a module adds no edge by
///   itself; the paths through it do (`a::f()` after `use crate::a`).
/// - a path written in code that starts with `crate::`, `super::`, `self::` or a module in
///   scope (`crate::x::y::f`, `backtrack::count(…)`).
/// - a glob `use p::*`: the files defining the names the importing module writes that `p`
///   provides.
///
/// A path is followed segment by segment from its start: a segment that names a submodule
/// descends into it (the deepest module file the path reaches); one that names a `use` of the
/// module it is looked up in (an alias or re-export, `pub` or not, or a glob) continues at
/// what that `use` names, so a re-export leads to the file that defines the item, not to the
/// file that re-exports it; anything else is an item defined in the module reached, which
/// ends the path (what follows, an enum's variant or an associated function, is inside that
/// item). A path that leaves the crate (`std::…`, another crate of the workspace, or an alias
/// of one such as `crate::model`) adds no edge.
///
/// A `pub use` is a re-export, not a use: it adds an edge only when its file also writes the
/// name it imports. So a `mod.rs` or `lib.rs` that declares submodules and re-exports their
/// items stays a plain parent: its children may use the items it *defines* (an edge to it,
/// which counts), and a circle appears only when it also uses theirs. Macros are not expanded
/// (their `$crate::` paths are skipped); `#[cfg(test)]` modules count like any other code.
///
/// What it cannot see, without types: a method call (`state.admit(…)` with `admit` defined in
/// another file's `impl`) is no path, so it adds no edge; nor does a `#[path]` attribute move a
/// module's file. Neither is used in the workspace to hide a circle.
#[test]
fn no_circles_between_files() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let graph = files::Graph::of_workspace(root);
    let cycles = graph.cycles();
    let mut report = String::new();
    for cycle in &cycles {
        report += &format!("circle ({} files):\n", cycle.len());
        for edge in graph.edges_within(cycle) {
            report += &format!("    {edge}\n");
        }
    }
    assert!(
        cycles.is_empty(),
        "{} circle(s) between files (each line: a file, the file whose item it uses, where and \
         through which path); move what both sides share to a file of its own:\n{report}",
        cycles.len()
    );
}

/// The file graph finds the circles it should, and resolves a re-export to the file that
/// defines the item.
#[test]
fn the_file_graph_sees_circles_and_resolves_re_exports() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("src");
    std::fs::create_dir_all(src.join("a")).unwrap();
    let write = |p: &str, text: &str| std::fs::write(src.join(p), text).unwrap();
    write(
        "lib.rs",
        "mod a;\nmod b;\nmod c;\npub use a::Thing;\n/* use crate::b::X; */\n",
    );
    // a/mod.rs re-exports its child's item and defines one the child uses: a plain parent.
    write(
        "a/mod.rs",
        "mod leaf;\npub use leaf::Thing;\npub struct Base;\n",
    );
    write("a/leaf.rs", "use super::Base;\npub struct Thing(Base);\n");
    // b and c use each other, c through the root's re-export and a full path.
    write(
        "b.rs",
        "use crate::Thing;\npub struct X;\npub fn f() -> Thing { let s = \"use crate::c::Y;\"; todo!() }\n",
    );
    write(
        "c.rs",
        "pub struct Y;\nfn g() { let _ = crate::b::X; }\n#[cfg(test)]\nmod tests {\n    use super::*;\n    fn h() -> Y { Y }\n}\n",
    );
    let graph = files::Graph::of_crate(dir.path(), &src.join("lib.rs"));
    let edges: Vec<String> = graph.edge_pairs();
    assert!(
        edges.contains(&"src/a/leaf.rs -> src/a/mod.rs".to_string()),
        "{edges:?}"
    );
    assert!(
        edges.contains(&"src/b.rs -> src/a/leaf.rs".to_string()),
        "{edges:?}"
    );
    assert!(
        edges.contains(&"src/c.rs -> src/b.rs".to_string()),
        "{edges:?}"
    );
    assert!(
        !edges.iter().any(|e| e.starts_with("src/lib.rs")),
        "{edges:?}"
    );
    assert!(
        !edges.contains(&"src/a/mod.rs -> src/a/leaf.rs".to_string()),
        "{edges:?}"
    );
    assert!(
        !edges.contains(&"src/b.rs -> src/c.rs".to_string()),
        "{edges:?}"
    );
    assert!(graph.cycles().is_empty(), "{:?}", graph.cycles());
    write(
        "b.rs",
        "use crate::Thing;\npub struct X;\npub fn f() -> (Thing, crate::c::Y) { todo!() }\n",
    );
    let graph = files::Graph::of_crate(dir.path(), &src.join("lib.rs"));
    assert_eq!(
        graph.cycles(),
        vec![vec!["src/b.rs".to_string(), "src/c.rs".to_string()]]
    );
}

/// The files that may ask which engine a spec or a name is by matching on it: the plan
/// (`plan.rs`, with the completion portfolio's node),
/// the executor (`execute.rs`, `side_by_side.rs`), the engine table (`table.rs`), and the
/// names and the grammar the table is keyed by (`name.rs`, `spec.rs`). Everywhere else a
/// question is asked of them (`EngineSpec::fields`, `EngineName::searcher`, …), so that a new
/// engine is one folder and one line of the table.
const MAY_MATCH_ENGINES: &[&str] = &[
    "crates/engine/src/plan.rs",
    "crates/engine/src/execute.rs",
    "crates/engine/src/side_by_side.rs",
    "crates/engine/src/name.rs",
    "crates/engine/src/spec.rs",
    "crates/engine/src/table.rs",
];

/// Every `.rs` file of the workspace's sources (crates, the binary, python, tests, examples,
/// benches), as paths relative to the root, sorted.
fn workspace_sources(root: &std::path::Path) -> Vec<String> {
    fn walk(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for e in entries {
            let path = e.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().to_string();
            if name.starts_with('.') || name == "target" {
                continue;
            }
            if path.is_dir() {
                walk(&path, out);
            } else if name.ends_with(".rs") {
                out.push(path);
            }
        }
    }
    let mut found = Vec::new();
    for top in ["crates", "src", "python", "tests", "examples", "benches"] {
        walk(&root.join(top), &mut found);
    }
    let mut files: Vec<String> = found
        .iter()
        .map(|p| {
            p.strip_prefix(root)
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/")
        })
        .collect();
    files.sort();
    files
}

/// No `match` arm (nor `matches!`, `if let`, `while let` or `let … else`) on an
/// `EngineSpec::…` or `EngineName::…` pattern outside [`MAY_MATCH_ENGINES`].
#[test]
fn engines_are_matched_on_in_the_plan_and_the_engine_table_only() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let files = workspace_sources(root);
    assert!(files.len() > 200, "sources found: {}", files.len());
    assert!(
        files.iter().any(|f| f == "crates/ops/src/solve.rs"),
        "the walk misses the operations layer"
    );
    let mut report = String::new();
    for f in &files {
        if MAY_MATCH_ENGINES.contains(&f.as_str()) {
            continue;
        }
        let src = std::fs::read_to_string(root.join(f)).unwrap();
        for line in engine_patterns(&src) {
            report += &format!("    {f}:{line}\n");
        }
    }
    assert!(
        report.is_empty(),
        "a pattern on an engine's name outside the plan and the engine table (ask the table: a \
         method on EngineSpec or EngineName in crates/engine/src/spec.rs or name.rs):\n{report}"
    );
}

/// The reader of [`engines_are_matched_on_in_the_plan_and_the_engine_table_only`] sees arms
/// (one or several lines, guarded, after block bodies and `if` bodies), `matches!` and
/// `if let`, and not a spec built in an arm's body, a comment or a string.
#[test]
fn the_engine_pattern_reader_sees_arms_and_nothing_else() {
    let src = r#"
fn f(spec: EngineSpec, b: bool) -> u8 {
    // EngineSpec::Sat(_) => 1,
    let s = "EngineName::Sat => 2";
    let x = match b {
        true => EngineSpec::Backtrack { threads: 1 },
        false => if b { EngineSpec::Dlx } else { EngineSpec::Sat(e) }
    };
    match (spec, b) {
        (EngineSpec::Sat(_), true) => {
            let y = EngineSpec::Dlx;
        }
        (_, false)
            if b =>
        {
            0
        }
        (queens_engine::EngineSpec::Local { .. }, _) if b => 3,
        _ => 4,
    }
    match n {
        EngineName::Sat
        | EngineName::Ext => 5,
        _ => 6,
    }
    if matches!(spec, EngineSpec::Dlx) {}
    if let EngineSpec::Backtrack { threads } = spec {}
    let Some(EngineName::Auto) = name else { return 7 };
    let z = EngineSpec::Dlx;
}
"#;
    assert_eq!(engine_patterns(src), vec![10, 18, 22, 23, 26, 27, 28]);
}

/// The lines of `src` on which a pattern names an `EngineSpec::…` or `EngineName::…`: the
/// patterns of `match` arms, of `matches!`, and of `let` (`if let`, `while let`, `let … else`).
fn engine_patterns(src: &str) -> Vec<usize> {
    let t = files::tokens(src);
    let text = |k: usize| t.get(k).map_or("", |x| x.text.as_str());
    let mut lines = BTreeSet::new();
    let mut flag = |from: usize, to: usize| {
        let to = to.min(t.len());
        for (k, tok) in t.iter().enumerate().take(to).skip(from) {
            if (tok.text == "EngineSpec" || tok.text == "EngineName") && text(k + 1) == "::" {
                lines.insert(tok.line);
            }
        }
    };
    let opens = |s: &str| matches!(s, "(" | "[" | "{");
    let closes = |s: &str| matches!(s, ")" | "]" | "}");
    // Past the expression of an arm's body that starts at `k`: past its comma, or at the `}`
    // that closes the match.
    let body_end = |mut k: usize| {
        let block_like = matches!(
            text(k),
            "{" | "if" | "match" | "loop" | "unsafe" | "while" | "for"
        );
        let mut depth = 0usize;
        while k < t.len() {
            let s = text(k);
            if depth == 0 && s == "," {
                return k + 1;
            }
            if depth == 0 && closes(s) {
                return k;
            }
            if opens(s) {
                depth += 1;
            } else if closes(s) {
                depth -= 1;
                if depth == 0
                    && s == "}"
                    && block_like
                    && !matches!(text(k + 1), "else" | "." | "?")
                {
                    return k + 1 + usize::from(text(k + 1) == ",");
                }
            }
            k += 1;
        }
        k
    };
    // From `k`, the first token at the depth of `k` for which `stop` holds, or the bracket
    // that closes the one `k` is inside.
    let scan = |mut k: usize, stop: &dyn Fn(usize) -> bool| {
        let mut depth = 0usize;
        while k < t.len() && !(depth == 0 && stop(k)) {
            if opens(text(k)) {
                depth += 1;
            } else if closes(text(k)) {
                if depth == 0 {
                    break;
                }
                depth -= 1;
            }
            k += 1;
        }
        k
    };
    for i in 0..t.len() {
        match text(i) {
            "match" => {
                // The scrutinee ends at the `{` that opens the arms.
                let mut k = scan(i + 1, &|k| text(k) == "{") + 1;
                // Arms: a pattern up to `=>` at depth 0, then its body.
                loop {
                    let start = k;
                    k = scan(k, &|k| text(k) == "=" && text(k + 1) == ">");
                    if text(k) != "=" {
                        break;
                    }
                    flag(start, k);
                    k = body_end(k + 2);
                }
            }
            "matches" if text(i + 1) == "!" && text(i + 2) == "(" => {
                // The pattern follows the first comma, up to the closing parenthesis.
                let comma = scan(i + 3, &|k| text(k) == ",");
                if text(comma) == "," {
                    flag(comma + 1, scan(comma + 1, &|_| false));
                }
            }
            "let" => flag(i + 1, scan(i + 1, &|k| matches!(text(k), "=" | ";" | ":"))),
            _ => {}
        }
    }
    lines.into_iter().collect()
}

/// In the engine crate an import line says where a name lives: no file names an item
/// through the crate root's re-exports (`crate::Answer`, `use crate::{Budget, …}`, or
/// `super::` from a file just under the root), but through the file that defines it
/// (`crate::answer::Answer`, `queens_model::Budget`).
#[test]
fn the_engine_crate_imports_names_from_the_files_that_define_them() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let src = root.join("crates/engine/src");
    let lib = std::fs::read_to_string(src.join("lib.rs")).unwrap();
    let exported = re_exports(&lib);
    assert!(
        exported.contains("Answer") && exported.contains("Budget"),
        "{exported:?}"
    );
    let mut report = String::new();
    for f in workspace_sources(root) {
        let Some(inside) = f.strip_prefix("crates/engine/src/") else {
            continue;
        };
        if inside == "lib.rs" {
            continue;
        }
        // `super::` of a file just under the root (`plan.rs`, `ext/mod.rs`) is the root.
        let under_root = !inside.contains('/')
            || inside.matches('/').count() == 1 && inside.ends_with("/mod.rs");
        let text = std::fs::read_to_string(root.join(&f)).unwrap();
        for (line, name) in through_the_root(&text, &exported, under_root) {
            report += &format!("    {f}:{line}: {name}\n");
        }
    }
    assert!(
        report.is_empty(),
        "names imported through crates/engine/src/lib.rs's re-exports; name the file that \
         defines each:\n{report}"
    );
}

/// The reader of [`the_engine_crate_imports_names_from_the_files_that_define_them`] sees a
/// re-exported name in a `use` group, alone and in a path, and through `super::` at a
/// file's top level, and not a module, a name the root does not re-export, or `super::` in a
/// test module.
#[test]
fn the_re_export_reader_sees_names_through_the_root() {
    let lib = "pub mod answer;\npub use answer::{Answer, Solved};\npub use queens_model::Budget;\n";
    let exported = re_exports(lib);
    assert_eq!(
        exported.iter().cloned().collect::<Vec<_>>(),
        ["Answer", "Budget", "Solved"]
    );
    let src = "use crate::{answer, Answer};\nuse crate::answer::Solved;\nuse super::Budget;\n\
               fn f() -> crate::Solved { crate::answer::x() }\n\
               #[cfg(test)]\nmod tests {\n    use super::Budget;\n}\n";
    assert_eq!(
        through_the_root(src, &exported, true),
        vec![
            (1, "Answer".to_string()),
            (3, "Budget".to_string()),
            (4, "Solved".to_string())
        ]
    );
    assert_eq!(
        through_the_root(src, &exported, false),
        vec![(1, "Answer".to_string()), (4, "Solved".to_string())]
    );
}

/// The names a crate root re-exports (`pub use a::{B, C};`, `pub use d::E;`).
fn re_exports(lib: &str) -> BTreeSet<String> {
    let t = files::tokens(lib);
    let mut names = BTreeSet::new();
    let mut i = 0;
    while i + 1 < t.len() {
        if t[i].text == "pub" && t[i + 1].text == "use" {
            let mut k = i + 2;
            while k < t.len() && t[k].text != ";" {
                let is_name = t[k]
                    .text
                    .starts_with(|c: char| c.is_alphabetic() || c == '_');
                let next = t.get(k + 1).map_or("", |x| x.text.as_str());
                if is_name && next != "::" && t[k].text != "as" && t[k].text != "self" {
                    names.insert(t[k].text.clone());
                }
                k += 1;
            }
            i = k;
        }
        i += 1;
    }
    names
}

/// Where `src` names an item of `exported` through the crate root: `crate::NAME`,
/// `crate::{…, NAME, …}`, and with `under_root` also `super::` at the file's top level.
fn through_the_root(
    src: &str,
    exported: &BTreeSet<String>,
    under_root: bool,
) -> Vec<(usize, String)> {
    let t = files::tokens(src);
    let text = |k: usize| t.get(k).map_or("", |x| x.text.as_str());
    let mut found = Vec::new();
    let mut depth = 0usize;
    for i in 0..t.len() {
        match text(i) {
            "{" => depth += 1,
            "}" => depth = depth.saturating_sub(1),
            _ => {}
        }
        let root = text(i) == "crate" || under_root && depth == 0 && text(i) == "super";
        if !root || text(i + 1) != "::" {
            continue;
        }
        if text(i + 2) == "{" {
            // The names at the group's own level.
            let mut k = i + 3;
            let mut inner = 0usize;
            while k < t.len() && !(inner == 0 && text(k) == "}") {
                match text(k) {
                    "{" => inner += 1,
                    "}" => inner -= 1,
                    _ => {}
                }
                let first = matches!(text(k - 1), "{" | ",") && inner == 0;
                if first && exported.contains(text(k)) && text(k + 1) != "::" {
                    found.push((t[k].line, text(k).to_string()));
                }
                k += 1;
            }
        } else if exported.contains(text(i + 2)) && text(i + 3) != "::" {
            found.push((t[i + 2].line, text(i + 2).to_string()));
        }
    }
    found
}

// ---------------------------------------------------------------------------------------------
// The routing is small, and the engines know nothing of it or of each other.

/// The routing of the engine crate: the plan (`plan()`, `auto`'s choice and the completion
/// portfolio's node), the executor (every step, the portfolio's too), and the one
/// combinator of two steps at once. Every other file of the crate is an engine, a model of
/// the problem (the board's core and its estimates, the CNF, the memory limits), a proof
/// writer, or what an answer holds (`answer.rs`, `work.rs`, and `step.rs`, the tree's steps
/// and their JSON and text); a new routing file is a new entry here, and counts.
const ROUTING: &[&str] = &[
    "crates/engine/src/plan.rs",
    "crates/engine/src/execute.rs",
    "crates/engine/src/side_by_side.rs",
];

/// The routing's files at most, and their lines at most: every line of each file counts
/// (`wc -l`: doc comments, blank lines and unit tests included), so tests of the routing
/// live in `tests/suite/plan.rs`.
const ROUTING_MAX_FILES: usize = 3;
const ROUTING_MAX_LINES: usize = 1_200;

/// What is wrong with the routing under `root`: over [`ROUTING_MAX_FILES`] files or
/// [`ROUTING_MAX_LINES`] lines, or a file of [`ROUTING`] missing; empty when all is well.
fn routing_report(root: &std::path::Path, routing: &[&str]) -> String {
    let mut report = String::new();
    if routing.len() > ROUTING_MAX_FILES {
        report += &format!(
            "the routing is {} files, at most {ROUTING_MAX_FILES}: {routing:?}\n",
            routing.len()
        );
    }
    let mut total = 0;
    let mut each = String::new();
    for f in routing {
        let Ok(text) = std::fs::read_to_string(root.join(f)) else {
            report += &format!("the routing file {f} is missing: fold its successor in here\n");
            continue;
        };
        let lines = text.lines().count();
        total += lines;
        each += &format!("    {lines:>5} {f}\n");
    }
    if total > ROUTING_MAX_LINES {
        report += &format!(
            "the routing is {total} lines, at most {ROUTING_MAX_LINES}: move what is a model of \
             the problem to its model, and tests to tests/suite/plan.rs\n{each}"
        );
    }
    report
}

#[test]
fn the_routing_is_three_files_and_at_most_its_lines() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let report = routing_report(root, ROUTING);
    assert!(report.is_empty(), "{report}");
    // The count sees a file grown past the bound, and a fourth file.
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.rs"), "//\n".repeat(ROUTING_MAX_LINES)).unwrap();
    assert!(routing_report(dir.path(), &["a.rs"]).is_empty());
    std::fs::write(dir.path().join("b.rs"), "fn f() {}\n").unwrap();
    let grown = routing_report(dir.path(), &["a.rs", "b.rs"]);
    assert!(
        grown.contains(&format!("{} lines", ROUTING_MAX_LINES + 1)),
        "{grown}"
    );
    let four = routing_report(dir.path(), &["a.rs", "b.rs", "b.rs", "b.rs"]);
    assert!(four.contains("is 4 files"), "{four}");
}

/// The engines' own files: each folder (or file) is one engine, which may use the models
/// (the board, the core, the CNF, the memory limits, `engines.rs`'s `Engine` trait) but
/// neither another engine nor the routing. `completion/` is the model of a completion's
/// core and its estimates; only its search is an engine. `sat.rs` counts as a model here:
/// it holds the CNF formula (`Encoded`, `encode_problem`) that `ext/` writes out, beside
/// varisat's run.
const ENGINE_FOLDERS: &[&str] = &[
    "crates/engine/src/backtrack/",
    "crates/engine/src/dlx/",
    "crates/engine/src/local/",
    "crates/engine/src/ext/",
    "crates/engine/src/completion/search.rs",
];

/// Uses of another engine that are cross-checks in an engine's unit tests: (from, to).
const ENGINE_CROSS_CHECKS: &[(&str, &str)] = &[
    // Dancing Links' count against the backtracker's on the same boards.
    (
        "crates/engine/src/dlx/mod.rs",
        "crates/engine/src/backtrack/mod.rs",
    ),
    (
        "crates/engine/src/dlx/mod.rs",
        "crates/engine/src/backtrack/config.rs",
    ),
];

/// The engine (of `engines`) whose folder holds `file`.
fn engine_folder<'a>(file: &str, engines: &[&'a str]) -> Option<&'a str> {
    engines.iter().copied().find(|e| file.starts_with(e))
}

/// Every use, in `graph`, of another engine or of the routing from an engine's file.
fn engine_imports(
    graph: &files::Graph,
    engines: &[&str],
    routing: &[&str],
    allowed: &[(&str, &str)],
) -> String {
    let mut report = String::new();
    for (from, to, at) in graph.edges() {
        let Some(own) = engine_folder(&from, engines) else {
            continue;
        };
        let other = engine_folder(&to, engines).is_some_and(|e| e != own);
        let planned = routing.contains(&to.as_str());
        if (other || planned) && !allowed.contains(&(from.as_str(), to.as_str())) {
            let what = if planned {
                "the routing"
            } else {
                "another engine"
            };
            report += &format!("    {from} -> {to} ({what}; {at})\n");
        }
    }
    report
}

/// Where the product's sources (not its tests) name the engine without options `leaf`,
/// outside its own folder: each line as `file:line`, but for its line of the engine table
/// (`table.rs`, the line of `LEAVES`) and its `mod` line in `lib.rs`.
fn leaf_mentions(root: &std::path::Path, leaf: &str) -> Vec<String> {
    let folder = format!("crates/engine/src/{leaf}/");
    let word = |line: &str| {
        let lower = line.to_lowercase();
        lower.match_indices(leaf).any(|(i, _)| {
            let before = lower[..i].chars().next_back();
            let after = lower[i + leaf.len()..].chars().next();
            let part = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
            !part(before) && !part(after)
        })
    };
    let mut found = Vec::new();
    for f in workspace_sources(root) {
        let product = (f.starts_with("crates/") && f.contains("/src/"))
            || f.starts_with("src/")
            || f.starts_with("python/src/");
        if !product || f.starts_with(&folder) {
            continue;
        }
        let text = std::fs::read_to_string(root.join(&f)).unwrap();
        for (i, line) in text.lines().enumerate() {
            let allowed = (f == "crates/engine/src/table.rs" && line.contains("pub static LEAVES"))
                || (f == "crates/engine/src/lib.rs" && line.trim() == format!("pub mod {leaf};"));
            if word(line) && !allowed {
                found.push(format!("{f}:{}: {}", i + 1, line.trim()));
            }
        }
    }
    found
}

/// An engine without options arrives as its folder and one line of the engine table
/// (`LEAVES` in `table.rs`): outside its folder no source of the product names it, so its
/// name, help, listing, parsing and running all come from that line.
#[test]
fn an_engine_without_options_is_its_folder_and_one_line_of_the_table() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let table = std::fs::read_to_string(root.join("crates/engine/src/table.rs")).unwrap();
    let line = table
        .lines()
        .find(|l| l.contains("pub static LEAVES"))
        .expect("table.rs lists the engines without options in one line, `pub static LEAVES`");
    let leaves: Vec<&str> = line
        .split("crate::")
        .skip(1)
        .filter_map(|s| s.split("::").next())
        .collect();
    assert!(leaves.contains(&"dlx"), "{line}");
    for leaf in leaves {
        let found = leaf_mentions(root, leaf);
        assert!(
            found.is_empty(),
            "the engine {leaf} is named outside its folder and its line of the table:\n{}",
            found.join("\n")
        );
    }
    // The check sees a planted mention.
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("crates/engine/src");
    std::fs::create_dir_all(src.join("xyz")).unwrap();
    std::fs::write(src.join("lib.rs"), "pub mod xyz;\n").unwrap();
    std::fs::write(src.join("xyz/mod.rs"), "// xyz\n").unwrap();
    std::fs::write(
        src.join("table.rs"),
        "pub static LEAVES = [crate::xyz::LEAF];\n",
    )
    .unwrap();
    assert!(leaf_mentions(dir.path(), "xyz").is_empty());
    std::fs::write(src.join("plan.rs"), "// the XYZ engine\nfn xyzzy() {}\n").unwrap();
    assert_eq!(
        leaf_mentions(dir.path(), "xyz"),
        ["crates/engine/src/plan.rs:1: // the XYZ engine"]
    );
}

#[test]
fn no_engine_uses_another_engine_or_the_routing() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let graph = files::Graph::of_crate(root, &root.join("crates/engine/src/lib.rs"));
    for e in ENGINE_FOLDERS {
        assert!(
            root.join(e).exists(),
            "the engine {e} is gone: update ENGINE_FOLDERS"
        );
    }
    let report = engine_imports(&graph, ENGINE_FOLDERS, ROUTING, ENGINE_CROSS_CHECKS);
    assert!(
        report.is_empty(),
        "an engine uses another engine or the routing (what both need is a model: move it \
         to one):\n{report}"
    );
    // The check sees a planted use of the plan and of another engine.
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("src");
    std::fs::create_dir_all(src.join("a")).unwrap();
    std::fs::create_dir_all(src.join("b")).unwrap();
    let write = |p: &str, text: &str| std::fs::write(src.join(p), text).unwrap();
    write(
        "lib.rs",
        "pub mod a;\npub mod b;\npub mod plan;\npub mod model;\n",
    );
    write("model.rs", "pub struct Board;\n");
    write("plan.rs", "pub struct Step;\n");
    write("b/mod.rs", "pub fn run() {}\n");
    write(
        "a/mod.rs",
        "use crate::model::Board;\npub fn f(_: Board) {}\n",
    );
    let (engines, routing) = (&["src/a/", "src/b/"][..], &["src/plan.rs"][..]);
    let clean = files::Graph::of_crate(dir.path(), &src.join("lib.rs"));
    assert_eq!(engine_imports(&clean, engines, routing, &[]), "");
    write(
        "a/mod.rs",
        "use crate::plan::Step;\npub fn f(_: Step) { crate::b::run() }\n",
    );
    let planted = files::Graph::of_crate(dir.path(), &src.join("lib.rs"));
    let report = engine_imports(&planted, engines, routing, &[]);
    assert!(
        report.contains("src/a/mod.rs -> src/plan.rs (the routing")
            && report.contains("src/a/mod.rs -> src/b/mod.rs (another engine"),
        "{report}"
    );
}

/// The public types defined in the engine crate's sources, `(name, file)`, from the
/// `pub struct`, `pub enum`, `pub type` and `pub trait` items (`pub(crate)` and narrower
/// are not the crate's names).
fn public_types(root: &std::path::Path, files: &[String]) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for f in files {
        let src = std::fs::read_to_string(root.join(f)).unwrap();
        let t = files::tokens(&src);
        for w in t.windows(3) {
            if w[0].text == "pub"
                && matches!(w[1].text.as_str(), "struct" | "enum" | "type" | "trait")
            {
                out.push((w[2].text.clone(), f.clone()));
            }
        }
    }
    out
}

/// The names of the engine crate's public types that `routing` (its files' sources) names
/// and that more than one file defines, with those files: empty when every type a reader
/// of the routing meets has one name.
fn shared_names_in_routing(types: &[(String, String)], routing: &[String]) -> String {
    let mut by_name: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    for (name, file) in types {
        by_name.entry(name).or_default().insert(file);
    }
    let named: BTreeSet<String> = routing
        .iter()
        .flat_map(|src| files::tokens(src).into_iter().map(|t| t.text))
        .collect();
    by_name
        .iter()
        .filter(|(name, files)| files.len() > 1 && named.contains(**name))
        .map(|(name, files)| {
            let files: Vec<&str> = files.iter().copied().collect();
            format!("  {name}: {}\n", files.join(", "))
        })
        .collect()
}

#[test]
fn the_types_a_reader_of_the_routing_meets_have_one_name_each() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let engine: Vec<String> = workspace_sources(root)
        .into_iter()
        .filter(|f| f.starts_with("crates/engine/src/"))
        .collect();
    let types = public_types(root, &engine);
    assert!(
        types
            .iter()
            .any(|(n, f)| n == "Step" && f.ends_with("step.rs")),
        "the type reader found no step::Step: {} types",
        types.len()
    );
    let routing: Vec<String> = ROUTING
        .iter()
        .map(|f| std::fs::read_to_string(root.join(f)).unwrap())
        .collect();
    let report = shared_names_in_routing(&types, &routing);
    assert!(
        report.is_empty(),
        "public types of the engine crate that the routing names share a name with another \
         (rename one):\n{report}"
    );
    // The check sees a planted second `Step`.
    let mut planted = types.clone();
    planted.push(("Step".into(), "crates/engine/src/puzzle/planted.rs".into()));
    let report = shared_names_in_routing(&planted, &routing);
    assert!(
        report.contains("Step: crates/engine/src/puzzle/planted.rs, crates/engine/src/step.rs"),
        "{report}"
    );
}

/// The file graph of [`no_circles_between_files`].
mod files {
    use std::collections::{BTreeMap, BTreeSet};
    use std::path::{Path, PathBuf};

    /// A token: an identifier or keyword, `::`, a lifetime, or one punctuation character.
    pub struct Tok {
        pub text: String,
        pub line: usize,
    }

    /// Tokens of Rust source without comments, strings and character literals (a literal
    /// becomes the token `"`).
    pub fn tokens(src: &str) -> Vec<Tok> {
        let s: Vec<char> = src.chars().collect();
        let mut out = Vec::new();
        let (mut i, mut line) = (0, 1);
        let ident_start = |c: char| c.is_alphabetic() || c == '_';
        let ident_char = |c: char| c.is_alphanumeric() || c == '_';
        // Where the run of identifier characters that starts at `from` ends.
        let ident_end =
            |from: usize| from + s[from..].iter().take_while(|&&c| ident_char(c)).count();
        while i < s.len() {
            let c = s[i];
            let next = s.get(i + 1).copied().unwrap_or('\0');
            if c == '\n' {
                line += 1;
                i += 1;
            } else if c.is_whitespace() {
                i += 1;
            } else if c == '/' && next == '/' {
                while i < s.len() && s[i] != '\n' {
                    i += 1;
                }
            } else if c == '/' && next == '*' {
                let mut depth = 0;
                while i < s.len() {
                    if s[i] == '/' && s.get(i + 1) == Some(&'*') {
                        depth += 1;
                        i += 2;
                    } else if s[i] == '*' && s.get(i + 1) == Some(&'/') {
                        depth -= 1;
                        i += 2;
                        if depth == 0 {
                            break;
                        }
                    } else {
                        line += usize::from(s[i] == '\n');
                        i += 1;
                    }
                }
            } else if let Some(len) = raw_string_start(&s[i..]) {
                // r"…", r#"…"#, br"…": ends at the quote followed by as many #.
                let hashes = len - 1 - usize::from(s[i] == 'b') - 1;
                i += len;
                while i < s.len() {
                    if s[i] == '"' && (1..=hashes).all(|k| s.get(i + k) == Some(&'#')) {
                        i += 1 + hashes;
                        break;
                    }
                    line += usize::from(s[i] == '\n');
                    i += 1;
                }
                out.push(Tok {
                    text: "\"".into(),
                    line,
                });
            } else if c == '"' || ((c == 'b' || c == 'c') && next == '"') {
                i += if c == '"' { 1 } else { 2 };
                while i < s.len() && s[i] != '"' {
                    if s[i] == '\\' {
                        i += 1;
                    }
                    line += usize::from(s.get(i) == Some(&'\n'));
                    i += 1;
                }
                i += 1;
                out.push(Tok {
                    text: "\"".into(),
                    line,
                });
            } else if c == '\'' || (c == 'b' && next == '\'') {
                let q = if c == '\'' { i } else { i + 1 };
                if s.get(q + 1) == Some(&'\\') {
                    // An escaped character: up to the closing quote.
                    i = q + 2;
                    while i < s.len() && s[i] != '\'' {
                        i += 1;
                    }
                    i += 1;
                    out.push(Tok {
                        text: "\"".into(),
                        line,
                    });
                } else if s.get(q + 2) == Some(&'\'') {
                    i = q + 3;
                    out.push(Tok {
                        text: "\"".into(),
                        line,
                    });
                } else {
                    // A lifetime or a label.
                    let j = ident_end(q + 1);
                    out.push(Tok {
                        text: s[q..j].iter().collect(),
                        line,
                    });
                    i = j;
                }
            } else if c == 'r' && next == '#' && s.get(i + 2).is_some_and(|&c| ident_start(c)) {
                let j = ident_end(i + 2);
                out.push(Tok {
                    text: s[i + 2..j].iter().collect(),
                    line,
                });
                i = j;
            } else if ident_start(c) {
                let j = ident_end(i);
                out.push(Tok {
                    text: s[i..j].iter().collect(),
                    line,
                });
                i = j;
            } else if c.is_ascii_digit() {
                while i < s.len()
                    && (ident_char(s[i])
                        || s[i] == '.' && s.get(i + 1).is_some_and(|c| c.is_ascii_digit()))
                {
                    i += 1;
                }
                out.push(Tok {
                    text: "0".into(),
                    line,
                });
            } else if c == ':' && next == ':' {
                out.push(Tok {
                    text: "::".into(),
                    line,
                });
                i += 2;
            } else {
                out.push(Tok {
                    text: c.to_string(),
                    line,
                });
                i += 1;
            }
        }
        out
    }

    /// The length of a raw string's opening (`r"`, `r##"`, `br#"`), if one starts here.
    fn raw_string_start(s: &[char]) -> Option<usize> {
        let mut j = usize::from(s.first() == Some(&'b'));
        if s.get(j) != Some(&'r') {
            return None;
        }
        j += 1;
        while s.get(j) == Some(&'#') {
            j += 1;
        }
        (s.get(j) == Some(&'"')).then_some(j + 1)
    }

    /// What a `use` imports under a name, or `*`, or anonymously (`as _`).
    enum Leaf {
        Name(String),
        Glob,
        Anon,
    }

    struct Use {
        path: Vec<String>,
        leaf: Leaf,
        public: bool,
        line: usize,
    }

    /// A path written in code, from its first segment.
    struct CodePath {
        segs: Vec<String>,
        line: usize,
    }

    struct Module {
        parent: Option<usize>,
        file: usize,
        /// Where the files of its submodules are.
        dir: PathBuf,
        children: BTreeMap<String, usize>,
        /// Names of the items defined in it (at its own level).
        defs: BTreeSet<String>,
        uses: Vec<Use>,
        paths: Vec<CodePath>,
        /// Identifiers written in it outside `use` declarations.
        idents: BTreeSet<String>,
    }

    /// What a path names.
    #[derive(Clone, Copy, PartialEq, Eq, Debug)]
    enum Res {
        Module(usize),
        /// An item defined in this module.
        Item(usize),
        /// Outside the crate.
        External,
    }

    /// One edge and the first reason found for it.
    struct Edge {
        line: usize,
        path: String,
    }

    /// Files (paths relative to the workspace root) and the edges between them.
    pub struct Graph {
        files: Vec<String>,
        edges: BTreeMap<(usize, usize), Edge>,
    }

    impl Graph {
        /// The graph of every crate in the workspace (one graph; crates share no edges).
        pub fn of_workspace(root: &Path) -> Graph {
            let mut dirs = vec![root.to_path_buf(), root.join("python")];
            let mut crates: Vec<PathBuf> = std::fs::read_dir(root.join("crates"))
                .unwrap()
                .map(|e| e.unwrap().path())
                .collect();
            crates.sort();
            dirs.extend(crates);
            let mut roots = Vec::new();
            for dir in dirs {
                let src = dir.join("src");
                for f in ["lib.rs", "main.rs"] {
                    if src.join(f).is_file() {
                        roots.push(src.join(f));
                    }
                }
                if let Ok(bins) = std::fs::read_dir(src.join("bin")) {
                    let mut bins: Vec<PathBuf> = bins.map(|e| e.unwrap().path()).collect();
                    bins.sort();
                    for b in bins {
                        if b.is_dir() && b.join("main.rs").is_file() {
                            roots.push(b.join("main.rs"));
                        } else if b.extension().is_some_and(|e| e == "rs") {
                            roots.push(b);
                        }
                    }
                }
            }
            assert!(roots.len() >= 8, "crate roots found: {roots:?}");
            let mut b = Builder::new(root);
            for r in &roots {
                b.add_crate(r);
            }
            b.graph()
        }

        /// The graph of one crate.
        pub fn of_crate(root: &Path, crate_root: &Path) -> Graph {
            let mut b = Builder::new(root);
            b.add_crate(crate_root);
            b.graph()
        }

        /// Every edge: from, to, and where (line and path).
        pub fn edges(&self) -> Vec<(String, String, String)> {
            self.edges
                .iter()
                .map(|(&(a, b), e)| {
                    let at = format!("line {}: {}", e.line, e.path);
                    (self.files[a].clone(), self.files[b].clone(), at)
                })
                .collect()
        }

        /// Every edge as `from -> to`.
        pub fn edge_pairs(&self) -> Vec<String> {
            self.edges
                .keys()
                .map(|&(a, b)| format!("{} -> {}", self.files[a], self.files[b]))
                .collect()
        }

        /// The edges inside a set of files, with where each comes from.
        pub fn edges_within(&self, files: &[String]) -> Vec<String> {
            let inside = |f: usize| files.contains(&self.files[f]);
            self.edges
                .iter()
                .filter(|((a, b), _)| inside(*a) && inside(*b))
                .map(|(&(a, b), e)| {
                    format!(
                        "{} -> {}   (line {}: {})",
                        self.files[a], self.files[b], e.line, e.path
                    )
                })
                .collect()
        }

        /// The strongly connected components of more than one file (Tarjan), each sorted,
        /// in order.
        pub fn cycles(&self) -> Vec<Vec<String>> {
            let n = self.files.len();
            let mut next: Vec<Vec<usize>> = vec![Vec::new(); n];
            for &(a, b) in self.edges.keys() {
                next[a].push(b);
            }
            struct Tarjan<'g> {
                next: &'g [Vec<usize>],
                index: Vec<Option<usize>>,
                low: Vec<usize>,
                on_stack: Vec<bool>,
                stack: Vec<usize>,
                counter: usize,
                out: Vec<Vec<usize>>,
            }
            impl Tarjan<'_> {
                fn visit(&mut self, v: usize) {
                    self.index[v] = Some(self.counter);
                    self.low[v] = self.counter;
                    self.counter += 1;
                    self.stack.push(v);
                    self.on_stack[v] = true;
                    for &w in &self.next[v] {
                        match self.index[w] {
                            None => {
                                self.visit(w);
                                self.low[v] = self.low[v].min(self.low[w]);
                            }
                            Some(iw) if self.on_stack[w] => self.low[v] = self.low[v].min(iw),
                            Some(_) => {}
                        }
                    }
                    if Some(self.low[v]) == self.index[v] {
                        let mut scc = Vec::new();
                        loop {
                            let w = self.stack.pop().unwrap();
                            self.on_stack[w] = false;
                            scc.push(w);
                            if w == v {
                                break;
                            }
                        }
                        self.out.push(scc);
                    }
                }
            }
            let mut t = Tarjan {
                next: &next,
                index: vec![None; n],
                low: vec![0; n],
                on_stack: vec![false; n],
                stack: Vec::new(),
                counter: 0,
                out: Vec::new(),
            };
            for v in 0..n {
                if t.index[v].is_none() {
                    t.visit(v);
                }
            }
            let mut out: Vec<Vec<String>> = t
                .out
                .into_iter()
                .filter(|scc| scc.len() > 1)
                .map(|scc| {
                    let mut names: Vec<String> =
                        scc.into_iter().map(|f| self.files[f].clone()).collect();
                    names.sort();
                    names
                })
                .collect();
            out.sort();
            out
        }
    }

    struct Builder {
        root: PathBuf,
        files: Vec<String>,
        modules: Vec<Module>,
        crate_modules: Vec<usize>,
    }

    impl Builder {
        fn new(root: &Path) -> Builder {
            Builder {
                root: root.to_path_buf(),
                files: Vec::new(),
                modules: Vec::new(),
                crate_modules: Vec::new(),
            }
        }

        fn add_crate(&mut self, root_file: &Path) {
            let m = self.add_module(None, root_file, root_file.parent().unwrap().to_path_buf());
            self.crate_modules.push(m);
        }

        /// Reads a module's file and, through its `mod` declarations, its submodules'.
        fn add_module(&mut self, parent: Option<usize>, file: &Path, dir: PathBuf) -> usize {
            let text = std::fs::read_to_string(file)
                .unwrap_or_else(|e| panic!("read {}: {e}", file.display()));
            let name = file
                .strip_prefix(&self.root)
                .unwrap_or(file)
                .to_string_lossy()
                .replace('\\', "/");
            let f = self.files.len();
            self.files.push(name);
            let top = self.new_module(parent, f, dir);
            let toks = tokens(&text);
            // The modules open at this point, with the brace depth inside each.
            let mut stack: Vec<(usize, usize)> = vec![(top, 0)];
            let mut depth = 0;
            let mut i = 0;
            while i < toks.len() {
                let (m, level) = *stack.last().unwrap();
                let t = toks[i].text.as_str();
                let at = |k: usize| toks.get(k).map_or("", |t| t.text.as_str());
                match t {
                    "{" => depth += 1,
                    "}" => {
                        depth -= 1;
                        if depth < level {
                            stack.pop();
                        }
                    }
                    "mod" if is_ident(at(i + 1)) && (at(i + 2) == ";" || at(i + 2) == "{") => {
                        let name = at(i + 1).to_string();
                        let sub = self.modules[m].dir.join(&name);
                        if at(i + 2) == ";" {
                            let file = [sub.with_extension("rs"), sub.join("mod.rs")]
                                .into_iter()
                                .find(|p| p.is_file())
                                .unwrap_or_else(|| panic!("no file for module {}", sub.display()));
                            let c = self.add_module(Some(m), &file, sub);
                            self.modules[m].children.insert(name, c);
                            i += 3;
                        } else {
                            let c = self.new_module(Some(m), f, sub);
                            self.modules[m].children.insert(name, c);
                            depth += 1;
                            stack.push((c, depth));
                            i += 3;
                        }
                        continue;
                    }
                    "use" => {
                        let public = at(i.wrapping_sub(1)) == "pub"
                            || (at(i.wrapping_sub(1)) == ")" && {
                                let mut k = i - 1;
                                while k > 0 && at(k) != "(" {
                                    k -= 1;
                                }
                                at(k.wrapping_sub(1)) == "pub"
                            });
                        let line = toks[i].line;
                        let mut j = i + 1;
                        let mut leaves = Vec::new();
                        use_tree(&toks, &mut j, Vec::new(), &mut leaves);
                        for (path, leaf) in leaves {
                            self.modules[m].uses.push(Use {
                                path,
                                leaf,
                                public,
                                line,
                            });
                        }
                        while j < toks.len() && toks[j].text != ";" {
                            j += 1;
                        }
                        i = j + 1;
                        continue;
                    }
                    "fn" | "struct" | "enum" | "trait" | "type" | "const" | "static" | "union"
                        if depth == level && is_ident(at(i + 1)) =>
                    {
                        self.modules[m].defs.insert(at(i + 1).to_string());
                    }
                    "macro_rules" if at(i + 1) == "!" => {
                        self.modules[m].defs.insert(at(i + 2).to_string());
                    }
                    _ if is_ident(t) || t == "crate" || t == "self" || t == "super" => {
                        self.modules[m].idents.insert(t.to_string());
                        let starts = at(i + 1) == "::"
                            && at(i.wrapping_sub(1)) != "::"
                            && at(i.wrapping_sub(1)) != "$"
                            && t != "Self";
                        if starts {
                            let line = toks[i].line;
                            let mut segs = vec![t.to_string()];
                            let mut j = i + 1;
                            while at(j) == "::" && is_ident(at(j + 1)) {
                                segs.push(at(j + 1).to_string());
                                j += 2;
                            }
                            self.modules[m].paths.push(CodePath { segs, line });
                        }
                    }
                    _ => {}
                }
                i += 1;
            }
            top
        }

        fn new_module(&mut self, parent: Option<usize>, file: usize, dir: PathBuf) -> usize {
            self.modules.push(Module {
                parent,
                file,
                dir,
                children: BTreeMap::new(),
                defs: BTreeSet::new(),
                uses: Vec::new(),
                paths: Vec::new(),
                idents: BTreeSet::new(),
            });
            self.modules.len() - 1
        }

        fn crate_root(&self, mut m: usize) -> usize {
            while let Some(p) = self.modules[m].parent {
                m = p;
            }
            m
        }

        /// What `segs`, written in module `from`, names.
        fn resolve(
            &self,
            from: usize,
            segs: &[String],
            seen: &mut BTreeSet<(usize, String)>,
        ) -> Res {
            let Some(first) = segs.first() else {
                return Res::Module(from);
            };
            let mut rest = &segs[1..];
            let mut cur = match first.as_str() {
                "crate" => Res::Module(self.crate_root(from)),
                "self" => Res::Module(from),
                "super" => {
                    let mut m = self.modules[from].parent.expect("super of a crate root");
                    while rest.first().is_some_and(|s| s == "super") {
                        m = self.modules[m].parent.expect("super of a crate root");
                        rest = &rest[1..];
                    }
                    Res::Module(m)
                }
                _ => match self.lookup(from, first, seen) {
                    Some(r) => r,
                    None => return Res::External,
                },
            };
            for seg in rest {
                let Res::Module(m) = cur else {
                    break;
                };
                cur = self.lookup(m, seg, seen).unwrap_or(Res::Item(m));
            }
            cur
        }

        /// What `name` names in module `m`: a submodule, a `use`, an item, a glob's name.
        fn lookup(
            &self,
            m: usize,
            name: &str,
            seen: &mut BTreeSet<(usize, String)>,
        ) -> Option<Res> {
            let module = &self.modules[m];
            if let Some(&c) = module.children.get(name) {
                return Some(Res::Module(c));
            }
            if !seen.insert((m, name.to_string())) {
                return None;
            }
            let found = self.lookup_uses(m, name, seen);
            seen.remove(&(m, name.to_string()));
            found
        }

        fn lookup_uses(
            &self,
            m: usize,
            name: &str,
            seen: &mut BTreeSet<(usize, String)>,
        ) -> Option<Res> {
            let module = &self.modules[m];
            for u in &module.uses {
                if matches!(&u.leaf, Leaf::Name(n) if n == name) {
                    return Some(self.resolve(m, &u.path, seen));
                }
            }
            if module.defs.contains(name) {
                return Some(Res::Item(m));
            }
            for u in &module.uses {
                if let Leaf::Glob = u.leaf {
                    if let Res::Module(g) = self.resolve(m, &u.path, seen) {
                        if let Some(r) = self.lookup(g, name, seen) {
                            return Some(r);
                        }
                    }
                }
            }
            None
        }

        fn graph(self) -> Graph {
            let mut edges: BTreeMap<(usize, usize), Edge> = BTreeMap::new();
            let mut add = |from: usize, to: usize, line: usize, path: String| {
                if from != to {
                    edges.entry((from, to)).or_insert(Edge { line, path });
                }
            };
            let file_of = |r: Res| match r {
                Res::Module(x) | Res::Item(x) => Some(self.modules[x].file),
                Res::External => None,
            };
            for (m, module) in self.modules.iter().enumerate() {
                let f = module.file;
                let seen = &mut BTreeSet::new();
                for u in &module.uses {
                    let written = u.path.join("::");
                    match &u.leaf {
                        Leaf::Name(name) => {
                            if u.public && !module.idents.contains(name) {
                                continue;
                            }
                            if let r @ Res::Item(_) = self.resolve(m, &u.path, seen) {
                                add(f, file_of(r).unwrap(), u.line, format!("use {written}"));
                            }
                        }
                        Leaf::Anon => {
                            if let r @ Res::Item(_) = self.resolve(m, &u.path, seen) {
                                add(
                                    f,
                                    file_of(r).unwrap(),
                                    u.line,
                                    format!("use {written} as _"),
                                );
                            }
                        }
                        Leaf::Glob => match self.resolve(m, &u.path, seen) {
                            r @ Res::Item(_) => {
                                add(f, file_of(r).unwrap(), u.line, format!("use {written}::*"))
                            }
                            Res::Module(g) => {
                                for name in &module.idents {
                                    if module.defs.contains(name)
                                        || module.children.contains_key(name)
                                    {
                                        continue;
                                    }
                                    if let Some(r @ Res::Item(_)) = self.lookup(g, name, seen) {
                                        add(
                                            f,
                                            file_of(r).unwrap(),
                                            u.line,
                                            format!("{name} through use {written}::*"),
                                        );
                                    }
                                }
                            }
                            Res::External => {}
                        },
                    }
                }
                for p in &module.paths {
                    let first = p.segs[0].as_str();
                    if !matches!(first, "crate" | "self" | "super")
                        && !matches!(self.lookup(m, first, seen), Some(Res::Module(_)))
                    {
                        continue;
                    }
                    if let Some(to) = file_of(self.resolve(m, &p.segs, seen)) {
                        add(f, to, p.line, p.segs.join("::"));
                    }
                }
            }
            Graph {
                files: self.files,
                edges,
            }
        }
    }

    fn is_ident(t: &str) -> bool {
        t.starts_with(|c: char| c.is_alphabetic() || c == '_')
            && !matches!(t, "crate" | "self" | "super" | "Self" | "as" | "in")
    }

    /// One use tree from `toks[*j]`: each import with its full path.
    fn use_tree(
        toks: &[Tok],
        j: &mut usize,
        mut prefix: Vec<String>,
        out: &mut Vec<(Vec<String>, Leaf)>,
    ) {
        let at = |k: usize| toks.get(k).map_or("", |t| t.text.as_str());
        if at(*j) == "::" {
            prefix.push("::".into());
            *j += 1;
        }
        loop {
            match at(*j) {
                "*" => {
                    *j += 1;
                    out.push((prefix, Leaf::Glob));
                    return;
                }
                "{" => {
                    *j += 1;
                    while at(*j) != "}" && *j < toks.len() {
                        use_tree(toks, j, prefix.clone(), out);
                        if at(*j) == "," {
                            *j += 1;
                        }
                    }
                    *j += 1;
                    return;
                }
                seg => {
                    let seg = seg.to_string();
                    *j += 1;
                    if at(*j) == "::" {
                        *j += 1;
                        prefix.push(seg);
                        continue;
                    }
                    let mut local = if seg == "self" {
                        prefix.last().cloned().unwrap_or_default()
                    } else {
                        seg.clone()
                    };
                    if seg != "self" {
                        prefix.push(seg);
                    }
                    if at(*j) == "as" {
                        local = at(*j + 1).to_string();
                        *j += 2;
                    }
                    let leaf = if local == "_" {
                        Leaf::Anon
                    } else {
                        Leaf::Name(local)
                    };
                    out.push((prefix, leaf));
                    return;
                }
            }
        }
    }
}
