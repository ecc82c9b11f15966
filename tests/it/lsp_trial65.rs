//! Answers from the fresh-user trial 65 (bits-and-blooms/bitset 1.2.2), against the real gopls
//! and go/types' view as the compiler has it, on a fixture of the same shape:
//! - F1: `implementation` of `BitSet` listed 9 interfaces and not `io.WriterTo` / `io.ReaderFrom`,
//!   which it implements; at its `WriteTo` method: "no implementations found".
//!
//! - M2: renaming the interface method `Tester.Len` and following the remedy (renaming the
//!   implementation `BitSet.Len`) left `ExampleBitSet_Len`, and go vet failed; no answer named it.
//!
//! Ground truth: the compiler (`var _ io.WriterTo = (*Bits)(nil)` compiles); go vet.

use crate::support;

use serde_json::json;

const BITS: &str = "package bits\n\nimport \"io\"\n\n// Bits is a set of bits.\ntype Bits struct{ words []uint64 }\n\n// Len is its length.\nfunc (b *Bits) Len() uint { return uint(len(b.words)) }\n\n// WriteTo writes it.\nfunc (b *Bits) WriteTo(stream io.Writer) (int64, error) { return 0, nil }\n\n// ReadFrom reads it.\nfunc (b *Bits) ReadFrom(stream io.Reader) (int64, error) { return 0, nil }\n";

#[test]
fn implementation_names_the_standard_interfaces_gopls_leaves_out() {
    let test = "lsp_trial65::implementation_names_the_standard_interfaces_gopls_leaves_out";
    if support::require_binary(test, "gopls").is_none() || support::require_binary(test, "go").is_none() {
        return;
    }
    let dir = support::workspace_with(&[("go.mod", "module example.com/bits\n\ngo 1.19\n"), ("bits.go", BITS)]);
    // Ground truth: the compiler accepts both assignments; sort.Interface is not implemented.
    std::fs::write(
        dir.path().join("proof.go"),
        "package bits\n\nimport \"io\"\n\nvar _ io.WriterTo = (*Bits)(nil)\nvar _ io.ReaderFrom = (*Bits)(nil)\n",
    )
    .unwrap();
    assert!(support::go_offline(dir.path(), &["build", "./..."]).status.success(), "ground truth");
    std::fs::remove_file(dir.path().join("proof.go")).unwrap();
    let run = support::lsp_run_allowing_writes(dir.path());
    let text = support::call_ok(&run, "lsp", json!({"op": "implementation", "file": "bits.go", "line": 6, "symbol": "Bits"}));
    for (interface, method, line) in [("io.WriterTo", "WriteTo", 12), ("io.ReaderFrom", "ReadFrom", 15)] {
        let short = interface.rsplit('.').next().unwrap();
        let listed = text.contains(&format!("type {short} interface"));
        // Pointer receivers: only `*Bits` implements them (trial169 M7).
        let named = text.contains(&format!(
            "`{interface}` ({method} at bits.go:{line}, a pointer receiver: `*Bits` implements it, a value of type `Bits` does not)"
        ));
        assert!(listed || named, "{interface} is neither listed nor named:\n{text}");
    }
    assert!(!text.contains("sort.Interface"), "Len alone is no sort.Interface:\n{text}");
    let text = support::call_ok(&run, "lsp", json!({"op": "implementation", "file": "bits.go", "line": 12, "symbol": "WriteTo"}));
    assert!(
        text.contains("WriteTo(w Writer)") || text.contains("`WriteTo` has the name and parameters of the method of `io.WriterTo`"),
        "{text}"
    );
}

#[test]
fn an_interface_method_rename_names_the_examples_of_its_implementations() {
    let test = "lsp_trial65::an_interface_method_rename_names_the_examples_of_its_implementations";
    if support::require_binary(test, "gopls").is_none() || support::require_binary(test, "go").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("go.mod", "module example.com/bits\n\ngo 1.19\n"),
        ("bits.go", BITS),
        ("bits_test.go", "package bits\n\nimport \"fmt\"\n\nfunc ExampleBits_Len() {\n\tfmt.Println((&Bits{}).Len())\n\t// Output: 0\n}\n"),
        ("usage/usage.go", "package usage\n\n// Tester has a length.\ntype Tester interface {\n\tLen() uint\n}\n\n// Size of t.\nfunc Size(t Tester) uint { return t.Len() }\n"),
    ]);
    assert!(support::go_offline(dir.path(), &["vet", "./..."]).status.success(), "ground truth: vet passes before");
    let run = support::lsp_run_allowing_writes(dir.path());
    let text = support::call_ok(
        &run,
        "lsp_rename",
        json!({"file": "usage/usage.go", "line": 5, "symbol": "Len", "new_name": "Length", "preview": true}),
    );
    assert!(text.contains("`ExampleBits_Len` (bits_test.go:5, once its type's method is renamed too)"), "{text}");
    // Ground truth: with the implementation renamed (what the remedy does), vet reports the example.
    std::fs::write(dir.path().join("bits.go"), BITS.replace(") Len() uint", ") Length() uint")).unwrap();
    std::fs::write(dir.path().join("bits_test.go"), "package bits\n\nfunc ExampleBits_Len() {\n}\n").unwrap();
    let vet = support::go_offline(dir.path(), &["vet", "./..."]);
    assert!(String::from_utf8_lossy(&vet.stderr).contains("ExampleBits_Len refers to unknown field or method"), "{vet:?}");
}
