//! Answers from the fresh-user trial 68 (google/uuid 1.3.0), against the real gopls and the
//! compiler, on a fixture of the same shape:
//! - F1: `implementation` of `UUID.Value` answered "no implementations found: gopls returned
//!   null", and of the type `UUID` listed 7 interfaces without `driver.Valuer` and `sql.Scanner`,
//!   which database/sql calls dynamically; M1: renaming `Value` gave no warning that the type
//!   stops implementing `driver.Valuer` (a query argument then fails at run time).
//!
//! Ground truth: the compiler (`var _ driver.Valuer = ID{}` compiles).

use crate::support;

use serde_json::json;

const ID: &str = "package ids\n\nimport \"database/sql/driver\"\n\n// ID is an identifier.\ntype ID [4]byte\n\n// Scan implements sql.Scanner.\nfunc (id *ID) Scan(src interface{}) error { return nil }\n\n// Value implements driver.Valuer.\nfunc (id ID) Value() (driver.Value, error) { return id[:], nil }\n";

#[test]
fn database_sql_interfaces_are_named_on_implementation_and_rename() {
    let test = "lsp_trial68::database_sql_interfaces_are_named_on_implementation_and_rename";
    if support::require_binary(test, "gopls").is_none() || support::require_binary(test, "go").is_none() {
        return;
    }
    let dir = support::workspace_with(&[("go.mod", "module example.com/ids\n\ngo 1.19\n"), ("ids.go", ID)]);
    std::fs::write(
        dir.path().join("proof.go"),
        "package ids\n\nimport (\n\t\"database/sql\"\n\t\"database/sql/driver\"\n)\n\nvar _ driver.Valuer = ID{}\nvar _ sql.Scanner = (*ID)(nil)\n",
    )
    .unwrap();
    assert!(support::go_offline(dir.path(), &["build", "./..."]).status.success(), "ground truth");
    std::fs::remove_file(dir.path().join("proof.go")).unwrap();
    let run = support::lsp_run_allowing_writes(dir.path());
    let text = support::call_ok(&run, "lsp", json!({"op": "implementation", "file": "ids.go", "line": 6, "symbol": "ID"}));
    // `Scan` has a pointer receiver: only `*ID` implements sql.Scanner (trial169 M7).
    for (interface, method, place) in [
        ("driver.Valuer", "Value", "ids.go:12"),
        ("sql.Scanner", "Scan", "ids.go:9, a pointer receiver: `*ID` implements it, a value of type `ID` does not"),
    ] {
        let short = interface.rsplit('.').next().unwrap();
        let listed = text.contains(&format!("type {short} interface"));
        let named = text.contains(&format!("`{interface}` ({method} at {place})"));
        assert!(listed || named, "{interface} is neither listed nor named:\n{text}");
    }
    let text =
        support::call_ok(&run, "lsp", json!({"op": "implementation", "file": "ids.go", "line": 12, "symbol": "Value", "occurrence": 1}));
    assert!(
        text.contains("Value() (Value, error)") || text.contains("`Value` has the name and parameters of the method of `driver.Valuer`"),
        "{text}"
    );
    let text = support::call_ok(
        &run,
        "lsp_rename",
        json!({"file": "ids.go", "line": 12, "symbol": "Value", "occurrence": 1, "new_name": "DatabaseValue", "preview": true}),
    );
    assert!(text.contains("WARNING: the renamed method has the name and parameters of `driver.Valuer`"), "{text}");
}
