//! The n-queens completion threshold: the largest `k` such that every non-attacking placement
//! of at most `k` queens on the `n`×`n` board extends to a solution. [`walk`] meets every
//! placement up to the board's symmetries and checks it against witnesses; [`certificate`]
//! checks a certificate of a term (a cover by solutions, and a refuted placement one queen
//! larger) with the verifier and the LRAT checker only.

pub mod certificate;
pub mod walk;
