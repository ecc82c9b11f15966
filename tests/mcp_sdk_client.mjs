// Drives `runbound serve` with the official MCP TypeScript SDK client (npm
// `@modelcontextprotocol/sdk`, installed by .ci/install into .tools/), unmodified, through the
// same scenario as tests/mcp_sdk_client.py, printing the same `ok <step>` lines.
//
// Usage: node tests/mcp_sdk_client.mjs SDK_DIR RUNBOUND_BINARY WORKSPACE
// (SDK_DIR: the package directory, e.g. .tools/node_modules/@modelcontextprotocol/sdk.)
// Any failure throws (exit 1).

import assert from "node:assert/strict";
import { readFileSync, existsSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const [sdkDir, binary, workspace] = process.argv.slice(2);
const load = (relative) => import(pathToFileURL(join(sdkDir, "dist/esm", relative)).href);
const { Client } = await load("client/index.js");
const { StdioClientTransport } = await load("client/stdio.js");
const { ElicitRequestSchema, LoggingMessageNotificationSchema } = await load("types.js");

const textOf = (result) => result.content.filter((block) => block.type === "text").map((block) => block.text).join("\n");
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
async function until(what, condition, ms) {
  const end = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

const prompts = [];
const answers = [
  { decision: "allow once" },
  null, // decline
  { choice: "9090", answer: "or any free port" },
  { decision: "allow once" }, // ast_edit
  { decision: "allow once" }, // resolve
  { decision: "allow for this run" },
  { decision: "allow for this run" },
];
const logs = [];
const workers = [];

const worker = "fast=cat > /dev/null; echo worker-finished";
const transport = new StdioClientTransport({
  command: binary,
  args: ["--workspace", workspace, "--approve", "ask", "--kernel", "cpython", "--vibe", "--worker", worker, "serve"],
  env: { PATH: process.env.PATH, HOME: process.env.HOME ?? "/" },
  stderr: "inherit",
});
const client = new Client({ name: "runbound-ts-sdk-test", version: "1.0.0" }, { capabilities: { elicitation: {} } });
client.setRequestHandler(ElicitRequestSchema, async (request) => {
  prompts.push(request.params);
  const answer = answers.shift();
  return answer === null ? { action: "decline" } : { action: "accept", content: answer };
});
client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => {
  logs.push(notification.params);
});
client.fallbackNotificationHandler = async (notification) => {
  if (notification.method === "notifications/runbound/worker") workers.push(notification.params);
};

// The client hands the negotiated version to transports that take it (stdio does not).
let negotiated = null;
transport.setProtocolVersion = (version) => {
  negotiated = version;
};
await client.connect(transport);
assert.equal(client.getServerVersion().name, "runbound");
console.log(`ok initialize protocol=${negotiated}`);

const listed = await client.listTools();
const names = listed.tools.map((tool) => tool.name).sort();
for (const expected of ["read", "write", "edit", "apply_patch", "ask_user", "ast_grep", "eval", "lsp", "debug", "vibe_spawn"]) {
  assert.ok(names.includes(expected), `${expected} in ${names}`);
}
const readTool = listed.tools.find((tool) => tool.name === "read");
assert.equal(readTool.inputSchema.type, "object");
assert.equal(readTool.annotations.readOnlyHint, true);
assert.equal(readTool.title, "Read file");
// Declared output shapes: the SDK validates every structuredContent below against them.
for (const name of ["read", "write", "edit", "apply_patch", "ask_user", "ast_grep", "ast_edit", "resolve", "eval", "debug", "lsp", "vibe_spawn", "vibe_wait"]) {
  const tool = listed.tools.find((candidate) => candidate.name === name);
  assert.equal(tool.outputSchema?.type, "object", `${name} declares an outputSchema`);
}
console.log("ok list_tools");

let result = await client.callTool({ name: "read", arguments: { path: "hello.txt" } });
assert.equal(result.isError, false, textOf(result));
assert.ok(textOf(result).includes("hello from the workspace"));
console.log("ok call_tool read");

result = await client.callTool({ name: "read", arguments: { path: "does/not/exist.txt" } });
assert.equal(result.isError, true);
assert.ok(textOf(result).includes("does/not/exist.txt"));
console.log("ok call_tool read on a missing file -> isError");

result = await client.callTool({ name: "write", arguments: { path: "from_sdk.txt", content: "written via MCP\n" } });
assert.equal(result.isError, false, textOf(result));
assert.equal(prompts.length, 1);
assert.ok(prompts[0].message.includes("Allow write"), prompts[0].message);
assert.deepEqual(prompts[0].requestedSchema.properties.decision.enum, ["allow once", "allow for this run", "deny"]);
assert.equal(readFileSync(join(workspace, "from_sdk.txt"), "utf8"), "written via MCP\n");
console.log("ok call_tool write allowed through elicitation");

result = await client.callTool({ name: "write", arguments: { path: "declined.txt", content: "never\n" } });
assert.equal(result.isError, true);
assert.equal(prompts.length, 2);
assert.ok(!existsSync(join(workspace, "declined.txt")));
console.log("ok call_tool write declined through elicitation -> isError");

result = await client.callTool({
  name: "ask_user",
  arguments: { question: "Pick a port", options: [{ label: "8080" }, { label: "9090" }], allow_free_text: true },
});
assert.equal(result.isError, false, textOf(result));
assert.deepEqual(prompts[2].requestedSchema.properties.choice.enum, ["8080", "9090"]);
assert.deepEqual(result.structuredContent.selected, ["9090"]);
assert.equal(result.structuredContent.free_text, "or any free port");
console.log("ok ask_user answered through elicitation");

const progress = [];
result = await client.callTool(
  { name: "ast_grep", arguments: { pattern: "print($$$ARGS)", path: "tree", language: "python", max_results: 3 } },
  undefined,
  { onprogress: (update) => progress.push({ at: Date.now(), ...update }) },
);
const answeredAt = Date.now();
assert.equal(result.isError, false, textOf(result));
assert.ok(textOf(result).startsWith("300 matches in 300 files"), textOf(result));
await sleep(1000);
assert.ok(progress.length > 0, "progress before the ast_grep response");
assert.ok(progress.every((update) => update.at <= answeredAt), "progress after the response");
for (let i = 1; i < progress.length; i++) assert.ok(progress[i - 1].progress < progress[i].progress, JSON.stringify(progress));
assert.ok(progress.every((update) => update.message?.endsWith("files searched")), JSON.stringify(progress));
console.log(`ok ast_grep progress before the response (${progress.length})`);

result = await client.callTool({
  name: "ast_edit",
  arguments: { pattern: "print($$$ARGS)", rewrite: "log($$$ARGS)", path: "tree/pkg_0", language: "python" },
});
assert.equal(result.isError, false, textOf(result));
assert.equal(prompts.length, 4);
assert.ok(prompts[3].message.includes("Allow ast_edit"), prompts[3].message);
const editId = result.structuredContent.edit_id;
assert.ok(readFileSync(join(workspace, "tree/pkg_0/module_0.py"), "utf8").includes("print(x, 0)"), "ast_edit only stages");
result = await client.callTool({ name: "resolve", arguments: { edit_id: editId, action: "accept" } });
assert.equal(result.isError, false, textOf(result));
assert.equal(prompts.length, 5);
assert.ok(prompts[4].message.includes("Allow resolve"), prompts[4].message);
assert.equal(result.structuredContent.replacements, 50, JSON.stringify(result.structuredContent));
assert.equal(readFileSync(join(workspace, "tree/pkg_0/module_0.py"), "utf8"), "def f(x):\n    log(x, 0)\n", "the accepted rewrite is on disk");
console.log("ok ast_edit staged, resolve accepted through elicitation");

await client.setLoggingLevel("notice");
result = await client.callTool({ name: "eval", arguments: { code: "x = 41\nx + 1", description: "set a variable and add one" } });
assert.equal(result.isError, false, textOf(result));
assert.ok(textOf(result).includes("Out: 42"), textOf(result));
assert.equal(prompts.length, 6);
assert.ok(prompts[5].message.includes("Allow eval"), prompts[5].message);
const allowedForRun = (log) => (log.data?.message ?? "").includes("eval may run without asking");
await until("the notice log message", () => logs.some(allowedForRun), 10000);
const notice = logs.find(allowedForRun);
assert.equal(notice.level, "notice");
assert.equal(notice.logger, "runbound/registry");
console.log("ok eval allowed for the run (notice log message)");

const abort = new AbortController();
const sleeping = client.callTool(
  { name: "eval", arguments: { code: "import time\ny = x\ntime.sleep(600)", description: "sleep until the client cancels" } },
  undefined,
  { signal: abort.signal, timeout: 700000 },
);
await sleep(3000);
abort.abort("the test cancels the sleeping cell");
await assert.rejects(sleeping);
// The cancelled cell was interrupted (else this cell would wait behind it for hours).
result = await client.callTool(
  { name: "eval", arguments: { code: "y + 1", description: "use the variable the cancelled cell set" } },
  undefined,
  { timeout: 120000 },
);
assert.equal(result.isError, false, textOf(result));
assert.ok(textOf(result).includes("Out: 42") && textOf(result).includes("kernel generation 1"), textOf(result));
console.log("ok eval cancelled; the kernel kept its state");

result = await client.callTool({ name: "debug", arguments: { op: "breakpoints", file: "slow_start.py", lines: [4] } });
assert.equal(result.isError, false, textOf(result));
assert.equal(prompts.length, 7);
assert.ok(prompts[6].message.includes("Allow debug"), prompts[6].message);
const debugProgress = [];
result = await client.callTool({ name: "debug", arguments: { op: "launch", program: "slow_start.py" } }, undefined, {
  onprogress: (update) => debugProgress.push({ at: Date.now(), ...update }),
  timeout: 120000,
});
const launchedAt = Date.now();
assert.equal(result.isError, false, textOf(result));
assert.ok(textOf(result).includes("slow_start.py:4"), textOf(result));
await sleep(1000);
assert.ok(debugProgress.every((update) => update.at <= launchedAt), "progress after the response");
for (let i = 1; i < debugProgress.length; i++) assert.ok(debugProgress[i - 1].progress < debugProgress[i].progress, JSON.stringify(debugProgress));
const debugMessages = debugProgress.map((update) => update.message ?? "");
assert.ok(debugMessages[0]?.startsWith("starting the debugpy debug adapter"), JSON.stringify(debugMessages));
assert.ok(debugMessages.filter((message) => message.includes("running until it stops")).length >= 2, JSON.stringify(debugMessages));
result = await client.callTool({ name: "debug", arguments: { op: "terminate" } });
assert.equal(result.isError, false, textOf(result));
console.log(`ok debug launch progress before the response (${debugProgress.length})`);

result = await client.callTool({ name: "vibe_spawn", arguments: { brief: "say you finished", label: "finisher", tier: "fast" } });
assert.equal(result.isError, false, textOf(result));
await until("the worker notification", () => workers.length > 0, 60000);
assert.equal(workers[0].status, "completed");
assert.equal(workers[0].label, "finisher");
assert.ok(workers[0].result_excerpt.includes("worker-finished"), JSON.stringify(workers[0]));
console.log("ok worker notification");

await client.close();
console.log("ok session closed");
