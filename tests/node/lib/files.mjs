// Helpers for the file-safety regression tests (issue 12): a Cairn server with its default
// warehouse, Iceberg and Lance calls that cannot hang (every call has a timeout) and are
// validated against the specs, checks that a refusal is a clean 4xx, and small file-system
// helpers (listing a tree, spelling one path many ways, a FIFO, the server's memory).

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, readlinkSync, statSync } from 'node:fs';
import path from 'node:path';
import { call, nsPath, describeResponse } from './http.mjs';
import { catalog } from './catalog.mjs';
import { lanceId } from './lance.mjs';
import { assertLanceError, validateLanceResponse } from './lance_spec.mjs';
import { assertIcebergError, validateResponse, validateSchema } from './spec.mjs';
import { startServer } from './server.mjs';

/** Every HTTP call of these tests gives up after this long, so a stuck request is a failure. */
export const CALL_TIMEOUT_MS = 15_000;

/** Texts of strerror() (and the word errno) that must never reach a client. */
export const ERRNO_TEXTS = ['No such file or directory', 'Permission denied', 'File name too long', 'Not a directory', 'errno'];

/** Error types a refused Iceberg request may carry (the Java client knows both). */
export const REFUSAL_TYPES = ['BadRequestException', 'IllegalArgumentException'];

const T_TABLES = '/v1/{prefix}/namespaces/{namespace}/tables';
const T_TABLE = '/v1/{prefix}/namespaces/{namespace}/tables/{table}';
const T_REGISTER = '/v1/{prefix}/namespaces/{namespace}/register';
const T_VIEWS = '/v1/{prefix}/namespaces/{namespace}/views';
const T_TRANSACTIONS = '/v1/{prefix}/transactions/commit';

/**
 * Sends one request with the tests' timeout and validates the answer against the Iceberg spec.
 * The answer carries `sent` (the request body as text) so that message checks know which
 * paths the client itself named.
 *
 * `viewRoute`: the spec declares most view errors with the bare ErrorModel while Cairn (like
 * the Java client expects) wraps them in {"error": ...}; accept the wrapper there, as
 * views.test.mjs does.
 */
async function icebergCall(base, method, target, template, body, { viewRoute = false } = {}) {
  const res = await call(base, method, target, { body, timeoutMs: CALL_TIMEOUT_MS });
  res.sent = body === undefined ? '' : JSON.stringify(body);
  const parsed = res.json !== undefined ? res.json : res.text;
  try {
    validateResponse(method, template, res.status, parsed);
  } catch (e) {
    if (!viewRoute || res.status < 400 || !parsed || typeof parsed !== 'object' || !('error' in parsed)) {
      e.message = `${method} ${target}: ${e.message}`;
      throw e;
    }
    validateSchema('IcebergErrorResponse', parsed);
    validateResponse(method, template, res.status, parsed.error);
  }
  return res;
}

/** The Iceberg routes these tests use, on the default catalog. `ns` is an array of levels. */
export function icebergApi(base, root = '/iceberg/v1/default') {
  const tables = (ns) => `${root}/namespaces/${nsPath(ns)}/tables`;
  const table = (ns, name) => `${tables(ns)}/${encodeURIComponent(name)}`;
  return {
    createTable: (ns, body) => icebergCall(base, 'POST', tables(ns), T_TABLES, body),
    listTables: (ns) => icebergCall(base, 'GET', tables(ns), T_TABLES),
    loadTable: (ns, name) => icebergCall(base, 'GET', table(ns, name), T_TABLE),
    commitTable: (ns, name, body) => icebergCall(base, 'POST', table(ns, name), T_TABLE, body),
    dropTable: (ns, name, purge) =>
      icebergCall(base, 'DELETE', `${table(ns, name)}${purge === undefined ? '' : `?purgeRequested=${purge}`}`, T_TABLE),
    register: (ns, body) => icebergCall(base, 'POST', `${root}/namespaces/${nsPath(ns)}/register`, T_REGISTER, body),
    createView: (ns, body) => icebergCall(base, 'POST', `${root}/namespaces/${nsPath(ns)}/views`, T_VIEWS, body, { viewRoute: true }),
    commitTransaction: (body) => icebergCall(base, 'POST', `${root}/transactions/commit`, T_TRANSACTIONS, body),
  };
}

/**
 * The Lance routes these tests use (delimiter `$`; a table id is [catalog, ns..., name]).
 * Answers are validated against the current Lance spec (the one DeclareTable is in).
 */
export function lanceApi(base) {
  const op = async (kind, levels, action, body) => {
    const target = `/lance/v1/${kind}/${lanceId(levels)}/${action}?delimiter=%24`;
    const res = await call(base, 'POST', target, { body: body ?? {}, timeoutMs: CALL_TIMEOUT_MS });
    res.sent = JSON.stringify(body ?? {});
    try {
      validateLanceResponse('latest', 'POST', `/v1/${kind}/{id}/${action}`, res.status, res.json);
    } catch (e) {
      e.message = `POST ${target}: ${e.message}`;
      throw e;
    }
    return res;
  };
  return {
    declare: (id, location) => op('table', id, 'declare', location === undefined ? { id } : { id, location }),
    drop: (id) => op('table', id, 'drop', { id }),
    describe: (id) => op('table', id, 'describe', { id }),
    describeTransaction: (txid) => op('transaction', [txid], 'describe', { id: txid }),
  };
}

/**
 * A fresh server (own temp data dir) with namespace `ns` in the default catalog.
 * `wh` is the default catalog's warehouse directory, `<data-dir>/warehouse/default`.
 */
export async function startCatalog({ args = [], env } = {}) {
  const server = await startServer({ args, env });
  const wh = path.join(server.dataDir, 'warehouse', 'default');
  const api = {
    server,
    base: server.url,
    dataDir: server.dataDir,
    wh,
    whUri: `file://${wh}`,
    ice: icebergApi(server.url),
    lance: lanceApi(server.url),
    cleanup: () => server.cleanup(),
  };
  const created = await catalog(server.url).create(['ns'], undefined, { timeoutMs: CALL_TIMEOUT_MS });
  assert.equal(created.status, 200, `create namespace ns: ${describeResponse(created)}`);
  return api;
}

// ---------------------------------------------------------------------------------------------
// Requests every test needs

/** A two-column create request. */
export const tableRequest = (name, extra = {}) => ({
  name,
  schema: {
    type: 'struct',
    'schema-id': 0,
    fields: [
      { id: 1, name: 'id', type: 'long', required: true },
      { id: 2, name: 'ts', type: 'timestamptz', required: false },
    ],
  },
  ...extra,
});

/** A minimal CreateViewRequest. */
export const viewRequest = (name, extra = {}) => ({
  name,
  schema: { type: 'struct', 'schema-id': 0, fields: [{ id: 1, name: 'id', type: 'long', required: true }] },
  'view-version': {
    'version-id': 1,
    'timestamp-ms': 1_700_000_000_000,
    'schema-id': 0,
    summary: { 'engine-name': 'spark' },
    'default-namespace': ['ns'],
    representations: [{ type: 'sql', sql: 'select 1', dialect: 'spark' }],
  },
  properties: {},
  ...extra,
});

/** A commit that only sets properties. */
export const setProperties = (updates) => ({ requirements: [], updates: [{ action: 'set-properties', updates }] });

/** Creates a table and asserts 200; returns the LoadTableResult. */
export async function mustCreateTable(cat, name, extra = {}) {
  const res = await cat.ice.createTable(['ns'], tableRequest(name, extra));
  assert.equal(res.status, 200, `create table ns.${name}: ${describeResponse(res)}`);
  return res.json;
}

/** Commits and asserts 200; returns the CommitTableResponse. */
export async function mustCommit(cat, name, body) {
  const res = await cat.ice.commitTable(['ns'], name, body);
  assert.equal(res.status, 200, `commit ns.${name} ${JSON.stringify(body)}: ${describeResponse(res)}`);
  return res.json;
}

/** Loads and asserts 200; returns the LoadTableResult. */
export async function mustLoad(cat, name) {
  const res = await cat.ice.loadTable(['ns'], name);
  assert.equal(res.status, 200, `load table ns.${name}: ${describeResponse(res)}`);
  return res.json;
}

// ---------------------------------------------------------------------------------------------
// What a refusal must look like

/** Status and the start of the body, for assertion messages. */
export function brief(res) {
  return `HTTP ${res.status} ${res.text.length > 300 ? `${res.text.slice(0, 300)}...` : res.text}`;
}

/**
 * A refusal's message names the problem, never an errno text, and never a server path
 * outside the catalog's own locations (its warehouse, `<data-dir>/warehouse/...`), which
 * the issue allows a message to name, unless the client itself sent a path there.
 */
export function assertCleanMessage(message, res, dataDir, ctx) {
  for (const text of ERRNO_TEXTS) {
    assert.ok(!message.includes(text), `${ctx}: the message reveals an errno text (${text}): ${message}`);
  }
  if (!String(res.sent ?? '').includes(dataDir)) {
    const outsideWarehouse = message.split(`${dataDir}/warehouse/`).join('<warehouse>/');
    assert.ok(
      !outsideWarehouse.includes(dataDir),
      `${ctx}: the message reveals a server path outside the catalog's locations (${dataDir}): ${message}`,
    );
  }
}

/**
 * Asserts an Iceberg 400 in the protocol's error shape, of a refusal type, whose message
 * matches `pattern` and is clean. Returns the `error` object.
 */
export function assertIcebergRefusal(res, cat, ctx, pattern) {
  assert.ok(res.status < 500, `${ctx}: a client mistake answered ${describeResponse(res)}`);
  assert.equal(res.status, 400, `${ctx}: expected a 400 refusal, got ${brief(res)}`);
  const err = assertIcebergError(res, 400);
  assert.ok(REFUSAL_TYPES.includes(err.type), `${ctx}: error type ${err.type} is none of ${REFUSAL_TYPES}: ${res.text}`);
  if (pattern) assert.match(err.message, pattern, `${ctx}: the message does not name the problem (${pattern}): ${err.message}`);
  assertCleanMessage(err.message, res, cat.dataDir, ctx);
  return err;
}

/** Asserts a Lance 400 InvalidInput (code 13) whose message matches `pattern` and is clean. */
export function assertLanceRefusal(res, cat, ctx, pattern) {
  assert.ok(res.status < 500, `${ctx}: a client mistake answered ${describeResponse(res)}`);
  assert.equal(res.status, 400, `${ctx}: expected a 400 refusal, got ${brief(res)}`);
  const body = assertLanceError(res, 400, 13);
  if (pattern) assert.match(body.error, pattern, `${ctx}: the message does not name the problem (${pattern}): ${body.error}`);
  assertCleanMessage(body.error, res, cat.dataDir, ctx);
  return body;
}

/** Message patterns (loose on purpose: the wording is the server's to choose). */
export const OUTSIDE = /allowed location|outside/i;
export const OVERLAP = /overlap/i;

// ---------------------------------------------------------------------------------------------
// Files

/** Local path of a `file:` URI (any of its spellings Cairn hands out) or a plain path. */
export function localPathOf(location) {
  const s = String(location);
  if (!s.startsWith('file:')) return s;
  return decodeURIComponent(s.replace(/^file:(\/\/(localhost)?)?/, ''));
}

/** Relative paths of every file (not directory) under `dir`, sorted; [] when it is missing. */
export function filesUnder(dir) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true })
    .map(String)
    .filter((rel) => !statSync(path.join(dir, rel)).isDirectory())
    .sort();
}

/** Every entry (files and directories) under `dir`, sorted; [] when missing. */
export function entriesUnder(dir) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true }).map(String).sort();
}

/**
 * The same directory `dir` (absolute, at least two levels deep) spelled the ways the issue
 * lists — each names `dir` itself, so a catalog that compares strings sees another location.
 */
export function spellingsOf(dir) {
  const parent = path.dirname(dir);
  const leaf = path.basename(dir);
  // Percent-encoding an unreserved character ('a' is %61) does not change a URI.
  const encoded = dir.replace(/a/, '%61');
  return [
    { how: 'plain path', location: dir },
    { how: 'plain path, trailing slash', location: `${dir}/` },
    { how: 'double slash inside', location: `${parent}//${leaf}` },
    { how: '/./ inside', location: `${parent}/./${leaf}` },
    { how: 'x/../ inside', location: `${parent}/x/../${leaf}` },
    { how: 'file:// URI', location: `file://${dir}` },
    { how: 'file:// URI, double slash inside', location: `file://${parent}//${leaf}` },
    { how: 'file://localhost URI', location: `file://localhost${dir}` },
    { how: 'file: URI (one slash)', location: `file:${dir}` },
    { how: 'file:// URI, %-encoded letter', location: `file://${encoded}` },
  ];
}

/** Makes a FIFO (named pipe) at `p`. */
export function mkfifo(p) {
  execFileSync('mkfifo', [p]);
}

/** Resident memory of process `pid` in bytes (from /proc/<pid>/status), or 0 when it is gone. */
export function rssBytes(pid) {
  try {
    const m = /^VmRSS:\s+(\d+)\s+kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

/** Where the open file descriptors of process `pid` point (readlink of /proc/<pid>/fd/*); [] when it is gone. */
export function openFiles(pid) {
  try {
    return readdirSync(`/proc/${pid}/fd`).flatMap((fd) => {
      try {
        return [readlinkSync(`/proc/${pid}/fd/${fd}`)];
      } catch {
        return []; // closed meanwhile
      }
    });
  } catch {
    return [];
  }
}

/**
 * How many threads of process `pid` are blocked opening a FIFO that has no writer (the kernel
 * reports them waiting in `wait_for_partner`). 0 when the process is gone, or where the kernel
 * does not name wait channels: then only a hang is seen, not where it is.
 */
export function threadsOpeningFifo(pid) {
  try {
    return readdirSync(`/proc/${pid}/task`).filter((tid) => {
      try {
        return readFileSync(`/proc/${pid}/task/${tid}/wchan`, 'utf8').trim() === 'wait_for_partner';
      } catch {
        return false; // the thread ended meanwhile
      }
    }).length;
  } catch {
    return 0;
  }
}

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
