//! `queens._native`: the Python package's glue over the operations layer ([`queens_ops`]).
//!
//! Python builds a request as the service's JSON (the same field names), this module reads
//! it into the operation's typed request, runs it on a thread of its own with the GIL
//! released, and hands back the response's JSON with its files. The calling thread polls
//! for signals meanwhile: Ctrl-C sets the budget's cancel flag, which stops the search (and
//! kills a worker process running an engine that cannot stop by itself). No solving here.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{mpsc, Arc};
use std::time::{Duration, Instant};

use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};
use serde::de::DeserializeOwned;

use queens_model::error::Error;
use queens_model::formats::{self, sources};
use queens_model::model::Problem;
use queens_ops::compare as cmp;
use queens_ops::{self as ops, Artifacts, Context, Instance, Request, Response};

create_exception!(
    _native,
    NativeError,
    PyException,
    "An error of the operations layer: args are (kind, field, origin, line, message, text)."
);

/// The library's error as a [`NativeError`] whose arguments the Python side turns into its
/// typed exception: `kind`, the field it is about, the file and line, the bare message and
/// the text the CLI prints after `queens: error:`.
fn raise(e: Error) -> PyErr {
    let (kind, origin, line, message) = match &e {
        Error::Io { path, source } => (
            "io",
            Some(path.display().to_string()),
            None,
            source.to_string(),
        ),
        e => e.parts(),
    };
    NativeError::new_err((kind, e.field(), origin, line, message, e.to_string()))
}

/// A request field's error: the field and what is wrong with it.
fn unsupported(field: &str, message: impl Into<String>) -> PyErr {
    raise(Error::unsupported_at_field(field, message.into()))
}

/// An instance: the model every operation takes.
#[pyclass(name = "Problem", module = "queens._native", frozen)]
struct PyProblem {
    problem: Problem,
    id: Option<String>,
}

#[pymethods]
impl PyProblem {
    /// The instance of a JSON object in the instance format (`{"n": 8, "queens": [...]}`);
    /// an error names the field.
    #[staticmethod]
    fn from_json(text: &str) -> PyResult<PyProblem> {
        let value: serde_json::Value = serde_json::from_str(text)
            .map_err(|e| raise(Error::input("Problem", e.to_string())))?;
        let problem = formats::problem_from_json(&value).map_err(|e| {
            raise(match e.field {
                Some(field) => Error::model_at_field(field, e.message),
                None => Error::model(e.message),
            })
        })?;
        let id = value.get("id").and_then(|v| v.as_str()).map(str::to_string);
        Ok(PyProblem { problem, id })
    }

    /// The instance in `text`, in any format the CLI reads from a file (grid, JSON, CSPLib);
    /// errors name `origin` and the line.
    #[staticmethod]
    fn parse(py: Python<'_>, origin: &str, text: &str) -> PyResult<PyProblem> {
        let problem = py.detach(|| formats::parse(origin, text)).map_err(raise)?;
        Ok(PyProblem { problem, id: None })
    }

    /// The one instance of the file at `path` (or the one record `select` picks from a
    /// corpus), as `queens solve FILE --select … --first …` reads it.
    #[staticmethod]
    #[pyo3(signature = (path, select = Vec::new(), first = None))]
    fn load(
        py: Python<'_>,
        path: PathBuf,
        select: Vec<(String, String)>,
        first: Option<usize>,
    ) -> PyResult<PyProblem> {
        let selection = sources::Selection {
            filters: select,
            first,
            take: None,
        };
        let inst = py
            .detach(|| sources::load_one(&path, &selection))
            .map_err(raise)?;
        Ok(PyProblem {
            problem: inst.problem,
            id: Some(inst.id),
        })
    }

    /// Every instance of the files, corpora and folders at `paths`, as `queens compare`
    /// reads them: a list of `(id, Problem)`; the first one that cannot be read is an error.
    #[staticmethod]
    #[pyo3(signature = (paths, select = Vec::new(), first = None, take = None))]
    fn load_all(
        py: Python<'_>,
        paths: Vec<PathBuf>,
        select: Vec<(String, String)>,
        first: Option<usize>,
        take: Option<usize>,
    ) -> PyResult<Vec<PyProblem>> {
        let selection = sources::Selection {
            filters: select,
            first,
            take,
        };
        let all = py
            .detach(|| sources::load(&paths, &selection))
            .map_err(raise)?;
        Ok(all
            .into_iter()
            .map(|i| PyProblem {
                problem: i.problem,
                id: Some(i.id),
            })
            .collect())
    }

    /// Board size.
    #[getter]
    fn n(&self) -> usize {
        self.problem.n()
    }

    /// The name the instance was loaded under (`file`, or its record's `id`).
    #[getter]
    fn id(&self) -> Option<String> {
        self.id.clone()
    }

    /// The fixed queens, `(row, col)` sorted by row.
    #[getter]
    fn queens(&self) -> Vec<(usize, usize)> {
        self.problem.fixed().to_vec()
    }

    /// The blocked cells.
    #[getter]
    fn blocked(&self) -> Vec<(usize, usize)> {
        self.problem.blocked().to_vec()
    }

    /// The diagonal rule: `full` or `touch`.
    #[getter]
    fn diagonals(&self) -> String {
        self.problem.rule().to_string()
    }

    /// The instance in the JSON format (what `Problem.from_json` reads back).
    fn to_json(&self) -> String {
        formats::write_json(&self.problem, self.id.as_deref().unwrap_or("instance"))
    }

    /// One line for people: size, rule, fixed queens, blocked cells, regions.
    fn summary(&self) -> String {
        queens_model::report::summary(&self.problem)
    }
}

/// A request of `op` from its options (a dict with the service's field names, no
/// `instance`), with `problem` as its instance. A wrong option is an error naming its field.
fn request(
    op: &str,
    options: &Bound<'_, PyDict>,
    problem: Option<&PyProblem>,
) -> PyResult<Request> {
    // The dict is the caller's own, made for this call.
    let value = options;
    if problem.is_some() {
        // A stand-in that the real problem replaces below, so that a large board is never
        // converted to Python objects and read back.
        let stand_in = PyDict::new(options.py());
        stand_in.set_item("n", 1)?;
        value.set_item("instance", stand_in)?;
    }
    engine_word(value)?;
    let value = value.as_any();
    fn typed<T: DeserializeOwned>(v: &Bound<'_, PyAny>) -> PyResult<T> {
        let mut de = pythonize::Depythonizer::from_object(v);
        serde_path_to_error::deserialize(&mut de).map_err(|e| {
            let field = e.path().to_string();
            raise(Error::unsupported_at_field(field, e.into_inner()))
        })
    }
    struct Typed<'a, 'py>(&'a Bound<'py, PyAny>);
    impl ops::ReadRequest<PyErr> for Typed<'_, '_> {
        fn read<T: DeserializeOwned>(self) -> PyResult<T> {
            typed(self.0)
        }
    }
    let mut req = Request::read_for_library(op, Typed(value))
        .unwrap_or_else(|| Err(unsupported("op", format!("no operation `{op}`"))))?;
    if let Some(p) = problem {
        let slot = req
            .instance_mut()
            .ok_or_else(|| unsupported("problem", format!("{op} takes no instance")))?;
        *slot = Instance(p.problem.clone());
    }
    Ok(req)
}

/// The command line's engine word in the options (`engine="ext:cadical"`) as the fields the
/// request carries, read as the service reads it ([`ops::engine_word`]).
fn engine_word(options: &Bound<'_, PyDict>) -> PyResult<()> {
    let Some(engine) = options.get_item("engine")? else {
        return Ok(());
    };
    let Ok(word) = engine.extract::<String>() else {
        return Ok(());
    };
    if !word.starts_with("ext:") {
        return Ok(());
    }
    let mut map = serde_json::Map::new();
    map.insert("engine".into(), serde_json::Value::String(word));
    for key in ["solver", "encoding", "rings"] {
        if let Some(v) = options.get_item(key)? {
            // A value of the wrong type is left for the request's own reading to refuse.
            if let Ok(v) = pythonize::depythonize::<serde_json::Value>(&v) {
                map.insert(key.into(), v);
            }
        }
    }
    ops::engine_word::split_engine_word(&mut map).map_err(raise)?;
    for (key, v) in map {
        options.set_item(key, pythonize::pythonize(options.py(), &v)?)?;
    }
    Ok(())
}

/// The deadline `timeout` seconds from now; an error naming `timeout` when it is not a
/// positive number of seconds.
fn deadline(timeout: Option<f64>) -> PyResult<Option<Instant>> {
    let Some(t) = timeout else { return Ok(None) };
    if !(t > 0.0 && t.is_finite()) {
        return Err(unsupported(
            "timeout",
            format!("expected a positive number of seconds, got {t}"),
        ));
    }
    Ok(Instant::now().checked_add(Duration::from_secs_f64(t.min(1e9))))
}

/// The memory limit of SAT work, as the CLI's default: half the smallest of the machine's
/// memory, the cgroup's limit and `ulimit -v`. Read once: reading it costs more than solving
/// a 9×9 puzzle.
fn max_memory() -> u64 {
    static LIMIT: std::sync::OnceLock<u64> = std::sync::OnceLock::new();
    *LIMIT.get_or_init(queens_engine::default_max_memory)
}

/// Progress reported by the engine's thread, read by the calling thread.
#[derive(Default)]
struct Progress {
    done: AtomicU64,
    total: AtomicU64,
    fresh: AtomicBool,
}

/// Largest board whose operations first run on the calling thread for [`QUICK_SLICE`]: the
/// engines look at the deadline often on such boards, so a slice ends on time.
const QUICK_N: usize = 1000;

/// How long an operation runs on the calling thread, where Ctrl-C is not looked at, before
/// it starts again on a thread of its own.
const QUICK_SLICE: Duration = Duration::from_millis(2);

/// How often the calling thread looks for signals and progress while the work runs.
const POLL: Duration = Duration::from_millis(50);

/// Runs `work` on a thread of its own with the GIL released. Every [`POLL`] the calling
/// thread checks for signals (a KeyboardInterrupt sets `cancel` and is raised once the work
/// has stopped) and calls `on_progress(done, total)` with the latest progress.
fn run_detached<T: Send>(
    py: Python<'_>,
    cancel: &AtomicBool,
    progress: &Progress,
    on_progress: Option<&Bound<'_, PyAny>>,
    work: impl FnOnce() -> T + Send,
) -> PyResult<T> {
    std::thread::scope(|s| {
        let (tx, rx) = mpsc::channel();
        s.spawn(move || {
            // The receiver waits for this one message; it is never gone before.
            let _ = tx.send(work());
        });
        // Only this thread receives; the mutex makes the receiver shareable with the
        // GIL-free closure.
        let rx = std::sync::Mutex::new(rx);
        let mut failed: Option<PyErr> = None;
        loop {
            let got = py.detach(|| {
                rx.lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .recv_timeout(POLL)
            });
            match got {
                Ok(out) => {
                    if failed.is_none() {
                        // Work shorter than one poll still reports its last progress, so a
                        // callback sees the end of every run that reports any.
                        failed = report_progress(progress, on_progress).err();
                    }
                    return match failed {
                        Some(e) => Err(e),
                        None => Ok(out),
                    };
                }
                Err(mpsc::RecvTimeoutError::Timeout) => {}
                Err(mpsc::RecvTimeoutError::Disconnected) => {
                    return Err(raise(Error::internal("the operation's thread panicked")))
                }
            }
            if failed.is_some() {
                continue;
            }
            if let Err(e) = report_progress(progress, on_progress) {
                cancel.store(true, Ordering::Relaxed);
                failed = Some(e);
                continue;
            }
            if let Err(e) = py.check_signals() {
                cancel.store(true, Ordering::Relaxed);
                failed = Some(e);
            }
        }
    })
}

/// Calls `on_progress(done, total)` when there is progress it has not seen yet.
fn report_progress(progress: &Progress, on_progress: Option<&Bound<'_, PyAny>>) -> PyResult<()> {
    if let Some(f) = on_progress {
        if progress.fresh.swap(false, Ordering::Relaxed) {
            let done = progress.done.load(Ordering::Relaxed);
            let total = progress.total.load(Ordering::Relaxed);
            f.call1((done, total))?;
        }
    }
    Ok(())
}

/// What `run` hands back: the response (as a dict: its JSON's fields), its files by name,
/// and a solution of one column per row as little-endian `u32`s (a board past the inline
/// limit).
type RunOutput = (Py<PyAny>, Vec<(String, Py<PyBytes>)>, Option<Py<PyBytes>>);

/// Runs operation `op` on `problem` with `options` (a dict, the service's field names; it
/// is used up: `instance` is set in it).
/// `timeout` in seconds; `worker`: the executable that runs work an engine cannot stop by
/// itself (killed at the deadline or on Ctrl-C), in-process when `None`; `proof_file`: where
/// a proof streams; `progress(done, total)` is called on this thread.
#[pyfunction]
#[pyo3(signature = (op, problem, options, timeout = None, worker = None, proof_file = None, progress = None))]
// Each is a keyword argument on the Python side.
#[allow(clippy::too_many_arguments)]
fn run(
    py: Python<'_>,
    op: &str,
    problem: Option<PyRef<'_, PyProblem>>,
    options: &Bound<'_, PyDict>,
    timeout: Option<f64>,
    worker: Option<PathBuf>,
    proof_file: Option<PathBuf>,
    progress: Option<Bound<'_, PyAny>>,
) -> PyResult<RunOutput> {
    let req = request(op, options, problem.as_deref())?;
    drop(problem);
    req.validate().map_err(raise)?;
    let cancel = Arc::new(AtomicBool::new(false));
    let state = Arc::new(Progress::default());
    let mut ctx = Context::default();
    ctx.budget.deadline = deadline(timeout)?;
    ctx.budget.cancel = Some(cancel.clone());
    ctx.budget.max_memory = Some(max_memory());
    ctx.proof_file = proof_file;
    if req.uninterruptible() || req.spawns() {
        ctx.isolate = worker;
    }
    if progress.is_some() {
        let state = state.clone();
        ctx = ctx.with_progress(move |done, total| {
            state.done.store(done, Ordering::Relaxed);
            state.total.store(total, Ordering::Relaxed);
            state.fresh.store(true, Ordering::Relaxed);
        });
    }
    let work = |ctx: &Context| {
        let (resp, artifacts) = req.run(ctx)?;
        Ok::<_, Error>((resp.interrupted(), resp, artifacts))
    };
    let mut ran = None;
    if ctx.isolate.is_none()
        && !(req.uninterruptible() || req.spawns())
        && req.n() <= QUICK_N
        && progress.is_none()
    {
        // Most calls are over in microseconds, less than a thread costs to start: they run
        // here first, with the GIL released, under a deadline of a few milliseconds (or the
        // caller's, when sooner). One that is cut short by that slice runs again below,
        // where signals are looked at.
        let slice = Instant::now() + QUICK_SLICE;
        let caller = ctx.budget.deadline;
        let mut quick = ctx.clone();
        quick.budget.deadline = Some(caller.map_or(slice, |d| d.min(slice)));
        let out = py.detach(|| work(&quick));
        let cut_by_slice = matches!(&out, Ok((true, ..))) && caller.is_none_or(|d| d > slice);
        if !cut_by_slice {
            ran = Some(out);
        }
    }
    let ran = match ran {
        Some(out) => out,
        None => run_detached(py, &cancel, &state, progress.as_ref(), || work(&ctx))?,
    };
    let (_, resp, artifacts) = ran.map_err(raise)?;
    let columns = solution_columns(py, &resp, &artifacts)?.map(Bound::unbind);
    let resp = pythonize::pythonize(py, &resp)
        .map_err(|e| raise(Error::internal_from("an answer does not convert", e)))?
        .unbind();
    let files = artifacts
        .0
        .into_iter()
        .filter(|(name, _)| name != "solution")
        .map(|(name, bytes)| (name, PyBytes::new(py, &bytes).unbind()))
        .collect();
    Ok((resp, files, columns))
}

/// The solution of a board past [`ops::INLINE_MAX_N`] (column-per-row text) as
/// little-endian `u32` bytes, made with the GIL held: the text exactly as
/// [`formats::columns::write`] makes it is decoded in one pass straight into the bytes
/// object, where the reader's general path (comments, blanks, spaces, the line of an error)
/// would cost as much as writing the text did, a fifth of a 10⁶-row solve; anything else
/// goes through the reader.
fn solution_columns<'py>(
    py: Python<'py>,
    resp: &Response,
    artifacts: &Artifacts,
) -> PyResult<Option<Bound<'py, PyBytes>>> {
    let (Response::Solve(r), Some(text)) = (resp, artifacts.get("solution")) else {
        return Ok(None);
    };
    let n = r.n;
    let plain = PyBytes::new_with(py, 4 * n, |buf| {
        if decode_columns(text, buf) {
            Ok(())
        } else {
            // Not the writer's plain text: the reader below says what is wrong.
            Err(pyo3::exceptions::PyValueError::new_err("not plain columns"))
        }
    });
    if let Ok(bytes) = plain {
        return Ok(Some(bytes));
    }
    let cols = formats::columns::read("solution", text).map_err(raise)?;
    if cols.len() != n {
        return Err(raise(Error::internal(format!(
            "the solution has {} rows, not {n}",
            cols.len()
        ))));
    }
    let bytes: Vec<u8> = cols.iter().flat_map(|c| c.to_le_bytes()).collect();
    Ok(Some(PyBytes::new(py, &bytes)))
}

/// Decodes column-per-row text of exactly `out.len() / 4` rows, each line decimal digits
/// ended by `\n`, into `out`; false for anything else.
fn decode_columns(text: &[u8], out: &mut [u8]) -> bool {
    let n = (out.len() / 4) as u64;
    let mut rows = out.chunks_exact_mut(4);
    let mut value: u64 = 0;
    let mut digits = 0;
    for &b in text {
        let d = b.wrapping_sub(b'0');
        if d < 10 && digits < 10 {
            value = value * 10 + u64::from(d);
            digits += 1;
        } else if b == b'\n' && digits > 0 && value < n {
            match rows.next() {
                Some(row) => row.copy_from_slice(&(value as u32).to_le_bytes()),
                None => return false,
            }
            (value, digits) = (0, 0);
        } else {
            return false;
        }
    }
    digits == 0 && rows.next().is_none()
}

/// Checks a board given as one column per row (little-endian `u32`s, row r's queen in
/// column `columns[r]`) against the problem's rules: `check`'s answer as JSON. A board of
/// millions of rows is checked without a Python object per row.
#[pyfunction]
fn check_columns(
    py: Python<'_>,
    problem: PyRef<'_, PyProblem>,
    columns: &[u8],
) -> PyResult<String> {
    if columns.len() % 4 != 0 {
        return Err(unsupported(
            "queens",
            "columns must be 32-bit unsigned integers",
        ));
    }
    let cols: Vec<u32> = columns
        .chunks_exact(4)
        .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect();
    let p = &problem.problem;
    let resp = py.detach(|| ops::check_columns(p, &cols));
    serde_json::to_string(&resp)
        .map_err(|e| raise(Error::internal_from("an answer does not serialize", e)))
}

/// Runs every problem on every engine, each attempt in a child of `worker` killed after
/// `timeout` seconds, as `queens compare` does; returns its JSON (`--json`). Ctrl-C stops the
/// running attempts.
#[pyfunction]
#[pyo3(signature = (problems, engines, timeout, worker, jobs = 1, proof = None, proof_dir = None))]
// Each is a keyword argument on the Python side.
#[allow(clippy::too_many_arguments)]
fn compare(
    py: Python<'_>,
    problems: Vec<PyRef<'_, PyProblem>>,
    engines: Vec<String>,
    timeout: f64,
    worker: PathBuf,
    jobs: usize,
    proof: Option<String>,
    proof_dir: Option<PathBuf>,
) -> PyResult<String> {
    if engines.is_empty() {
        return Err(unsupported("engines", "give at least one engine"));
    }
    let engines = engines
        .iter()
        .enumerate()
        .map(|(i, e)| {
            e.parse::<cmp::EngineSpec>()
                .map_err(|m| unsupported(&format!("engines[{i}]"), m))
        })
        .collect::<PyResult<Vec<_>>>()?;
    if !(timeout > 0.0 && timeout.is_finite()) {
        return Err(unsupported(
            "timeout",
            format!("expected a positive number of seconds, got {timeout}"),
        ));
    }
    if jobs == 0 {
        return Err(unsupported("jobs", "must be at least 1"));
    }
    let proof = proof
        .map(|f| {
            f.parse::<queens_proof::ProofFormat>()
                .map_err(|e| unsupported("proof", e.to_string()))
        })
        .transpose()?;
    let instances: Vec<sources::Entry> = problems
        .iter()
        .enumerate()
        .map(|(i, p)| {
            Ok(sources::Instance {
                id: p.id.clone().unwrap_or_else(|| format!("#{}", i + 1)),
                problem: p.problem.clone(),
            })
        })
        .collect();
    drop(problems);
    // Proofs need a folder: the one asked for, or a temporary one removed at the end.
    let mut temporary = None;
    let proof_dir = match (proof, proof_dir) {
        (Some(_), Some(dir)) => {
            std::fs::create_dir_all(&dir).map_err(|e| {
                raise(Error::Io {
                    path: dir.clone(),
                    source: e,
                })
            })?;
            Some(dir)
        }
        (Some(_), None) => {
            let dir = queens_engine::child::temp_dir("queens-compare-proofs").map_err(raise)?;
            let path = dir.path().to_path_buf();
            temporary = Some(dir);
            Some(path)
        }
        (None, _) => None,
    };
    let plan = cmp::Plan {
        exe: worker,
        engines,
        timeout: Duration::from_secs_f64(timeout.min(1e9)),
        jobs,
        proof,
        proof_dir,
    };
    let stop = Arc::new(AtomicBool::new(false));
    let rows = run_detached(py, &stop, &Progress::default(), None, || {
        cmp::run(&plan, &instances, &|_, _| {}, &|_| {}, &stop)
    })?;
    let summary = cmp::summarize(&plan.engines, &rows);
    let json = cmp::to_json(&plan, &rows, &summary).to_string();
    drop(temporary);
    Ok(json)
}

/// The operations library callers may run but those named in `skip`, described from their
/// declarations (name, summary, the request's fields with their defaults, the answer's
/// fields), as JSON: the package makes a function and a result class of each
/// ([`ops::library`]).
#[pyfunction]
#[pyo3(signature = (skip = Vec::new()))]
fn operations(skip: Vec<String>) -> String {
    let skip: Vec<&str> = skip.iter().map(String::as_str).collect();
    ops::library::describe_except(&skip).to_string()
}

/// The worker's side (`queens-worker op …`): reads one request on stdin, answers on
/// stdout, as `queens op` does. `exe` is the worker itself (for a race's SAT side).
#[pyfunction]
#[pyo3(signature = (exe, artifacts = None, max_memory = None, timeout_ms = None, solvers = Vec::new(), solvers_only = false))]
fn child_main(
    py: Python<'_>,
    exe: PathBuf,
    artifacts: Option<PathBuf>,
    max_memory: Option<u64>,
    timeout_ms: Option<u64>,
    solvers: Vec<String>,
    solvers_only: bool,
) -> PyResult<u8> {
    configure_solvers(solvers, solvers_only)?;
    Ok(py.detach(|| ops::child_main_of(Some(exe), artifacts.as_deref(), max_memory, timeout_ms)))
}

/// Makes these the process's external SAT solvers (`NAME=CMD` or a known `NAME`), as the
/// CLI's `--solver`.
#[pyfunction]
#[pyo3(signature = (solvers, only = false))]
fn configure_solvers(solvers: Vec<String>, only: bool) -> PyResult<()> {
    let table = queens_engine::ext::SolverTable::from_args(&solvers, only).map_err(raise)?;
    queens_engine::ext::configure(table);
    Ok(())
}

/// The arguments a worker must be given to run the external solvers this process may.
#[pyfunction]
fn solver_args() -> Vec<String> {
    queens_engine::ext::table().child_args()
}

#[pymodule]
#[pyo3(name = "_native")]
fn native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("NativeError", m.py().get_type::<NativeError>())?;
    m.add_class::<PyProblem>()?;
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(compare, m)?)?;
    m.add_function(wrap_pyfunction!(check_columns, m)?)?;
    m.add_function(wrap_pyfunction!(operations, m)?)?;
    m.add_function(wrap_pyfunction!(child_main, m)?)?;
    m.add_function(wrap_pyfunction!(configure_solvers, m)?)?;
    m.add_function(wrap_pyfunction!(solver_args, m)?)?;
    m.add("MAX_N", queens_model::model::MAX_N)?;
    m.add("INLINE_MAX_N", ops::INLINE_MAX_N)?;
    Ok(())
}
