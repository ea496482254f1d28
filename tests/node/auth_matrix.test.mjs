// The access matrix, derived from the server's own route table (GET /management/v1/routes):
// for every route, no credentials => 401; a malformed, expired, wrongly signed or
// wrong-audience token => 401; a valid token of a principal without grants => 403 and
// nothing changed; the root principal (SERVICE_ADMIN) => the route's normal answer. A new
// route without a rule, or without a sample request here, fails this test. The docs' table
// (docs/SECURITY.md) must list every route with the rule the server reports.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';

import { bearer, claimsFor, manage, mintToken, newSigningKey, principalWith, ROOT_ID, ROOT_SECRET, startSecuredServer } from './lib/auth.mjs';
import { call } from './lib/http.mjs';
import { REPO_ROOT } from './lib/server.mjs';

const SCHEMA = { type: 'struct', 'schema-id': 0, fields: [{ id: 1, name: 'id', type: 'long', required: true }] };
const VIEW_VERSION = {
  'version-id': 1,
  'timestamp-ms': 1,
  'schema-id': 0,
  summary: {},
  representations: [{ type: 'sql', sql: 'select 1', dialect: 'spark' }],
  'default-namespace': ['ns'],
};

// Sample requests by route, keyed by "METHOD path" with the `/iceberg` base and the
// `{prefix}` segment taken out. `ghost`: the root principal's request names an object that
// does not exist, so the privileged pass changes nothing it should not.
const SAMPLES = {
  'GET /health': {},
  'GET /health/live': {},
  'GET /health/ready': {},
  'GET /metrics': {},
  'POST /v1/oauth/tokens': { form: { grant_type: 'client_credentials', client_id: ROOT_ID, client_secret: ROOT_SECRET } },
  'GET /v1/config': {},
  'POST /v1/aws/s3/sign': { body: { region: 'us-east-1', uri: 'https://s3.example/b/k', method: 'GET', headers: {} } },
  'GET /v1/namespaces': {},
  'POST /v1/namespaces': { body: { namespace: ['made'] } },
  'GET /v1/namespaces/{namespace}': {},
  'HEAD /v1/namespaces/{namespace}': {},
  'DELETE /v1/namespaces/{namespace}': { ghost: true },
  'POST /v1/namespaces/{namespace}/properties': { body: { updates: { a: 'b' }, removals: [] } },
  'GET /v1/namespaces/{namespace}/tables': {},
  'POST /v1/namespaces/{namespace}/tables': { body: { name: 'made_t', schema: SCHEMA } },
  'GET /v1/namespaces/{namespace}/tables/{table}': {},
  'HEAD /v1/namespaces/{namespace}/tables/{table}': {},
  'POST /v1/namespaces/{namespace}/tables/{table}': { body: { requirements: [], updates: [] } },
  'DELETE /v1/namespaces/{namespace}/tables/{table}': { ghost: true },
  'GET /v1/namespaces/{namespace}/tables/{table}/credentials': {},
  'POST /v1/namespaces/{namespace}/tables/{table}/sign': {
    body: { region: 'us-east-1', uri: 'https://s3.example/b/k', method: 'GET', headers: {} },
  },
  'POST /v1/namespaces/{namespace}/tables/{table}/plan': { body: {} },
  'GET /v1/namespaces/{namespace}/tables/{table}/plan/{plan-id}': {},
  'DELETE /v1/namespaces/{namespace}/tables/{table}/plan/{plan-id}': {},
  'POST /v1/namespaces/{namespace}/tables/{table}/tasks': { body: { 'plan-task': 'sync-x:1' } },
  'POST /v1/namespaces/{namespace}/register': { body: { name: 'reg', 'metadata-location': 'file:///nowhere/m.json' } },
  'POST /v1/tables/rename': {
    body: { source: { namespace: ['ns'], name: 'ghost' }, destination: { namespace: ['ns'], name: 'ghost2' } },
  },
  'POST /v1/namespaces/{namespace}/tables/{table}/metrics': {
    body: { 'report-type': 'commit-report', 'table-name': 't', 'snapshot-id': 1, 'sequence-number': 1, operation: 'append', metrics: {} },
  },
  'POST /v1/transactions/commit': {
    body: { 'table-changes': [{ identifier: { namespace: ['ns'], name: 't' }, requirements: [], updates: [] }] },
  },
  'GET /v1/namespaces/{namespace}/views': {},
  'POST /v1/namespaces/{namespace}/views': {
    body: { name: 'made_v', schema: SCHEMA, 'view-version': VIEW_VERSION, properties: {} },
  },
  'GET /v1/namespaces/{namespace}/views/{view}': {},
  'HEAD /v1/namespaces/{namespace}/views/{view}': {},
  'POST /v1/namespaces/{namespace}/views/{view}': { body: { requirements: [], updates: [] } },
  'DELETE /v1/namespaces/{namespace}/views/{view}': { ghost: true },
  'POST /v1/views/rename': {
    body: { source: { namespace: ['ns'], name: 'ghost' }, destination: { namespace: ['ns'], name: 'ghost2' } },
  },
  'POST /v1/namespaces/{namespace}/register-view': { body: { name: 'regv', 'metadata-location': 'file:///nowhere/v.json' } },
  'POST /lance/v1/namespace/{id}/create': { id: 'default$made2', body: {} },
  'GET /lance/v1/namespace/{id}/list': { id: 'default$ns' },
  'POST /lance/v1/namespace/{id}/list': { id: 'default$ns', body: {} },
  'POST /lance/v1/namespace/{id}/describe': { id: 'default$ns', body: {} },
  'POST /lance/v1/namespace/{id}/drop': { id: 'default$ghostns', body: {} },
  'POST /lance/v1/namespace/{id}/exists': { id: 'default$ns', body: {} },
  'GET /lance/v1/namespace/{id}/table/list': { id: 'default$ns' },
  'GET /lance/v1/table': {},
  'POST /lance/v1/table/{id}/register': { id: 'default$ns$regl', body: { location: 'file:///nowhere/x.lance' } },
  'POST /lance/v1/table/{id}/declare': { id: 'default$ns$decl', body: {} },
  'POST /lance/v1/table/{id}/describe': { id: 'default$ns$lt', body: {} },
  'POST /lance/v1/table/{id}/exists': { id: 'default$ns$lt', body: {} },
  'POST /lance/v1/table/{id}/stats': { id: 'default$ns$lt', body: {} },
  'POST /lance/v1/table/{id}/restore': { id: 'default$ns$lt', body: { version: 1 } },
  'POST /lance/v1/table/{id}/drop': { id: 'default$ns$ghost', body: {} },
  'POST /lance/v1/table/{id}/deregister': { id: 'default$ns$ghost', body: {} },
  'POST /lance/v1/table/{id}/rename': { id: 'default$ns$ghost', body: { new_table_name: 'ghost2' } },
  'POST /lance/v1/transaction/{id}/describe': { id: 'ghost-tx', body: {} },
  'POST /lance/v1/transaction/{id}/alter': { id: 'ghost-tx', body: { actions: [] } },
  'POST /lance/v1/table/{id}/version/create': {
    id: 'default$ns$ghost',
    body: { version: 1, manifest_path: 'nowhere/_versions/18446744073709551614.manifest-x' },
  },
  'POST /lance/v1/table/{id}/version/describe': { id: 'default$ns$lt', body: { version: 1 } },
  'POST /lance/v1/table/{id}/version/list': { id: 'default$ns$lt', body: {} },
  'POST /lance/v1/table/{id}/version/delete': { id: 'default$ns$ghost', body: { ranges: [] } },
  'POST /lance/v1/table/version/batch-create': {
    body: { entries: [{ id: ['default', 'ns', 'lt'], version: 1, manifest_path: 'nowhere/x.manifest-x' }] },
  },
  'POST /lance/v1/table/batch-commit': {
    body: {
      operations: [
        { declare_table: { id: ['default', 'ns', 'ghost_decl'] } },
        { deregister_table: { id: ['default', 'ns', 'ghost'] } },
      ],
    },
  },
  ...Object.fromEntries(
    [
      'schema_metadata/update', 'alter_columns', 'update_field_metadata', 'drop_columns',
      'tags/list', 'tags/version', 'tags/create', 'tags/delete', 'tags/update', 'branches/list',
      'branches/create', 'branches/delete', 'create', 'insert', 'merge_insert', 'update', 'delete', 'query',
      'count_rows', 'explain_plan', 'analyze_plan', 'add_columns', 'backfill_column', 'create_index',
      'create_scalar_index', 'index/list', 'index/{index_name}/stats', 'index/{index_name}/drop',
    ].map((action) => [`POST /lance/v1/table/{id}/${action}`, { id: 'default$ns$lt', body: {} }]),
  ),
  'GET /lance/v1/table/{id}/count_rows': { id: 'default$ns$lt' },
  'GET /lance/v1/table/{id}/tags/list': { id: 'default$ns$lt' },
  'GET /lance/v1/table/{id}/branches/list': { id: 'default$ns$lt' },
  'POST /lance/v1/materialized_view/{id}/create': { id: 'default$ns$mv', body: {} },
  'POST /lance/v1/materialized_view/{id}/refresh': { id: 'default$ns$lt', body: {} },
  'POST /management/v1/principals': { body: { name: 'made-p' } },
  'GET /management/v1/principals': {},
  'GET /management/v1/principals/{principal}': {},
  'DELETE /management/v1/principals/{principal}': { ghost: true },
  'POST /management/v1/principals/{principal}/rotate': { ghost: true },
  'PUT /management/v1/principals/{principal}/roles/{role}': { ghost: true },
  'DELETE /management/v1/principals/{principal}/roles/{role}': { ghost: true },
  'POST /management/v1/roles': { body: { name: 'made-r' } },
  'GET /management/v1/roles': {},
  'DELETE /management/v1/roles/{role}': { ghost: true },
  'GET /management/v1/roles/{role}/grants': {},
  'POST /management/v1/roles/{role}/grants': { ghost: true, body: { privilege: 'TABLE_READ', securable: { kind: 'catalog', catalog: 'default' } } },
  'POST /management/v1/roles/{role}/grants/revoke': { ghost: true, body: { privilege: 'TABLE_READ', securable: { kind: 'catalog', catalog: 'default' } } },
  'GET /management/v1/routes': {},
  'GET /management/v1/catalogs': {},
  'GET /management/v1/transactions': {},
  'POST /management/v1/catalogs': { body: { name: 'made-c' } },
  'GET /management/v1/catalogs/{catalog}': {},
  'PATCH /management/v1/catalogs/{catalog}': { ghost: true, body: { updates: { a: 'b' } } },
  'DELETE /management/v1/catalogs/{catalog}': { ghost: true },
  'POST /management/v1/catalogs/{prefix}/namespaces/{namespace}/tables/{table}/maintenance/expire-snapshots': {
    body: { 'dry-run': true },
  },
  'POST /management/v1/catalogs/{prefix}/namespaces/{namespace}/tables/{table}/maintenance/remove-orphan-files': {
    body: { 'dry-run': true },
  },
  'GET /management/v1/catalogs/{prefix}/namespaces/{namespace}/tables/{table}/metrics-reports': {},
};

const sampleKey = (route) =>
  `${route.method} ${route.path.replace(/^\/iceberg(?=\/v1\/)/, '').replace(/^\/v1\/\{prefix\}\//, '/v1/')}`;

/** The request target of `route` for the sample, with objects that exist (or ghosts). */
function targetOf(route, sample, ghost) {
  const name = (real) => (ghost && sample.ghost ? 'ghost' : real);
  let target = route.path
    .replace('{prefix}', 'default')
    .replace('{catalog}', name('default'))
    .replace('{namespace}', name('ns'))
    .replace('{table}', name('t'))
    .replace('{view}', name('v'))
    .replace('{principal}', name('nobody'))
    .replace('{role}', name('r'))
    .replace('{index_name}', 'idx')
    .replace('{plan-id}', 'sync-unknown')
    .replace('{id}', encodeURIComponent(sample.id ?? ''));
  if (route.path.startsWith('/lance/')) target += '?delimiter=%24';
  return target;
}

function send(base, route, sample, headers, ghost = false) {
  const target = targetOf(route, sample, ghost);
  if (sample.form) {
    return call(base, route.method, target, {
      rawBody: new URLSearchParams(sample.form).toString(),
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', ...headers },
    });
  }
  return call(base, route.method, target, { body: sample.body, headers });
}

/** True when the answer is the authorization layer's own denial (a HEAD answer has no body
 *  to tell: its 403 counts). */
function isDenial(res, method) {
  const text = res.text ?? '';
  if (res.status === 403 && method === 'HEAD') return true;
  return res.status === 401 || (res.status === 403 && /principal '[^']*' (lacks|has no grant)/.test(text));
}

let srv;
let routes;
let nobody;

before(async () => {
  srv = await startSecuredServer();
  const root = bearer(srv.rootToken);
  const iceberg = '/iceberg/v1/default';
  const must = async (res, status, what) => assert.equal(res.status, status, `${what}: ${res.text}`);
  await must(await call(srv.url, 'POST', `${iceberg}/namespaces`, { body: { namespace: ['ns'] }, headers: root }), 200, 'namespace');
  await must(await call(srv.url, 'POST', `${iceberg}/namespaces/ns/tables`, { body: { name: 't', schema: SCHEMA }, headers: root }), 200, 'table');
  await must(
    await call(srv.url, 'POST', `${iceberg}/namespaces/ns/views`, { body: { name: 'v', schema: SCHEMA, 'view-version': VIEW_VERSION, properties: {} }, headers: root }),
    200,
    'view',
  );
  await must(await call(srv.url, 'POST', '/lance/v1/table/default%24ns%24lt/declare?delimiter=%24', { body: {}, headers: root }), 200, 'lance table');
  nobody = await principalWith(srv, 'nobody');
  await manage(srv.url, srv.rootToken, 'POST', '/roles', { name: 'r' }, 201);
  routes = (await manage(srv.url, srv.rootToken, 'GET', '/routes', undefined, 200)).json.routes;
});

after(async () => {
  await srv?.cleanup();
});

/** What an unprivileged request must not change. */
async function snapshot() {
  const root = bearer(srv.rootToken);
  const get = async (method, target, body) => (await call(srv.url, method, target, { body, headers: root })).text;
  return [
    await get('GET', '/iceberg/v1/default/namespaces'),
    await get('GET', '/iceberg/v1/default/namespaces/ns'),
    await get('GET', '/iceberg/v1/default/namespaces/ns/tables'),
    JSON.parse(await get('GET', '/iceberg/v1/default/namespaces/ns/tables/t'))['metadata-location'],
    await get('GET', '/iceberg/v1/default/namespaces/ns/views'),
    await get('GET', '/lance/v1/namespace/default%24ns/table/list?delimiter=%24'),
    await get('GET', '/management/v1/principals'),
    await get('GET', '/management/v1/roles'),
    await get('GET', '/management/v1/principals/nobody'),
    await get('GET', '/management/v1/catalogs'),
  ];
}

test('every route declares its rule and has a sample request here', () => {
  assert.ok(routes.length > 60, `only ${routes.length} routes`);
  const modes = new Set(['public', 'require', 'list', 'see', 'in-handler']);
  for (const route of routes) {
    assert.ok(modes.has(route.mode), `${route.method} ${route.path}: no access rule (mode '${route.mode}')`);
    assert.ok(route.access.length > 0, `${route.method} ${route.path}: no access text`);
    assert.equal(route.authenticated, route.mode !== 'public', `${route.method} ${route.path}`);
    assert.ok(SAMPLES[sampleKey(route)], `no sample request for ${sampleKey(route)}: add one`);
  }
});

test('no credentials, or bad ones, get 401 on every authenticated route; public routes answer', async () => {
  const other = newSigningKey();
  const now = Math.floor(Date.now() / 1000);
  const bad = {
    malformed: 'not-a-jwt',
    expired: mintToken(srv.key, claimsFor('root', { iat: now - 7200, nbf: now - 7200, exp: now - 3600 })),
    'wrongly signed': mintToken(other, claimsFor('root'), { kid: srv.key.kid }),
    'wrong audience': mintToken(srv.key, claimsFor('root', { aud: 'someone-else' })),
    'wrong issuer': mintToken(srv.key, claimsFor('root', { iss: 'someone-else' })),
    'alg none': `${Buffer.from(JSON.stringify({ alg: 'none', kid: srv.key.kid })).toString('base64url')}.${Buffer.from(JSON.stringify(claimsFor('root'))).toString('base64url')}.`,
  };
  const before = await snapshot();
  for (const route of routes) {
    const sample = SAMPLES[sampleKey(route)];
    const ctx = `${route.method} ${route.path}`;
    const anonymous = await send(srv.url, route, sample, {});
    if (!route.authenticated) {
      assert.ok(anonymous.status < 400, `${ctx} is public: ${anonymous.status} ${anonymous.text}`);
      continue;
    }
    assert.equal(anonymous.status, 401, `${ctx} without credentials: ${anonymous.text}`);
    assert.match(anonymous.headers['www-authenticate'] ?? '', /^Bearer/, ctx);
    for (const [what, token] of Object.entries(bad)) {
      const res = await send(srv.url, route, sample, bearer(token));
      assert.equal(res.status, 401, `${ctx} with a ${what} token: ${res.text}`);
      assert.ok(!res.text.includes(token), `${ctx}: the answer repeats the token`);
    }
  }
  assert.deepEqual(await snapshot(), before, 'a refused request changed something');
});

test('a principal without grants gets 403 on every authenticated route and changes nothing', async () => {
  const before = await snapshot();
  for (const route of routes.filter((r) => r.authenticated)) {
    const res = await send(srv.url, route, SAMPLES[sampleKey(route)], bearer(nobody.token));
    assert.equal(res.status, 403, `${route.method} ${route.path}: ${res.text}`);
    assert.ok(isDenial(res, route.method), `${route.method} ${route.path}: not the authorization's denial: ${res.text}`);
  }
  assert.deepEqual(await snapshot(), before, 'a forbidden request changed something');
});

const PRIVILEGES = [
  'SERVICE_ADMIN', 'CATALOG_MANAGE', 'NAMESPACE_CREATE', 'NAMESPACE_LIST', 'NAMESPACE_DROP',
  'NAMESPACE_READ_PROPERTIES', 'NAMESPACE_WRITE_PROPERTIES', 'TABLE_CREATE', 'TABLE_LIST',
  'TABLE_DROP', 'TABLE_READ', 'TABLE_WRITE', 'VIEW_CREATE', 'VIEW_LIST', 'VIEW_DROP',
  'VIEW_READ', 'VIEW_WRITE',
];
/** Whether holding `held` allows `wanted` (docs/SECURITY.md). */
function implies(held, wanted) {
  if (held === wanted || held === 'SERVICE_ADMIN') return true;
  if (held === 'CATALOG_MANAGE') return wanted !== 'SERVICE_ADMIN';
  return (held === 'TABLE_WRITE' && wanted === 'TABLE_READ') || (held === 'VIEW_WRITE' && wanted === 'VIEW_READ') ||
    (held === 'NAMESPACE_WRITE_PROPERTIES' && wanted === 'NAMESPACE_READ_PROPERTIES');
}

test('every privilege but the one a route requires, on the whole catalog, still gets 403', async () => {
  const principals = new Map();
  const required = routes.filter((r) => r.mode === 'require');
  for (const route of required) {
    if (!principals.has(route.privilege)) {
      const grants = PRIVILEGES.filter((p) => p !== 'SERVICE_ADMIN' && !implies(p, route.privilege)).map((privilege) => ({
        privilege,
        securable: { kind: 'catalog', catalog: 'default' },
      }));
      principals.set(route.privilege, await principalWith(srv, `all-but-${route.privilege.toLowerCase().replaceAll('_', '-')}`, grants));
    }
    const res = await send(srv.url, route, SAMPLES[sampleKey(route)], bearer(principals.get(route.privilege).token));
    assert.equal(res.status, 403, `${route.method} ${route.path} without ${route.privilege}: ${res.text}`);
  }
  assert.ok(principals.size >= 10, `only ${principals.size} distinct privileges are required by routes`);
});

test('the root principal gets the normal answer on every route', async () => {
  for (const route of routes) {
    const res = await send(srv.url, route, SAMPLES[sampleKey(route)], bearer(srv.rootToken), true);
    assert.ok(!isDenial(res, route.method), `${route.method} ${route.path} refused the root principal: ${res.status} ${res.text}`);
    assert.ok(res.status < 500, `${route.method} ${route.path}: ${res.status} ${res.text}`);
  }
});

test('docs/SECURITY.md lists every route with its rule', () => {
  const doc = readFileSync(path.join(REPO_ROOT, 'docs', 'SECURITY.md'), 'utf8');
  for (const route of routes) {
    const row = `| ${route.method} | \`${route.path}\` | ${route.access} |`;
    assert.ok(doc.includes(row), `docs/SECURITY.md lacks the row (run scripts/update-route-docs):\n${row}`);
  }
});
