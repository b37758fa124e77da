//! The arguments of the commands that ask about one instance: FILE and which record of it
//! ([`InstanceArgs`]), and the limits and output of the answer ([`AnswerArgs`]). Two pieces,
//! each flattened where the command lists it, so every command's `--help` keeps its order.

use std::path::PathBuf;

use clap::Args;
use queens::ops::Instance;
use queens::Error;

use crate::args::{SelectionArgs, Timeout};
use crate::input::load_one;
use crate::runner::Common;

/// FILE (or `-`) and, in a corpus, the record to use.
#[derive(Args)]
pub(crate) struct InstanceArgs {
    /// Instance file (text grid or JSON), or - for stdin.
    pub(crate) file: PathBuf,
    #[command(flatten)]
    pub(crate) selection: SelectionArgs,
}

impl InstanceArgs {
    /// The instance FILE holds (narrowed by the selection in a corpus).
    pub(crate) fn load(&self) -> Result<Instance, Error> {
        load_one(&self.file, &self.selection)
    }
}

/// `--timeout`, `--max-memory` and `--json`.
#[derive(Args)]
pub(crate) struct AnswerArgs {
    #[command(flatten)]
    pub(crate) timeout: Timeout,
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub(crate) json: bool,
}

impl AnswerArgs {
    /// The limits and output these arguments ask for (no solvers, no proof).
    pub(crate) fn common(&self) -> Common<'static> {
        common(self.timeout, self.json)
    }
}

/// The limits and output of a question that runs no external solver and writes no proof.
pub(crate) fn common(timeout: Timeout, json: bool) -> Common<'static> {
    Common {
        timeout,
        json,
        ..Common::default()
    }
}
