//! The Python module's build reuses the binary's: every crate the module shares with
//! `cargo build --release` resolves to the same features, on the same side (a proc macro or
//! build script on the host, a library in the module), so maturin compiles only PyO3 and the
//! module after the binary. A pin missing from Cargo.toml (after a dependency update, or a new
//! crate in the service) shows here as the crate, its features in each build and the fix.

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

/// A compiled crate as `cargo tree` resolves it: `name vX.Y.Z|features`, and whether it is
/// built for the host (under a proc macro or a `[build-dependencies]` section).
type Unit = (String, bool);

fn tree(args: &[&str]) -> String {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let out = Command::new(cargo)
        .args(["tree", "--offline", "-e", "normal,build", "-f", "{p}|{f}"])
        .args(args)
        .current_dir(root)
        .output()
        .expect("run cargo tree");
    assert!(
        out.status.success(),
        "cargo tree {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// The units of a `cargo tree` listing (its default indented form: four characters a level,
/// a `[build-dependencies]` line before a crate's build dependencies).
fn units(listing: &str) -> BTreeSet<Unit> {
    let mut out = BTreeSet::new();
    // Whether the crate at each depth, on the path to the current line, is built for the host.
    let mut host: Vec<bool> = Vec::new();
    // The depths whose crates are build dependencies (of the crate one level up), innermost
    // last, each until a shallower line.
    let mut build_sections: Vec<usize> = Vec::new();
    for line in listing.lines() {
        let text = line.trim_start_matches(['│', '├', '└', '─', ' ']);
        if text.is_empty() {
            continue;
        }
        let depth = (line.chars().count() - text.chars().count()) / 4;
        while build_sections.last().is_some_and(|&d| depth < d) {
            build_sections.pop();
        }
        if text.starts_with('[') {
            // `[build-dependencies]`, printed one level above the crates it introduces.
            if text == "[build-dependencies]" {
                build_sections.push(depth + 1);
            }
            continue;
        }
        host.truncate(depth);
        let parent_host = depth > 0 && host.get(depth - 1).copied().unwrap_or(false);
        let is_host =
            parent_host || text.contains("(proc-macro)") || build_sections.last() == Some(&depth);
        host.push(is_host);
        let unit = text
            .trim_end_matches(" (*)")
            .replace(" (proc-macro)", "")
            .to_string();
        out.insert((unit, is_host));
    }
    out
}

fn name_of(unit: &str) -> &str {
    unit.split('|').next().unwrap_or(unit)
}

#[test]
fn the_python_module_builds_shared_crates_with_the_binarys_features() {
    let binary = units(&tree(&[]));
    let python = units(&tree(&["-p", "queens-python"]));
    assert!(
        python.iter().any(|(u, _)| u.starts_with("pyo3 ")),
        "cargo tree lists PyO3 under queens-python: {python:?}"
    );
    let built: BTreeSet<&str> = binary.iter().map(|(u, _)| name_of(u)).collect();
    let mut differ = Vec::new();
    for (unit, is_host) in &python {
        let name = name_of(unit);
        // The module's own crates (PyO3, the module, the pins it takes without the service).
        if !built.contains(name) || name.starts_with("queens-workspace-hack ") {
            continue;
        }
        if !binary.contains(&(unit.clone(), *is_host)) {
            let theirs: Vec<&str> = binary
                .iter()
                .filter(|(u, h)| name_of(u) == name && h == is_host)
                .map(|(u, _)| u.as_str())
                .collect();
            let side = if *is_host { "host" } else { "target" };
            differ.push(format!("{unit} ({side}); the binary builds {theirs:?}"));
        }
    }
    assert!(
        differ.is_empty(),
        "the Python module compiles these crates again, with other features than the binary: \
         pin the binary's features of a third-party crate in crates/workspace-hack/Cargo.toml \
         (not behind `service`, which the module leaves out), turn on a workspace crate's \
         features in python/Cargo.toml:\n{}",
        differ.join("\n")
    );
}

#[test]
fn the_listing_is_read_with_its_host_side() {
    let listing = "\
a v1.0.0 (/x)|
├── b v1.0.0|std
│   [build-dependencies]
│   └── c v1.0.0|
│       └── d v1.0.0|alloc
├── m v1.0.0 (proc-macro)|
│   └── d v1.0.0|alloc (*)
└── d v1.0.0|alloc,std
";
    let got = units(listing);
    let want: BTreeSet<Unit> = [
        ("a v1.0.0 (/x)|", false),
        ("b v1.0.0|std", false),
        ("c v1.0.0|", true),
        ("d v1.0.0|alloc", true),
        ("m v1.0.0|", true),
        ("d v1.0.0|alloc,std", false),
    ]
    .into_iter()
    .map(|(u, h)| (u.to_string(), h))
    .collect();
    assert_eq!(got, want);
}
