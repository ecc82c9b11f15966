//! The op enums of `lsp` and `debug` as their input schemas list them, against the tools' own op
//! lists (moved from `tests/it/contract.rs`, which checks the rest of the tool contract
//! through a run).

use serde_json::Value;

#[test]
fn op_enums_of_lsp_and_debug_are_the_tools_op_lists() {
    let values_of = |schema: &Value, property: &str| -> Vec<String> {
        let op = &schema["properties"][property];
        let values = op["enum"]
            .as_array()
            .cloned()
            .unwrap_or_else(|| op["oneOf"].as_array().unwrap_or(&Vec::new()).iter().map(|branch| branch["const"].clone()).collect());
        values.iter().map(|value| value.as_str().expect("a string value").to_owned()).collect()
    };
    let ops = |schema: &Value| values_of(schema, "op");
    let lsp = crate::lsp::tool::descriptor();
    assert_eq!(ops(&lsp.input_schema), crate::lsp::tool::OPS.to_vec(), "{}", lsp.input_schema);
    let debug = crate::debug::tool::descriptor();
    let debug_ops = ops(&debug.input_schema);
    for op in ["adapters", "breakpoints", "launch", "attach", "step_over", "variables", "evaluate", "output", "terminate"] {
        assert!(debug_ops.contains(&op.to_owned()), "{op} in {debug_ops:?}");
    }
    assert_eq!(values_of(&debug.input_schema, "adapter"), ["debugpy", "lldb", "delve", "dart"], "{}", debug.input_schema);
}
