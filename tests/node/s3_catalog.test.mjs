// Iceberg tables on S3, end to end (issue 14, items 1-2 and "Faults"): a real Cairn server
// whose catalog `lake` keeps its tables on the test S3 server (Ceph RGW, scripts/lib/rgw.sh),
// driven by the iceberg-js client and raw requests, and checked with an independent S3 client
// (@aws-sdk/client-s3): metadata files at the keys the catalog answers, nothing overwritten,
// confinement to the storage's locations, purge deleting exactly the table's objects, 503 when
// the storage cannot be reached, and the start-up checks of the storage configuration.
// Vended credentials are in s3_vending.test.mjs. Skipped without CAIRN_TEST_S3_ENDPOINT.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { IcebergRestCatalog } from 'iceberg-js';
import { appendCommit } from './lib/catalog.mjs';
import { call } from './lib/http.mjs';
import { makeTempDir, removeDir, runCairn } from './lib/server.mjs';
import { assertIcebergError } from './lib/spec.mjs';
import { waitFor } from './lib/wait.mjs';
import { s3Available, S3_SKIP_MESSAGE, createBucket, listKeys, putObject, getObject, userCredentials } from './lib/s3.mjs';
import {
  KEY_ENV,
  SECRET_ENV,
  assertNoSecretIn,
  assertStatus,
  closedPort,
  splitS3,
  s3Test,
  withS3Catalog,
  storageToml,
  tcpProxy,
} from './lib/s3_catalog.mjs';

const NS = ['ns'];
const schema = {
  type: 'struct',
  'schema-id': 0,
  fields: [
    { id: 1, name: 'id', type: 'long', required: true },
    { id: 2, name: 'payload', type: 'string', required: false },
  ],
};
const tableRequest = (name, extra = {}) => ({ name, schema, ...extra });
const setProperties = (updates) => ({ requirements: [], updates: [{ action: 'set-properties', updates }] });

/** Asserts the storage part of a LoadTableResult's `config`: how to reach RGW, and no secret. */
function assertStorageConfig(config, ctx) {
  assert.equal(config['s3.endpoint'], process.env.CAIRN_TEST_S3_ENDPOINT, `${ctx}: s3.endpoint in ${JSON.stringify(config)}`);
  assert.equal(config['client.region'], process.env.CAIRN_TEST_S3_REGION || 'us-east-1', `${ctx}: client.region`);
  assert.equal(config['s3.path-style-access'], 'true', `${ctx}: s3.path-style-access`);
  for (const key of ['s3.access-key-id', 's3.secret-access-key', 's3.session-token']) {
    assert.ok(!(key in config), `${ctx}: config carries ${key} without vending`);
  }
  assertNoSecretIn(JSON.stringify(config), [userCredentials().secretAccessKey], ctx);
}

/** The metadata file at `location`, read with the independent client and parsed. */
async function readMetadata(location) {
  const { bucket, key } = splitS3(location);
  const text = await getObject(bucket, key);
  return { text, json: JSON.parse(text) };
}

// =============================================================================================
// 1. Tables on S3 with iceberg-js

s3Test('iceberg-js: create, commit and load a table on S3; metadata files at the answered keys, none overwritten', {}, async (cat) => {
  const client = new IcebergRestCatalog({ baseUrl: `${cat.base}/iceberg`, warehouse: 'lake', auth: { type: 'none' } });
  const ns = { namespace: ['js'] };
  await client.createNamespace(ns);
  const id = { namespace: ns.namespace, name: 'events' };

  const created = await client.createTableResult(ns, { name: 'events', schema, properties: { owner: 'e2e' } });
  const location = created.metadata.location;
  assert.ok(location.startsWith(`s3://${cat.bucket}/wh/lake/`), `table location ${location} is not under the warehouse`);
  assert.ok(created['metadata-location'].startsWith(`${location}/metadata/`), created['metadata-location']);
  assertStorageConfig(created.config ?? {}, 'create');
  const first = await readMetadata(created['metadata-location']);
  assert.equal(first.json['table-uuid'], created.metadata['table-uuid']);
  assert.equal(first.json.location, location);
  assert.deepEqual(first.json, created.metadata);

  // An append (add-snapshot + set-snapshot-ref) and a property change.
  const appended = await client.updateTable(id, appendCommit(created.metadata, 101));
  const props = await client.commitTable(id, setProperties({ 'commit.count': '2' }));
  for (const [i, c] of [appended, props].entries()) {
    assert.match(c['metadata-location'], new RegExp(`^${location}/metadata/0000${i + 1}-[0-9a-f-]{36}\\.metadata\\.json$`));
    const file = await readMetadata(c['metadata-location']);
    assert.deepEqual(file.json, c.metadata, `metadata file ${c['metadata-location']} differs from the commit's answer`);
    assert.equal(file.json['table-uuid'], created.metadata['table-uuid']);
  }
  assert.equal(props.metadata['current-snapshot-id'], 101);
  assert.equal(props.metadata.properties['commit.count'], '2');

  // The first file is still what the create wrote; the metadata dir holds exactly the three.
  assert.equal((await readMetadata(created['metadata-location'])).text, first.text, 'the first metadata file was overwritten');
  const { bucket, key } = splitS3(location);
  const expected = [created, appended, props].map((r) => splitS3(r['metadata-location']).key).sort();
  assert.deepEqual((await listKeys(bucket, `${key}/`)).sort(), expected);

  const loaded = await client.loadTableResult(id);
  assert.equal(loaded['metadata-location'], props['metadata-location']);
  assert.deepEqual(loaded.metadata, props.metadata);
  assertStorageConfig(loaded.config ?? {}, 'load');
  assert.ok(!loaded['storage-credentials']?.length, `storage-credentials without delegation: ${JSON.stringify(loaded['storage-credentials'])}`);
});

// =============================================================================================
// 2. Confinement

s3Test('a create outside the storage locations is refused with 400 and writes nothing', {}, async (cat) => {
  const other = await createBucket();
  const b = cat.bucket;
  const cases = [
    ['another bucket', `s3://${other}/wh/lake/ns/t`],
    ['outside the storage, same bucket', `s3://${b}/other/t`],
    ['a sibling prefix wh2', `s3://${b}/wh2/lake/t`],
    ['the storage location itself with a suffix', `s3://${b}/whx`],
    ['.. leading out', `s3://${b}/wh/lake/../../other/t`],
    ['.. inside', `s3://${b}/wh/lake/ns/../t`],
    ['// inside', `s3://${b}/wh/lake//t`],
    ['// after the bucket', `s3://${b}//wh/lake/t`],
  ];
  const accepted = [];
  for (const [how, location] of cases) {
    const res = await cat.ice.createTable(NS, tableRequest(`t_${accepted.length}_${how.replace(/\W+/g, '_')}`, { location }));
    if (res.status !== 400) {
      accepted.push(`${how} (${location}): HTTP ${res.status} ${res.text.slice(0, 200)}`);
      continue;
    }
    const err = assertIcebergError(res, 400);
    assertNoSecretIn(res.text, [userCredentials().secretAccessKey], `${how}: error body`);
    assert.ok(err.message.length < 1000, `${how}: a long message`);
  }
  assert.deepEqual(accepted, [], 'creates outside the storage locations were not refused');
  assert.deepEqual(await listKeys(b), [], 'a refused create wrote objects');
  assert.deepEqual(await listKeys(other), [], 'a refused create wrote into another bucket');
});

s3Test('a commit that only moves write.metadata.path out of the storage is refused; the store keeps the old file', {}, async (cat) => {
  const other = await createBucket();
  const created = assertStatus(await cat.ice.createTable(NS, tableRequest('t')), 200, 'create');
  const before = await listKeys(cat.bucket);
  const targets = [`s3://${other}/md`, `s3://${cat.bucket}/other/md`, `s3://${cat.bucket}/wh2/md`, `s3://${cat.bucket}/wh/lake/../../x`];
  for (const target of targets) {
    const res = await cat.ice.commitTable(NS, 't', setProperties({ 'write.metadata.path': target }));
    assert.equal(res.status, 400, `write.metadata.path = ${target}: ${res.status} ${res.text.slice(0, 300)}`);
    assertIcebergError(res, 400);
    const loaded = assertStatus(await cat.ice.loadTable(NS, 't'), 200, 'load');
    assert.equal(loaded['metadata-location'], created['metadata-location'], `after ${target}: the store moved`);
  }
  assert.deepEqual(await listKeys(cat.bucket), before, 'a refused commit wrote objects');
  assert.deepEqual(await listKeys(other), [], 'a refused commit wrote into another bucket');
  // Inside the table's own location it is accepted, and the file lands there.
  const inside = `${created.metadata.location}/md2`;
  const ok = assertStatus(await cat.ice.commitTable(NS, 't', setProperties({ 'write.metadata.path': inside })), 200, 'inside');
  assert.ok(ok['metadata-location'].startsWith(`${inside}/`), ok['metadata-location']);
  await readMetadata(ok['metadata-location']);
});

// =============================================================================================
// 3. Purge

s3Test('drop with purgeRequested deletes every object of the table and nothing of its neighbours', {}, async (cat) => {
  const t1 = assertStatus(await cat.ice.createTable(NS, tableRequest('t1')), 200, 'create t1');
  const t2 = assertStatus(await cat.ice.createTable(NS, tableRequest('t2')), 200, 'create t2');
  await cat.ice.commitTable(NS, 't1', setProperties({ a: '1' }));
  const k1 = splitS3(t1.metadata.location).key;
  const k2 = splitS3(t2.metadata.location).key;
  // Data of t1 (as an engine would write it), a neighbour sharing t1's key as a string
  // prefix, and an object elsewhere in the storage.
  await putObject(cat.bucket, `${k1}/data/00000-0.parquet`, 'rows');
  await putObject(cat.bucket, `${k1}-x/data/keep.parquet`, 'neighbour');
  await putObject(cat.bucket, 'wh/other/keep.txt', 'other');
  const all = await listKeys(cat.bucket);
  const of = (k) => all.filter((x) => x.startsWith(`${k}/`));
  assert.ok(of(k1).length >= 3, `t1 objects: ${of(k1)}`);
  const kept = all.filter((x) => !x.startsWith(`${k1}/`));

  const res = await cat.ice.dropTable(NS, 't1', true);
  assert.equal(res.status, 204, `drop with purge: ${res.status} ${res.text}`);
  await waitFor(async () => (await listKeys(cat.bucket, `${k1}/`)).length === 0, {
    timeoutMs: 15_000,
    what: `every object under ${k1}/ deleted`,
  });
  assert.deepEqual(await listKeys(cat.bucket), kept, 'purge deleted objects outside the table');
  assert.ok(kept.some((x) => x.startsWith(`${k2}/metadata/`)), 'the other table keeps its metadata');
  assertStatus(await cat.ice.loadTable(NS, 't2'), 200, 'load t2');
  assert.equal((await cat.ice.loadTable(NS, 't1')).status, 404);
});

s3Test('purge of a table with more objects than one DeleteObjects request takes (1,000)', {}, async (cat) => {
  const t = assertStatus(await cat.ice.createTable(NS, tableRequest('big')), 200, 'create');
  const k = splitS3(t.metadata.location).key;
  const keys = Array.from({ length: 1005 }, (_, i) => `${k}/data/part-${String(i).padStart(5, '0')}.parquet`);
  for (let i = 0; i < keys.length; i += 50) {
    await Promise.all(keys.slice(i, i + 50).map((key) => putObject(cat.bucket, key, 'x')));
  }
  await putObject(cat.bucket, `${k}-x/keep.parquet`, 'neighbour');
  assert.ok((await listKeys(cat.bucket, `${k}/`)).length > 1005);
  const res = await cat.ice.dropTable(NS, 'big', true);
  assert.equal(res.status, 204, `drop with purge: ${res.status} ${res.text}`);
  await waitFor(async () => (await listKeys(cat.bucket, `${k}/`)).length === 0, {
    timeoutMs: 30_000,
    what: `every object under ${k}/ deleted`,
  });
  assert.deepEqual(await listKeys(cat.bucket), [`${k}-x/keep.parquet`]);
});

// =============================================================================================
// 8. Faults

// =============================================================================================
// 8. Faults

/** Short timeouts and one retry: a storage that cannot be reached fails fast. */
const FAST = { 'request-timeout-ms': 2000, 'connect-timeout-ms': 1000, 'max-retries': 1 };

/** A test whose server has one more storage and catalog, made by `setup()` (resolves with {toml, ...}). */
function faultTest(name, setup, fn) {
  test(name, { timeout: 60_000 }, async (t) => {
    if (!s3Available()) return t.skip(S3_SKIP_MESSAGE);
    const extra = await setup();
    try {
      await withS3Catalog({ moreToml: extra.toml, args: extra.args }, (cat) => fn(cat, extra));
    } finally {
      await extra.close?.();
    }
  });
}

faultTest(
  'a storage on a closed port: create answers 503 in the Iceberg shape, and the table does not exist',
  async () => {
    const port = await closedPort();
    const bucket = `cairn-down-${process.pid}-${Date.now()}`;
    return {
      toml: storageToml('down', {
        endpoint: `http://127.0.0.1:${port}`,
        locations: [`s3://${bucket}/wh`],
        warehouse: `s3://${bucket}/wh/down`,
        extra: FAST,
      }),
    };
  },
  async (cat) => {
    const down = cat.api('down');
    assertStatus(await down.createNamespace(NS), 200, 'create namespace on the down catalog');
    const res = await down.createTable(NS, tableRequest('t'));
    assertIcebergError(res, 503, 'ServiceUnavailableException');
    assertNoSecretIn(res.text, [userCredentials().secretAccessKey], 'the 503 body');
    const load = await down.loadTable(NS, 't');
    assertIcebergError(load, 404, 'NoSuchTableException');
    // The other catalog is not affected.
    assertStatus(await cat.ice.createTable(NS, tableRequest('t')), 200, 'create on the working catalog');
  },
);

/** Another storage `name` (FAST client settings unless `extra`), with a catalog of that name, on a fresh bucket reached through a tcpProxy. */
async function flakyStorage(name = 'flaky', extra = FAST) {
  const proxy = await tcpProxy(process.env.CAIRN_TEST_S3_ENDPOINT);
  const bucket = await createBucket();
  return {
    proxy,
    bucket,
    close: () => proxy.stop(),
    toml: storageToml(name, {
      endpoint: proxy.url(),
      locations: [`s3://${bucket}/wh`],
      warehouse: `s3://${bucket}/wh/${name}`,
      extra,
    }),
  };
}

faultTest(
  'storage unreachable during a commit: 503, the store keeps the old metadata, and after it is back a commit succeeds',
  flakyStorage,
  async (cat, { proxy, bucket }) => {
    const flaky = cat.api('flaky');
    assertStatus(await flaky.createNamespace(NS), 200, 'create namespace');
    const created = assertStatus(await flaky.createTable(NS, tableRequest('t')), 200, 'create through the proxy');
    await readMetadata(created['metadata-location']);
    const objects = await listKeys(bucket);

    await proxy.stop();
    const res = await flaky.commitTable(NS, 't', setProperties({ during: 'outage' }));
    assertIcebergError(res, 503, 'ServiceUnavailableException');
    assertNoSecretIn(res.text, [userCredentials().secretAccessKey], 'the 503 body');
    const during = assertStatus(await flaky.loadTable(NS, 't'), 200, 'load during the outage');
    assert.equal(during['metadata-location'], created['metadata-location'], 'the store moved during the outage');

    await proxy.start();
    const after = assertStatus(await flaky.loadTable(NS, 't'), 200, 'load after the outage');
    assert.equal(after['metadata-location'], created['metadata-location']);
    assert.ok(!('during' in after.metadata.properties), 'the failed commit left its change');
    assert.deepEqual(await listKeys(bucket), objects, 'a refused connection still wrote an object');
    const ok = assertStatus(await flaky.commitTable(NS, 't', setProperties({ after: 'outage' })), 200, 'commit after the outage');
    assert.equal((await readMetadata(ok['metadata-location'])).json.properties.after, 'outage');
    const reloaded = assertStatus(await flaky.loadTable(NS, 't'), 200, 'load');
    assert.equal(reloaded['metadata-location'], ok['metadata-location']);
  },
);

faultTest(
  'a metadata PUT that lands but whose answer never comes: 503, the store keeps the old metadata, and the orphan is swept',
  // The sweep runs every second and deletes orphans recorded over a second ago.
  async () => ({ ...(await flakyStorage()), args: ['--orphan-file-grace-s', '1', '--orphan-sweep-interval-s', '1'] }),
  async (cat, { proxy, bucket }) => {
    const flaky = cat.api('flaky');
    assertStatus(await flaky.createNamespace(NS), 200, 'create namespace');
    const created = assertStatus(await flaky.createTable(NS, tableRequest('t')), 200, 'create through the proxy');
    const before = await listKeys(bucket);

    proxy.dropResponses(true);
    const res = await flaky.commitTable(NS, 't', setProperties({ during: 'timeout' }));
    assertIcebergError(res, 503, 'ServiceUnavailableException');
    proxy.dropResponses(false);

    const after = assertStatus(await flaky.loadTable(NS, 't'), 200, 'load after the timeout');
    assert.equal(after['metadata-location'], created['metadata-location'], 'the store moved to a file whose PUT timed out');
    assert.ok(!('during' in after.metadata.properties));
    // The request went through: its metadata file landed, an orphan the store does not name.
    const landed = (await listKeys(bucket)).filter((k) => !before.includes(k));
    assert.equal(landed.length, 1, `objects written by the failed commit: ${landed}`);
    assert.match(landed[0], /\/metadata\/00001-[0-9a-f-]{36}\.metadata\.json$/);
    const ok = assertStatus(await flaky.commitTable(NS, 't', setProperties({ after: 'timeout' })), 200, 'commit after the timeout');
    assert.ok(!landed.includes(splitS3(ok['metadata-location']).key), 'the next commit reused the orphan');
    assert.equal((await readMetadata(ok['metadata-location'])).json.properties.after, 'timeout');

    // The sweep deletes the orphan, and nothing else.
    const deadline = Date.now() + 20_000;
    let keys = await listKeys(bucket);
    while (keys.includes(landed[0]) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      keys = await listKeys(bucket);
    }
    assert.ok(!keys.includes(landed[0]), `the orphan ${landed[0]} was not swept within 20 s`);
    for (const kept of [created['metadata-location'], ok['metadata-location']]) {
      assert.ok(keys.includes(splitS3(kept).key), `the sweep deleted ${kept}`);
    }
    assert.deepEqual(keys.filter((k) => !before.includes(k) && k !== splitS3(ok['metadata-location']).key), []);
    assert.match(cat.log(), /deleted 1 unreferenced metadata file/);
    assertStatus(await flaky.loadTable(NS, 't'), 200, 'load after the sweep');
  },
);

faultTest(
  'SIGTERM while a commit waits on a storage that never answers: the server exits after its grace period, not the S3 timeouts',
  // Retries: without the stop at the end of the grace period, the worker would wait out
  // 1 + 3 attempts (each cut after 10 s of silence by the client's low-speed check) before
  // the process could exit; the test's helper kills a server still running after 10 s.
  async () => ({
    ...(await flakyStorage('slow', { 'request-timeout-ms': 30000, 'max-retries': 3 })),
    args: ['--shutdown-grace-ms', '1000'],
  }),
  async (cat, { proxy, bucket }) => {
    const slow = cat.api('slow');
    assertStatus(await slow.createNamespace(NS), 200, 'create namespace');
    assertStatus(await slow.createTable(NS, tableRequest('t')), 200, 'create through the proxy');
    const before = await listKeys(bucket);
    proxy.dropResponses(true);
    const commit = slow.commitTable(NS, 't', setProperties({ during: 'shutdown' }));
    // The PUT has landed; its answer never comes, so the commit waits in the server.
    await waitFor(async () => (await listKeys(bucket)).length > before.length, { timeoutMs: 10_000, what: 'the PUT' });
    const started = Date.now();
    const code = await cat.server.stop('SIGTERM');
    const took = Date.now() - started;
    assert.equal(code, 0, `exit code after SIGTERM (null: killed after the helper's timeout)`);
    assert.ok(took < 10_000, `the server took ${took} ms to stop with a 1 s grace period`);
    assert.match(cat.log(), /shutdown grace period over with 1 request\(s\) still in flight/);
    // The aborted commit is answered before the server goes: a 503 that says why, and
    // (the store untouched) the client may retry it against the next server.
    const res = await commit;
    assertIcebergError(res, 503, 'ServiceUnavailableException');
    assert.match(res.text, /aborted: the server is stopping/);
  },
);

// =============================================================================================
// 9. /v1/config and start-up checks

s3Test('/v1/config advertises loadCredentials; /metrics and /v1/config hold no secret', {}, async (cat) => {
  const res = assertStatus(await cat.ice.config(), 200, '/v1/config');
  assert.ok(
    res.endpoints.includes('GET /v1/{prefix}/namespaces/{namespace}/tables/{table}/credentials'),
    `loadCredentials is not advertised: ${JSON.stringify(res.endpoints)}`,
  );
  const secret = userCredentials().secretAccessKey;
  const plain = await call(cat.base, 'GET', '/v1/config');
  const metrics = await call(cat.base, 'GET', '/metrics');
  assert.equal(metrics.status, 200);
  for (const [what, text] of [
    ['/v1/config?warehouse=lake', JSON.stringify(res)],
    ['/v1/config', plain.text],
    ['/metrics', metrics.text],
  ]) {
    assertNoSecretIn(text, [secret], what);
  }
});

/** Runs `cairn serve` with `toml` and `env` to completion (it must fail at start). */
async function failedStart(toml, env) {
  const dir = makeTempDir('cairn-s3-start-');
  try {
    const file = path.join(dir, 'cairn.toml');
    writeFileSync(file, toml);
    return await runCairn(['serve', '--listen', '127.0.0.1:0', '--data-dir', path.join(dir, 'data'), '--config', file], { env });
  } finally {
    removeDir(dir);
  }
}

test('a storage whose key variable is unset: the start fails with one line naming it, and no secret', { timeout: 60_000 }, async (t) => {
  if (!s3Available()) return t.skip(S3_SKIP_MESSAGE);
  const { accessKeyId, secretAccessKey } = userCredentials();
  const toml = storageToml('lake', {
    endpoint: process.env.CAIRN_TEST_S3_ENDPOINT,
    locations: ['s3://cairn-start/wh'],
    warehouse: 's3://cairn-start/wh/lake',
  });
  const cases = [
    [SECRET_ENV, { [KEY_ENV]: accessKeyId }],
    [KEY_ENV, { [SECRET_ENV]: secretAccessKey }],
  ];
  for (const [missing, env] of cases) {
    const out = await failedStart(toml, env);
    const ctx = `${missing} unset: exit ${out.code}, stdout ${JSON.stringify(out.stdout)}, stderr ${JSON.stringify(out.stderr)}`;
    assert.ok(!out.timedOut, `${ctx}: the server did not stop`);
    assert.notEqual(out.code, 0, ctx);
    const lines = out.stderr.split('\n').filter((l) => l.trim() !== '');
    assert.equal(lines.length, 1, `${ctx}: expected one line`);
    assert.ok(lines[0].includes(missing), `${ctx}: the message does not name the variable`);
    assertNoSecretIn(out.stdout + out.stderr, [secretAccessKey], ctx);
  }
});
