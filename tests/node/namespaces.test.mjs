// Namespace + config routes over raw HTTP, validated against the OpenAPI spec.

import assert from 'node:assert/strict';
import { test, before, after } from 'node:test';
import { startServer, withServerLog } from './lib/server.mjs';
import { call, describeResponse } from './lib/http.mjs';
import { assertIcebergError } from './lib/spec.mjs';
import { catalog, icall, T_CONFIG, T_NAMESPACES, T_NAMESPACE, T_PROPERTIES, assertSortedUnique, hasNs } from './lib/catalog.mjs';

let server;
let base;
before(async () => {
  server = await startServer();
  base = server.url;
});
after(async () => {
  await server?.cleanup();
});
const it = (name, fn) => test(name, withServerLog(() => server, fn));

const EXPECTED_ENDPOINTS = [
  'GET /v1/{prefix}/namespaces',
  'POST /v1/{prefix}/namespaces',
  'GET /v1/{prefix}/namespaces/{namespace}',
  'HEAD /v1/{prefix}/namespaces/{namespace}',
  'DELETE /v1/{prefix}/namespaces/{namespace}',
  'POST /v1/{prefix}/namespaces/{namespace}/properties',
  'GET /v1/{prefix}/namespaces/{namespace}/tables',
  'POST /v1/{prefix}/namespaces/{namespace}/tables',
  'GET /v1/{prefix}/namespaces/{namespace}/tables/{table}',
  'HEAD /v1/{prefix}/namespaces/{namespace}/tables/{table}',
  'POST /v1/{prefix}/namespaces/{namespace}/tables/{table}',
  'DELETE /v1/{prefix}/namespaces/{namespace}/tables/{table}',
  'GET /v1/{prefix}/namespaces/{namespace}/tables/{table}/credentials',
  'POST /v1/{prefix}/namespaces/{namespace}/tables/{table}/sign',
  'POST /v1/{prefix}/namespaces/{namespace}/tables/{table}/plan',
  'GET /v1/{prefix}/namespaces/{namespace}/tables/{table}/plan/{plan-id}',
  'DELETE /v1/{prefix}/namespaces/{namespace}/tables/{table}/plan/{plan-id}',
  'POST /v1/{prefix}/namespaces/{namespace}/tables/{table}/tasks',
  'POST /v1/{prefix}/namespaces/{namespace}/register',
  'POST /v1/{prefix}/tables/rename',
  'POST /v1/{prefix}/namespaces/{namespace}/tables/{table}/metrics',
  'POST /v1/{prefix}/transactions/commit',
  'GET /v1/{prefix}/namespaces/{namespace}/views',
  'POST /v1/{prefix}/namespaces/{namespace}/views',
  'GET /v1/{prefix}/namespaces/{namespace}/views/{view}',
  'HEAD /v1/{prefix}/namespaces/{namespace}/views/{view}',
  'POST /v1/{prefix}/namespaces/{namespace}/views/{view}',
  'DELETE /v1/{prefix}/namespaces/{namespace}/views/{view}',
  'POST /v1/{prefix}/views/rename',
  'POST /v1/{prefix}/namespaces/{namespace}/register-view',
];

const sorted = (a) => [...a].sort();

// ---------------------------------------------------------------------------------------------
// config

for (const path of ['/iceberg/v1/config', '/iceberg/v1/config?warehouse=default', '/v1/config', '/v1/config?warehouse=default']) {
  it(`GET ${path} returns the catalog config`, async () => {
    const res = await icall(base, 'GET', path, T_CONFIG);
    assert.equal(res.status, 200, describeResponse(res));
    assert.match(String(res.headers['content-type']), /application\/json/);
    const c = res.json;
    assert.ok(c.defaults && typeof c.defaults === 'object' && !Array.isArray(c.defaults), `defaults: ${res.text}`);
    assert.ok(c.overrides && typeof c.overrides === 'object', `overrides: ${res.text}`);
    assert.equal(c.overrides.prefix, 'default');
    assert.equal(c.overrides['namespace-separator'], '%1F');
    assert.ok(Array.isArray(c.endpoints), `endpoints: ${res.text}`);
    assert.equal(new Set(c.endpoints).size, c.endpoints.length, `duplicate endpoints: ${res.text}`);
    assert.deepEqual(sorted(c.endpoints), sorted(EXPECTED_ENDPOINTS));
    // Idempotency keys are supported: the lifetime is advertised (default PT30M).
    assert.equal(c['idempotency-key-lifetime'], 'PT30M', res.text);
  });
}

for (const path of ['/iceberg/v1/config?warehouse=nope', '/v1/config?warehouse=nope']) {
  it(`GET ${path} (unknown warehouse) -> 404 NoSuchWarehouseException`, async () => {
    const res = await icall(base, 'GET', path, T_CONFIG);
    assertIcebergError(res, 404, 'NoSuchWarehouseException');
  });
}

// ---------------------------------------------------------------------------------------------
// /iceberg/v1/default/...

const main = () => catalog(base, '/iceberg/v1/default');

it('create nested namespaces with properties; list root and under a parent; load', async () => {
  const c = main();
  assert.deepEqual(await c.mustCreate(['acct'], { owner: 'Ralph', 'created-by': 'test' }), {
    namespace: ['acct'],
    properties: { owner: 'Ralph', 'created-by': 'test' },
  });
  const tax = await c.mustCreate(['acct', 'tax'], {});
  assert.deepEqual(tax.namespace, ['acct', 'tax']);
  assert.deepEqual(tax.properties ?? {}, {});
  assert.deepEqual(await c.mustCreate(['acct', 'tax', 'paid'], { a: '1', b: '' }), {
    namespace: ['acct', 'tax', 'paid'],
    properties: { a: '1', b: '' },
  });
  const ops = await c.mustCreate(['acct', 'ops']); // no "properties" key at all
  assert.deepEqual(ops.namespace, ['acct', 'ops']);
  assert.deepEqual(ops.properties ?? {}, {});

  const root = await c.mustList();
  assert.ok(hasNs(root, ['acct']), `root listing lacks ["acct"]: ${JSON.stringify(root)}`);
  assert.ok(root.every((n) => n.length === 1), `root listing must only hold top-level namespaces: ${JSON.stringify(root)}`);
  assertSortedUnique(root, 'root');

  assert.deepEqual(await c.mustList('parent=acct'), [
    ['acct', 'ops'],
    ['acct', 'tax'],
  ]);
  assert.deepEqual(await c.mustList('parent=acct%1Ftax'), [['acct', 'tax', 'paid']]);
  assert.deepEqual(await c.mustList('parent=acct%1Ftax%1Fpaid'), []);
  // "For backward compatibility, empty string is treated as absent."
  assert.deepEqual(await c.mustList('parent='), root);

  const missingParent = await c.list('parent=nope%1Fnothing');
  assertIcebergError(missingParent, 404, 'NoSuchNamespaceException');

  let res = await c.load(['acct']);
  assert.equal(res.status, 200, describeResponse(res));
  assert.deepEqual(res.json, { namespace: ['acct'], properties: { owner: 'Ralph', 'created-by': 'test' } });
  res = await c.load(['acct', 'tax', 'paid']);
  assert.deepEqual(res.json, { namespace: ['acct', 'tax', 'paid'], properties: { a: '1', b: '' } });
  for (const levels of [['acct', 'tax'], ['acct', 'ops']]) {
    res = await c.load(levels);
    assert.equal(res.status, 200, describeResponse(res));
    assert.deepEqual(res.json, { namespace: levels, properties: {} }, 'properties must be {} when none are set');
  }
});

it('pagination: pageToken= + pageSize=2 over 5 namespaces, sorted bytewise, each exactly once', async () => {
  const c = main();
  await c.mustCreate(['pg']);
  // Bytewise order: 'A' < 'Z' < '_m' < 'a1' < 'b' (a locale-aware sort would differ).
  const names = ['b', 'A', 'a1', 'Z', '_m'];
  for (const n of names) await c.mustCreate(['pg', n], { n });
  const expected = [['pg', 'A'], ['pg', 'Z'], ['pg', '_m'], ['pg', 'a1'], ['pg', 'b']];

  const { all, pages } = await c.listAllPages('parent=pg', 2);
  assert.deepEqual(all, expected);
  assert.equal(pages.length, 3, `expected 3 pages: ${JSON.stringify(pages)}`);
  assert.deepEqual(
    pages.map((p) => p.namespaces.length),
    [2, 2, 1],
  );
  for (const p of pages.slice(0, -1)) assert.equal(typeof p['next-page-token'], 'string');
  assert.ok(!('next-page-token' in pages[2]), `last page must not have a next-page-token key: ${JSON.stringify(pages[2])}`);

  // No pageToken / pageSize: everything at once, no token.
  const res = await c.list('parent=pg');
  assert.equal(res.status, 200, describeResponse(res));
  assert.deepEqual(res.json.namespaces, expected);
  assert.ok(!('next-page-token' in res.json), `unexpected next-page-token: ${res.text}`);

  // pageSize exactly the count: one page, no token left over... or an empty second page at most.
  const exact = await c.listAllPages('parent=pg', 5);
  assert.deepEqual(exact.all, expected);
  assert.ok(exact.pages.length <= 2);

  // Huge pageSize is clamped, not rejected.
  const big = await c.list('parent=pg&pageToken=&pageSize=100000');
  assert.equal(big.status, 200, describeResponse(big));
  assert.deepEqual(big.json.namespaces, expected);
  assert.ok(!('next-page-token' in big.json), big.text);

  // Root level: paging gives the same as the unpaged listing.
  const rootAll = await c.mustList();
  assertSortedUnique(rootAll, 'root');
  const rootPaged = await c.listAllPages('', 2);
  assert.deepEqual(rootPaged.all, rootAll);
  const rootPaged1 = await c.listAllPages('', 1);
  assert.deepEqual(rootPaged1.all, rootAll);
});

it('HEAD namespace: 204 when it exists, 404 when not, never a body', async () => {
  const c = main();
  await c.mustCreate(['headns']);
  await c.mustCreate(['headns', 'inner']);
  for (const levels of [['headns'], ['headns', 'inner']]) {
    const res = await c.head(levels);
    assert.equal(res.status, 204, describeResponse(res));
    assert.equal(res.text, '');
  }
  for (const levels of [['headns_missing'], ['headns', 'missing']]) {
    const res = await c.head(levels);
    assert.equal(res.status, 404, describeResponse(res));
    assert.equal(res.text, '');
  }
});

it('update properties: updated / removed / missing', async () => {
  const c = main();
  await c.mustCreate(['upd'], { a: '1', b: '2', c: '3' });

  let res = await c.update(['upd'], { updates: { a: '10', d: '4' }, removals: ['b', 'zz'] });
  assert.equal(res.status, 200, describeResponse(res));
  assert.deepEqual(sorted(res.json.updated), ['a', 'd']);
  assert.deepEqual(res.json.removed, ['b']);
  assert.deepEqual(res.json.missing, ['zz']);
  res = await c.load(['upd']);
  assert.deepEqual(res.json.properties, { a: '10', c: '3', d: '4' });

  res = await c.update(['upd'], { removals: ['c'] });
  assert.equal(res.status, 200, describeResponse(res));
  assert.deepEqual(res.json, { updated: [], removed: ['c'], missing: [] });

  res = await c.update(['upd'], { updates: { e: '5' } });
  assert.equal(res.status, 200, describeResponse(res));
  assert.deepEqual(res.json, { updated: ['e'], removed: [], missing: [] });

  res = await c.update(['upd'], {});
  assert.equal(res.status, 200, describeResponse(res));
  assert.deepEqual(res.json, { updated: [], removed: [], missing: [] });

  res = await c.load(['upd']);
  assert.deepEqual(res.json.properties, { a: '10', d: '4', e: '5' });

  // Nested namespace.
  await c.mustCreate(['upd', 'child'], { x: '1' });
  res = await c.update(['upd', 'child'], { updates: { y: '2' }, removals: ['x'] });
  assert.equal(res.status, 200, describeResponse(res));
  assert.deepEqual(res.json, { updated: ['y'], removed: ['x'], missing: [] });
  res = await c.load(['upd', 'child']);
  assert.deepEqual(res.json.properties, { y: '2' });
});

it('update properties with a key in both updates and removals -> 422 UnprocessableEntityException', async () => {
  const c = main();
  await c.mustCreate(['upd422'], { k: 'v', other: 'o' });
  const res = await c.update(['upd422'], { updates: { k: 'new', z: 'z' }, removals: ['k'] });
  assertIcebergError(res, 422, 'UnprocessableEntityException');
  const after = await c.load(['upd422']);
  assert.deepEqual(after.json.properties, { k: 'v', other: 'o' }, 'a rejected update must not change anything');
});

it('update properties of a missing namespace -> 404 NoSuchNamespaceException', async () => {
  const res = await main().update(['upd_missing'], { updates: { a: 'b' } });
  const err = assertIcebergError(res, 404, 'NoSuchNamespaceException');
  assert.equal(err.message, 'Namespace does not exist: upd_missing');
});

it('drop namespace: 204, then 404 NoSuchNamespaceException', async () => {
  const c = main();
  await c.mustCreate(['drp'], { p: 'q' });
  await c.mustCreate(['drp', 'x']);
  let res = await c.drop(['drp', 'x']);
  assert.equal(res.status, 204, describeResponse(res));
  assert.equal(res.text, '');
  res = await c.drop(['drp']);
  assert.equal(res.status, 204, describeResponse(res));
  assert.equal(res.text, '');

  res = await c.load(['drp']);
  let err = assertIcebergError(res, 404, 'NoSuchNamespaceException');
  assert.equal(err.message, 'Namespace does not exist: drp');
  res = await c.head(['drp']);
  assert.equal(res.status, 404);
  res = await c.drop(['drp']);
  assertIcebergError(res, 404, 'NoSuchNamespaceException');
  res = await c.load(['drp', 'x']);
  err = assertIcebergError(res, 404, 'NoSuchNamespaceException');
  assert.equal(err.message, 'Namespace does not exist: drp.x');
  assert.ok(!hasNs(await c.mustList(), ['drp']));

  // It can be created again afterwards, without the old properties.
  assert.deepEqual(await c.mustCreate(['drp']), { namespace: ['drp'], properties: {} });
});

it('drop a namespace that has a child -> 409 NamespaceNotEmptyException', async () => {
  const c = main();
  await c.mustCreate(['full']);
  await c.mustCreate(['full', 'child']);
  await c.mustCreate(['full', 'child', 'grandchild']);
  let res = await c.drop(['full']);
  let err = assertIcebergError(res, 409, 'NamespaceNotEmptyException');
  // The message starts with the fixed text and then says what the namespace holds.
  assert.match(err.message, /^Namespace is not empty: full \(it has child namespaces\)$/);
  res = await c.drop(['full', 'child']);
  err = assertIcebergError(res, 409, 'NamespaceNotEmptyException');
  assert.match(err.message, /^Namespace is not empty: full.child \(it has child namespaces\)$/);
  assert.equal((await c.head(['full'])).status, 204);
  assert.equal((await c.head(['full', 'child'])).status, 204);
  for (const levels of [['full', 'child', 'grandchild'], ['full', 'child'], ['full']]) {
    res = await c.drop(levels);
    assert.equal(res.status, 204, `${JSON.stringify(levels)}: ${describeResponse(res)}`);
  }
});

it('create a duplicate namespace -> 409 AlreadyExistsException (original untouched)', async () => {
  const c = main();
  await c.mustCreate(['dup'], { v: '1' });
  await c.mustCreate(['dup', 'x'], { v: '1' });
  let res = await c.create(['dup'], { v: '2' });
  let err = assertIcebergError(res, 409, 'AlreadyExistsException');
  assert.equal(err.message, 'Namespace already exists: dup');
  res = await c.create(['dup', 'x'], { v: '2' });
  err = assertIcebergError(res, 409, 'AlreadyExistsException');
  assert.equal(err.message, 'Namespace already exists: dup.x');
  res = await c.load(['dup', 'x']);
  assert.deepEqual(res.json.properties, { v: '1' });
});

it('create with a missing parent -> 404 NoSuchNamespaceException', async () => {
  // The spec documents no 404 for createNamespace, so only the Iceberg error shape is checked.
  const res = await call(base, 'POST', '/iceberg/v1/default/namespaces', { body: { namespace: ['orphan', 'child'] } });
  const err = assertIcebergError(res, 404, 'NoSuchNamespaceException');
  assert.match(err.message, /^Namespace does not exist: orphan/);
  const res2 = await call(base, 'POST', '/iceberg/v1/default/namespaces', { body: { namespace: ['orphan', 'a', 'b'] } });
  assertIcebergError(res2, 404, 'NoSuchNamespaceException');
  assert.equal((await main().head(['orphan'])).status, 404);
});

it('namespace path segments: %1F levels, + and %20 decode to a space, %2B is a plus, UTF-8', async () => {
  const c = main();
  assert.deepEqual((await c.mustCreate(['my ns'], { s: 'space' })).namespace, ['my ns']);
  for (const seg of ['my+ns', 'my%20ns']) {
    const res = await icall(base, 'GET', `/iceberg/v1/default/namespaces/${seg}`, T_NAMESPACE);
    assert.equal(res.status, 200, `${seg}: ${describeResponse(res)}`);
    assert.deepEqual(res.json, { namespace: ['my ns'], properties: { s: 'space' } });
    const head = await icall(base, 'HEAD', `/iceberg/v1/default/namespaces/${seg}`, T_NAMESPACE);
    assert.equal(head.status, 204, `${seg}: ${describeResponse(head)}`);
  }

  await c.mustCreate(['my ns', 'in ner']);
  let res = await icall(base, 'GET', '/iceberg/v1/default/namespaces/my+ns%1Fin%20ner', T_NAMESPACE);
  assert.equal(res.status, 200, describeResponse(res));
  assert.deepEqual(res.json.namespace, ['my ns', 'in ner']);
  // Lower-case hex in the separator is the same percent-encoding (RFC 3986).
  res = await icall(base, 'GET', '/iceberg/v1/default/namespaces/my+ns%1fin+ner', T_NAMESPACE);
  assert.equal(res.status, 200, describeResponse(res));
  assert.deepEqual(await c.mustList('parent=my+ns'), [['my ns', 'in ner']]);
  assert.deepEqual(await c.mustList('parent=my%20ns'), [['my ns', 'in ner']]);

  await c.mustCreate(['a+b']);
  res = await icall(base, 'GET', '/iceberg/v1/default/namespaces/a%2Bb', T_NAMESPACE);
  assert.equal(res.status, 200, describeResponse(res));
  assert.deepEqual(res.json.namespace, ['a+b']);
  res = await icall(base, 'GET', '/iceberg/v1/default/namespaces/a+b', T_NAMESPACE);
  assertIcebergError(res, 404, 'NoSuchNamespaceException'); // that is "a b"

  await c.mustCreate(['café']);
  await c.mustCreate(['café', 'naïve ü']);
  res = await icall(base, 'GET', '/iceberg/v1/default/namespaces/caf%C3%A9%1Fna%C3%AFve%20%C3%BC', T_NAMESPACE);
  assert.equal(res.status, 200, describeResponse(res));
  assert.deepEqual(res.json.namespace, ['café', 'naïve ü']);
  assert.deepEqual(await c.mustList('parent=caf%C3%A9'), [['café', 'naïve ü']]);

  for (const levels of [['my ns', 'in ner'], ['my ns'], ['a+b'], ['café', 'naïve ü'], ['café']]) {
    res = await c.drop(levels);
    assert.equal(res.status, 204, `${JSON.stringify(levels)}: ${describeResponse(res)}`);
  }
});

// ---------------------------------------------------------------------------------------------
// Short forms: /v1/namespaces, /iceberg/v1/namespaces, /v1/default/namespaces (same catalog)

for (const [i, root] of ['/v1', '/iceberg/v1', '/v1/default'].entries()) {
  it(`short form ${root}/namespaces: full lifecycle on the default catalog`, async () => {
    const c = catalog(base, root);
    const top = `short${i}`;
    assert.deepEqual(await c.mustCreate([top], { k: 'v' }), { namespace: [top], properties: { k: 'v' } });
    await c.mustCreate([top, 'kid']);

    const rootList = await c.mustList();
    assert.ok(hasNs(rootList, [top]), JSON.stringify(rootList));
    assertSortedUnique(rootList, root);
    // Same catalog as /iceberg/v1/default.
    assert.deepEqual(rootList, await main().mustList());
    assert.deepEqual(await c.mustList(`parent=${top}`), [[top, 'kid']]);
    const paged = await c.listAllPages('', 2);
    assert.deepEqual(paged.all, rootList);

    let res = await c.load([top]);
    assert.equal(res.status, 200, describeResponse(res));
    assert.deepEqual(res.json, { namespace: [top], properties: { k: 'v' } });
    res = await main().load([top, 'kid']);
    assert.deepEqual(res.json, { namespace: [top, 'kid'], properties: {} });
    assert.equal((await c.head([top, 'kid'])).status, 204);
    assert.equal((await c.head([top, 'nokid'])).status, 404);

    res = await c.update([top], { updates: { k2: 'v2' }, removals: ['k', 'nope'] });
    assert.equal(res.status, 200, describeResponse(res));
    assert.deepEqual(res.json, { updated: ['k2'], removed: ['k'], missing: ['nope'] });
    res = await c.update([top], { updates: { x: '1' }, removals: ['x'] });
    assertIcebergError(res, 422, 'UnprocessableEntityException');

    assertIcebergError(await c.create([top]), 409, 'AlreadyExistsException');
    assertIcebergError(await c.drop([top]), 409, 'NamespaceNotEmptyException');
    assertIcebergError(await c.load([`${top}_missing`]), 404, 'NoSuchNamespaceException');
    // 404 is not documented for createNamespace: shape check only.
    const orphan = await call(base, 'POST', `${root}/namespaces`, { body: { namespace: [`${top}_missing`, 'x'] } });
    assertIcebergError(orphan, 404, 'NoSuchNamespaceException');

    assert.equal((await c.drop([top, 'kid'])).status, 204);
    assert.equal((await c.drop([top])).status, 204);
    assertIcebergError(await main().load([top]), 404, 'NoSuchNamespaceException');
  });
}

it('unknown catalog prefix on a namespace route -> 404 NoSuchWarehouseException', async () => {
  const res = await icall(base, 'GET', '/iceberg/v1/nope/namespaces', '/v1/{prefix}/namespaces');
  assertIcebergError(res, 404, 'NoSuchWarehouseException');
  const res2 = await icall(base, 'GET', '/v1/nope/namespaces/acct', T_NAMESPACE);
  assertIcebergError(res2, 404, 'NoSuchWarehouseException');
});

// ---------------------------------------------------------------------------------------------
// Limits and concurrency

it('pageSize is clamped to 1000', async () => {
  const c = main();
  await c.mustCreate(['clamp']);
  const n = 1003;
  const kids = Array.from({ length: n }, (_, i) => `k${String(i).padStart(5, '0')}`);
  for (let i = 0; i < n; i += 25) {
    const batch = kids.slice(i, i + 25).map((k) => icall(base, 'POST', '/iceberg/v1/default/namespaces', T_NAMESPACES, { body: { namespace: ['clamp', k] } }));
    for (const res of await Promise.all(batch)) assert.equal(res.status, 200, describeResponse(res));
  }
  const first = await c.list('parent=clamp&pageToken=&pageSize=5000');
  assert.equal(first.status, 200, describeResponse(first));
  assert.equal(first.json.namespaces.length, 1000, 'a page holds at most 1000 namespaces');
  assert.equal(typeof first.json['next-page-token'], 'string');
  const second = await c.list(`parent=clamp&pageToken=${encodeURIComponent(first.json['next-page-token'])}&pageSize=5000`);
  assert.equal(second.status, 200, describeResponse(second));
  assert.equal(second.json.namespaces.length, 3);
  assert.ok(!('next-page-token' in second.json), second.text.slice(0, 200));
  assert.deepEqual(
    [...first.json.namespaces, ...second.json.namespaces].map((x) => x[1]),
    kids,
  );
  // Without pageToken/pageSize: everything in one response.
  assert.equal((await c.mustList('parent=clamp')).length, n);
});

it('concurrent creates of the same namespace: exactly one succeeds', async () => {
  const N = 16;
  const results = await Promise.all(
    Array.from({ length: N }, (_, i) =>
      icall(base, 'POST', '/iceberg/v1/default/namespaces', T_NAMESPACES, { body: { namespace: ['race'], properties: { who: String(i) } } }),
    ),
  );
  const ok = results.filter((r) => r.status === 200);
  const conflicts = results.filter((r) => r.status === 409);
  assert.equal(ok.length, 1, results.map((r) => `${r.status} ${r.text}`).join('\n'));
  assert.equal(conflicts.length, N - 1, results.map((r) => `${r.status} ${r.text}`).join('\n'));
  for (const r of conflicts) assertIcebergError(r, 409, 'AlreadyExistsException');
  const loaded = await main().load(['race']);
  assert.deepEqual(loaded.json.properties, ok[0].json.properties, 'the stored properties are the winner\'s');

  // Concurrent creates of distinct children all succeed; concurrent property updates are not lost.
  const kids = await Promise.all(
    Array.from({ length: N }, (_, i) => icall(base, 'POST', '/iceberg/v1/default/namespaces', T_NAMESPACES, { body: { namespace: ['race', `c${i}`] } })),
  );
  assert.ok(kids.every((r) => r.status === 200), kids.map((r) => `${r.status} ${r.text}`).join('\n'));
  assert.equal((await main().mustList('parent=race')).length, N);
  const ups = await Promise.all(
    Array.from({ length: N }, (_, i) =>
      icall(base, 'POST', '/iceberg/v1/default/namespaces/race/properties', T_PROPERTIES, { body: { updates: { [`p${i}`]: String(i) } } }),
    ),
  );
  assert.ok(ups.every((r) => r.status === 200), ups.map((r) => `${r.status} ${r.text}`).join('\n'));
  const props = (await main().load(['race'])).json.properties;
  for (let i = 0; i < N; i++) assert.equal(props[`p${i}`], String(i), `lost update p${i}: ${JSON.stringify(props)}`);

  // Concurrent drops of the same namespace: exactly one 204, the rest 404.
  const drops = await Promise.all(Array.from({ length: N }, () => icall(base, 'DELETE', '/iceberg/v1/default/namespaces/race%1Fc0', T_NAMESPACE)));
  assert.equal(drops.filter((r) => r.status === 204).length, 1, drops.map((r) => `${r.status} ${r.text}`).join('\n'));
  assert.equal(drops.filter((r) => r.status === 404).length, N - 1);
});

it('large and unusual property maps round-trip', async () => {
  const c = main();
  const props = { '': 'empty key', 'ключ': 'значение', emoji: '🧊❄️', quote: 'a"b\\c', nl: 'line1\nline2', big: 'x'.repeat(1 << 20) };
  for (let i = 0; i < 300; i++) props[`key.${i}`] = `value-${i}`;
  const res = await c.create(['bigprops'], props);
  if (res.status === 400) {
    // An empty property key may legitimately be rejected; everything else must round-trip.
    assertIcebergError(res, 400, 'BadRequestException');
    delete props[''];
    await c.mustCreate(['bigprops'], props);
  } else {
    assert.equal(res.status, 200, describeResponse(res));
  }
  const loaded = await c.load(['bigprops']);
  assert.equal(loaded.status, 200);
  assert.deepEqual(loaded.json.properties, props);
});
