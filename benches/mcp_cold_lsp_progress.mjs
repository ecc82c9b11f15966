// A cold `lsp definition` through `runbound serve`, as an MCP host sees it (the official
// TypeScript SDK client with `onprogress`), against rust-analyzer driven directly over LSP on the
// same crate in the same run: how long the answer takes, how many progress notifications each
// delivers, and when.
//
// Usage: node benches/mcp_cold_lsp_progress.mjs SDK_DIR RUNBOUND CRATE FILE LINE SYMBOL ROUNDS
//
// CRATE is copied afresh (without `target/`) for every measurement, so each starts cold. The
// direct client declares `window.workDoneProgress`, answers `window/workDoneProgress/create`,
// opens FILE, asks `textDocument/definition` at SYMBOL on LINE (1-based) right after
// `initialized` and repeats the request while rust-analyzer answers `ContentModified` or
// nothing; it counts the server's `$/progress` notifications until the first non-empty answer
// and until rust-analyzer reports itself quiescent (`experimental/serverStatus`). Prints one
// JSON line per measurement and a summary; nothing is asserted (numbers for a report).

import { spawn } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const [sdkDir, binary, crate, file, line, symbol, rounds = "1"] = process.argv.slice(2);
const load = (relative) => import(pathToFileURL(join(sdkDir, "dist/esm", relative)).href);
const { Client } = await load("client/index.js");
const { StdioClientTransport } = await load("client/stdio.js");

const env = Object.fromEntries(
  ["PATH", "HOME", "CARGO_HOME", "RUSTUP_HOME"].filter((name) => process.env[name]).map((name) => [name, process.env[name]]),
);

function freshCopy() {
  const dir = mkdtempSync(join(tmpdir(), "runbound-cold-lsp-"));
  const target = join(dir, "crate");
  cpSync(crate, target, { recursive: true, filter: (source) => !source.split("/").includes("target") });
  return { dir, target };
}

async function throughRunbound() {
  const { dir, target } = freshCopy();
  const transport = new StdioClientTransport({ command: binary, args: ["--workspace", target, "serve"], env, stderr: "ignore" });
  const client = new Client({ name: "runbound-cold-lsp-bench", version: "1.0.0" }, { capabilities: {} });
  await client.connect(transport);
  await client.listTools();
  const started = performance.now();
  const progress = [];
  const result = await client.callTool({ name: "lsp", arguments: { op: "definition", file, line: Number(line), symbol } }, undefined, {
    onprogress: (update) => progress.push({ at_ms: Math.round(performance.now() - started), message: update.message }),
    timeout: 60000,
    resetTimeoutOnProgress: true,
    maxTotalTimeout: 900000,
  });
  const answeredMs = Math.round(performance.now() - started);
  const text = result.content.map((block) => block.text ?? "").join("\n");
  await client.close();
  rmSync(dir, { recursive: true, force: true });
  const gaps = progress.map((event, i) => event.at_ms - (i === 0 ? 0 : progress[i - 1].at_ms));
  return {
    client: "runbound serve + TypeScript SDK",
    answered_ms: answeredMs,
    progress_notifications: progress.length,
    first_progress_ms: progress[0]?.at_ms ?? null,
    largest_gap_ms: Math.max(...gaps, answeredMs - (progress.at(-1)?.at_ms ?? 0)),
    per_second: +(progress.length / (answeredMs / 1000)).toFixed(2),
    distinct_messages: new Set(progress.map((event) => event.message?.replace(/\(\d+ s\)/, ""))).size,
    first_messages: progress.slice(0, 4).map((event) => event.message),
    last_message: progress.at(-1)?.message,
    answer: text.split("\n").find((row) => /^\s*\S+\.rs:\d+/.test(row))?.trim() ?? text.split("\n")[0],
    still_indexing_note: text.includes("still indexing"),
    progress_at_ms: progress.map((event) => event.at_ms),
  };
}

function directRustAnalyzer() {
  const { dir, target } = freshCopy();
  return new Promise((resolve) => {
    const started = performance.now();
    const server = spawn("rust-analyzer", [], { cwd: target, env, stdio: ["pipe", "pipe", "ignore"] });
    let buffer = Buffer.alloc(0);
    let nextId = 1;
    const pending = new Map();
    const progressEvents = [];
    let answer = null;
    let answeredMs = null;
    let progressAtAnswer = null;
    const send = (message) => {
      const body = Buffer.from(JSON.stringify({ jsonrpc: "2.0", ...message }));
      server.stdin.write(`Content-Length: ${body.length}\r\n\r\n`);
      server.stdin.write(body);
    };
    const request = (method, params) =>
      new Promise((done) => {
        const id = nextId++;
        pending.set(id, done);
        send({ id, method, params });
      });
    const uri = pathToFileURL(join(target, file)).href;
    const character = readFileSync(join(target, file), "utf8").split("\n")[Number(line) - 1].indexOf(symbol);
    const finish = (quiescentMs) => {
      server.kill("SIGKILL");
      rmSync(dir, { recursive: true, force: true });
      resolve({
        client: "rust-analyzer over LSP, direct",
        answered_ms: answeredMs,
        progress_notifications_until_answer: progressAtAnswer,
        progress_notifications_until_quiescent: progressEvents.length,
        quiescent_ms: quiescentMs,
        titles: [...new Set(progressEvents.map((event) => event.title).filter(Boolean))],
        answer,
      });
    };
    const askDefinition = async () => {
      while (answer === null && performance.now() - started < 600000) {
        const reply = await request("textDocument/definition", { textDocument: { uri }, position: { line: Number(line) - 1, character } });
        const locations = reply.result ? (Array.isArray(reply.result) ? reply.result : [reply.result]) : [];
        if (locations.length > 0) {
          const location = locations[0];
          const targetUri = location.targetUri ?? location.uri;
          const range = location.targetSelectionRange ?? location.range;
          answer = `${decodeURIComponent(targetUri).slice(pathToFileURL(target).href.length + 1)}:${range.start.line + 1}`;
          answeredMs = Math.round(performance.now() - started);
          progressAtAnswer = progressEvents.length;
          return;
        }
        await new Promise((wait) => setTimeout(wait, 100));
      }
    };
    let quiescentTimer = null;
    server.stdout.on("data", (chunk) => {
      buffer = Buffer.concat([buffer, chunk]);
      for (;;) {
        const headerEnd = buffer.indexOf("\r\n\r\n");
        if (headerEnd < 0) return;
        const length = Number(/Content-Length: (\d+)/i.exec(buffer.subarray(0, headerEnd).toString())[1]);
        if (buffer.length < headerEnd + 4 + length) return;
        const message = JSON.parse(buffer.subarray(headerEnd + 4, headerEnd + 4 + length).toString());
        buffer = buffer.subarray(headerEnd + 4 + length);
        if (message.id !== undefined && message.method === undefined) {
          pending.get(message.id)?.(message);
          pending.delete(message.id);
        } else if (message.method === "$/progress") {
          progressEvents.push({ at_ms: Math.round(performance.now() - started), title: message.params.value.title });
        } else if (message.method === "experimental/serverStatus") {
          if (message.params.quiescent && answer !== null && quiescentTimer === null) {
            const quiescentMs = Math.round(performance.now() - started);
            quiescentTimer = setTimeout(() => finish(quiescentMs), 200);
          }
        } else if (message.id !== undefined) {
          // Server requests: progress tokens, capability registrations, configuration.
          send({ id: message.id, result: message.method === "workspace/configuration" ? message.params.items.map(() => null) : null });
        }
      }
    });
    (async () => {
      await request("initialize", {
        processId: process.pid,
        rootUri: pathToFileURL(target).href,
        capabilities: {
          window: { workDoneProgress: true },
          textDocument: { definition: { linkSupport: true } },
          experimental: { serverStatusNotification: true },
        },
      });
      send({ method: "initialized", params: {} });
      send({
        method: "textDocument/didOpen",
        params: { textDocument: { uri, languageId: "rust", version: 1, text: readFileSync(join(target, file), "utf8") } },
      });
      await askDefinition();
      // Quiescence may have come before the answer.
      setTimeout(() => quiescentTimer === null && finish(null), 60000);
    })();
  });
}

const results = [];
for (let round = 0; round < Number(rounds); round++) {
  for (const measure of round % 2 === 0 ? [directRustAnalyzer, throughRunbound] : [throughRunbound, directRustAnalyzer]) {
    const result = { round, ...(await measure()) };
    results.push(result);
    console.log(JSON.stringify(result));
  }
}
const median = (values) => values.sort((a, b) => a - b)[Math.floor(values.length / 2)];
const runbound = results.filter((result) => result.client.startsWith("runbound"));
const direct = results.filter((result) => result.client.startsWith("rust-analyzer"));
console.log(
  JSON.stringify({
    summary: true,
    runbound_answered_ms_median: median(runbound.map((result) => result.answered_ms)),
    direct_answered_ms_median: median(direct.map((result) => result.answered_ms)),
    ratio_runbound_over_direct: +(median(runbound.map((r) => r.answered_ms)) / median(direct.map((r) => r.answered_ms))).toFixed(2),
    runbound_progress_median: median(runbound.map((result) => result.progress_notifications)),
    direct_progress_until_answer_median: median(direct.map((result) => result.progress_notifications_until_answer)),
  }),
);
