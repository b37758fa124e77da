//! The engine an [`EngineSpec`] names, built behind the [`Engine`] trait.

use crate::auto::Auto;
use crate::engines::{self, Engine};
use crate::spec::EngineSpec;
use queens_model::error::Error;

/// The error for a race asked of an entry point that cannot start its SAT child, or for
/// more than one solution.
pub(crate) fn race_needs_a_caller() -> Error {
    Error::unsupported(
        "engine race answers whether there is a solution (solve, one solution); use \
         backtrack or sat for counting and listing"
            .into(),
    )
}

/// The engine `spec` names. A race of the backtracker and the SAT engine needs a caller that
/// can start a child process (the operations layer), so it is not one here.
pub fn engine_of(spec: EngineSpec) -> Result<Box<dyn Engine>, Error> {
    Ok(match spec {
        EngineSpec::Backtrack { threads } => Box::new(engines::Backtrack {
            threads,
            rings: false,
        }),
        EngineSpec::BacktrackRings { threads } => Box::new(engines::Backtrack {
            threads,
            rings: true,
        }),
        EngineSpec::Sat(encoding) => Box::new(engines::Sat {
            encoding,
            learned: false,
        }),
        EngineSpec::Ext(x) => Box::new(engines::Ext(x)),
        EngineSpec::Local { seed } => Box::new(engines::Local { seed }),
        EngineSpec::Auto { seed } => Box::new(Auto { seed }),
        EngineSpec::Race(_) => return Err(race_needs_a_caller()),
    })
}
