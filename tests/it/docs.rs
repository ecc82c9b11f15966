//! The documentation is self-contained: every requirement id (`R-LSP-3`, `R-ASK-1..4`,
//! `R-TIER-1/2`) cited in the sources, tests, benches, fuzz targets, CI scripts and top-level
//! documents is defined in `docs/` (as a bold `**R-…**` entry of `docs/contract.md`), and none of
//! them points a maintainer at a document outside the repository (the notes and specification
//! the project started from). See `docs/README.md`, "Keeping it current".
//!
//! This file is the one place that names those outside documents (to recognise them), so the
//! scan skips it.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// What the scan reads, relative to the repository root.
const SCANNED: [&str; 9] = ["src", "tests", "benches", "fuzz", ".ci", "docs", "README.md", "ARCHITECTURE.md", "Cargo.toml"];

/// Directories never read: build output, fetched tools and corpora, fixture projects (their
/// text is third-party-shaped test input, not our documentation).
const SKIPPED_DIRECTORIES: [&str; 8] = ["target", "node_modules", ".tools", ".corpus", "corpus", "artifacts", "tests/data", ".git"];

/// This file: it names the outside documents in order to recognise them.
const THIS_FILE: &str = "tests/it/docs.rs";

/// Text that points at a document a maintainer of this repository cannot open, matched
/// case-insensitively: the research notes, the specification file and its original, the shared
/// directory they live in, and section references into the specification.
const OUTSIDE_DOCUMENTS: [&str; 13] = [
    "env.md",
    "research note",
    "research/",
    "spec.md",
    "seed-zh",
    "/work/shared",
    "../shared",
    "peers-2026",
    "eval_ask_vibe",
    "astgrep.md",
    "aesthetics.md",
    "spec §",
    "spec's table",
];

/// One citation of a requirement id: where, and the line's text.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Citation {
    id: String,
    file: String,
    line: usize,
    text: String,
}

fn repository_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Every UTF-8 text file under the scanned paths, as (path relative to the root, contents).
fn scanned_files(root: &Path) -> Vec<(String, String)> {
    fn walk(root: &Path, path: &Path, out: &mut Vec<(String, String)>) {
        let relative = path.strip_prefix(root).unwrap().to_string_lossy().replace('\\', "/");
        if path.is_dir() {
            let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
            if SKIPPED_DIRECTORIES.contains(&name.as_str()) || SKIPPED_DIRECTORIES.contains(&relative.as_str()) {
                return;
            }
            let mut entries: Vec<PathBuf> = std::fs::read_dir(path).unwrap().map(|entry| entry.unwrap().path()).collect();
            entries.sort();
            for entry in entries {
                walk(root, &entry, out);
            }
        } else if path.is_file() && relative != THIS_FILE {
            if let Ok(text) = std::fs::read_to_string(path) {
                out.push((relative, text));
            }
        }
    }
    let mut out = Vec::new();
    for scanned in SCANNED {
        let path = root.join(scanned);
        assert!(path.exists(), "{scanned} is missing from the repository root {}", root.display());
        walk(root, &path, &mut out);
    }
    out
}

/// The requirement ids cited in `text`, ranges expanded: `R-ASK-1..4` and `R-TIER-1/2` cite
/// every id from the first to the last number.
fn cited_ids(text: &str) -> Vec<String> {
    let bytes = text.as_bytes();
    let mut ids = Vec::new();
    let mut index = 0;
    while let Some(found) = text[index..].find("R-") {
        let start = index + found;
        index = start + 2;
        if start > 0 && (bytes[start - 1].is_ascii_alphanumeric() || bytes[start - 1] == b'-' || bytes[start - 1] == b'_') {
            continue;
        }
        let area_end = start + 2 + bytes[start + 2..].iter().take_while(|b| b.is_ascii_uppercase()).count();
        if area_end == start + 2 || bytes.get(area_end) != Some(&b'-') {
            continue;
        }
        let digits = |from: usize| bytes[from..].iter().take_while(|b| b.is_ascii_digit()).count();
        let first_len = digits(area_end + 1);
        if first_len == 0 {
            continue;
        }
        let area = &text[start + 2..area_end];
        let first: u32 = text[area_end + 1..area_end + 1 + first_len].parse().unwrap();
        let mut end = area_end + 1 + first_len;
        let mut last = first;
        for separator in ["..", "/"] {
            if text[end..].starts_with(separator) {
                let len = digits(end + separator.len());
                if len > 0 {
                    last = text[end + separator.len()..end + separator.len() + len].parse().unwrap();
                    end += separator.len() + len;
                }
                break;
            }
        }
        for number in first..=last.max(first) {
            ids.push(format!("R-{area}-{number}"));
        }
        index = end;
    }
    ids
}

/// The requirement ids `text` defines: each bold `**R-AREA-N**` (bold spans do not cross lines).
fn defined_ids(text: &str) -> Vec<String> {
    text.lines()
        .flat_map(|line| line.split("**").skip(1).step_by(2))
        .filter(|inner| cited_ids(inner).len() == 1 && cited_ids(inner)[0] == *inner)
        .map(str::to_owned)
        .collect()
}

/// The outside-document references on one line of text: the matched phrase of
/// [`OUTSIDE_DOCUMENTS`], or `SPEC` as a word (the specification by name).
fn outside_references(line: &str) -> Vec<String> {
    let lower = line.to_lowercase();
    let mut found: Vec<String> =
        OUTSIDE_DOCUMENTS.iter().filter(|phrase| lower.contains(*phrase)).map(|phrase| (*phrase).to_owned()).collect();
    let is_word_char = |c: char| c.is_ascii_alphanumeric() || c == '_';
    for (at, _) in line.match_indices("SPEC") {
        let before = line[..at].chars().next_back();
        let after = line[at + 4..].chars().next();
        if !before.is_some_and(is_word_char) && !after.is_some_and(is_word_char) {
            found.push("SPEC".to_owned());
        }
    }
    found
}

fn citations(files: &[(String, String)]) -> Vec<Citation> {
    let mut out = Vec::new();
    for (file, text) in files {
        for (number, line) in text.lines().enumerate() {
            for id in cited_ids(line) {
                out.push(Citation { id, file: file.clone(), line: number + 1, text: line.trim().to_owned() });
            }
        }
    }
    out
}

/// The definitions in `docs/`: id → the files defining it.
fn definitions(files: &[(String, String)]) -> BTreeMap<String, Vec<String>> {
    let mut out: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for (file, text) in files.iter().filter(|(file, _)| file.starts_with("docs/") && file.ends_with(".md")) {
        for id in defined_ids(text) {
            out.entry(id).or_default().push(file.clone());
        }
    }
    out
}

#[test]
fn every_cited_requirement_id_is_defined_once_in_docs() {
    let files = scanned_files(&repository_root());
    let defined = definitions(&files);
    assert!(
        defined.len() >= 30,
        "docs/contract.md should define the tool contract's requirement ids as bold **R-…** entries; found only {:?}",
        defined.keys().collect::<Vec<_>>()
    );
    let twice: Vec<String> =
        defined.iter().filter(|(_, places)| places.len() > 1).map(|(id, places)| format!("{id} in {}", places.join(", "))).collect();
    assert!(twice.is_empty(), "requirement ids defined more than once: {twice:?}");
    let cited = citations(&files);
    let outside_docs: BTreeSet<&str> = cited.iter().filter(|c| !c.file.starts_with("docs/")).map(|c| c.file.as_str()).collect();
    assert!(outside_docs.len() >= 10, "the scan found requirement ids in only {outside_docs:?}: is it reading src/ and tests/?");
    let undefined: Vec<String> = cited
        .iter()
        .filter(|citation| !defined.contains_key(&citation.id))
        .map(|citation| format!("{}:{}: {} is not defined in docs/ — `{}`", citation.file, citation.line, citation.id, citation.text))
        .collect();
    assert!(
        undefined.is_empty(),
        "cited requirement ids without a definition in docs/ (add a bold **R-…** entry to docs/contract.md, or cite an existing id):\n{}",
        undefined.join("\n")
    );
}

#[test]
fn nothing_cites_a_document_outside_the_repository() {
    let files = scanned_files(&repository_root());
    assert!(files.iter().any(|(file, _)| file == "src/lib.rs"), "the scan did not read src/lib.rs");
    let mut found = Vec::new();
    for (file, text) in &files {
        for (number, line) in text.lines().enumerate() {
            for phrase in outside_references(line) {
                found.push(format!("{file}:{}: `{phrase}` — {}", number + 1, line.trim()));
            }
        }
    }
    assert!(
        found.is_empty(),
        "references to documents a maintainer cannot open (point at docs/contract.md or ARCHITECTURE.md, or state the fact itself):\n{}",
        found.join("\n")
    );
}

/// The two checks above must be able to fail: the scanners find what they are for, and only that.
#[test]
fn the_scanners_recognise_citations_definitions_and_outside_references() {
    assert_eq!(cited_ids("see R-FOO-9."), ["R-FOO-9"]);
    assert_eq!(cited_ids("(SPEC-less R-ASK-1..4, R-TIER-1/2)"), ["R-ASK-1", "R-ASK-2", "R-ASK-3", "R-ASK-4", "R-TIER-1", "R-TIER-2"]);
    assert_eq!(cited_ids("R-DOW-2: ledger; R-LSP-3/ path"), ["R-DOW-2", "R-LSP-3"]);
    assert!(cited_ids("USER-R-LSP-1 HR-DOW-2 R-lsp-1 R-LSP- R--1").is_empty());
    assert_eq!(defined_ids("- **R-LSP-3** A position …; **not an id** and **R-ASK-1..4**"), ["R-LSP-3"]);

    let files = vec![
        ("docs/contract.md".to_owned(), "- **R-LSP-3** text\n- **R-LSP-3** again\n".to_owned()),
        ("src/a.rs".to_owned(), "// R-LSP-3 and R-NEW-1\n".to_owned()),
    ];
    let defined = definitions(&files);
    assert_eq!(defined["R-LSP-3"].len(), 2, "a duplicate definition must be seen");
    let undefined: Vec<String> = citations(&files).into_iter().filter(|c| !defined.contains_key(&c.id)).map(|c| c.id).collect();
    assert_eq!(undefined, ["R-NEW-1"]);

    assert_eq!(outside_references("// see env.md section 4"), ["env.md"]);
    assert_eq!(outside_references("//! Handshake (issue 6, Research Note §2.0)"), ["research note"]);
    assert_eq!(outside_references("(spec §7, R-DBG-1..4)"), ["spec §"]);
    assert_eq!(outside_references("fail-closed, SPEC R-ASK-4"), ["SPEC"]);
    for clean in ["ServerSpec { id }", "SPECIAL_CASE", "issue 11 §2–§3", "as the LSP specification lets clients assume", "docs/contract.md"]
    {
        assert!(outside_references(clean).is_empty(), "{clean:?} was flagged");
    }
}
