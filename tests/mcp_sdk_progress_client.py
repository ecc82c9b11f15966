"""Progress and logging from `runbound serve`, seen through the official MCP Python SDK client
(PyPI `mcp`), unmodified.

Usage: python3 tests/mcp_sdk_progress_client.py RUNBOUND CRATE FILE LINE SYMBOL TREE

- CRATE: a Rust crate directory (its own workspace); FILE (relative to CRATE), LINE (1-based)
  and SYMBOL address a `definition` request that needs rust-analyzer, started cold.
- TREE: a workspace with many Python files for `ast_grep`.

Each tool call passes a `progress_callback` (the SDK then sets `params._meta.progressToken`).
The script checks that progress arrived before the response, that `progress` increased, and that
nothing arrived for the call after its response; it also checks that a write refused for want of
a human arrives as a `warning` log message (logging callback) and that `logging/setLevel error`
mutes the next one. Prints one `ok …` line per passed step (with the progress messages seen) and
the `definition` answer after `answer:`; any failure raises (exit 1).
"""

import sys
import time

import anyio
import mcp.types as types
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client


def text_of(result: types.CallToolResult) -> str:
    return "\n".join(block.text for block in result.content if isinstance(block, types.TextContent))


class ProgressRecorder:
    """Collects (time, progress, total, message) for one call; `closed_at` marks its response."""

    def __init__(self) -> None:
        self.events: list[tuple[float, float, float | None, str | None]] = []
        self.started_at = time.monotonic()
        self.closed_at: float | None = None

    async def __call__(self, progress: float, total: float | None, message: str | None) -> None:
        self.events.append((time.monotonic(), progress, total, message))

    def check(self, what: str) -> None:
        assert self.events, f"{what}: no progress arrived before the response"
        values = [progress for _, progress, _, _ in self.events]
        assert all(a < b for a, b in zip(values, values[1:])), f"{what}: progress did not increase: {values}"
        assert self.closed_at is not None
        late = [event for event in self.events if event[0] > self.closed_at]
        assert not late, f"{what}: progress after the response: {late}"

    def largest_silence(self) -> float:
        """The longest stretch (seconds) without progress, from the call to its response."""
        times = [self.started_at] + [at for at, _, _, _ in self.events] + [self.closed_at]
        return max(b - a for a, b in zip(times, times[1:]))


async def call_with_progress(session: ClientSession, name: str, arguments: dict, what: str):
    recorder = ProgressRecorder()
    result = await session.call_tool(name, arguments, progress_callback=recorder)
    recorder.closed_at = time.monotonic()
    # Anything still in flight for this call would arrive now.
    await anyio.sleep(1.5)
    recorder.check(what)
    return result, recorder


async def lsp_session(binary: str, crate: str, file: str, line: int, symbol: str) -> None:
    logs: list[types.LoggingMessageNotificationParams] = []

    async def on_log(params: types.LoggingMessageNotificationParams) -> None:
        logs.append(params)

    server = StdioServerParameters(command=binary, args=["--workspace", crate, "--approve", "ask", "serve"])
    async with stdio_client(server) as (read_stream, write_stream):
        async with ClientSession(read_stream, write_stream, logging_callback=on_log) as session:
            with anyio.fail_after(60):
                await session.initialize()
            with anyio.fail_after(600):
                result, recorder = await call_with_progress(
                    session, "lsp", {"op": "definition", "file": file, "line": line, "symbol": symbol}, "lsp definition"
                )
            assert result.is_error is False, text_of(result)
            messages = [message for _, _, _, message in recorder.events if message]
            assert any(message.startswith("rust-analyzer: ") for message in messages), messages
            # Also while rust-analyzer computes the answer after the readiness wait (it once went
            # silent for 14 s there): never a long silence.
            silence = recorder.largest_silence()
            assert silence < 8.0, f"lsp definition: {silence:.1f} s without progress: {messages}"
            print(f"ok lsp progress {len(recorder.events)} before the response, largest silence {silence:.1f} s: {messages[:3]} … {messages[-1:]}")
            print("answer: " + text_of(result).replace("\n", "\n  "))

            # A write under --approve ask with no elicitation: denied, and the operator is told.
            result = await session.call_tool("write", {"path": "denied.txt", "content": "x\n"})
            assert result.is_error is True, text_of(result)
            with anyio.fail_after(10):
                while not logs:
                    await anyio.sleep(0.05)
            log = logs[0]
            assert log.level == "warning" and log.logger == "runbound/registry", log
            assert "write was denied without asking" in log.data["message"], log
            print(f"ok logging warning: {log.data['message']}")
            await session.set_logging_level("error")
            result = await session.call_tool("write", {"path": "denied.txt", "content": "x\n"})
            assert result.is_error is True
            await anyio.sleep(0.5)
            assert len(logs) == 1, [entry.data for entry in logs]
            print("ok logging/setLevel error mutes warnings")


async def tree_session(binary: str, tree: str) -> None:
    server = StdioServerParameters(command=binary, args=["--workspace", tree, "serve"])
    async with stdio_client(server) as (read_stream, write_stream):
        async with ClientSession(read_stream, write_stream) as session:
            with anyio.fail_after(60):
                await session.initialize()
            with anyio.fail_after(600):
                result, recorder = await call_with_progress(
                    session, "ast_grep", {"pattern": "print($$$ARGS)", "language": "python", "max_results": 5}, "ast_grep"
                )
            assert result.is_error is False, text_of(result)
            messages = [message for _, _, _, message in recorder.events if message]
            assert all(message.endswith("files searched") for message in messages), messages
            print(f"ok ast_grep progress {len(recorder.events)} before the response: {messages[:2]} … {messages[-1:]}")
            print("ast_grep: " + text_of(result).splitlines()[0])


async def main(binary: str, crate: str, file: str, line: str, symbol: str, tree: str) -> None:
    await tree_session(binary, tree)
    await lsp_session(binary, crate, file, int(line), symbol)
    print("ok sessions closed")


if __name__ == "__main__":
    anyio.run(main, *sys.argv[1:7])
