//! Feature pins only (see Cargo.toml): no code.
