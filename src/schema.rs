//! The tool contract as typed data: every tool's input and output JSON Schemas are derived from
//! the Rust types that take its arguments and produce its `structuredContent` (schemars), so a
//! schema cannot drift from the code beside it.
//!
//! - [`input_schema`]: the schema of an argument struct. Field doc comments become
//!   `description`s; `#[serde(default)]` values become `default`; `#[schemars(range(min = 1))]`
//!   becomes `minimum`; enums deserialized by serde become `enum`s; `#[serde(deny_unknown_fields)]`
//!   becomes `"additionalProperties": false` (a misspelled field is caught before the tool runs).
//! - [`output_schema`]: MCP 2025-06-18 `outputSchema`: `{"type": "object", "anyOf": [<the
//!   tool's result>, <the shared error shape>]}`. Both branches are declared because a failed call
//!   also carries `structuredContent` (the error shape, [`crate::error::ToolErrorContent`]) and
//!   hosts validate whatever `structuredContent` arrives (the TypeScript SDK client does,
//!   `isError` or not).
//!
//! The schemas are shaped for what MCP hosts accept: `"type": "object"` at the root, every
//! subschema inlined (no `$ref`/`$defs`: the TypeScript SDK compiles schemas with Ajv in its
//! draft-07 mode and has no 2020-12 meta-schema, so no `$schema` either), only the `format`s the
//! JSON Schema drafts define (schemars' `uint`/`int64`… would make Ajv warn on the host's
//! stderr), and no Rust type names as `title`s. Types used in contracts must not be recursive
//! (a recursive type cannot be inlined; [`input_schema`] and [`output_schema`] panic on a
//! `$ref`, which any test that builds a run catches).

use schemars::generate::{Contract, SchemaSettings};
use schemars::JsonSchema;
use serde_json::{json, Map, Value};

use crate::error::ToolErrorContent;

/// `format` values JSON Schema itself defines; any other (`uint`, `int64`, `double`, …) is
/// dropped.
const DEFINED_FORMATS: &[&str] = &[
    "date-time",
    "date",
    "time",
    "duration",
    "email",
    "idn-email",
    "hostname",
    "idn-hostname",
    "ipv4",
    "ipv6",
    "uri",
    "uri-reference",
    "iri",
    "iri-reference",
    "uuid",
    "uri-template",
    "json-pointer",
    "relative-json-pointer",
    "regex",
];

/// The JSON Schema (draft 2020-12, every subschema inlined) of a tool's arguments object, `T`
/// being the struct the tool deserializes its arguments into.
///
/// Optional fields (`Option<T>`, or with a serde default) accept their type only, not `null`,
/// as the arguments a model should send.
///
/// # Panics
/// When `T` does not describe a JSON object or is recursive (a `$ref` remains): a programming
/// error caught by any test that builds a run.
pub fn input_schema<T: JsonSchema>() -> Value {
    let mut schema = generate::<T>(Contract::Deserialize);
    drop_null_from_optional_properties(&mut schema);
    checked_object_root::<T>(schema)
}

/// The MCP `outputSchema` of a tool whose successful `structuredContent` is `T` serialized with
/// serde: `{"type": "object", "anyOf": [<T>, <the shared error shape>]}` (see the module docs).
///
/// # Panics
/// As [`input_schema`].
pub fn output_schema<T: JsonSchema>() -> Value {
    let mut result = generate::<T>(Contract::Serialize);
    plain_enums(&mut result);
    let result = checked_object_root::<T>(result);
    json!({
        "type": "object",
        "anyOf": [result, error_schema()],
    })
}

/// [`output_schema`] of a tool that writes files: its result may also carry
/// `diagnostics_on_write`, the language-server diagnostics of the written files that the
/// diagnostics-on-write layer adds after a successful write (an object; its fields are that
/// layer's, see `crate::lsp`).
///
/// # Panics
/// As [`input_schema`].
pub fn writing_output_schema<T: JsonSchema>() -> Value {
    let mut schema = output_schema::<T>();
    if let Some(Value::Object(properties)) = schema.pointer_mut("/anyOf/0/properties") {
        properties.insert(
            "diagnostics_on_write".to_owned(),
            json!({
                "type": "object",
                "description": "Language-server diagnostics of the written files (new, resolved, still unresolved), added after a successful write when language servers are wired; absent otherwise."
            }),
        );
    }
    schema
}

/// The schema of the error shape every failed call carries in `structuredContent`:
/// `{"error": {"kind", "message", "hint"?, "details"?}}` ([`ToolErrorContent`]).
pub fn error_schema() -> Value {
    let mut schema = generate::<ToolErrorContent>(Contract::Serialize);
    plain_enums(&mut schema);
    checked_object_root::<ToolErrorContent>(schema)
}

/// In an output schema, an enum whose variants are documented (schemars writes `oneOf` of
/// `{"const", "description"}`) becomes a plain `{"type": "string", "enum": [...]}`: the variant
/// docs serve a model choosing an argument, not a host validating a result, and every tool's
/// `outputSchema` repeats the error kinds (this keeps `tools/list` small).
fn plain_enums(schema: &mut Value) {
    match schema {
        Value::Object(map) => {
            let consts: Option<Vec<Value>> = map.get("oneOf").and_then(Value::as_array).and_then(|branches| {
                branches
                    .iter()
                    .map(|branch| {
                        let branch = branch.as_object()?;
                        let only_metadata = branch.keys().all(|key| matches!(key.as_str(), "const" | "description" | "type"));
                        only_metadata.then(|| branch.get("const").filter(|value| value.is_string()).cloned()).flatten()
                    })
                    .collect()
            });
            if let Some(consts) = consts.filter(|consts| !consts.is_empty()) {
                map.remove("oneOf");
                map.insert("type".to_owned(), json!("string"));
                map.insert("enum".to_owned(), Value::Array(consts));
            }
            map.values_mut().for_each(plain_enums);
        }
        Value::Array(items) => items.iter_mut().for_each(plain_enums),
        _ => {}
    }
}

/// The schema of `T` for `contract`, inlined, without `$schema`, root `title` or undefined
/// formats.
fn generate<T: JsonSchema>(contract: Contract) -> Value {
    let settings = SchemaSettings::draft2020_12().with(|settings| {
        settings.inline_subschemas = true;
        settings.meta_schema = None;
        settings.contract = contract;
    });
    let mut schema = settings.into_generator().into_root_schema_for::<T>().to_value();
    if let Value::Object(root) = &mut schema {
        root.remove("title");
        // The struct's doc comment is written for Rust readers; the tool's description speaks
        // to the model.
        root.remove("description");
    }
    drop_undefined_formats(&mut schema);
    schema
}

fn checked_object_root<T: JsonSchema>(mut schema: Value) -> Value {
    // An untagged enum of structs is `anyOf` object branches: the root is an object too, said
    // where MCP hosts look for it.
    let branches_are_objects = |key: &str| {
        schema
            .get(key)
            .and_then(Value::as_array)
            .is_some_and(|branches| !branches.is_empty() && branches.iter().all(|branch| branch.get("type") == Some(&json!("object"))))
    };
    if schema.get("type").is_none() && (branches_are_objects("anyOf") || branches_are_objects("oneOf")) {
        schema["type"] = json!("object");
    }
    let text = schema.to_string();
    assert!(!text.contains("\"$ref\""), "the contract type {} is recursive or not inlined: {text}", T::schema_name());
    assert_eq!(schema.get("type"), Some(&json!("object")), "the contract type {} is not a JSON object: {text}", T::schema_name());
    schema
}

/// Removes `format` values JSON Schema does not define, everywhere in `schema`.
fn drop_undefined_formats(schema: &mut Value) {
    match schema {
        Value::Object(map) => {
            if map.get("format").and_then(Value::as_str).is_some_and(|format| !DEFINED_FORMATS.contains(&format)) {
                map.remove("format");
            }
            map.values_mut().for_each(drop_undefined_formats);
        }
        Value::Array(items) => items.iter_mut().for_each(drop_undefined_formats),
        _ => {}
    }
}

/// In every object schema, a property that is not required accepts its type only: `"type":
/// ["integer", "null"]` becomes `"type": "integer"`, and `anyOf: [X, {"type": "null"}]` becomes
/// X (keeping the property's description and default).
fn drop_null_from_optional_properties(schema: &mut Value) {
    match schema {
        Value::Object(map) => {
            let required: Vec<String> = map
                .get("required")
                .and_then(Value::as_array)
                .map(|names| names.iter().filter_map(Value::as_str).map(str::to_owned).collect())
                .unwrap_or_default();
            if let Some(Value::Object(properties)) = map.get_mut("properties") {
                for (name, property) in properties.iter_mut() {
                    if !required.contains(name) {
                        drop_null(property);
                    }
                }
            }
            map.values_mut().for_each(drop_null_from_optional_properties);
        }
        Value::Array(items) => items.iter_mut().for_each(drop_null_from_optional_properties),
        _ => {}
    }
}

fn drop_null(property: &mut Value) {
    let Value::Object(map) = property else { return };
    if let Some(Value::Array(types)) = map.get_mut("type") {
        types.retain(|kind| kind != "null");
        if types.len() == 1 {
            let single = types.remove(0);
            map.insert("type".to_owned(), single);
        }
    }
    let null_branch = |branch: &Value| branch == &json!({"type": "null"});
    if let Some(Value::Array(branches)) = map.get("anyOf") {
        if branches.len() == 2 && branches.iter().any(null_branch) {
            let kept = branches.iter().find(|branch| !null_branch(branch)).cloned().unwrap_or(Value::Bool(true));
            map.remove("anyOf");
            if let Value::Object(kept) = kept {
                for (key, value) in kept {
                    map.entry(key).or_insert(value);
                }
            }
        }
    }
    if map.get("enum").and_then(Value::as_array).is_some_and(|values| values.contains(&Value::Null)) {
        if let Some(Value::Array(values)) = map.get_mut("enum") {
            values.retain(|value| !value.is_null());
        }
    }
}

/// The serde name of a unit enum variant (`#[serde(rename_all = …)]` applied), e.g.
/// `variant_name(&ErrorKind::NotFound) == Some("not_found")`; `None` for anything that does not
/// serialize as a unit variant. Lets an enum's `as_str` come from its serde attributes instead
/// of a second, hand-written table.
pub fn variant_name<T: serde::Serialize + ?Sized>(value: &T) -> Option<&'static str> {
    value.serialize(VariantNameSerializer).ok()
}

/// A serializer that accepts only unit variants and returns their (static) serde name.
struct VariantNameSerializer;

/// Why [`VariantNameSerializer`] refused a value: it was not a unit variant.
#[derive(Debug)]
struct NotAUnitVariant;

impl std::fmt::Display for NotAUnitVariant {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("not a unit enum variant")
    }
}

impl std::error::Error for NotAUnitVariant {}

impl serde::ser::Error for NotAUnitVariant {
    fn custom<M: std::fmt::Display>(_message: M) -> Self {
        NotAUnitVariant
    }
}

macro_rules! refuse {
    ($($method:ident($($argument:ty),*)),* $(,)?) => {
        $(fn $method(self, $(_: $argument),*) -> Result<Self::Ok, Self::Error> { Err(NotAUnitVariant) })*
    };
}

impl serde::Serializer for VariantNameSerializer {
    type Ok = &'static str;
    type Error = NotAUnitVariant;
    type SerializeSeq = serde::ser::Impossible<&'static str, NotAUnitVariant>;
    type SerializeTuple = serde::ser::Impossible<&'static str, NotAUnitVariant>;
    type SerializeTupleStruct = serde::ser::Impossible<&'static str, NotAUnitVariant>;
    type SerializeTupleVariant = serde::ser::Impossible<&'static str, NotAUnitVariant>;
    type SerializeMap = serde::ser::Impossible<&'static str, NotAUnitVariant>;
    type SerializeStruct = serde::ser::Impossible<&'static str, NotAUnitVariant>;
    type SerializeStructVariant = serde::ser::Impossible<&'static str, NotAUnitVariant>;

    fn serialize_unit_variant(self, _name: &'static str, _index: u32, variant: &'static str) -> Result<&'static str, NotAUnitVariant> {
        Ok(variant)
    }

    refuse!(
        serialize_bool(bool),
        serialize_i8(i8),
        serialize_i16(i16),
        serialize_i32(i32),
        serialize_i64(i64),
        serialize_u8(u8),
        serialize_u16(u16),
        serialize_u32(u32),
        serialize_u64(u64),
        serialize_f32(f32),
        serialize_f64(f64),
        serialize_char(char),
        serialize_str(&str),
        serialize_bytes(&[u8]),
        serialize_none(),
        serialize_unit(),
        serialize_unit_struct(&'static str),
    );

    fn serialize_some<T: serde::Serialize + ?Sized>(self, _value: &T) -> Result<&'static str, NotAUnitVariant> {
        Err(NotAUnitVariant)
    }

    fn serialize_newtype_struct<T: serde::Serialize + ?Sized>(
        self,
        _name: &'static str,
        _value: &T,
    ) -> Result<&'static str, NotAUnitVariant> {
        Err(NotAUnitVariant)
    }

    fn serialize_newtype_variant<T: serde::Serialize + ?Sized>(
        self,
        _name: &'static str,
        _index: u32,
        _variant: &'static str,
        _value: &T,
    ) -> Result<&'static str, NotAUnitVariant> {
        Err(NotAUnitVariant)
    }

    fn serialize_seq(self, _len: Option<usize>) -> Result<Self::SerializeSeq, NotAUnitVariant> {
        Err(NotAUnitVariant)
    }

    fn serialize_tuple(self, _len: usize) -> Result<Self::SerializeTuple, NotAUnitVariant> {
        Err(NotAUnitVariant)
    }

    fn serialize_tuple_struct(self, _name: &'static str, _len: usize) -> Result<Self::SerializeTupleStruct, NotAUnitVariant> {
        Err(NotAUnitVariant)
    }

    fn serialize_tuple_variant(
        self,
        _name: &'static str,
        _index: u32,
        _variant: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeTupleVariant, NotAUnitVariant> {
        Err(NotAUnitVariant)
    }

    fn serialize_map(self, _len: Option<usize>) -> Result<Self::SerializeMap, NotAUnitVariant> {
        Err(NotAUnitVariant)
    }

    fn serialize_struct(self, _name: &'static str, _len: usize) -> Result<Self::SerializeStruct, NotAUnitVariant> {
        Err(NotAUnitVariant)
    }

    fn serialize_struct_variant(
        self,
        _name: &'static str,
        _index: u32,
        _variant: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeStructVariant, NotAUnitVariant> {
        Err(NotAUnitVariant)
    }
}

/// Puts `value` (a typed tool output) into JSON for `structuredContent`.
///
/// Serialization of the crate's output types cannot fail (string keys, no non-finite floats
/// are produced); should it ever, the result carries the serializer's message instead of
/// silently nothing.
pub fn to_structured<T: serde::Serialize>(value: &T) -> Value {
    serde_json::to_value(value).unwrap_or_else(|err| {
        let mut map = Map::new();
        map.insert("serialization_error".to_owned(), Value::String(err.to_string()));
        Value::Object(map)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The arguments of a test tool.
    #[derive(serde::Deserialize, JsonSchema)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Arguments {
        /// Where to look.
        path: String,
        /// First line, 1-based.
        #[schemars(range(min = 1))]
        start_line: Option<usize>,
        /// Every occurrence.
        #[serde(default)]
        replace_all: bool,
        /// How to look.
        mode: Option<Mode>,
    }

    #[derive(serde::Deserialize, serde::Serialize, JsonSchema)]
    #[serde(rename_all = "snake_case")]
    enum Mode {
        FastPath,
        Slow,
    }

    #[test]
    fn input_schema_keeps_descriptions_defaults_minimums_and_enums_and_drops_null() {
        let schema = input_schema::<Arguments>();
        assert_eq!(schema["type"], "object");
        assert_eq!(schema["additionalProperties"], false);
        assert_eq!(schema["required"], json!(["path"]));
        assert_eq!(schema["properties"]["path"]["description"], "Where to look.");
        assert_eq!(schema["properties"]["start_line"], json!({"type": "integer", "minimum": 1, "description": "First line, 1-based."}));
        assert_eq!(schema["properties"]["replace_all"]["default"], false);
        assert_eq!(schema["properties"]["mode"]["enum"], json!(["fast_path", "slow"]), "{schema}");
        assert_eq!(schema["properties"]["mode"]["description"], "How to look.");
        for absent in ["$schema", "title", "$defs", "format", "null"] {
            assert!(!schema.to_string().contains(absent), "{absent} in {schema}");
        }
    }

    #[test]
    fn output_schema_declares_the_result_and_the_shared_error_shape() {
        #[derive(serde::Serialize, JsonSchema)]
        struct Output {
            path: String,
            next: Option<u32>,
        }
        let schema = output_schema::<Output>();
        assert_eq!(schema["type"], "object");
        let branches = schema["anyOf"].as_array().unwrap();
        assert_eq!(branches[0]["required"], json!(["path", "next"]));
        assert_eq!(branches[0]["properties"]["next"]["type"], json!(["integer", "null"]));
        assert_eq!(branches[1]["required"], json!(["error"]));
        let kind = &branches[1]["properties"]["error"]["properties"]["kind"];
        assert_eq!(kind["type"], "string", "{kind}");
        assert!(kind["enum"].as_array().unwrap().contains(&json!("not_found")), "{kind}");
    }

    #[test]
    fn variant_names_come_from_serde() {
        assert_eq!(variant_name(&Mode::FastPath), Some("fast_path"));
        assert_eq!(variant_name(&crate::error::ErrorKind::HiddenFromCaller), Some("hidden_from_caller"));
        assert_eq!(variant_name(&"text"), None);
    }
}
