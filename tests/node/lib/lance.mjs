// Raw HTTP helpers for Cairn's Lance REST Namespace routes (under /lance), plus small
// file-system helpers for the datasets behind Lance tables.

import assert from 'node:assert/strict';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { call, describeResponse } from './http.mjs';
import { validateLanceResponse } from './lance_spec.mjs';

/**
 * The `{id}` path segment as the Rust client writes it: levels joined with the delimiter,
 * form-encoded (space -> `+`, `$` -> `%24`). The root is the delimiter itself.
 */
export function lanceId(levels, delimiter = '$') {
  const joined = levels.length === 0 ? delimiter : levels.join(delimiter);
  return encodeURIComponent(joined).replace(/%20/g, '+');
}

/**
 * Lance API bound to one server. `op(kind, levels, action, opts)` calls
 * `/lance/v1/<kind>/<id>/<action>?delimiter=<d>` (POST with `body` unless `method` says
 * otherwise) and, when `spec` is given ('0.0.1' or 'latest'), validates the response
 * against that spec's operation.
 */
export function lance(base, { delimiter = '$' } = {}) {
  const query = (extra = '') => {
    const parts = [];
    if (delimiter !== null) parts.push(`delimiter=${encodeURIComponent(delimiter)}`);
    if (extra) parts.push(extra);
    return parts.length ? `?${parts.join('&')}` : '';
  };
  const api = {
    base,
    delimiter,
    path: (kind, levels, action, extra) =>
      `/lance/v1/${kind}/${typeof levels === 'string' ? levels : lanceId(levels, delimiter ?? '.')}/${action}${query(extra)}`,
    async op(kind, levels, action, { method = 'POST', body, rawBody, spec, query: extra, template } = {}) {
      const p = api.path(kind, levels, action, extra);
      const res = await call(base, method, p, { body, rawBody });
      if (spec) {
        const t = template ?? `/v1/${kind}/{id}/${action}`;
        try {
          validateLanceResponse(spec, method, t, res.status, res.json);
        } catch (e) {
          e.message = `${method} ${p}: ${e.message}`;
          throw e;
        }
      }
      return res;
    },
    /** Asserts 200 and returns the JSON body. */
    async must(kind, levels, action, opts = {}) {
      const res = await api.op(kind, levels, action, opts);
      assert.equal(res.status, 200, `${kind} ${JSON.stringify(levels)} ${action}: ${describeResponse(res)}`);
      return res.json;
    },
  };
  return api;
}

/** The local directory of a `file://` location (or a plain path). */
export function localPath(location) {
  return location.startsWith('file:') ? fileURLToPath(location) : location;
}

/** Writes `count` small files into `dir` (to make a dataset take more to delete). */
export function writeFiles(dir, count, prefix = 'extra') {
  mkdirSync(dir, { recursive: true });
  for (let i = 0; i < count; i++) writeFileSync(path.join(dir, `${prefix}-${i}.bin`), 'x');
}

/** Polls DescribeTransaction until `done(status)` or `timeoutMs`; returns every status seen. */
export async function waitForTransaction(api, id, { timeoutMs = 15_000, spec } = {}) {
  const seen = [];
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await api.op('transaction', id, 'describe', { body: { id }, spec });
    assert.equal(res.status, 200, describeResponse(res));
    const status = res.json.status;
    if (seen[seen.length - 1] !== status) seen.push(status);
    if (['SUCCEEDED', 'FAILED', 'CANCELED'].includes(status)) return { seen, body: res.json };
    if (Date.now() > deadline) assert.fail(`transaction ${id} still ${status} after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

export { existsSync };
