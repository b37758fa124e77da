//! The crate graph is the data flow, and the compiler holds it only as long as the manifests
//! do: this test reads them (`cargo metadata`, `cargo tree`) and fails when an arrow points up, or when the
//! verifier's or the proof checkers' crate gains a path to anything that searches.

use std::collections::BTreeSet;
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
            // sit on top of them all.
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
