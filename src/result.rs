//! Tool results in the shape every agent runtime already parses: MCP's `CallToolResult`.
//!
//! Wire shape (MCP 2025-06-18, `CallToolResult`):
//! `{"content":[{"type":"text","text":…},{"type":"image","data":<base64>,"mimeType":"image/png"}],
//!   "structuredContent":{…},"isError":false}`.
//! Text content is written for an LLM: compact, 1-based lines, never silently empty.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// One content block of a result (MCP `ContentBlock`, the subset runbound produces).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "lowercase")]
pub enum Content {
    /// Plain text (markdown allowed) for the model.
    Text {
        /// The text.
        text: String,
    },
    /// An image, e.g. a matplotlib figure from `eval`.
    Image {
        /// Base64 (standard alphabet, padded) of the image bytes.
        data: String,
        /// MIME type, e.g. `image/png`.
        #[serde(rename = "mimeType")]
        mime_type: String,
    },
}

/// The result of one tool call (MCP `CallToolResult`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolResult {
    /// Content blocks, in order. Never empty: an empty answer says so in text.
    pub content: Vec<Content>,
    /// Machine-readable form of the same answer, when the tool has one.
    #[serde(rename = "structuredContent", skip_serializing_if = "Option::is_none", default)]
    pub structured_content: Option<Value>,
    /// `true` when the call failed; the text then says what failed and what to do next.
    #[serde(rename = "isError", default)]
    pub is_error: bool,
}

impl ToolResult {
    /// A successful result with one text block.
    pub fn text(text: impl Into<String>) -> ToolResult {
        ToolResult { content: vec![Content::Text { text: text.into() }], structured_content: None, is_error: false }
    }

    /// A failed result with one text block.
    pub fn error_text(text: impl Into<String>) -> ToolResult {
        ToolResult { content: vec![Content::Text { text: text.into() }], structured_content: None, is_error: true }
    }

    /// Sets the structured content.
    #[must_use]
    pub fn with_structured(mut self, value: Value) -> ToolResult {
        self.structured_content = Some(value);
        self
    }

    /// Appends a text block.
    pub fn push_text(&mut self, text: impl Into<String>) {
        self.content.push(Content::Text { text: text.into() });
    }

    /// Appends a PNG image given its raw bytes (base64-encoded here).
    pub fn push_png(&mut self, png_bytes: &[u8]) {
        use base64::Engine as _;
        let data = base64::engine::general_purpose::STANDARD.encode(png_bytes);
        self.content.push(Content::Image { data, mime_type: "image/png".to_owned() });
    }

    /// All text blocks joined with newlines (images skipped). Handy for tests and the CLI.
    pub fn joined_text(&self) -> String {
        let mut out = String::new();
        for block in &self.content {
            if let Content::Text { text } = block {
                if !out.is_empty() {
                    out.push('\n');
                }
                out.push_str(text);
            }
        }
        out
    }

    /// Serializes to the MCP JSON shape.
    pub fn to_json(&self) -> Value {
        serde_json::to_value(self).unwrap_or_else(
            |err| serde_json::json!({"content":[{"type":"text","text":format!("result could not be serialized: {err}")}],"isError":true}),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serializes_to_mcp_shape() {
        let mut res = ToolResult::text("hi").with_structured(serde_json::json!({"a":1}));
        res.push_png(b"\x89PNG");
        let json = res.to_json();
        assert_eq!(json["content"][0], serde_json::json!({"type":"text","text":"hi"}));
        assert_eq!(json["content"][1]["type"], "image");
        assert_eq!(json["content"][1]["mimeType"], "image/png");
        assert_eq!(json["content"][1]["data"], "iVBORw==");
        assert_eq!(json["structuredContent"]["a"], 1);
        assert_eq!(json["isError"], false);
        let back: ToolResult = serde_json::from_value(json).unwrap();
        assert_eq!(back, res);
    }
}
