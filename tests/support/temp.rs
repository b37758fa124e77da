//! Test folders: fresh ones under the system's temporary folder, removed when dropped, also
//! when the test fails (the drop runs while a panic unwinds).

#![allow(dead_code)]

use std::ffi::OsStr;
use std::ops::Deref;
use std::path::{Path, PathBuf};

/// A fresh folder named `queens-<what>-…`, removed with everything in it when dropped.
pub fn dir(what: &str) -> Dir {
    Dir(tempfile::Builder::new()
        .prefix(&format!("queens-{what}-"))
        .tempdir()
        .unwrap_or_else(|e| panic!("making a temporary folder for {what}: {e}")))
}

/// A test folder; reads as its path (`dir.join("a.json")`, `Command::arg(&dir)`).
pub struct Dir(tempfile::TempDir);

impl Dir {
    /// Leaves the folder in place (to be looked at after a failure) and returns its path.
    pub fn keep(self) -> PathBuf {
        self.0.keep()
    }
}

impl Deref for Dir {
    type Target = Path;

    fn deref(&self) -> &Path {
        self.0.path()
    }
}

impl AsRef<Path> for Dir {
    fn as_ref(&self) -> &Path {
        self.0.path()
    }
}

impl AsRef<OsStr> for Dir {
    fn as_ref(&self) -> &OsStr {
        self.0.path().as_os_str()
    }
}

/// A file `name` holding `contents`, alone in a fresh folder; both removed when dropped.
pub fn file(name: &str, contents: impl AsRef<[u8]>) -> File {
    let dir = dir("file");
    let path = dir.join(name);
    std::fs::write(&path, contents).unwrap_or_else(|e| panic!("writing {}: {e}", path.display()));
    File { path, _dir: dir }
}

/// A test file; reads as its path.
pub struct File {
    path: PathBuf,
    _dir: Dir,
}

impl Deref for File {
    type Target = Path;

    fn deref(&self) -> &Path {
        &self.path
    }
}

impl AsRef<Path> for File {
    fn as_ref(&self) -> &Path {
        &self.path
    }
}

impl AsRef<OsStr> for File {
    fn as_ref(&self) -> &OsStr {
        self.path.as_os_str()
    }
}
