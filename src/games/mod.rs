//! Games played on the queens board, each with its rules, its search and its questions.

pub mod mod2;
