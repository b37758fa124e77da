//! Parser behaviour: formats, and error messages that name the place and the expectation.

use queens::{parse, DiagonalRule};

fn err(text: &str) -> String {
    parse::parse("in.txt", text).unwrap_err().to_string()
}

#[test]
fn classic_grid_with_queens_and_blocks() {
    let p = parse::parse("g", "# comment\nQ..\n.x.  # trailing\n...\n").unwrap();
    assert_eq!(p.n(), 3);
    assert_eq!(p.fixed(), &[(0, 0)]);
    assert_eq!(p.blocked(), &[(1, 1)]);
    assert_eq!(p.rule(), DiagonalRule::Full);
    assert!(p.regions().is_none());
}

#[test]
fn region_grid_with_option_lines() {
    let p = parse::parse("g", "AAB\nACB\nCCB\nqueens: 0,0\nblocked: 2,2 a1\n").unwrap();
    assert_eq!(p.rule(), DiagonalRule::Touch);
    let g = p.regions().unwrap();
    assert_eq!(g.names(), &["A", "B", "C"]);
    assert_eq!(g.id((2, 0)), 2);
    assert_eq!(p.fixed(), &[(0, 0)]);
    assert_eq!(p.blocked(), &[(2, 0), (2, 2)]);
}

#[test]
fn token_region_grid_and_rule_override() {
    let p = parse::parse("g", "10 10 2\n10 3 2\n3 3 2\ndiagonals: full\n").unwrap();
    assert_eq!(p.regions().unwrap().names(), &["10", "2", "3"]);
    assert_eq!(p.rule(), DiagonalRule::Full);
}

#[test]
fn json_with_chess_squares_regions_and_diags() {
    let p = parse::parse("j", r#"{"n":8,"queens":["b4","d5"],"blocked":[[0,0]]}"#).unwrap();
    assert_eq!(p.fixed(), &[(3, 3), (4, 1)]);
    assert_eq!(p.blocked(), &[(0, 0)]);
    let p = parse::parse(
        "j",
        r#"{"regions":[["a","b"],["b","a"]],"diagonals":"full"}"#,
    )
    .unwrap();
    assert_eq!((p.n(), p.rule()), (2, DiagonalRule::Full));
    let p = parse::parse("j", r#"{"n":4,"diags":[[0,1],[3,0]]}"#).unwrap();
    // [0,1] is r+c=0: the corner (0,0); [3,0] is r-c=0: the main diagonal.
    assert!(!p.is_open((0, 0)) && !p.is_open((2, 2)) && p.is_open((0, 3)));
}

#[test]
fn ragged_grid_names_the_line() {
    assert_eq!(
        err("....\n...\n....\n....\n"),
        "in.txt: line 2: row has 3 cells, expected 4 like the first row"
    );
}

#[test]
fn non_square_grid_is_an_error() {
    assert_eq!(
        err("...\n...\n"),
        "in.txt: line 2: the grid has 2 rows of 3 cells; a board is square, expected 3 rows"
    );
}

#[test]
fn region_map_needs_exactly_n_regions() {
    assert!(err("AAB\nAAB\nAAB\n").contains("region map has 2 regions (A B), expected exactly 3"));
}

#[test]
fn off_board_coordinates_name_line_and_field() {
    assert_eq!(
        err("AB\nBA\nqueens: 2,0\n"),
        "in.txt: line 3: queens: cell 2,0 is off the 2×2 board (rows and columns are 0..1)"
    );
    let e = parse::parse("f.json", r#"{"n":4,"queens":[[1,1],[1,9]]}"#)
        .unwrap_err()
        .to_string();
    assert_eq!(
        e,
        "f.json: field `queens[1]`: cell [1,9] is off the 4×4 board (rows and columns are 0..3)"
    );
    let e = parse::parse("f.json", r#"{"n":4,"queens":["z9"]}"#)
        .unwrap_err()
        .to_string();
    assert_eq!(
        e,
        "f.json: field `queens[0]`: square \"z9\" is off the 4×4 board"
    );
}

#[test]
fn json_errors_name_the_field_or_position() {
    let e = parse::parse("f.json", "{\"n\": 8,\n \"queens\": [[1,2]\n")
        .unwrap_err()
        .to_string();
    assert!(
        e.starts_with("f.json: line 3 column 0: invalid JSON"),
        "{e}"
    );
    let e = parse::parse("f.json", r#"{"n":8,"queen":[[1,2]]}"#)
        .unwrap_err()
        .to_string();
    assert!(e.starts_with("f.json: field `queen`: unknown field"), "{e}");
    let e = parse::parse("f.json", r#"{"n":-3}"#)
        .unwrap_err()
        .to_string();
    assert_eq!(
        e,
        "f.json: field `n`: expected a positive whole number, got -3"
    );
    let e = parse::parse("f.json", r#"{"n":3,"regions":["AB","BA"]}"#)
        .unwrap_err()
        .to_string();
    assert_eq!(e, "f.json: field `regions`: has 2 rows but `n` is 3");
    let e = parse::parse("f.json", r#"{"n":3,"diags":[[9,1]]}"#)
        .unwrap_err()
        .to_string();
    assert!(
        e.starts_with("f.json: field `diags[0]`: expected [k, t] with k in 0..=4"),
        "{e}"
    );
    let e = parse::parse("f.json", r#"{"n":3,"diagonals":"queen"}"#)
        .unwrap_err()
        .to_string();
    assert_eq!(
        e,
        "f.json: field `diagonals`: expected \"full\" or \"touch\", got \"queen\""
    );
}

#[test]
fn contradictory_input_parses_as_a_problem() {
    // Two fixed queens in one row, and one on a blocked cell: results, not input errors.
    let p = parse::parse("g", "QQ.\n...\n...\nblocked: 0,0\n").unwrap();
    assert_eq!(p.fixed().len(), 2);
}

/// A region map whose first row starts with the region names `n b` is a region map, not a
/// CSPLib file (`n = …` / `n be …`).
#[test]
fn region_map_starting_with_n_b_is_not_csplib() {
    let dir = std::env::temp_dir().join(format!("queens-nb-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("r.txt");
    std::fs::write(&path, "n b b\nn n b\nc c c\n").unwrap();
    let inst = queens::sources::load_one(&path, &queens::sources::Selection::default()).unwrap();
    assert_eq!(inst.problem.n(), 3);
    assert!(inst.problem.regions().is_some());
    std::fs::remove_dir_all(dir).unwrap();
}
