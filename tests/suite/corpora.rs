//! Optional checks on the public corpora in `../shared/data/`; skipped when it is absent.

use queens::engine::backtrack::{self, Config};
use queens::formats;

fn corpus(name: &str) -> Option<String> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/data")
        .join(name);
    match std::fs::read_to_string(&path) {
        Ok(text) => Some(text),
        Err(_) => {
            crate::need::missing(
                &path.display().to_string(),
                "the shared corpora are not beside the repository",
            );
            None
        }
    }
}

#[test]
fn every_linkedin_level_has_exactly_one_solution() {
    let Some(text) = corpus("linkedin-official-1-616.jsonl") else {
        return;
    };
    let mut levels = 0;
    for (i, line) in text.lines().enumerate() {
        let p = formats::parse(&format!("linkedin line {}", i + 1), line).unwrap();
        let c = backtrack::count(&p, &Config::default(), Some(2));
        assert_eq!(c.total, 1, "line {}", i + 1);
        let (q, _) = backtrack::first_solution(&p, &Config::default());
        queens::verify(&p, &q.unwrap()).unwrap();
        levels += 1;
    }
    assert!(levels > 600);
}
