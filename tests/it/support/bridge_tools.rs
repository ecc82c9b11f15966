//! Test tools registered next to the built-in ones, for bridge tests (eval cells calling
//! registry tools): a read-tier reader, a write-tier writer, and a slow read-tier tool.

use std::sync::Arc;
use std::time::Duration;

use runbound::{Tier, ToolDescriptor, ToolError, ToolOutput, ToolResult};
use serde_json::{json, Value};

/// `read_note` (read tier): `{"path"}` relative to the workspace → the file's text.
pub fn read_note_tool() -> (ToolDescriptor, runbound::ToolHandler) {
    (
        ToolDescriptor {
            name: "read_note".to_owned(),
            description: "Reads a workspace file (test tool).".to_owned(),
            tier: Tier::Read,
            input_schema: json!({"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"], "additionalProperties": false}),
            title: "Test tool".to_owned(),
            output_schema: None,
            annotations: runbound::ToolAnnotations::for_tier(Tier::Read),
            parallel_safe: true,
            default_timeout: Duration::from_secs(30),
        },
        Arc::new(|ctx: &runbound::CallContext<'_>, arguments: Value| -> Result<ToolOutput, ToolError> {
            let path = ctx.workspace_root().join(arguments["path"].as_str().unwrap_or(""));
            let text = std::fs::read_to_string(&path).map_err(|err| ToolError::io("read", &path, &err))?;
            Ok(ToolOutput::text(text))
        }),
    )
}

/// `write_note` (write tier): `{"path", "text"}` → writes the file; reports it as written.
pub fn write_note_tool() -> (ToolDescriptor, runbound::ToolHandler) {
    (
        ToolDescriptor {
            name: "write_note".to_owned(),
            description: "Writes a workspace file (test tool).".to_owned(),
            tier: Tier::Write,
            input_schema: json!({"type": "object", "properties": {"path": {"type": "string"}, "text": {"type": "string"}}, "required": ["path", "text"], "additionalProperties": false}),
            title: "Test tool".to_owned(),
            output_schema: None,
            annotations: runbound::ToolAnnotations::for_tier(Tier::Write),
            parallel_safe: true,
            default_timeout: Duration::from_secs(30),
        },
        Arc::new(|ctx: &runbound::CallContext<'_>, arguments: Value| -> Result<ToolOutput, ToolError> {
            let path = ctx.workspace_root().join(arguments["path"].as_str().unwrap_or(""));
            std::fs::write(&path, arguments["text"].as_str().unwrap_or("")).map_err(|err| ToolError::io("write", &path, &err))?;
            Ok(ToolOutput::new(ToolResult::text("written").with_structured(json!({"written": true}))).with_written_paths(vec![path]))
        }),
    )
}

/// `slow_fanout` (read tier): sleeps `sleep`, then answers "fan-out finished".
pub fn slow_tool(sleep: Duration) -> (ToolDescriptor, runbound::ToolHandler) {
    (
        ToolDescriptor {
            name: "slow_fanout".to_owned(),
            description: "Sleeps, then answers (test tool).".to_owned(),
            tier: Tier::Read,
            input_schema: json!({"type": "object", "additionalProperties": false}),
            title: "Test tool".to_owned(),
            output_schema: None,
            annotations: runbound::ToolAnnotations::for_tier(Tier::Read),
            parallel_safe: true,
            default_timeout: Duration::from_secs(60),
        },
        Arc::new(move |_ctx: &runbound::CallContext<'_>, _arguments: Value| -> Result<ToolOutput, ToolError> {
            std::thread::sleep(sleep);
            Ok(ToolOutput::text("fan-out finished"))
        }),
    )
}
