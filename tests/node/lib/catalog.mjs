// Thin helpers over http.call() for the namespace routes. Every helper validates the response
// against the spec operation (validateResponse) before returning it.

import assert from 'node:assert/strict';
import { call, nsPath, describeResponse } from './http.mjs';
import { validateResponse } from './spec.mjs';
import nodeHttp from 'node:http';
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';

export const T_CONFIG = '/v1/config';
export const T_NAMESPACES = '/v1/{prefix}/namespaces';
export const T_NAMESPACE = '/v1/{prefix}/namespaces/{namespace}';
export const T_PROPERTIES = '/v1/{prefix}/namespaces/{namespace}/properties';

/** Calls an Iceberg route and validates the response against `METHOD template`. */
export async function icall(base, method, path, template, opts) {
  const res = await call(base, method, path, opts);
  const body = res.json !== undefined ? res.json : res.text;
  try {
    validateResponse(method, template, res.status, body);
  } catch (e) {
    e.message = `${method} ${path}: ${e.message}`;
    throw e;
  }
  return res;
}

/**
 * Namespace API bound to one server and one route root, e.g. `/iceberg/v1/default`,
 * `/iceberg/v1`, `/v1` or `/v1/default`.
 */
export function catalog(base, root = '/iceberg/v1/default') {
  const ns = (levels) => `${root}/namespaces/${typeof levels === 'string' ? levels : nsPath(levels)}`;
  const api = {
    base,
    root,
    nsUrl: ns,
    create: (levels, properties, opts = {}) => {
      const body = { namespace: levels };
      if (properties !== undefined) body.properties = properties;
      return icall(base, 'POST', `${root}/namespaces`, T_NAMESPACES, { body, ...opts });
    },
    list: (query = '') => icall(base, 'GET', `${root}/namespaces${query ? `?${query}` : ''}`, T_NAMESPACES),
    load: (levels) => icall(base, 'GET', ns(levels), T_NAMESPACE),
    head: (levels) => icall(base, 'HEAD', ns(levels), T_NAMESPACE),
    drop: (levels) => icall(base, 'DELETE', ns(levels), T_NAMESPACE),
    update: (levels, body, opts = {}) => icall(base, 'POST', `${ns(levels)}/properties`, T_PROPERTIES, { body, ...opts }),
    /** Creates and asserts 200. */
    async mustCreate(levels, properties) {
      const res = await api.create(levels, properties);
      assert.equal(res.status, 200, `create ${JSON.stringify(levels)}: ${describeResponse(res)}`);
      return res.json;
    },
    /** Lists and asserts 200; returns the `namespaces` array. */
    async mustList(query = '') {
      const res = await api.list(query);
      assert.equal(res.status, 200, `list ?${query}: ${describeResponse(res)}`);
      assert.ok(Array.isArray(res.json?.namespaces), `list ?${query}: no namespaces array: ${res.text}`);
      return res.json.namespaces;
    },
    /** Follows next-page-token from an empty pageToken; returns {all, pages}. */
    async listAllPages(query = '', pageSize = 2, maxPages = 1000) {
      const pages = [];
      let token = '';
      for (let i = 0; i < maxPages; i++) {
        const q = [query, `pageToken=${encodeURIComponent(token)}`, `pageSize=${pageSize}`].filter(Boolean).join('&');
        const res = await api.list(q);
        assert.equal(res.status, 200, `list ?${q}: ${describeResponse(res)}`);
        pages.push(res.json);
        assert.ok(res.json.namespaces.length <= pageSize, `page larger than pageSize ${pageSize}: ${res.text}`);
        const next = res.json['next-page-token'];
        if (next === undefined || next === null) return { all: pages.flatMap((p) => p.namespaces), pages };
        assert.equal(typeof next, 'string', `next-page-token must be a string: ${res.text}`);
        assert.ok(next.length > 0, `next-page-token must be non-empty when present: ${res.text}`);
        token = next;
      }
      assert.fail(`pagination did not end after ${maxPages} pages`);
    },
  };
  return api;
}

/** Bytewise comparison of namespaces (level by level, UTF-8 bytes). */
export function compareNs(a, b) {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const c = Buffer.compare(Buffer.from(a[i], 'utf8'), Buffer.from(b[i], 'utf8'));
    if (c !== 0) return c;
  }
  return a.length - b.length;
}

export function sortNs(list) {
  return [...list].sort(compareNs);
}

/** Asserts that `list` is sorted bytewise and has no duplicates. */
export function assertSortedUnique(list, ctx = '') {
  for (let i = 1; i < list.length; i++) {
    assert.ok(
      compareNs(list[i - 1], list[i]) < 0,
      `${ctx} namespaces not strictly sorted bytewise at ${i}: ${JSON.stringify(list[i - 1])} !< ${JSON.stringify(list[i])} in ${JSON.stringify(list)}`,
    );
  }
}

/** True when `list` contains namespace `levels`. */
export function hasNs(list, levels) {
  return list.some((n) => JSON.stringify(n) === JSON.stringify(levels));
}

// ---------------------------------------------------------------------------------------------
// Tables (added for the table suites)

export const T_TABLES = '/v1/{prefix}/namespaces/{namespace}/tables';
export const T_TABLE = '/v1/{prefix}/namespaces/{namespace}/tables/{table}';
export const T_REGISTER = '/v1/{prefix}/namespaces/{namespace}/register';
export const T_RENAME = '/v1/{prefix}/tables/rename';
export const T_METRICS = '/v1/{prefix}/namespaces/{namespace}/tables/{table}/metrics';

/** Maps a request path (with or without /iceberg and prefix) to the spec template, or null. */
export function tableTemplateFor(pathname) {
  const p = pathname.replace(/\?.*$/, '').replace(/^\/iceberg(?=\/)/, '');
  if (/^\/v1\/config$/.test(p)) return T_CONFIG;
  if (/^\/v1\/(?:[^/]+\/)?tables\/rename$/.test(p)) return T_RENAME;
  if (/^\/v1\/(?:[^/]+\/)?namespaces$/.test(p)) return T_NAMESPACES;
  if (/^\/v1\/(?:[^/]+\/)?namespaces\/[^/]+$/.test(p)) return T_NAMESPACE;
  if (/^\/v1\/(?:[^/]+\/)?namespaces\/[^/]+\/properties$/.test(p)) return T_PROPERTIES;
  if (/^\/v1\/(?:[^/]+\/)?namespaces\/[^/]+\/register$/.test(p)) return T_REGISTER;
  if (/^\/v1\/(?:[^/]+\/)?namespaces\/[^/]+\/tables$/.test(p)) return T_TABLES;
  if (/^\/v1\/(?:[^/]+\/)?namespaces\/[^/]+\/tables\/[^/]+$/.test(p)) return T_TABLE;
  if (/^\/v1\/(?:[^/]+\/)?namespaces\/[^/]+\/tables\/[^/]+\/metrics$/.test(p)) return T_METRICS;
  return null;
}

/**
 * Table API bound to one server and route root. Every call validates the response against the
 * spec. `ns` is an array of levels (or an already-encoded path segment string).
 */
export function tableApi(base, root = '/iceberg/v1/default') {
  const nsSeg = (ns) => (typeof ns === 'string' ? ns : nsPath(ns));
  const tablesUrl = (ns) => `${root}/namespaces/${nsSeg(ns)}/tables`;
  const tableUrl = (ns, name) => `${tablesUrl(ns)}/${encodeURIComponent(name)}`;
  const q = (query) => (query ? `?${query}` : '');
  const api = {
    base,
    root,
    tablesUrl,
    tableUrl,
    list: (ns, query = '') => icall(base, 'GET', `${tablesUrl(ns)}${q(query)}`, T_TABLES),
    create: (ns, body, opts = {}) => icall(base, 'POST', tablesUrl(ns), T_TABLES, { body, ...opts }),
    load: (ns, name, { query = '', headers } = {}) =>
      icall(base, 'GET', `${tableUrl(ns, name)}${q(query)}`, T_TABLE, { headers }),
    head: (ns, name) => icall(base, 'HEAD', tableUrl(ns, name), T_TABLE),
    commit: (ns, name, body, opts = {}) => icall(base, 'POST', tableUrl(ns, name), T_TABLE, { body, ...opts }),
    drop: (ns, name, purge) =>
      icall(base, 'DELETE', `${tableUrl(ns, name)}${purge === undefined ? '' : `?purgeRequested=${purge}`}`, T_TABLE),
    rename: (source, destination, opts = {}) =>
      icall(base, 'POST', `${root}/tables/rename`, T_RENAME, { body: { source, destination }, ...opts }),
    register: (ns, body, opts = {}) => icall(base, 'POST', `${root}/namespaces/${nsSeg(ns)}/register`, T_REGISTER, { body, ...opts }),
    metrics: (ns, name, body) => icall(base, 'POST', `${tableUrl(ns, name)}/metrics`, T_METRICS, { body }),
    /** Creates and asserts 200; returns the LoadTableResult. */
    async mustCreate(ns, body) {
      const res = await api.create(ns, body);
      assert.equal(res.status, 200, `create table ${JSON.stringify(ns)}.${body?.name}: ${describeResponse(res)}`);
      return res.json;
    },
    /** Loads and asserts 200; returns the LoadTableResult (with `etag` from the header). */
    async mustLoad(ns, name, opts) {
      const res = await api.load(ns, name, opts);
      assert.equal(res.status, 200, `load table ${JSON.stringify(ns)}.${name}: ${describeResponse(res)}`);
      return { ...res.json, etag: res.headers.etag };
    },
    /** Commits and asserts 200; returns the CommitTableResponse. */
    async mustCommit(ns, name, body) {
      const res = await api.commit(ns, name, body);
      assert.equal(res.status, 200, `commit ${JSON.stringify(ns)}.${name} ${JSON.stringify(body)}: ${describeResponse(res)}`);
      return res.json;
    },
    /** Lists and asserts 200; returns the identifiers array. */
    async mustList(ns, query = '') {
      const res = await api.list(ns, query);
      assert.equal(res.status, 200, `list tables ${JSON.stringify(ns)} ?${query}: ${describeResponse(res)}`);
      assert.ok(Array.isArray(res.json?.identifiers), `no identifiers array: ${res.text}`);
      return res.json.identifiers;
    },
  };
  return api;
}

/** Local path of a `file://` metadata/table location. */
export function localPath(location) {
  assert.match(String(location), /^file:\/\//, `expected a file:// location, got ${location}`);
  return fileURLToPath(location);
}

/** Reads and parses a metadata file named by a `file://` location (gzip tolerated). */
export function readMetadataFile(location) {
  let bytes = readFileSync(localPath(location));
  if (/\.gz(\.metadata\.json)?$|\.metadata\.json\.gz$/.test(location)) bytes = gunzipSync(bytes);
  return JSON.parse(bytes.toString('utf8'));
}

/** A two-column schema (`id` long required, `ts` timestamptz) with request ids 3 and 4. */
export function sampleSchema(extra = []) {
  return {
    type: 'struct',
    'schema-id': 7,
    fields: [
      { id: 3, name: 'id', type: 'long', required: true },
      { id: 4, name: 'ts', type: 'timestamptz', required: false },
      ...extra,
    ],
  };
}

/** Snapshot JSON for an append on top of `parentId` (null: first snapshot). */
export function makeSnapshot(location, snapshotId, parentId, sequenceNumber, timestampMs = Date.now()) {
  const snap = {
    'snapshot-id': snapshotId,
    'sequence-number': sequenceNumber,
    'timestamp-ms': timestampMs,
    'manifest-list': `${location}/metadata/snap-${snapshotId}-1-${randomUUID()}.avro`,
    summary: { operation: 'append', 'added-data-files': '1' },
    'schema-id': 0,
  };
  if (parentId !== null && parentId !== undefined && parentId !== -1) snap['parent-snapshot-id'] = parentId;
  return snap;
}

/**
 * The Java client's append commit against `metadata`: add-snapshot + set-snapshot-ref main,
 * guarded by assert-table-uuid and assert-ref-snapshot-id main (null when no main yet).
 */
export function appendCommit(metadata, snapshotId, { timestampMs } = {}) {
  const main = metadata.refs?.main?.['snapshot-id'] ?? null;
  const snapshot = makeSnapshot(metadata.location, snapshotId, main, (metadata['last-sequence-number'] ?? 0) + 1, timestampMs);
  return {
    requirements: [
      { type: 'assert-table-uuid', uuid: metadata['table-uuid'] },
      { type: 'assert-ref-snapshot-id', ref: 'main', 'snapshot-id': main },
    ],
    updates: [
      { action: 'add-snapshot', snapshot },
      { action: 'set-snapshot-ref', 'ref-name': 'main', type: 'branch', 'snapshot-id': snapshotId },
    ],
  };
}

/**
 * Like http.call() but over a caller-supplied keep-alive `http.Agent` (for load tests).
 * Resolves with {status, headers, text, json}.
 */
export function agentCall(agent, base, method, path, { body, headers = {}, timeoutMs = 30_000 } = {}) {
  const u = new URL(base);
  const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body), 'utf8');
  const hdrs = { ...headers };
  if (payload) {
    hdrs['Content-Type'] = 'application/json';
    hdrs['Content-Length'] = String(payload.length);
  }
  return new Promise((resolve, reject) => {
    const req = nodeHttp.request({ host: u.hostname, port: u.port, method, path, headers: hdrs, agent }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('error', reject);
      res.on('end', () => {
        clearTimeout(timer);
        const text = Buffer.concat(chunks).toString('utf8');
        let json;
        if (/json/i.test(String(res.headers['content-type'] || '')) && text) {
          try {
            json = JSON.parse(text);
          } catch {
            /* left undefined */
          }
        }
        resolve({ status: res.statusCode, headers: res.headers, text, json });
      });
    });
    const timer = setTimeout(() => req.destroy(new Error(`timeout after ${timeoutMs} ms: ${method} ${path}`)), timeoutMs);
    req.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    req.end(payload);
  });
}
