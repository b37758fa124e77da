//! `queens encode`: the SAT encoding as DIMACS CNF.

use std::io::{self, Write};
use std::path::PathBuf;

use clap::Args;
use queens::encode::amo::Encoding;
use queens::ops::{self, Artifacts, EncodeRequest, EncodeResponse};
use queens::Error;

use crate::input::Input;
use crate::output::Failure;
use crate::print::{Style, Text};
use crate::runner::{Common, Run};

#[derive(Args)]
pub(crate) struct EncodeArgs {
    #[command(flatten)]
    pub(crate) input: Input,
    /// At-most-one encoding: pairwise, seq, commander, product, bimander, auto.
    #[arg(long, default_value = "auto")]
    pub(crate) encoding: Encoding,
    /// Add the ring bounds (`queens rings`) as redundant cardinality constraints.
    #[arg(long)]
    pub(crate) rings: bool,
    /// Write to this file instead of stdout.
    #[arg(short, long, value_name = "OUT")]
    pub(crate) output: Option<PathBuf>,
}

impl Run for EncodeArgs {
    type Op = ops::Encode;

    fn common(&self) -> Common<'_> {
        Common::default()
    }

    fn request(&self) -> Result<EncodeRequest, Error> {
        Ok(EncodeRequest {
            instance: self.input.load()?,
            encoding: self.encoding,
            rings: self.rings,
        })
    }

    /// `-o`: the CNF goes to the file, its size to stderr.
    fn finish(&self, resp: &mut EncodeResponse, _: &Artifacts) -> Result<Option<u8>, Failure> {
        let Some(path) = &self.output else {
            return Ok(None);
        };
        std::fs::write(path, &resp.dimacs).map_err(|e| Error::Io {
            path: path.clone(),
            source: e,
        })?;
        eprintln!(
            "wrote {}: {} vars, {} clauses",
            path.display(),
            resp.vars,
            resp.clauses
        );
        Ok(Some(0))
    }
}

impl Text for ops::Encode {
    fn text(
        out: &mut impl Write,
        _: &EncodeRequest,
        r: &EncodeResponse,
        _: &Style,
    ) -> io::Result<()> {
        out.write_all(r.dimacs.as_bytes())
    }
}
