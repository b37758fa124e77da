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
    /// The instance the CNF was made from; with --cnf alone, the model.
    #[arg(value_name = "INSTANCE")]
    pub(crate) file: PathBuf,
    /// The solver's output (`s SATISFIABLE` + `v … 0` lines, or a bare literal list), or -
    /// for stdin.
    pub(crate) model: Option<PathBuf>,
    /// The at-most-one encoding the CNF was made with (as `encode --encoding`): it fixes
    /// the CNF's variables, and a model of another encoding's CNF is refused. Without it the
    /// encoding is found from the model's variable count.
    #[arg(long)]
    pub(crate) encoding: Option<Encoding>,
    /// The CNF has the ring bounds (`encode --rings`).
    #[arg(long)]
    pub(crate) rings: bool,
    /// The CNF the solver ran on: its header (as `encode` writes it) gives the instance,
    /// the encoding and the variables, so `decode MODEL --cnf CNF` needs nothing else; a
    /// CNF written otherwise gives its `p cnf` count, with the instance given.
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
        let (instance_path, model_path) = match (&self.model, &self.cnf) {
            (Some(model), _) => (Some(&self.file), model),
            (None, Some(_)) => (None, &self.file),
            (None, None) => {
                return Err(Error::unsupported(
                    "decode needs the instance and the model (decode INSTANCE MODEL), or the \
                     model and the CNF encode wrote (decode MODEL --cnf CNF)"
                        .into(),
                ))
            }
        };
        let from_stdin = [
            instance_path.map(|p| p.as_path()),
            Some(model_path.as_path()),
        ]
        .into_iter()
        .chain([self.cnf.as_deref()])
        .filter(|p| *p == Some(stdin))
        .count();
        if from_stdin > 1 {
            return Err(Error::unsupported(
                "only one of INSTANCE, MODEL and --cnf can be - (stdin): give the others as \
                 files"
                    .into(),
            ));
        }
        let (origin, text) = formats::read_text(model_path)?;
        let mut header = None;
        let mut vars = None;
        if let Some(path) = &self.cnf {
            let (cnf_origin, cnf_text) = formats::read_text(path)?;
            vars = Some(formats::dimacs::header_vars(&cnf_origin, &cnf_text)?);
            if let Some((h, json)) = ops::CnfHeader::read(&cnf_origin, &cnf_text)? {
                if Some(h.vars) != vars {
                    return Err(Error::input(
                        &cnf_origin,
                        format!(
                            "its `c queens-cnf` line says {} variables, its `p cnf` line {}: \
                             the file was edited",
                            h.vars,
                            vars.unwrap_or(0)
                        ),
                    ));
                }
                header = Some((h, json, cnf_origin));
            }
        }
        let instance = match (instance_path, &header) {
            (Some(path), _) => load_one(path, &self.selection)?,
            (None, Some((_, json, cnf_origin))) => serde_json::from_str::<ops::Instance>(json)
                .map_err(|e| {
                    Error::input(cnf_origin, format!("its `c queens-instance` line: {e}"))
                })?,
            (None, None) => {
                let cnf = self.cnf.as_deref().unwrap_or(stdin);
                return Err(Error::input(
                    &cnf.display().to_string(),
                    "no `c queens-cnf` header (the CNF was not written by queens encode): \
                     give the instance too, as decode INSTANCE MODEL --cnf CNF",
                ));
            }
        };
        let instance_sha256 = match &header {
            Some((h, _, cnf_origin)) => {
                ops::check_instance(&instance.0, &h.instance_sha256, cnf_origin)?;
                Some(h.instance_sha256.clone())
            }
            None => None,
        };
        Ok(DecodeRequest {
            instance,
            model: text,
            model_origin: Some(origin),
            encoding: header
                .as_ref()
                .map(|(h, _, _)| h.encoding)
                .or(self.encoding),
            rings: header.as_ref().map_or(self.rings, |(h, _, _)| h.rings),
            vars,
            instance_sha256,
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
