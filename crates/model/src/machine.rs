//! What this process may use: memory from the machine, the cgroup (a container's or a
//! Slurm job's limit) and `RLIMIT_AS` (`ulimit -v`), whichever is smallest.
//!
//! The memory guards size their refusals from this, so that under a 4 GB pod limit a SAT
//! encoding of 9 GB is refused with an estimate instead of aborting halfway through its
//! allocations. CPUs need nothing here: `std::thread::available_parallelism` already follows
//! the affinity mask and the cgroup's CPU quota (v2 `cpu.max`, v1 `cpu.cfs_quota_us`), and
//! every default thread count in the crate is taken from it.

use std::path::{Path, PathBuf};

/// Where the memory ceiling comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MemorySource {
    /// `MemTotal` of `/proc/meminfo`.
    Machine,
    /// The cgroup's limit (v2 `memory.max`, v1 `memory.limit_in_bytes`), the lowest on the
    /// way from this process's cgroup to the root of the hierarchy.
    Cgroup,
    /// The address-space limit, `RLIMIT_AS` (`ulimit -v`).
    AddressSpace,
}

impl MemorySource {
    /// A few words for messages and `--help`.
    pub fn describe(self) -> &'static str {
        match self {
            MemorySource::Machine => "the machine's memory",
            MemorySource::Cgroup => "the cgroup's memory limit",
            MemorySource::AddressSpace => "the address-space limit (ulimit -v)",
        }
    }
}

/// The most memory this process can have, in bytes, and which limit says so: the smallest
/// of the machine's memory, the cgroup's limit and `RLIMIT_AS`. `None` when none of them
/// can be read (not Linux, no `/proc`, no limits).
pub fn memory_ceiling() -> Option<(u64, MemorySource)> {
    [
        (machine_memory(Path::new("/")), MemorySource::Machine),
        (cgroup_memory_limit(Path::new("/")), MemorySource::Cgroup),
        (address_space_limit(), MemorySource::AddressSpace),
    ]
    .into_iter()
    .filter_map(|(bytes, source)| bytes.map(|b| (b, source)))
    .min_by_key(|&(b, _)| b)
}

/// `MemTotal` under `root` (`/` for this machine), in bytes.
pub fn machine_memory(root: &Path) -> Option<u64> {
    let text = std::fs::read_to_string(root.join("proc/meminfo")).ok()?;
    let kb = text
        .lines()
        .find_map(|l| l.strip_prefix("MemTotal:"))?
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse::<u64>()
        .ok()?;
    kb.checked_mul(1024)
}

/// The soft `RLIMIT_AS`, in bytes; `None` when unlimited.
pub fn address_space_limit() -> Option<u64> {
    #[cfg(unix)]
    {
        rustix::process::getrlimit(rustix::process::Resource::As).current
    }
    #[cfg(not(unix))]
    {
        None
    }
}

/// Values at or above this are v1's way of saying "no limit" (`PAGE_COUNTER_MAX` rounded to
/// pages, 9223372036854771712 on x86-64).
const V1_UNLIMITED: u64 = 1 << 62;

/// The memory limit of this process's cgroup, as seen under `root` (`/` for this process;
/// tests give a folder laid out like it): `proc/self/cgroup` names the cgroup,
/// `proc/self/mountinfo` where its hierarchy is mounted. Every level from the cgroup up to
/// the mount's root is read and the lowest limit wins, since a parent's limit binds its
/// children. v2 (`memory.max`, `max` = none) and v1 (`memory.limit_in_bytes`) are both read;
/// `None` when there is no limit or no cgroup file.
pub fn cgroup_memory_limit(root: &Path) -> Option<u64> {
    let cgroups = std::fs::read_to_string(root.join("proc/self/cgroup")).ok()?;
    let mountinfo = std::fs::read_to_string(root.join("proc/self/mountinfo")).ok()?;
    let mut best: Option<u64> = None;
    for line in cgroups.lines() {
        // hierarchy-id:controllers:path; v2 is `0::path`.
        let mut parts = line.splitn(3, ':');
        let (Some(_), Some(controllers), Some(path)) = (parts.next(), parts.next(), parts.next())
        else {
            continue;
        };
        let (v2, file) = if controllers.is_empty() {
            (true, "memory.max")
        } else if controllers.split(',').any(|c| c == "memory") {
            (false, "memory.limit_in_bytes")
        } else {
            continue;
        };
        let Some((mount_root, mount_point)) = find_mount(&mountinfo, v2) else {
            continue;
        };
        // The cgroup's path is relative to the hierarchy's root; the mount shows the part
        // under `mount_root` (all of it outside a container, the container's own cgroup
        // inside one, where the path may then be `/`).
        let rel = Path::new(path)
            .strip_prefix(&mount_root)
            .ok()
            .or_else(|| Path::new(path).strip_prefix("/").ok())
            .unwrap_or(Path::new(""));
        let top = root.join(mount_point.strip_prefix("/").unwrap_or(&mount_point));
        let mut dir = top.join(rel);
        loop {
            if let Some(limit) = read_limit(&dir.join(file), v2) {
                best = Some(best.map_or(limit, |b| b.min(limit)));
            }
            if dir == top || !dir.pop() || !dir.starts_with(&top) {
                break;
            }
        }
    }
    best
}

/// The root and mount point of the cgroup hierarchy that holds the memory controller: the
/// `cgroup2` mount for v2, the `cgroup` mount with the `memory` option for v1.
fn find_mount(mountinfo: &str, v2: bool) -> Option<(PathBuf, PathBuf)> {
    mountinfo.lines().find_map(|line| {
        // id parent major:minor root mount-point options [optional…] - fstype source super
        let (left, right) = line.split_once(" - ")?;
        let fields: Vec<&str> = left.split_whitespace().collect();
        let mut tail = right.split_whitespace();
        let fstype = tail.next()?;
        let _source = tail.next();
        let options = tail.next().unwrap_or("");
        let wanted = if v2 {
            fstype == "cgroup2"
        } else {
            fstype == "cgroup" && options.split(',').any(|o| o == "memory")
        };
        if !wanted || fields.len() < 5 {
            return None;
        }
        Some((unescape(fields[3]).into(), unescape(fields[4]).into()))
    })
}

/// mountinfo escapes space, tab, newline and backslash as octal (`\040`).
fn unescape(field: &str) -> String {
    let bytes = field.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let octal = bytes
            .get(i + 1..i + 4)
            .filter(|d| d.iter().all(|b| (b'0'..=b'7').contains(b)));
        if let (b'\\', Some(d)) = (bytes[i], octal) {
            let v = d.iter().fold(0u32, |v, b| v * 8 + u32::from(b - b'0'));
            out.push(v as u8);
            i += 4;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn read_limit(file: &Path, v2: bool) -> Option<u64> {
    let text = std::fs::read_to_string(file).ok()?;
    let text = text.trim();
    if v2 && text == "max" {
        return None;
    }
    match text.parse::<u64>().ok()? {
        v if !v2 && v >= V1_UNLIMITED => None,
        v => Some(v),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A folder laid out like `/` with the given files, removed when dropped.
    fn fake_root(files: &[(&str, &str)]) -> tempfile::TempDir {
        let root = tempfile::Builder::new()
            .prefix("queens-limits-")
            .tempdir()
            .unwrap();
        for (path, text) in files {
            let p = root.path().join(path);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, text).unwrap();
        }
        root
    }

    const V1_MOUNTS: &str = "31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755\n\
        32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu\n\
        35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory\n\
        41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw\n";

    #[test]
    fn v1_reads_the_lowest_limit_from_the_cgroup_up() {
        let root = fake_root(&[
            ("proc/self/cgroup", "4:memory:/pods/a\n1:cpu:/\n0::/\n"),
            ("proc/self/mountinfo", V1_MOUNTS),
            (
                "sys/fs/cgroup/memory/memory.limit_in_bytes",
                "9223372036854771712\n",
            ),
            (
                "sys/fs/cgroup/memory/pods/memory.limit_in_bytes",
                "8589934592\n",
            ),
            (
                "sys/fs/cgroup/memory/pods/a/memory.limit_in_bytes",
                "9223372036854771712\n",
            ),
        ]);
        assert_eq!(cgroup_memory_limit(root.path()), Some(8 << 30));
        std::fs::write(
            root.path()
                .join("sys/fs/cgroup/memory/pods/a/memory.limit_in_bytes"),
            "1073741824",
        )
        .unwrap();
        assert_eq!(cgroup_memory_limit(root.path()), Some(1 << 30));
    }

    #[test]
    fn v1_without_a_limit_is_none() {
        let root = fake_root(&[
            ("proc/self/cgroup", "4:memory:/x\n"),
            ("proc/self/mountinfo", V1_MOUNTS),
            (
                "sys/fs/cgroup/memory/x/memory.limit_in_bytes",
                "9223372036854771712",
            ),
        ]);
        assert_eq!(cgroup_memory_limit(root.path()), None);
    }

    #[test]
    fn v2_reads_memory_max_inside_a_container_namespace() {
        // Inside a container the cgroup namespace shows the container's cgroup as `/`, and
        // the cgroup2 mount's root is that cgroup too.
        let root = fake_root(&[
            ("proc/self/cgroup", "0::/\n"),
            (
                "proc/self/mountinfo",
                "1 0 0:1 / / rw - overlay overlay rw\n\
                 30 1 0:26 / /sys/fs/cgroup ro,nosuid - cgroup2 cgroup2 rw,nsdelegate\n",
            ),
            ("sys/fs/cgroup/memory.max", "4294967296\n"),
        ]);
        assert_eq!(cgroup_memory_limit(root.path()), Some(4 << 30));
        std::fs::write(root.path().join("sys/fs/cgroup/memory.max"), "max\n").unwrap();
        assert_eq!(cgroup_memory_limit(root.path()), None);
    }

    #[test]
    fn v2_on_a_host_walks_from_the_service_cgroup_up() {
        let root = fake_root(&[
            ("proc/self/cgroup", "0::/system.slice/queens.service\n"),
            (
                "proc/self/mountinfo",
                "30 1 0:26 / /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n",
            ),
            ("sys/fs/cgroup/system.slice/memory.max", "2147483648"),
            (
                "sys/fs/cgroup/system.slice/queens.service/memory.max",
                "max",
            ),
        ]);
        assert_eq!(cgroup_memory_limit(root.path()), Some(2 << 30));
    }

    #[test]
    fn no_cgroup_files_is_none_and_meminfo_is_read_in_bytes() {
        let root = fake_root(&[(
            "proc/meminfo",
            "MemTotal:       24641284 kB\nMemFree:  1 kB\n",
        )]);
        assert_eq!(cgroup_memory_limit(root.path()), None);
        assert_eq!(machine_memory(root.path()), Some(24_641_284 * 1024));
    }

    #[test]
    fn mountinfo_octal_escapes_are_read() {
        assert_eq!(unescape(r"/a\040b"), "/a b");
        assert_eq!(unescape("/plain"), "/plain");
        assert_eq!(unescape(r"/end\"), r"/end\");
    }
}
