//! A Go write that changes which of its types implement an interface the standard library
//! checks dynamically, said in the write check (R-DOW-1; issue 11, trial169 M1).
//!
//! blang/semver v4: `func (v Version) MarshalJSON()` → `func (v *Version) MarshalJSON()` compiles,
//! `go vet` is clean and gopls reports nothing, yet a `Version` value no longer implements
//! `json.Marshaler`: `json.Marshal(v)` silently encodes the struct's fields, and `TestJSONMarshal`
//! failed while the write check said "no new errors". A rename of such a method is warned about
//! (`rename_coverage::go_dynamic_standard_interface`); [`dynamic_interface_changes`] finds the
//! same loss in any write by comparing the method declarations of a file's old and new text: a
//! receiver that became a pointer (values lose the interface), a method that is gone or whose
//! signature no longer matches (the type loses it), and a pointer receiver that became a value
//! (values gain it: calls that used the default behaviour now reach the method).
//!
//! Declarations are read line by line (`func (v T) Name(…)`, one-line signatures, as gofmt
//! writes them); a method moved to another file of the same write is no loss.

use crate::lsp::rename_coverage::{go_dynamic_caller, go_dynamic_standard_interface};

/// A method declaration of a Go file that implements a dynamically checked standard interface
/// (or had the name of one).
#[derive(Debug, Clone, PartialEq, Eq)]
struct MethodDeclaration {
    /// The receiver's type name, without `*` and type parameters (`Version`).
    receiver_type: String,
    /// The receiver is a pointer (`*Version`).
    pointer_receiver: bool,
    /// The method's name.
    name: String,
    /// The interface its name and parameters match, if any.
    interface: Option<&'static str>,
    /// Its parameter list closes on the declaration's line: only then are they read (gofmt
    /// may wrap them over lines, review49 M7).
    parameters_on_line: bool,
}

/// The receiver of the Go method declaration `line` (`func (p *Pair[K, V]) Name(…`): its type's
/// name without type parameters (`Pair`), whether it is a pointer, and the text after the
/// receiver's `)`. `None` for a line that declares no method. Type parameters may hold spaces
/// (gofmt writes `[K, V]`), so the type is read before the first `[`.
pub(crate) fn go_receiver(line: &str) -> Option<(String, bool, &str)> {
    let rest = line.strip_prefix("func (")?;
    let (receiver, after) = rest.split_once(')')?;
    let before_type_parameters = receiver.split('[').next().unwrap_or(receiver);
    let written = before_type_parameters.split_whitespace().last()?;
    let type_name: String = written.trim_start_matches('*').chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
    (!type_name.is_empty()).then(|| (type_name, written.starts_with('*'), after))
}

/// The method declarations of Go `text`.
fn method_declarations(text: &str) -> Vec<MethodDeclaration> {
    let mut found = Vec::new();
    for line in text.lines() {
        let Some((receiver_type, pointer_receiver, after)) = go_receiver(line) else { continue };
        let name: String = after.trim_start().chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
        if name.is_empty() {
            continue;
        }
        let interface = go_dynamic_standard_interface(line, &name);
        let parameters_on_line = after.trim_start()[name.len()..].contains(')');
        found.push(MethodDeclaration { receiver_type, pointer_receiver, name, interface, parameters_on_line });
    }
    found
}

/// One change of a written file's methods that changes which values implement a dynamically
/// checked standard interface.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DynamicInterfaceChange {
    /// The receiver's type name (`Version`).
    pub receiver_type: String,
    /// The method (`MarshalJSON`).
    pub method: String,
    /// The interface (`json.Marshaler`).
    pub interface: &'static str,
    /// What changed.
    pub kind: DynamicInterfaceChangeKind,
}

/// How a write changed a type's implementation of a dynamically checked interface.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DynamicInterfaceChangeKind {
    /// The receiver became a pointer: values of the type no longer implement it (pointers do).
    ValuesLose,
    /// The method is gone, or its parameters no longer match: the type no longer implements it.
    TypeLoses,
    /// The receiver became a value: values implement it now (before, only pointers did).
    ValuesGain,
}

/// The changes between `old` and `new` (a written Go file's texts) that change which values
/// implement a dynamically checked standard interface; a method found in `elsewhere_new` (the
/// new texts of the write's other files) is not lost.
pub fn dynamic_interface_changes(old: &str, new: &str, elsewhere_new: &[&str]) -> Vec<DynamicInterfaceChange> {
    let old_methods = method_declarations(old);
    let new_methods = method_declarations(new);
    let elsewhere: Vec<MethodDeclaration> = elsewhere_new.iter().flat_map(|text| method_declarations(text)).collect();
    // sort.Interface takes all three of `Len`, `Less`, `Swap` (review of trial161: a lone `Len`
    // is no sort.Interface, lsp_trial161).
    let implements = |methods: &[MethodDeclaration], method: &MethodDeclaration| {
        method.interface != Some("sort.Interface")
            || ["Len", "Less", "Swap"].iter().all(|name| {
                methods.iter().any(|other| {
                    other.receiver_type == method.receiver_type && other.name == *name && other.interface == Some("sort.Interface")
                })
            })
    };
    let mut changes = Vec::new();
    for before in old_methods.iter().filter(|method| method.interface.is_some() && implements(&old_methods, method)) {
        let interface = before.interface.unwrap_or_default();
        let same = |method: &&MethodDeclaration| method.receiver_type == before.receiver_type && method.name == before.name;
        let after = new_methods.iter().find(same).or_else(|| elsewhere.iter().find(same));
        let kind = match after {
            // Parameters wrapped over lines are not read: unknown, not lost.
            Some(after) if after.interface != before.interface && !after.parameters_on_line => None,
            Some(after) if after.interface != before.interface => Some(DynamicInterfaceChangeKind::TypeLoses),
            Some(after) if !before.pointer_receiver && after.pointer_receiver => Some(DynamicInterfaceChangeKind::ValuesLose),
            // A method that fills its receiver (an unmarshaler, a scanner) is called through a
            // pointer anyway: values gaining it change nothing (recheck49 N4).
            Some(after) if before.pointer_receiver && !after.pointer_receiver && !fills_its_receiver(&before.name) => {
                Some(DynamicInterfaceChangeKind::ValuesGain)
            }
            Some(_) => None,
            None => Some(DynamicInterfaceChangeKind::TypeLoses),
        };
        if let Some(kind) = kind {
            changes.push(DynamicInterfaceChange {
                receiver_type: before.receiver_type.clone(),
                method: before.name.clone(),
                interface,
                kind,
            });
        }
    }
    changes
}

/// Whether the method `name` of a standard interface fills its receiver (`UnmarshalJSON`, `Scan`,
/// `GobDecode`, `ReadFrom`): the library calls it through a pointer only.
fn fills_its_receiver(name: &str) -> bool {
    name.starts_with("Unmarshal") || matches!(name, "Scan" | "GobDecode" | "ReadFrom")
}

/// The write check's WARNING for `changes` of the file shown as `file`, or `None` when there
/// are none.
pub fn dynamic_interface_changes_note(file: &str, changes: &[DynamicInterfaceChange]) -> Option<String> {
    if changes.is_empty() {
        return None;
    }
    let said: Vec<String> = changes
        .iter()
        .map(|change| {
            let (receiver, method, interface) = (&change.receiver_type, &change.method, change.interface);
            let caller = go_dynamic_caller(interface);
            match change.kind {
                DynamicInterfaceChangeKind::ValuesLose => format!(
                    "`{method}` now has a pointer receiver, so a `{receiver}` value no longer implements `{interface}` (only `*{receiver}` does): where a value is handed to {caller}, the call no longer reaches `{method}` and the default behaviour runs instead"
                ),
                DynamicInterfaceChangeKind::TypeLoses => format!(
                    "`{receiver}.{method}` is gone or no longer has `{interface}`'s parameters, so `{receiver}` no longer implements `{interface}`: calls from {caller} no longer reach it"
                ),
                DynamicInterfaceChangeKind::ValuesGain => format!(
                    "`{method}` now has a value receiver, so a `{receiver}` value implements `{interface}` (before, only `*{receiver}` did): where a value is handed to {caller}, the call now reaches `{method}` instead of the default behaviour"
                ),
            }
        })
        .collect();
    Some(format!(
        "WARNING: this write to {file} changes which values implement an interface the standard library checks at run time — {} — with NO compile error (gopls and go vet cannot see it, \"no new errors\" says nothing about it); next step: run the tests that encode, print or scan these values (`go test ./...`), or keep the method and its receiver as they were",
        said.join("; ")
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    const JSON_GO: &str = "package semver\n\nimport \"encoding/json\"\n\nfunc (v Version) MarshalJSON() ([]byte, error) {\n\treturn json.Marshal(v.String())\n}\n\nfunc (v *Version) UnmarshalJSON(data []byte) (err error) {\n\treturn nil\n}\n\nfunc (v Version) Helper() {}\n";

    fn kinds(old: &str, new: &str) -> Vec<(String, &'static str, DynamicInterfaceChangeKind)> {
        dynamic_interface_changes(old, new, &[]).into_iter().map(|change| (change.method, change.interface, change.kind)).collect()
    }

    #[test]
    fn a_receiver_made_a_pointer_loses_the_interface_for_values() {
        // blang/semver v4 (trial169 M1).
        let new = JSON_GO.replace("func (v Version) MarshalJSON", "func (v *Version) MarshalJSON");
        assert_eq!(kinds(JSON_GO, &new), vec![("MarshalJSON".to_owned(), "json.Marshaler", DynamicInterfaceChangeKind::ValuesLose)]);
        let note = dynamic_interface_changes_note("json.go", &dynamic_interface_changes(JSON_GO, &new, &[])).unwrap();
        assert!(note.contains("a `Version` value no longer implements `json.Marshaler` (only `*Version` does)"), "{note}");
        // And back: values gain it.
        assert_eq!(kinds(&new, JSON_GO), vec![("MarshalJSON".to_owned(), "json.Marshaler", DynamicInterfaceChangeKind::ValuesGain)]);
    }

    #[test]
    fn sort_interface_counts_with_its_three_methods_and_filling_methods_gain_nothing() {
        // lsp_trial161: a lone `Len` renamed is no lost sort.Interface.
        let lone = "package p\n\nfunc (t *Tree) Len() int { return 0 }\n";
        assert!(kinds(lone, &lone.replace("Len()", "Count()")).is_empty());
        let full = "package p\n\nfunc (a byInts) Len() int { return 0 }\nfunc (a byInts) Less(i, j int) bool { return false }\nfunc (a byInts) Swap(i, j int) {}\n";
        assert_eq!(
            kinds(full, &full.replace("Len()", "Count()")),
            vec![("Len".to_owned(), "sort.Interface", DynamicInterfaceChangeKind::TypeLoses)]
        );
        // recheck49 N4: `Scan` given a value receiver changes nothing database/sql does.
        let scan = "package p\n\nfunc (v *Version) Scan(src interface{}) error { return nil }\n";
        assert!(kinds(scan, &scan.replace("(v *Version)", "(v Version)")).is_empty());
    }

    #[test]
    fn receivers_with_type_parameters_and_without_a_name_are_read() {
        // review49 H4: gofmt writes `[K, V]`; the last word of the receiver was `V]`.
        assert_eq!(
            go_receiver("func (p *Pair[K, V]) MarshalJSON() ([]byte, error) {").map(|(t, p, _)| (t, p)),
            Some(("Pair".to_owned(), true))
        );
        assert_eq!(go_receiver("func (p Pair[K, V]) String() string {").map(|(t, p, _)| (t, p)), Some(("Pair".to_owned(), false)));
        assert_eq!(go_receiver("func (v Version[T]) String() string {").map(|(t, p, _)| (t, p)), Some(("Version".to_owned(), false)));
        assert_eq!(go_receiver("func (*T) M() {}").map(|(t, p, _)| (t, p)), Some(("T".to_owned(), true)));
        assert_eq!(go_receiver("func main() {}"), None);
        let old = "package p\n\nfunc (p Pair[K, V]) MarshalJSON() ([]byte, error) {\n\treturn nil, nil\n}\n";
        let new = old.replace("func (p Pair[K, V])", "func (p *Pair[K, V])");
        assert_eq!(kinds(old, &new), vec![("MarshalJSON".to_owned(), "json.Marshaler", DynamicInterfaceChangeKind::ValuesLose)]);
    }

    #[test]
    fn a_removed_renamed_or_reshaped_method_loses_the_interface_unless_it_moved() {
        let renamed = JSON_GO.replace("UnmarshalJSON(data", "Decode(data");
        assert_eq!(kinds(JSON_GO, &renamed), vec![("UnmarshalJSON".to_owned(), "json.Unmarshaler", DynamicInterfaceChangeKind::TypeLoses)]);
        let reshaped = JSON_GO.replace("MarshalJSON() (", "MarshalJSON(indent bool) (");
        assert_eq!(kinds(JSON_GO, &reshaped), vec![("MarshalJSON".to_owned(), "json.Marshaler", DynamicInterfaceChangeKind::TypeLoses)]);
        // Parameters wrapped over lines by gofmt: not read, no loss said (review49 M7).
        let wrapped = JSON_GO.replace("UnmarshalJSON(data []byte) (err error) {", "UnmarshalJSON(\n\tdata []byte,\n) (err error) {");
        assert!(kinds(JSON_GO, &wrapped).is_empty(), "{wrapped}");
        // Moved to another file of the same write: no loss.
        let moved_out = JSON_GO.replace("func (v Version) MarshalJSON", "func (v Version) marshalJSONOld");
        let other = "package semver\n\nfunc (v Version) MarshalJSON() ([]byte, error) {\n\treturn nil, nil\n}\n";
        assert!(dynamic_interface_changes(JSON_GO, &moved_out, &[other]).is_empty());
        // Unrelated methods and a body change say nothing.
        assert!(kinds(JSON_GO, &JSON_GO.replace("func (v Version) Helper() {}", "func (v *Version) Helper() {}")).is_empty());
        assert!(kinds(JSON_GO, &JSON_GO.replace("v.String()", "v.Major")).is_empty());
    }
}
