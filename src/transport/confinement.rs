//! Landlock filesystem confinement of a spawned child (issue 13 §1).
//!
//! runbound's own file access is confined beneath the workspace root by handles (openat2
//! `RESOLVE_BENEATH`), but a language server or a project checker reads files BY PATH itself:
//! a symlink planted in the checkout (`docs -> /etc`) or swapped in by a concurrent process
//! (`renameat2(RENAME_EXCHANGE)` of a workspace directory with a symlink leading out) makes it
//! read, and quote, a file outside. A [`FilesystemConfinement`] on a
//! [`crate::transport::ProcessSpec`] makes the kernel refuse (EACCES) every path that resolves
//! outside the allowed hierarchies, whatever symlinks it went through, for the child and every
//! process it starts (Landlock domains are inherited and cannot be left).
//!
//! How: the ruleset is built in the parent, before the fork, with the `landlock` crate (every
//! filesystem access right of Landlock ABI 5 handled; read roots get read-file, read-dir and
//! execute, write roots every right). Between fork and exec the child makes only two raw,
//! async-signal-safe system calls: `prctl(PR_SET_NO_NEW_PRIVS)` and
//! `landlock_restrict_self(ruleset fd)`. The ruleset descriptor is closed when the spawn is done.
//!
//! Best effort, said: where the kernel has no Landlock (older than 5.13, or not enabled at boot)
//! or the child cannot be restricted (a seccomp filter refusing the calls, the program itself
//! outside the allowed roots), the child is started without confinement and
//! [`ConfinementOutcome::NotConfined`] says why. On a kernel with an older Landlock ABI the
//! rights that ABI lacks are left unrestricted (ABI 1 cannot allow renames across directories,
//! ABI < 3 cannot restrict truncation, ABI < 5 device ioctls); [`ConfinementOutcome::Confined`]
//! carries the ABI.
//!
//! With [`FilesystemConfinement::private_temp_dir`], the child gets its own temporary directory
//! (created under the system temp dir with the `tempfile` crate, writable beneath the ruleset,
//! passed as `TMPDIR`, `TMP` and `TEMP`), removed when the [`crate::transport::ChildProcess`] is
//! dropped, after its process group is killed: `/tmp` itself stays out of reach.

use std::os::fd::{AsRawFd, OwnedFd};
use std::path::{Path, PathBuf};

use landlock::{path_beneath_rules, Access, AccessFs, Ruleset, RulesetAttr, RulesetCreatedAttr, ABI};

/// Which hierarchies a child may touch. Paths that do not exist when the child is spawned are
/// skipped (and listed in [`ConfinementOutcome::Confined::missing_roots`]). A path is opened
/// (following symlinks) when the ruleset is built: the rule covers what it resolves to then.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FilesystemConfinement {
    /// Beneath these (absolute) directories or files the child may read files, list
    /// directories and execute programs.
    pub read_roots: Vec<PathBuf>,
    /// Beneath these it may also create, write, truncate, rename and delete (and everything a
    /// read root allows).
    pub write_roots: Vec<PathBuf>,
    /// Give the child a private temporary directory (writable; `TMPDIR`, `TMP`, `TEMP` point at
    /// it), removed when the child's handle is dropped.
    pub private_temp_dir: bool,
}

impl FilesystemConfinement {
    /// Adds a read root (ignored when already listed as a read or write root, or relative).
    pub fn allow_read(&mut self, path: impl Into<PathBuf>) {
        let path = path.into();
        if path.is_absolute() && !self.read_roots.contains(&path) && !self.write_roots.contains(&path) {
            self.read_roots.push(path);
        }
    }

    /// Adds a write root (ignored when relative or already a write root; a read root of the
    /// same path is upgraded).
    pub fn allow_write(&mut self, path: impl Into<PathBuf>) {
        let path = path.into();
        if path.is_absolute() && !self.write_roots.contains(&path) {
            self.read_roots.retain(|root| root != &path);
            self.write_roots.push(path);
        }
    }
}

/// Whether a child runs under its [`FilesystemConfinement`], and beneath what.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum ConfinementOutcome {
    /// The kernel refuses the child every file access outside these hierarchies.
    Confined {
        /// The kernel's Landlock ABI version (1 = Linux 5.13; this machine's rights: see the
        /// module documentation of `transport::confinement`).
        abi: u32,
        /// Read (and execute) roots in force.
        read_roots: Vec<PathBuf>,
        /// Read-write roots in force (the private temp dir included).
        write_roots: Vec<PathBuf>,
        /// Requested roots that did not exist at spawn (no rule: they stay out of reach).
        missing_roots: Vec<PathBuf>,
        /// The child's private temporary directory, when one was asked for.
        temp_dir: Option<PathBuf>,
    },
    /// The child runs without filesystem confinement; why, as a sentence.
    NotConfined {
        /// What failed, e.g. `the kernel has no Landlock (landlock_create_ruleset: ENOSYS)`.
        reason: String,
    },
}

impl ConfinementOutcome {
    /// True for [`ConfinementOutcome::Confined`].
    pub fn is_confined(&self) -> bool {
        matches!(self, ConfinementOutcome::Confined { .. })
    }

    /// One line: `file access confined (Landlock ABI 7): read beneath …; read-write beneath …`
    /// or `server file reads not confined: <reason>`.
    pub fn describe(&self) -> String {
        match self {
            ConfinementOutcome::Confined { abi, read_roots, write_roots, missing_roots, .. } => {
                let list = |roots: &[PathBuf]| roots.iter().map(|root| root.display().to_string()).collect::<Vec<_>>().join(", ");
                let mut text = format!(
                    "file access confined (Landlock ABI {abi}): read beneath {}; read-write beneath {}",
                    list(read_roots),
                    list(write_roots)
                );
                if !missing_roots.is_empty() {
                    text.push_str(&format!("; absent at start (no access): {}", list(missing_roots)));
                }
                text
            }
            ConfinementOutcome::NotConfined { reason } => format!("server file reads not confined: {reason}"),
        }
    }
}

/// The Landlock ABI version the kernel supports (`landlock_create_ruleset(NULL, 0,
/// LANDLOCK_CREATE_RULESET_VERSION)`), or why there is none.
pub fn landlock_abi_version() -> Result<u32, String> {
    // LANDLOCK_CREATE_RULESET_VERSION = 1 << 0.
    // SAFETY: a null attribute with size 0 and the VERSION flag only queries the ABI.
    let version = unsafe { libc::syscall(libc::SYS_landlock_create_ruleset, std::ptr::null::<u8>(), 0usize, 1u32) };
    if version < 1 {
        let err = std::io::Error::last_os_error();
        let name = match err.raw_os_error() {
            Some(libc::ENOSYS) => "ENOSYS: the kernel is older than 5.13 or built without Landlock",
            Some(libc::EOPNOTSUPP) => "EOPNOTSUPP: Landlock is built in but not enabled at boot (lsm=…,landlock)",
            _ => "",
        };
        return Err(if name.is_empty() {
            format!("the kernel refused landlock_create_ruleset: {err}")
        } else {
            format!("the kernel has no usable Landlock ({name})")
        });
    }
    Ok(version as u32)
}

/// A ruleset built in the parent, ready for [`install_before_exec`].
#[derive(Debug)]
pub(crate) struct PreparedConfinement {
    pub(crate) ruleset: OwnedFd,
    pub(crate) outcome: ConfinementOutcome,
}

/// Builds the Landlock ruleset for `confinement` (plus `temp_dir` as a write root).
///
/// Errors: why the child cannot be confined, as a sentence (no Landlock, a ruleset call
/// refused).
pub(crate) fn prepare(confinement: &FilesystemConfinement, temp_dir: Option<&Path>) -> Result<PreparedConfinement, String> {
    let abi = landlock_abi_version()?;
    // ABI 5: every filesystem right there is (ABI 6 and 7 add none); the crate drops, best
    // effort, what an older kernel lacks.
    let all = AccessFs::from_all(ABI::V5);
    let read = AccessFs::from_read(ABI::V5);
    let mut missing = Vec::new();
    let mut existing = |roots: &[PathBuf]| -> Vec<PathBuf> {
        roots
            .iter()
            .filter(|root| {
                let exists = root.exists();
                if !exists {
                    missing.push((*root).clone());
                }
                exists
            })
            .cloned()
            .collect()
    };
    let read_roots = existing(&confinement.read_roots);
    let mut write_roots = existing(&confinement.write_roots);
    if let Some(temp_dir) = temp_dir {
        write_roots.push(temp_dir.to_path_buf());
    }
    let created = Ruleset::default()
        .handle_access(all)
        .and_then(|ruleset| ruleset.create())
        .and_then(|ruleset| ruleset.add_rules(path_beneath_rules(&read_roots, read)))
        .and_then(|ruleset| ruleset.add_rules(path_beneath_rules(&write_roots, all)))
        .map_err(|err| format!("the Landlock ruleset could not be built: {err}"))?;
    let Some(ruleset): Option<OwnedFd> = created.into() else {
        return Err(format!("the Landlock ruleset could not be created (kernel ABI {abi})"));
    };
    Ok(PreparedConfinement {
        ruleset,
        outcome: ConfinementOutcome::Confined {
            abi,
            read_roots,
            write_roots,
            missing_roots: missing,
            temp_dir: temp_dir.map(Path::to_path_buf),
        },
    })
}

/// Restricts the child to `ruleset` between fork and exec: `prctl(PR_SET_NO_NEW_PRIVS)` and
/// `landlock_restrict_self`, both raw, async-signal-safe system calls. The closure owns the
/// descriptor, which is closed with the `Command`.
pub(crate) fn install_before_exec(command: &mut std::process::Command, ruleset: OwnedFd) {
    use std::os::unix::process::CommandExt;
    // SAFETY: only async-signal-safe calls (prctl, syscall) between fork and exec; the closure
    // reads a descriptor number captured before the fork.
    unsafe {
        command.pre_exec(move || {
            if libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1 as libc::c_ulong, 0, 0, 0) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            if libc::syscall(libc::SYS_landlock_restrict_self, ruleset.as_raw_fd(), 0u32) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transport::{run_to_completion, ChildProcess, ProcessSpec};
    use std::time::Duration;

    /// The kernel's Landlock, or a loud skip (a failure under CI).
    fn landlock(test: &str) -> bool {
        match landlock_abi_version() {
            Ok(_) => true,
            Err(reason) => {
                crate::test_support::skip_or_fail(test, &format!("no Landlock: {reason}"));
                false
            }
        }
    }

    fn system_only() -> FilesystemConfinement {
        let mut confinement = FilesystemConfinement { private_temp_dir: true, ..FilesystemConfinement::default() };
        for root in ["/usr", "/lib", "/lib64", "/bin", "/etc", "/proc"] {
            confinement.allow_read(root);
        }
        confinement.allow_write("/dev");
        confinement
    }

    #[test]
    fn a_confined_child_cannot_read_outside_its_roots_even_through_a_symlink_inside_them() {
        if !landlock("a_confined_child_cannot_read_outside_its_roots_even_through_a_symlink_inside_them") {
            return;
        }
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("secret.txt"), "OUTSIDE_SECRET\n").unwrap();
        let workspace = tempfile::tempdir().unwrap();
        std::fs::write(workspace.path().join("inside.txt"), "INSIDE\n").unwrap();
        std::os::unix::fs::symlink(outside.path().join("secret.txt"), workspace.path().join("link.txt")).unwrap();
        let mut confinement = system_only();
        confinement.allow_write(workspace.path());
        let cat = |confinement: Option<FilesystemConfinement>| {
            let mut spec = ProcessSpec::new("/bin/sh", workspace.path())
                .with_args(["-c", "cat inside.txt link.txt; echo tmp=$TMPDIR; touch \"$TMPDIR/made\" && echo made"]);
            spec.filesystem_confinement = confinement;
            run_to_completion(spec, b"", Duration::from_secs(10), 64 * 1024).unwrap()
        };
        let confined = cat(Some(confinement));
        let stdout = String::from_utf8_lossy(&confined.stdout).into_owned();
        let stderr = String::from_utf8_lossy(&confined.stderr).into_owned();
        assert!(stdout.contains("INSIDE"), "the workspace stays readable: {stdout} {stderr}");
        assert!(!stdout.contains("OUTSIDE_SECRET"), "read through the symlink: {stdout}");
        assert!(stderr.contains("Permission denied"), "the kernel refuses the outside file: {stderr}");
        assert!(stdout.contains("made"), "the private TMPDIR is writable: {stdout} {stderr}");
        let Some(ConfinementOutcome::Confined { temp_dir: Some(temp_dir), abi, .. }) = confined.filesystem_confinement else {
            panic!("not confined: {:?}", confined.filesystem_confinement);
        };
        assert!(abi >= 1);
        assert!(stdout.contains(&format!("tmp={}", temp_dir.display())), "{stdout}");
        assert!(!temp_dir.exists(), "the private temp dir is removed with the child's handle: {}", temp_dir.display());
        // The same command without confinement reads the outside file: the check above can fail.
        let unconfined = cat(None);
        assert!(String::from_utf8_lossy(&unconfined.stdout).contains("OUTSIDE_SECRET"));
        assert_eq!(unconfined.filesystem_confinement, None);
    }

    #[test]
    fn a_program_outside_the_roots_starts_unconfined_and_says_why() {
        if !landlock("a_program_outside_the_roots_starts_unconfined_and_says_why") {
            return;
        }
        let dir = tempfile::tempdir().unwrap();
        let program = dir.path().join("tool.sh");
        crate::test_support::write_executable(&program, "#!/bin/sh\necho started\n");
        let spec = ProcessSpec::new(&program, dir.path()).with_filesystem_confinement(system_only());
        let child = ChildProcess::spawn(spec).expect("started without confinement");
        let Some(ConfinementOutcome::NotConfined { reason }) = child.filesystem_confinement() else {
            panic!("expected NotConfined, got {:?}", child.filesystem_confinement());
        };
        assert!(reason.contains("did not start under Landlock") && reason.contains("Permission denied"), "{reason}");
        assert!(child.filesystem_confinement().unwrap().describe().starts_with("server file reads not confined: "));
    }
}
