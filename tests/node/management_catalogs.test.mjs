// The management API's catalogs (issue 18): create, list, describe, update and delete a
// catalog without the Lance routes, then use it as an Iceberg client would; every answer
// validated against docs/management-api.yaml.
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import path from 'node:path';

import { call, describeResponse } from './lib/http.mjs';
import { icebergApi } from './lib/files.mjs';
import { startServer } from './lib/server.mjs';
import { grant, manage, principalWith, startSecuredServer } from './lib/auth.mjs';
import { assertManagementAnswer } from './lib/management_spec.mjs';

const LIST = '/management/v1/catalogs';
const ONE = '/management/v1/catalogs/{catalog}';

/** One management call, its answer checked against the document. */
async function catalogs(base, method, target, body, headers = {}) {
  const template = target.split('?')[0] === LIST ? LIST : ONE;
  const res = await call(base, method, target, { body, headers });
  return assertManagementAnswer(method, template, res);
}

function expectStatus(res, status, pattern) {
  assert.equal(res.status, status, describeResponse(res));
  if (pattern) assert.match(res.json.error.message, pattern);
  return res.json;
}

// A storage the server never contacts here (no request is sent to it): only described.
const CONFIG = `
[storage.lake]
endpoint = "http://127.0.0.1:9"
region = "eu-west-1"
path-style-access = true
access-key-id-env = "MGMT_TEST_KEY_ID"
secret-access-key-env = "MGMT_TEST_SECRET"
locations = ["s3://lake/warehouse"]
`;
const SECRET = 'mgmt-test-secret-never-shown-0123456789';

let srv;
before(async () => {
  srv = await startServer({ config: CONFIG, env: { MGMT_TEST_KEY_ID: 'AKIAMGMTTEST', MGMT_TEST_SECRET: SECRET } });
});
after(async () => { await srv?.cleanup(); });

test('a catalog is created, listed, described, updated and deleted through the management API', async () => {
  const created = expectStatus(await catalogs(srv.url, 'POST', LIST, {
    name: 'sales', properties: { owner: 'data-eng' },
  }), 201);
  assert.equal(created.name, 'sales');
  assert.equal(created.default, false);
  assert.deepEqual(created.properties, { owner: 'data-eng' });
  // The default warehouse: <warehouse root>/<name>, canonical, created on first use.
  assert.equal(created.warehouse, `file://${path.join(srv.dataDir, 'warehouse', 'sales')}`);
  assert.equal(created.storage, undefined, 'a local warehouse has no storage');

  // Usable at once by an Iceberg client, under its name as the prefix.
  const ice = icebergApi(srv.url, '/iceberg/v1/sales');
  const ns = await call(srv.url, 'POST', '/iceberg/v1/sales/namespaces', { body: { namespace: ['eu'] } });
  assert.equal(ns.status, 200, describeResponse(ns));
  const table = await ice.createTable(['eu'], {
    name: 'orders', schema: { type: 'struct', 'schema-id': 0, fields: [{ id: 1, name: 'id', type: 'long', required: true }] },
  });
  assert.equal(table.status, 200, describeResponse(table));
  assert.ok(existsSync(new URL(table.json['metadata-location']).pathname));

  const listed = expectStatus(await catalogs(srv.url, 'GET', LIST), 200);
  assert.deepEqual(listed.catalogs.map((c) => c.name), ['default', 'sales']);
  assert.equal(listed.catalogs[0].default, true);
  // Pages: one at a time, by name.
  const first = expectStatus(await catalogs(srv.url, 'GET', `${LIST}?pageSize=1`), 200);
  assert.deepEqual(first.catalogs.map((c) => c.name), ['default']);
  const second = expectStatus(await catalogs(srv.url, 'GET', `${LIST}?pageSize=1&pageToken=${first['next-page-token']}`), 200);
  assert.deepEqual(second.catalogs.map((c) => c.name), ['sales']);

  const updated = expectStatus(await catalogs(srv.url, 'PATCH', `${LIST}/sales`, {
    updates: { 'maintenance.interval-ms': '3600000', team: 'emea' }, removals: ['owner'],
  }), 200);
  assert.deepEqual(updated.properties, { 'maintenance.interval-ms': '3600000', team: 'emea' });
  const described = expectStatus(await catalogs(srv.url, 'GET', `${LIST}/sales`), 200);
  assert.deepEqual(described, updated);

  // Not while it holds a namespace; then it goes.
  expectStatus(await catalogs(srv.url, 'DELETE', `${LIST}/sales`), 409, /holds namespaces/);
  assert.equal((await ice.dropTable(['eu'], 'orders')).status, 204);
  assert.equal((await call(srv.url, 'DELETE', '/iceberg/v1/sales/namespaces/eu')).status, 204);
  assert.equal((await catalogs(srv.url, 'DELETE', `${LIST}/sales`)).status, 204);
  expectStatus(await catalogs(srv.url, 'GET', `${LIST}/sales`), 404, /sales/);
  const ghost = await call(srv.url, 'GET', '/iceberg/v1/sales/namespaces');
  assert.equal(ghost.status, 404, describeResponse(ghost));
});

test('a warehouse on a configured storage is described with that storage, never its keys', async () => {
  const created = expectStatus(await catalogs(srv.url, 'POST', LIST, {
    name: 'lakehouse', warehouse: 's3://lake/warehouse/lakehouse/',
  }), 201);
  assert.equal(created.warehouse, 's3://lake/warehouse/lakehouse');
  assert.deepEqual(created.storage, {
    name: 'lake', type: 's3', endpoint: 'http://127.0.0.1:9', region: 'eu-west-1',
    'path-style-access': true, 'credential-vending': 'none', 'remote-signing': false,
  });
  const listed = await catalogs(srv.url, 'GET', LIST);
  for (const res of [created, listed.json]) {
    const text = JSON.stringify(res);
    assert.ok(!text.includes(SECRET) && !text.includes('AKIAMGMTTEST'), 'no key in an answer');
  }
  assert.equal((await catalogs(srv.url, 'DELETE', `${LIST}/lakehouse`)).status, 204);
});

test('mistakes are 400, 404, 409 or 422 and name the problem', async () => {
  expectStatus(await catalogs(srv.url, 'POST', LIST, { properties: {} }), 400, /name/);
  expectStatus(await catalogs(srv.url, 'POST', LIST, { name: 'x', warehouse: '/etc/x' }), 400, /allowed|outside/i);
  expectStatus(await catalogs(srv.url, 'POST', LIST, { name: 'y', warehouse: 's3://elsewhere/y' }), 400, /allowed|outside/i);
  expectStatus(await catalogs(srv.url, 'POST', LIST, { name: 'z', properties: { 'maintenance.interval-ms': 'soon' } }), 400, /maintenance.interval-ms/);
  expectStatus(await catalogs(srv.url, 'POST', LIST, { name: 'default' }), 409);
  expectStatus(await catalogs(srv.url, 'GET', `${LIST}?pageSize=0`), 400, /pageSize/);
  expectStatus(await catalogs(srv.url, 'GET', `${LIST}/nope`), 404, /nope/);
  expectStatus(await catalogs(srv.url, 'PATCH', `${LIST}/nope`, { updates: { a: 'b' } }), 404, /nope/);
  expectStatus(await catalogs(srv.url, 'PATCH', `${LIST}/default`, { warehouse: 'file:///tmp/x' }), 400, /warehouse never moves/);
  expectStatus(await catalogs(srv.url, 'PATCH', `${LIST}/default`, { updates: { a: 'b' }, removals: ['a'] }), 422, /'a'/);
  expectStatus(await catalogs(srv.url, 'PATCH', `${LIST}/default`, { updates: { 'allowed-locations': 's3://elsewhere/' } }), 400, /allowed/i);
  expectStatus(await catalogs(srv.url, 'DELETE', `${LIST}/default`), 400, /default catalog/);
  expectStatus(await catalogs(srv.url, 'DELETE', `${LIST}/nope`), 404, /nope/);
  // Nothing half-applied: the default catalog is as it was.
  const described = expectStatus(await catalogs(srv.url, 'GET', `${LIST}/default`), 200);
  assert.deepEqual(described.properties, {});
});

test('with auth on: CATALOG_MANAGE on a catalog lets a principal create and manage that one only', async () => {
  const secured = await startSecuredServer();
  try {
    const bob = await principalWith(secured, 'bob', [grant('CATALOG_MANAGE', 'catalog', { catalog: 'bobs' })]);
    const as = (token) => ({ Authorization: `Bearer ${token}` });
    expectStatus(await catalogs(secured.url, 'POST', LIST, { name: 'bobs' }, as(bob.token)), 201);
    expectStatus(await catalogs(secured.url, 'POST', LIST, { name: 'alices' }, as(bob.token)), 403);
    expectStatus(await catalogs(secured.url, 'POST', LIST, { name: 'alices' }, as(secured.rootToken)), 201);
    // Bob sees his catalog only; the service admin sees all.
    const bobs = expectStatus(await catalogs(secured.url, 'GET', LIST, undefined, as(bob.token)), 200);
    assert.deepEqual(bobs.catalogs.map((c) => c.name), ['bobs']);
    const all = expectStatus(await catalogs(secured.url, 'GET', LIST, undefined, as(secured.rootToken)), 200);
    assert.deepEqual(all.catalogs.map((c) => c.name), ['alices', 'bobs', 'default']);
    expectStatus(await catalogs(secured.url, 'GET', `${LIST}/alices`, undefined, as(bob.token)), 403);
    expectStatus(await catalogs(secured.url, 'PATCH', `${LIST}/alices`, { updates: { a: 'b' } }, as(bob.token)), 403);
    expectStatus(await catalogs(secured.url, 'DELETE', `${LIST}/alices`, undefined, as(bob.token)), 403);
    expectStatus(await catalogs(secured.url, 'PATCH', `${LIST}/bobs`, { updates: { a: 'b' } }, as(bob.token)), 200);
    assert.equal((await catalogs(secured.url, 'DELETE', `${LIST}/bobs`, undefined, as(bob.token))).status, 204);
    expectStatus(await catalogs(secured.url, 'GET', LIST), 401);
    await manage(secured.url, secured.rootToken, 'DELETE', '/principals/bob', undefined, 204);
  } finally {
    await secured.cleanup();
  }
});
