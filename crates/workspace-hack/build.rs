//! Cargo builds a package's build dependencies, and so applies the pins to proc macros and
//! build scripts, only when the package has a build script: this is it.

fn main() {}
