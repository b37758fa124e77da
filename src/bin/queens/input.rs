//! Where a command's instance comes from: a file (or stdin), one record of a corpus, or the
//! empty classic board of `--n`.

use std::path::{Path, PathBuf};

use clap::Args;
use queens::formats::sources;
use queens::ops::Instance;
use queens::{Error, Problem};

use super::args::SelectionArgs;

/// The instance of `solve`, `count` and `encode`: FILE, `-` or `--n N`.
#[derive(Args)]
pub(crate) struct Input {
    /// Instance file (text grid, JSON, CSPLib parameter file, or a JSON-lines corpus narrowed
    /// to one record with --select), or - for stdin.
    #[arg(conflicts_with = "n")]
    pub(crate) file: Option<PathBuf>,
    /// The empty classic N×N board instead of a file.
    #[arg(long, value_name = "N", conflicts_with_all = ["select", "first"])]
    pub(crate) n: Option<usize>,
    #[command(flatten)]
    pub(crate) selection: SelectionArgs,
}

impl Input {
    /// The instance, or a usage error that names the three ways to give one.
    pub(crate) fn load(&self) -> Result<Instance, Error> {
        match (&self.file, self.n) {
            (Some(path), _) => load_one(path, &self.selection),
            (None, Some(n)) => Ok(Instance(Problem::sized(n)?)),
            (None, None) => Err(Error::unsupported(
                "no instance: give an instance FILE, - to read one from stdin, or --n N for \
                 the empty N×N board"
                    .into(),
            )),
        }
    }
}

/// The one instance `path` holds (narrowed by `selection` in a corpus).
pub(crate) fn load_one(path: &Path, selection: &SelectionArgs) -> Result<Instance, Error> {
    Ok(Instance(
        sources::load_one(path, &selection.get(None))?.problem,
    ))
}

/// A file's bytes (or stdin's for `-`) and the name errors use for it.
pub(crate) fn read_bytes(path: &Path) -> Result<(String, Vec<u8>), Error> {
    let io = |e| Error::Io {
        path: path.to_path_buf(),
        source: e,
    };
    if path == Path::new("-") {
        let mut bytes = Vec::new();
        std::io::Read::read_to_end(&mut std::io::stdin(), &mut bytes).map_err(io)?;
        return Ok(("<stdin>".into(), bytes));
    }
    Ok((path.display().to_string(), std::fs::read(path).map_err(io)?))
}
