// runbound kernel driver for Node. Embedded in the runbound binary; the kernel is started as
// `node --expose-internals -e <boot>`, where the boot line reads this source from fd 5 (the host
// writes it there right after the spawn) and runs it in the main context; it is not a file on
// disk. Under runbound's process guardian, RUNBOUND_GUARDIAN_PID is in the environment (or
// RUNBOUND_GUARDIAN_UNAVAILABLE with the reason): reported in `ready`, removed from what cells see.
//
// Protocol: JSON lines on descriptors of its own: host -> kernel on fd 3, kernel -> host on
// fd 4 (see driver.py for the message types). Node cannot fcntl, so both are reopened through
// /proc/self/fd (Node opens everything close-on-exec) and the originals closed: child_process
// grandchildren never inherit the protocol. fd 0 is /dev/null; fd 1 is a plain pipe the host
// shows as raw output and never parses. process.stdout/process.stderr writes are turned into
// `stream` messages (ordered with display items). After each cell an end marker
// (NUL "runbound-cell-end N" NUL) is written to fd 1 and fd 2 so the host knows its raw output is complete.
// Cells run in Node's main context (the realm of every module they `require`), like the `node`
// REPL: an object a cell creates has the same Object.prototype as the modules' own, so a
// library's `Object.getPrototypeOf(o) === Object.prototype` / `instanceof Array` checks answer
// as under plain Node (a separate `vm` context gave @tanstack/query-core's hashKey a different
// hash: its isPlainObject was false for cell objects). The driver's own bindings live in this
// function's scope, out of the cells' way. Top-level let/const become globals so they persist
// and may be re-declared; top-level await via Node's own REPL transform; the completion value
// of the cell is echoed. tool(name, args) is synchronous (so `await tool(...)` works too).
(function runboundKernelDriver() {
'use strict';
const fs = require('fs');
const util = require('util');
const vm = require('vm');

// Reopens inherited `fd` close-on-exec and closes the original; keeps `fd` if /proc is missing.
function privateFd(fd, flags) {
  try {
    const copy = fs.openSync(`/proc/self/fd/${fd}`, flags);
    fs.closeSync(fd);
    return copy;
  } catch (err) {
    return fd;
  }
}
const guardian = { pid: process.env.RUNBOUND_GUARDIAN_PID || null, unavailable: process.env.RUNBOUND_GUARDIAN_UNAVAILABLE || null };
delete process.env.RUNBOUND_GUARDIAN_PID;
delete process.env.RUNBOUND_GUARDIAN_UNAVAILABLE;
const PROTO_IN = privateFd(3, fs.constants.O_RDONLY);
const PROTO_OUT = privateFd(4, fs.constants.O_WRONLY);
// Writes the end-of-cell marker to fd 1 and to fd 2; for each, false if it could not.
function writeRawCellEnd(cell) {
  return [1, 2].map((fd) => {
    try {
      fs.writeSync(fd, Buffer.from(`\0runbound-cell-end ${cell}\0`, 'latin1'));
      return true;
    } catch (err) {
      return false;
    }
  });
}
const rawWrite = (text) => {
  const data = Buffer.from(text, 'utf8');
  let offset = 0;
  while (offset < data.length) {
    try {
      offset += fs.writeSync(PROTO_OUT, data, offset);
    } catch (err) {
      if (err.code !== 'EAGAIN') throw err;
    }
  }
};
const send = (message) => rawWrite(JSON.stringify(message) + '\n');

let pending = Buffer.alloc(0);
function readMessage() {
  const chunk = Buffer.alloc(65536);
  for (;;) {
    const newline = pending.indexOf(10);
    if (newline >= 0) {
      const line = pending.subarray(0, newline).toString('utf8');
      pending = pending.subarray(newline + 1);
      if (line.trim() === '') continue;
      return JSON.parse(line);
    }
    let count;
    try {
      count = fs.readSync(PROTO_IN, chunk, 0, chunk.length, null);
    } catch (err) {
      if (err.code === 'EAGAIN') continue;
      if (err.code === 'EOF') return null;
      throw err;
    }
    if (count === 0) return null;
    pending = Buffer.concat([pending, chunk.subarray(0, count)]);
  }
}

const limits = { max_output_bytes: 64 * 1024, max_item_bytes: 16 * 1024, max_images: 4, max_image_bytes: 1024 * 1024 };
// The last non-empty line of the kept tail (at most 200 characters), or ''.
function latestLine(tail) {
  for (let i = tail.length - 1; i >= 0; i--) {
    const entry = tail[i];
    const text = String(Array.isArray(entry) ? entry[1] : (entry && entry.text) || '').slice(-4096);
    const lines = text.split('\n');
    for (let j = lines.length - 1; j >= 0; j--) {
      if (lines[j].trim()) return lines[j].trim().slice(0, 200);
    }
  }
  return '';
}

const cellOutput = { sent: 0, omitted: 0, tail: [], tailBytes: 0, lastBeat: 0 };
function resetCell() {
  cellOutput.sent = 0;
  cellOutput.omitted = 0;
  cellOutput.tail = [];
  cellOutput.tailBytes = 0;
}
function emit(name, text) {
  const size = Buffer.byteLength(text);
  const head = Math.floor(limits.max_output_bytes / 2);
  if (cellOutput.omitted === 0 && cellOutput.tail.length === 0 && cellOutput.sent + size <= head) {
    cellOutput.sent += size;
    send({ type: 'stream', name, text });
    return;
  }
  cellOutput.tail.push([name, text]);
  cellOutput.tailBytes += size;
  while (cellOutput.tailBytes > limits.max_output_bytes - head && cellOutput.tail.length > 0) {
    const [, first] = cellOutput.tail.shift();
    const firstSize = Buffer.byteLength(first);
    cellOutput.tailBytes -= firstSize;
    cellOutput.omitted += firstSize;
  }
  const now = Date.now();
  if (now - cellOutput.lastBeat >= 250) {
    // Past the head budget only this heartbeat reaches the host: it carries the latest output
    // line, which the host reports as the call's progress (at most 4 a second).
    cellOutput.lastBeat = now;
    send({ type: 'activity', omitted_bytes: cellOutput.omitted, latest: latestLine(cellOutput.tail) });
  }
}

function capText(text) {
  const data = Buffer.from(text, 'utf8');
  if (data.length <= limits.max_item_bytes) return text;
  const half = Math.floor(limits.max_item_bytes / 2);
  // The same words as the host's cuts (runbound's render::middle_cut_notice).
  return `${data.subarray(0, half).toString('utf8')}\n[\u2026 cut: showing the first ${half} and last ${half} of ${data.length} bytes of this item \u2026]\n${data.subarray(data.length - half).toString('utf8')}`;
}

function render(value) {
  if (Buffer.isBuffer(value) && value.length > 24 && value.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) {
    if (value.length > limits.max_image_bytes) return { kind: 'text', text: `[image of ${value.length} bytes not shown: over the ${limits.max_image_bytes}-byte cap]` };
    return { kind: 'png', data: value.toString('base64'), bytes: value.length, width: value.readUInt32BE(16), height: value.readUInt32BE(20) };
  }
  if (typeof value === 'string') return { kind: 'text', text: capText(value) };
  return { kind: 'text', text: capText(util.inspect(value, { depth: 4, maxArrayLength: 100, maxStringLength: 10000, breakLength: 100 })) };
}

function display(...values) {
  for (const value of values) send({ type: 'display', item: render(value) });
}

let toolCounter = 0;
class ToolError extends Error {}
function tool(name, args = {}) {
  if (typeof name !== 'string') throw new TypeError('tool(name, args): name must be a string');
  if (args === null || typeof args !== 'object' || Array.isArray(args)) throw new TypeError('tool(name, args): args must be an object');
  toolCounter += 1;
  const id = toolCounter;
  send({ type: 'tool_call', id, name, args });
  for (;;) {
    const message = readMessage();
    if (message === null) throw new Error('the host closed the kernel pipe during tool()');
    if (message.type === 'tool_result' && message.id === id) {
      if (!message.ok) throw new ToolError(message.error || `tool ${name} failed`);
      return message.value;
    }
  }
}

const streamWrite = (name) => (chunk, encoding, callback) => {
  const text = typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
  emit(name, text);
  if (typeof encoding === 'function') encoding();
  else if (typeof callback === 'function') callback();
  return true;
};
process.stdout.write = streamWrite('stdout');
process.stderr.write = streamWrite('stderr');
const cellConsole = new console.Console({ stdout: process.stdout, stderr: process.stderr, colorMode: false });

const sandbox = {
  console: cellConsole, display, tool, ToolError, require, process, Buffer, URL, URLSearchParams,
  TextEncoder, TextDecoder, setTimeout, setInterval, setImmediate, clearTimeout, clearInterval,
  clearImmediate, queueMicrotask, structuredClone, module: { exports: {} },
};
if (typeof fetch === 'function') sandbox.fetch = fetch;
// The cells' globals are the main context's: the names above are installed on it.
const context = globalThis;
for (const [name, value] of Object.entries(sandbox)) {
  Object.defineProperty(context, name, { value, writable: true, configurable: true, enumerable: false });
}
const initialNames = new Set(Object.getOwnPropertyNames(context));

let acorn = null;
let processTopLevelAwait = null;
try {
  acorn = require('internal/deps/acorn/acorn/dist/acorn');
  processTopLevelAwait = require('internal/repl/await').processTopLevelAwait;
} catch (err) {
  acorn = null;
}

// Top-level `let`/`const` become `var` and `class X` becomes `var X = class X`, so bindings are
// context globals that persist and can be declared again in a later cell.
function hoistDeclarations(code) {
  if (!acorn) return code;
  let program;
  try {
    program = acorn.parse(code, { ecmaVersion: 'latest', sourceType: 'script', allowAwaitOutsideFunction: true });
  } catch (err) {
    return code;
  }
  const edits = [];
  for (const node of program.body) {
    if (node.type === 'VariableDeclaration' && (node.kind === 'let' || node.kind === 'const')) {
      edits.push([node.start, node.start + node.kind.length, 'var']);
    } else if (node.type === 'ClassDeclaration' && node.id) {
      edits.push([node.start, node.start, `var ${node.id.name} = `]);
      edits.push([node.end, node.end, ';']);
    }
  }
  edits.sort((a, b) => b[0] - a[0]);
  let out = code;
  for (const [start, end, text] of edits) out = out.slice(0, start) + text + out.slice(end);
  return out;
}

// Dynamic `import()` in a cell: Node's main-context loader resolves it (bare names from the
// workspace's node_modules, relative paths from the working directory, `node:` builtins). The
// option exists from Node 20.12 / 21.7 on and warns once per script that it is experimental; that
// one warning is dropped, every other warning still reaches the cell's stderr. Older Node: the
// error names require() as the way (see formatError).
const dynamicImportLoader = vm.constants && vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER;
if (dynamicImportLoader) {
  const emitWarning = process.emitWarning;
  process.emitWarning = function filteredEmitWarning(warning, ...rest) {
    const text = String((warning && warning.message) || warning);
    if (text.includes('USE_MAIN_CONTEXT_DEFAULT_LOADER')) return undefined;
    return emitWarning.call(process, warning, ...rest);
  };
}

async function execute(cell, source) {
  const filename = `cell-${cell}`;
  let code = hoistDeclarations(source);
  let wrapped = false;
  if (processTopLevelAwait && /\bawait\b/.test(code)) {
    const transformed = processTopLevelAwait(code);
    if (transformed !== null) {
      code = transformed;
      wrapped = true;
    }
  }
  const options = { filename };
  if (dynamicImportLoader) options.importModuleDynamically = dynamicImportLoader;
  const script = new vm.Script(code, options);
  let value = script.runInThisContext({ breakOnSigint: true, displayErrors: false });
  if (wrapped) {
    const settled = await value;
    value = settled && typeof settled === 'object' && 'value' in settled ? settled.value : undefined;
  }
  if (value !== undefined) {
    context._ = value;
    send({ type: 'result', item: typeof value === 'string' ? { kind: 'text', text: capText(util.inspect(value)) } : render(value) });
  }
}

function inventory() {
  const variables = Object.keys(context).filter((name) => !initialNames.has(name) && name !== '_').sort();
  const modules = Object.keys(require.cache).map((p) => p.split('/node_modules/').pop().split('/')[0]).filter((v, i, a) => a.indexOf(v) === i);
  return { type: 'inventory', variables, modules };
}

process.on('SIGINT', () => {});
process.on('unhandledRejection', (reason) => {
  emit('stderr', `Unhandled promise rejection: ${reason && reason.stack ? reason.stack : util.inspect(reason)}\n`);
});
process.on('uncaughtException', (err) => {
  emit('stderr', `Uncaught exception: ${err && err.stack ? err.stack : util.inspect(err)}\n`);
});

function formatError(err) {
  if (err && err.code === 'ERR_VM_DYNAMIC_IMPORT_CALLBACK_MISSING') {
    return `${err.name}: dynamic import() is not available in this kernel: Node ${process.versions.node} lacks vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER (Node 20.12 and 21.7 added it).\nNext step: use require('name') for CommonJS packages and node: builtins, or select a newer node.`;
  }
  if (err && err.stack) {
    const lines = String(err.stack).split('\n');
    const kept = [];
    for (const line of lines) {
      if (/^\s+at /.test(line) && !/cell-\d+/.test(line)) continue;
      kept.push(line);
    }
    return kept.join('\n');
  }
  return util.inspect(err);
}

send({ type: 'ready', backend: 'node', version: process.versions.node, executable: process.execPath, pid: process.pid, cwd: process.cwd(), guardian_pid: guardian.pid, guardian_unavailable: guardian.unavailable });

async function main() {
  for (;;) {
    const message = readMessage();
    if (message === null || message.type === 'shutdown') process.exit(0);
    if (message.type === 'inventory') {
      send(inventory());
      continue;
    }
    if (message.type !== 'execute') continue;
    Object.assign(limits, message.limits || {});
    resetCell();
    let status = 'ok';
    try {
      await execute(message.cell, message.code || '');
    } catch (err) {
      status = 'error';
      send({ type: 'error', ename: (err && err.name) || 'Error', evalue: capText(String(err && err.message)), traceback: capText(formatError(err)) });
    }
    // Let callbacks that are already due run before the cell is reported done.
    await new Promise((resolve) => setImmediate(resolve));
    const [rawMarker, stderrMarker] = writeRawCellEnd(message.cell);
    send({ type: 'done', cell: message.cell, raw_marker: rawMarker, stderr_marker: stderrMarker, status, omitted_bytes: cellOutput.omitted, head_bytes: cellOutput.sent, tail_bytes: cellOutput.tailBytes, tail: cellOutput.tail, figures_omitted: 0 });
  }
}
main();
})();
