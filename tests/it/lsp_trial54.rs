//! Wrong answers from the fresh-user trial 54 (@trpc/server 10.45.2), against the real tsserver
//! and node, on a fixture of the same shape:
//! - F2: a constructor's parameter property (`constructor(public field: string)`) of a class
//!   extending `Error`, renamed to `message`: no class hierarchy check ran (parameter properties
//!   were no members) and the built-in base was not read; `err.message` silently changed.
//!
//! Ground truth: node running the compiled class.

use crate::support;

use serde_json::json;

#[test]
fn a_parameter_property_renamed_to_a_member_of_the_built_in_error_base_is_warned() {
    let test = "lsp_trial54::a_parameter_property_renamed_to_a_member_of_the_built_in_error_base_is_warned";
    if support::require_binary(test, "typescript-language-server").is_none() || support::require_binary(test, "tsc").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        (
            "tsconfig.json",
            r#"{"compilerOptions": {"strict": true, "target": "es2022", "module": "commonjs", "outDir": "out"}, "include": ["src"]}"#,
        ),
        (
            "src/errors.ts",
            "export class MaxPartSizeExceededError extends Error {\n  constructor(public field: string, public maxBytes: number) {\n    super(`Field \"${field}\" exceeded upload size of ${maxBytes} bytes.`);\n  }\n}\n",
        ),
    ]);
    let run = support::lsp_run_allowing_writes(dir.path());
    let text = support::call_ok(
        &run,
        "lsp_rename",
        json!({"file": "src/errors.ts", "line": 2, "symbol": "field", "new_name": "message", "preview": true}),
    );
    assert!(text.contains("WARNING: the built-in base class `Error` already has a member `message`"), "{text}");
    let text = support::call_ok(
        &run,
        "lsp_rename",
        json!({"file": "src/errors.ts", "line": 2, "symbol": "maxBytes", "new_name": "limit", "preview": true}),
    );
    assert!(!text.contains("WARNING: the built-in base") && text.contains("`limit` among the members of 1 class"), "{text}");
    // Ground truth: with the rename applied, the error's message is the field's value.
    let source = std::fs::read_to_string(dir.path().join("src/errors.ts")).unwrap();
    std::fs::write(dir.path().join("src/errors.ts"), source.replace("public field", "public message").replace("${field}", "${message}"))
        .unwrap();
    let compiled = std::process::Command::new("tsc").args(["-p", "tsconfig.json"]).current_dir(dir.path()).output().expect("tsc");
    assert!(compiled.status.success(), "{compiled:?}");
    if support::require_binary(test, "node").is_some() {
        let output = std::process::Command::new("node")
            .args(["-e", "const { MaxPartSizeExceededError } = require('./out/errors.js'); console.log(new MaxPartSizeExceededError('avatar', 3).message)"])
            .current_dir(dir.path())
            .output()
            .expect("node");
        assert_eq!(String::from_utf8_lossy(&output.stdout).trim(), "avatar", "{output:?}");
    }
}

/// F4: `references` of a trait's required method: its doc-test uses call it on a concrete type,
/// which resolves to that type's impl; they are named as this symbol's uses. Ground truth: the
/// doc-test calls it (`cargo test --doc` runs it).
#[test]
fn references_of_a_required_trait_method_name_its_doc_test_uses_through_impls() {
    let test = "lsp_trial54::references_of_a_required_trait_method_name_its_doc_test_uses_through_impls";
    if support::require_binary(test, "rust-analyzer").is_none() || support::require_binary(test, "cargo").is_none() {
        return;
    }
    let lib = "/// Bytes left to read.\npub trait Buf {\n    /// How many bytes are left.\n    ///\n    /// ```\n    /// use bufs::Buf;\n    /// let b: &[u8] = b\"abc\";\n    /// assert_eq!(b.remaining(), 3);\n    /// ```\n    fn remaining(&self) -> usize;\n}\n\nimpl Buf for &[u8] {\n    fn remaining(&self) -> usize {\n        self.len()\n    }\n}\n\n/// Whether anything is left.\npub fn has_any(buf: &impl Buf) -> bool {\n    buf.remaining() > 0\n}\n";
    let dir = support::workspace_with(&[
        ("Cargo.toml", "[package]\nname = \"bufs\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\n"),
        ("src/lib.rs", lib),
    ]);
    let run = support::lsp_run_allowing_writes(dir.path());
    let text = support::call_ok(&run, "lsp", json!({"op": "references", "file": "src/lib.rs", "line": 10, "symbol": "remaining"}));
    assert!(
        text.contains("references in doc-test examples")
            && text.contains("1 use that rust-analyzer resolved, in a copy of the example, to this symbol: src/lib.rs:8"),
        "{text}"
    );
}

/// F3: a member of an interface the package does not export by name, but that an exported
/// interface extends (trpc's `RuntimeConfig`, inherited by the exported `RootConfig`), is public.
#[test]
fn a_member_inherited_by_an_exported_interface_gets_a_public_api_note() {
    let test = "lsp_trial54::a_member_inherited_by_an_exported_interface_gets_a_public_api_note";
    if support::require_binary(test, "typescript-language-server").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("package.json", r#"{"name": "@demo/server", "version": "1.0.0", "main": "dist/index.js", "types": "dist/index.d.ts"}"#),
        ("tsconfig.json", r#"{"compilerOptions": {"strict": true, "noEmit": true, "target": "es2020", "module": "esnext", "moduleResolution": "bundler"}, "include": ["src"]}"#),
        ("src/index.ts", "export type { RootConfig } from './config';\n"),
        (
            "src/config.ts",
            "export interface RuntimeConfig {\n  errorFormatter: (message: string) => string;\n}\n\nexport interface RootConfig extends RuntimeConfig {\n  types: number;\n}\n\ninterface Hidden {\n  secret: number;\n}\n\nexport const hidden: Hidden = { secret: 1 };\n",
        ),
    ]);
    let run = support::lsp_run_allowing_writes(dir.path());
    let text = support::call_ok(
        &run,
        "lsp_rename",
        json!({"file": "src/config.ts", "line": 2, "symbol": "errorFormatter", "new_name": "formatError", "preview": true}),
    );
    assert!(
        text.contains("a member of the interface `RuntimeConfig`, which the exported `RootConfig` extends — the package `@demo/server` exports `RootConfig` from `@demo/server`"),
        "{text}"
    );
    let text = support::call_ok(
        &run,
        "lsp_rename",
        json!({"file": "src/config.ts", "line": 10, "symbol": "secret", "new_name": "hiddenValue", "preview": true}),
    );
    assert!(!text.contains("public API changed"), "Hidden is not reached from the package's entry:\n{text}");
}
