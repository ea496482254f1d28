// Credential vending for Iceberg tables on S3, end to end (issue 14, item 3 and the secrets
// part of "Faults"): a real Cairn server with catalog `lake` on the test S3 server (Ceph RGW),
// asked for credentials with `X-Iceberg-Access-Delegation: vended-credentials` and by
// loadCredentials. RGW itself checks what the credentials allow: writes inside the table's
// location, 403 in another table's location and in a sibling prefix. An Iceberg round trip
// writes its files with vended credentials and reads them back with fresh ones. Secrets (the
// storage's key, vended keys and tokens) must never appear in logs, error bodies, /metrics or
// /v1/config. Skipped without CAIRN_TEST_S3_ENDPOINT.

import assert from 'node:assert/strict';
import fs from 'node:fs';
import { randomBytes, randomUUID } from 'node:crypto';
import { GetObjectCommand } from '@aws-sdk/client-s3';
import { call } from './lib/http.mjs';
import { listKeys, putObject, getObject, s3Client, userCredentials } from './lib/s3.mjs';
import { assertNoSecretIn, assertStatus, s3Test, splitS3 } from './lib/s3_catalog.mjs';

const NS = ['ns'];
const schema = {
  type: 'struct',
  'schema-id': 0,
  fields: [{ id: 1, name: 'id', type: 'long', required: true }],
};
const tableRequest = (name, extra = {}) => ({ name, schema, ...extra });

/**
 * The credentials of a LoadTableResult or LoadCredentialsResponse for the table at `location`:
 * asserts their shape (prefix = the location, first; the S3 property names; an expiry in the
 * future when `sts`) and returns them in the S3 SDK's shape.
 */
function vendedCredentials(body, location, { sts, ctx }) {
  const list = body['storage-credentials'];
  assert.ok(Array.isArray(list) && list.length > 0, `${ctx}: no storage-credentials in ${JSON.stringify(body).slice(0, 500)}`);
  assert.equal(list[0].prefix, location, `${ctx}: the first credential's prefix is not the table location`);
  const c = list[0].config;
  for (const key of ['s3.access-key-id', 's3.secret-access-key']) {
    assert.equal(typeof c[key], 'string', `${ctx}: ${key} missing`);
    assert.ok(c[key].length > 0, `${ctx}: ${key} empty`);
  }
  if (sts) {
    assert.ok(c['s3.session-token'], `${ctx}: STS credentials without s3.session-token`);
    const expires = Number(c['s3.session-token-expires-at-ms']);
    assert.ok(Number.isFinite(expires) && expires > Date.now(), `${ctx}: s3.session-token-expires-at-ms ${c['s3.session-token-expires-at-ms']} is not in the future`);
  }
  return { accessKeyId: c['s3.access-key-id'], secretAccessKey: c['s3.secret-access-key'], sessionToken: c['s3.session-token'] };
}

/** Asserts that `promise` (an S3 call) is refused by RGW with 403. */
async function assertDenied(promise, ctx) {
  await assert.rejects(promise, (e) => {
    assert.equal(e.$metadata?.httpStatusCode, 403, `${ctx}: expected 403, got ${e.name}: ${e.message}`);
    return true;
  });
}

/** The object at `key` as bytes. */
async function getBytes(bucket, key, s3) {
  const out = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
  return Buffer.from(await out.Body.transformToByteArray());
}

/** Secrets every check in a test must not find: the storage's key and whatever was vended. */
function secretsOf(...creds) {
  return [userCredentials().secretAccessKey, ...creds.flatMap((c) => [c.secretAccessKey, c.sessionToken])];
}

/** Asserts the answers that may show to anyone (errors, /metrics, /v1/config) hold none of `secrets`. */
async function assertNoSecretsServed(cat, secrets) {
  const errors = [
    ['a create outside the storage', await cat.ice.createTable(NS, tableRequest('bad', { location: `s3://${cat.bucket}/other/t` }), { vend: true })],
    ['a load of a missing table', await cat.ice.loadTable(NS, 'missing', { vend: true })],
    ['loadCredentials of a missing table', await cat.ice.loadCredentials(NS, 'missing')],
    ['a bad commit', await cat.ice.commitTable(NS, 'missing', { requirements: [], updates: [] })],
  ];
  for (const [what, res] of errors) {
    assert.ok(res.status >= 400, `${what}: HTTP ${res.status}`);
    assertNoSecretIn(res.text, secrets, `the error body of ${what}`);
  }
  for (const target of ['/metrics', '/v1/config', '/iceberg/v1/config?warehouse=lake']) {
    const res = await call(cat.base, 'GET', target);
    assert.equal(res.status, 200, target);
    assertNoSecretIn(res.text, secrets, target);
  }
  cat.assertNoSecrets(secrets, 'the server log');
}

// =============================================================================================
// 4. STS

s3Test('STS: create, load and loadCredentials vend credentials that RGW confines to the table', { vending: 'sts' }, async (cat) => {
  const b = cat.bucket;
  const other = assertStatus(await cat.ice.createTable(NS, tableRequest('other')), 200, 'create other');
  const created = await cat.ice.createTable(NS, tableRequest('t'), { vend: true });
  assertStatus(created, 200, 'create with vended credentials');
  // (Cache-Control of the create: its own test below.)
  const location = created.json.metadata.location;
  const k = splitS3(location).key;
  const otherKey = splitS3(other.metadata.location).key;

  const loaded = await cat.ice.loadTable(NS, 't', { vend: true });
  assertStatus(loaded, 200, 'load with vended credentials');
  assert.equal(loaded.headers['cache-control'], 'no-store', 'load with credentials must not be cached');
  const refreshed = await cat.ice.loadCredentials(NS, 't');
  assertStatus(refreshed, 200, 'loadCredentials');

  const all = [];
  for (const [from, body] of [['create', created.json], ['load', loaded.json], ['loadCredentials', refreshed.json]]) {
    const creds = vendedCredentials(body, location, { sts: true, ctx: from });
    all.push(creds);
    const s3 = s3Client(creds);
    const probe = `${k}/data/probe-${from}.txt`;
    await putObject(b, probe, from, { s3 });
    assert.equal(await getObject(b, probe, { s3 }), from, `${from}: read back`);
    await assertDenied(putObject(b, `${otherKey}/data/evil-${from}.txt`, 'x', { s3 }), `${from}: PUT into another table`);
    await assertDenied(putObject(b, `${k}x/data/evil-${from}.txt`, 'x', { s3 }), `${from}: PUT into a sibling prefix`);
    await assertDenied(getObject(b, splitS3(other['metadata-location']).key, { s3 }), `${from}: GET of another table's metadata`);
  }
  assert.ok(all.every((c) => c.accessKeyId !== userCredentials().accessKeyId), 'STS vending handed out the storage key');
  await assertNoSecretsServed(cat, secretsOf(...all));
});

s3Test('STS: an Iceberg round trip writes data and a manifest list with vended credentials and reads them back', { vending: 'sts' }, async (cat) => {
  const b = cat.bucket;
  const created = assertStatus(await cat.ice.createTable(NS, tableRequest('rt'), { vend: true }), 200, 'create');
  const location = created.metadata.location;
  const k = splitS3(location).key;
  const writer = vendedCredentials(created, location, { sts: true, ctx: 'create' });
  const s3 = s3Client(writer);
  const dataKey = `${k}/data/00000-0-${randomUUID()}.parquet`;
  const manifestListKey = `${k}/metadata/snap-7-1-${randomUUID()}.avro`;
  const data = randomBytes(4096);
  const manifestList = randomBytes(512);
  await putObject(b, dataKey, data, { s3 });
  await putObject(b, manifestListKey, manifestList, { s3 });

  const snapshot = {
    'snapshot-id': 7,
    'sequence-number': 1,
    'timestamp-ms': Date.now(),
    'manifest-list': `s3://${b}/${manifestListKey}`,
    summary: { operation: 'append', 'added-data-files': '1', 'added-records': '1' },
    'schema-id': 0,
  };
  const commit = await cat.ice.commitTable(NS, 'rt', {
    requirements: [
      { type: 'assert-table-uuid', uuid: created.metadata['table-uuid'] },
      { type: 'assert-ref-snapshot-id', ref: 'main', 'snapshot-id': null },
    ],
    updates: [
      { action: 'add-snapshot', snapshot },
      { action: 'set-snapshot-ref', 'ref-name': 'main', type: 'branch', 'snapshot-id': 7 },
    ],
  });
  assertStatus(commit, 200, 'append commit');

  const loaded = assertStatus(await cat.ice.loadTable(NS, 'rt', { vend: true }), 200, 'load');
  assert.equal(loaded.metadata['current-snapshot-id'], 7);
  const current = loaded.metadata.snapshots.find((s) => s['snapshot-id'] === 7);
  assert.equal(current['manifest-list'], snapshot['manifest-list']);
  const reader = vendedCredentials(assertStatus(await cat.ice.loadCredentials(NS, 'rt'), 200, 'loadCredentials'), location, {
    sts: true,
    ctx: 'loadCredentials',
  });
  const again = s3Client(reader);
  const mlKey = splitS3(current['manifest-list']).key;
  assert.deepEqual(await getBytes(b, mlKey, again), manifestList, 'manifest list read back');
  assert.deepEqual(await getBytes(b, dataKey, again), data, 'data file read back');
  // The metadata file the load points at is readable with them too.
  const md = JSON.parse((await getBytes(b, splitS3(loaded['metadata-location']).key, again)).toString('utf8'));
  assert.equal(md['current-snapshot-id'], 7);
  await assertNoSecretsServed(cat, secretsOf(writer, reader));
});

s3Test('STS: stage-create vends credentials for a validated location only', { vending: 'sts' }, async (cat) => {
  const b = cat.bucket;
  const bad = await cat.ice.createTable(NS, tableRequest('staged_bad', { 'stage-create': true, location: `s3://${b}/other/t` }), { vend: true });
  assert.equal(bad.status, 400, `a stage-create outside the storage: ${bad.status} ${bad.text.slice(0, 300)}`);
  assert.ok(!bad.text.includes('storage-credentials'), 'a refused stage-create carried credentials');
  const staged = await cat.ice.createTable(NS, tableRequest('staged', { 'stage-create': true }), { vend: true });
  assertStatus(staged, 200, 'stage-create');
  const location = staged.json.metadata.location;
  const creds = vendedCredentials(staged.json, location, { sts: true, ctx: 'stage-create' });
  const s3 = s3Client(creds);
  await putObject(b, `${splitS3(location).key}/data/staged.parquet`, 'rows', { s3 });
  await assertDenied(putObject(b, 'wh/other/evil.txt', 'x', { s3 }), 'staged credentials outside the table');
  assert.equal((await cat.ice.loadTable(NS, 'staged')).status, 404, 'a stage-create made a table');
  await assertNoSecretsServed(cat, secretsOf(creds));
});

/** A raw request to catalog `lake` (not validated: 406 is not in the spec for these routes). */
const rawTable = (cat, method, name, { body, vend = false, suffix = '' } = {}) =>
  call(cat.base, method, `/iceberg/v1/lake/namespaces/ns/tables${name ? `/${encodeURIComponent(name)}` : ''}${suffix}`, {
    body,
    headers: vend ? { 'X-Iceberg-Access-Delegation': 'vended-credentials' } : {},
  });

s3Test('STS: credentials for a location holding * or ? never reach a table the wildcard would match', { vending: 'sts' }, async (cat) => {
  const b = cat.bucket;
  const secrets = [];
  for (const [wild, victim] of [
    ['w*', 'wide'],
    ['q?', 'qx'],
  ]) {
    // The victim's key matches the other location read as a pattern: `w*` ~ `wide`.
    const victimKey = `wh/lake/ns/${victim}`;
    assertStatus(await cat.ice.createTable(NS, tableRequest(victim, { location: `s3://${b}/${victimKey}` })), 200, `create ${victim}`);
    const created = await cat.ice.createTable(NS, tableRequest(`t_${victim}`, { location: `s3://${b}/wh/lake/ns/${wild}` }));
    if (created.status === 400) continue; // refusing such a location is safe too
    assertStatus(created, 200, `create at ${wild}`);
    for (const [how, res] of [
      ['load', await rawTable(cat, 'GET', `t_${victim}`, { vend: true })],
      ['loadCredentials', await rawTable(cat, 'GET', `t_${victim}`, { suffix: '/credentials' })],
    ]) {
      if (res.status >= 400 && res.status < 500) continue; // refusing to vend is safe
      assert.equal(res.status, 200, `${how} of ${wild}: ${res.status} ${res.text.slice(0, 300)}`);
      const creds = vendedCredentials(res.json, created.json.metadata.location, { sts: true, ctx: `${how} ${wild}` });
      secrets.push(creds);
      const s3 = s3Client(creds);
      await putObject(b, `wh/lake/ns/${wild}/data/ok.txt`, 'inside', { s3 });
      await assertDenied(putObject(b, `${victimKey}/data/evil.txt`, 'x', { s3 }), `credentials of ${wild} writing into ${victim}`);
    }
  }
  await assertNoSecretsServed(cat, secretsOf(...secrets));
});

// A table named so that no session policy can confine it (Ceph RGW knows no escape for `*`)
// can still be created: the create answers without credentials (the spec lets the server
// supply none), and asking for them later says why, as a client error.
s3Test(
  'STS: a table whose name no policy can confine is created without credentials; asking for them is a 400',
  { vending: 'sts' },
  async (cat) => {
    const res = await rawTable(cat, 'POST', '', { body: tableRequest('tw', { location: `s3://${cat.bucket}/wh/lake/ns/w*` }), vend: true });
    assertStatus(res, 200, 'create');
    const list = res.json['storage-credentials'];
    assert.ok(list === undefined || list.length === 0, `credentials vended for a wildcard name: ${JSON.stringify(list)}`);
    assert.ok(!('s3.session-token' in (res.json.config ?? {})), 'credentials in config');
    for (const [what, answer] of [
      ['load', await rawTable(cat, 'GET', 'tw', { vend: true })],
      ['loadCredentials', await rawTable(cat, 'GET', 'tw', { suffix: '/credentials' })],
    ]) {
      assert.equal(answer.status, 400, `${what}: ${answer.status} ${answer.text}`);
      assert.match(answer.text, /Cannot vend credentials/, what);
    }
    assertStatus(await rawTable(cat, 'GET', 'tw'), 200, 'load without credentials');
  },
);

for (const vending of ['sts', 'static']) {
  s3Test(
    `${vending}: a create that vends credentials answers Cache-Control: no-store`,
    { vending },
    async (cat) => {
      const created = await cat.ice.createTable(NS, tableRequest('t'), { vend: true });
      assertStatus(created, 200, 'create');
      assert.ok(created.json['storage-credentials']?.length > 0, 'no credentials vended');
      assert.equal(created.headers['cache-control'], 'no-store', 'a create with credentials must not be cached');
      assert.equal(created.headers.etag, undefined, 'a create with credentials must not carry an ETag');
    },
  );
}

// =============================================================================================
// 5. Static vending

s3Test('static vending: a warning at start; storage-credentials carry the storage keys, no session token', { vending: 'static' }, async (cat) => {
  assert.match(cat.log(), /static[^\n]*development|development[^\n]*static/i, 'no warning about static vending at start');
  const { accessKeyId, secretAccessKey } = userCredentials();
  const created = await cat.ice.createTable(NS, tableRequest('t'), { vend: true });
  assertStatus(created, 200, 'create');
  const location = created.json.metadata.location;
  const refreshed = assertStatus(await cat.ice.loadCredentials(NS, 't'), 200, 'loadCredentials');
  const loaded = await cat.ice.loadTable(NS, 't', { vend: true });
  assertStatus(loaded, 200, 'load');
  for (const [from, body] of [['create', created.json], ['load', loaded.json], ['loadCredentials', refreshed]]) {
    const creds = vendedCredentials(body, location, { sts: false, ctx: from });
    assert.equal(creds.accessKeyId, accessKeyId, `${from}: not the storage's key`);
    assert.equal(creds.secretAccessKey, secretAccessKey, `${from}: not the storage's secret`);
    assert.ok(!('s3.session-token' in body['storage-credentials'][0].config), `${from}: a session token in static mode`);
  }
  const s3 = s3Client(vendedCredentials(refreshed, location, { sts: false, ctx: 'use' }));
  await putObject(cat.bucket, `${splitS3(location).key}/data/x.txt`, 'x', { s3 });
  await assertNoSecretsServed(cat, secretsOf());
});

// =============================================================================================
// 6. No vending

s3Test('no vending (default): the delegation header is ignored, loadCredentials answers an empty list', {}, async (cat) => {
  const created = await cat.ice.createTable(NS, tableRequest('t'), { vend: true });
  assertStatus(created, 200, 'create');
  const loaded = await cat.ice.loadTable(NS, 't', { vend: true });
  assertStatus(loaded, 200, 'load');
  for (const [from, res] of [['create', created], ['load', loaded]]) {
    const list = res.json['storage-credentials'];
    assert.ok(list === undefined || (Array.isArray(list) && list.length === 0), `${from}: storage-credentials ${JSON.stringify(list)}`);
    for (const key of ['s3.access-key-id', 's3.secret-access-key', 's3.session-token']) {
      assert.ok(!(key in (res.json.config ?? {})), `${from}: config carries ${key}`);
    }
  }
  const creds = assertStatus(await cat.ice.loadCredentials(NS, 't'), 200, 'loadCredentials');
  assert.deepEqual(creds['storage-credentials'], []);
  await assertNoSecretsServed(cat, secretsOf());
});

// =============================================================================================
// Idempotent retries never replay (or store) credentials

s3Test('STS: an idempotent create is replayed without credentials, and the store never holds them', { vending: 'sts' }, async (cat) => {
  const headers = { 'X-Iceberg-Access-Delegation': 'vended-credentials', 'Idempotency-Key': randomUUID() };
  const path = '/iceberg/v1/lake/namespaces/ns/tables';
  const first = await call(cat.base, 'POST', path, { body: tableRequest('idem'), headers });
  assertStatus(first, 200, 'create');
  const creds = first.json['storage-credentials'][0].config;
  assert.ok(creds['s3.secret-access-key'], 'no credentials on the first answer');
  const retry = await call(cat.base, 'POST', path, { body: tableRequest('idem'), headers });
  assertStatus(retry, 200, 'retry');
  assert.equal(retry.headers['idempotent-replayed'], 'true');
  assert.equal(retry.json['metadata-location'], first.json['metadata-location']);
  assert.equal(retry.json['storage-credentials'], undefined, 'credentials replayed');
  assert.ok(!('s3.secret-access-key' in retry.json.config), 'credentials replayed in config');
  await cat.server.stop();
  for (const file of fs.readdirSync(cat.server.dataDir).filter((f) => f.startsWith('cairn.db'))) {
    const bytes = fs.readFileSync(`${cat.server.dataDir}/${file}`).toString('latin1');
    assertNoSecretIn(bytes, [creds['s3.secret-access-key'], creds['s3.session-token'], userCredentials().secretAccessKey], file);
  }
});
