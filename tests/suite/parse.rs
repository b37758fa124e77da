//! Parser behaviour: formats, and error messages that name the place and the expectation.

use crate::temp;
use queens::{formats, DiagonalRule};

fn err(text: &str) -> String {
    formats::parse("in.txt", text).unwrap_err().to_string()
}

#[test]
fn classic_grid_with_queens_and_blocks() {
    let p = formats::parse("g", "# comment\nQ..\n.x.  # trailing\n...\n").unwrap();
    assert_eq!(p.n(), 3);
    assert_eq!(p.fixed(), &[(0, 0)]);
    assert_eq!(p.blocked(), &[(1, 1)]);
    assert_eq!(p.rule(), DiagonalRule::Full);
    assert!(p.regions().is_none());
}

#[test]
fn region_grid_with_option_lines() {
    let p = formats::parse("g", "AAB\nACB\nCCB\nqueens: 0,0\nblocked: 2,2 a1\n").unwrap();
    assert_eq!(p.rule(), DiagonalRule::Touch);
    let g = p.regions().unwrap();
    assert_eq!(g.names(), &["A", "B", "C"]);
    assert_eq!(g.id((2, 0)), 2);
    assert_eq!(p.fixed(), &[(0, 0)]);
    assert_eq!(p.blocked(), &[(2, 0), (2, 2)]);
}

#[test]
fn token_region_grid_and_rule_override() {
    let p = formats::parse("g", "10 10 2\n10 3 2\n3 3 2\ndiagonals: full\n").unwrap();
    assert_eq!(p.regions().unwrap().names(), &["10", "2", "3"]);
    assert_eq!(p.rule(), DiagonalRule::Full);
}

#[test]
fn json_with_chess_squares_regions_and_diags() {
    let p = formats::parse("j", r#"{"n":8,"queens":["b4","d5"],"blocked":[[0,0]]}"#).unwrap();
    assert_eq!(p.fixed(), &[(3, 3), (4, 1)]);
    assert_eq!(p.blocked(), &[(0, 0)]);
    let p = formats::parse(
        "j",
        r#"{"regions":[["a","b"],["b","a"]],"diagonals":"full"}"#,
    )
    .unwrap();
    assert_eq!((p.n(), p.rule()), (2, DiagonalRule::Full));
    let p = formats::parse("j", r#"{"n":4,"diags":[[0,1],[3,0]]}"#).unwrap();
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
    let e = formats::parse("f.json", r#"{"n":4,"queens":[[1,1],[1,9]]}"#)
        .unwrap_err()
        .to_string();
    assert_eq!(
        e,
        "f.json: field `queens[1]`: cell [1,9] is off the 4×4 board (rows and columns are 0..3)"
    );
    let e = formats::parse("f.json", r#"{"n":4,"queens":["z9"]}"#)
        .unwrap_err()
        .to_string();
    assert_eq!(
        e,
        "f.json: field `queens[0]`: square \"z9\" is off the 4×4 board"
    );
}

#[test]
fn json_errors_name_the_field_or_position() {
    let e = formats::parse("f.json", "{\"n\": 8,\n \"queens\": [[1,2]\n")
        .unwrap_err()
        .to_string();
    assert!(
        e.starts_with("f.json: line 3 column 0: invalid JSON"),
        "{e}"
    );
    let e = formats::parse("f.json", r#"{"n":8,"queen":[[1,2]]}"#)
        .unwrap_err()
        .to_string();
    assert!(e.starts_with("f.json: field `queen`: unknown field"), "{e}");
    let e = formats::parse("f.json", r#"{"n":-3}"#)
        .unwrap_err()
        .to_string();
    assert_eq!(
        e,
        "f.json: field `n`: expected a positive whole number, got -3"
    );
    let e = formats::parse("f.json", r#"{"n":3,"regions":["AB","BA"]}"#)
        .unwrap_err()
        .to_string();
    assert_eq!(e, "f.json: field `regions`: has 2 rows but `n` is 3");
    let e = formats::parse("f.json", r#"{"n":3,"diags":[[9,1]]}"#)
        .unwrap_err()
        .to_string();
    assert!(
        e.starts_with("f.json: field `diags[0]`: expected [k, t] with k in 0..=4"),
        "{e}"
    );
    let e = formats::parse("f.json", r#"{"n":3,"diagonals":"queen"}"#)
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
    let p = formats::parse("g", "QQ.\n...\n...\nblocked: 0,0\n").unwrap();
    assert_eq!(p.fixed().len(), 2);
}

/// A region map whose first row starts with the region names `n b` is a region map, not a
/// CSPLib file (`n = …` / `n be …`).
#[test]
fn region_map_starting_with_n_b_is_not_csplib() {
    let dir = temp::dir("nb");
    let path = dir.join("r.txt");
    std::fs::write(&path, "n b b\nn n b\nc c c\n").unwrap();
    let inst =
        queens::formats::sources::load_one(&path, &queens::formats::sources::Selection::default())
            .unwrap();
    assert_eq!(inst.problem.n(), 3);
    assert!(inst.problem.regions().is_some());
}

// Hostile input: each test is a reproducer, named after what broke.

fn load_err(name: &str, bytes: &[u8]) -> String {
    let path = temp::file(name, bytes);
    let e =
        queens::formats::sources::load_one(&path, &queens::formats::sources::Selection::default())
            .unwrap_err()
            .to_string();
    e.replacen(&path.display().to_string(), name, 1)
}

fn load_ok(name: &str, bytes: &[u8]) -> queens::Problem {
    let path = temp::file(name, bytes);
    queens::formats::sources::load_one(&path, &queens::formats::sources::Selection::default())
        .unwrap()
        .problem
}

/// `printf '' | queens solve -` panicked: format detection sliced `first[1..]` of "".
#[test]
fn empty_input_is_refused_not_a_panic() {
    for text in ["", "  \n\t\n", "# only a comment\n\n", "\u{FEFF}"] {
        let e = formats::parse("<stdin>", text).unwrap_err().to_string();
        assert!(e.starts_with("<stdin>: empty input"), "{text:?}: {e}");
        let e = load_err("empty.txt", text.as_bytes());
        assert!(e.starts_with("empty.txt: empty input"), "{text:?}: {e}");
    }
    assert!(load_err("empty.jsonl", b"").starts_with("empty.jsonl: empty input"));
    assert!(load_err("empty.param", b"\n").starts_with("empty.param: empty input"));
    // Option lines without a grid keep their own message.
    assert_eq!(
        err("queens: 0,0\n"),
        "in.txt: no grid found (expected n lines of n cells, or a first line `n: N`)"
    );
}

/// A grid saved by a Windows editor starts with U+FEFF; detection sliced into its 3 bytes.
#[test]
fn byte_order_mark_is_skipped() {
    let p = formats::parse("g", "\u{FEFF}Q...\n....\n....\n....\n").unwrap();
    assert_eq!((p.n(), p.fixed()), (4, &[(0, 0)][..]));
    let p = load_ok("bom.txt", "\u{FEFF}.Q..\n...Q\nQ...\n..Q.\r\n".as_bytes());
    assert_eq!(p.fixed().len(), 4);
    let p = load_ok("bom.json", "\u{FEFF}{\"n\": 5}".as_bytes());
    assert_eq!(p.n(), 5);
    let p = load_ok("bom.param", "\u{FEFF}letting n = 6\n".as_bytes());
    assert_eq!(p.n(), 6);
    let text = queens::formats::decode_text("f", b"\xEF\xBB\xBFAB\nBA\n".to_vec()).unwrap();
    assert_eq!(text, "AB\nBA\n");
}

/// `éé/éé` panicked in format detection: `é` is two bytes, so `first[1..]` cut inside it.
#[test]
fn non_ascii_region_letters_are_cells() {
    assert_eq!(
        load_err("e.txt", "éé\néé\n".as_bytes()),
        "e.txt: lines 1-2: region map has 1 regions (é), expected exactly 2 (one per row)"
    );
    let p = load_ok("e.txt", "éè\nèé\n".as_bytes());
    assert_eq!(p.regions().unwrap().names(), &["é", "è"]);
    // A decomposed é (e + U+0301) is one cell too.
    let p = formats::parse("g", "e\u{301}a\nae\u{301}\n").unwrap();
    assert_eq!(p.n(), 2);
}

/// Coloured-square emoji as region labels panicked like `é` (four bytes each).
#[test]
fn emoji_region_labels_are_one_cell_each() {
    let p = load_ok("sq.txt", "🟥🟦🟦\n🟥🟩🟦\n🟩🟩🟦\n".as_bytes());
    assert_eq!(p.n(), 3);
    assert_eq!(p.regions().unwrap().names(), &["🟥", "🟦", "🟩"]);
    // ❤️ is U+2764 U+FE0F, 👩‍🚀 three chars joined by U+200D, 🇫🇷 two regional indicators:
    // each is one cell, as a reader counts them.
    let p = formats::parse("g", "❤️👩‍🚀🇫🇷\n👩‍🚀🇫🇷❤️\n🇫🇷❤️👩‍🚀\n").unwrap();
    assert_eq!(p.n(), 3);
    assert_eq!(
        p.regions().unwrap().names(),
        &["❤\u{FE0F}", "👩\u{200D}🚀", "🇫🇷"]
    );
    let p = formats::parse("j", r#"{"regions": ["🟥🟦", "🟦🟥"]}"#).unwrap();
    assert_eq!(p.n(), 2);
}

/// `[1,2]` was read as a grid and reported as ragged; `3` and `"x"` likewise.
#[test]
fn json_that_is_not_an_object_says_so() {
    for (text, kind) in [
        ("[1,2]", "an array"),
        ("3", "a number"),
        ("\"x\"", "a string"),
        ("  null\n", "null"),
        ("[\n  {\"n\": 4}\n]\n", "an array"),
    ] {
        let want = format!("in.txt: expected a JSON object like {{\"n\": 8}}, got {kind}");
        assert_eq!(err(text), want);
        assert_eq!(load_err("in.txt", text.as_bytes()), want);
    }
    let e = load_err("c.jsonl", b"{\"n\": 4}\n[1, 2]\n");
    assert_eq!(
        e,
        "c.jsonl: line 2: expected a JSON object like {\"n\": 8}, got an array"
    );
}

/// A queen listed twice was merged silently; it is a mistake in the input.
#[test]
fn duplicate_queens_and_blocked_cells_name_both_places() {
    assert_eq!(
        err("Q...\n....\n....\n....\nqueens: 1,2 0,0\n"),
        "in.txt: line 5: queens: queen (0,0) is given twice (also on line 1)"
    );
    assert_eq!(
        err("AB\nBA\nqueens: 0,0\nqueens: a2\n"),
        "in.txt: line 4: queens: queen (0,0) is given twice (also on line 3)"
    );
    assert_eq!(
        err("x..\n...\n...\nblocked: 1,1 1,1\n"),
        "in.txt: line 4: blocked: blocked cell (1,1) is given twice (also on line 4)"
    );
    assert_eq!(
        err(r#"{"n": 4, "queens": [[1,1], "a1", [1,1]]}"#),
        "in.txt: field `queens[2]`: queen (1,1) is given twice (also `queens[0]`)"
    );
    assert_eq!(
        err(r#"{"n": 4, "blocked": ["a1", [3,0]]}"#),
        "in.txt: field `blocked[1]`: blocked cell (3,0) is given twice (also `blocked[0]`)"
    );
    // A queen on a blocked cell is still a contradiction to report, not an input error.
    assert!(formats::parse("g", "Q..\n...\n...\nblocked: 0,0\n").is_ok());
}

/// serde_json's `Value` keeps the last of two equal keys: `{"n":4,"n":9}` was a 9×9 board.
#[test]
fn duplicate_json_keys_are_refused() {
    assert_eq!(
        err(r#"{"n": 4, "n": 9}"#),
        "in.txt: line 1 column 12: field `n` is given twice"
    );
    assert_eq!(
        err("{\"n\": 4,\n \"queens\": [],\n \"queens\": [[0,0]]}"),
        "in.txt: line 3 column 9: field `queens` is given twice"
    );
    let e = load_err(
        "c.jsonl",
        b"{\"id\": \"a\", \"n\": 4}\n{\"id\": \"b\", \"id\": \"c\", \"n\": 4}\n",
    );
    assert_eq!(e, "c.jsonl: line 2 column 16: field `id` is given twice");
}

/// Invalid UTF-8 was an I/O error without a place.
#[test]
fn invalid_utf8_names_line_and_byte_column() {
    assert_eq!(
        load_err("bad.txt", b"Q...\n..\xFF.\n"),
        "bad.txt: line 2 column 3: invalid UTF-8 (byte 0xFF; the column counts bytes); the \
         input must be UTF-8 text"
    );
    // A character cut short at the end of the file.
    let e = load_err("cut.txt", "AB\nBA\né".as_bytes().split_last().unwrap().1);
    assert!(
        e.starts_with("cut.txt: line 3 column 1: invalid UTF-8 (byte 0xC3"),
        "{e}"
    );
}

/// Sizes beyond the model's limit are refused before anything per cell is allocated.
#[test]
fn huge_sizes_are_refused_before_allocating() {
    let e = err(r#"{"n": 18446744073709551615}"#);
    assert_eq!(
        e,
        "in.txt: field `n`: board size 18446744073709551615 is out of range (1..=2147483647)"
    );
    let e = err(r#"{"n": 5000, "regions": []}"#);
    assert_eq!(e, "in.txt: field `regions`: has 0 rows but `n` is 5000");
    let wide = ".".repeat(5000);
    assert_eq!(
        err(&format!("{wide}\n")),
        "in.txt: line 1: the grid has 1 rows of 5000 cells; a board is square, expected 5000 rows"
    );
    let tall = ".\n".repeat(5000);
    assert_eq!(
        err(&tall),
        "in.txt: line 4097: the grid has more than 4096 rows; the largest board is 4096×4096"
    );
    // A big region map with every cell its own region keeps only a few names.
    let tokens: Vec<String> = (0..200 * 200).map(|i| format!("r{i}")).collect();
    let rows: Vec<String> = tokens.chunks(200).map(|row| row.join(" ")).collect();
    let e = err(&rows.join("\n"));
    assert!(
        e.contains("region map has more than 412 regions (r0 r1"),
        "{e}"
    );
    let e = err(r#"{"n": 3, "queens": [[18446744073709551615, 0]]}"#);
    assert!(e.contains("is off the 3×3 board"), "{e}");
}

/// The external-solver model: literals out of range or listed both ways are errors naming
/// the literal and the line; `s UNKNOWN` stays unknown; minisat's result file decodes.
#[test]
fn solver_models_are_checked() {
    use queens::formats::dimacs::{parse_model, parse_model_for, ModelAnswer};
    let e = parse_model_for("m", "s SATISFIABLE\nv 1 -9 0\n", 8)
        .unwrap_err()
        .to_string();
    assert_eq!(
        e,
        "m: line 2: literal -9 is out of range: the CNF has 8 variables"
    );
    assert_eq!(
        parse_model_for("m", "v 1 -8 0\n", 8).unwrap(),
        ModelAnswer::Sat(vec![1])
    );
    let e = parse_model("m", "s SATISFIABLE\nv 1 2 3\nv -2 0\n")
        .unwrap_err()
        .to_string();
    assert_eq!(
        e,
        "m: line 3: literal -2 contradicts 2, listed before: a model gives each variable one value"
    );
    assert_eq!(
        parse_model("m", "s UNKNOWN\n").unwrap(),
        ModelAnswer::Unknown
    );
    assert_eq!(
        parse_model("m", "SAT\n1 -2 3 -4 0\n").unwrap(),
        ModelAnswer::Sat(vec![1, 3])
    );
    assert_eq!(parse_model("m", "UNSAT\n").unwrap(), ModelAnswer::Unsat);
    assert_eq!(parse_model("m", "INDET\n").unwrap(), ModelAnswer::Unknown);
    let e = parse_model("m", "s SATISFIABLE\ns UNSATISFIABLE\n")
        .unwrap_err()
        .to_string();
    assert_eq!(
        e,
        "m: line 2: a second status line (the first is on line 1)"
    );
    // i64::MIN has no negation in i64.
    let e = parse_model("m", "v -9223372036854775808 9223372036854775807 0\n");
    assert!(e.is_ok());
    let e = parse_model("m", "\u{FEFF}s UNSATISFIABLE\n").unwrap();
    assert_eq!(e, ModelAnswer::Unsat);
}

/// The diagonal index bound k ≤ 2n − 2, at its edges and for sizes whose 2n overflows.
#[test]
fn csplib_diagonal_bounds() {
    use queens::model::Diagonal;
    assert_eq!(Diagonal::from_csplib(4, 6, 1), Some(Diagonal::Sum(6)));
    assert_eq!(Diagonal::from_csplib(4, 7, 1), None);
    assert_eq!(Diagonal::from_csplib(4, 0, 0), Some(Diagonal::Diff(6)));
    assert_eq!(Diagonal::from_csplib(1, 1, 0), None);
    assert_eq!(Diagonal::from_csplib(0, 0, 1), None);
    assert_eq!(
        Diagonal::from_csplib(usize::MAX, usize::MAX, 1),
        Some(Diagonal::Sum(usize::MAX))
    );
    assert!(!Diagonal::Diff(usize::MAX).contains(3, (0, 0)));
    assert_eq!(Diagonal::Diff(usize::MAX).cells(3).count(), 0);
    let e = err(r#"{"n": 4, "diags": [[7, 1]]}"#);
    assert!(
        e.starts_with("in.txt: field `diags[0]`: expected [k, t]"),
        "{e}"
    );
}

/// A prob079 completion file listing the same `init` queen twice was merged silently: the
/// board cannot hold two queens on one cell, so it is an error naming both lines.
#[test]
fn csplib_duplicate_init_queen_names_both_lines() {
    let text = "letting n = 8\nletting init = [[4,1],\n  [3,3],\n  [4,1]]\n";
    let e = queens::formats::csplib::parse_csplib("dup.param", text, None).unwrap_err();
    assert_eq!(
        e.to_string(),
        "dup.param: line 4: init: queen [4, 1] is given twice (also on line 2)"
    );
}

/// CSPLib's prob080 ASP-competition files end their list with `,` before the last `]`, which
/// was read as a missing item: "line 597: expected a number or a list, found `]`". One comma
/// may close a list now; any other stray comma is still an error on its line.
#[test]
fn csplib_list_may_end_with_one_comma() {
    let csplib = |text: &str| queens::formats::csplib::parse_csplib("c.param", text, None);
    let p = csplib("letting n = 8\nletting init = [[4,1],\n[3,3,],\n]").unwrap();
    assert_eq!(p.fixed(), &[(3, 3), (4, 1)]);
    for (text, want) in [
        (
            "letting n = 8\nletting init = [,]",
            "line 2: expected a number or a list, found `,`",
        ),
        (
            "letting n = 8\nletting init = [[4,1],\n,]",
            "line 3: expected a number or a list, found `,`",
        ),
        (
            "letting n = 8\nletting init = [[4,1],,\n]",
            "line 2: expected a number or a list, found `,`",
        ),
        (
            "letting n = 8,",
            "line 1: expected `letting name = value`, found `,`",
        ),
        (
            "letting n = 8\nletting init = [[4,1],",
            "line 2: missing value at end of file",
        ),
    ] {
        let e = csplib(text).unwrap_err().to_string();
        assert_eq!(e, format!("c.param: {want}"), "{text:?}");
    }
}

fn csplib(text: &str) -> Result<queens::Problem, queens::Error> {
    formats::csplib::parse_csplib("b.param", text, None)
}

/// prob080's `blocks` counts rows and columns from 1 (its models index `int(1..n)` and block
/// `m[r-1, c-1]`): the same board as `instances/blocked-8.txt`, corners included.
#[test]
fn csplib_prob080_blocks_are_1_based_cells() {
    let load = |path: &str| {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(path);
        formats::sources::load_one(&path, &formats::sources::Selection::default())
            .unwrap()
            .problem
    };
    let param = load("tests/data/blocked-8.param");
    assert_eq!(param, load("instances/blocked-8.txt"));
    assert_eq!(param.blocked().len(), 12);
    assert!(param.fixed().is_empty() && param.excluded().is_empty());
    // [1,1] and [n,n] are the corners (0,0) and (n-1,n-1); [1,n] is row 0's last cell.
    let p = csplib("letting n = 5\nletting blocks = [[1,1], [5,5], [1,5]]").unwrap();
    assert_eq!(p.blocked(), &[(0, 0), (0, 4), (4, 4)]);
    // As the generator prints it: no trailing comma, two spaces after `=`, no final newline.
    let p = csplib("letting n =  4\nletting blocks =  [[1, 2], [4, 3]]").unwrap();
    assert_eq!(p.blocked(), &[(0, 1), (3, 2)]);
    let p = csplib("letting n = 4\nletting blocks = []").unwrap();
    assert!(p.blocked().is_empty());
    // A prob080 file is found by its content too, whatever its name.
    let p = load_ok("b.txt", b"letting n = 4\nletting blocks = [[2,2],\n]");
    assert_eq!(p.blocked(), &[(1, 1)]);
}

/// Blocks outside 1..n (a 0 from a 0-based writer, or n + 1), a repeated block, and a count
/// that does not match name the line of the entry.
#[test]
fn csplib_prob080_errors_name_the_line() {
    for (text, want) in [
        (
            "letting n = 4\nletting blocks = [[1,1],\n[0,2],\n]",
            "line 3: blocked cell [0, 2] is off the 4×4 board (coordinates are 1..4)",
        ),
        (
            "letting n = 4\nletting blocks = [[1,1],\n[2,5]]",
            "line 3: blocked cell [2, 5] is off the 4×4 board (coordinates are 1..4)",
        ),
        (
            "letting n = 4\nletting blocks = [[1,1],\n[2,2],\n[1,1],\n]",
            "line 4: blocks: blocked cell [1, 1] is given twice (also on line 2)",
        ),
        (
            "letting n = 4\nletting blocks = [[1,1],\n[2,2,3],\n]",
            "line 3: `blocks`: expected a pair like [1, 2]",
        ),
        (
            "letting n = 4\nletting blocked_squares = 3\nletting blocks = [[1,1]]",
            "line 2: `blocked_squares` does not match the 1 entries of `blocks`",
        ),
        (
            "letting n = 4\nletting given_queens = 2\nletting blocks = [[1,1]]",
            "line 2: `given_queens` does not match the 1 entries of `blocks`",
        ),
    ] {
        let e = csplib(text).unwrap_err().to_string();
        assert_eq!(e, format!("b.param: {want}"), "{text:?}");
    }
    // The counts prob080's two models declare, when they match.
    let p = csplib("letting n = 4\nletting blocked_squares = 2\nletting blocks = [[1,1],[2,2],]");
    assert_eq!(p.unwrap().blocked().len(), 2);
    let p = csplib("n = 4\ngiven_queens = 1\nblocks be [[4,4]]").unwrap();
    assert_eq!(p.blocked(), &[(3, 3)]);
}

/// prob079 lists count from 0 and prob080's from 1, so a file giving both cannot say which
/// base a reader should use for which: it is refused at the later list, naming both lines.
/// Without `init` or `diags` there is nothing to take a prefix of: `blocks` is kept whole.
#[test]
fn csplib_prob079_and_prob080_lists_do_not_share_a_file() {
    for (text, other) in [
        (
            "letting n = 4\nletting init = [[0,0]]\nletting blocks = [[2,2]]",
            "init",
        ),
        (
            "letting n = 4\nletting blocks = [[2,2]]\nletting diags = [[0,1]]",
            "diags",
        ),
    ] {
        let e = csplib(text).unwrap_err().to_string();
        let (other_line, blocks_line) = if other == "init" { (2, 3) } else { (3, 2) };
        assert_eq!(
            e,
            format!(
                "b.param: line 3: `{other}` (line {other_line}) is a prob079 parameter, counted \
                 from 0, and `blocks` (line {blocks_line}) a prob080 one, counted from 1: one \
                 file gives one of them; write a board with both as JSON"
            )
        );
    }
    let text = "letting n = 4\nletting blocks = [[2,2]]";
    let e = formats::csplib::parse_csplib("b.param", text, Some(1)).unwrap_err();
    assert_eq!(
        e.to_string(),
        "b.param: line 1: a prefix was asked for but the file has no `init` or `diags` list"
    );
}
