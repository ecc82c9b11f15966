//! What a language server or a project checker (`diagnostics "*"`: pyright CLI, tsc, cargo
//! check, go vet, clang-tidy) may read and write when runbound confines it with Landlock
//! (`transport::confinement`, issue 13 §1).
//!
//! These programs read files by path themselves: a symlink in the checkout that leads out
//! (planted, or swapped in while they run) would make them read — and an answer quote — a file
//! outside the workspace. Confined, the kernel refuses them (EACCES) every path that resolves
//! outside:
//!
//! - read and write beneath the **workspace root** (cargo and rust-analyzer write `target/`,
//!   clangd its `.cache/clangd`), `CARGO_TARGET_DIR` / `CARGO_BUILD_TARGET_DIR` when set (cargo
//!   builds there instead), **the user's caches** (`~/.cache`, `$XDG_CACHE_HOME`: go-build,
//!   gopls, jedi, pip) and the **package caches** of the toolchains (`~/.cargo/registry` and
//!   `git`, `$GOPATH` with its module cache, `$GOMODCACHE`, `$GOCACHE`, `~/.npm`), a private
//!   temp dir per process (`TMPDIR`), and `/dev` (`/dev/null`, `/dev/tty`);
//! - read (and execute) beneath the **system hierarchies** (`/usr`, `/lib*`, `/bin`, `/sbin`,
//!   `/etc`, `/opt`, `/proc`, `/sys`, `/run`, `/nix/store`, `/snap`), the **toolchain homes**
//!   (`~/.rustup` / `$RUSTUP_HOME`: sysroots; `~/.cargo/bin` and `config.toml`; `~/.pyenv` /
//!   `$PYENV_ROOT`; `~/.nvm` / `$NVM_DIR`; `$GOROOT`; `~/.local/lib`: user site-packages;
//!   `~/.config/go`: go's own env file), the **program's install prefix** (the directory above
//!   its `bin/`, for the path found and the file it resolves to, and the same for a script's
//!   `#!` interpreter) and the **project interpreter's prefix** (a venv outside the workspace,
//!   and the Python install it links to: its site-packages);
//! - read beneath the **project's outside roots** ([`project_outside_roots`]): the repository the
//!   workspace is a part of, and (trusted runs) the paths its manifests name outside it.
//!
//! Never `/`, `/tmp` as a whole, or `$HOME` as a whole: `~/.ssh`, `~/.cargo/credentials.toml`,
//! `~/.npmrc`, `~/.gitconfig` and the rest of the home directory stay out of reach.
//!
//! Debug adapters and `eval` kernels are not confined: they run the user's program, which may
//! read anything the user can, by design.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

pub use crate::transport::confinement::landlock_abi_version;
pub use crate::transport::{ConfinementOutcome, FilesystemConfinement};

/// System hierarchies every confined server may read and execute beneath: the programs,
/// libraries, configuration (`/etc`: resolv.conf, ld.so.cache, ssl certificates) and kernel
/// views (`/proc`, `/sys`) a process needs. `/nix/store` and `/snap` hold whole installs on
/// Nix and snap systems.
pub(crate) const SYSTEM_READ_ROOTS: &[&str] =
    &["/usr", "/lib", "/lib32", "/lib64", "/libx32", "/bin", "/sbin", "/etc", "/opt", "/proc", "/sys", "/run", "/nix/store", "/snap"];

/// The confinement of a language server or checker started from `binary` (as found on the
/// search path) for a run on `workspace_root`, with `interpreter` the project's Python
/// interpreter when the server was given one. The environment (`HOME`, `XDG_CACHE_HOME`,
/// `CARGO_HOME`, `RUSTUP_HOME`, `GOPATH`, `GOMODCACHE`, `GOCACHE`, `GOROOT`, `PYENV_ROOT`,
/// `NVM_DIR`, `npm_config_cache`, `CARGO_TARGET_DIR`, `CARGO_BUILD_TARGET_DIR`) is this
/// process's, which the child inherits. The granted entries of `project_roots` (from
/// [`project_outside_roots`]) are readable too. See the module documentation for the roots and
/// why.
pub fn tool_confinement(
    workspace_root: &Path,
    binary: &Path,
    interpreter: Option<&Path>,
    project_roots: &[ProjectOutsideRoot],
) -> FilesystemConfinement {
    create_missing_tool_cache_dirs();
    let mut confinement = tool_confinement_with(workspace_root, binary, interpreter, &|key| std::env::var_os(key));
    // A granted root is added only while it still resolves to itself: a component swapped for
    // a symlink since the scan would make the rule cover what the link leads to.
    for root in project_roots.iter().filter(|root| root.granted) {
        if std::fs::canonicalize(&root.path).is_ok_and(|resolved| resolved == root.path) {
            confinement.allow_read(&root.path);
        }
    }
    confinement
}

/// The cache directories the tools write as they work, from the environment `env`:
/// `XDG_CACHE_HOME` and `~/.cache`; go's `GOPATH` entries (default `~/go`: the module cache
/// under `pkg/mod`, downloads written), `GOMODCACHE` and `GOCACHE`; npm's `npm_config_cache`
/// and `~/.npm`. Absolute paths only.
fn tool_cache_dirs(env: &dyn Fn(&str) -> Option<OsString>) -> Vec<PathBuf> {
    let var = |key: &str| env(key).filter(|value| !value.is_empty()).map(PathBuf::from).filter(|path| path.is_absolute());
    let home = var("HOME");
    let in_home = |relative: &str| home.as_ref().map(|home| home.join(relative));
    let gopath: Vec<PathBuf> = match env("GOPATH").filter(|value| !value.is_empty()) {
        Some(list) => std::env::split_paths(&list).filter(|path| path.is_absolute()).collect(),
        None => in_home("go").into_iter().collect(),
    };
    [var("XDG_CACHE_HOME"), in_home(".cache")]
        .into_iter()
        .flatten()
        .chain(gopath)
        .chain([var("GOMODCACHE"), var("GOCACHE"), var("npm_config_cache"), in_home(".npm")].into_iter().flatten())
        .collect()
}

/// Creates the [`tool_cache_dirs`] of this process's environment that do not exist yet (best
/// effort), as the tools would on first use: a confined child may write beneath an allowed
/// directory but cannot create one in the home directory, and the kernel takes a rule only for
/// a directory that exists. On a fresh machine `go build` under confinement failed with `could
/// not create module cache: mkdir /root/go: permission denied`.
fn create_missing_tool_cache_dirs() {
    for dir in tool_cache_dirs(&|key| std::env::var_os(key)) {
        if !dir.exists() {
            let _ = std::fs::create_dir_all(&dir);
        }
    }
}

/// [`tool_confinement`] with the environment given as a lookup (tests).
pub(crate) fn tool_confinement_with(
    workspace_root: &Path,
    binary: &Path,
    interpreter: Option<&Path>,
    env: &dyn Fn(&str) -> Option<OsString>,
) -> FilesystemConfinement {
    let mut confinement = FilesystemConfinement { private_temp_dir: true, ..FilesystemConfinement::default() };
    let var = |key: &str| env(key).filter(|value| !value.is_empty()).map(PathBuf::from).filter(|path| path.is_absolute());
    let home = var("HOME");
    let in_home = |relative: &str| home.as_ref().map(|home| home.join(relative));

    confinement.allow_write(workspace_root);
    for key in ["CARGO_TARGET_DIR", "CARGO_BUILD_TARGET_DIR"] {
        if let Some(dir) = var(key) {
            confinement.allow_write(dir);
        }
    }
    // `/dev/null`, `/dev/tty`, `/dev/urandom`: opened for writing by node, go and cargo.
    confinement.allow_write("/dev");
    for root in SYSTEM_READ_ROOTS {
        confinement.allow_read(*root);
    }

    // Caches: written as the tools work (go-build, gopls, jedi, pip, clangd, pyright's; go's
    // module and build caches, npm's cache).
    for cache in tool_cache_dirs(env) {
        confinement.allow_write(cache);
    }
    // Cargo: the registry and git checkouts are written (downloads, extraction) and read (the
    // sources rust-analyzer and cargo compile); `.package-cache*` and `.global-cache` are the
    // lock and last-use files every cargo invocation takes. Not CARGO_HOME as a whole:
    // `credentials.toml` holds registry tokens.
    let cargo_home = var("CARGO_HOME").or_else(|| in_home(".cargo"));
    if let Some(cargo_home) = &cargo_home {
        for dir in ["registry", "git"] {
            confinement.allow_write(cargo_home.join(dir));
        }
        for file in [".package-cache", ".package-cache-mutate", ".global-cache"] {
            confinement.allow_write(cargo_home.join(file));
        }
        for readable in ["bin", "config.toml", "config"] {
            confinement.allow_read(cargo_home.join(readable));
        }
    }
    // rustup: the toolchains (sysroot sources rust-analyzer reads, rustc, cargo) and its
    // settings; the proxies in ~/.cargo/bin read them.
    for rustup in [var("RUSTUP_HOME"), in_home(".rustup")].into_iter().flatten() {
        confinement.allow_read(rustup);
    }
    // Go: GOROOT (the standard library), go's own env file (its caches are above).
    if let Some(goroot) = var("GOROOT") {
        confinement.allow_read(goroot);
    }
    if let Some(config) = var("XDG_CONFIG_HOME").or_else(|| in_home(".config")) {
        confinement.allow_read(config.join("go"));
    }
    // Python and Node installs managed per user, user site-packages.
    for read in [var("PYENV_ROOT"), in_home(".pyenv"), var("NVM_DIR"), in_home(".nvm"), in_home(".local/lib")].into_iter().flatten() {
        confinement.allow_read(read);
    }

    // The program's own install (a server installed under ~/.local, a node_modules tree
    // elsewhere) and the interpreter of a script (`#!/usr/bin/env node` → node's install).
    let mut programs = vec![binary.to_path_buf()];
    if let Some(interpreter) = script_interpreter(binary, env("PATH").as_deref()) {
        programs.push(interpreter);
    }
    // The project's Python: its venv (when outside the workspace) and the install it links to.
    programs.extend(interpreter.map(Path::to_path_buf));
    // `~/.cargo/bin/rust-analyzer` (a rustup proxy) must not open `~/.cargo` as a whole.
    let partial_homes: Vec<PathBuf> = cargo_home.into_iter().collect();
    for program in programs {
        for prefix in install_prefixes(&program, home.as_deref(), &partial_homes) {
            confinement.allow_read(prefix);
        }
    }
    confinement
}

/// The install prefixes of `program`: for the path itself and for the file it resolves to, the
/// directory above its `bin/` (or `Scripts/`), else its own directory — never `/` or the home
/// directory (or a directory above it): then the program file alone; never one of
/// `partial_homes` (homes only parts of which are allowed, `CARGO_HOME`) or a directory above
/// one: then the program's own directory (`~/.cargo/bin`).
fn install_prefixes(program: &Path, home: Option<&Path>, partial_homes: &[PathBuf]) -> Vec<PathBuf> {
    let mut prefixes = Vec::new();
    let resolved = std::fs::canonicalize(program).ok();
    for path in std::iter::once(program.to_path_buf()).chain(resolved) {
        let Some(dir) = path.parent() else { continue };
        let prefix = match dir.file_name().and_then(|name| name.to_str()) {
            Some("bin" | "sbin" | "Scripts") => dir.parent().unwrap_or(dir),
            _ => dir,
        };
        let too_wide = prefix.parent().is_none() || home.is_some_and(|home| home.starts_with(prefix));
        let partial = partial_homes.iter().any(|partial| partial.starts_with(prefix));
        let allowed = if too_wide {
            path.clone()
        } else if partial {
            if partial_homes.iter().any(|partial| partial.starts_with(dir)) {
                path.clone()
            } else {
                dir.to_path_buf()
            }
        } else {
            prefix.to_path_buf()
        };
        if !prefixes.contains(&allowed) {
            prefixes.push(allowed);
        }
    }
    prefixes
}

/// The interpreter named by `program`'s `#!` line, resolved (`#!/usr/bin/env node` → `node` on
/// `path_env`); `None` for a binary or when it does not resolve.
fn script_interpreter(program: &Path, path_env: Option<&std::ffi::OsStr>) -> Option<PathBuf> {
    use std::io::Read;
    let mut head = [0u8; 256];
    let read = std::fs::File::open(program).and_then(|mut file| file.read(&mut head)).ok()?;
    let line = head[..read].strip_prefix(b"#!")?;
    let line = &line[..line.iter().position(|&byte| byte == b'\n').unwrap_or(line.len())];
    let line = std::str::from_utf8(line).ok()?;
    let mut words = line.split_whitespace();
    let first = PathBuf::from(words.next()?);
    if first.file_name().is_some_and(|name| name == "env") {
        let name = words.find(|word| !word.starts_with('-'))?;
        let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("/"));
        return which::which_in(name, path_env, cwd).ok();
    }
    first.is_absolute().then_some(first)
}

/// A directory (or file) outside the workspace that the project itself reads: the repository the
/// workspace is a part of, or a path its manifests name. Servers and checkers are given read
/// access to it when `granted`; otherwise it is named as out of their reach.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProjectOutsideRoot {
    /// Absolute (canonical when it exists).
    pub path: PathBuf,
    /// Why the project reads it, e.g. `the git repository the workspace is in`, `a path
    /// dependency in Cargo.toml`.
    pub why: String,
    /// Whether confined servers and checkers may read beneath it.
    pub granted: bool,
    /// Why not, when not granted.
    pub withheld_because: Option<String>,
}

/// The outside roots of a project at `workspace_root` (see [`ProjectOutsideRoot`]), found without
/// running anything:
///
/// - **the repository around the workspace**: the nearest strict ancestor holding `.git` (a
///   directory, or the file of a worktree or submodule), `.hg`, `.jj` or `.svn` — a workspace
///   that is one crate, package or module of a larger repository reads its siblings (cargo
///   reads the parent workspace's `Cargo.toml` and path dependencies, node resolves hoisted
///   `node_modules` and a `tsconfig` `extends` above, go a `go.work`). Granted in both trust
///   modes (the checkout cannot create its ancestors), except when it is `/`, the home
///   directory or above it (a dotfiles repository): then withheld.
/// - **the workspace it is a member of**: the nearest strict ancestor whose `Cargo.toml` has a
///   `[workspace]` table, or that holds `go.work`, `pnpm-workspace.yaml` or a `package.json`
///   with `"workspaces"` (cargo reads the workspace's manifest and lock file above a member),
///   when not inside the repository already; granted on the same terms.
/// - **paths the manifests at the workspace root name** that lead out of it: `path = "…"` in
///   `Cargo.toml`, `replace … => ../…` in `go.mod`, `"extends"` / `"path"` in
///   `tsconfig.json` / `jsconfig.json`, `"file:…"` in `package.json`, `extraPaths` in
///   `pyrightconfig.json` / `pyproject.toml`. A scan of the text, not a parser. Granted in
///   trusted runs; in restricted runs withheld (the checkout chose them: it could name any
///   file); never `/`, the home directory or above it.
///
/// Before this, a crate with `common = { path = "../common" }` opened as its own workspace got
/// "no hover information found" for every `common::` name and `"*"` failed with `Permission
/// denied`, nothing said why.
pub fn project_outside_roots(workspace_root: &Path, trust: crate::trust::WorkspaceTrust) -> Vec<ProjectOutsideRoot> {
    project_outside_roots_with(workspace_root, trust, home_directory().as_deref())
}

/// The manifests at the workspace root that [`project_outside_roots`] reads the paths of.
const PROJECT_MANIFESTS: [&str; 7] =
    ["Cargo.toml", "go.mod", "tsconfig.json", "jsconfig.json", "package.json", "pyrightconfig.json", "pyproject.toml"];

/// The (modification time, size in bytes) of each of the workspace-root manifests
/// [`project_outside_roots`] reads, in a fixed order (`(None, 0)` for one that is missing): when
/// they are unchanged, so are the paths the manifests name.
pub fn project_manifest_stamps(workspace_root: &Path) -> Vec<(Option<std::time::SystemTime>, u64)> {
    PROJECT_MANIFESTS
        .iter()
        .map(|name| match std::fs::symlink_metadata(workspace_root.join(name)) {
            Ok(metadata) => (metadata.modified().ok(), metadata.len()),
            Err(_) => (None, 0),
        })
        .collect()
}

/// At most this many distinct paths named by the manifests are considered (a checkout can name
/// thousands); the rest are counted in one withheld entry.
const MANIFEST_PATHS_CAP: usize = 32;

/// The home directory: `$HOME` when absolute, else the user database's entry for this uid;
/// `None` when neither is known (then no outside root is granted).
fn home_directory() -> Option<PathBuf> {
    if let Some(home) = std::env::var_os("HOME").map(PathBuf::from).filter(|home| home.is_absolute()) {
        return Some(home);
    }
    // SAFETY: getpwuid_r writes into the buffers given, sized as passed; the result pointer is
    // checked before use and the directory string is copied out before the buffer goes away.
    unsafe {
        let mut entry: libc::passwd = std::mem::zeroed();
        let mut buffer = vec![0 as libc::c_char; 16 * 1024];
        let mut result: *mut libc::passwd = std::ptr::null_mut();
        let status = libc::getpwuid_r(libc::getuid(), &mut entry, buffer.as_mut_ptr(), buffer.len(), &mut result);
        if status != 0 || result.is_null() || entry.pw_dir.is_null() {
            return None;
        }
        let dir = std::ffi::CStr::from_ptr(entry.pw_dir);
        use std::os::unix::ffi::OsStrExt;
        let home = PathBuf::from(std::ffi::OsStr::from_bytes(dir.to_bytes()));
        home.is_absolute().then_some(home)
    }
}

/// Why `path` (canonical, or as written when it does not resolve) is never granted, whatever
/// the trust: `None` when it may be. `home` is the home directory as given and canonical.
fn never_granted_because(path: &Path, home: &[PathBuf]) -> Option<String> {
    use std::os::unix::fs::PermissionsExt;
    if home.is_empty() {
        return Some("the home directory is unknown (HOME unset or relative, no user database entry)".to_owned());
    }
    if path.parent().is_none() || home.iter().any(|home| home.starts_with(path)) {
        return Some("it is the file-system root, the home directory or above it".to_owned());
    }
    if let Some(hidden) = home.iter().find_map(|home| path.strip_prefix(home).ok()?.components().next()) {
        if hidden.as_os_str().to_string_lossy().starts_with('.') {
            return Some("it is in a hidden directory of the home directory, where credentials live (~/.ssh, ~/.cargo)".to_owned());
        }
    }
    if ["/proc", "/sys", "/dev"].iter().any(|kernel| path.starts_with(kernel)) {
        return Some("it is a kernel file system (/proc, /sys, /dev)".to_owned());
    }
    if path.components().count() <= 2 {
        return Some("it is a top-level directory, shared with the whole system (/tmp, /home, /var)".to_owned());
    }
    match std::fs::symlink_metadata(path) {
        Err(_) => Some("it does not exist (a path made later could lead anywhere)".to_owned()),
        Ok(metadata) if !(metadata.is_dir() || metadata.is_file()) => Some("it is not a directory or a regular file".to_owned()),
        Ok(metadata) if metadata.permissions().mode() & 0o002 != 0 => {
            Some("any user can write it (like /tmp), so anyone could have put it there".to_owned())
        }
        Ok(_) => None,
    }
}

/// [`project_outside_roots`] with the home directory given (tests); `None`: unknown.
pub(crate) fn project_outside_roots_with(
    workspace_root: &Path,
    trust: crate::trust::WorkspaceTrust,
    home: Option<&Path>,
) -> Vec<ProjectOutsideRoot> {
    // `$HOME` may be a symlink (`/home` → `/var/home`): compared as given and resolved.
    let mut homes: Vec<PathBuf> = home.map(Path::to_path_buf).into_iter().collect();
    if let Some(resolved) = home.and_then(|home| std::fs::canonicalize(home).ok()) {
        if !homes.contains(&resolved) {
            homes.push(resolved);
        }
    }
    let mut roots: Vec<ProjectOutsideRoot> = Vec::new();
    let markers = [".git", ".hg", ".jj", ".svn"];
    let repository = workspace_root.ancestors().skip(1).find_map(|dir| {
        markers
            .iter()
            .find(|marker| dir.join(marker).exists())
            .map(|marker| (dir, format!("the repository the workspace is in ({marker} there)")))
    });
    // The cargo / go / npm workspace the workspace is a member of, when not inside the
    // repository already (an unpacked archive has no `.git`).
    let member_of = || {
        workspace_root.ancestors().skip(1).find_map(|dir| {
            member_of_workspace(dir).map(|manifest| (dir, format!("the workspace this one is a member of ({manifest} there)")))
        })
    };
    for (ancestor, why) in repository.into_iter().chain(member_of()) {
        // The workspace root is canonical, so are its ancestors.
        if roots.iter().any(|known| known.granted && ancestor.starts_with(&known.path)) {
            continue;
        }
        let withheld_because = never_granted_because(ancestor, &homes);
        roots.push(ProjectOutsideRoot { path: ancestor.to_path_buf(), why, granted: withheld_because.is_none(), withheld_because });
    }
    let granted_ancestors: Vec<PathBuf> = roots.iter().filter(|root| root.granted).map(|root| root.path.clone()).collect();
    let mut seen: std::collections::HashSet<PathBuf> = std::collections::HashSet::new();
    let mut not_considered = 0usize;
    for (written, why) in manifest_outside_paths(workspace_root) {
        if !seen.insert(written.clone()) {
            continue;
        }
        if seen.len() > MANIFEST_PATHS_CAP {
            not_considered += 1;
            continue;
        }
        let resolved = std::fs::canonicalize(&written).ok();
        let path = resolved.clone().unwrap_or_else(|| written.clone());
        // Readable anyway (system hierarchies), inside the workspace, or inside a granted
        // ancestor: nothing to add or say.
        if path.starts_with(workspace_root)
            || SYSTEM_READ_ROOTS.iter().any(|system| path.starts_with(system))
            || granted_ancestors.iter().any(|ancestor| path.starts_with(ancestor))
        {
            continue;
        }
        let withheld_because = never_granted_because(&path, &homes)
            .or_else(|| trust.is_restricted().then(|| "workspace trust is restricted: a path the checkout names is not opened".to_owned()));
        // A withheld path is shown as the manifest wrote it: its resolved form could name what a
        // symlink leads to outside.
        let shown = if withheld_because.is_some() { written } else { path };
        if !roots.iter().any(|known| known.path == shown) {
            roots.push(ProjectOutsideRoot { path: shown, why, granted: withheld_because.is_none(), withheld_because });
        }
    }
    if not_considered > 0 {
        roots.push(ProjectOutsideRoot {
            path: workspace_root.to_path_buf(),
            why: format!("{not_considered} more distinct paths its manifests name"),
            granted: false,
            withheld_because: Some(format!("not considered: at most {MANIFEST_PATHS_CAP} are")),
        });
    }
    roots
}

/// The manifest that makes `dir` a cargo, go or npm/pnpm workspace (`Cargo.toml` with a
/// `[workspace]` table, `go.work`, `pnpm-workspace.yaml`, `package.json` with `"workspaces"`),
/// if any. `dir` is outside the run's workspace: read beneath `dir` itself.
fn member_of_workspace(dir: &Path) -> Option<&'static str> {
    let read = |name: &str| crate::files::read_dependency_file_to_string(dir, &dir.join(name)).ok();
    if read("Cargo.toml").is_some_and(|text| text.lines().any(|line| line.trim() == "[workspace]")) {
        return Some("Cargo.toml [workspace]");
    }
    if dir.join("go.work").is_file() {
        return Some("go.work");
    }
    if dir.join("pnpm-workspace.yaml").is_file() {
        return Some("pnpm-workspace.yaml");
    }
    read("package.json").is_some_and(|text| text.contains("\"workspaces\"")).then_some("package.json \"workspaces\"")
}

/// Paths outside `workspace_root` named by the manifests at its top, each with where it was
/// found (see [`project_outside_roots`]); absolute, lexically normalized.
fn manifest_outside_paths(workspace_root: &Path) -> Vec<(PathBuf, String)> {
    let read = |name: &str| crate::files::read_workspace_file_to_string(workspace_root, &workspace_root.join(name)).ok();
    let mut named: Vec<(String, String)> = Vec::new();
    if let Some(text) = read("Cargo.toml") {
        for line in text.lines() {
            if let Some(value) = toml_string_value(line, "path") {
                named.push((value, "a `path =` in Cargo.toml".to_owned()));
            }
        }
    }
    if let Some(text) = read("go.mod") {
        for line in text.lines() {
            if let Some((_, target)) = line.split_once("=>") {
                if let Some(first) = target.split_whitespace().next() {
                    named.push((first.to_owned(), "a `replace` in go.mod".to_owned()));
                }
            }
        }
    }
    for config in ["tsconfig.json", "jsconfig.json"] {
        if let Some(text) = read(config) {
            for key in ["extends", "path"] {
                for value in json_string_values(&text, key) {
                    named.push((value, format!("`{key}` in {config}")));
                }
            }
        }
    }
    if let Some(text) = read("package.json") {
        for value in quoted_strings(&text) {
            if let Some(target) = value.strip_prefix("file:").or_else(|| value.strip_prefix("link:")) {
                named.push((target.to_owned(), "a `file:` dependency in package.json".to_owned()));
            }
        }
    }
    for config in ["pyrightconfig.json", "pyproject.toml"] {
        if let Some(text) = read(config) {
            // `extraPaths = ["../lib"]` or `"extraPaths": ["../lib"]`, possibly over several
            // lines; a mention in a comment is not a setting.
            let setting =
                text.match_indices("extraPaths").map(|(at, _)| at).find(|&at| !text[..at].rsplit('\n').next().unwrap_or("").contains('#'));
            if let Some(at) = setting {
                let list = &text[at..];
                let list = &list[..list.find(']').unwrap_or(list.len())];
                for value in quoted_strings(list) {
                    named.push((value, format!("pyright `extraPaths` in {config}")));
                }
            }
        }
    }
    named
        .into_iter()
        .filter(|(value, _)| value.starts_with("../") || value.starts_with('/') || value == "..")
        .map(|(value, why)| (crate::files::path::lexically_normal(&workspace_root.join(value)), why))
        .filter(|(path, _)| !path.starts_with(workspace_root))
        .collect()
}

/// The string value of `key = "…"` (or `key = '…'`) anywhere on a TOML line (also inside an
/// inline table: `common = { path = "../common" }`).
fn toml_string_value(line: &str, key: &str) -> Option<String> {
    let code = line.split('#').next().unwrap_or("");
    let mut rest = code;
    while let Some(at) = rest.find(key) {
        let before = rest[..at].chars().next_back();
        let after = rest[at + key.len()..].trim_start();
        rest = &rest[at + key.len()..];
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '-') {
            continue;
        }
        if let Some(value) = after.strip_prefix('=') {
            return quoted_strings(value).into_iter().next();
        }
    }
    None
}

/// The string values of `"key": "…"` in a JSON(C) text.
fn json_string_values(text: &str, key: &str) -> Vec<String> {
    let needle = format!("\"{key}\"");
    let mut values = Vec::new();
    let mut rest = text;
    while let Some(at) = rest.find(&needle) {
        rest = &rest[at + needle.len()..];
        if let Some(value) = rest.trim_start().strip_prefix(':') {
            if value.trim_start().starts_with('"') {
                values.extend(quoted_strings(value).into_iter().next());
            }
        }
    }
    values
}

/// The double- or single-quoted strings of `text`, in order (no escapes decoded).
fn quoted_strings(text: &str) -> Vec<String> {
    let mut strings = Vec::new();
    let mut chars = text.char_indices();
    while let Some((start, quote)) = chars.next() {
        if quote != '"' && quote != '\'' {
            continue;
        }
        let mut end = None;
        for (index, c) in chars.by_ref() {
            if c == quote {
                end = Some(index);
                break;
            }
        }
        match end {
            Some(end) => strings.push(text[start + 1..end].to_owned()),
            None => break,
        }
    }
    strings
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env_of(pairs: &'static [(&'static str, &'static str)]) -> impl Fn(&str) -> Option<OsString> {
        move |key| pairs.iter().find(|(name, _)| *name == key).map(|(_, value)| OsString::from(value))
    }

    #[test]
    fn never_the_home_directory_or_the_filesystem_root() {
        let env = env_of(&[("HOME", "/home/u"), ("CARGO_TARGET_DIR", "/work/targets/x")]);
        let confinement = tool_confinement_with(Path::new("/work/ws"), Path::new("/home/u/server"), None, &env);
        // A rustup proxy in ~/.cargo/bin: its directory, not ~/.cargo (credentials.toml).
        let proxy = tool_confinement_with(Path::new("/work/ws"), Path::new("/home/u/.cargo/bin/rust-analyzer"), None, &env);
        assert!(!proxy.read_roots.iter().chain(&proxy.write_roots).any(|root| root.as_path() == Path::new("/home/u/.cargo")), "{proxy:?}");
        assert!(proxy.read_roots.contains(&PathBuf::from("/home/u/.cargo/bin")), "{proxy:?}");
        let all: Vec<&PathBuf> = confinement.read_roots.iter().chain(&confinement.write_roots).collect();
        assert!(!all.iter().any(|root| root.as_path() == Path::new("/") || root.as_path() == Path::new("/home/u")), "{all:?}");
        assert!(!all.iter().any(|root| root.as_path() == Path::new("/tmp")), "{all:?}");
        assert!(!all.iter().any(|root| root.as_path() == Path::new("/home/u/.cargo")), "credentials.toml stays out: {all:?}");
        // A program directly in $HOME: the file alone.
        assert!(confinement.read_roots.contains(&PathBuf::from("/home/u/server")), "{:?}", confinement.read_roots);
        assert!(confinement.write_roots.contains(&PathBuf::from("/work/ws")));
        assert!(confinement.write_roots.contains(&PathBuf::from("/work/targets/x")));
        assert!(confinement.write_roots.contains(&PathBuf::from("/home/u/.cargo/registry")));
        assert!(confinement.read_roots.contains(&PathBuf::from("/home/u/.rustup")));
        assert!(confinement.private_temp_dir);
    }

    use crate::test_support::workspace_with as tree;

    #[test]
    fn manifests_name_outside_paths_granted_when_trusted_and_withheld_when_restricted() {
        use crate::trust::WorkspaceTrust;
        let dir = tree(&[
            ("common/Cargo.toml", ""),
            ("y/go.mod", ""),
            ("tsconfig.base.json", "{}"),
            ("types/tsconfig.json", "{}"),
            ("lib/package.json", "{}"),
            ("pylib/m.py", ""),
            (
                "ws/Cargo.toml",
                "[dependencies]\ncommon = { path = \"../common\" }\ninner = { path = \"crates/inner\" }\n# old = { path = \"../commented\" }\nmy_path = \"../not-a-path-key\"\n",
            ),
            ("ws/go.mod", "module x\n\nreplace example.com/y => ../y\nreplace example.com/z v1.0.0 => example.com/z v1.1.0\n"),
            ("ws/tsconfig.json", "{\n  // base\n  \"extends\": \"../tsconfig.base.json\",\n  \"references\": [{ \"path\": \"../types\" }]\n}\n"),
            ("ws/package.json", "{\"dependencies\": {\"lib\": \"file:../lib\", \"left-pad\": \"^1.0.0\"}}\n"),
            ("ws/pyproject.toml", "[tool.pyright]\nextraPaths = [\n  \"../pylib\",\n  \"src\",\n]\ninclude = [\"../not-extra\"]\n"),
        ]);
        let workspace = std::fs::canonicalize(dir.path()).unwrap().join("ws");
        let base = workspace.parent().unwrap().to_path_buf();
        let home = Some(Path::new("/nonexistent-home/u"));
        let trusted = project_outside_roots_with(&workspace, WorkspaceTrust::Trusted, home);
        let found: Vec<(PathBuf, &str, bool)> = trusted.iter().map(|root| (root.path.clone(), root.why.as_str(), root.granted)).collect();
        assert_eq!(
            found,
            vec![
                (base.join("common"), "a `path =` in Cargo.toml", true),
                (base.join("y"), "a `replace` in go.mod", true),
                (base.join("tsconfig.base.json"), "`extends` in tsconfig.json", true),
                (base.join("types"), "`path` in tsconfig.json", true),
                (base.join("lib"), "a `file:` dependency in package.json", true),
                (base.join("pylib"), "pyright `extraPaths` in pyproject.toml", true),
            ]
        );
        // Never the file-system root or the home directory, trusted or not.
        let wide =
            tree(&[("home/u/ws/Cargo.toml", "[dependencies]\na = { path = \"/\" }\nb = { path = \"..\" }\nc = { path = \"../../..\" }\n")]);
        let wide_home = std::fs::canonicalize(wide.path()).unwrap().join("home/u");
        let roots = project_outside_roots_with(&wide_home.join("ws"), WorkspaceTrust::Trusted, Some(&wide_home));
        assert_eq!(roots.len(), 3, "{roots:?}");
        assert!(
            roots.iter().all(|root| !root.granted && root.withheld_because.as_deref().is_some_and(|why| why.contains("home directory"))),
            "{roots:?}"
        );
        let restricted = project_outside_roots_with(&workspace, WorkspaceTrust::Restricted, home);
        assert_eq!(restricted.len(), 6);
        assert!(restricted
            .iter()
            .all(|root| !root.granted && root.withheld_because.as_deref().is_some_and(|why| why.contains("restricted"))));
    }

    /// adv19's attempts, each of which granted too much before.
    #[test]
    fn never_granted_the_home_through_a_symlink_hidden_home_dirs_kernel_files_absent_or_shared_paths() {
        use crate::trust::WorkspaceTrust;
        use std::os::unix::fs::PermissionsExt;
        let dir =
            tree(&[("realhome/.ssh/id", "secret\n"), ("realhome/private/x", "x\n"), ("open-to-all/x", "x\n"), ("out/lib/x.py", "x = 1\n")]);
        let base = std::fs::canonicalize(dir.path()).unwrap();
        std::os::unix::fs::symlink(base.join("realhome"), base.join("homelink")).unwrap();
        std::fs::set_permissions(base.join("open-to-all"), std::fs::Permissions::from_mode(0o1777)).unwrap();
        std::os::unix::fs::symlink(base.join("out"), base.join("canary-target-name")).unwrap();
        let manifest = format!(
            "[dependencies]\nh = {{ path = \"{home}\" }}\nssh = {{ path = \"{home}/.ssh\" }}\nfd = {{ path = \"/proc/self/fd/0\" }}\nlater = {{ path = \"../not-yet\" }}\nopen = {{ path = \"../open-to-all\" }}\netc = {{ path = \"/etc\" }}\nvar = {{ path = \"/var\" }}\nlink = {{ path = \"../canary-target-name/lib\" }}\n",
            home = base.join("realhome").display()
        );
        std::fs::create_dir_all(base.join("ws")).unwrap();
        std::fs::write(base.join("ws/Cargo.toml"), manifest).unwrap();
        std::fs::write(base.join("ws/pyproject.toml"), "# extraPaths = [\"../out\"] is not set here\n[tool.pyright]\n").unwrap();
        let workspace = base.join("ws");
        // $HOME given as the symlink: the resolved home is recognised too.
        let roots = project_outside_roots_with(&workspace, WorkspaceTrust::Trusted, Some(&base.join("homelink")));
        let why = |name: &str| -> String {
            let root = roots.iter().find(|root| root.path.to_string_lossy().ends_with(name)).unwrap_or_else(|| panic!("{name}: {roots:?}"));
            assert!(!root.granted, "{name} granted: {roots:?}");
            root.withheld_because.clone().unwrap()
        };
        assert!(why("realhome").contains("home directory"));
        assert!(why(".ssh").contains("hidden directory of the home directory"));
        assert!(why("/proc/self/fd/0").contains("kernel file system"));
        assert!(why("not-yet").contains("does not exist"));
        assert!(why("open-to-all").contains("any user can write it"));
        assert!(why("/var").contains("top-level directory"), "{roots:?}");
        // Readable anyway: not listed. The comment's extraPaths: not a setting.
        assert!(!roots.iter().any(|root| root.path.starts_with("/etc") || root.path.ends_with("out")), "{roots:?}");
        // A granted path through a symlink is its resolved form; only the link is granted.
        let granted: Vec<&ProjectOutsideRoot> = roots.iter().filter(|root| root.granted).collect();
        assert_eq!(granted.len(), 1, "{roots:?}");
        assert_eq!(granted[0].path, base.join("out/lib"));
        // Restricted: a withheld path is shown as written, not as what its link resolves to.
        let restricted = project_outside_roots_with(&workspace, WorkspaceTrust::Restricted, Some(&base.join("homelink")));
        assert!(restricted.iter().any(|root| root.path == base.join("canary-target-name/lib")), "{restricted:?}");
        assert!(!restricted.iter().any(|root| root.path.starts_with(base.join("out"))), "{restricted:?}");
        // The home directory unknown: nothing is granted.
        let unknown = project_outside_roots_with(&workspace, WorkspaceTrust::Trusted, None);
        assert!(unknown.iter().all(|root| !root.granted), "{unknown:?}");
        // Thousands of distinct paths: at most the cap are considered, the rest counted.
        let many: String = (0..500).map(|index| format!("d{index} = {{ path = \"/nonexistent/{index}\" }}\n")).collect();
        std::fs::write(base.join("ws/Cargo.toml"), many).unwrap();
        let capped = project_outside_roots_with(&workspace, WorkspaceTrust::Trusted, Some(&base.join("homelink")));
        assert_eq!(capped.len(), MANIFEST_PATHS_CAP + 1, "{capped:?}");
        assert!(capped.last().unwrap().why.starts_with(&format!("{} more distinct paths", 500 - MANIFEST_PATHS_CAP)), "{capped:?}");
    }

    #[test]
    fn the_repository_around_the_workspace_is_granted_unless_it_holds_the_home_directory() {
        use crate::trust::WorkspaceTrust;
        let dir = tree(&[
            ("repo/.git/HEAD", "ref: refs/heads/main\n"),
            ("repo/packages/app/Cargo.toml", "[dependencies]\nlib = { path = \"../lib\" }\n"),
        ]);
        let repository = std::fs::canonicalize(dir.path()).unwrap().join("repo");
        let workspace = repository.join("packages/app");
        let roots = project_outside_roots_with(&workspace, WorkspaceTrust::Restricted, Some(Path::new("/home/u")));
        // The path dependency lies inside the repository: covered by it, not listed again.
        assert_eq!(roots.len(), 1, "{roots:?}");
        assert_eq!((roots[0].path.as_path(), roots[0].granted), (repository.as_path(), true));
        assert!(roots[0].why.contains(".git"), "{roots:?}");
        // A dotfiles repository at the home directory: withheld.
        let roots = project_outside_roots_with(&workspace, WorkspaceTrust::Trusted, Some(&repository.join("packages")));
        assert!(!roots[0].granted && roots[0].withheld_because.is_some(), "{roots:?}");
        // Without the repository (an unpacked archive): the cargo workspace above is the root.
        std::fs::remove_dir_all(repository.join(".git")).unwrap();
        std::fs::write(repository.join("Cargo.toml"), "[workspace]\nmembers = [\"packages/*\"]\n").unwrap();
        let roots = project_outside_roots_with(&workspace, WorkspaceTrust::Restricted, Some(Path::new("/home/u")));
        assert_eq!(roots.len(), 1, "{roots:?}");
        assert_eq!((roots[0].path.as_path(), roots[0].granted), (repository.as_path(), true));
        assert_eq!(roots[0].why, "the workspace this one is a member of (Cargo.toml [workspace] there)");
        // The confinement reads what is granted.
        let granted = project_outside_roots_with(&workspace, WorkspaceTrust::Trusted, Some(Path::new("/home/u")));
        let confinement = tool_confinement(&workspace, Path::new("/usr/bin/true"), None, &granted);
        assert!(confinement.read_roots.contains(&repository), "{confinement:?}");
    }

    #[test]
    fn install_prefix_is_the_directory_above_bin() {
        assert_eq!(install_prefixes(Path::new("/opt/tool/bin/server"), Some(Path::new("/home/u")), &[])[0], PathBuf::from("/opt/tool"));
        // /bin/x: the prefix would be `/`, so the program alone.
        assert_eq!(install_prefixes(Path::new("/nonexistent-bin/x"), None, &[])[0], PathBuf::from("/nonexistent-bin"));
        assert_eq!(install_prefixes(Path::new("/bin/x"), None, &[])[0], PathBuf::from("/bin/x"));
        let cargo_home = [PathBuf::from("/home/u/.cargo")];
        assert_eq!(install_prefixes(Path::new("/home/u/.cargo/bin/cargo"), None, &cargo_home)[0], PathBuf::from("/home/u/.cargo/bin"));
    }
}
