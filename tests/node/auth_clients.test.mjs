// Real clients with real credentials against Cairn with `auth = on`: the OAuth2 token
// endpoint as Spark, PyIceberg and the Java client call it (`credential=id:secret`), iceberg-js
// with a bearer token, LanceDB with an API key header and with a bearer header; grants that
// filter listings, reach down a namespace tree, and stop working on the next request once
// revoked; Idempotency-Key answers bound to their principal; the audit log.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';

import * as lancedb from '@lancedb/lancedb';
import { IcebergRestCatalog } from 'iceberg-js';

import { bearer, grant, manage, principalWith, ROOT_ID, ROOT_SECRET, startSecuredServer, tokenRequest } from './lib/auth.mjs';
import { call } from './lib/http.mjs';
import { withServerLog } from './lib/server.mjs';

const SCHEMA = { type: 'struct', 'schema-id': 0, fields: [{ id: 1, name: 'id', type: 'long', required: true }] };

let srv;
before(async () => {
  srv = await startSecuredServer();
});
after(async () => {
  await srv?.cleanup();
});

const icebergAs = (token) =>
  new IcebergRestCatalog({ baseUrl: `${srv.url}/iceberg`, warehouse: 'default', auth: { type: 'bearer', token } });

test('the token endpoint: client credentials in the body or a Basic header, refresh by token exchange, OAuth2 errors', withServerLog(() => srv, async () => {
  // As the Java client, Spark and PyIceberg send `credential=id:secret` with scope=catalog.
  const body = await tokenRequest(srv.url, { grant_type: 'client_credentials', client_id: ROOT_ID, client_secret: ROOT_SECRET, scope: 'catalog' });
  assert.equal(body.status, 200, body.text);
  assert.equal(body.json.token_type, 'bearer');
  assert.equal(body.json.issued_token_type, 'urn:ietf:params:oauth:token-type:access_token');
  assert.equal(body.json.expires_in, 3600);
  assert.equal(body.headers['cache-control'], 'no-store');
  const basic = Buffer.from(`${encodeURIComponent(ROOT_ID)}:${encodeURIComponent(ROOT_SECRET)}`).toString('base64');
  const viaHeader = await tokenRequest(srv.url, { grant_type: 'client_credentials' }, { Authorization: `Basic ${basic}` }, '/iceberg/v1/oauth/tokens');
  assert.equal(viaHeader.status, 200, viaHeader.text);

  // The Java client refreshes by exchanging its token for a fresh one.
  const refreshed = await tokenRequest(
    srv.url,
    { grant_type: 'urn:ietf:params:oauth:grant-type:token-exchange', subject_token: body.json.access_token, subject_token_type: 'urn:ietf:params:oauth:token-type:access_token', scope: 'catalog' },
    bearer(body.json.access_token),
  );
  assert.equal(refreshed.status, 200, refreshed.text);
  const ns = await call(srv.url, 'GET', '/iceberg/v1/default/namespaces', { headers: bearer(refreshed.json.access_token) });
  assert.equal(ns.status, 200);

  const wrong = await tokenRequest(srv.url, { grant_type: 'client_credentials', client_id: ROOT_ID, client_secret: 'wrong' });
  assert.equal(wrong.status, 401);
  assert.equal(wrong.json.error, 'invalid_client');
  assert.ok(!wrong.text.includes('wrong'));
  const unknown = await tokenRequest(srv.url, { grant_type: 'client_credentials', client_id: 'nobody', client_secret: ROOT_SECRET });
  assert.equal(unknown.status, 401);
  assert.equal(unknown.json.error_description, wrong.json.error_description, 'an unknown client is not told apart');
  assert.equal((await tokenRequest(srv.url, { grant_type: 'password', username: 'a', password: 'b' })).json.error, 'unsupported_grant_type');
  assert.equal((await tokenRequest(srv.url, { client_id: ROOT_ID })).json.error, 'invalid_request');
  const badExchange = await tokenRequest(srv.url, { grant_type: 'urn:ietf:params:oauth:grant-type:token-exchange', subject_token: 'forged', subject_token_type: 'urn:ietf:params:oauth:token-type:access_token' });
  assert.equal(badExchange.status, 401);
  assert.equal(badExchange.json.error, 'invalid_grant');
  // Neither the secret nor a token reaches the log.
  assert.ok(!srv.stderr().includes(ROOT_SECRET));
  assert.ok(!srv.stderr().includes(body.json.access_token));
}));

test('iceberg-js with a bearer token; listings show what the grants allow, three levels down', withServerLog(() => srv, async () => {
  const root = icebergAs(srv.rootToken);
  for (const ns of [['sales'], ['sales', 'eu'], ['sales', 'eu', 'fr'], ['hr']]) await root.createNamespace({ namespace: ns });
  await root.createTable({ namespace: ['sales', 'eu', 'fr'] }, { name: 'orders', schema: SCHEMA });
  await root.createTable({ namespace: ['hr'] }, { name: 'people', schema: SCHEMA });

  // A reader of everything below `sales`, granted once at the top.
  const reader = await principalWith(srv, 'sales-reader', [
    grant('TABLE_READ', 'namespace', { catalog: 'default', namespace: ['sales'] }),
    grant('TABLE_LIST', 'namespace', { catalog: 'default', namespace: ['sales'] }),
    grant('NAMESPACE_LIST', 'namespace', { catalog: 'default', namespace: ['sales'] }),
  ]);
  const catalog = icebergAs(reader.token);
  const loaded = await catalog.loadTable({ namespace: ['sales', 'eu', 'fr'], name: 'orders' });
  assert.equal(typeof loaded['table-uuid'], 'string');
  // The catalog's top level shows only the way down to `sales`, not `hr`.
  const top = await catalog.listNamespaces();
  assert.deepEqual(top.namespaces.map((n) => n.namespace.join('.')), ['sales']);
  const below = await catalog.listNamespaces({ parent: { namespace: ['sales'] } });
  assert.deepEqual(below.namespaces.map((n) => n.namespace.join('.')), ['sales.eu']);
  assert.deepEqual((await catalog.listTables({ namespace: ['sales', 'eu', 'fr'] })).identifiers.map((t) => t.name), ['orders']);
  await assert.rejects(catalog.loadTable({ namespace: ['hr'], name: 'people' }), (e) => e.status === 403);
  // Reading is not writing, dropping or creating.
  await assert.rejects(catalog.dropTable({ namespace: ['sales', 'eu', 'fr'], name: 'orders' }), (e) => e.status === 403);
  await assert.rejects(catalog.createTable({ namespace: ['sales'] }, { name: 'x', schema: SCHEMA }), (e) => e.status === 403);
  // A denial tells nothing about existence: a missing table and an existing one look alike.
  const missing = await call(srv.url, 'GET', '/iceberg/v1/default/namespaces/hr/tables/nope', { headers: bearer(reader.token) });
  const existing = await call(srv.url, 'GET', '/iceberg/v1/default/namespaces/hr/tables/people', { headers: bearer(reader.token) });
  assert.equal(missing.status, 403);
  assert.equal(existing.status, 403);
  assert.equal(missing.json.error.type, 'ForbiddenException');
  assert.equal(existing.json.error.type, missing.json.error.type);

  // Revoked: the next request is refused.
  await manage(srv.url, srv.rootToken, 'POST', `/roles/${reader.role}/grants/revoke`, grant('TABLE_READ', 'namespace', { catalog: 'default', namespace: ['sales'] }), 204);
  await assert.rejects(catalog.loadTable({ namespace: ['sales', 'eu', 'fr'], name: 'orders' }), (e) => e.status === 403);
  // A deleted principal's token stops working at once.
  await manage(srv.url, srv.rootToken, 'DELETE', '/principals/sales-reader', undefined, 204);
  const gone = await call(srv.url, 'GET', '/iceberg/v1/default/namespaces', { headers: bearer(reader.token) });
  assert.equal(gone.status, 401);
}));

test('LanceDB with an API key header and with a bearer header', withServerLog(() => srv, async () => {
  const writer = await principalWith(srv, 'lance-writer', [grant('CATALOG_MANAGE', 'catalog', { catalog: 'default' })]);
  const db = await lancedb.connectNamespace('rest', { uri: `${srv.url}/lance`, headers: { 'x-api-key': `${writer.id}:${writer.secret}` } });
  await db.createNamespace(['default', 'lake']);
  const table = await db.createTable('events', [{ id: 1 }, { id: 2 }], ['default', 'lake']);
  assert.equal(await table.countRows(), 2);
  const viaToken = await lancedb.connectNamespace('rest', { uri: `${srv.url}/lance`, headers: { Authorization: `Bearer ${writer.token}` } });
  assert.deepEqual(await viaToken.tableNames(['default', 'lake']), ['events']);

  const outsider = await principalWith(srv, 'lance-outsider', [grant('TABLE_READ', 'catalog', { catalog: 'other' })]);
  const denied = await lancedb.connectNamespace('rest', { uri: `${srv.url}/lance`, headers: { 'x-api-key': outsider.token } });
  await assert.rejects(denied.openTable('events', ['default', 'lake']));
  const anonymous = await lancedb.connectNamespace('rest', { uri: `${srv.url}/lance` });
  await assert.rejects(anonymous.tableNames(['default', 'lake']));
  const raw = await call(srv.url, 'POST', '/lance/v1/table/default%24lake%24events/describe?delimiter=%24', { body: {}, headers: { 'x-api-key': outsider.token } });
  assert.equal(raw.status, 403);
  assert.equal(raw.json.code, 15, raw.text); // the Lance spec's PermissionDenied
}));

test('an Idempotency-Key is bound to the principal that used it first', withServerLog(() => srv, async () => {
  const a = await principalWith(srv, 'ns-maker-a', [grant('NAMESPACE_CREATE', 'catalog', { catalog: 'default' })]);
  const b = await principalWith(srv, 'ns-maker-b', [grant('NAMESPACE_CREATE', 'catalog', { catalog: 'default' })]);
  const key = '018f2b6e-1c4a-7d00-8000-00000000a11c';
  const send = (token) =>
    call(srv.url, 'POST', '/iceberg/v1/default/namespaces', { body: { namespace: ['keyed'] }, headers: { ...bearer(token), 'Idempotency-Key': key } });
  const first = await send(a.token);
  assert.equal(first.status, 200, first.text);
  assert.equal((await send(a.token)).status, 200, 'the same principal gets the replay');
  const other = await send(b.token);
  assert.equal(other.status, 422, other.text);
}));

test('the audit log has a line per change and per denial, without secrets', withServerLog(() => srv, async () => {
  const lines = readFileSync(path.join(srv.dataDir, 'audit.log'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  assert.ok(lines.some((l) => l.action === 'POST /iceberg/v1/{prefix}/namespaces' && l.principal === 'root' && l.outcome === 'done'));
  assert.ok(lines.some((l) => l.outcome === 'denied' && l.principal === 'sales-reader' && l.status === 403));
  assert.ok(lines.some((l) => l.outcome === 'denied' && l.status === 401));
  assert.ok(lines.every((l) => l.time && l.request_id && 'principal' in l && l.action && l.target));
  const text = readFileSync(path.join(srv.dataDir, 'audit.log'), 'utf8');
  assert.ok(!text.includes(ROOT_SECRET));
  assert.ok(!text.includes(srv.rootToken));
}));
