//! A throw-away Postgres for tests: `initdb` and `postgres` from Debian's packages
//! (/usr/lib/postgresql/*/bin, or the folder in `QUEENS_PG_BIN`) in a temporary folder,
//! listening on 127.0.0.1 on a free port, with a fresh database per test. One server per test
//! process; a watchdog shell stops it and removes its folder once the test process has ended,
//! however it ended.
//!
//! Postgres refuses to run as root: as root, the server runs as the `postgres` user (through
//! `runuser`), in a folder that user owns. When no server can be started (no binaries, no
//! such user, initdb failing), [`cluster`] prints why once and returns `None`, and the tests
//! skip.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// A running server.
pub struct Cluster {
    port: u16,
    next: AtomicUsize,
}

impl Cluster {
    /// The URL of database `db` on this server.
    pub fn url(&self, db: &str) -> String {
        format!("postgres://queens@127.0.0.1:{}/{db}", self.port)
    }

    /// Creates an empty database for one test and returns its URL.
    pub fn fresh_database(&self, label: &str) -> String {
        let label: String = label
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
            .take(40)
            .collect();
        let name = format!("t{}_{label}", self.next.fetch_add(1, Ordering::Relaxed));
        let mut admin = postgres::Client::connect(&self.url("postgres"), postgres::NoTls)
            .expect("connect to the test server");
        admin
            .batch_execute(&format!("CREATE DATABASE \"{name}\""))
            .expect("create a test database");
        self.url(&name)
    }
}

/// The test process's server, started on first use; `None` (with the reason printed once)
/// when none can be started here.
pub fn cluster() -> Option<&'static Cluster> {
    static CLUSTER: OnceLock<Result<Cluster, String>> = OnceLock::new();
    match CLUSTER.get_or_init(start) {
        Ok(cluster) => Some(cluster),
        Err(why) => {
            static SAID: std::sync::Once = std::sync::Once::new();
            if std::env::var_os("CI").is_some() {
                crate::need::missing("a throw-away Postgres server", why);
            }
            SAID.call_once(|| eprintln!("no test Postgres, skipping its tests: {why}"));
            None
        }
    }
}

/// A fresh database for a test, or `None` after printing why the test skips.
pub fn database(test: &str) -> Option<String> {
    match cluster() {
        Some(c) => Some(c.fresh_database(test)),
        None => {
            eprintln!("{test}: skipped, no Postgres server could be started");
            None
        }
    }
}

/// The folder of `initdb` and `postgres`: `QUEENS_PG_BIN`, else the newest Debian version.
fn bin_dir() -> Result<PathBuf, String> {
    if let Some(dir) = std::env::var_os("QUEENS_PG_BIN") {
        return Ok(PathBuf::from(dir));
    }
    let versions = std::fs::read_dir("/usr/lib/postgresql")
        .map_err(|e| format!("no /usr/lib/postgresql ({e}); install Debian's postgresql"))?;
    versions
        .filter_map(|e| e.ok())
        .filter_map(|e| {
            let version: u32 = e.file_name().to_str()?.parse().ok()?;
            let bin = e.path().join("bin");
            bin.join("initdb").is_file().then_some((version, bin))
        })
        .max()
        .map(|(_, bin)| bin)
        .ok_or_else(|| "no /usr/lib/postgresql/*/bin/initdb".to_string())
}

fn is_root() -> bool {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata("/proc/self").is_ok_and(|m| m.uid() == 0)
}

/// The command that runs a server binary: directly, or as `postgres` when we are root.
fn as_server_user(program: &Path, root: bool) -> Command {
    if root {
        let mut c = Command::new("runuser");
        c.args(["-u", "postgres", "--"]).arg(program);
        c
    } else {
        Command::new(program)
    }
}

fn free_port() -> Result<u16, String> {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .map_err(|e| format!("no free port on 127.0.0.1: {e}"))
}

fn start() -> Result<Cluster, String> {
    let bin = bin_dir()?;
    let root = is_root();
    // Removed on the way out of a failed start; once the watchdog runs, it removes it.
    let folder = tempfile::Builder::new()
        .prefix("queens-pg-")
        .tempdir()
        .map_err(|e| format!("making a temporary folder: {e}"))?;
    let dir = folder.path().to_path_buf();
    if root {
        let chown = Command::new("chown")
            .arg("postgres:")
            .arg(&dir)
            .output()
            .map_err(|e| format!("chown: {e}"))?;
        if !chown.status.success() {
            return Err(format!(
                "running as root, and the folder cannot be given to the postgres user: {}",
                String::from_utf8_lossy(&chown.stderr).trim()
            ));
        }
    }
    let data = dir.join("data");
    let initdb = as_server_user(&bin.join("initdb"), root)
        .arg("-D")
        .arg(&data)
        .args(["-U", "queens", "-A", "trust", "-E", "UTF8", "--no-sync"])
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("running initdb: {e}"));
    let initdb = match initdb {
        Ok(out) if out.status.success() => out,
        Ok(out) => {
            return Err(format!(
                "initdb failed: {}",
                String::from_utf8_lossy(&out.stderr).trim()
            ));
        }
        Err(e) => {
            return Err(e);
        }
    };
    drop(initdb);
    let port = free_port()?;
    let run = if root { "runuser -u postgres --" } else { "" };
    // The watchdog: starts the server, waits for the test process to end (or the server to
    // die), then stops the server and removes its folder. fsync=off: a test server need not
    // survive a power cut, and the tests run faster.
    let script = format!(
        r#"
        {run} "$BIN/postgres" -D "$DIR/data" -p "$PORT" -k "$DIR" \
            -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off \
            -c full_page_writes=off -c max_connections=200 >"$DIR/log" 2>&1 &
        pg=$!
        while kill -0 "$PARENT" 2>/dev/null && kill -0 "$pg" 2>/dev/null; do sleep 0.3; done
        if kill -0 "$PARENT" 2>/dev/null; then cat "$DIR/log" >&2; fi
        {run} "$BIN/pg_ctl" -D "$DIR/data" stop -m immediate >/dev/null 2>&1
        wait "$pg" 2>/dev/null
        rm -rf "$DIR"
        "#
    );
    let mut watchdog = Command::new("sh")
        .args(["-c", &script])
        .env("BIN", &bin)
        .env("DIR", &dir)
        .env("PORT", port.to_string())
        .env("PARENT", std::process::id().to_string())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("starting the server: {e}"))?;
    // The server lives as long as the test process, whose statics are never dropped: the
    // watchdog, not a drop, removes the folder.
    let _ = folder.keep();
    let cluster = Cluster {
        port,
        next: AtomicUsize::new(0),
    };
    let until = Instant::now() + Duration::from_secs(30);
    loop {
        match postgres::Client::connect(&cluster.url("postgres"), postgres::NoTls) {
            Ok(_) => return Ok(cluster),
            Err(e) => {
                if let Ok(Some(_)) = watchdog.try_wait() {
                    let mut log = String::new();
                    if let Some(mut err) = watchdog.stderr.take() {
                        let _ = std::io::Read::read_to_string(&mut err, &mut log);
                    }
                    return Err(format!("the server stopped at once: {}", log.trim()));
                }
                if Instant::now() > until {
                    return Err(format!("the server did not answer within 30 s: {e}"));
                }
                std::thread::sleep(Duration::from_millis(100));
            }
        }
    }
}
