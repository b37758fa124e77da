//! Starting `queens serve` for a test: on a free port, with its data folder, and its stderr
//! drained so the server never blocks on it.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};

/// Starts the binary's `serve` on 127.0.0.1 with `--data data` and `args`, logging at
/// `rust_log`; returns the child and its base URL, read from the line it prints on start.
pub fn spawn(data: &Path, args: &[&str], rust_log: &str) -> (Child, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_queens"))
        .args(["serve", "--addr", "127.0.0.1:0", "--data"])
        .arg(data)
        .args(args)
        .env("RUST_LOG", rust_log)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start queens serve");
    let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
    let base = loop {
        let line = lines
            .next()
            .expect("the server printed its address")
            .expect("stderr is text");
        if let Some(rest) = line.strip_prefix("queens: listening on ") {
            break rest.split_whitespace().next().unwrap().to_string();
        }
    };
    std::thread::spawn(move || for _ in lines {});
    (child, base)
}
