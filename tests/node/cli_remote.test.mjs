// The `cairn` commands over HTTP(S) (issue 18): the real binary run against a real server
// with `auth = on`, each command family's effect checked through the HTTP API; the
// credential given as a flag and in the environment; failures (a wrong secret, no
// server, a missing argument) with their exit codes and without a secret in sight; and
// HTTPS with a private CA (`--cacert`).
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, utimesSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { call, describeResponse } from './lib/http.mjs';
import { ROOT_ID, ROOT_SECRET, bearer, manage, startSecuredServer } from './lib/auth.mjs';
import { appendSnapshot, writeAt } from './lib/iceberg_snapshots.mjs';
import { REPO_ROOT, makeTempDir, removeDir, runCairn, startServer, withServerLog } from './lib/server.mjs';

const CREDENTIAL = `${ROOT_ID}:${ROOT_SECRET}`;

let srv;
before(async () => {
  // Orphan removal may look at files of any age (they are backdated below).
  srv = await startSecuredServer({ args: ['--orphan-file-min-age-s', '0'] });
});
after(async () => { await srv?.cleanup(); });
const it = (name, fn) => test(name, withServerLog(() => srv, fn));

/**
 * Runs `cairn ...args --server <srv>` with the root credential in CAIRN_CREDENTIAL
 * (unless `env` says otherwise); the result plus `json` (stdout parsed, when it is JSON).
 */
async function cli(args, { env = { CAIRN_CREDENTIAL: CREDENTIAL }, server = srv.url } = {}) {
  const res = await runCairn([...args, ...(server ? ['--server', server] : [])], {
    env: { CAIRN_SERVER: '', CAIRN_TOKEN: '', CAIRN_CREDENTIAL: '', CAIRN_CACERT: '', ...env },
  });
  try {
    res.json = JSON.parse(res.stdout);
  } catch {
    res.json = undefined;
  }
  return res;
}

function ok(res, what) {
  assert.equal(res.code, 0, `${what}: exit ${res.code}\n--- stdout ---\n${res.stdout}\n--- stderr ---\n${res.stderr}`);
  return res;
}

const api = (method, target, body, expect) => manage(srv.url, srv.rootToken, method, target, body, expect);

it('catalog create, list, show, update and delete act on the server', async () => {
  // The credential as a flag this time (CAIRN_CREDENTIAL elsewhere).
  const asFlag = { env: {} };
  const created = ok(await cli(['catalog', 'create', 'sales', '--property', 'owner=data-eng',
    '--property', 'tier=gold', '--credential', CREDENTIAL], asFlag), 'create');
  assert.equal(created.json.name, 'sales');
  assert.deepEqual(created.json.properties, { owner: 'data-eng', tier: 'gold' });
  assert.match(created.stdout, /^\{\n {2}"name": "sales",\n/, 'indented JSON');
  assert.deepEqual((await api('GET', '/catalogs/sales', undefined, 200)).json.properties,
    { owner: 'data-eng', tier: 'gold' });

  for (let i = 0; i < 3; i++) await api('POST', '/catalogs', { name: `extra${i}` }, 201);
  // One catalog per request: the listing follows the pages to the end.
  const listed = ok(await cli(['catalog', 'list', '--page-size', '1']), 'list');
  assert.deepEqual(listed.json.catalogs.map((c) => c.name), ['default', 'extra0', 'extra1', 'extra2', 'sales']);
  assert.equal(listed.json['next-page-token'], undefined);

  const updated = ok(await cli(['catalog', 'update', 'sales', '--set', 'team=emea', '--remove', 'owner']), 'update');
  assert.deepEqual(updated.json.properties, { team: 'emea', tier: 'gold' });
  assert.deepEqual((await api('GET', '/catalogs/sales', undefined, 200)).json.properties, { team: 'emea', tier: 'gold' });
  const shown = ok(await cli(['catalog', 'show', 'sales']), 'show');
  assert.equal(shown.json.warehouse, `file://${path.join(srv.dataDir, 'warehouse', 'sales')}`);

  const deleted = ok(await cli(['catalog', 'delete', 'sales']), 'delete');
  assert.equal(deleted.stdout, 'deleted catalog sales\n');
  await api('GET', '/catalogs/sales', undefined, 404);
  const missing = await cli(['catalog', 'show', 'sales']);
  assert.equal(missing.code, 1);
  assert.equal(missing.stdout, '');
  assert.match(missing.stderr, /^cairn: 404 NoSuchWarehouseException: /);
  const nothing = await cli(['catalog', 'update', 'extra0']);
  assert.equal(nothing.code, 2, nothing.stderr);
});

it('principal, role and grant commands manage identities; a rotated secret replaces the old one', async () => {
  const created = ok(await cli(['principal', 'create', 'alice']), 'principal create');
  const { 'client-id': id, 'client-secret': secret } = created.json;
  assert.ok(id && secret, created.stdout);
  await srv.token(id, secret); // the printed credentials work

  ok(await cli(['role', 'create', 'readers']), 'role create');
  assert.equal(ok(await cli(['principal', 'assign', 'alice', 'readers']), 'assign').stdout,
    'assigned role readers to principal alice\n');
  assert.deepEqual(ok(await cli(['principal', 'show', 'alice']), 'show').json.roles, ['readers']);
  assert.deepEqual((await api('GET', '/principals/alice', undefined, 200)).json.roles, ['readers']);

  ok(await cli(['grant', 'add', 'readers', 'table_read', '--catalog', 'default', '--namespace', 'eu.west',
    '--table', 'orders']), 'grant add');
  ok(await cli(['grant', 'add', 'readers', 'NAMESPACE_LIST', '--catalog', 'default']), 'grant add');
  const expected = [
    { privilege: 'NAMESPACE_LIST', securable: { kind: 'catalog', catalog: 'default' } },
    { privilege: 'TABLE_READ', securable: { kind: 'table', catalog: 'default', namespace: ['eu', 'west'], name: 'orders' } },
  ];
  const sort = (grants) => [...grants].sort((a, b) => a.privilege.localeCompare(b.privilege));
  assert.deepEqual(sort(ok(await cli(['grant', 'list', 'readers']), 'grant list').json.grants), expected);
  assert.deepEqual(sort((await api('GET', '/roles/readers/grants', undefined, 200)).json.grants), expected);
  ok(await cli(['grant', 'revoke', 'readers', 'NAMESPACE_LIST', '--catalog', 'default']), 'revoke');
  assert.deepEqual((await api('GET', '/roles/readers/grants', undefined, 200)).json.grants, [expected[1]]);
  const bad = await cli(['grant', 'add', 'readers', 'TABLE_READ', '--table', 'orders']);
  assert.equal(bad.code, 2, bad.stderr);
  assert.match(bad.stderr, /needs --namespace/);

  ok(await cli(['principal', 'unassign', 'alice', 'readers']), 'unassign');
  assert.deepEqual((await api('GET', '/principals/alice', undefined, 200)).json.roles, []);
  const rotated = ok(await cli(['principal', 'rotate', 'alice']), 'rotate');
  assert.notEqual(rotated.json['client-secret'], secret);
  await srv.token(rotated.json['client-id'], rotated.json['client-secret']);
  await assert.rejects(srv.token(id, secret), /401/);

  assert.ok(ok(await cli(['principal', 'list', '--page-size', '1']), 'list').json.principals.includes('alice'));
  assert.ok(ok(await cli(['role', 'list']), 'role list').json.roles.includes('readers'));
  assert.equal(ok(await cli(['role', 'delete', 'readers']), 'role delete').stdout, 'deleted role readers\n');
  assert.equal(ok(await cli(['principal', 'delete', 'alice']), 'delete').stdout, 'deleted principal alice\n');
  await api('GET', '/principals/alice', undefined, 404);
  const gone = await cli(['principal', 'show', 'alice']);
  assert.equal(gone.code, 1);
  assert.match(gone.stderr, /^cairn: 404 /);
});

/** Creates table `name` in namespace `levels` of the default catalog as root; its metadata. */
async function createTable(levels, name) {
  const ns = levels.map(encodeURIComponent).join('%1F');
  const base = '/iceberg/v1/default/namespaces';
  for (let depth = 1; depth <= levels.length; depth++) {
    const made = await call(srv.url, 'POST', base, { body: { namespace: levels.slice(0, depth) }, headers: bearer(srv.rootToken) });
    assert.ok(made.status === 200 || made.status === 409, describeResponse(made));
  }
  const res = await call(srv.url, 'POST', `${base}/${ns}/tables`, {
    headers: bearer(srv.rootToken),
    body: { name, schema: { type: 'struct', 'schema-id': 0, fields: [{ id: 1, name: 'id', type: 'long', required: true }] } },
  });
  assert.equal(res.status, 200, describeResponse(res));
  const commit = async (body) => {
    const done = await call(srv.url, 'POST', `${base}/${ns}/tables/${name}`, { body, headers: bearer(srv.rootToken) });
    assert.equal(done.status, 200, describeResponse(done));
    return done.json.metadata;
  };
  return { metadata: res.json.metadata, commit };
}

it('table maintain expires snapshots and removes orphan files of a table in a multi-level namespace', async () => {
  const table = await createTable(['eu', 'west'], 'events');
  let { metadata } = table;
  const loc = metadata.location;
  const s1 = await appendSnapshot(metadata, [{ path: `${loc}/data/f1.parquet`, records: 1 }]);
  metadata = await table.commit(s1.commit);
  const s2 = await appendSnapshot(metadata, [{ path: `${loc}/data/f2.parquet`, records: 1 }], { previous: s1.manifests });
  metadata = await table.commit(s2.commit);
  const args = ['table', 'maintain', 'expire-snapshots', 'default', 'eu.west', 'events'];
  const now = String(Date.now() + 1);

  const dry = ok(await cli([...args, '--dry-run', '--older-than-ms', now, '--retain-last', '1']), 'expire dry run');
  assert.equal(dry.json['dry-run'], true);
  assert.deepEqual(dry.json['expired-snapshot-ids'].map(String), [String(s1.id)]);
  const done = ok(await cli([...args, '--older-than-ms', now, '--retain-last', '1']), 'expire');
  assert.equal(done.json['dry-run'], false);
  const loaded = await call(srv.url, 'GET', '/iceberg/v1/default/namespaces/eu%1Fwest/tables/events', { headers: bearer(srv.rootToken) });
  assert.deepEqual(loaded.json.metadata.snapshots.map((s) => String(s['snapshot-id'])), [String(s2.id)]);

  // A file no snapshot references, a day old.
  const stray = `${loc}/data/stray.parquet`;
  writeAt(stray, Buffer.from('PAR1stray'));
  const strayPath = fileURLToPath(stray);
  const dayAgo = (Date.now() - 24 * 3600 * 1000) / 1000;
  utimesSync(strayPath, dayAgo, dayAgo);
  const orphans = ['table', 'maintain', 'remove-orphan-files', 'default', 'eu.west', 'events',
    '--older-than-ms', String(Date.now() - 3600 * 1000)];
  const listed = ok(await cli([...orphans, '--dry-run']), 'orphans dry run');
  assert.deepEqual(listed.json.files, [stray]);
  assert.ok(existsSync(strayPath));
  ok(await cli(orphans), 'orphans');
  assert.ok(!existsSync(strayPath));

  const unknown = await cli(['table', 'maintain', 'expire-snapshots', 'default', 'eu.west', 'nope']);
  assert.equal(unknown.code, 1);
  assert.match(unknown.stderr, /^cairn: 404 NoSuchTableException: /);
});

it('transaction list answers the transactions, filtered by state', async () => {
  const all = ok(await cli(['transaction', 'list', '--page-size', '5']), 'list');
  assert.ok(Array.isArray(all.json.transactions), all.stdout);
  const failed = ok(await cli(['transaction', 'list', '--status', 'failed,CANCELED']), 'list failed');
  assert.deepEqual(failed.json.transactions.filter((t) => !['FAILED', 'CANCELED'].includes(t.status)), []);
  const bad = await cli(['transaction', 'list', '--status', 'sleeping']);
  assert.equal(bad.code, 1);
  assert.match(bad.stderr, /^cairn: 400 BadRequestException: Invalid status 'SLEEPING'/);
});

it('a wrong secret or no credential fails with the server\'s refusal and shows no secret', async () => {
  const wrongSecret = 'not-the-root-secret-0123456789';
  for (const env of [{ CAIRN_CREDENTIAL: `${ROOT_ID}:${wrongSecret}` }, {}]) {
    const args = ['catalog', 'list', ...(env.CAIRN_CREDENTIAL ? [] : ['--credential', `${ROOT_ID}:${wrongSecret}`])];
    const res = await cli(args, { env });
    assert.equal(res.code, 1, res.stderr);
    assert.equal(res.stdout, '');
    assert.match(res.stderr, /^cairn: 401 invalid_client: /);
    assert.ok(!res.stderr.includes(wrongSecret), res.stderr);
  }
  const anonymous = await cli(['catalog', 'list'], { env: {} });
  assert.equal(anonymous.code, 1);
  assert.match(anonymous.stderr, /^cairn: 401 NotAuthorizedException: .*--credential/);
  // A bearer token works as well, and is not echoed when refused.
  ok(await cli(['catalog', 'list'], { env: { CAIRN_TOKEN: srv.rootToken } }), 'token');
  const badToken = 'eyJhbGciOiJFUzI1NiJ9.e30.not-a-signature';
  const refused = await cli(['catalog', 'list', '--token', badToken], { env: {} });
  assert.equal(refused.code, 1);
  assert.ok(!refused.stderr.includes(badToken), refused.stderr);
});

/** A port nothing listens on. */
async function closedPort() {
  const server = net.createServer();
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

it('an unreachable server fails with its URL; usage errors exit 2; --help shows the options', async () => {
  const url = `http://127.0.0.1:${await closedPort()}`;
  const unreachable = await cli(['catalog', 'list'], { server: url, env: {} });
  assert.equal(unreachable.code, 1);
  assert.ok(unreachable.stderr.startsWith(`cairn: cannot reach ${url}/management/v1/catalogs`), unreachable.stderr);
  const viaEnv = await cli(['role', 'list'], { server: null, env: { CAIRN_SERVER: url, CAIRN_CREDENTIAL: CREDENTIAL } });
  assert.equal(viaEnv.code, 1);
  assert.ok(viaEnv.stderr.includes(`cannot reach ${url}/v1/oauth/tokens`), viaEnv.stderr);

  for (const args of [['catalog', 'show'], ['principal', 'assign', 'alice'], ['catalog', 'list', '--bogus'],
    ['catalog', 'list', '--timeout-ms', 'soon'], ['catalog', 'create', 'x', '--property', 'novalue'], ['catalog']]) {
    const res = await cli(args);
    assert.equal(res.code, 2, `${args.join(' ')}: ${res.stderr}`);
    assert.ok(res.stderr.length > 0);
  }
  assert.match((await cli(['catalog', 'show'])).stderr, /cairn catalog show: NAME is required/);
  const badServer = await cli(['catalog', 'list'], { server: 'http://root:pw-in-url@127.0.0.1:1' });
  assert.equal(badServer.code, 2);
  assert.ok(!badServer.stderr.includes('pw-in-url'), badServer.stderr);

  const help = await runCairn(['catalog', 'list', '--help']);
  assert.equal(help.code, 0);
  assert.match(help.stdout, /--timeout-ms INT=30000 \(Env:CAIRN_TIMEOUT_MS\)/);
  assert.match(help.stdout, /--server TEXT=http:\/\/127\.0\.0\.1:9001 \(Env:CAIRN_SERVER\)/);
  assert.match(help.stdout, /--page-size INT=100/);
});

it('talks HTTPS to a server whose certificate a private CA signed, given --cacert or CAIRN_CACERT', async () => {
  const dir = makeTempDir('cairn-node-cli-tls-');
  let tls;
  try {
    execFileSync('sh', [path.join(REPO_ROOT, 'tests', 'support', 'make_test_tls.sh'), dir], { stdio: ['ignore', 'ignore', 'inherit'] });
    tls = await startServer({
      config: { 'tls-cert-file': path.join(dir, 'server.pem'), 'tls-key-file': path.join(dir, 'server.key') },
    });
    assert.match(tls.url, /^https:/);
    const ca = path.join(dir, 'ca.pem');
    const flagged = ok(await cli(['catalog', 'list', '--cacert', ca], { server: tls.url, env: {} }), '--cacert');
    assert.deepEqual(flagged.json.catalogs.map((c) => c.name), ['default']);
    ok(await cli(['catalog', 'create', 'secure'], { server: tls.url, env: { CAIRN_CACERT: ca } }), 'CAIRN_CACERT');
    const untrusted = await cli(['catalog', 'list'], { server: tls.url, env: {} });
    assert.equal(untrusted.code, 1);
    assert.ok(untrusted.stderr.startsWith(`cairn: cannot reach ${tls.url}/`), untrusted.stderr);
    assert.match(untrusted.stderr, /--cacert/);
  } finally {
    await tls?.cleanup();
    removeDir(dir);
  }
});
