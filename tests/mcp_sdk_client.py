"""Drives `runbound serve` with the official MCP Python SDK client (PyPI `mcp`), unmodified.

Usage: python3 tests/mcp_sdk_client.py RUNBOUND_BINARY WORKSPACE

The workspace must contain `hello.txt` with the line `hello from the workspace`. The script
initializes a ClientSession over stdio_client (declaring elicitation through a callback), lists
tools, calls `read` (content checked), calls `read` on a missing file (isError checked), calls
`write` under `--approve ask` (a permission prompt answered "allow once" by the elicitation
callback; the file is checked on disk), and calls `write` again answered "decline" (denied).
Prints one `ok <step>` line per passed step and exits 0; any failure raises (exit 1).
"""

import os
import sys

import anyio
import mcp.types as types
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client


def text_of(result: types.CallToolResult) -> str:
    return "\n".join(block.text for block in result.content if isinstance(block, types.TextContent))


async def main(binary: str, workspace: str) -> None:
    prompts: list[types.ElicitRequestParams] = []
    answers = ["allow once", None]  # None: decline

    async def on_elicitation(context, params: types.ElicitRequestParams) -> types.ElicitResult:
        prompts.append(params)
        answer = answers.pop(0)
        if answer is None:
            return types.ElicitResult(action="decline")
        return types.ElicitResult(action="accept", content={"decision": answer})

    server = StdioServerParameters(command=binary, args=["--workspace", workspace, "--approve", "ask", "serve"])
    async with stdio_client(server) as (read_stream, write_stream):
        async with ClientSession(read_stream, write_stream, elicitation_callback=on_elicitation) as session:
            with anyio.fail_after(60):
                init = await session.initialize()
            assert init.server_info.name == "runbound", init
            print(f"ok initialize protocol={init.protocol_version}")

            listed = await session.list_tools()
            names = sorted(tool.name for tool in listed.tools)
            for expected in ("read", "write", "edit", "apply_patch", "ask_user"):
                assert expected in names, names
            read_tool = next(tool for tool in listed.tools if tool.name == "read")
            assert read_tool.input_schema["type"] == "object", read_tool
            assert read_tool.annotations is not None and read_tool.annotations.read_only_hint is True, read_tool
            print(f"ok list_tools {names}")

            result = await session.call_tool("read", {"path": "hello.txt"})
            assert result.is_error is False, result
            assert "hello from the workspace" in text_of(result), result
            print("ok call_tool read")

            result = await session.call_tool("read", {"path": "does/not/exist.txt"})
            assert result.is_error is True, result
            assert "does/not/exist.txt" in text_of(result), result
            print("ok call_tool read on a missing file -> isError")

            result = await session.call_tool("write", {"path": "from_sdk.txt", "content": "written via MCP\n"})
            assert result.is_error is False, (result, prompts)
            assert len(prompts) == 1, prompts
            prompt = prompts[0]
            assert "Allow write" in prompt.message, prompt
            decision = prompt.requested_schema["properties"]["decision"]
            assert decision["enum"] == ["allow once", "allow for this run", "deny"], decision
            with open(os.path.join(workspace, "from_sdk.txt"), encoding="utf-8") as written:
                assert written.read() == "written via MCP\n"
            print("ok call_tool write allowed through elicitation")

            result = await session.call_tool("write", {"path": "declined.txt", "content": "never\n"})
            assert result.is_error is True, result
            assert len(prompts) == 2, prompts
            assert not os.path.exists(os.path.join(workspace, "declined.txt"))
            print("ok call_tool write declined through elicitation -> isError")
    print("ok session closed")


if __name__ == "__main__":
    anyio.run(main, sys.argv[1], sys.argv[2])
