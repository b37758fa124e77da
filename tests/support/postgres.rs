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
    /// With TLS: the server takes TCP connections over TLS only, and the tests' own admin
    /// connections go through its Unix socket in this folder.
    tls: Option<Tls>,
}

/// The certificates of a TLS server: its own (for `localhost` only, signed by `ca`), and
/// a certificate authority that signed nothing of it.
pub struct Tls {
    socket_dir: PathBuf,
    /// The PEM file of the CA that signed the server's certificate.
    pub ca: PathBuf,
    /// The PEM file of another CA.
    pub other_ca: PathBuf,
}

impl Cluster {
    /// The URL of database `db` on this server.
    pub fn url(&self, db: &str) -> String {
        format!("postgres://queens@127.0.0.1:{}/{db}", self.port)
    }

    /// The URL of database `db` on this server by the host name `host`, for TLS.
    pub fn url_at(&self, host: &str, db: &str) -> String {
        format!("postgres://queens@{host}:{}/{db}", self.port)
    }

    /// The TLS server's certificates.
    pub fn tls(&self) -> Option<&Tls> {
        self.tls.as_ref()
    }

    /// An admin connection: over TCP, or through the Unix socket of a TLS server.
    fn admin(&self) -> Result<postgres::Client, postgres::Error> {
        match &self.tls {
            None => postgres::Client::connect(&self.url("postgres"), postgres::NoTls),
            Some(tls) => postgres::Client::connect(
                &format!(
                    "host={} port={} user=queens dbname=postgres",
                    tls.socket_dir.display(),
                    self.port
                ),
                postgres::NoTls,
            ),
        }
    }

    /// Creates an empty database for one test and returns its URL.
    pub fn fresh_database(&self, label: &str) -> String {
        let label: String = label
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
            .take(40)
            .collect();
        let name = format!("t{}_{label}", self.next.fetch_add(1, Ordering::Relaxed));
        let mut admin = self.admin().expect("connect to the test server");
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
    match CLUSTER.get_or_init(|| start(false)) {
        Ok(cluster) => Some(cluster),
        Err(why) => {
            static SAID: std::sync::Once = std::sync::Once::new();
            if std::env::var_os("CI").is_some() {
                crate::need::missing("a throw-away Postgres server", why);
            }
            SAID.call_once(|| crate::need::skipping(&format!("no test Postgres: {why}")));
            None
        }
    }
}

/// The test process's TLS server (`ssl=on`, a certificate made with `openssl` for
/// `localhost`, TCP connections without TLS refused), started on first use. `None` with the
/// reason printed when none can be started here; with `CI` set, that fails the test.
pub fn tls_cluster() -> Option<&'static Cluster> {
    static CLUSTER: OnceLock<Result<Cluster, String>> = OnceLock::new();
    match CLUSTER.get_or_init(|| start(true)) {
        Ok(cluster) => Some(cluster),
        Err(why) => {
            assert!(
                std::env::var_os("CI").is_none(),
                "CI is set and no TLS test Postgres could be started: {why}"
            );
            crate::need::skipping(&format!("no TLS test Postgres: {why}"));
            None
        }
    }
}

/// A fresh database for a test, or `None` after printing why the test skips.
pub fn database(test: &str) -> Option<String> {
    match cluster() {
        Some(c) => Some(c.fresh_database(test)),
        None => {
            crate::need::skipping(&format!("{test}: no Postgres server could be started"));
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

/// Makes a CA and a server certificate for `localhost` signed by it, and a second CA, with
/// `openssl`, in `dir`.
fn make_certificates(dir: &Path) -> Result<(), String> {
    let script = r#"
        set -e
        ec="-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes"
        openssl req -x509 $ec -days 2 -subj /CN=queens-test-ca -keyout ca.key -out ca.pem
        openssl req -x509 $ec -days 2 -subj /CN=queens-other-ca -keyout other.key -out other-ca.pem
        openssl req $ec -subj /CN=localhost -keyout server.key -out server.csr
        printf 'subjectAltName=DNS:localhost\nbasicConstraints=CA:FALSE\n' >server.ext
        openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 2 \
            -extfile server.ext -out server.crt
        chmod 600 server.key
    "#;
    let out = Command::new("sh")
        .args(["-c", script])
        .current_dir(dir)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("running openssl: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "openssl failed: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    Ok(())
}

fn start(tls: bool) -> Result<Cluster, String> {
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
    let mut extra = String::new();
    let certs = dir.join("certs");
    if tls {
        std::fs::create_dir(&certs).map_err(|e| format!("making {}: {e}", certs.display()))?;
        make_certificates(&certs)?;
        // The Unix socket for the tests' admin connections; TCP only with TLS.
        std::fs::write(
            data.join("pg_hba.conf"),
            "local all all trust\nhostnossl all all all reject\nhostssl all all all trust\n",
        )
        .map_err(|e| format!("writing pg_hba.conf: {e}"))?;
        if root {
            let chown = Command::new("chown")
                .args(["-R", "postgres:"])
                .arg(&certs)
                .arg(data.join("pg_hba.conf"))
                .status()
                .map_err(|e| format!("chown: {e}"))?;
            if !chown.success() {
                return Err("chown of the certificates failed".into());
            }
        }
        extra = format!(
            "-c ssl=on -c ssl_cert_file={0}/server.crt -c ssl_key_file={0}/server.key",
            certs.display()
        );
    }
    let port = free_port()?;
    let run = if root { "runuser -u postgres --" } else { "" };
    // The watchdog: starts the server, waits for the test process to end (or the server to
    // die), then stops the server and removes its folder. fsync=off: a test server need not
    // survive a power cut, and the tests run faster.
    let script = format!(
        r#"
        {run} "$BIN/postgres" -D "$DIR/data" -p "$PORT" -k "$DIR" \
            -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off \
            -c full_page_writes=off -c max_connections=200 $EXTRA >"$DIR/log" 2>&1 &
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
        .env("EXTRA", &extra)
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
        tls: tls.then(|| Tls {
            socket_dir: dir.clone(),
            ca: certs.join("ca.pem"),
            other_ca: certs.join("other-ca.pem"),
        }),
    };
    let until = Instant::now() + Duration::from_secs(30);
    loop {
        match cluster.admin() {
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
