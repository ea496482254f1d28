// Table maintenance through the management route (issue 17): snapshot expiration with a
// dry run, through the commit path, deleting only what no remaining snapshot references —
// and never losing what a concurrent writer commits.
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

import { call, describeResponse } from './lib/http.mjs';
import { assertManagementAnswer } from './lib/management_spec.mjs';
import { mustCommit, mustLoad, startCatalog } from './lib/files.mjs';
import { appendSnapshot, appendWithRetries } from './lib/iceberg_snapshots.mjs';

// The route as docs/management-api.yaml names it: answers are checked against it.
const EXPIRE_TEMPLATE =
  '/management/v1/catalogs/{catalog}/namespaces/{namespace}/tables/{table}/maintenance/expire-snapshots';

let cat;
before(async () => { cat = await startCatalog(); });
after(async () => { await cat?.cleanup(); });

const exists = (location) => existsSync(fileURLToPath(location));
const expireUrl = (table) => `/management/v1/catalogs/default/namespaces/ns/tables/${table}/maintenance/expire-snapshots`;

async function expire(table, body) {
  const res = assertManagementAnswer('POST', EXPIRE_TEMPLATE, await call(cat.base, 'POST', expireUrl(table), { body, timeoutMs: 60_000 }));
  assert.equal(res.status, 200, `expire ${table} ${JSON.stringify(body)}: ${describeResponse(res)}`);
  return res.json;
}

async function createTable(name) {
  const res = await cat.ice.createTable(['ns'], {
    name, schema: { type: 'struct', 'schema-id': 0, fields: [{ id: 1, name: 'id', type: 'long', required: true }] },
  });
  assert.equal(res.status, 200, describeResponse(res));
  return res.json.metadata;
}

test('expiration removes old snapshots and only the files no remaining snapshot reads; a dry run changes nothing', async () => {
  let metadata = await createTable('history');
  const loc = metadata.location;
  // s1 adds f1; s2 replaces it by f2 (its manifest lists f1 as deleted, s1's manifest is
  // dropped); s3 adds f3. Expiration keeps what is newer than a moment between s2 and s3
  // (`older-than-ms`; a commit cannot backdate a snapshot to make it old).
  const s1 = await appendSnapshot(metadata, [{ path: `${loc}/data/f1.parquet`, records: 1 }]);
  await mustCommit(cat, 'history', s1.commit);
  metadata = (await mustLoad(cat, 'history')).metadata;
  const s2 = await appendSnapshot(metadata, [
    { path: `${loc}/data/f1.parquet`, records: 1, status: 2, snapshotId: s1.id, sequenceNumber: 1 },
    { path: `${loc}/data/f2.parquet`, records: 1 },
  ], { operation: 'replace' });
  await mustCommit(cat, 'history', s2.commit);
  await new Promise((r) => setTimeout(r, 5));
  const between = Date.now();
  await new Promise((r) => setTimeout(r, 5));
  metadata = (await mustLoad(cat, 'history')).metadata;
  const s3 = await appendSnapshot(metadata, [{ path: `${loc}/data/f3.parquet`, records: 1 }], { previous: s2.manifests });
  await mustCommit(cat, 'history', s3.commit);
  const gone = [`${loc}/data/f1.parquet`, s1.manifest, s1.list, s2.list];
  const stay = [`${loc}/data/f2.parquet`, `${loc}/data/f3.parquet`, s2.manifest, s3.manifest, s3.list];

  // With the defaults (5 days) nothing is old enough yet.
  assert.deepEqual((await expire('history', { 'dry-run': true }))['expired-snapshot-ids'], []);
  const dry = await expire('history', { 'dry-run': true, 'older-than-ms': between });
  assert.equal(dry['dry-run'], true);
  assert.deepEqual(dry['expired-snapshot-ids'].map(String).sort(), [String(s1.id), String(s2.id)].sort());
  assert.equal(dry['file-count'], 4, JSON.stringify(dry));
  assert.deepEqual([...dry.files].sort(), gone.sort());
  for (const file of [...gone, ...stay]) assert.ok(exists(file), `a dry run deleted ${file}`);
  assert.equal((await mustLoad(cat, 'history')).metadata.snapshots.length, 3);

  const done = await expire('history', { 'older-than-ms': between });
  assert.equal(done['dry-run'], false);
  assert.equal(done['file-count'], 4);
  for (const file of gone) assert.ok(!exists(file), `expiration left ${file}`);
  for (const file of stay) assert.ok(exists(file), `expiration deleted ${file}, which s3 reads`);
  const after = (await mustLoad(cat, 'history')).metadata;
  assert.deepEqual(after.snapshots.map((s) => s['snapshot-id']), [s3.id]);
  // Nothing left to expire: a second run is a no-op.
  const again = await expire('history', { 'older-than-ms': between });
  assert.deepEqual(again['expired-snapshot-ids'], []);
  assert.equal(again['file-count'], 0);
});

test('expiration beside a concurrent writer loses none of its commits or files', async () => {
  await createTable('busy');
  let writing = true;
  const writer = appendWithRetries(cat, 'busy', 12).finally(() => { writing = false; });
  let runs = 0;
  while (writing) {
    const res = await call(cat.base, 'POST', expireUrl('busy'), { body: { 'older-than-ms': Date.now(), 'retain-last': 1 } });
    assert.ok(res.status === 200 || res.status === 409, describeResponse(res));
    runs++;
  }
  const written = await writer;
  await expire('busy', { 'older-than-ms': Date.now(), 'retain-last': 1 });
  assert.ok(runs > 0);
  // Every file the writer committed is in the table's current snapshot and on disk.
  const plan = await call(cat.base, 'POST', '/iceberg/v1/default/namespaces/ns/tables/busy/plan', { body: {} });
  assert.equal(plan.status, 200, describeResponse(plan));
  const planned = plan.json['file-scan-tasks'].map((t) => t['data-file']['file-path']).sort();
  assert.deepEqual(planned, [...written].sort());
  for (const file of written) assert.ok(exists(file), `lost ${file}`);
});

test('mistakes are 400; an unknown table is 404', async () => {
  await createTable('plain');
  for (const body of [{ 'retain-last': 0 }, { 'dry-run': 'yes' }, { 'older-than-ms': 'soon' }]) {
    const res = assertManagementAnswer('POST', EXPIRE_TEMPLATE, await call(cat.base, 'POST', expireUrl('plain'), { body }));
    assert.equal(res.status, 400, `${JSON.stringify(body)}: ${describeResponse(res)}`);
  }
  const missing = await call(cat.base, 'POST', expireUrl('nope'), { body: {} });
  assert.equal(missing.status, 404);
  assert.equal(missing.json.error.type, 'NoSuchTableException');
});
