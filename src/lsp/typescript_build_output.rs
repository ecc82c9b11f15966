//! Which TypeScript declaration files (`.d.ts`, `.d.mts`, `.d.cts`) under a root are build
//! output, which a rename never edits and never renames again from.
//!
//! A tsconfig without `include` compiles the package's shipped typings with its sources, so a
//! rename's word search meets them and their definitions lead to the sources. Renaming in them
//! made the shipped typings disagree with the JavaScript built beside them, and a re-export barrel
//! `export { f } from './a'` rewritten to `export { f as g } from './a'` broke every consumer's
//! `import { f }` (TS2305) while tsc on the project stayed clean (trial152 F1/F2: rxjs 7.8.1's
//! `dist/types`). A declaration file with a map of its own was recognised then; the per-entry
//! stubs and barrels of a bundler (tsdown, tsup) have none: @tanstack/query-core 5.108.4's
//! `build/legacy/index.d.ts` was renamed again from, and rewritten (trial156 F1).
//!
//! A declaration file is build output ([`BuildOutputReason`]) when:
//! - it has a declaration map of its own (a `.map` file beside it, or a `//# sourceMappingURL=`
//!   comment in its last 3 lines);
//! - its directory, or a directory above it below the root, holds declaration maps
//!   (`*.d.ts.map`, `*.d.mts.map`, `*.d.cts.map`) and no TypeScript source (a `.ts`/`.tsx`/
//!   `.mts`/`.cts` that is no declaration): tsc or a bundler wrote there;
//! - it lies under the directory of a `package.json` (at the root) `types` / `typings` target or
//!   of an `exports` target under a `types` condition (or ending in `.d.ts`/`.d.mts`/`.d.cts`),
//!   when that directory is not the root itself, holds no TypeScript source, and holds
//!   JavaScript (`.js`/`.mjs`/`.cjs`) or declaration maps — hand-written typings (`types/`,
//!   with no JavaScript beside them) are not taken for build output;
//! - it lies under the root `tsconfig.json`'s `outDir` or `declarationDir` (through `extends`),
//!   when that is not the root itself.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::files::WorkspaceReader;

/// Why a declaration file is build output; the directory paths are absolute.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum BuildOutputReason {
    /// A declaration map of its own (`.map` beside it or a `sourceMappingURL` comment).
    OwnMap,
    /// In or below `directory`, which holds declaration files with maps and no TypeScript source.
    BesideMappedDeclarations { directory: PathBuf },
    /// Under `directory`, the directory of a package.json `field` target (`types`, `typings`,
    /// `exports`).
    PackageTypings { directory: PathBuf, field: &'static str },
    /// Under `directory`, the root tsconfig.json's `option` (`outDir`, `declarationDir`).
    ConfigOutput { directory: PathBuf, option: &'static str },
    /// A JavaScript file with a source map of its own (`index.js.map` beside it or a
    /// `sourceMappingURL` comment): compiled or bundled from the sources the map names.
    SourceMap,
}

impl BuildOutputReason {
    /// A few words for the report, paths shown by `shown`: "a declaration map beside it", "in
    /// build/, beside declaration files with maps", "under build/, the directory of package.json
    /// `types`", "under lib/, tsconfig.json's `outDir`".
    pub(crate) fn describe(&self, shown: &dyn Fn(&Path) -> String) -> String {
        match self {
            BuildOutputReason::OwnMap => "a declaration map beside it".to_owned(),
            BuildOutputReason::BesideMappedDeclarations { directory } => {
                format!("in {}/, beside declaration files with maps", shown(directory))
            }
            BuildOutputReason::PackageTypings { directory, field } => {
                format!("under {}/, the directory of package.json `{field}`", shown(directory))
            }
            BuildOutputReason::ConfigOutput { directory, option } => {
                format!("under {}/, tsconfig.json's `{option}`", shown(directory))
            }
            BuildOutputReason::SourceMap => "a source map beside it".to_owned(),
        }
    }
}

/// Whether `name` is a TypeScript declaration file's name.
pub(crate) fn is_declaration_file_name(name: &str) -> bool {
    [".d.ts", ".d.mts", ".d.cts"].iter().any(|suffix| name.ends_with(suffix))
}

/// Whether `name` is a JavaScript file's name (`.js`, `.mjs`, `.cjs`).
pub(crate) fn is_javascript_file_name(name: &str) -> bool {
    [".js", ".mjs", ".cjs"].iter().any(|suffix| name.ends_with(suffix))
}

/// The source files the source map of the JavaScript file `path` names (`sources`, resolved
/// against the map's directory and its `sourceRoot`), those that exist; empty when there is no
/// map beside it (`NAME.map`) or it cannot be read.
pub(crate) fn javascript_map_sources(reader: &WorkspaceReader, path: &Path) -> Vec<PathBuf> {
    let Some(name) = path.file_name().and_then(|name| name.to_str()) else { return Vec::new() };
    let map = path.with_file_name(format!("{name}.map"));
    let Ok(text) = reader.read_to_string(&map) else { return Vec::new() };
    let Ok(map) = serde_json::from_str::<Value>(&text) else { return Vec::new() };
    let directory = path.parent().unwrap_or(Path::new(""));
    let source_root = map.get("sourceRoot").and_then(Value::as_str).unwrap_or("");
    let mut sources: Vec<PathBuf> = Vec::new();
    for source in map.get("sources").and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str) {
        let source = normalize(&directory.join(source_root).join(source));
        if source.is_file() && !sources.contains(&source) {
            sources.push(source);
        }
    }
    sources
}

/// Whether `name` is a TypeScript source that is no declaration file.
fn is_typescript_source_name(name: &str) -> bool {
    !is_declaration_file_name(name) && [".ts", ".tsx", ".mts", ".cts"].iter().any(|suffix| name.ends_with(suffix))
}

/// Whether `name` is a declaration map's name.
fn is_declaration_map_name(name: &str) -> bool {
    [".d.ts.map", ".d.mts.map", ".d.cts.map"].iter().any(|suffix| name.ends_with(suffix))
}

/// What one directory's own entries say (not its subdirectories').
#[derive(Debug, Clone, Copy, Default)]
struct DirectoryContents {
    declaration_maps: bool,
    typescript_sources: bool,
    javascript: bool,
}

/// The build-output classifier of one TypeScript root: the package.json and tsconfig output
/// directories read once, directories listed at most once each (beneath the workspace root, no
/// symlink followed), answers kept per file.
pub(crate) struct DeclarationBuildOutput {
    workspace_root: PathBuf,
    root: PathBuf,
    /// Output directories the package.json / tsconfig name, with their reason.
    named_directories: Vec<BuildOutputReason>,
    directories: HashMap<PathBuf, DirectoryContents>,
    files: HashMap<PathBuf, Option<BuildOutputReason>>,
}

impl DeclarationBuildOutput {
    /// The classifier for the server root `root` inside `workspace_root`. Never fails: a
    /// package.json or tsconfig.json that cannot be read or parsed names no directory.
    pub(crate) fn new(workspace_root: &Path, root: &Path) -> DeclarationBuildOutput {
        let mut classifier = DeclarationBuildOutput {
            workspace_root: workspace_root.to_path_buf(),
            root: root.to_path_buf(),
            named_directories: Vec::new(),
            directories: HashMap::new(),
            files: HashMap::new(),
        };
        for option in ["outDir", "declarationDir"] {
            if let Some(directory) = crate::lsp::tsconfig_load::resolved_compiler_option_directory(workspace_root, root, option) {
                if directory != root && directory.starts_with(root) {
                    classifier.named_directories.push(BuildOutputReason::ConfigOutput { directory, option });
                }
            }
        }
        for (field, target) in package_typings_targets(workspace_root, root) {
            let Some(directory) = normalize(&root.join(&target)).parent().map(Path::to_path_buf) else { continue };
            if directory == root || !directory.starts_with(root) {
                continue;
            }
            let contents = classifier.contents(&directory);
            if contents.typescript_sources || !(contents.javascript || contents.declaration_maps) {
                continue;
            }
            let reason = BuildOutputReason::PackageTypings { directory, field };
            if !classifier.named_directories.contains(&reason) {
                classifier.named_directories.push(reason);
            }
        }
        classifier
    }

    /// Why the declaration file `path` is build output (see the module docs); `None` for a file
    /// that is no declaration file or that nothing marks as built.
    pub(crate) fn reason(&mut self, reader: &WorkspaceReader, path: &Path) -> Option<BuildOutputReason> {
        if let Some(known) = self.files.get(path) {
            return known.clone();
        }
        let reason = self.classify(reader, path);
        self.files.insert(path.to_path_buf(), reason.clone());
        reason
    }

    /// Why the JavaScript file `path` (`.js`, `.mjs`, `.cjs`) is build output: a source map of
    /// its own, a directory the package.json typings or the tsconfig output name (the built
    /// JavaScript beside the built typings), or a directory of declaration maps with no
    /// TypeScript source; `None` for another file, or hand-written JavaScript (no map, beside
    /// sources or in a directory nothing names as output) (trial160 M6: `dist/esm/index.js`,
    /// the package's `module` entry, was renamed in while `dist/esm/index.d.ts` was refused).
    pub(crate) fn javascript_reason(&mut self, reader: &WorkspaceReader, path: &Path) -> Option<BuildOutputReason> {
        let name = path.file_name().and_then(|name| name.to_str()).unwrap_or("");
        if !is_javascript_file_name(name) {
            return None;
        }
        if path.with_file_name(format!("{name}.map")).is_file()
            || reader
                .read_to_string(path)
                .is_ok_and(|text| text.lines().rev().take(3).any(|line| line.starts_with("//# sourceMappingURL=")))
        {
            return Some(BuildOutputReason::SourceMap);
        }
        self.classify_by_directory(path)
    }

    fn classify(&mut self, reader: &WorkspaceReader, path: &Path) -> Option<BuildOutputReason> {
        let name = path.file_name().and_then(|name| name.to_str()).unwrap_or("");
        if !is_declaration_file_name(name) {
            return None;
        }
        if path.with_file_name(format!("{name}.map")).is_file()
            || reader
                .read_to_string(path)
                .is_ok_and(|text| text.lines().rev().take(3).any(|line| line.starts_with("//# sourceMappingURL=")))
        {
            return Some(BuildOutputReason::OwnMap);
        }
        self.classify_by_directory(path)
    }

    /// Why a file is build output by where it lies (the directories the package.json and the
    /// tsconfig name, a directory of declaration maps with no TypeScript source).
    fn classify_by_directory(&mut self, path: &Path) -> Option<BuildOutputReason> {
        if let Some(named) = self.named_directories.iter().find(|reason| match reason {
            BuildOutputReason::PackageTypings { directory, .. } | BuildOutputReason::ConfigOutput { directory, .. } => {
                path.starts_with(directory)
            }
            _ => false,
        }) {
            return Some(named.clone());
        }
        let mut directory = path.parent();
        while let Some(current) = directory {
            if current == self.root || !current.starts_with(&self.root) {
                break;
            }
            let contents = self.contents(current);
            if contents.declaration_maps && !contents.typescript_sources {
                return Some(BuildOutputReason::BesideMappedDeclarations { directory: current.to_path_buf() });
            }
            directory = current.parent();
        }
        None
    }

    /// The directory's own entries, listed once.
    fn contents(&mut self, directory: &Path) -> DirectoryContents {
        if let Some(known) = self.directories.get(directory) {
            return *known;
        }
        let mut contents = DirectoryContents::default();
        for (entry, _) in crate::files::walk_beneath::list_directory(&self.workspace_root, directory) {
            let Some(name) = entry.file_name().and_then(|name| name.to_str()) else { continue };
            contents.declaration_maps |= is_declaration_map_name(name);
            contents.typescript_sources |= is_typescript_source_name(name);
            contents.javascript |= [".js", ".mjs", ".cjs"].iter().any(|suffix| name.ends_with(suffix));
        }
        self.directories.insert(directory.to_path_buf(), contents);
        contents
    }
}

/// The build-output classification of any file of a workspace, for the tools that walk files
/// without a language server (`ast_grep`, `ast_edit`): each file's TypeScript root is found as
/// typescript-language-server's would be (the nearest package.json, tsconfig.json or
/// jsconfig.json, `servers::find_root`) and classified by that root's [`DeclarationBuildOutput`]
/// (one per root, kept): a declaration file by [`DeclarationBuildOutput::reason`], a JavaScript
/// file by [`DeclarationBuildOutput::javascript_reason`] (trial164 M2: `ast_edit` rewrote
/// `packages/*/dist/*.d.ts` with no note while `lsp_rename` calls them build output).
pub(crate) struct WorkspaceBuildOutput {
    workspace_root: PathBuf,
    reader: Option<WorkspaceReader>,
    definition: Option<crate::lsp::ServerDefinition>,
    by_root: HashMap<PathBuf, DeclarationBuildOutput>,
}

impl WorkspaceBuildOutput {
    /// The classifier of `workspace_root`'s files. Never fails: a workspace that cannot be
    /// opened has no build output.
    pub(crate) fn new(workspace_root: &Path) -> WorkspaceBuildOutput {
        WorkspaceBuildOutput {
            workspace_root: workspace_root.to_path_buf(),
            reader: WorkspaceReader::open(workspace_root).ok(),
            definition: crate::lsp::builtin_servers().into_iter().find(|definition| definition.id == "typescript-language-server"),
            by_root: HashMap::new(),
        }
    }

    /// Why `path` (absolute, inside the workspace) is build output; `None` for a file that is
    /// neither a declaration file nor JavaScript, lies in no TypeScript root, or that nothing
    /// marks as built.
    pub(crate) fn reason(&mut self, path: &Path) -> Option<BuildOutputReason> {
        let name = path.file_name().and_then(|name| name.to_str())?;
        let declaration = is_declaration_file_name(name);
        if !declaration && !is_javascript_file_name(name) {
            return None;
        }
        let reader = self.reader.as_ref()?;
        let root = crate::lsp::servers::find_root(self.definition.as_ref()?, &self.workspace_root, path).root?;
        let workspace_root = &self.workspace_root;
        let classifier = self.by_root.entry(root.clone()).or_insert_with(|| DeclarationBuildOutput::new(workspace_root, &root));
        if declaration {
            classifier.reason(reader, path)
        } else {
            classifier.javascript_reason(reader, path)
        }
    }
}

/// The typings targets of `root`'s package.json: (`types` / `typings` / `exports`, the target as
/// written). An `exports` string counts under a `types` condition or when it names a declaration
/// file; conditions nest to any depth.
fn package_typings_targets(workspace_root: &Path, root: &Path) -> Vec<(&'static str, String)> {
    let Ok(text) = crate::files::read_workspace_file_to_string(workspace_root, &root.join("package.json")) else { return Vec::new() };
    let Ok(package) = serde_json::from_str::<Value>(&text) else { return Vec::new() };
    let mut targets = Vec::new();
    for field in ["types", "typings"] {
        if let Some(target) = package.get(field).and_then(Value::as_str) {
            targets.push((field, target.to_owned()));
        }
    }
    fn exports_targets(value: &Value, under_types: bool, targets: &mut Vec<(&'static str, String)>) {
        match value {
            Value::String(target) => {
                let name = target.rsplit('/').next().unwrap_or(target);
                if under_types || is_declaration_file_name(name) {
                    targets.push(("exports", target.clone()));
                }
            }
            Value::Object(map) => map.iter().for_each(|(key, nested)| exports_targets(nested, under_types || key == "types", targets)),
            Value::Array(items) => items.iter().for_each(|nested| exports_targets(nested, under_types, targets)),
            _ => {}
        }
    }
    if let Some(exports) = package.get("exports") {
        exports_targets(exports, false, &mut targets);
    }
    targets
}

/// `path` with `.` and `..` components folded, without touching the file system.
fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            std::path::Component::CurDir => {}
            std::path::Component::ParentDir => {
                out.pop();
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(root: &Path, files: &[(&str, &str)]) {
        for (path, text) in files {
            let path = root.join(path);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
    }

    #[test]
    fn stubs_beside_mapped_declarations_and_under_typings_targets_are_build_output() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        write(
            &root,
            &[
                ("package.json", r#"{"types": "build/index.d.ts", "exports": {".": {"import": {"types": "./lib/modern/index.d.ts"}}}}"#),
                ("build/a.d.ts", "export declare function f(): void;\n"),
                ("build/a.d.ts.map", "{}"),
                ("build/index.d.ts", "export { f } from './a';\n"),
                ("build/nested/deep.d.ts", "export {};\n"),
                ("lib/modern/index.d.ts", "export {};\n"),
                ("lib/modern/index.js", "export {};\n"),
                ("src/env.d.ts", "declare const x: number;\n"),
                ("src/a.ts", "export function f() {}\n"),
                ("src/generated.d.ts", "export {};\n//# sourceMappingURL=generated.d.ts.map\n"),
                ("types/index.d.ts", "export {};\n"),
                ("global.d.ts", "export {};\n"),
            ],
        );
        let reader = WorkspaceReader::open(&root).unwrap();
        let mut classifier = DeclarationBuildOutput::new(&root, &root);
        let mut reason = |path: &str| classifier.reason(&reader, &root.join(path));
        assert_eq!(reason("build/a.d.ts"), Some(BuildOutputReason::OwnMap));
        assert_eq!(reason("src/generated.d.ts"), Some(BuildOutputReason::OwnMap));
        // build/ holds maps: under the package `types` target's directory first.
        assert_eq!(reason("build/index.d.ts"), Some(BuildOutputReason::PackageTypings { directory: root.join("build"), field: "types" }));
        assert_eq!(
            reason("build/nested/deep.d.ts"),
            Some(BuildOutputReason::PackageTypings { directory: root.join("build"), field: "types" })
        );
        assert_eq!(
            reason("lib/modern/index.d.ts"),
            Some(BuildOutputReason::PackageTypings { directory: root.join("lib/modern"), field: "exports" })
        );
        // Hand-written: beside sources, with no JavaScript or maps, at the root.
        assert_eq!(reason("src/env.d.ts"), None);
        assert_eq!(reason("types/index.d.ts"), None);
        assert_eq!(reason("global.d.ts"), None);
        assert_eq!(reason("src/a.ts"), None);
    }

    #[test]
    fn a_workspace_file_is_classified_by_the_root_it_lies_in() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        write(
            &root,
            &[
                ("package.json", r#"{"private": true}"#),
                ("packages/store/package.json", r#"{"types": "./src/index.ts", "module": "./dist/index.js"}"#),
                ("packages/store/src/index.ts", "export type A = Array<string>;\n"),
                ("packages/store/dist/store.d.ts", "type A = Array<any>;\n//# sourceMappingURL=store.d.ts.map"),
                ("packages/store/dist/store.js", "export {};\n//# sourceMappingURL=store.js.map"),
                ("packages/store/src/env.d.ts", "declare const x: number;\n"),
            ],
        );
        let mut classifier = WorkspaceBuildOutput::new(&root);
        assert_eq!(classifier.reason(&root.join("packages/store/dist/store.d.ts")), Some(BuildOutputReason::OwnMap));
        assert_eq!(classifier.reason(&root.join("packages/store/dist/store.js")), Some(BuildOutputReason::SourceMap));
        assert_eq!(classifier.reason(&root.join("packages/store/src/env.d.ts")), None);
        assert_eq!(classifier.reason(&root.join("packages/store/src/index.ts")), None);
    }

    #[test]
    fn a_stub_in_a_directory_of_mapped_declarations_and_the_config_output_directory_are_build_output() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        write(
            &root,
            &[
                ("tsconfig.base.json", r#"{"compilerOptions": {"declarationDir": "./out/types"}}"#),
                ("tsconfig.json", "{\"extends\": \"./tsconfig.base.json\", // base\n \"compilerOptions\": {\"strict\": true}}"),
                ("dist/chunk.d.ts", "export {};\n"),
                ("dist/chunk.d.ts.map", "{}"),
                ("dist/sub/index.d.cts", "export {};\n"),
                ("out/types/a.d.ts", "export {};\n"),
            ],
        );
        let reader = WorkspaceReader::open(&root).unwrap();
        let mut classifier = DeclarationBuildOutput::new(&root, &root);
        assert_eq!(
            classifier.reason(&reader, &root.join("dist/sub/index.d.cts")),
            Some(BuildOutputReason::BesideMappedDeclarations { directory: root.join("dist") })
        );
        assert_eq!(
            classifier.reason(&reader, &root.join("out/types/a.d.ts")),
            Some(BuildOutputReason::ConfigOutput { directory: root.join("out/types"), option: "declarationDir" })
        );
    }
}
