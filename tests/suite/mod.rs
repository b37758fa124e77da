//! Test modules; `gen` holds the random-instance generators the property tests share.

mod batch;
mod cli;
mod collection;
mod collection_solve;
mod compare;
mod completion;
mod corpora;
mod dimacs;
mod ext;
mod facts;
pub mod gen;
mod large;
mod limits;
mod local;
mod mod2;
mod parse;
mod plan;
mod proofs;
mod properties;
mod puzzle;
mod sat;
mod slurm;
mod store;
mod threshold;
