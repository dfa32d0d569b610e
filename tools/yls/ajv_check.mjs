#!/usr/bin/env node
// Compile JSON Schemas with the REAL ajv in strict mode, as editors and CI tools load them.
//
//   node tools/yls/ajv_check.mjs SCHEMA_FILE [SCHEMA_FILE...]
//       -> {"ajv": "8.20.0", "files": {path: {"draft": "draft-07"|"2020-12", "errors": ["..."]}}}
//
// The dialect comes from each schema's `$schema`: draft-07 -> `new Ajv({strict: true})`,
// 2020-12 -> `new Ajv2020({strict: true})`; any other `$schema` is an error. `strict: true` turns
// every strict check on (unknown keywords, strictTypes incl. union types, strictTuples,
// strictRequired). A strict failure throws on the first problem, so a schema that fails is compiled
// again with every check set to "log", to list all of them; `errors` is empty exactly when the
// schema compiles under `strict: true`.
//
// Exit status: 0 every schema compiles; 1 at least one does not; 2 usage error.

import { readFileSync, existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Ajv from 'ajv';
import Ajv2020 from 'ajv/dist/2020.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const DIALECTS = {
  'http://json-schema.org/draft-07/schema': ['draft-07', Ajv],
  'https://json-schema.org/draft/2020-12/schema': ['2020-12', Ajv2020],
};

const files = process.argv.slice(2);
if (files.length === 0 || files.some((f) => f.startsWith('-'))) {
  process.stderr.write('usage: node ajv_check.mjs SCHEMA_FILE [SCHEMA_FILE...]\n');
  process.exit(2);
}

function dialectOf(schema) {
  const id = String(schema.$schema ?? '').replace(/#$/, '');
  return DIALECTS[id] ?? null;
}

function check(path) {
  if (!existsSync(path)) return { draft: null, errors: [`no such file`] };
  let schema;
  try {
    schema = JSON.parse(readFileSync(path, 'utf8'));
  } catch (e) {
    return { draft: null, errors: [`not JSON: ${e.message}`] };
  }
  const dialect = dialectOf(schema);
  if (!dialect) return { draft: null, errors: [`unsupported $schema ${JSON.stringify(schema.$schema)}`] };
  const [draft, AjvClass] = dialect;
  const errors = [];
  const logger = { log() {}, warn: (m) => errors.push(String(m)), error: (m) => errors.push(String(m)) };
  try {
    new AjvClass({ strict: true, logger }).compile(schema);
    return { draft, errors: [] };
  } catch (e) {
    errors.push(e.message);
  }
  // strict mode stops at the first problem: list them all with every check set to "log"
  const all = { strictSchema: 'log', strictTypes: 'log', strictTuples: 'log', strictRequired: 'log', logger };
  try {
    new AjvClass(all).compile(schema);
  } catch (e) {
    errors.push(e.message); // not a strict-mode problem: invalid against the meta-schema, bad $ref, ...
  }
  return { draft, errors: [...new Set(errors)] };
}

const out = { ajv: null, files: {} };
try {
  out.ajv = JSON.parse(readFileSync(join(HERE, 'node_modules', 'ajv', 'package.json'), 'utf8')).version;
} catch {
  /* unknown */
}
for (const f of files) out.files[f] = check(f);
process.stdout.write(JSON.stringify(out) + '\n');
process.exitCode = Object.values(out.files).some((r) => r.errors.length) ? 1 : 0;
