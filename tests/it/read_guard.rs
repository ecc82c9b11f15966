//! Tools read files one way (issue 13 §1): beneath the workspace root with no symlink followed
//! at use time (`files::WorkspaceReader`, `files::read_workspace_file_to_string`), or, named as
//! such, beneath a dependency root outside the workspace (`files::read_dependency_file_to_string`).
//! This scan fails when a read by path — `std::fs::read_to_string`, `std::fs::read(`,
//! `File::open` — appears in the tool modules outside the allow-list below, each entry with the
//! reason the site is safe. Unit tests (`#[cfg(test)] mod tests` and what follows it, and the
//! sibling test files `tests.rs` / `*_tests.rs` a module declares under `#[cfg(test)]`) are not
//! scanned: they build their fixtures by path. A second scan fails on a listing by path
//! (`WalkBuilder`, `read_dir(`, `walkdir::`) outside its own allow-list: the workspace is walked
//! through `files::walk_beneath` only.

use std::path::{Path, PathBuf};

/// The tool modules scanned (directories or single files), relative to the repository root.
/// `src/vibe` (the Ray package, the drift check) and `src/python_env.rs` (pyvenv.cfg, `.pth`,
/// pyright configuration) read workspace files too.
const SCANNED: [&str; 7] = ["src/lsp", "src/debug", "src/structural", "src/staged", "src/kernel", "src/vibe", "src/python_env.rs"];

/// The reads by path that would bypass confinement.
const FORBIDDEN: [&str; 3] = ["fs::read_to_string", "fs::read(", "File::open"];

/// `(file, text on the line, reason)`: sites allowed to read by path.
const ALLOWED: [(&str, &str, &str); 2] = [
    (
        "src/structural/search.rs",
        "None => std::fs::read(path)",
        "a search without a workspace (a library caller's `WalkLimits::default()`, the benches) has no root to confine \
         to; every tool sets `confine_reads_to` to the run's root and reads through `files::read_file_in`",
    ),
    (
        "src/lsp/confinement.rs",
        "std::fs::File::open(program)",
        "the first 256 bytes of the language-server or checker program the run is about to execute (its `#!` line, to \
         let the interpreter through the sandbox); the program was chosen by the binary search, which leaves the \
         workspace's own directories out in restricted trust; nothing read is ever quoted",
    ),
];

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    if dir.is_file() {
        out.push(dir.to_path_buf());
        return;
    }
    for entry in std::fs::read_dir(dir).unwrap_or_else(|err| panic!("cannot list {}: {err}", dir.display())) {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|ext| ext == "rs") && !is_unit_test_file(&path) {
            out.push(path);
        }
    }
}

/// Whether `path` is a sibling unit-test file (`tests.rs`, `*_tests.rs`) that its module declares
/// only under `#[cfg(test)]`. A file named so that its module declares without `#[cfg(test)]` is
/// production code (`src/lsp/doc_tests.rs`: doc-test resolution) and is scanned, so no production
/// file hides behind the name.
fn is_unit_test_file(path: &Path) -> bool {
    let Some(name) = path.file_name().and_then(|name| name.to_str()) else { return false };
    if name != "tests.rs" && !name.ends_with("_tests.rs") {
        return false;
    }
    let module = name.trim_end_matches(".rs");
    let parent = path.parent().unwrap();
    let declaring = ["mod.rs", "lib.rs"].iter().map(|file| parent.join(file)).find(|file| file.is_file());
    let declaration = declaring.and_then(|file| std::fs::read_to_string(file).ok()).unwrap_or_default();
    let lines: Vec<&str> = declaration.lines().map(str::trim).collect();
    lines.windows(2).any(|pair| pair[0] == "#[cfg(test)]" && pair[1] == format!("mod {module};"))
}

/// The lines of a source file before its unit tests, with 1-based numbers.
fn production_lines(text: &str) -> Vec<(usize, &str)> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    for (index, line) in lines.iter().enumerate() {
        if line.trim() == "#[cfg(test)]" && lines.get(index + 1).is_some_and(|next| next.trim_start().starts_with("mod tests")) {
            break;
        }
        out.push((index + 1, *line));
    }
    out
}

/// Scans the production lines of every Rust file under [`SCANNED`] for the `forbidden` needles:
/// returns the offending sites (`path:line: code`) that no `allowed` entry (path, site, reason)
/// covers, and the allow-list entries (by path) that matched no site or give no reason.
fn scan_tool_modules(forbidden: &[&str], allowed: &[(&str, &str, &str)]) -> (Vec<String>, Vec<String>) {
    let repository = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    for dir in SCANNED {
        rust_files(&repository.join(dir), &mut files);
    }
    files.sort();
    assert!(files.len() > 20, "the scan found only {} files under {SCANNED:?}: is the layout changed?", files.len());
    let mut used_allowances = vec![false; allowed.len()];
    let mut offenders = Vec::new();
    for file in &files {
        let relative = file.strip_prefix(repository).unwrap().to_string_lossy().into_owned();
        let text = std::fs::read_to_string(file).unwrap();
        for (number, line) in production_lines(&text) {
            let code = line.split("//").next().unwrap_or("");
            if !forbidden.iter().any(|needle| code.contains(needle)) {
                continue;
            }
            match allowed.iter().position(|(path, site, _)| *path == relative && code.contains(site)) {
                Some(index) => used_allowances[index] = true,
                None => offenders.push(format!("{relative}:{number}: {}", line.trim())),
            }
        }
    }
    let stale = allowed
        .iter()
        .zip(&used_allowances)
        .filter(|((_, _, reason), used)| !**used || reason.trim().is_empty())
        .map(|((path, _, _), _)| (*path).to_owned())
        .collect();
    (offenders, stale)
}

#[test]
fn tool_modules_read_files_only_beneath_a_root() {
    let (offenders, stale) = scan_tool_modules(&FORBIDDEN, &ALLOWED);
    assert!(
        offenders.is_empty(),
        "reads by path in tool modules (read through files::WorkspaceReader / read_workspace_file_to_string, or \
         read_dependency_file_to_string for dependency code outside the workspace; or add the site to ALLOWED with \
         the reason it is safe):\n{}",
        offenders.join("\n")
    );
    assert!(stale.is_empty(), "allow-list entries that match no site (or give no reason): {stale:?}");
}

#[test]
fn the_guard_recognises_a_read_by_path_and_skips_unit_tests() {
    let source =
        "fn f() {\n    let text = std::fs::read_to_string(path)?;\n}\n#[cfg(test)]\nmod tests {\n    fn g() { std::fs::read(p); }\n}\n";
    let hits: Vec<usize> = production_lines(source)
        .into_iter()
        .filter(|(_, line)| FORBIDDEN.iter().any(|needle| line.contains(needle)))
        .map(|(number, _)| number)
        .collect();
    assert_eq!(hits, vec![2]);
}

/// Listings by path that would list a swapped directory's outside names and read its ignore
/// files (issue 13 §1): every walk of the workspace goes through `files::walk_beneath`.
const FORBIDDEN_LISTINGS: [&str; 3] = ["WalkBuilder", "read_dir(", "walkdir::"];

/// `(file, text on the line, reason)`: listings by path of places outside the workspace.
const ALLOWED_LISTINGS: [(&str, &str, &str); 3] = [
    (
        "src/lsp/servers.rs",
        "std::fs::read_dir(dir)",
        "the versioned language-server binaries (`clangd-NN`) in the PATH directories the binary search allows (the \
         workspace's own directories are left out of it in restricted trust): not a walk of the workspace",
    ),
    (
        "src/debug/adapters.rs",
        "std::fs::read_dir(dir)",
        "the versioned debug-adapter binaries (`lldb-dap-NN`) in the binary search's directories: not a walk of the workspace",
    ),
    (
        "src/debug/adapters.rs",
        "std::fs::read_dir(&self.llvm_parent_dir)",
        "the toolchain's `/usr/lib/llvm-NN` trees: outside the workspace, installed by the system",
    ),
];

#[test]
fn tool_modules_list_the_workspace_only_beneath_its_root() {
    let (offenders, stale) = scan_tool_modules(&FORBIDDEN_LISTINGS, &ALLOWED_LISTINGS);
    assert!(
        offenders.is_empty(),
        "listings by path in tool modules (walk with files::walk_beneath::BeneathWalk, or list one directory with \
         files::walk_beneath::list_directory; or add the site to ALLOWED_LISTINGS with the reason it is outside the \
         workspace):\n{}",
        offenders.join("\n")
    );
    assert!(stale.is_empty(), "allow-list entries that match no site (or give no reason): {stale:?}");
}
