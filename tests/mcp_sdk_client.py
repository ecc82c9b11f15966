"""Drives `runbound serve` with the official MCP Python SDK client (PyPI `mcp`), unmodified,
through the MCP scenario of the suite; `tests/mcp_sdk_client.mjs` runs the same scenario with the
official TypeScript SDK and prints the same step lines.

Usage: python3 tests/mcp_sdk_client.py RUNBOUND_BINARY WORKSPACE

The workspace must contain `hello.txt` (`hello from the workspace`) and `tree/` with Python
files holding one `print(...)` each. The server runs with `--approve ask --kernel cpython --vibe
--worker fast=…` (see tests/it/mcp_sdk.rs). Steps: initialize (declaring elicitation), list
tools, `read` (content checked), `read` of a missing file (isError), `write` allowed once
through an elicitation (file checked), `write` declined (denied, no file), `ask_user` answered
through an elicitation, `ast_grep` over `tree/` with progress before the response, `ast_edit`
staging a rewrite of `tree/pkg_0` and `resolve` accepting it (each allowed once through an
elicitation; the files checked before and after),
`logging/setLevel notice` then `eval` allowed for the run (a notice log message says so),
an `eval` cancelled by the client (the kernel keeps its state: the next cell sees the
variable), a `debug` launch (debugpy, allowed for the run through an elicitation) of
`slow_start.py` whose phases arrive as progress before the response, and a background worker whose completion arrives as a
`notifications/runbound/worker` notification. Prints one `ok <step>` line per passed step and
exits 0; any failure raises (exit 1).
"""

import os
import sys
import time

import anyio
import mcp.types as types
from mcp import ClientSession, StdioServerParameters
from mcp.client.extension import NotificationBinding
from mcp.client.stdio import stdio_client
from pydantic import BaseModel, ConfigDict


def text_of(result: types.CallToolResult) -> str:
    return "\n".join(block.text for block in result.content if isinstance(block, types.TextContent))


class WorkerEvent(BaseModel):
    model_config = ConfigDict(extra="allow")
    worker_id: str
    label: str
    status: str
    result_excerpt: str


async def main(binary: str, workspace: str) -> None:
    prompts: list[types.ElicitRequestParams] = []
    answers = [
        {"decision": "allow once"},
        None,  # decline
        {"choice": "9090", "answer": "or any free port"},
        {"decision": "allow once"},  # ast_edit
        {"decision": "allow once"},  # resolve
        {"decision": "allow for this run"},
        {"decision": "allow for this run"},
    ]
    logs: list[types.LoggingMessageNotificationParams] = []
    workers: list[WorkerEvent] = []

    async def on_elicitation(context, params: types.ElicitRequestParams) -> types.ElicitResult:
        prompts.append(params)
        answer = answers.pop(0)
        if answer is None:
            return types.ElicitResult(action="decline")
        return types.ElicitResult(action="accept", content=answer)

    async def on_log(params: types.LoggingMessageNotificationParams) -> None:
        logs.append(params)

    async def on_worker(params: WorkerEvent) -> None:
        workers.append(params)

    worker_binding = NotificationBinding(method="notifications/runbound/worker", params_type=WorkerEvent, handler=on_worker)
    worker = "fast=cat > /dev/null; echo worker-finished"
    args = ["--workspace", workspace, "--approve", "ask", "--kernel", "cpython", "--vibe", "--worker", worker, "serve"]
    server = StdioServerParameters(command=binary, args=args)
    async with stdio_client(server) as (read_stream, write_stream):
        async with ClientSession(
            read_stream,
            write_stream,
            elicitation_callback=on_elicitation,
            logging_callback=on_log,
            notification_bindings=[worker_binding],
        ) as session:
            with anyio.fail_after(60):
                init = await session.initialize()
            assert init.server_info.name == "runbound", init
            print(f"ok initialize protocol={init.protocol_version}")

            listed = await session.list_tools()
            names = sorted(tool.name for tool in listed.tools)
            for expected in ("read", "write", "edit", "apply_patch", "ask_user", "ast_grep", "eval", "lsp", "debug", "vibe_spawn"):
                assert expected in names, names
            read_tool = next(tool for tool in listed.tools if tool.name == "read")
            assert read_tool.input_schema["type"] == "object", read_tool
            assert read_tool.annotations is not None and read_tool.annotations.read_only_hint is True, read_tool
            assert read_tool.title == "Read file", read_tool
            # Declared output shapes: the SDK validates every later structured result against them.
            for name in ("read", "write", "edit", "apply_patch", "ask_user", "ast_grep", "ast_edit", "resolve", "eval", "debug", "lsp", "vibe_spawn", "vibe_wait"):
                tool = next(tool for tool in listed.tools if tool.name == name)
                assert tool.output_schema is not None and tool.output_schema["type"] == "object", tool
            print("ok list_tools")

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
            assert "Allow write" in prompts[0].message, prompts[0]
            decision = prompts[0].requested_schema["properties"]["decision"]
            assert decision["enum"] == ["allow once", "allow for this run", "deny"], decision
            with open(os.path.join(workspace, "from_sdk.txt"), encoding="utf-8") as written:
                assert written.read() == "written via MCP\n"
            print("ok call_tool write allowed through elicitation")

            result = await session.call_tool("write", {"path": "declined.txt", "content": "never\n"})
            assert result.is_error is True, result
            assert len(prompts) == 2, prompts
            assert not os.path.exists(os.path.join(workspace, "declined.txt"))
            print("ok call_tool write declined through elicitation -> isError")

            question = {"question": "Pick a port", "options": [{"label": "8080"}, {"label": "9090"}], "allow_free_text": True}
            result = await session.call_tool("ask_user", question)
            assert result.is_error is False, text_of(result)
            assert prompts[2].requested_schema["properties"]["choice"]["enum"] == ["8080", "9090"], prompts[2]
            assert result.structured_content["selected"] == ["9090"], result.structured_content
            assert result.structured_content["free_text"] == "or any free port", result.structured_content
            print("ok ask_user answered through elicitation")

            progress: list[tuple[float, float, str | None]] = []

            async def on_progress(value: float, total: float | None, message: str | None) -> None:
                progress.append((time.monotonic(), value, message))

            arguments = {"pattern": "print($$$ARGS)", "path": "tree", "language": "python", "max_results": 3}
            result = await session.call_tool("ast_grep", arguments, progress_callback=on_progress)
            answered_at = time.monotonic()
            assert result.is_error is False, text_of(result)
            assert text_of(result).startswith("300 matches in 300 files"), text_of(result)
            await anyio.sleep(1.0)
            assert progress, "progress before the ast_grep response"
            assert all(at <= answered_at for at, _, _ in progress), "progress after the response"
            values = [value for _, value, _ in progress]
            assert all(a < b for a, b in zip(values, values[1:])), values
            assert all(message and message.endswith("files searched") for _, _, message in progress), progress
            print(f"ok ast_grep progress before the response ({len(progress)})")

            arguments = {"pattern": "print($$$ARGS)", "rewrite": "log($$$ARGS)", "path": "tree/pkg_0", "language": "python"}
            result = await session.call_tool("ast_edit", arguments)
            assert result.is_error is False, text_of(result)
            assert len(prompts) == 4 and "Allow ast_edit" in prompts[3].message, prompts[-1]
            edit_id = result.structured_content["edit_id"]
            with open(os.path.join(workspace, "tree/pkg_0/module_0.py"), encoding="utf-8") as module:
                assert "print(x, 0)" in module.read(), "ast_edit only stages"
            result = await session.call_tool("resolve", {"edit_id": edit_id, "action": "accept"})
            assert result.is_error is False, text_of(result)
            assert len(prompts) == 5 and "Allow resolve" in prompts[4].message, prompts[-1]
            assert result.structured_content["replacements"] == 50, result.structured_content
            with open(os.path.join(workspace, "tree/pkg_0/module_0.py"), encoding="utf-8") as module:
                assert module.read() == "def f(x):\n    log(x, 0)\n", "the accepted rewrite is on disk"
            print("ok ast_edit staged, resolve accepted through elicitation")

            await session.set_logging_level("notice")
            result = await session.call_tool("eval", {"code": "x = 41\nx + 1", "description": "set a variable and add one"})
            assert result.is_error is False, text_of(result)
            assert "Out: 42" in text_of(result), text_of(result)
            assert len(prompts) == 6 and "Allow eval" in prompts[5].message, prompts[-1]
            with anyio.fail_after(10):
                while not any("eval may run without asking" in log.data.get("message", "") for log in logs):
                    await anyio.sleep(0.05)
            notice = next(log for log in logs if "eval may run without asking" in log.data.get("message", ""))
            assert notice.level == "notice" and notice.logger == "runbound/registry", notice
            print("ok eval allowed for the run (notice log message)")

            with anyio.move_on_after(3):
                await session.call_tool("eval", {"code": "import time\ny = x\ntime.sleep(600)", "description": "sleep until the client cancels"})
                raise AssertionError("the sleeping cell returned instead of being cancelled")
            # The cancelled cell was interrupted (else this cell would wait behind it for hours).
            result = await session.call_tool(
                "eval", {"code": "y + 1", "description": "use the variable the cancelled cell set"}, read_timeout_seconds=120
            )
            assert result.is_error is False, text_of(result)
            assert "Out: 42" in text_of(result) and "kernel generation 1" in text_of(result), text_of(result)
            print("ok eval cancelled; the kernel kept its state")

            result = await session.call_tool("debug", {"op": "breakpoints", "file": "slow_start.py", "lines": [4]})
            assert result.is_error is False, text_of(result)
            assert len(prompts) == 7 and "Allow debug" in prompts[6].message, prompts[-1]
            debug_progress: list[tuple[float, float, str | None]] = []

            async def on_debug_progress(value: float, total: float | None, message: str | None) -> None:
                debug_progress.append((time.monotonic(), value, message))

            result = await session.call_tool(
                "debug", {"op": "launch", "program": "slow_start.py"}, read_timeout_seconds=120, progress_callback=on_debug_progress
            )
            answered_at = time.monotonic()
            assert result.is_error is False, text_of(result)
            assert "slow_start.py:4" in text_of(result), text_of(result)
            await anyio.sleep(1.0)
            assert all(at <= answered_at for at, _, _ in debug_progress), "progress after the response"
            values = [value for _, value, _ in debug_progress]
            assert all(a < b for a, b in zip(values, values[1:])), values
            messages = [message for _, _, message in debug_progress]
            assert messages and messages[0].startswith("starting the debugpy debug adapter"), messages
            assert sum("running until it stops" in message for message in messages) >= 2, messages
            result = await session.call_tool("debug", {"op": "terminate"})
            assert result.is_error is False, text_of(result)
            print(f"ok debug launch progress before the response ({len(debug_progress)})")

            result = await session.call_tool("vibe_spawn", {"brief": "say you finished", "label": "finisher", "tier": "fast"})
            assert result.is_error is False, text_of(result)
            with anyio.fail_after(60):
                while not workers:
                    await anyio.sleep(0.05)
            assert workers[0].status == "completed" and workers[0].label == "finisher", workers[0]
            assert "worker-finished" in workers[0].result_excerpt, workers[0]
            print("ok worker notification")
    print("ok session closed")


if __name__ == "__main__":
    anyio.run(main, sys.argv[1], sys.argv[2])
