//! Fuzzing the loaders on stable Rust (no nightly cargo-fuzz, so it runs in every
//! `cargo test`, and every input it ever found is replayed below as a plain test): a grammar of near-valid
//! inputs and byte-level mutations of the project's own files, driven through every loader
//! in-process, then through the verifier and the backtracker with a small deadline. Boards
//! past 4096 rows (JSON instances and boards given by their size, with presets, blocked cells
//! and excluded diagonals near the edges) go through the sparse model and a `solve` under a
//! small deadline and memory limit; every case also carries a column-per-row board (short,
//! long, out of range, not numbers) that `check --board`'s reader and verifier take against
//! each instance loaded.
//!
//! The property: nothing panics, every error names its origin first, and a board the
//! backtracker returns passes the verifier. `fuzz` runs a few thousand cases in every
//! `cargo test`; `fuzz_long` (ignored) runs `QUEENS_FUZZ_CASES` (default 1 000 000):
//!
//!     QUEENS_FUZZ_CASES=1000000 cargo test --release --test fuzz -- --ignored fuzz_long
//!
//! Panics are caught per input and reported together with the input at the end, so one run
//! finds them all; every input that ever failed is replayed by a named test below.

use std::cell::{Cell, RefCell};
use std::panic::{self, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::Once;
use std::time::{Duration, Instant};

use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};

use queens::engine::backtrack;
use queens::formats::sources::{self, Selection};
use queens::formats::{self, dimacs};
use queens::{verify, Problem};

// ---------------------------------------------------------------------------------------------
// Inputs

/// One fuzz input: the bytes of a file and the name it is loaded under (the extension picks
/// the format, as for a user's file).
#[derive(Clone, Debug)]
struct Case {
    name: &'static str,
    bytes: Vec<u8>,
    /// A column-per-row board (`check --board`) read and checked against each instance.
    board: Vec<u8>,
    /// `--first` for the loaders that take a prefix.
    first: Option<usize>,
    /// The variable count a model is checked against.
    num_vars: usize,
}

const NAMES: &[&str] = &[
    "in.txt",
    "in.json",
    "in.jsonl",
    "in.param",
    "in",
    "model.out",
];

/// Region labels a user might type: ASCII, accented, emoji (one and several code points).
const LABELS: &[&str] = &[
    "A",
    "B",
    "C",
    "D",
    "E",
    "F",
    "G",
    "a",
    "n",
    "b",
    "1",
    "10",
    "é",
    "è",
    "ß",
    "中",
    "🟥",
    "🟦",
    "🟩",
    "🟨",
    "❤️",
    "👩‍🚀",
    "🇫🇷",
    "e\u{301}",
    "\u{FE0F}",
    "\u{200D}",
    "Q",
    ".",
    "x",
    "#",
    "[",
    "{",
    "\u{FEFF}",
    "\u{0}",
];

/// Numbers near the edges: small, off-board, and past every integer type.
fn number() -> impl Strategy<Value = String> {
    prop_oneof![
        6 => (0u64..14).prop_map(|k| k.to_string()),
        1 => prop::sample::select(vec![
            "-1", "4096", "4097", "65536", "4294967296", "9223372036854775807",
            "9223372036854775808", "18446744073709551615", "18446744073709551616",
            "99999999999999999999999", "1e3", "2.5", "-0", "+3", "0x10", "",
        ])
        .prop_map(str::to_string),
    ]
}

fn eol() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec!["\n", "\n", "\n", "\r\n", "\r", "\n\n", " \t\n"])
}

fn cell_token() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => (number(), number()).prop_map(|(r, c)| format!("{r},{c}")),
        2 => ("[a-lé]", number()).prop_map(|(f, r)| format!("{f}{r}")),
        1 => "[ -~]{0,4}",
    ]
}

fn option_line() -> impl Strategy<Value = String> {
    prop_oneof![
        (
            prop::sample::select(vec!["queens", "blocked", "Queens", "BLOCKED"]),
            prop::collection::vec(cell_token(), 0..5),
        )
            .prop_map(|(k, cells)| format!("{k}: {}", cells.join(" "))),
        prop::sample::select(vec![
            "diagonals: full",
            "diagonals: touch",
            "diagonals: queen",
            "diagonals:",
            "# a comment",
            "queens 1,1",
        ])
        .prop_map(str::to_string),
    ]
}

/// A text grid: classic (`.Qx`) or a region map (characters or tokens), square or nearly,
/// with option lines, comments, a BOM, any line ending.
fn grid() -> impl Strategy<Value = Vec<u8>> {
    (1usize..=9, any::<u8>()).prop_flat_map(|(n, style)| {
        let rows = n + [0, 0, 0, 0, 1]
            .get(style as usize % 7)
            .copied()
            .unwrap_or(0);
        let cell: BoxedStrategy<String> = match style % 3 {
            0 => prop::sample::select(vec![".", ".", ".", "Q", "x"])
                .prop_map(str::to_string)
                .boxed(),
            1 => prop::sample::select(LABELS[..n.min(LABELS.len())].to_vec())
                .prop_map(str::to_string)
                .boxed(),
            _ => prop::sample::select(LABELS.to_vec())
                .prop_map(str::to_string)
                .boxed(),
        };
        let tokens = style % 5 == 0;
        (
            prop::collection::vec(prop::collection::vec(cell, n), rows),
            prop::option::of((any::<prop::sample::Index>(), any::<bool>())),
            prop::collection::vec(option_line(), 0..4),
            any::<bool>(),
            eol(),
            any::<bool>(),
        )
            .prop_map(move |(mut grid, ragged, options, bom, eol, comment)| {
                // Now and then one row a cell short or long.
                if let Some((i, longer)) = ragged {
                    let row = &mut grid[i.index(rows)];
                    if longer {
                        row.push(row[0].clone());
                    } else {
                        row.pop();
                    }
                }
                let mut s = String::new();
                if bom {
                    s.push('\u{FEFF}');
                }
                if comment {
                    s.push_str("# fuzz\n");
                }
                for row in grid {
                    s.push_str(&row.join(if tokens { " " } else { "" }));
                    s.push_str(eol);
                }
                for o in options {
                    s.push_str(&o);
                    s.push_str(eol);
                }
                s.into_bytes()
            })
    })
}

fn json_scalar() -> impl Strategy<Value = String> {
    prop_oneof![
        number(),
        prop::sample::select(vec![
            "null",
            "true",
            "\"x\"",
            "\"b4\"",
            "\"full\"",
            "\"touch\"",
            "[]",
            "{}",
            "-3",
            "1e400",
        ])
        .prop_map(str::to_string),
    ]
}

fn json_cells() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop_oneof![
            4 => (number(), number()).prop_map(|(r, c)| format!("[{r},{c}]")),
            1 => ("[a-hz]", 0u32..12).prop_map(|(f, r)| format!("\"{f}{r}\"")),
            1 => json_scalar(),
            1 => (number(), number(), number()).prop_map(|(a, b, c)| format!("[{a},{b},{c}]")),
        ],
        0..5,
    )
    .prop_map(|items| format!("[{}]", items.join(",")))
}

fn json_regions() -> impl Strategy<Value = String> {
    (1usize..=6, any::<bool>()).prop_flat_map(|(n, arrays)| {
        let label = prop::sample::select(LABELS[..n + 2].to_vec());
        prop::collection::vec(prop::collection::vec(label, n..=n + 1), n - 1..=n).prop_map(
            move |rows| {
                let rows: Vec<String> = rows
                    .iter()
                    .map(|row| {
                        if arrays {
                            let items: Vec<String> = row
                                .iter()
                                .map(|l| serde_json::to_string(l).unwrap())
                                .collect();
                            format!("[{}]", items.join(","))
                        } else {
                            serde_json::to_string(&row.concat()).unwrap()
                        }
                    })
                    .collect();
                format!("[{}]", rows.join(","))
            },
        )
    })
}

/// One JSON instance as text: known fields with good and bad values, unknown fields,
/// duplicate keys, or something that is not an object at all.
fn json_object() -> impl Strategy<Value = String> {
    let field = prop_oneof![
        3 => number().prop_map(|v| format!("\"n\": {v}")),
        1 => json_scalar().prop_map(|v| format!("\"n\": {v}")),
        2 => json_cells().prop_map(|v| format!("\"queens\": {v}")),
        1 => json_cells().prop_map(|v| format!("\"blocked\": {v}")),
        1 => json_cells().prop_map(|v| format!("\"diags\": {v}")),
        2 => json_regions().prop_map(|v| format!("\"regions\": {v}")),
        1 => json_scalar().prop_map(|v| format!("\"diagonals\": {v}")),
        1 => "[a-z]{1,6}".prop_map(|v| format!("\"id\": \"{v}\"")),
        1 => json_scalar().prop_map(|v| format!("\"{}\": {v}", "queen")),
    ];
    prop_oneof![
        8 => prop::collection::vec(field, 0..6).prop_map(|f| format!("{{{}}}", f.join(", "))),
        1 => json_scalar(),
        1 => json_cells(),
    ]
}

fn json_file() -> impl Strategy<Value = Vec<u8>> {
    (json_object(), any::<bool>(), eol()).prop_map(|(o, bom, eol)| {
        format!("{}{o}{eol}", if bom { "\u{FEFF}" } else { "" }).into_bytes()
    })
}

fn json_lines() -> impl Strategy<Value = Vec<u8>> {
    (
        prop::collection::vec(
            prop_oneof![
                6 => json_object(),
                1 => Just(String::new()),
                1 => "[ -~]{0,12}",
            ],
            1..6,
        ),
        eol(),
    )
        .prop_map(|(lines, eol)| {
            let mut s = lines.join(eol);
            s.push_str(eol);
            s.into_bytes()
        })
}

/// A CSPLib list of pairs, `[[a, b], …]`, some ending in a comma (`[[1,1],\n]`, as
/// prob080's ASP-competition files do) or a stray one (`[,]`).
fn csplib_pairs() -> impl Strategy<Value = String> {
    let tail = prop_oneof![4 => Just(""), 2 => Just(","), 1 => Just(",\n"), 1 => Just(",,")];
    (prop::collection::vec((number(), number()), 0..5), tail).prop_map(|(p, tail)| {
        let items: Vec<String> = p.iter().map(|(a, b)| format!("[{a}, {b}]")).collect();
        format!("[{}{tail}]", items.join(", "))
    })
}

/// A CSPLib prob079 or prob080 parameter file.
fn csplib() -> impl Strategy<Value = Vec<u8>> {
    let statement = prop_oneof![
        3 => number().prop_map(|v| format!("n = {v}")),
        2 => csplib_pairs().prop_map(|v| format!("init = {v}")),
        2 => csplib_pairs().prop_map(|v| format!("diags = {v}")),
        2 => csplib_pairs().prop_map(|v| format!("blocks = {v}")),
        1 => number().prop_map(|v| format!("given_queens = {v}")),
        1 => number().prop_map(|v| format!("numdiags = {v}")),
        1 => number().prop_map(|v| format!("blocked_squares = {v}")),
        1 => (1usize..40).prop_map(|d| format!("init = {}{}", "[".repeat(d), "]".repeat(d))),
        1 => "[ -~]{0,16}",
    ];
    (
        prop::collection::vec((statement, any::<bool>(), any::<bool>()), 0..6),
        eol(),
    )
        .prop_map(|(stmts, eol)| {
            let mut s = String::from("$ CSPLib fuzz");
            s.push_str(eol);
            for (st, letting, be) in stmts {
                if letting {
                    s.push_str("letting ");
                }
                let st = if be {
                    st.replacen(" = ", " be ", 1)
                } else {
                    st
                };
                s.push_str(&st);
                s.push_str(eol);
            }
            s.into_bytes()
        })
}

/// A SAT solver's output: competition format, minisat's result file, or a bare list.
fn model() -> impl Strategy<Value = Vec<u8>> {
    let lit = prop_oneof![
        6 => (-12i64..=12).prop_map(|l| l.to_string()),
        1 => prop::sample::select(vec![
            "-9223372036854775808", "9223372036854775807", "99999999999999999999", "x", "-",
            "1.5", "--1",
        ])
        .prop_map(str::to_string),
    ];
    let line = prop_oneof![
        4 => prop::collection::vec(lit, 0..8).prop_map(|l| format!("v {}", l.join(" "))),
        2 => prop::sample::select(vec![
            "s SATISFIABLE", "s UNSATISFIABLE", "s UNKNOWN", "s INDETERMINATE", "s MAYBE",
            "SAT", "UNSAT", "INDET", "c comment", "", "v 0", "0",
        ])
        .prop_map(str::to_string),
    ];
    (prop::collection::vec(line, 0..6), eol()).prop_map(|(lines, eol)| {
        let mut s = lines.join(eol);
        s.push_str(eol);
        s.into_bytes()
    })
}

/// The project's own instance and test files, to mutate.
fn seeds() -> Vec<Vec<u8>> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    let mut dirs = vec![root.join("instances"), root.join("tests/data")];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            let p = entry.path();
            if p.is_dir() {
                dirs.push(p);
            } else if let Ok(bytes) = std::fs::read(&p) {
                files.push(bytes);
            }
        }
    }
    files.sort();
    files
}

#[derive(Clone, Debug)]
enum Mutation {
    Flip(usize, u8),
    Insert(usize, Vec<u8>),
    Delete(usize, usize),
    Duplicate(usize, usize),
    Truncate(usize),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    let bytes = prop_oneof![
        3 => prop::collection::vec(any::<u8>(), 1..4),
        1 => prop::sample::select(vec![
            b"\xFF".to_vec(), b"\xC3".to_vec(), b"\xED\xA0\x80".to_vec(), b"\xEF\xBB\xBF".to_vec(),
            "🟥".as_bytes().to_vec(), "é".as_bytes().to_vec(), b"\r\n".to_vec(), b"\t".to_vec(),
            b"\"n\": 1, ".to_vec(), b"99999999999999999999".to_vec(), b"[[".to_vec(), b"0".to_vec(),
        ]),
    ];
    prop_oneof![
        3 => (any::<usize>(), 1u8..=255).prop_map(|(i, x)| Mutation::Flip(i, x)),
        3 => (any::<usize>(), bytes).prop_map(|(i, b)| Mutation::Insert(i, b)),
        2 => (any::<usize>(), 1usize..8).prop_map(|(i, k)| Mutation::Delete(i, k)),
        1 => (any::<usize>(), 1usize..40).prop_map(|(i, k)| Mutation::Duplicate(i, k)),
        1 => any::<usize>().prop_map(Mutation::Truncate),
    ]
}

fn mutate(mut bytes: Vec<u8>, mutations: &[Mutation]) -> Vec<u8> {
    for m in mutations {
        let len = bytes.len();
        let at = |i: usize| if len == 0 { 0 } else { i % (len + 1) };
        match m {
            Mutation::Flip(i, x) if len > 0 => bytes[i % len] ^= x,
            Mutation::Flip(..) => {}
            Mutation::Insert(i, b) => {
                let i = at(*i);
                bytes.splice(i..i, b.iter().copied());
            }
            Mutation::Delete(i, k) => {
                let i = at(*i);
                bytes.drain(i..(i + k).min(len));
            }
            Mutation::Duplicate(i, k) => {
                let i = at(*i);
                let piece = bytes[i..(i + k).min(len)].to_vec();
                bytes.splice(i..i, piece);
            }
            Mutation::Truncate(i) => bytes.truncate(at(*i)),
        }
    }
    bytes
}

// ---------------------------------------------------------------------------------------------
// Big boards: sizes past 4096 rows, held sparsely

/// Board sizes past the dense bound, up to and past the sparse one (2³¹ − 1).
fn big_n() -> impl Strategy<Value = u64> {
    prop_oneof![
        4 => 4097u64..20_000,
        2 => prop::sample::select(vec![
            4096u64, 4097, 65_536, 100_000, 1_000_000, 10_000_000, 2_147_483_646,
            2_147_483_647, 2_147_483_648, 4_294_967_296, u64::MAX,
        ]),
    ]
}

/// A coordinate on (or just off) a board of `n` rows, or a value of the wrong kind.
fn big_coord(n: u64) -> impl Strategy<Value = String> {
    let edge = n.saturating_sub(1);
    prop_oneof![
        4 => (0..n.clamp(1, 20_000)).prop_map(|v| v.to_string()),
        2 => prop::sample::select(vec![
            0, edge, n, n.saturating_add(1), 2 * edge.min(u64::MAX / 2), (2 * edge.min(u64::MAX / 2)).saturating_add(1),
        ])
        .prop_map(|v| v.to_string()),
        1 => prop::sample::select(vec!["-1", "1.5", "\"3\"", "null", "1e9", "[]", "99999999999999999999"])
            .prop_map(str::to_string),
    ]
}

/// A JSON instance past 4096 rows: fixed queens, blocked cells and excluded diagonals near
/// the edges, listed twice, off the board, or malformed.
fn big_json() -> impl Strategy<Value = Vec<u8>> {
    big_n().prop_flat_map(|n| {
        let pair = (big_coord(n), big_coord(n)).prop_map(|(a, b)| format!("[{a},{b}]"));
        let list = prop::collection::vec(
            prop_oneof![
                6 => pair,
                1 => Just("\"a1\"".to_string()),
                1 => Just("[1]".to_string()),
                1 => Just("[1,2,3]".to_string()),
            ],
            0..6,
        )
        .prop_map(|mut items| {
            // A repeat now and then: the first item again.
            if items.len() > 2 && items.len() % 2 == 1 {
                items.push(items[0].clone());
            }
            format!("[{}]", items.join(","))
        });
        let field = prop_oneof![
            3 => list.clone().prop_map(|v| format!("\"queens\": {v}")),
            2 => list.clone().prop_map(|v| format!("\"blocked\": {v}")),
            2 => list.prop_map(|v| format!("\"diags\": {v}")),
            1 => Just("\"diagonals\": \"touch\"".to_string()),
            1 => Just("\"regions\": [\"AB\", \"BA\"]".to_string()),
        ];
        prop::collection::vec(field, 0..4).prop_map(move |fields| {
            let mut all = vec![format!("\"n\": {n}")];
            all.extend(fields);
            format!("{{{}}}\n", all.join(", ")).into_bytes()
        })
    })
}

/// A board given by its size (`n: N`) with option lines: the text format for big boards.
fn big_text() -> impl Strategy<Value = Vec<u8>> {
    big_n().prop_flat_map(|n| {
        let cell = (big_coord(n), big_coord(n)).prop_map(|(a, b)| format!("{a},{b}"));
        let line = prop_oneof![
            3 => (
                prop::sample::select(vec!["queens", "blocked", "diags", "marks", "Queens"]),
                prop::collection::vec(cell, 0..5),
            )
                .prop_map(|(k, cells)| format!("{k}: {}", cells.join(" "))),
            1 => prop::sample::select(vec![
                "diagonals: full", "diagonals: touch", "n: 5", "....", "# comment", "diags: 1",
                "queens: a1 b2", "diags: 3,2",
            ])
            .prop_map(str::to_string),
        ];
        (prop::collection::vec(line, 0..5), eol()).prop_map(move |(lines, eol)| {
            let mut s = format!("n: {n}{eol}");
            for l in lines {
                s.push_str(&l);
                s.push_str(eol);
            }
            s.into_bytes()
        })
    })
}

/// A column-per-row board for `check --board`: short, long, out of range, not numbers,
/// blank and comment lines.
fn board() -> impl Strategy<Value = Vec<u8>> {
    let line = prop_oneof![
        6 => (0u64..12).prop_map(|c| c.to_string()),
        1 => prop::sample::select(vec![
            "", " ", "#", "# c", "-1", "4096", "4097", "2147483646", "2147483647", "4294967296",
            "99999999999999999999", "1.0", "x", "3 4", "\u{FEFF}1", "+1", "0x1",
        ])
        .prop_map(str::to_string),
    ];
    (prop::collection::vec(line, 0..14), eol()).prop_map(|(lines, eol)| {
        let mut s = lines.join(eol);
        if !s.is_empty() {
            s.push_str(eol);
        }
        s.into_bytes()
    })
}

fn case() -> impl Strategy<Value = Case> {
    let seeds = seeds();
    let text = prop_oneof![
        4 => grid(),
        3 => json_file(),
        2 => json_lines(),
        2 => csplib(),
        2 => model(),
        3 => prop::sample::select(seeds),
        2 => big_json(),
        2 => big_text(),
    ];
    (
        text,
        prop::collection::vec(mutation(), 0..3),
        any::<bool>(),
        prop::sample::select(NAMES.to_vec()),
        prop::option::of(0usize..5),
        0usize..40,
        board(),
    )
        .prop_map(
            |(bytes, mutations, mutate_it, name, first, num_vars, board)| Case {
                name,
                bytes: if mutate_it {
                    mutate(bytes, &mutations)
                } else {
                    bytes
                },
                board,
                first,
                num_vars,
            },
        )
}

// ---------------------------------------------------------------------------------------------
// Driving the loaders

thread_local! {
    /// The current case's column-per-row board, checked against every problem it loads.
    static BOARD: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
    static FUZZING: Cell<bool> = const { Cell::new(false) };
    static LAST_PANIC: RefCell<String> = const { RefCell::new(String::new()) };
    /// Problems that loaded and went on to the verifier and the backtracker.
    static EXERCISED: Cell<u64> = const { Cell::new(0) };
    /// Of which boards past 4096 rows.
    static EXERCISED_BIG: Cell<u64> = const { Cell::new(0) };
}

/// While fuzzing, a panic is recorded (message and place) instead of printed, so the run
/// can report every failing input at the end; other tests keep the default report.
fn install_panic_hook() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let default = panic::take_hook();
        panic::set_hook(Box::new(move |info| {
            if FUZZING.with(Cell::get) {
                LAST_PANIC.with(|p| *p.borrow_mut() = info.to_string());
            } else {
                default(info);
            }
        }));
    });
}

/// A scratch folder per thread, so loaders read real files; in memory where there is a
/// tmpfs (`/dev/shm`), since a million writes to a disk-backed temp folder take most of the run.
/// Removed when the thread ends (each test runs on a thread of its own), also after a failure.
fn scratch() -> PathBuf {
    thread_local! {
        static DIR: tempfile::TempDir = {
            let shm = Path::new("/dev/shm");
            let base = if shm.is_dir() { shm.to_path_buf() } else { std::env::temp_dir() };
            tempfile::Builder::new()
                .prefix("queens-fuzz-")
                .tempdir_in(base)
                .expect("a scratch folder")
        };
    }
    DIR.with(|d| d.path().to_path_buf())
}

/// An error must start with the name of what was read.
fn check_origin<T>(what: &str, origin: &str, r: &Result<T, queens::Error>) {
    if let Err(e) = r {
        let msg = e.to_string();
        assert!(
            msg.starts_with(&format!("{origin}: ")),
            "{what}: error does not start with the origin {origin:?}: {msg}"
        );
    }
}

/// What a loaded problem must survive: the verifier on its fixed queens, and the backtracker
/// with a small deadline, whose answer must pass the verifier.
fn exercise(p: &Problem) {
    EXERCISED.with(|e| e.set(e.get() + 1));
    let _ = verify::conflicts(p, p.fixed());
    BOARD.with(|b| {
        let b = b.borrow();
        if let Ok(cols) = formats::columns::read("board", &b) {
            let r = queens::ops::check_columns(p, &cols);
            assert_eq!(r.n, p.n());
        }
    });
    if p.is_sparse() {
        EXERCISED_BIG.with(|e| e.set(e.get() + 1));
        exercise_big(p);
    }
    if p.n() <= 12 {
        let config = backtrack::Config {
            deadline: Some(Instant::now() + Duration::from_millis(50)),
            threads: 1,
            ..Default::default()
        };
        let (found, _) = backtrack::first_solution(p, &config);
        if let Some(q) = found {
            if let Err(v) = verify(p, &q) {
                panic!("the backtracker's board fails the verifier: {v}");
            }
        }
        exercise_ops(p);
    }
}

/// The operations the CLI and the service run, in-process with a small deadline: they may
/// answer or refuse, never panic, and every board they return passes the verifier (the
/// operations check that themselves, as an internal error).
fn exercise_ops(p: &Problem) {
    use queens::ops::{
        CheckRequest, Context, CountRequest, EncodeRequest, ExplainRequest, Instance, Request,
        SolveRequest,
    };
    let mut ctx = Context::default().with_timeout_ms(Some(20));
    ctx.budget.max_memory = Some(64 << 20);
    let inst = || Instance(p.clone());
    let mut requests = vec![
        Request::Check(CheckRequest {
            instance: inst(),
            queens: p.fixed().iter().take(2).copied().collect(),
            timeout_ms: None,
            hints: true,
            completions: Some(5),
        }),
        Request::Count(CountRequest {
            instance: inst(),
            engine: Default::default(),
            encoding: Default::default(),
            limit: Some(3),
            unique: true,
            cross_check: false,
            timeout_ms: None,
            shard: None,
            solver: None,
            rings: false,
        }),
    ];
    let mut solve = SolveRequest::new(p.clone());
    solve.limit = Some(2);
    requests.push(Request::Solve(solve));
    if p.n() <= 8 {
        // A certified answer from the backtracker, in binary DRAT.
        let mut proved = SolveRequest::new(p.clone());
        proved.proof = Some(queens::proof::ProofFormat::BinaryDrat);
        requests.push(Request::Solve(proved));
        // Deduction on the position (any board: marks, fixed queens, both rules).
        requests.push(Request::Hint(queens::ops::HintRequest { instance: inst() }));
        requests.push(Request::Grade(queens::ops::GradeRequest {
            instance: inst(),
            steps: true,
        }));
        for (engine, proof) in [
            (
                queens::ops::EngineName::Backtrack,
                Some(queens::proof::ProofFormat::Lrat),
            ),
            (queens::ops::EngineName::Sat, None),
        ] {
            requests.push(Request::Explain(ExplainRequest {
                instance: inst(),
                engine,
                encoding: Default::default(),
                proof,
                timeout_ms: None,
                solver: None,
            }));
        }
        requests.push(Request::Encode(EncodeRequest {
            instance: inst(),
            encoding: Default::default(),
            rings: false,
        }));
    }
    for req in &requests {
        if let Err(e @ queens::Error::Internal { .. }) = req.run_here(&ctx) {
            panic!("{} failed an internal check: {e}", req.op());
        }
    }
}

/// A board past 4096 rows: solved by the operations layer under a small deadline and a
/// memory limit that refuses the largest before anything is allocated. Any board it returns
/// has passed the column verifier (an internal error otherwise).
fn exercise_big(p: &Problem) {
    use queens::ops::{Context, Request, SolveRequest};
    let mut ctx = Context::default().with_timeout_ms(Some(10));
    ctx.budget.max_memory = Some(16 << 20);
    let req = Request::Solve(SolveRequest::new(p.clone()));
    if let Err(e @ queens::Error::Internal { .. }) = req.run_here(&ctx) {
        panic!(
            "solve on a {}-row board failed an internal check: {e}",
            p.n()
        );
    }
}

/// Every loader on one input. Panics propagate to the caller.
fn drive(case: &Case) {
    BOARD.with(|b| *b.borrow_mut() = case.board.clone());
    // The board file alone: read or refused naming its origin.
    check_origin(
        "columns::read",
        "board",
        &formats::columns::read("board", &case.board),
    );
    // The same bytes as a service request body: parsed or refused with a problem, never a
    // panic.
    let _ = queens::server::parse_body::<queens::ops::SolveRequest>(&case.bytes);
    let _ = queens::server::parse_job(&case.bytes);
    let origin = "fuzz";
    let text = formats::decode_text(origin, case.bytes.clone());
    check_origin("decode_text", origin, &text);
    if let Ok(text) = &text {
        let p = formats::parse(origin, text);
        check_origin("parse", origin, &p);
        if let Ok(p) = p {
            exercise(&p);
        }
        let p = formats::csplib::parse_csplib(origin, text, case.first);
        check_origin("parse_csplib", origin, &p);
        if let Ok(p) = p {
            exercise(&p);
        }
        check_origin("parse_model", origin, &dimacs::parse_model(origin, text));
        check_origin(
            "parse_model_for",
            origin,
            &dimacs::parse_model_for(origin, text, case.num_vars),
        );
    }
    let path = scratch().join(case.name);
    std::fs::write(&path, &case.bytes).unwrap();
    let shown = path.display().to_string();
    let all = sources::load(std::slice::from_ref(&path), &Selection::default());
    check_origin("load", &shown, &all);
    if let Ok(all) = all {
        for inst in all.iter().take(4) {
            exercise(&inst.problem);
        }
    }
    let selection = Selection {
        filters: vec![("n".into(), "4".into())],
        first: case.first,
        take: Some(2),
    };
    let one = sources::load_one(&path, &selection);
    check_origin("load_one", &shown, &one);
    if let Ok(inst) = one {
        exercise(&inst.problem);
    }
}

/// Runs `cases` inputs; returns the failures (panic and input), having run them all.
fn run_cases(cases: u32) -> (u32, Vec<(String, Case)>) {
    install_panic_hook();
    let config = Config {
        cases,
        failure_persistence: None,
        max_shrink_iters: 0,
        ..Config::default()
    };
    let mut runner = TestRunner::new(config);
    let failures = RefCell::new(Vec::new());
    let ran = Cell::new(0u32);
    runner
        .run(&case(), |case| {
            ran.set(ran.get() + 1);
            FUZZING.with(|f| f.set(true));
            let outcome = panic::catch_unwind(AssertUnwindSafe(|| drive(&case)));
            FUZZING.with(|f| f.set(false));
            if outcome.is_err() {
                let message = LAST_PANIC.with(|p| p.borrow().clone());
                failures.borrow_mut().push((message, case));
            }
            Ok(())
        })
        .expect("the closure never fails");
    (ran.get(), failures.into_inner())
}

/// Prints the figures, then up to three inputs per place that panicked, and fails if any did.
fn report(ran: u32, started: Instant, failures: &[(String, Case)]) {
    eprintln!(
        "fuzz: {ran} inputs in {:.1} s, {} panics; {} problems loaded and solved, {} of them \
         past 4096 rows",
        started.elapsed().as_secs_f64(),
        failures.len(),
        EXERCISED.with(Cell::get),
        EXERCISED_BIG.with(Cell::get)
    );
    let mut places: Vec<(&str, Vec<&Case>)> = Vec::new();
    for (message, case) in failures {
        let place = message.lines().next().unwrap_or("");
        match places.iter_mut().find(|(p, _)| *p == place) {
            Some((_, cases)) => cases.push(case),
            None => places.push((place, vec![case])),
        }
    }
    for (place, cases) in &places {
        eprintln!("=== {} inputs: {place}", cases.len());
        for case in cases.iter().take(3) {
            eprintln!(
                "--- {} (first {:?}, vars {}): b\"{}\" board b\"{}\"",
                case.name,
                case.first,
                case.num_vars,
                case.bytes.escape_ascii(),
                case.board.escape_ascii()
            );
        }
    }
    assert!(failures.is_empty(), "{} inputs panicked", failures.len());
}

#[test]
fn fuzz() {
    let started = Instant::now();
    let (ran, failures) = run_cases(5000);
    report(ran, started, &failures);
}

#[test]
#[ignore = "long: QUEENS_FUZZ_CASES inputs (default 1 000 000)"]
fn fuzz_long() {
    let cases = std::env::var("QUEENS_FUZZ_CASES")
        .ok()
        .and_then(|s| s.replace('_', "").parse().ok())
        .unwrap_or(1_000_000);
    let started = Instant::now();
    let (ran, failures) = run_cases(cases);
    report(ran, started, &failures);
}

// ---------------------------------------------------------------------------------------------
// Inputs the fuzzer found, replayed through every loader so they stay fixed

fn replay(name: &'static str, bytes: &[u8]) {
    drive(&Case {
        name,
        bytes: bytes.to_vec(),
        board: Vec::new(),
        first: None,
        num_vars: 8,
    });
}

/// sources.rs:93 sliced `first[1..]` by bytes: a BOM before a JSON object (with duplicate
/// keys, too) made format detection panic in every file, whatever its name.
#[test]
fn fuzz_found_bom_before_json_object() {
    replay(
        "model.out",
        b"\xef\xbb\xbf{\"diagonals\": 10, \"queens\": [[6,6,4]], \"regions\": [\"AECBDCB\"], \
          \"queens\": [[0,6,12]]}\r",
    );
    replay(
        "in",
        b"\xef\xbb\xbf{\"n\": 13, \"n\": 1e3, \"regions\": [[\"D\",\"B\",\"E\"]], \
          \"n\": 9223372036854775808} \t\n",
    );
    let e = formats::parse("f", "\u{FEFF}{\"n\": 13, \"n\": 4}").unwrap_err();
    assert_eq!(
        e.to_string(),
        "f: line 1 column 13: field `n` is given twice"
    );
}

/// The same slice: a BOM before a commented, ragged region grid.
#[test]
fn fuzz_found_bom_before_comment_line() {
    replay(
        "in.txt",
        b"\xef\xbb\xbf# fuzz\nCDDAC\nABBD\nAADA\nDADB\nBLOCKED: 8,5 0,4 8,12\ndiagonals: full\n",
    );
    let e = formats::parse("f", "\u{FEFF}# fuzz\nCDDAC\nABBD\n").unwrap_err();
    assert_eq!(
        e.to_string(),
        "f: line 3: row has 4 cells, expected 5 like the first row"
    );
}

/// A prob079 list nested 10 000 deep (`init = [[[[…`) overflowed the stack in
/// `formats::csplib::parse_csplib`'s recursive list parser: an abort that no `catch_unwind` sees, so
/// the fuzz grammar stays below 40 levels. Checked in a child process, which the abort cannot
/// take this test binary down with.
#[test]
fn csplib_deep_nesting_is_an_error_not_a_stack_overflow() {
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "csplib_deep_nesting_child", "--nocapture"])
        .env("QUEENS_FUZZ_CHILD", "1")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "the child ended with {}: {}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The child of the test above; does nothing unless that test starts it.
#[test]
fn csplib_deep_nesting_child() {
    if std::env::var_os("QUEENS_FUZZ_CHILD").is_none() {
        return;
    }
    let text = format!("n = 4\ninit = {}\n", "[".repeat(10_000));
    let e = formats::csplib::parse_csplib("deep.param", &text, None).unwrap_err();
    assert!(e.to_string().starts_with("deep.param: line 2: "), "{e}");
}
