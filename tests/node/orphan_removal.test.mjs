// Orphan-file removal and scheduled maintenance (issue 17): files under a table's location
// that nothing references and that are older than the threshold go, with a dry run that
// reports them; referenced files (in any URI form), young files, and what a concurrent
// writer commits stay. A catalog with maintenance properties gets both on its schedule.
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, utimesSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { call, describeResponse } from './lib/http.mjs';
import { assertManagementAnswer } from './lib/management_spec.mjs';
import { icebergApi, mustCommit, mustLoad, startCatalog } from './lib/files.mjs';
import { appendSnapshot, appendWithRetries, writeAt } from './lib/iceberg_snapshots.mjs';
import { makeTempDir, removeDir, startServer } from './lib/server.mjs';
import { waitFor } from './lib/wait.mjs';

const DAY_MS = 24 * 3600 * 1000;
const pathOf = (location) => (location.startsWith('file:') ? fileURLToPath(location) : location);
const exists = (location) => existsSync(pathOf(location));
// Sets a file's modification time to `ms` (since the epoch).
const backdate = (location, ms) => utimesSync(pathOf(location), ms / 1000, ms / 1000);

// The route as docs/management-api.yaml names it: answers are checked against it.
const REMOVE_TEMPLATE =
  '/management/v1/catalogs/{catalog}/namespaces/{namespace}/tables/{table}/maintenance/remove-orphan-files';

let cat;
before(async () => { cat = await startCatalog({ args: ['--orphan-file-min-age-s', '0'] }); });
after(async () => { await cat?.cleanup(); });

const removeUrl = (table, prefix = 'default') =>
  `/management/v1/catalogs/${prefix}/namespaces/ns/tables/${table}/maintenance/remove-orphan-files`;

async function removeOrphans(table, body) {
  const res = assertManagementAnswer('POST', REMOVE_TEMPLATE, await call(cat.base, 'POST', removeUrl(table), { body, timeoutMs: 60_000 }));
  assert.equal(res.status, 200, `remove orphans of ${table} ${JSON.stringify(body)}: ${describeResponse(res)}`);
  return res.json;
}

async function createTable(api, name, properties) {
  const res = await api.createTable(['ns'], {
    name, properties,
    schema: { type: 'struct', 'schema-id': 0, fields: [{ id: 1, name: 'id', type: 'long', required: true }] },
  });
  assert.equal(res.status, 200, describeResponse(res));
  return res.json.metadata;
}

// The table's files that a plan of its current snapshot reads, sorted.
async function plannedFiles(table) {
  const plan = await call(cat.base, 'POST', `/iceberg/v1/default/namespaces/ns/tables/${table}/plan`, { body: {} });
  assert.equal(plan.status, 200, describeResponse(plan));
  return plan.json['file-scan-tasks'].map((t) => t['data-file']['file-path']).sort();
}

test('orphan removal deletes only old unreferenced files, after a dry run that reports them', async () => {
  let metadata = await createTable(cat.ice, 'tidy');
  const loc = metadata.location;
  const s1 = await appendSnapshot(metadata, [{ path: `${loc}/data/a.parquet`, records: 1 }]);
  await mustCommit(cat, 'tidy', s1.commit);
  metadata = (await mustLoad(cat, 'tidy')).metadata;
  // A reference in another URI form than the listing's (`file:/…` against `file:///…`).
  const otherForm = `file:${pathOf(`${loc}/data/b.parquet`)}`;
  writeAt(`${loc}/data/b.parquet`, Buffer.from('PAR1data'));
  const s2 = await appendSnapshot(metadata, [{ path: otherForm, records: 1 }], { previous: s1.manifests, writeData: false });
  await mustCommit(cat, 'tidy', s2.commit);
  const current = await mustLoad(cat, 'tidy');

  const orphans = [`${loc}/data/stray.parquet`, `${loc}/metadata/lost-m0.avro`, `${loc}/data/deep/x/y.parquet`];
  const young = `${loc}/data/young.parquet`;
  for (const file of [...orphans, young, `${loc}/metadata/version-hint.text`]) writeAt(file, Buffer.from('x'));
  // Everything old but the young file: age alone protects nothing referenced.
  const old = Date.now() - 10 * DAY_MS;
  const referenced = [`${loc}/data/a.parquet`, `${loc}/data/b.parquet`, s1.manifest, s1.list, s2.manifest, s2.list,
    current['metadata-location'], ...current.metadata['metadata-log'].map((e) => e['metadata-file'])];
  for (const file of [...orphans, ...referenced, `${loc}/metadata/version-hint.text`]) backdate(file, old);

  const dry = await removeOrphans('tidy', { 'dry-run': true });
  assert.equal(dry['dry-run'], true);
  assert.equal(dry['file-count'], orphans.length, JSON.stringify(dry));
  assert.deepEqual([...dry.files].sort(), [...orphans].sort());
  assert.equal(dry['kept-recent'], 1);
  assert.ok(dry['listed-files'] >= referenced.length + orphans.length + 1);
  assert.equal(dry['listing-truncated'], false);
  for (const file of [...orphans, ...referenced, young]) assert.ok(exists(file), `a dry run deleted ${file}`);

  const done = await removeOrphans('tidy', {});
  assert.equal(done['file-count'], orphans.length);
  assert.equal(done['failed-deletions'], 0);
  for (const file of orphans) assert.ok(!exists(file), `left ${file}`);
  for (const file of [...referenced, young, `${loc}/metadata/version-hint.text`]) {
    assert.ok(exists(file), `deleted ${file}, which the table needs`);
  }
  assert.deepEqual(await plannedFiles('tidy'), [`${loc}/data/a.parquet`, otherForm].sort());
  // The young file goes once the threshold passes it.
  const later = await removeOrphans('tidy', { 'older-than-ms': Date.now() });
  assert.deepEqual(later.files, [young]);
});

test('orphan removal beside a concurrent writer loses none of its commits or files', async () => {
  const loc = (await createTable(cat.ice, 'busy')).location;
  const threshold = Date.now() - 1000;
  const strays = [0, 1, 2].map((i) => `${loc}/data/stray${i}.parquet`);
  for (const file of strays) {
    writeAt(file, Buffer.from('x'));
    backdate(file, threshold - 60_000);
  }
  // Young files that make each listing take a while, so that commits land during it.
  for (let i = 0; i < 5000; i++) writeAt(`${loc}/data/filler/${i % 50}/${i}.parquet`, Buffer.from('x'));
  let writing = true;
  // Each committed file is made old at once, so only the order of listing and reading the
  // metadata protects it: a file listed as old was committed before the metadata was read.
  const writer = appendWithRetries(cat, 'busy', 12, (snap, file) => {
    for (const f of [file, snap.manifest, snap.list]) backdate(f, threshold - 1);
  }).finally(() => { writing = false; });
  let runs = 0;
  while (writing) {
    const res = await call(cat.base, 'POST', removeUrl('busy'), { body: { 'older-than-ms': threshold } });
    assert.equal(res.status, 200, describeResponse(res));
    runs++;
  }
  const written = await writer;
  await removeOrphans('busy', { 'older-than-ms': threshold });
  assert.ok(runs > 0);
  for (const file of strays) assert.ok(!exists(file), `left ${file}`);
  for (const file of written) assert.ok(exists(file), `lost ${file}`);
  assert.deepEqual(await plannedFiles('busy'), [...written].sort());
});

test('orphan-removal mistakes are 400 and name the problem', async () => {
  await createTable(cat.ice, 'plain');
  for (const body of [{ 'dry-run': 'yes' }, { 'older-than-ms': 'soon' }, { 'older-than-ms': Date.now() + DAY_MS }]) {
    const res = assertManagementAnswer('POST', REMOVE_TEMPLATE, await call(cat.base, 'POST', removeUrl('plain'), { body }));
    assert.equal(res.status, 400, `${JSON.stringify(body)}: ${describeResponse(res)}`);
  }
  const future = await call(cat.base, 'POST', removeUrl('plain'), { body: { 'older-than-ms': Date.now() + DAY_MS } });
  assert.match(future.json.error.message, /older-than-ms must be at least 0 ms in the past/);
  await createTable(cat.ice, 'shared', { 'gc.enabled': 'false' });
  const shared = await call(cat.base, 'POST', removeUrl('shared'), { body: {} });
  assert.equal(shared.status, 400);
  assert.match(shared.json.error.message, /GC is disabled/);
  const missing = await call(cat.base, 'POST', removeUrl('nope'), { body: {} });
  assert.equal(missing.status, 404);
  assert.equal(missing.json.error.type, 'NoSuchTableException');
});

test('the server refuses a threshold younger than orphan-file-min-age-s', async () => {
  const strict = await startCatalog();  // default: one day
  try {
    await createTable(strict.ice, 't');
    const url = removeUrl('t');
    const res = await call(strict.base, 'POST', url, { body: { 'older-than-ms': Date.now() - 3600_000 } });
    assert.equal(res.status, 400, describeResponse(res));
    assert.match(res.json.error.message, /at least 86400000 ms in the past/);
    const ok = await call(strict.base, 'POST', url, { body: { 'dry-run': true } });  // default: 3 days
    assert.equal(ok.status, 200, describeResponse(ok));
    assert.ok(ok.json['older-than-ms'] <= Date.now() - 3 * DAY_MS + 60_000);
  } finally {
    await strict.cleanup();
  }
});

test('a catalog with maintenance properties has its tables expired and tidied on schedule', async () => {
  const dataDir = makeTempDir();
  const warehouse = path.join(dataDir, 'warehouse', 'sched');
  const config = `
[catalog.sched]
warehouse = "file://${warehouse}"
[catalog.sched.properties]
"maintenance.interval-ms" = "60000"
"maintenance.remove-orphan-files" = "true"
"maintenance.orphan-older-than-ms" = "86400000"
`;
  // The first check comes five seconds after the start (time to set the table up), and a
  // catalog never run is due at once.
  const server = await startServer({ dataDir, config, args: ['--maintenance-check-interval-s', '5'] });
  try {
    const ice = icebergApi(server.url, '/iceberg/v1/sched');
    const sched = { ice };
    const ns = await call(server.url, 'POST', '/iceberg/v1/sched/namespaces', { body: { namespace: ['ns'] } });
    assert.equal(ns.status, 200, describeResponse(ns));
    // Keep one snapshot, expire anything older than a millisecond.
    let metadata = await createTable(ice, 'kept', {
      'history.expire.max-snapshot-age-ms': '1', 'history.expire.min-snapshots-to-keep': '1',
    });
    const loc = metadata.location;
    const old = Date.now() - 10 * DAY_MS;
    const s1 = await appendSnapshot(metadata, [{ path: `${loc}/data/1.parquet` }], { timestampMs: Date.now() - 2000 });
    await mustCommit(sched, 'kept', s1.commit);
    metadata = (await mustLoad(sched, 'kept')).metadata;
    const s2 = await appendSnapshot(metadata, [{ path: `${loc}/data/2.parquet` }], { previous: s1.manifests });
    await mustCommit(sched, 'kept', s2.commit);
    const stray = `${loc}/data/stray.parquet`;
    writeAt(stray, Buffer.from('x'));
    backdate(stray, old);

    await waitFor(async () => {
      const now = (await mustLoad(sched, 'kept')).metadata;
      return now.snapshots.length === 1 && !exists(stray);
    }, { timeoutMs: 30_000, what: 'scheduled maintenance to expire s1 and delete the stray file' });
    const now = (await mustLoad(sched, 'kept')).metadata;
    assert.equal(now.snapshots[0]['snapshot-id'], s2.id);
    // s1's list goes with the snapshot; what s2 reads stays.
    assert.ok(!exists(s1.list));
    for (const file of [`${loc}/data/1.parquet`, `${loc}/data/2.parquet`, s1.manifest, s2.manifest, s2.list]) {
      assert.ok(exists(file), `scheduled maintenance deleted ${file}`);
    }
  } finally {
    await server.cleanup();
    removeDir(dataDir);
  }
});
