// Bad input must give Iceberg-shaped errors, and must never take the server down or change
// the catalog. After every case: GET /health is 200 and the namespace listing is unchanged.

import assert from 'node:assert/strict';
import { test, before, after } from 'node:test';
import { startServer, withServerLog } from './lib/server.mjs';
import { call, describeResponse } from './lib/http.mjs';
import { assertIcebergError } from './lib/spec.mjs';
import { catalog, icall, T_NAMESPACES, T_NAMESPACE, T_PROPERTIES } from './lib/catalog.mjs';

let server;
let base;
let c;
let snapshot; // {root, children, props}

async function takeSnapshot() {
  return {
    root: await c.mustList(),
    children: await c.mustList('parent=base'),
    props: (await c.load(['base'])).json?.properties,
  };
}

before(async () => {
  server = await startServer();
  base = server.url;
  c = catalog(base, '/iceberg/v1/default');
  await c.mustCreate(['base'], { owner: 'me' });
  await c.mustCreate(['base', 'child']);
  await c.mustCreate(['other']);
  snapshot = await takeSnapshot();
});
after(async () => {
  await server?.cleanup();
});

/** A bad-input test: runs `fn`, then checks the server is up and nothing changed. */
function bad(name, fn) {
  test(
    name,
    withServerLog(
      () => server,
      async (t) => {
        let failure;
        try {
          await fn(t);
        } catch (e) {
          failure = e;
        }
        const health = await call(base, 'GET', '/health');
        assert.equal(health.status, 200, `server unhealthy after "${name}": ${describeResponse(health)}`);
        const now = await takeSnapshot();
        const before = snapshot;
        snapshot = now; // report a change once, in the case that caused it, not in every later case
        if (failure) throw failure;
        assert.deepEqual(now, before, `catalog changed after "${name}"`);
      },
    ),
  );
}

const NS = '/iceberg/v1/default/namespaces';
const PROPS = '/iceberg/v1/default/namespaces/base/properties';

// --- malformed JSON -------------------------------------------------------------------------

for (const raw of ['{"namespace": [', 'not json', '{"namespace": ["a"]} trailing', '', '{"namespace": ["a"],}']) {
  bad(`POST namespaces with malformed JSON ${JSON.stringify(raw)} -> 400`, async () => {
    const res = await icall(base, 'POST', NS, T_NAMESPACES, { rawBody: raw });
    assertIcebergError(res, 400, 'BadRequestException');
  });
}

bad('POST properties with malformed JSON -> 400', async () => {
  const res = await icall(base, 'POST', PROPS, T_PROPERTIES, { rawBody: '{"updates": {"a": "b"' });
  assertIcebergError(res, 400, 'BadRequestException');
});

bad('invalid UTF-8 in a JSON body -> 400', async () => {
  const raw = Buffer.concat([Buffer.from('{"namespace": ["'), Buffer.from([0xff, 0xfe]), Buffer.from('"]}')]);
  const res = await icall(base, 'POST', NS, T_NAMESPACES, { rawBody: raw });
  assertIcebergError(res, 400, 'BadRequestException');
});

// --- wrong JSON types: 400 naming the field -------------------------------------------------

const typeCases = [
  [NS, T_NAMESPACES, { namespace: 'a' }, 'namespace'],
  [NS, T_NAMESPACES, { namespace: [1] }, 'namespace'],
  [NS, T_NAMESPACES, { namespace: [['a']] }, 'namespace'],
  [NS, T_NAMESPACES, { namespace: null }, 'namespace'],
  [NS, T_NAMESPACES, { namespace: ['newns'], properties: { k: 1 } }, 'properties'],
  [NS, T_NAMESPACES, { namespace: ['newns'], properties: [] }, 'properties'],
  [NS, T_NAMESPACES, { namespace: ['newns'], properties: 'x' }, 'properties'],
  [NS, T_NAMESPACES, { namespace: ['newns'], properties: { k: null } }, 'properties'],
  [PROPS, T_PROPERTIES, { updates: { k: true } }, 'updates'],
  [PROPS, T_PROPERTIES, { updates: ['k'] }, 'updates'],
  [PROPS, T_PROPERTIES, { removals: 'x' }, 'removals'],
  [PROPS, T_PROPERTIES, { removals: [1] }, 'removals'],
  [PROPS, T_PROPERTIES, { removals: { owner: 'x' } }, 'removals'],
];
for (const [path, tpl, body, field] of typeCases) {
  bad(`POST ${path.replace('/iceberg/v1/default', '')} ${JSON.stringify(body)} -> 400 naming "${field}"`, async () => {
    const res = await icall(base, 'POST', path, tpl, { body });
    const err = assertIcebergError(res, 400, 'BadRequestException');
    assert.ok(err.message.includes(field), `error message should name "${field}": ${err.message}`);
  });
}

for (const body of [{}, { properties: { a: 'b' } }, { Namespace: ['x'] }]) {
  bad(`POST namespaces without "namespace" ${JSON.stringify(body)} -> 400 naming it`, async () => {
    const res = await icall(base, 'POST', NS, T_NAMESPACES, { body });
    const err = assertIcebergError(res, 400, 'BadRequestException');
    assert.ok(err.message.includes('namespace'), `error message should name "namespace": ${err.message}`);
  });
}

for (const raw of ['[]', 'null', '"namespace"', '42']) {
  bad(`POST namespaces with a non-object JSON body ${raw} -> 400`, async () => {
    const res = await icall(base, 'POST', NS, T_NAMESPACES, { rawBody: raw });
    assertIcebergError(res, 400, 'BadRequestException');
  });
  bad(`POST properties with a non-object JSON body ${raw} -> 400`, async () => {
    const res = await icall(base, 'POST', PROPS, T_PROPERTIES, { rawBody: raw });
    assertIcebergError(res, 400, 'BadRequestException');
  });
}

// --- invalid namespace names ----------------------------------------------------------------

const badNames = [[], ['a', ''], [''], ['a\x1fb'], ['\x1f'], ['..'], ['.'], ['base', '..'], ['a/b'], ['/'], ['base', 'x/y']];
for (const namespace of badNames) {
  bad(`POST namespaces with invalid name ${JSON.stringify(namespace)} -> 400`, async () => {
    const res = await icall(base, 'POST', NS, T_NAMESPACES, { body: { namespace } });
    assertIcebergError(res, 400, 'BadRequestException');
  });
}

const badSegments = ['a%2Fb', 'base%2Fchild', '%2E%2E', '%2E', 'base%1F%2E%2E', 'base%1F', '%1Fbase', 'base%1F%1Fchild', 'a%1F'];
for (const seg of badSegments) {
  bad(`GET namespaces/${seg} -> 400`, async () => {
    const res = await icall(base, 'GET', `${NS}/${seg}`, T_NAMESPACE);
    assertIcebergError(res, 400, 'BadRequestException');
  });
}
bad('DELETE / HEAD / POST properties with an encoded slash -> 400', async () => {
  let res = await icall(base, 'DELETE', `${NS}/base%2Fchild`, T_NAMESPACE);
  assertIcebergError(res, 400, 'BadRequestException');
  res = await icall(base, 'HEAD', `${NS}/base%2Fchild`, T_NAMESPACE);
  assert.equal(res.status, 400, describeResponse(res));
  assert.equal(res.text, '');
  res = await icall(base, 'POST', `${NS}/base%2Fchild/properties`, T_PROPERTIES, { body: { updates: { a: 'b' } } });
  assertIcebergError(res, 400, 'BadRequestException');
});

bad('invalid percent-encoding in a path segment -> 400', async () => {
  const res = await icall(base, 'GET', `${NS}/bad%zzname`, T_NAMESPACE);
  assertIcebergError(res, 400, 'BadRequestException');
});

bad('parent query with an empty level / encoded slash -> 400', async () => {
  for (const q of ['parent=base%1F', 'parent=a%2Fb', 'parent=%1F']) {
    const res = await icall(base, 'GET', `${NS}?${q}`, T_NAMESPACES);
    assertIcebergError(res, 400, 'BadRequestException');
  }
});

// --- body size --------------------------------------------------------------------------------

bad('a 40 MiB body (limit 32 MiB) -> 413 RequestTooLargeException', async () => {
  const size = 40 * 1024 * 1024;
  const head = '{"namespace":["big"],"properties":{"x":"';
  const tail = '"}}';
  const buf = Buffer.alloc(size, 'a');
  buf.write(head, 0);
  buf.write(tail, size - tail.length);
  const res = await call(base, 'POST', NS, { rawBody: buf, headers: { 'Content-Length': String(size) } });
  // 413 is not documented per operation in the spec: check the Iceberg error shape only.
  assertIcebergError(res, 413, 'RequestTooLargeException');
  assert.equal((await c.head(['big'])).status, 404);
});

// --- routing ----------------------------------------------------------------------------------

bad('unknown catalog prefix -> 404 NoSuchWarehouseException', async () => {
  let res = await icall(base, 'GET', '/iceberg/v1/nope/namespaces', T_NAMESPACES);
  assertIcebergError(res, 404, 'NoSuchWarehouseException');
  // 404 is not documented for createNamespace: shape check only.
  res = await call(base, 'POST', '/iceberg/v1/nope/namespaces', { body: { namespace: ['x'] } });
  assertIcebergError(res, 404, 'NoSuchWarehouseException');
  res = await icall(base, 'GET', '/iceberg/v1/nope/namespaces/base', T_NAMESPACE);
  assertIcebergError(res, 404, 'NoSuchWarehouseException');
});

for (const path of ['/nope', '/iceberg/v1/default/nothing-here', '/iceberg/v2/config', '/v1/default/namespaces/base/tables-nope', '/iceberg']) {
  bad(`unknown route GET ${path} -> 404 JSON error`, async () => {
    const res = await call(base, 'GET', path);
    assertIcebergError(res, 404, 'NotFoundException');
  });
}

const wrongMethods = [
  ['PUT', NS, ['GET', 'POST']],
  ['DELETE', NS, ['GET', 'POST']],
  ['PATCH', `${NS}/base`, ['GET', 'HEAD', 'DELETE']],
  ['POST', `${NS}/base`, ['GET', 'HEAD', 'DELETE']],
  ['GET', `${NS}/base/properties`, ['POST']],
  ['POST', '/iceberg/v1/config', ['GET']],
];
for (const [method, path, allowed] of wrongMethods) {
  bad(`${method} ${path} -> 405 with Allow`, async () => {
    const res = await call(base, method, path, method === 'GET' ? {} : { body: {} });
    assertIcebergError(res, 405, 'MethodNotAllowedException');
    const allow = String(res.headers.allow || '');
    assert.ok(allow, `405 must carry an Allow header: ${describeResponse(res)}`);
    const list = allow.split(',').map((s) => s.trim().toUpperCase());
    for (const m of allowed) assert.ok(list.includes(m), `Allow "${allow}" should include ${m}`);
    assert.ok(!list.includes(method), `Allow "${allow}" must not include ${method}`);
  });
}

// --- paging parameters ------------------------------------------------------------------------

for (const q of ['pageSize=0', 'pageSize=abc', 'pageSize=-1', 'pageSize=1.5', 'pageSize=', 'pageToken=&pageSize=0']) {
  bad(`list namespaces ?${q} -> 400`, async () => {
    const res = await icall(base, 'GET', `${NS}?${q}`, T_NAMESPACES);
    assertIcebergError(res, 400, 'BadRequestException');
  });
}
for (const token of ['!!not-a-token!!', '%00%01%02', 'a%20b%20c']) {
  bad(`list namespaces with garbage pageToken=${token} -> 400`, async () => {
    const res = await icall(base, 'GET', `${NS}?pageToken=${token}&pageSize=2`, T_NAMESPACES);
    assertIcebergError(res, 400, 'BadRequestException');
  });
}

// --- request ids ------------------------------------------------------------------------------

bad('X-Request-Id is echoed; generated when absent', async () => {
  let res = await icall(base, 'GET', NS, T_NAMESPACES, { headers: { 'X-Request-Id': 'test-req-123' } });
  assert.equal(res.status, 200);
  assert.equal(res.headers['x-request-id'], 'test-req-123');
  res = await icall(base, 'GET', `${NS}/missing-ns`, T_NAMESPACE, { headers: { 'X-Request-Id': 'test-req-404' } });
  assert.equal(res.status, 404);
  assert.equal(res.headers['x-request-id'], 'test-req-404', 'echoed on errors too');
  res = await icall(base, 'GET', NS, T_NAMESPACES);
  const a = res.headers['x-request-id'];
  assert.ok(typeof a === 'string' && a.trim().length > 0, `generated X-Request-Id missing: ${describeResponse(res)}`);
  res = await icall(base, 'GET', NS, T_NAMESPACES);
  const b = res.headers['x-request-id'];
  assert.ok(typeof b === 'string' && b.trim().length > 0);
  assert.notEqual(a, b, 'generated request ids should differ between requests');
});
