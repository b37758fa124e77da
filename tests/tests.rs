//! The integration suite: one binary, one module per area (STYLE.md lesson 10).

mod suite;
