"""A minimal MCP client of `runbound serve` over stdio for the benches (JSON lines, one reader
thread, requests answered by id): `Client(binary, workspace, name).call(tool, arguments)` returns
`(result, text, elapsed_seconds)`. Used by dow_multi_file_write.py and dow_write_phases.py."""

import json
import queue
import subprocess
import threading
import time


class Client:
    def __init__(self, binary, workspace, name="runbound-bench"):
        self.process = subprocess.Popen(
            ["nice", binary, "--workspace", workspace, "--approve", "allow", "serve"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, bufsize=1)
        self.next_id = 0
        self.pending = {}
        threading.Thread(target=self._read, daemon=True).start()
        self.request("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                    "clientInfo": {"name": name, "version": "0"}})
        self._send({"jsonrpc": "2.0", "method": "notifications/initialized", "params": {}})

    def _read(self):
        for line in self.process.stdout:
            try:
                message = json.loads(line)
            except ValueError:
                continue
            if "id" in message and message["id"] in self.pending:
                self.pending[message["id"]].put(message)

    def _send(self, message):
        self.process.stdin.write(json.dumps(message) + "\n")
        self.process.stdin.flush()

    def request(self, method, params, timeout=600):
        self.next_id += 1
        answer = queue.Queue()
        self.pending[self.next_id] = answer
        self._send({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params})
        return answer.get(timeout=timeout)

    def call(self, tool, arguments):
        started = time.monotonic()
        message = self.request("tools/call", {"name": tool, "arguments": arguments})
        elapsed = time.monotonic() - started
        result = message.get("result") or {}
        text = "\n".join(part.get("text", "") for part in result.get("content", []))
        return result, text, elapsed

    def close(self):
        self.process.stdin.close()
        self.process.wait(timeout=60)
