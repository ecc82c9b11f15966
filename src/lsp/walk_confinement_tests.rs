//! Issue 13 §1 for the lsp-side walks: every listing of the workspace goes through
//! `files::walk_beneath`, so a workspace directory that is a symlink to outside — a server root
//! swapped for one before the call, or any directory swapped again and again during it — is never
//! listed: no outside file is named, stamped or read, and no outside ignore file applies.

use std::fs;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::files::test_exchange::ExchangeLoop;
use crate::lsp::servers::{builtin_servers, ServerDefinition};

fn write(root: &Path, relative: &str, text: &str) {
    let path = root.join(relative);
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, text).unwrap();
}

fn pyright() -> ServerDefinition {
    builtin_servers().into_iter().find(|definition| definition.id == "pyright").unwrap()
}

/// An outside tree `pkg/` with an outside-only module, an outside `.gitignore` hiding `user.py`,
/// and a workspace whose `pkg` is (`link_pkg: true`) a symlink to it or the real inside package
/// plus `swap`, a symlink to the outside one, for the exchange loop.
struct Layout {
    _outside: tempfile::TempDir,
    _dir: tempfile::TempDir,
    outside: PathBuf,
    root: PathBuf,
}

fn layout(link_pkg: bool) -> Layout {
    let outside_dir = tempfile::tempdir().unwrap();
    let outside = fs::canonicalize(outside_dir.path()).unwrap();
    write(&outside, "pkg/zz_outside_only.py", "import mod\nOUTSIDE_MARKER = mod.helper\n");
    write(&outside, "pkg/mod.py", "def helper():\n    return 'outside'\n");
    write(&outside, "pkg/user.py", "from mod import helper\n");
    write(&outside, "pkg/.gitignore", "user.py\n");
    write(&outside, "pkg/README.md", "helper outside\n");
    let dir = tempfile::tempdir().unwrap();
    let root = fs::canonicalize(dir.path()).unwrap();
    write(&root, "pyproject.toml", "[project]\nname = \"ws\"\n");
    write(&root, "main.py", "from pkg.mod import helper\nhelper()\n");
    if link_pkg {
        std::os::unix::fs::symlink(outside.join("pkg"), root.join("pkg")).unwrap();
    } else {
        write(&root, "pkg/__init__.py", "");
        write(&root, "pkg/mod.py", "def helper():\n    return 'inside'\n");
        write(&root, "pkg/user.py", "from .mod import helper\nhelper()\n");
        std::os::unix::fs::symlink(outside.join("pkg"), root.join("swap")).unwrap();
    }
    Layout { _outside: outside_dir, _dir: dir, outside, root }
}

fn assert_inside(layout: &Layout, paths: &[PathBuf], what: &str) {
    for path in paths {
        assert!(path.starts_with(&layout.root), "{what}: {} is not under the workspace", path.display());
        let shown = path.display().to_string();
        assert!(!shown.contains("zz_outside_only") && !shown.starts_with(&layout.outside.display().to_string()), "{what} named {shown}");
    }
}

/// A server root that is a symlink to outside when the call starts (as a concurrent swap can
/// leave it): the by-path walks followed it and listed, stamped and read the outside package.
#[test]
fn a_server_root_that_is_a_symlink_to_outside_is_never_listed() {
    let layout = layout(true);
    let (root, server_root) = (layout.root.clone(), layout.root.join("pkg"));
    let stamps = crate::lsp::listing::file_stamps(&root, &server_root);
    assert!(stamps.is_empty(), "file_stamps listed through the symlink: {:?}", stamps.keys().collect::<Vec<_>>());
    assert_eq!(crate::lsp::listing::workspace_fingerprint(&root, &server_root), (0, 0, 0));
    let served = super::client::scan_served_files_for_tests(&pyright(), &root, &server_root).unwrap();
    assert!(served.is_empty(), "served files listed through the symlink: {:?}", served.keys().collect::<Vec<_>>());
    assert_eq!(super::client::representative_file(&pyright(), &root, &server_root), None);
    let grep = crate::lsp::rename_coverage::grep_word(&pyright(), &root, &server_root, "helper");
    assert!(grep.hits.is_empty() && grep.files_scanned == 0, "grep read through the symlink: {:?}", grep.hits);
    assert!(crate::lsp::rename_coverage::grep_documentation(&root, &server_root, "helper").is_empty());
    let importers = crate::lsp::dependents::python_importers(&root, &server_root, &server_root.join("mod.py"), 10);
    assert!(importers.files.is_empty(), "importers read through the symlink: {:?}", importers.files);
    // The whole workspace: the symlink is an entry, never entered.
    let whole = crate::lsp::listing::file_stamps(&root, &root);
    assert_eq!(whole.keys().cloned().collect::<Vec<_>>(), vec![root.join("main.py"), root.join("pyproject.toml")]);
    let served = super::client::scan_served_files_for_tests(&pyright(), &root, &root).unwrap();
    assert_eq!(served.keys().cloned().collect::<Vec<_>>(), vec![root.join("main.py")]);
    let grep = crate::lsp::rename_coverage::grep_word(&pyright(), &root, &root, "helper");
    assert_eq!(grep.hits.iter().map(|hit| hit.path.clone()).collect::<Vec<_>>(), vec![root.join("main.py"), root.join("main.py")]);
}

/// The same walks while `pkg` and `swap` (a symlink to the outside package) are exchanged
/// again and again: every answer names inside files only, and the inside `user.py` is never
/// hidden by the outside `.gitignore`.
#[test]
fn walks_during_a_swap_loop_never_name_an_outside_file() {
    let layout = layout(false);
    let root = layout.root.clone();
    let exchange = ExchangeLoop::start(root.join("pkg"), root.join("swap"));
    let started = Instant::now();
    let (mut rounds, mut saw_user) = (0, 0);
    while started.elapsed() < Duration::from_millis(1500) || rounds == 0 {
        rounds += 1;
        let stamps: Vec<PathBuf> = crate::lsp::listing::file_stamps(&root, &root).into_keys().collect();
        assert_inside(&layout, &stamps, "file_stamps");
        // Listed through `pkg` or `swap` (whichever was the real directory when listed): the
        // outside .gitignore never hid user.py.
        for package in ["pkg", "swap"] {
            if stamps.contains(&root.join(package).join("mod.py")) {
                assert!(stamps.contains(&root.join(package).join("user.py")), "the outside .gitignore applied: {stamps:?}");
                saw_user += 1;
            }
        }
        let served: Vec<PathBuf> = super::client::scan_served_files_for_tests(&pyright(), &root, &root).unwrap().into_keys().collect();
        assert_inside(&layout, &served, "scan_served_files");
        let grep = crate::lsp::rename_coverage::grep_word(&pyright(), &root, &root, "helper");
        assert_inside(&layout, &grep.hits.iter().map(|hit| hit.path.clone()).collect::<Vec<_>>(), "grep_word");
        assert!(grep.hits.iter().all(|hit| !hit.line_text.contains("outside")), "grep read outside text: {:?}", grep.hits);
        let docs: Vec<PathBuf> =
            crate::lsp::rename_coverage::grep_documentation(&root, &root, "helper").into_iter().map(|(path, _)| path).collect();
        assert!(docs.is_empty(), "documentation grep read the outside README: {docs:?}");
        let importers = crate::lsp::dependents::python_importers(&root, &root, &root.join("pkg/mod.py"), 10);
        assert_inside(&layout, &importers.files, "python_importers");
    }
    let swaps = exchange.finish();
    assert!(swaps > 0 && saw_user > 0, "{swaps} swaps, {rounds} rounds, user.py listed in {saw_user}");
}

/// The scan of the project's outside roots (a path dependency, the repository around the
/// workspace) stamps their served files but not the workspace's (its own scan's), follows no
/// symlink out, gives up a root over the cap and says why, and names a root that is gone.
#[test]
fn the_outside_roots_scan_skips_the_workspace_and_gives_up_a_root_over_its_cap() {
    let repository_dir = tempfile::tempdir().unwrap();
    let repository = fs::canonicalize(repository_dir.path()).unwrap();
    let elsewhere_dir = tempfile::tempdir().unwrap();
    let elsewhere = fs::canonicalize(elsewhere_dir.path()).unwrap();
    write(&elsewhere, "secret.py", "SECRET = 1\n");
    write(&repository, "common/util.py", "def helper():\n    return 1\n");
    write(&repository, "common/notes.txt", "not served\n");
    write(&repository, "app/main.py", "from util import helper\n");
    write(&repository, "big/a.py", "");
    write(&repository, "big/b.py", "");
    write(&repository, "big/c.py", "");
    std::os::unix::fs::symlink(&elsewhere, repository.join("common/link")).unwrap();
    let workspace = repository.join("app");
    let definition = pyright();
    let (stamps, unwatched) =
        crate::lsp::client::scan_project_outside_roots(&definition, &workspace, &[repository.join("common"), repository.clone()], 5);
    let mut listed: Vec<&PathBuf> = stamps.keys().collect();
    listed.sort();
    assert_eq!(
        listed,
        vec![&repository.join("big/a.py"), &repository.join("big/b.py"), &repository.join("big/c.py"), &repository.join("common/util.py")]
    );
    assert!(unwatched.is_empty(), "{unwatched:?}");
    let (stamps, unwatched) =
        crate::lsp::client::scan_project_outside_roots(&definition, &workspace, &[repository.join("common"), repository.clone()], 2);
    assert_eq!(stamps.keys().collect::<Vec<_>>(), vec![&repository.join("common/util.py")], "the root over the cap adds nothing");
    assert_eq!(unwatched.len(), 1, "{unwatched:?}");
    assert_eq!(unwatched[0].0, repository);
    assert!(unwatched[0].1.contains("more than 2 files"), "{}", unwatched[0].1);
    let (stamps, unwatched) = crate::lsp::client::scan_project_outside_roots(&definition, &workspace, &[repository.join("gone")], 5);
    assert!(stamps.is_empty());
    assert!(unwatched.len() == 1 && unwatched[0].1.contains("cannot be"), "{unwatched:?}");
}
