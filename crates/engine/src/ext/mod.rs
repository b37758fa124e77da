//! External SAT solvers as engines: the CNF `queens encode` writes, solved by a program such
//! as CaDiCaL, Kissat or MiniSat in a child process under the run's deadline and memory limit.
//!
//! The solver is untrusted, like any outside program's output read as input: its output goes
//! through the decoder `queens decode` uses ([`queens_model::formats::dimacs::parse_model_for`]) and
//! every board through the verifier. A crash, an exit status that is not a SAT solver's (0, 10,
//! 20), output that is not a model, or a model whose board breaks a rule is
//! [`Error::Internal`]; `s UNKNOWN` is "no answer" ([`ExtAnswer::Unknown`]); neither is ever an
//! answer. A solver that runs past the deadline is killed, with everything it started (its
//! process group: a wrapper script's solver too).
//!
//! Which programs may run is a process-wide [`SolverTable`]: on the command line the known
//! solvers on `PATH` plus `--solver NAME=CMD`; in the service only the server's own allowlist
//! (`serve --solver …`), never anything a request names beyond a solver's name.

pub(crate) mod spec;

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::RwLock;
use std::time::Instant;

use serde::{Deserialize, Serialize};
use varisat::{ExtendFormula, Lit};

use crate::checked::checked;
use crate::child::{self, Exit};
use crate::cnf::FixedMode;
use crate::memory::{check_sat_memory, SatMemory};
use crate::sat::{self, Encoded, SatStats};
use crate::work::ms;
use queens_model::error::Error;
use queens_model::formats::dimacs::{self, ModelAnswer};
use queens_model::model::{Pos, Problem};
use queens_model::Budget;

pub use spec::{ExtName, ExtSpec, MAX_NAME};

/// A known solver: name, arguments, arguments with a proof.
type Known = (
    &'static str,
    &'static [&'static str],
    Option<&'static [&'static str]>,
);

/// Solvers whose command lines are known: name, arguments without a proof, arguments with a
/// text DRAT proof (`None`: the Debian build writes none we can check). `{cnf}` is the CNF
/// file, `{proof}` the proof file, `{model}` a file the solver writes its model to (MiniSat;
/// the others print it).
const KNOWN: [Known; 5] = [
    (
        "cadical",
        &["-q", "{cnf}"],
        Some(&["-q", "--no-binary", "{cnf}", "{proof}"]),
    ),
    (
        "kissat",
        &["-q", "{cnf}"],
        Some(&["-q", "--binary=false", "{cnf}", "{proof}"]),
    ),
    ("minisat", &["-verb=0", "{cnf}", "{model}"], None),
    ("cryptominisat5", &["--verb", "0", "{cnf}"], None),
    ("picosat", &["{cnf}"], None),
];

/// The names of the solvers whose flags are known.
pub fn known_names() -> Vec<&'static str> {
    KNOWN.iter().map(|k| k.0).collect()
}

/// A solver's command line: the program and its arguments, with `{cnf}`, `{proof}` and
/// `{model}` placeholders; without `{cnf}` the CNF goes to its stdin.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SolverCommand {
    /// The solver's name.
    pub name: String,
    /// Program, then arguments.
    pub argv: Vec<String>,
    /// The command that also writes a text DRAT proof to `{proof}`, if the solver can.
    pub proof_argv: Option<Vec<String>>,
}

impl SolverCommand {
    /// The known solver `name`'s command, if its flags are known.
    pub fn known(name: &str) -> Option<SolverCommand> {
        let (_, plain, proof) = KNOWN.iter().find(|k| k.0 == name)?;
        let argv = |args: &[&str]| {
            std::iter::once(name.to_string())
                .chain(args.iter().map(|a| a.to_string()))
                .collect()
        };
        Some(SolverCommand {
            name: name.to_string(),
            argv: argv(plain),
            proof_argv: proof.map(argv),
        })
    }

    /// A command given by a user (`NAME=CMD`): words split on whitespace, no shell. With
    /// `{proof}` in it, the solver writes a text DRAT proof there.
    pub fn custom(name: &str, cmd: &str) -> Result<SolverCommand, String> {
        let argv: Vec<String> = cmd.split_whitespace().map(str::to_string).collect();
        if argv.is_empty() {
            return Err(format!("--solver {name}=: the command is empty"));
        }
        let proof = argv.iter().any(|a| a.contains("{proof}"));
        Ok(SolverCommand {
            name: name.to_string(),
            proof_argv: proof.then(|| argv.clone()),
            argv,
        })
    }

    /// The command line as one string (for listings).
    pub fn line(&self) -> String {
        self.argv.join(" ")
    }

    /// Where the program is: a path as given, or the first match on `PATH`.
    pub fn program(&self) -> Option<PathBuf> {
        find_program(&self.argv[0])
    }
}

/// A program name looked up on `PATH` (a name with a `/` is taken as a path).
pub fn find_program(program: &str) -> Option<PathBuf> {
    let executable = |p: &Path| {
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            p.metadata()
                .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        }
        #[cfg(not(unix))]
        p.is_file()
    };
    if program.contains('/') {
        let p = PathBuf::from(program);
        return executable(&p).then_some(p);
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join(program))
        .find(|p| executable(p))
}

/// Which solvers this process may run.
#[derive(Clone, Debug, Default)]
pub struct SolverTable {
    /// Solvers named with `--solver`: a command, or a known name alone.
    pub listed: Vec<SolverCommand>,
    /// Only the listed solvers (the service's allowlist); otherwise known solvers on `PATH`
    /// may run too.
    pub listed_only: bool,
}

static TABLE: RwLock<SolverTable> = RwLock::new(SolverTable {
    listed: Vec::new(),
    listed_only: false,
});

impl SolverTable {
    /// A table from `--solver` values (`NAME=CMD`, or a known `NAME` alone).
    pub fn from_args(args: &[String], listed_only: bool) -> Result<SolverTable, Error> {
        let mut listed: Vec<SolverCommand> = Vec::new();
        for arg in args {
            let (name, cmd) = match arg.split_once('=') {
                Some((n, c)) => (n.trim(), Some(c)),
                None => (arg.trim(), None),
            };
            ExtName::new(name).map_err(|e| Error::unsupported(format!("--solver: {e}")))?;
            let command = match cmd {
                Some(c) => SolverCommand::custom(name, c).map_err(Error::unsupported)?,
                None => SolverCommand::known(name).ok_or_else(|| {
                    Error::unsupported(format!(
                        "--solver {name}: no known command line for `{name}`; give one as \
                         --solver {name}=CMD (known: {})",
                        known_names().join(", ")
                    ))
                })?,
            };
            if listed.iter().any(|c| c.name == name) {
                return Err(Error::unsupported(format!(
                    "--solver {name} is given twice"
                )));
            }
            listed.push(command);
        }
        Ok(SolverTable {
            listed,
            listed_only,
        })
    }

    /// The command for `name`, checked to be installed.
    pub fn resolve(&self, name: ExtName) -> Result<SolverCommand, Error> {
        let name = name.as_str();
        let command = match self.listed.iter().find(|c| c.name == name) {
            Some(c) => c.clone(),
            None if self.listed_only => {
                let names: Vec<&str> = self.listed.iter().map(|c| c.name.as_str()).collect();
                return Err(Error::unsupported(format!(
                    "solver `{name}` is not on this server's list of solvers ({}); see GET \
                     /v1/engines",
                    if names.is_empty() {
                        "none".to_string()
                    } else {
                        names.join(", ")
                    }
                )));
            }
            None => SolverCommand::known(name).ok_or_else(|| {
                Error::unsupported(format!(
                    "unknown solver `{name}`: give its command with --solver {name}=CMD \
                     ({{cnf}}, {{proof}} and {{model}} are replaced by file paths), or use \
                     one of the known solvers: {}",
                    known_names().join(", ")
                ))
            })?,
        };
        if command.program().is_none() {
            return Err(Error::unsupported(format!(
                "solver `{name}` is not installed: `{}` is not {} (install it, e.g. \
                 `apt-get install {name}`, or give its command with --solver {name}=CMD)",
                command.argv[0],
                if command.argv[0].contains('/') {
                    "an executable file"
                } else {
                    "on PATH"
                }
            )));
        }
        Ok(command)
    }

    /// Every solver this table offers: the listed ones, and (unless listed only) the known
    /// solvers, each with whether it is installed.
    pub fn offered(&self) -> Vec<SolverInfo> {
        let mut out: Vec<SolverInfo> = self.listed.iter().map(SolverInfo::of).collect();
        if !self.listed_only {
            for name in known_names() {
                if !out.iter().any(|s| s.name == name) {
                    if let Some(c) = SolverCommand::known(name) {
                        out.push(SolverInfo::of(&c));
                    }
                }
            }
        }
        out
    }

    /// The arguments that give a child `queens` process this table.
    pub fn child_args(&self) -> Vec<String> {
        let mut args = Vec::new();
        for c in &self.listed {
            args.push("--solver".to_string());
            match SolverCommand::known(&c.name) {
                Some(k) if k == *c => args.push(c.name.clone()),
                _ => args.push(format!("{}={}", c.name, c.line())),
            }
        }
        if self.listed_only {
            args.push("--solvers-only".to_string());
        }
        args
    }
}

/// One solver as `/v1/engines` lists it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct SolverInfo {
    /// The name to use in `ext:NAME` (`"engine": "ext", "solver": NAME` in a request).
    pub name: String,
    /// Its command line, with placeholders.
    pub command: String,
    /// True when its program was found.
    pub installed: bool,
    /// True when it can prove UNSAT (writes DRAT).
    pub proofs: bool,
}

impl SolverInfo {
    fn of(c: &SolverCommand) -> SolverInfo {
        SolverInfo {
            name: c.name.clone(),
            command: c.line(),
            installed: c.program().is_some(),
            proofs: c.proof_argv.is_some(),
        }
    }
}

/// Makes `table` this process's solver table (the CLI's `--solver` flags, the service's
/// allowlist).
pub fn configure(table: SolverTable) {
    *TABLE.write().unwrap_or_else(|e| e.into_inner()) = table;
}

/// This process's solver table.
pub fn table() -> SolverTable {
    TABLE.read().unwrap_or_else(|e| e.into_inner()).clone()
}

/// What an external solver said, read and checked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ExtAnswer {
    /// A model whose board passed the verifier.
    Sat(Vec<Pos>),
    /// The solver says UNSATISFIABLE.
    Unsat,
    /// The solver gave up (`s UNKNOWN`, minisat's `INDET`).
    Unknown,
    /// The deadline passed or the run was cancelled; the solver was killed.
    Interrupted,
}

/// One external run: the answer, the formula's size and times, and the proof when one was
/// asked for and the answer is UNSAT.
#[derive(Clone, Debug)]
pub struct ExtRun {
    /// The answer.
    pub answer: ExtAnswer,
    /// Formula size, encode time (`encode_ms`, writing the file included) and solver time.
    pub stats: SatStats,
    /// With a proof asked for and UNSAT: the solver's text DRAT.
    pub proof: Option<Vec<u8>>,
}

/// The CNF an external engine gets: `queens encode`'s, plus the ring constraints if asked.
pub fn formula(problem: &Problem, spec: ExtSpec) -> Result<Encoded, Error> {
    let mut cnf = sat::encode_problem(problem, spec.encoding, FixedMode::Simplify);
    if spec.rings {
        add_rings(problem, &mut cnf)?;
    }
    Ok(cnf)
}

/// Adds the ring constraints ([`crate::cnf::rings`]) to an encoded problem.
pub fn add_rings(problem: &Problem, cnf: &mut Encoded) -> Result<(), Error> {
    crate::cnf::rings::check_applies(problem)?;
    crate::cnf::rings::add_rings(problem, &cnf.map, &mut cnf.formula);
    cnf.stats.vars = cnf.formula.var_count();
    cnf.stats.clauses = cnf.formula.len();
    Ok(())
}

/// Solves with the external solver: one answer, every board verified.
pub fn run_solver(problem: &Problem, spec: ExtSpec, budget: &Budget) -> Result<ExtRun, Error> {
    let command = table().resolve(spec.solver)?;
    check_sat_memory(problem, spec.encoding, SatMemory::WithFormula, budget)?;
    let start = Instant::now();
    let cnf = formula(problem, spec)?;
    run_on(problem, &command, &cnf, start, budget, false)
}

/// [`run_solver`] for a proof: the CNF is `cnf` (built by the caller, who checks the proof
/// against it), and the solver writes text DRAT. Refused for a solver that cannot.
pub fn solve_proving(
    problem: &Problem,
    spec: ExtSpec,
    cnf: &Encoded,
    budget: &Budget,
) -> Result<ExtRun, Error> {
    let command = table().resolve(spec.solver)?;
    if command.proof_argv.is_none() {
        return Err(Error::unsupported(format!(
            "solver `{}` writes no DRAT proof this program can check: prove with cadical or \
             kissat, or give a command with {{proof}} (--solver NAME=CMD)",
            spec.solver
        )));
    }
    run_on(problem, &command, cnf, Instant::now(), budget, true)
}

/// Lists up to `cap` solutions by re-running the solver with a blocking clause per
/// solution found (each a fresh run: the solvers are not incremental through a file).
/// `visit` returns false to stop. Returns the stats and whether the budget or an
/// `s UNKNOWN` ended the listing.
pub fn enumerate(
    problem: &Problem,
    spec: ExtSpec,
    cap: Option<u64>,
    budget: &Budget,
    visit: &mut dyn FnMut(&[Pos]) -> bool,
) -> Result<(SatStats, bool), Error> {
    let command = table().resolve(spec.solver)?;
    check_sat_memory(problem, spec.encoding, SatMemory::WithFormula, budget)?;
    let start = Instant::now();
    let mut cnf = formula(problem, spec)?;
    let mut stats = cnf.stats;
    let mut found = 0u64;
    loop {
        if cap.is_some_and(|k| found >= k) {
            return Ok((stats, false));
        }
        let run = run_on(problem, &command, &cnf, start, budget, false)?;
        stats.solver_calls += 1;
        stats.solve_ms = ((stats.solve_ms + run.stats.solve_ms) * 1e3).round() / 1e3;
        let queens = match run.answer {
            ExtAnswer::Sat(q) => q,
            ExtAnswer::Unsat => return Ok((stats, false)),
            ExtAnswer::Unknown | ExtAnswer::Interrupted => return Ok((stats, true)),
        };
        found += 1;
        if !visit(&queens) {
            return Ok((stats, false));
        }
        let block: Vec<Lit> = cnf.map.blocking_clause(&queens);
        if block.is_empty() {
            return Ok((stats, false));
        }
        cnf.formula.add_clause(&block);
    }
}

/// Writes `cnf`, runs the solver on it under the budget, reads and checks its answer.
fn run_on(
    problem: &Problem,
    command: &SolverCommand,
    cnf: &Encoded,
    start: Instant,
    budget: &Budget,
    proving: bool,
) -> Result<ExtRun, Error> {
    let name = &command.name;
    let mut stats = SatStats {
        vars: cnf.formula.var_count(),
        clauses: cnf.formula.len(),
        ..cnf.stats
    };
    if budget.exhausted() {
        return Ok(ExtRun {
            answer: ExtAnswer::Interrupted,
            stats,
            proof: None,
        });
    }
    let dir = child::temp_dir("queens-ext")?;
    let cnf_path = dir.path().join("formula.cnf");
    let proof_path = dir.path().join("proof.drat");
    let model_path = dir.path().join("model.txt");
    let mut text = Vec::new();
    let header = vec![
        format!("queens CNF: {}", queens_model::report::summary(problem)),
        format!("for solver {name}"),
    ];
    cnf.write_dimacs(&mut text, &header)
        .map_err(|e| Error::internal_from("writing the CNF", e))?;
    std::fs::write(&cnf_path, &text).map_err(|e| Error::Io {
        path: cnf_path.clone(),
        source: e,
    })?;
    let argv = match (&command.proof_argv, proving) {
        (Some(p), true) => p,
        _ => &command.argv,
    };
    let fill = |a: &str| {
        a.replace("{cnf}", &cnf_path.to_string_lossy())
            .replace("{proof}", &proof_path.to_string_lossy())
            .replace("{model}", &model_path.to_string_lossy())
    };
    let program = command.program().ok_or_else(|| {
        Error::unsupported(format!(
            "solver `{name}` is not installed: `{}` not found",
            command.argv[0]
        ))
    })?;
    let mut cmd = Command::new(program);
    cmd.args(argv[1..].iter().map(|a| fill(a)));
    let on_stdin = !argv.iter().any(|a| a.contains("{cnf}"));
    let input: &[u8] = if on_stdin { &text } else { &[] };
    stats.encode_ms = ms(start);
    let solve_start = Instant::now();
    let exit = child::run_limited(
        cmd,
        input,
        budget.deadline,
        &|| budget.cancelled(),
        &|_| {},
        budget.max_memory,
    )
    .map_err(|e| Error::internal_from(format!("solver `{name}`"), e))?;
    stats.solve_ms = ms(solve_start);
    stats.solver_calls = 1;
    let interrupted = ExtRun {
        answer: ExtAnswer::Interrupted,
        stats,
        proof: None,
    };
    let (status, stdout, stderr) = match exit {
        Exit::TimedOut | Exit::Stopped => return Ok(interrupted),
        Exit::Finished {
            status,
            stdout,
            stderr,
        } => (status, stdout, stderr),
    };
    let code = status.code();
    if !matches!(code, Some(0 | 10 | 20)) {
        let how = match code {
            Some(c) => format!("exited with status {c}"),
            None => format!(
                "was killed ({status}: a crash, or over the memory limit{})",
                budget
                    .max_memory
                    .map_or(String::new(), |b| format!(" of {} MB", b >> 20))
            ),
        };
        return Err(Error::internal(format!(
            "solver `{name}` {how}: {}",
            child::last_message(&stderr)
        )));
    }
    let model_text = if argv.iter().any(|a| a.contains("{model}")) {
        std::fs::read_to_string(&model_path).map_err(|e| {
            Error::internal(format!(
                "solver `{name}` wrote no model file ({e}): {}",
                child::last_message(&stderr)
            ))
        })?
    } else {
        stdout
    };
    let origin = format!("solver `{name}`'s output");
    let read = dimacs::parse_model_for(&origin, &model_text, stats.vars)
        .map_err(|e| Error::internal(format!("{e} (the solver's output is not a model)")))?;
    let disagree = |said: &str| {
        Error::internal(format!(
            "solver `{name}` exited with status {} but its output says {said}",
            code.unwrap_or(0)
        ))
    };
    let answer = match read {
        ModelAnswer::Sat(_) if code == Some(20) => return Err(disagree("SATISFIABLE")),
        ModelAnswer::Unsat if code == Some(10) => return Err(disagree("UNSATISFIABLE")),
        ModelAnswer::Sat(true_vars) => {
            let set: HashSet<usize> = true_vars.into_iter().collect();
            let queens = cnf.map.decode(|l| set.contains(&(l.index() + 1)));
            checked(problem, &queens, &format!("ext:{name}"))?;
            ExtAnswer::Sat(queens)
        }
        ModelAnswer::Unsat => ExtAnswer::Unsat,
        ModelAnswer::Unknown => ExtAnswer::Unknown,
    };
    let proof = if proving && answer == ExtAnswer::Unsat {
        Some(std::fs::read(&proof_path).map_err(|e| {
            Error::internal(format!(
                "solver `{name}` says UNSATISFIABLE but wrote no proof ({e})"
            ))
        })?)
    } else {
        None
    };
    Ok(ExtRun {
        answer,
        stats,
        proof,
    })
}

/// Checks a text DRAT proof of `cnf` with drat-trim, if it is installed: `None` when it is
/// not, `Some(Err(why))` when it rejects the proof or fails.
pub fn check_with_drat_trim(
    cnf: &Encoded,
    proof: &[u8],
    budget: &Budget,
) -> Option<Result<(), String>> {
    let program = find_program("drat-trim")?;
    let run = || -> Result<(), String> {
        let dir = child::temp_dir("queens-drat").map_err(|e| e.to_string())?;
        let cnf_path = dir.path().join("formula.cnf");
        let proof_path = dir.path().join("proof.drat");
        let mut text = Vec::new();
        cnf.write_dimacs(&mut text, &[])
            .map_err(|e| format!("writing the CNF: {e}"))?;
        std::fs::write(&cnf_path, text).map_err(|e| e.to_string())?;
        std::fs::write(&proof_path, proof).map_err(|e| e.to_string())?;
        let mut cmd = Command::new(program);
        cmd.arg(&cnf_path).arg(&proof_path);
        let exit = child::run_limited(
            cmd,
            &[],
            budget.deadline,
            &|| budget.cancelled(),
            &|_| {},
            budget.max_memory,
        )
        .map_err(|e| e.to_string())?;
        match exit {
            Exit::Finished { stdout, .. } if stdout.lines().any(|l| l.trim() == "s VERIFIED") => {
                Ok(())
            }
            Exit::Finished { stdout, .. } => Err(format!(
                "drat-trim does not accept the proof: {}",
                child::last_message(&stdout)
            )),
            _ => Err("drat-trim did not finish within the time limit".into()),
        }
    };
    Some(run())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_specs_round_trip() {
        for s in [
            "ext:cadical",
            "ext:minisat:seq",
            "ext:kissat+rings",
            "ext:a-b_1:product+rings",
        ] {
            let spec = ExtSpec::parse(s.strip_prefix("ext:").unwrap()).unwrap();
            assert_eq!(spec.to_string(), s);
        }
        assert!(ExtName::new("").is_err());
        assert!(ExtName::new("1abc").is_err());
        assert!(ExtName::new("a b").is_err());
        assert!(ExtName::new("a/b").is_err());
        assert!(ExtName::new(&"a".repeat(MAX_NAME + 1)).is_err());
        assert!(ExtSpec::parse("cadical:nosuch").is_err());
    }

    #[test]
    fn an_allowlist_names_only_its_own_solvers() {
        let t = SolverTable::from_args(&["mine=/bin/true {cnf}".into()], true).unwrap();
        let e = t.resolve(ExtName::new("cadical").unwrap()).unwrap_err();
        assert!(e.to_string().contains("not on this server's list"), "{e}");
        assert!(t.resolve(ExtName::new("mine").unwrap()).is_ok());
        assert_eq!(
            t.child_args(),
            ["--solver", "mine=/bin/true {cnf}", "--solvers-only"]
        );
        let t = SolverTable::from_args(&[], false).unwrap();
        let e = t
            .resolve(ExtName::new("nosuchsolver").unwrap())
            .unwrap_err();
        assert!(
            e.to_string().contains("unknown solver `nosuchsolver`"),
            "{e}"
        );
        assert!(SolverTable::from_args(&["nosuch".into()], false).is_err());
        assert!(SolverTable::from_args(&["x=".into()], false).is_err());
    }
}
