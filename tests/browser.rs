//! The `/play` page as a player meets it: headless Chromium, driven over WebDriver by
//! chromedriver, against the real `queens serve` binary on 127.0.0.1:0. Skips (and passes)
//! when Chromium or chromedriver is not installed (`QUEENS_CHROME`, `QUEENS_CHROMEDRIVER`
//! name them when they are not on `PATH`).
//!
//! The screenshot is written under the target folder; with `QUEENS_UPDATE_SCREENSHOT=1` it
//! is also copied to `docs/play.png`, the picture in README.md.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use fantoccini::key::Key;
use fantoccini::{Client, ClientBuilder, Locator};
use serde_json::{json, Value};

#[path = "support/need.rs"]
mod need;
#[path = "support/serve.rs"]
mod serve;
#[path = "support/temp.rs"]
mod temp;

use serve::Server;

/// The puzzle the test plays: fixed, so the run and the screenshot are the same every time.
const SIZE: usize = 8;
const SEED: u64 = 3;
/// Longest wait for any one thing the page does (an answer from the server, a redraw).
const WAIT: Duration = Duration::from_secs(20);
/// The whole browser session.
const WHOLE: Duration = Duration::from_secs(240);

/// A child process killed, with everything it started, when dropped: a test that fails
/// half-way leaves no chromedriver, Chromium or server behind.
struct Spawned {
    child: Child,
    name: &'static str,
}

impl Spawned {
    /// Starts `cmd` as the leader of a new process group (Chromium's processes join it).
    fn start(name: &'static str, cmd: &mut Command) -> Spawned {
        #[cfg(unix)]
        std::os::unix::process::CommandExt::process_group(cmd, 0);
        let child = cmd
            .spawn()
            .unwrap_or_else(|e| panic!("starting {name}: {e}"));
        Spawned { child, name }
    }

    /// Reads the child's stderr or stdout until `pick` finds what it waits for in a line,
    /// then keeps draining it on a thread so the child never blocks on a full pipe.
    fn read_until<T>(
        &self,
        out: impl std::io::Read + Send + 'static,
        pick: impl Fn(&str) -> Option<T>,
    ) -> T {
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(out).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    // Nobody listens any more: keep draining.
                    continue;
                }
            }
        });
        let until = Instant::now() + WAIT;
        let mut seen = Vec::new();
        loop {
            let left = until.saturating_duration_since(Instant::now());
            match rx.recv_timeout(left) {
                Ok(line) => {
                    if let Some(t) = pick(&line) {
                        std::thread::spawn(move || for _ in rx {});
                        return t;
                    }
                    seen.push(line);
                }
                Err(_) => panic!(
                    "{} did not say it was ready within {WAIT:?}; it printed:\n{}",
                    self.name,
                    seen.join("\n")
                ),
            }
        }
    }
}

impl Drop for Spawned {
    fn drop(&mut self) {
        #[cfg(unix)]
        {
            let group = rustix::process::Pid::from_child(&self.child);
            let _ = rustix::process::kill_process_group(group, rustix::process::Signal::KILL);
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A POST to the server under test, and its JSON answer.
fn post(server: &Server, path: &str, body: &Value) -> Value {
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .timeout_global(Some(WAIT))
        .build()
        .into();
    let mut resp = agent
        .post(server.url(path))
        .send_json(body)
        .unwrap_or_else(|e| panic!("POST {path}: {e}"));
    resp.body_mut().read_json().unwrap()
}

/// chromedriver on a free port (`--port=0`: it prints the one it took).
struct Driver {
    _process: Spawned,
    url: String,
}

impl Driver {
    fn start(exe: &Path) -> Driver {
        let mut process = Spawned::start(
            "chromedriver",
            Command::new(exe)
                .arg("--port=0")
                .stdin(Stdio::null())
                .stdout(Stdio::piped())
                .stderr(Stdio::null()),
        );
        let stdout = process.child.stdout.take().unwrap();
        let port: u16 = process.read_until(stdout, |line| {
            line.split("started successfully on port ")
                .nth(1)?
                .trim()
                .trim_end_matches('.')
                .parse()
                .ok()
        });
        Driver {
            _process: process,
            url: format!("http://127.0.0.1:{port}"),
        }
    }
}

/// An executable named by `env`, else the first of `names` on `PATH`.
fn program(env: &str, names: &[&str]) -> Option<PathBuf> {
    if let Some(p) = std::env::var_os(env) {
        return Some(PathBuf::from(p)).filter(|p| p.is_file());
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .flat_map(|dir| names.iter().map(move |n| dir.join(n)))
        .find(|p| p.is_file())
}

/// Chromium and chromedriver, or `None` (and the skip said) when either is missing.
fn browser() -> Option<(PathBuf, PathBuf)> {
    let chrome = program(
        "QUEENS_CHROME",
        &["chromium", "chromium-browser", "google-chrome"],
    );
    let driver = program("QUEENS_CHROMEDRIVER", &["chromedriver"]);
    let (Some(chrome), Some(driver)) = (chrome, driver) else {
        need::missing(
            "Chromium and chromedriver",
            "Debian: apt-get install chromium chromium-driver; or set QUEENS_CHROME and \
             QUEENS_CHROMEDRIVER",
        );
        return None;
    };
    Some((chrome, driver))
}

#[test]
fn the_play_page_plays_a_puzzle_in_a_real_browser() {
    let Some((chrome, driver)) = browser() else {
        return;
    };
    // Dropped in reverse: chromedriver (with Chromium) first, then the server, then the
    // browser's profile folder.
    let profile = temp::dir("browser-profile");
    let server = Server::start(&[]);
    let driver = Driver::start(&driver);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        tokio::time::timeout(WHOLE, play(&server, &driver, &chrome, &profile))
            .await
            .unwrap_or_else(|_| panic!("the browser session did not finish within {WHOLE:?}"))
    });
}

async fn play(server: &Server, driver: &Driver, chrome: &Path, profile: &Path) {
    // What the page should show, asked of the API directly: the same seed gives the same
    // puzzle, and its one solution.
    let puzzle = post(
        server,
        "/v1/generate",
        &json!({"kind": "regions", "n": SIZE, "seed": SEED}),
    )["instances"][0]
        .clone();
    let regions: String = puzzle["regions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r.as_str().unwrap())
        .collect();
    let solved = post(server, "/v1/solve", &json!({"instance": puzzle}));
    let solution: Vec<(usize, usize)> = serde_json::from_value(solved["queens"].clone()).unwrap();
    assert_eq!(solution.len(), SIZE, "{solved}");

    let c = session(driver, chrome, profile).await;
    let page = Page { c: &c };
    page.run(server, &regions, &solution).await;
    c.close().await.expect("the browser closes");
}

/// A WebDriver session with headless Chromium, its profile in `profile`.
async fn session(driver: &Driver, chrome: &Path, profile: &Path) -> Client {
    let mut caps = serde_json::Map::new();
    caps.insert(
        "goog:chromeOptions".into(),
        json!({
            "binary": chrome,
            "args": ["--headless=new", "--no-sandbox", "--disable-gpu",
                     "--disable-dev-shm-usage", "--window-size=1100,790",
                     "--hide-scrollbars", "--force-device-scale-factor=1",
                     // Nothing but the page: no crash reporter, no calls home.
                     "--disable-breakpad", "--disable-crash-reporter", "--no-first-run",
                     "--disable-extensions", "--disable-background-networking",
                     "--disable-component-update", "--disable-sync",
                     format!("--user-data-dir={}", profile.display())],
        }),
    );
    let connector = hyper_util::client::legacy::connect::HttpConnector::new();
    ClientBuilder::new(connector)
        .capabilities(caps)
        .connect(&driver.url)
        .await
        .expect("a WebDriver session with headless Chromium")
}

struct Page<'a> {
    c: &'a Client,
}

impl Page<'_> {
    async fn run(&self, server: &Server, regions: &str, solution: &[(usize, usize)]) {
        self.c.goto(&server.url("/play")).await.unwrap();
        // The page generates a first puzzle of a random seed by itself.
        self.settled().await;

        // Generate the test's puzzle from the form.
        self.find("#size")
            .await
            .select_by_value(&SIZE.to_string())
            .await
            .unwrap();
        let seed = self.find("#seed").await;
        seed.clear().await.unwrap();
        seed.send_keys(&SEED.to_string()).await.unwrap();
        self.find("#generate").await.click().await.unwrap();
        self.settled().await;
        let name = self.text("#puzzle-name").await;
        assert!(name.contains(&format!("seed {SEED}")), "{name}");
        assert_eq!(self.status().await.0, "ok", "{:?}", self.status().await);
        let drawn = self
            .js("return [...document.querySelectorAll('#board .cell')].map(e => e.dataset.region).join('')")
            .await;
        assert_eq!(drawn, regions, "the board draws the generated regions");
        // Region boundaries are drawn: a cell whose left neighbour is in another region has
        // the thick edge.
        let thick = self
            .js("return document.querySelectorAll('#board .edge-left').length")
            .await;
        assert!(thick.as_u64().unwrap() > SIZE as u64, "{thick}");

        // A right queen by mouse: click cycles empty → mark → queen.
        let (r0, c0) = solution[0];
        self.cell(r0, c0).await.click().await.unwrap();
        self.settled().await;
        assert_eq!(self.cell_state(r0, c0).await, "mark");
        self.cell(r0, c0).await.click().await.unwrap();
        self.settled().await;
        assert_eq!(self.cell_state(r0, c0).await, "queen");
        let (state, text) = self.status().await;
        assert_eq!(state, "ok", "{text}");
        assert!(
            text.contains(&format!("1 of {SIZE} queens placed")),
            "{text}"
        );

        // A wrong queen by keyboard, beside it in the same row: both are shown in conflict.
        let (key, c1) = if c0 + 1 < SIZE {
            (Key::Right, c0 + 1)
        } else {
            (Key::Left, c0 - 1)
        };
        self.keys(&key.to_string()).await;
        assert_eq!(self.focused().await, (r0, c1), "arrow keys move the focus");
        self.keys("q").await;
        self.settled().await;
        assert_eq!(self.cell_state(r0, c1).await, "queen");
        let (state, text) = self.status().await;
        assert_eq!(state, "invalid", "{text}");
        assert!(text.contains(&format!("share row {r0}")), "{text}");
        assert!(self.has_class(r0, c0, "conflict").await);
        assert!(self.has_class(r0, c1, "conflict").await);
        // Space cycles the queen back to empty; the conflict goes.
        self.keys(" ").await;
        self.settled().await;
        assert_eq!(self.cell_state(r0, c1).await, "empty");
        assert_eq!(self.count(".cell.conflict").await, 0);
        assert_eq!(self.status().await.0, "ok");

        // A hint by keyboard: its reason is shown and its cells are highlighted.
        self.keys("h").await;
        self.settled().await;
        let reason = self.text("#hint-reason").await;
        assert_eq!(
            self.attr("#hint-box", "data-status").await,
            "sat",
            "{reason}"
        );
        assert!(reason.len() > 20, "{reason}");
        assert!(
            self.count(".cell.hint-place, .cell.hint-elim").await > 0,
            "{reason}"
        );
        let mut shot = None;
        // Apply hints until the puzzle is solved (a unique puzzle's hints never go wrong).
        for step in 0..(4 * SIZE * SIZE) {
            if self.status().await.0 == "solved" {
                break;
            }
            if self.attr("#hint-box", "data-status").await != "sat" {
                self.find("#hint").await.click().await.unwrap();
                self.settled().await;
                let status = self.attr("#hint-box", "data-status").await;
                assert_eq!(
                    status,
                    "sat",
                    "step {step}: {}",
                    self.text("#hint-reason").await
                );
            }
            // The picture: mid-game, with queens placed and a hint showing.
            if shot.is_none() && self.count(".cell[data-state=queen]").await >= 3 {
                shot = Some(self.c.screenshot().await.unwrap());
            }
            self.find("#apply-hint").await.click().await.unwrap();
            self.settled().await;
        }
        let (state, text) = self.status().await;
        assert_eq!(state, "solved", "{text}");
        assert!(text.starts_with("Solved!"), "{text}");
        assert_eq!(self.count("#board.solved").await, 1);
        let mut placed = self.queens().await;
        placed.sort();
        let mut expected = solution.to_vec();
        expected.sort();
        assert_eq!(
            placed, expected,
            "the board shows the puzzle's one solution"
        );
        save_screenshot(&shot.expect("a mid-game moment with 3 queens"));

        // Reset empties the board.
        self.find("#reset").await.click().await.unwrap();
        self.settled().await;
        assert_eq!(self.queens().await, vec![]);
        assert!(self.status().await.1.contains("0 of"));

        // A pasted puzzle: an API error is shown with its detail, never swallowed.
        self.find("#paste-box summary").await.click().await.unwrap();
        let paste = self.find("#paste").await;
        paste.send_keys("AAB\nAB\nCCC\n").await.unwrap();
        self.find("#load").await.click().await.unwrap();
        self.settled().await;
        let (state, text) = self.status().await;
        assert_eq!(state, "error", "{text}");
        assert!(text.contains("row has 2 cells"), "{text}");
        // A good one (the grid file format, with a mark) loads, and Solve solves it.
        let grid = std::fs::read_to_string(
            Path::new(env!("CARGO_MANIFEST_DIR")).join("instances/region-7.txt"),
        )
        .unwrap();
        paste.clear().await.unwrap();
        paste
            .send_keys(&format!("{grid}marks: 6,6\n"))
            .await
            .unwrap();
        self.find("#load").await.click().await.unwrap();
        self.settled().await;
        assert_eq!(self.attr("#board", "data-n").await, "7");
        assert_eq!(self.cell_state(6, 6).await, "mark");
        assert_eq!(self.status().await.0, "ok");
        self.find("#solve").await.click().await.unwrap();
        self.settled().await;
        let (state, text) = self.status().await;
        assert_eq!(state, "solved", "{text}");
        assert_eq!(self.queens().await.len(), 7);
    }

    async fn js(&self, script: &str) -> Value {
        self.c
            .execute(script, vec![])
            .await
            .unwrap_or_else(|e| panic!("{script}: {e}"))
    }

    /// Waits until every request the page sent has been answered.
    async fn settled(&self) {
        let until = Instant::now() + WAIT;
        loop {
            let v = self
                .js("return document.body.dataset.pending === '0'")
                .await;
            if v == Value::Bool(true) {
                return;
            }
            assert!(
                Instant::now() < until,
                "the page still waits for the server after {WAIT:?}; status: {:?}",
                self.status().await
            );
            tokio::time::sleep(Duration::from_millis(40)).await;
        }
    }

    async fn find(&self, css: &str) -> fantoccini::elements::Element {
        self.c
            .find(Locator::Css(css))
            .await
            .unwrap_or_else(|e| panic!("{css}: {e}"))
    }

    async fn cell(&self, r: usize, c: usize) -> fantoccini::elements::Element {
        self.find(&format!("#board [data-row='{r}'][data-col='{c}']"))
            .await
    }

    async fn attr(&self, css: &str, name: &str) -> String {
        self.find(css)
            .await
            .attr(name)
            .await
            .unwrap()
            .unwrap_or_default()
    }

    async fn text(&self, css: &str) -> String {
        self.find(css).await.text().await.unwrap()
    }

    async fn cell_state(&self, r: usize, c: usize) -> String {
        self.cell(r, c)
            .await
            .attr("data-state")
            .await
            .unwrap()
            .unwrap_or_default()
    }

    async fn has_class(&self, r: usize, c: usize, class: &str) -> bool {
        let classes = self.cell(r, c).await.attr("class").await.unwrap();
        classes.is_some_and(|s| s.split_whitespace().any(|x| x == class))
    }

    /// `#status`'s `data-state` and text.
    async fn status(&self) -> (String, String) {
        (
            self.attr("#status", "data-state").await,
            self.text("#status").await,
        )
    }

    async fn count(&self, css: &str) -> u64 {
        let css = serde_json::to_string(css).unwrap();
        self.js(&format!("return document.querySelectorAll({css}).length"))
            .await
            .as_u64()
            .unwrap()
    }

    /// Keys typed into the focused element.
    async fn keys(&self, keys: &str) {
        self.c
            .active_element()
            .await
            .unwrap()
            .send_keys(keys)
            .await
            .unwrap();
    }

    /// The focused cell.
    async fn focused(&self) -> (usize, usize) {
        let v = self
            .js("const e = document.activeElement; return [Number(e.dataset.row), Number(e.dataset.col)]")
            .await;
        serde_json::from_value(v).unwrap()
    }

    /// The queens on the board, the puzzle's and the player's.
    async fn queens(&self) -> Vec<(usize, usize)> {
        let v = self
            .js("return [...document.querySelectorAll('#board .cell[data-state=queen], #board .cell[data-state=fixed]')]\
                 .map(e => [Number(e.dataset.row), Number(e.dataset.col)])")
            .await;
        serde_json::from_value(v).unwrap()
    }
}

/// Writes the picture under the target folder, and to `docs/play.png` when asked.
fn save_screenshot(png: &[u8]) {
    assert!(png.starts_with(b"\x89PNG"), "a PNG screenshot");
    let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join("play.png");
    std::fs::write(&out, png).unwrap();
    eprintln!("screenshot: {}", out.display());
    if std::env::var_os("QUEENS_UPDATE_SCREENSHOT").is_some_and(|v| v == "1") {
        let docs = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/play.png");
        std::fs::create_dir_all(docs.parent().unwrap()).unwrap();
        std::fs::write(&docs, png).unwrap();
        eprintln!("screenshot copied to {}", docs.display());
    }
}

/// The page another origin serves: it calls the API given in its address's fragment
/// (`#api=…&key=…`) with `fetch()`: a synchronous solve, then a job submitted, found by its
/// `Location` and read until it ends; it shows both answers, or the error `fetch` threw,
/// and says which in `body[data-state]`.
const ELSEWHERE: &str = r#"<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>a page of another origin</title></head>
<body data-state="running">
<pre id="solve"></pre><pre id="job"></pre><pre id="error"></pre>
<script>
const asked = new URLSearchParams(location.hash.slice(1));
const api = asked.get('api');
const headers = {'Authorization': 'Bearer ' + asked.get('key'), 'Content-Type': 'application/json'};
const show = (id, text) => { document.getElementById(id).textContent = text; };
async function run() {
  try {
    const solved = await fetch(api + '/v1/solve', {method: 'POST', headers,
      body: JSON.stringify({instance: {n: 8, queens: ['b4', 'd5']}})});
    show('solve', JSON.stringify(await solved.json()));
    const submitted = await fetch(api + '/v1/jobs', {method: 'POST', headers,
      body: JSON.stringify({op: 'solve', instance: {n: 10}})});
    const where = submitted.headers.get('Location');
    if (submitted.status !== 202 || !where) {
      throw new Error('the job was not accepted: ' + submitted.status + ', Location ' + where);
    }
    let job = {};
    for (let i = 0; i < 400 && !['done', 'failed', 'cancelled'].includes(job.status); i++) {
      if (i > 0) await new Promise(wake => setTimeout(wake, 50));
      job = await (await fetch(api + where, {headers})).json();
    }
    show('job', JSON.stringify(job));
    document.body.dataset.state = 'answered';
  } catch (e) {
    show('error', e.name + ': ' + e.message);
    document.body.dataset.state = 'refused';
  }
}
run();
</script></body></html>
"#;

/// A one-page web server on 127.0.0.1: every GET is answered with `page` (any other path
/// than `/` with a 404), one connection at a time, on a thread that lives as long as the
/// test. Returns its origin, `http://127.0.0.1:PORT`.
fn serve_page(page: &'static str) -> String {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("a free port");
    let origin = format!("http://{}", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let _ = stream.set_read_timeout(Some(WAIT));
            let mut head = Vec::new();
            let mut byte = [0u8; 1];
            while !head.ends_with(b"\r\n\r\n") && head.len() < 16 << 10 {
                match std::io::Read::read(&mut stream, &mut byte) {
                    Ok(1) => head.push(byte[0]),
                    _ => break,
                }
            }
            let line = String::from_utf8_lossy(&head);
            let root = line.starts_with("GET / ") || line.starts_with("GET /#");
            let (status, body) = if root {
                ("200 OK", page)
            } else {
                ("404 Not Found", "")
            };
            let reply = format!(
                "HTTP/1.1 {status}\r\ncontent-type: text/html; charset=utf-8\r\n\
                 content-length: {}\r\nconnection: close\r\n\r\n{body}",
                body.len()
            );
            let _ = std::io::Write::write_all(&mut stream, reply.as_bytes());
        }
    });
    origin
}

#[test]
fn a_page_of_a_listed_origin_calls_the_api_and_others_are_refused() {
    let Some((chrome, driver)) = browser() else {
        return;
    };
    const KEY: &str = "browser-key-0123456789abcdef";
    // Two pages, two origins (their ports differ from each other and from the server's):
    // the server lists one.
    let listed = serve_page(ELSEWHERE);
    let unlisted = serve_page(ELSEWHERE);
    let profile = temp::dir("browser-cors-profile");
    let server = serve::Serve::new()
        .args(["--cors-origin", &listed])
        .file("--api-keys", "keys", &format!("page:{KEY}\n"))
        .start();
    let driver = Driver::start(&driver);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        tokio::time::timeout(WHOLE, async {
            let c = session(&driver, &chrome, &profile).await;
            let page = Page { c: &c };
            let api = format!("#api={}&key={KEY}", server.base);

            c.goto(&format!("{listed}/{api}")).await.unwrap();
            let (state, error) = page.outcome().await;
            assert_eq!(state, "answered", "{error}");
            let solved: Value = serde_json::from_str(&page.text("#solve").await).unwrap();
            assert_eq!(solved["status"], "sat", "{solved}");
            assert_verified(&json!({"n": 8, "queens": ["b4", "d5"]}), &solved["queens"]);
            let job: Value = serde_json::from_str(&page.text("#job").await).unwrap();
            assert_eq!(job["status"], "done", "{job}");
            assert_eq!(job["result"]["status"], "sat", "{job}");
            assert_verified(&json!({"n": 10}), &job["result"]["queens"]);

            // The same page from an origin the server does not list: the browser refuses
            // the answer, so `fetch` throws before any body is read.
            c.goto(&format!("{unlisted}/{api}")).await.unwrap();
            let (state, error) = page.outcome().await;
            assert_eq!(state, "refused", "{error}");
            assert!(error.starts_with("TypeError"), "{error}");
            assert_eq!(page.text("#solve").await, "");
            c.close().await.expect("the browser closes");
        })
        .await
        .unwrap_or_else(|_| panic!("the browser session did not finish within {WHOLE:?}"))
    });
}

/// Checks `queens` is a solution of `instance` with the verifier.
fn assert_verified(instance: &Value, queens: &Value) {
    let problem = queens::formats::problem_from_json(instance).unwrap();
    let board: Vec<(usize, usize)> = serde_json::from_value(queens.clone()).unwrap();
    queens::verify(&problem, &board).unwrap();
}

impl Page<'_> {
    /// Waits for the other origin's page to finish: its `data-state` and its error text.
    async fn outcome(&self) -> (String, String) {
        let until = Instant::now() + WAIT;
        loop {
            let state = self.attr("body", "data-state").await;
            if state != "running" {
                return (state, self.text("#error").await);
            }
            assert!(
                Instant::now() < until,
                "the page did not finish within {WAIT:?}"
            );
            tokio::time::sleep(Duration::from_millis(40)).await;
        }
    }
}
