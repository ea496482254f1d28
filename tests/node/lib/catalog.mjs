// Thin helpers over http.call() for the namespace routes. Every helper validates the response
// against the spec operation (validateResponse) before returning it.

import assert from 'node:assert/strict';
import { call, nsPath, describeResponse } from './http.mjs';
import { validateResponse } from './spec.mjs';

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
