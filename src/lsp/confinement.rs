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
//!   and the Python install it links to: its site-packages).
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
const SYSTEM_READ_ROOTS: &[&str] =
    &["/usr", "/lib", "/lib32", "/lib64", "/libx32", "/bin", "/sbin", "/etc", "/opt", "/proc", "/sys", "/run", "/nix/store", "/snap"];

/// The confinement of a language server or checker started from `binary` (as found on the
/// search path) for a run on `workspace_root`, with `interpreter` the project's Python
/// interpreter when the server was given one. The environment (`HOME`, `XDG_CACHE_HOME`,
/// `CARGO_HOME`, `RUSTUP_HOME`, `GOPATH`, `GOMODCACHE`, `GOCACHE`, `GOROOT`, `PYENV_ROOT`,
/// `NVM_DIR`, `npm_config_cache`, `CARGO_TARGET_DIR`, `CARGO_BUILD_TARGET_DIR`) is this
/// process's, which the child inherits. See the module documentation for the roots and why.
pub fn tool_confinement(workspace_root: &Path, binary: &Path, interpreter: Option<&Path>) -> FilesystemConfinement {
    tool_confinement_with(workspace_root, binary, interpreter, &|key| std::env::var_os(key))
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

    // Caches: written as the tools work (go-build, gopls, jedi, pip, clangd, pyright's).
    for cache in [var("XDG_CACHE_HOME"), in_home(".cache")].into_iter().flatten() {
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
    // Go: GOPATH (module cache under pkg/mod, downloads written), GOMODCACHE, GOCACHE
    // (compiled packages, written), GOROOT (the standard library), go's own env file.
    let gopath: Vec<PathBuf> = match env("GOPATH").filter(|value| !value.is_empty()) {
        Some(list) => std::env::split_paths(&list).filter(|path| path.is_absolute()).collect(),
        None => in_home("go").into_iter().collect(),
    };
    for dir in gopath.into_iter().chain(var("GOMODCACHE")).chain(var("GOCACHE")) {
        confinement.allow_write(dir);
    }
    if let Some(goroot) = var("GOROOT") {
        confinement.allow_read(goroot);
    }
    if let Some(config) = var("XDG_CONFIG_HOME").or_else(|| in_home(".config")) {
        confinement.allow_read(config.join("go"));
    }
    // Python and Node installs managed per user, npm's cache, user site-packages.
    for read in [var("PYENV_ROOT"), in_home(".pyenv"), var("NVM_DIR"), in_home(".nvm"), in_home(".local/lib")].into_iter().flatten() {
        confinement.allow_read(read);
    }
    for write in [var("npm_config_cache"), in_home(".npm")].into_iter().flatten() {
        confinement.allow_write(write);
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
