#!/usr/bin/env node
// Drive a REAL yaml-language-server (the one editors use) over stdio and report
// what it says about YAML files checked against a JSON Schema.
//
//   node tools/yls/check.mjs [opts] SCHEMA_FILE YAML_FILE [YAML_FILE...]
//       -> {"files": {path: [{"line","col","endLine","endCol","severity","code","message"}...]},
//           "schema_errors": [{"file","line","col","message"}...], "server": "2.0.0", ...}
//   node tools/yls/check.mjs [opts] SCHEMA_FILE --complete YAML_FILE LINE COL
//       -> {"file", "line", "col", "labels": [...], "items": [{"label","kind","detail"}...]}
//   node tools/yls/check.mjs [opts] --settings SETTINGS_JSON YAML_FILE... [--complete YAML_FILE LINE COL]...
//       -> the same, with the associations an editor would read from its settings (see --settings)
//
// LINE/COL are 1-based everywhere (input and output).
// Options:
//   --timeout SECONDS   overall wall-clock cap (default 60); the server is killed at the end.
//   --settle MS         quiet period after the last publishDiagnostics (default 1500).
//   --modeline          associate the schema through an in-memory
//                       "# yaml-language-server: $schema=<uri>" first line instead of the
//                       yaml.schemas setting (line numbers are corrected back).
//   --verbose           log the LSP traffic summary to stderr.
//   --workspace DIR     the workspace folder the editor opened (default: the working folder); relative
//                       schema paths in --settings are resolved against it, as the server does.
//   --settings FILE     a VS Code style settings file: its "yaml.schemas" (or {"yaml": {"schemas"}})
//                       is handed to the server as is; no SCHEMA_FILE then. Each file must end up
//                       associated with one of those schemas (else it is reported in schema_errors).
//   --buffer PATH=SRC   open PATH (it need not exist) with the text of SRC: an unsaved editor buffer,
//                       so a broken variant can sit where the settings' globs match. Repeatable.
//   --complete F L C    ask for completions at 1-based line L, column C of F. Repeatable: every answer
//                       is in "completions" [{"file","line","col","labels"}]; the first is also at top level.
//
// Diagnostics the server attaches to the document because the *schema itself* could not be
// loaded/meta-validated (code 65536 = SchemaResolveError, or "Schema '...' is not valid")
// are moved out of "files" into "schema_errors".
//
// Exit status: 0 when the JSON was produced normally; 2 on usage errors; 3 when the server
// died or the overall timeout hit (the JSON is still printed, with an "error" field).

import { spawn } from 'node:child_process';
import { readFileSync, existsSync } from 'node:fs';
import { resolve, dirname, join, isAbsolute } from 'node:path';
import { pathToFileURL, fileURLToPath } from 'node:url';

const HERE = dirname(fileURLToPath(import.meta.url));
const SERVER_BIN = join(HERE, 'node_modules', 'yaml-language-server', 'bin', 'yaml-language-server');
const SCHEMA_RESOLVE_ERROR = 65536;
const MODELINE = /^\s*#\s*yaml-language-server:\s*\$schema=/m;

function usage(msg) {
  if (msg) process.stderr.write(`check.mjs: ${msg}\n`);
  process.stderr.write(
    'usage: node check.mjs [--timeout S] [--settle MS] [--modeline] [--verbose] [--workspace DIR]\n' +
      '                      [--buffer PATH=SRC]... (SCHEMA_FILE | --settings FILE) YAML_FILE...\n' +
      '       node check.mjs [opts] (SCHEMA_FILE | --settings FILE) [YAML_FILE...] --complete YAML_FILE LINE COL...\n',
  );
  process.exit(2);
}

// ---------------------------------------------------------------- arguments
const argv = process.argv.slice(2);
const opts = { timeout: 60, settle: 1500, modeline: false, verbose: false, completes: [], workspace: null, settings: null, buffers: [] };
const positional = [];
for (let i = 0; i < argv.length; i++) {
  const a = argv[i];
  if (a === '--timeout') opts.timeout = Number(argv[++i]);
  else if (a === '--settle') opts.settle = Number(argv[++i]);
  else if (a === '--modeline') opts.modeline = true;
  else if (a === '--verbose') opts.verbose = true;
  else if (a === '--workspace') opts.workspace = argv[++i];
  else if (a === '--settings') opts.settings = argv[++i];
  else if (a === '--buffer') {
    const spec = argv[++i] ?? '';
    const eq = spec.indexOf('=');
    if (eq < 1) usage('--buffer needs PATH=SOURCE');
    opts.buffers.push({ path: spec.slice(0, eq), source: spec.slice(eq + 1) });
  } else if (a === '--complete') {
    if (argv.length - i - 1 < 3) usage('--complete needs FILE LINE COL');
    opts.completes.push({ file: argv[i + 1], line: Number(argv[i + 2]), col: Number(argv[i + 3]) });
    i += 3;
  } else if (a === '-h' || a === '--help') usage();
  else if (a.startsWith('--')) usage(`unknown option ${a}`);
  else positional.push(a);
}
if (!(opts.timeout > 0) || !(opts.settle >= 0)) usage('bad --timeout/--settle');
if (positional.length < 1 && !opts.settings) usage('missing SCHEMA_FILE');
const schemaPath = opts.settings ? null : resolve(positional[0]);
const yamlArgs = opts.settings ? positional.slice() : positional.slice(1);
const bufferSource = new Map(opts.buffers.map((b) => [b.path, b.source]));
yamlArgs.push(...opts.buffers.map((b) => b.path));
for (const c of opts.completes) {
  if (!Number.isInteger(c.line) || !Number.isInteger(c.col) || c.line < 1 || c.col < 1)
    usage('--complete LINE and COL must be 1-based integers');
  yamlArgs.push(c.file);
}
if (yamlArgs.length < 1) usage('missing YAML_FILE');
if (schemaPath && !existsSync(schemaPath)) usage(`schema not found: ${schemaPath}`);
for (const y of yamlArgs) if (!existsSync(bufferSource.get(y) ?? y)) usage(`yaml file not found: ${bufferSource.get(y) ?? y}`);
if (!existsSync(SERVER_BIN)) usage(`yaml-language-server not installed (run npm ci in ${HERE})`);
const workspaceDir = resolve(opts.workspace ?? process.cwd());
if (!existsSync(workspaceDir)) usage(`workspace not found: ${workspaceDir}`);

// --settings: the schema associations exactly as an editor's settings give them
let settingsSchemas = null;
if (opts.settings) {
  let parsed;
  try {
    parsed = JSON.parse(readFileSync(opts.settings, 'utf8'));
  } catch (e) {
    usage(`cannot read --settings ${opts.settings}: ${e.message}`);
  }
  settingsSchemas = parsed?.['yaml.schemas'] ?? parsed?.yaml?.schemas;
  if (!settingsSchemas || typeof settingsSchemas !== 'object' || Array.isArray(settingsSchemas))
    usage(`--settings ${opts.settings} has no "yaml.schemas" mapping`);
}
// what the server turns a settings key into (yls checkSchemaURI: URL as is, absolute path, else
// relative to the workspace), to check that the settings association reached every file
const settingsUris = new Set(
  Object.keys(settingsSchemas ?? {}).map((k) =>
    /^[a-z][a-z0-9+.-]*:\/\//i.test(k) ? k : pathToFileURL(isAbsolute(k) ? k : resolve(workspaceDir, k)).href,
  ),
);

const schemaUri = schemaPath ? pathToFileURL(schemaPath).href : null;
const t0 = Date.now();
const log = (...m) => opts.verbose && process.stderr.write(`[${((Date.now() - t0) / 1000).toFixed(2)}s] ${m.join(' ')}\n`);

// docs: one entry per distinct YAML file, keyed by the path as given on the command line
const docs = new Map();
for (const p of yamlArgs) {
  if (docs.has(p)) continue;
  const abs = resolve(p);
  const uri = pathToFileURL(abs).href;
  let text = readFileSync(bufferSource.get(p) ?? abs, 'utf8');
  let lineShift = 0;
  if (opts.modeline) {
    text = `# yaml-language-server: $schema=${schemaUri}\n` + text;
    lineShift = 1;
  }
  docs.set(p, { path: p, abs, uri, text, lineShift, diagnostics: null, publishCount: 0 });
}
const docByUri = new Map([...docs.values()].map((d) => [d.uri, d]));

// The yaml.* settings we hand the server (answered both in didChangeConfiguration and in
// workspace/configuration pulls, which is what yls 2.x actually reads).
const yamlSettings = {
  validate: true,
  completion: true,
  hover: true,
  format: { enable: false },
  schemaStore: { enable: false }, // no catalog download
  kubernetesCRDStore: { enable: false },
  schemas: settingsSchemas
    ? settingsSchemas
    : opts.modeline
    ? {}
    : // the server prefixes each pattern with "**/" and picomatch-es it against the document URI
      // exactly as the client sent it (percent-encoded), so give it that path with glob chars escaped
      { [schemaUri]: [...docs.values()].map((d) => globLiteral(d.uri)) },
};

function globLiteral(fileUri) {
  return new URL(fileUri).pathname.replace(/^\/+/, '').replace(/[\\*?[\](){}!+@|^$]/g, (c) => '\\' + c);
}

// ---------------------------------------------------------------- server + framing
const server = spawn(process.execPath, [SERVER_BIN, '--stdio'], {
  cwd: HERE,
  stdio: ['pipe', 'pipe', 'pipe'],
  env: { ...process.env, NODE_NO_WARNINGS: '1' },
});
let serverExited = false;
let serverStderr = '';
server.stderr.on('data', (b) => {
  serverStderr += b.toString();
  if (serverStderr.length > 20000) serverStderr = serverStderr.slice(-20000);
});
server.on('exit', (code, sig) => {
  serverExited = true;
  log(`server exited code=${code} sig=${sig}`);
  if (!finished) finish(`server exited early (code=${code}, signal=${sig})`);
});
server.stdin.on('error', () => {}); // EPIPE if the server died

let nextId = 1;
const pending = new Map();
const logMessages = [];
let lastPublishAt = 0;
let configPulls = 0;

function send(msg) {
  if (serverExited) return;
  const body = Buffer.from(JSON.stringify({ jsonrpc: '2.0', ...msg }), 'utf8');
  server.stdin.write(`Content-Length: ${body.length}\r\n\r\n`);
  server.stdin.write(body);
}
function request(method, params) {
  const id = nextId++;
  send({ id, method, params });
  return new Promise((res, rej) => pending.set(id, { res, rej, method }));
}
const notify = (method, params) => send({ method, params });

function configFor(section) {
  if (section === 'yaml') return yamlSettings;
  if (section && section.startsWith('yaml.')) {
    let v = yamlSettings;
    for (const k of section.slice(5).split('.')) v = v && typeof v === 'object' ? v[k] : undefined;
    return v ?? null;
  }
  if (section === 'http') return { proxy: '', proxyStrictSSL: false };
  return {}; // '[yaml]', 'editor', ...
}

function onServerRequest(msg) {
  let result = null;
  if (msg.method === 'workspace/configuration') {
    configPulls++;
    result = (msg.params?.items || []).map((it) => configFor(it.section));
    log('workspace/configuration', JSON.stringify((msg.params?.items || []).map((i) => i.section)));
  } else {
    log('server request', msg.method);
  }
  send({ id: msg.id, result });
}

function onMessage(msg) {
  if (msg.id !== undefined && msg.method === undefined) {
    const p = pending.get(msg.id);
    if (p) {
      pending.delete(msg.id);
      if (msg.error) p.rej(new Error(`${p.method}: ${msg.error.message}`));
      else p.res(msg.result);
    }
  } else if (msg.id !== undefined) {
    onServerRequest(msg);
  } else if (msg.method === 'textDocument/publishDiagnostics') {
    const d = docByUri.get(msg.params.uri) || docByUri.get(decodeURIComponent(msg.params.uri));
    log('publishDiagnostics', msg.params.uri, msg.params.diagnostics.length);
    if (d) {
      d.diagnostics = msg.params.diagnostics;
      d.publishCount++;
      lastPublishAt = Date.now();
    }
  } else if (msg.method === 'window/logMessage' || msg.method === 'window/showMessage') {
    logMessages.push(msg.params?.message);
    log(msg.method, msg.params?.message);
  } else {
    log('notification', msg.method);
  }
}

let buf = Buffer.alloc(0);
server.stdout.on('data', (chunk) => {
  buf = Buffer.concat([buf, chunk]);
  for (;;) {
    const headerEnd = buf.indexOf('\r\n\r\n');
    if (headerEnd < 0) return;
    const header = buf.subarray(0, headerEnd).toString('ascii');
    const m = /Content-Length:\s*(\d+)/i.exec(header);
    if (!m) {
      buf = buf.subarray(headerEnd + 4);
      continue;
    }
    const len = Number(m[1]);
    if (buf.length < headerEnd + 4 + len) return;
    const body = buf.subarray(headerEnd + 4, headerEnd + 4 + len).toString('utf8');
    buf = buf.subarray(headerEnd + 4 + len);
    try {
      onMessage(JSON.parse(body));
    } catch (e) {
      log('bad message', e.message);
    }
  }
});

// ---------------------------------------------------------------- result handling
let finished = false;
const output = { files: {}, schema_errors: [] };

function isSchemaError(diag) {
  return (
    diag.code === SCHEMA_RESOLVE_ERROR ||
    /^Schema '.*' is not valid/s.test(diag.message) ||
    /Unable to (load|parse) (schema|content)/i.test(diag.message) ||
    /Problem reading content from/i.test(diag.message)
  );
}

const harnessErrors = [];
function collect() {
  // idempotent: rebuilt from the latest publishDiagnostics of every document
  output.files = {};
  output.schema_errors = [];
  const seenSchemaMsgs = new Set();
  for (const d of docs.values()) {
    const out = [];
    for (const diag of d.diagnostics || []) {
      const line = diag.range.start.line + 1 - d.lineShift;
      const item = {
        line,
        col: diag.range.start.character + 1,
        endLine: diag.range.end.line + 1 - d.lineShift,
        endCol: diag.range.end.character + 1,
        severity: diag.severity,
        code: diag.code ?? null,
        source: diag.source ?? null,
        message: diag.message,
      };
      if (isSchemaError(diag)) {
        if (!seenSchemaMsgs.has(diag.message)) {
          seenSchemaMsgs.add(diag.message);
          output.schema_errors.push({ file: d.path, line: item.line, col: item.col, message: diag.message });
        }
      } else out.push(item);
    }
    out.sort((a, b) => a.line - b.line || a.col - b.col);
    output.files[d.path] = out;
  }
  output.schema_errors.push(...harnessErrors);
  const missing = [...docs.values()].filter((d) => d.diagnostics === null).map((d) => d.path);
  if (missing.length) output.no_diagnostics_received = missing;
}

function killServer() {
  if (serverExited) return;
  try {
    server.kill('SIGKILL');
  } catch {
    /* already gone */
  }
}

function finish(error) {
  if (finished) return;
  finished = true;
  clearTimeout(overallTimer);
  collect();
  output.server = serverVersion;
  output.association = opts.modeline ? 'modeline' : opts.settings ? 'settings-file' : 'settings';
  output.elapsed_s = Number(((Date.now() - t0) / 1000).toFixed(2));
  if (error) {
    output.error = error;
    if (serverStderr.trim()) output.server_stderr = serverStderr.trim().split('\n').slice(-20).join('\n');
  }
  process.stdout.write(JSON.stringify(output) + '\n');
  killServer();
  process.exitCode = error ? 3 : 0;
  // normally the loop is empty now and node exits by itself; never hang around regardless
  setTimeout(() => process.exit(process.exitCode), 500).unref();
}

const overallTimer = setTimeout(() => {
  finish(`overall timeout of ${opts.timeout}s hit`);
}, opts.timeout * 1000);

function sameUri(a, b) {
  try {
    return decodeURIComponent(a) === decodeURIComponent(b);
  } catch {
    return a === b;
  }
}
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
// for Promise.race guards: must not keep the process alive once everything else is done
const guard = (ms, value = null) => new Promise((r) => setTimeout(() => r(value), ms).unref());
let serverVersion = null;
try {
  serverVersion = JSON.parse(readFileSync(join(HERE, 'node_modules', 'yaml-language-server', 'package.json'), 'utf8')).version;
} catch {
  /* unknown */
}

async function waitSettled() {
  // every doc published at least once, then no publish for opts.settle ms
  for (;;) {
    if (finished) return;
    const allSeen = [...docs.values()].every((d) => d.publishCount > 0);
    if (allSeen && Date.now() - lastPublishAt >= opts.settle) return;
    await sleep(50);
  }
}

// ---------------------------------------------------------------- session
async function main() {
  const rootUri = pathToFileURL(workspaceDir).href;
  const init = await request('initialize', {
    processId: process.pid,
    clientInfo: { name: 'knapper-yls-check' },
    rootUri,
    workspaceFolders: [{ uri: rootUri, name: 'root' }],
    capabilities: {
      workspace: { configuration: true, didChangeConfiguration: { dynamicRegistration: true }, workspaceFolders: true },
      textDocument: {
        synchronization: { dynamicRegistration: false, didSave: false },
        publishDiagnostics: { relatedInformation: true },
        completion: { completionItem: { snippetSupport: true, documentationFormat: ['markdown', 'plaintext'] } },
        hover: { contentFormat: ['markdown', 'plaintext'] },
      },
    },
    initializationOptions: {},
  });
  log('initialized; server capabilities:', Object.keys(init?.capabilities || {}).join(','));
  notify('initialized', {});
  notify('workspace/didChangeConfiguration', { settings: { yaml: yamlSettings } });
  // yls 2.x ignores the pushed settings and pulls them with workspace/configuration; wait for that
  const pullDeadline = Date.now() + 5000;
  while (configPulls === 0 && Date.now() < pullDeadline && !finished) await sleep(20);
  await sleep(100);

  for (const d of docs.values()) {
    notify('textDocument/didOpen', { textDocument: { uri: d.uri, languageId: 'yaml', version: 1, text: d.text } });
  }
  await waitSettled();
  if (finished) return;

  // Ask the server which schemas it actually associated with each document (custom yls request),
  // so that a file the glob failed to match is reported instead of silently passing as "valid".
  output.associated = {};
  for (const d of docs.values()) {
    let uris = null;
    try {
      const res = await Promise.race([request('yaml/get/jsonSchema', d.uri), guard(5000)]);
      uris = Array.isArray(res) ? res.map((r) => r.uri) : null;
    } catch (e) {
      log('yaml/get/jsonSchema failed', e.message);
    }
    output.associated[d.path] = uris;
    const expected = schemaUri ? [schemaUri] : [...settingsUris];
    // yaml/get/jsonSchema names the schema of document 1; a modeline there wins over the settings
    // (they still apply to documents 2..N), so a file with a modeline only needs some schema
    const modelineWins = !schemaUri && MODELINE.test(d.text) && uris?.length > 0;
    if (Array.isArray(uris) && !modelineWins && !uris.some((u) => expected.some((e) => sameUri(u, e)))) {
      harnessErrors.push({
        file: d.path,
        line: 0,
        col: 0,
        message: `harness: the server did not associate ${expected.join(' or ')} with this file (associated: ${JSON.stringify(uris)})`,
      });
    }
  }

  if (opts.completes.length) output.completions = [];
  for (const c of opts.completes) {
    const d = docs.get(c.file);
    const res = await request('textDocument/completion', {
      textDocument: { uri: d.uri },
      position: { line: c.line - 1 + d.lineShift, character: c.col - 1 },
      context: { triggerKind: 1 },
    });
    const items = Array.isArray(res) ? res : res?.items || [];
    const answer = {
      file: d.path,
      line: c.line,
      col: c.col,
      labels: items.map((it) => it.label),
      items: items.map((it) => ({ label: it.label, kind: it.kind ?? null, detail: it.detail ?? null })),
    };
    output.completions.push(answer);
    if (output.completions.length === 1) Object.assign(output, answer); // the single-completion form
  }

  // polite shutdown, but never wait long for it
  await Promise.race([request('shutdown', null).catch(() => {}), guard(1000)]);
  notify('exit', null);
  finish(null);
}

main().catch((e) => {
  finish(`harness error: ${e && e.stack ? e.stack : e}`);
});
