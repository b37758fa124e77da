//! `queens decode`: an external solver's model for an instance's encoding, verified.

use std::io::{self, Write};
use std::path::{Path, PathBuf};

use clap::Args;
use queens::encode::amo::Encoding;
use queens::ops::{self, DecodeRequest, DecodeResponse, Status};
use queens::{formats, report, Error, Problem};

use super::question::AnswerArgs;
use crate::args::SelectionArgs;
use crate::input::load_one;
use crate::print::{no_answer, Style, Text};
use crate::runner::{Common, Run};

#[derive(Args)]
pub(crate) struct DecodeArgs {
    /// The instance the CNF was made from.
    pub(crate) file: PathBuf,
    /// The solver's output (`s SATISFIABLE` + `v … 0` lines, or a bare literal list), or -
    /// for stdin.
    pub(crate) model: PathBuf,
    /// The at-most-one encoding the CNF was made with (as `encode --encoding`): it fixes
    /// the CNF's variables, and a model literal beyond them is refused.
    #[arg(long, default_value = "auto")]
    pub(crate) encoding: Encoding,
    /// The CNF has the ring bounds (`encode --rings`).
    #[arg(long)]
    pub(crate) rings: bool,
    /// The CNF the solver ran on: its `p cnf` line gives the variables (instead of
    /// --encoding and --rings).
    #[arg(long, value_name = "CNF", conflicts_with_all = ["encoding", "rings"])]
    pub(crate) cnf: Option<PathBuf>,
    #[command(flatten)]
    pub(crate) selection: SelectionArgs,
    #[command(flatten)]
    pub(crate) answer: AnswerArgs,
}

impl Run for DecodeArgs {
    type Op = ops::Decode;

    fn common(&self) -> Common<'_> {
        self.answer.common()
    }

    fn request(&self) -> Result<DecodeRequest, Error> {
        let stdin = Path::new("-");
        if self.file == stdin && self.model == stdin {
            return Err(Error::unsupported(
                "FILE and MODEL cannot both be - (stdin): give one of them as a file".into(),
            ));
        }
        let instance = load_one(&self.file, &self.selection)?;
        let (origin, text) = formats::read_text(&self.model)?;
        let vars = match &self.cnf {
            Some(path) => {
                let (cnf_origin, cnf_text) = formats::read_text(path)?;
                Some(formats::dimacs::header_vars(&cnf_origin, &cnf_text)?)
            }
            None => None,
        };
        Ok(DecodeRequest {
            instance,
            model: text,
            model_origin: Some(origin),
            encoding: self.encoding,
            rings: self.rings,
            vars,
        })
    }
}

impl Text for ops::Decode {
    fn text(
        out: &mut impl Write,
        q: &DecodeRequest,
        r: &DecodeResponse,
        s: &Style,
    ) -> io::Result<()> {
        decode(out, &q.instance.0, r, s)
    }
}

fn decode(
    out: &mut impl Write,
    problem: &Problem,
    r: &DecodeResponse,
    style: &Style,
) -> io::Result<()> {
    match (r.status, &r.queens) {
        (Status::Sat, Some(q)) => {
            if problem.is_sparse() {
                // A board past MAX_N is never drawn (n² characters).
                return writeln!(
                    out,
                    "solved: the model decodes to a valid board ({} rows; --json lists the \
                     queens)",
                    problem.n()
                );
            }
            write!(out, "{}", report::board(problem, q, style.color))?;
            writeln!(out, "solved: the model decodes to a valid board")
        }
        (Status::Unsat, _) => writeln!(out, "no solution: the solver reports UNSATISFIABLE"),
        (Status::Unknown, _) => writeln!(out, "unknown: the solver gave no answer"),
        (status, _) => writeln!(out, "{}", no_answer(status, style.timeout)),
    }
}
