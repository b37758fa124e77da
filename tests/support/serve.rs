//! Starting `queens serve` for a test: on a free port of 127.0.0.1, with a folder of its own
//! (its data, and any file it is given) removed when it is dropped, its stderr kept and
//! drained so the server never blocks on it; killed when dropped, also when the test fails.

#![allow(dead_code)]

use std::ffi::{OsStr, OsString};
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Output, Stdio};
use std::sync::{mpsc, Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

/// How long a server may take to print its address on this shared machine.
const START: Duration = Duration::from_secs(60);

/// A server to start: `Serve::new().args(["--workers", "2"]).start()`.
pub struct Serve {
    folder: tempfile::TempDir,
    data: Option<PathBuf>,
    args: Vec<OsString>,
    env: Vec<(OsString, OsString)>,
    via: Vec<OsString>,
}

impl Serve {
    /// `queens serve` with a fresh data folder, logging warnings and errors.
    pub fn new() -> Serve {
        let folder = tempfile::Builder::new()
            .prefix("queens-serve-")
            .tempdir()
            .expect("make the server's folder");
        Serve {
            folder,
            data: None,
            args: Vec::new(),
            env: vec![("RUST_LOG".into(), "warn".into())],
            via: Vec::new(),
        }
    }

    /// More arguments after `serve --addr 127.0.0.1:0 --data …`.
    pub fn args<S: AsRef<OsStr>>(mut self, args: impl IntoIterator<Item = S>) -> Serve {
        self.args
            .extend(args.into_iter().map(|a| a.as_ref().to_owned()));
        self
    }

    /// An environment variable of the server's (`RUST_LOG` replaces the default `warn`).
    pub fn env(mut self, key: &str, value: &str) -> Serve {
        self.env.push((key.into(), value.into()));
        self
    }

    /// Serves from `data` instead of a fresh folder; the caller keeps it (a restarted server
    /// must find the jobs of the one before).
    pub fn data(mut self, data: &Path) -> Serve {
        self.data = Some(data.to_owned());
        self
    }

    /// Writes `contents` to a file `name` in the server's folder and passes `flag <path>`
    /// (`--api-keys` and its key file).
    pub fn file(self, flag: &str, name: &str, contents: &str) -> Serve {
        let path = self.folder.path().join(name);
        std::fs::write(&path, contents).expect("write the server's file");
        self.args([OsStr::new(flag), path.as_os_str()])
    }

    /// Starts `program args… queens serve …` instead of the binary itself (a shell that
    /// first moves itself into a cgroup, then `exec "$0" "$@"`).
    pub fn via(mut self, program_and_args: &[&str]) -> Serve {
        self.via = program_and_args.iter().map(OsString::from).collect();
        self
    }

    fn command(&self) -> Command {
        let exe = env!("CARGO_BIN_EXE_queens");
        let mut command = match self.via.split_first() {
            Some((program, args)) => {
                let mut c = Command::new(program);
                c.args(args).arg(exe);
                c
            }
            None => Command::new(exe),
        };
        let data = self
            .data
            .clone()
            .unwrap_or_else(|| self.folder.path().join("data"));
        command
            .args(["serve", "--addr", "127.0.0.1:0", "--data"])
            .arg(data)
            .args(&self.args)
            .envs(self.env.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::null());
        command
    }

    /// Runs the server to its end, for a start that must fail (a bad flag or file).
    pub fn output(self) -> Output {
        self.command().output().expect("run queens serve")
    }

    /// Starts the server and waits for the address it prints.
    pub fn start(self) -> Server {
        let mut child = self
            .command()
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start queens serve");
        let stderr = child.stderr.take().expect("piped stderr");
        let log = Arc::new(Mutex::new(Vec::new()));
        let (tx, rx) = mpsc::channel();
        let kept = Arc::clone(&log);
        let drain = std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                kept.lock().unwrap().push(line.clone());
                // Nobody listens once the address is read: that is fine.
                let _ = tx.send(line);
            }
        });
        let mut server = Server {
            child,
            base: String::new(),
            log,
            drain: Some(drain),
            _folder: self.folder,
        };
        let until = std::time::Instant::now() + START;
        server.base = loop {
            let left = until.saturating_duration_since(std::time::Instant::now());
            // On an early exit or a silent server, the drop kills it and the message shows
            // what it printed.
            let line = rx.recv_timeout(left).unwrap_or_else(|e| {
                panic!(
                    "queens serve printed no address ({e}); it printed:\n{}",
                    server.log().join("\n")
                )
            });
            if let Some(rest) = line.strip_prefix("queens: listening on ") {
                break rest.split_whitespace().next().unwrap().to_string();
            }
        };
        server
    }
}

impl Default for Serve {
    fn default() -> Serve {
        Serve::new()
    }
}

/// A running `queens serve`.
pub struct Server {
    child: Child,
    /// `http://127.0.0.1:PORT`, as the server printed it.
    pub base: String,
    log: Arc<Mutex<Vec<String>>>,
    drain: Option<JoinHandle<()>>,
    // Dropped after `drop` has killed the server.
    _folder: tempfile::TempDir,
}

impl Server {
    /// `queens serve ARGS` with a fresh data folder.
    pub fn start(args: &[&str]) -> Server {
        Serve::new().args(args).start()
    }

    /// The address of `path` on this server.
    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Waits for a server told to stop (by a signal) to end.
    pub fn wait(&mut self) -> ExitStatus {
        self.child.wait().expect("wait for queens serve")
    }

    /// The lines the server wrote to stderr so far.
    pub fn log(&self) -> Vec<String> {
        self.log.lock().unwrap().clone()
    }

    /// Kills the server and returns every line it wrote to stderr.
    pub fn stop(mut self) -> Vec<String> {
        let _ = self.child.kill();
        let _ = self.child.wait();
        if let Some(drain) = self.drain.take() {
            drain
                .join()
                .expect("the stderr reader ends with the server");
        }
        self.log()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
