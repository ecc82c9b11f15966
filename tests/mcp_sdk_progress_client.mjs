// Progress and logging from `runbound serve`, seen through the official MCP TypeScript SDK client
// (npm `@modelcontextprotocol/sdk`, installed by .ci/install into .tools/), unmodified; the same
// steps as tests/mcp_sdk_progress_client.py, printing the same `ok …` lines.
//
// Usage: node tests/mcp_sdk_progress_client.mjs SDK_DIR RUNBOUND CRATE FILE LINE SYMBOL TREE
//
// - SDK_DIR: the package directory, e.g. .tools/node_modules/@modelcontextprotocol/sdk.
// - CRATE: a Rust crate directory (its own workspace); FILE (relative to CRATE), LINE (1-based)
//   and SYMBOL address a `definition` request that needs rust-analyzer, started cold.
// - TREE: a workspace with many Python files for `ast_grep`.
//
// Each tool call passes `onprogress` (the SDK then sets `params._meta.progressToken`) and
// `resetTimeoutOnProgress` (as a host does for a long call: the SDK's 60 s request timeout
// restarts with each progress notification). The script checks that progress arrived before
// the response, that `progress` increased, and that nothing arrived for the call after its
// response; that a write refused for want of a human arrives as a `warning` log message and
// that `logging/setLevel error` mutes the next one. Tools are listed first, so the SDK validates
// each structuredContent against the tool's declared outputSchema. Prints one `ok …` line per
// passed step (with the progress messages seen) and the `definition` answer after `answer:`;
// any failure throws (exit 1).

import assert from "node:assert/strict";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const [sdkDir, binary, crate, file, line, symbol, tree] = process.argv.slice(2);
const load = (relative) => import(pathToFileURL(join(sdkDir, "dist/esm", relative)).href);
const { Client } = await load("client/index.js");
const { StdioClientTransport } = await load("client/stdio.js");
const { LoggingMessageNotificationSchema } = await load("types.js");

const textOf = (result) => result.content.filter((block) => block.type === "text").map((block) => block.text).join("\n");
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Opens a session on `workspace` with `extraArgs` before `serve`; `logs` collects log messages. */
async function open(workspace, extraArgs, logs) {
  const transport = new StdioClientTransport({
    command: binary,
    args: ["--workspace", workspace, ...extraArgs, "serve"],
    // What the Python SDK's default environment passes, plus what rust-analyzer's cargo needs.
    env: Object.fromEntries(
      ["PATH", "HOME", "CARGO_HOME", "RUSTUP_HOME", "RUSTUP_TOOLCHAIN"].filter((name) => process.env[name]).map((name) => [name, process.env[name]]),
    ),
    stderr: "inherit",
  });
  const client = new Client({ name: "runbound-ts-sdk-progress-test", version: "1.0.0" }, { capabilities: {} });
  client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => {
    logs.push(notification.params);
  });
  await client.connect(transport);
  assert.equal(client.getServerVersion().name, "runbound");
  assert.ok(client.getServerCapabilities().logging, "the server declares the logging capability");
  // The SDK validates later structuredContent against the outputSchemas listed here.
  const listed = await client.listTools();
  for (const name of ["ast_grep", "lsp", "write"]) {
    assert.equal(listed.tools.find((tool) => tool.name === name)?.outputSchema?.type, "object", `${name} declares an outputSchema`);
  }
  return client;
}

/** Calls `name` with a progress callback; checks what arrived before and after the response. */
async function callWithProgress(client, name, args, what, limitMs) {
  const events = [];
  const startedAt = performance.now();
  const result = await client.callTool({ name, arguments: args }, undefined, {
    onprogress: (update) => events.push({ at: performance.now(), ...update }),
    timeout: 60000,
    resetTimeoutOnProgress: true,
    maxTotalTimeout: limitMs,
  });
  const closedAt = performance.now();
  // Anything still in flight for this call would arrive now.
  await sleep(1500);
  assert.ok(events.length > 0, `${what}: no progress arrived before the response`);
  for (let i = 1; i < events.length; i++) {
    assert.ok(events[i - 1].progress < events[i].progress, `${what}: progress did not increase: ${JSON.stringify(events)}`);
  }
  const late = events.filter((event) => event.at > closedAt);
  assert.deepEqual(late, [], `${what}: progress after the response`);
  // The longest stretch (ms) without progress, from the call to its response.
  const times = [startedAt, ...events.map((event) => event.at), closedAt];
  const silenceMs = Math.max(...times.slice(1).map((at, i) => at - times[i]));
  return { result, events, silenceMs };
}

async function treeSession() {
  const client = await open(tree, [], []);
  const { result, events } = await callWithProgress(
    client,
    "ast_grep",
    { pattern: "print($$$ARGS)", language: "python", max_results: 5 },
    "ast_grep",
    600000,
  );
  assert.equal(result.isError, false, textOf(result));
  const messages = events.map((event) => event.message).filter(Boolean);
  assert.ok(messages.length === events.length && messages.every((message) => message.endsWith("files searched")), JSON.stringify(messages));
  console.log(`ok ast_grep progress ${events.length} before the response: ${JSON.stringify(messages.slice(0, 2))} … ${JSON.stringify(messages.slice(-1))}`);
  console.log("ast_grep: " + textOf(result).split("\n")[0]);
  await client.close();
}

async function lspSession() {
  const logs = [];
  const client = await open(crate, ["--approve", "ask"], logs);
  const started = performance.now();
  const { result, events, silenceMs } = await callWithProgress(
    client,
    "lsp",
    { op: "definition", file, line: Number(line), symbol },
    "lsp definition",
    600000,
  );
  const seconds = (performance.now() - started) / 1000;
  assert.equal(result.isError, false, textOf(result));
  assert.equal(result.structuredContent?.op, "definition", JSON.stringify(result.structuredContent));
  const messages = events.map((event) => event.message).filter(Boolean);
  assert.ok(messages.some((message) => message.startsWith("rust-analyzer: ")), JSON.stringify(messages));
  // The readiness wait reports seconds waited of its bound.
  assert.ok(events.every((event) => event.total === undefined || event.total > 0), JSON.stringify(events));
  // Also while rust-analyzer computes the answer after the readiness wait (it once went silent
  // for 14 s there): never a long silence.
  assert.ok(silenceMs < 8000, `lsp definition: ${(silenceMs / 1000).toFixed(1)} s without progress: ${JSON.stringify(messages)}`);
  console.log(
    `ok lsp progress ${events.length} before the response in ${seconds.toFixed(1)} s, largest silence ${(silenceMs / 1000).toFixed(1)} s: ${JSON.stringify(messages.slice(0, 3))} … ${JSON.stringify(messages.slice(-1))}`,
  );
  console.log("answer: " + textOf(result).replaceAll("\n", "\n  "));

  // A write under --approve ask with no elicitation: denied, and the operator is told.
  let denied = await client.callTool({ name: "write", arguments: { path: "denied.txt", content: "x\n" } });
  assert.equal(denied.isError, true, textOf(denied));
  const end = Date.now() + 10000;
  while (logs.length === 0) {
    if (Date.now() > end) throw new Error("timed out waiting for the warning log message");
    await sleep(50);
  }
  const log = logs[0];
  assert.equal(log.level, "warning", JSON.stringify(log));
  assert.equal(log.logger, "runbound/registry", JSON.stringify(log));
  assert.ok(log.data.message.includes("write was denied without asking"), JSON.stringify(log));
  console.log(`ok logging warning: ${log.data.message}`);
  await client.setLoggingLevel("error");
  denied = await client.callTool({ name: "write", arguments: { path: "denied.txt", content: "x\n" } });
  assert.equal(denied.isError, true);
  await sleep(500);
  assert.equal(logs.length, 1, JSON.stringify(logs.map((entry) => entry.data)));
  console.log("ok logging/setLevel error mutes warnings");
  await client.close();
}

await treeSession();
await lspSession();
console.log("ok sessions closed");
