//! What an answer says of the proof that certifies it.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use queens_proof::ProofFormat;

/// The proof that certifies an UNSAT answer.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct ProofInfo {
    /// `drat`, `binary-drat` or `lrat`.
    pub format: ProofFormat,
    /// Lemmas in the proof.
    pub lemmas: u64,
    /// Always true: the built-in checker accepted the proof before the answer was given.
    pub checked: bool,
    /// Milliseconds the built-in check took.
    pub check_ms: f64,
    /// The checker that accepted the proof, when it is not the built-in one (`drat-trim`,
    /// for an external solver's DRAT where drat-trim is installed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub checker: Option<String>,
    /// Size of the proof in bytes.
    pub bytes: usize,
    /// CLI: where the proof was written.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// CLI: where the CNF it refutes was written.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cnf: Option<String>,
    /// Service: where to download the proof (`GET /v1/jobs/{id}/proof`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// Service: where to download the CNF it refutes (`GET /v1/jobs/{id}/cnf`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cnf_url: Option<String>,
}
