//! Fuzz target: workspace path resolution over a real tree with symlinks that stay inside, leave
//! the workspace (absolute and relative), dangle outside, and loop. Property: a path accepted by
//! `resolve_in_workspace` is absolute, lies under the root, and the real location of its longest
//! existing prefix is under the root too; a refusal is an error, never a panic.
#![no_main]

use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use runbound::fuzzing::resolve_in_workspace;

/// Path pieces the structured half of the input picks from.
const TOKENS: [&str; 16] = [
    "..",
    ".",
    "/",
    "src",
    "a.rs",
    "in_link",
    "out_link",
    "out_rel",
    "dangling_out",
    "dangling_in",
    "loop_a",
    "file_link",
    "new",
    "workspace",
    "outside",
    "//",
];

/// The fuzzing tree, built once per process under the temp dir (removed first if left over).
fn tree() -> &'static PathBuf {
    static TREE: OnceLock<PathBuf> = OnceLock::new();
    TREE.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("runbound-fuzz-paths-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let base = std::fs::canonicalize(&dir).unwrap();
        let root = base.join("workspace");
        let outside = base.join("outside");
        std::fs::create_dir_all(root.join("src/deep")).unwrap();
        std::fs::create_dir_all(&outside).unwrap();
        std::fs::write(root.join("src/a.rs"), "a").unwrap();
        std::fs::write(outside.join("secret"), "s").unwrap();
        symlink("src", root.join("in_link")).unwrap();
        symlink(&outside, root.join("out_link")).unwrap();
        symlink("../outside", root.join("out_rel")).unwrap();
        symlink(outside.join("missing"), root.join("dangling_out")).unwrap();
        symlink("src/missing", root.join("dangling_in")).unwrap();
        symlink("loop_b", root.join("loop_a")).unwrap();
        symlink("loop_a", root.join("loop_b")).unwrap();
        symlink("../../outside/secret", root.join("src/file_link")).unwrap();
        symlink("../..", root.join("src/deep/up2")).unwrap();
        root
    })
}

fuzz_target!(|data: &[u8]| {
    let root = tree();
    let user_path = match data.split_first() {
        Some((&selector, rest)) if selector % 2 == 1 => {
            rest.iter().map(|&byte| TOKENS[usize::from(byte) % TOKENS.len()]).collect::<Vec<_>>().join("/")
        }
        _ => String::from_utf8_lossy(data.get(1..).unwrap_or_default()).into_owned(),
    };
    if user_path.len() > 4096 {
        return;
    }
    let Ok(resolved) = resolve_in_workspace(root, &user_path) else { return };
    assert!(resolved.is_absolute(), "{user_path:?} -> {resolved:?}");
    assert!(resolved.starts_with(root), "{user_path:?} escaped to {resolved:?}");
    assert!(real_location_of_existing_prefix(&resolved).starts_with(root), "{user_path:?} -> {resolved:?} is really outside");
});

fn real_location_of_existing_prefix(path: &Path) -> PathBuf {
    let mut prefix = path.to_path_buf();
    loop {
        if let Ok(real) = std::fs::canonicalize(&prefix) {
            return real;
        }
        if !prefix.pop() {
            return prefix;
        }
    }
}
