// purgeRequested=true reads the table's manifests (issue 17): every data file, manifest,
// manifest list and metadata file the table's snapshots reference goes — but only inside
// the table's own locations, and never a file of a table beside it. Manifests are written
// with avsc in Java's schemas (lib/iceberg_avro.mjs).
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

import { describeResponse } from './lib/http.mjs';
import { mustCommit, mustCreateTable, mustLoad, startCatalog, tableRequest } from './lib/files.mjs';
import { appendSnapshot, writeAt } from './lib/iceberg_snapshots.mjs';

let cat;
before(async () => { cat = await startCatalog(); });
after(async () => { await cat?.cleanup(); });

const exists = (location) => existsSync(fileURLToPath(location));

async function createAt(name, location) {
  const res = await cat.ice.createTable(['ns'], tableRequest(name, { location }));
  assert.equal(res.status, 200, `create ${name} at ${location}: ${describeResponse(res)}`);
  return res.json;
}

// Appends a snapshot listing `files` to table `name`; returns what it wrote.
async function append(name, files, options) {
  const loaded = await mustLoad(cat, name);
  const written = await appendSnapshot(loaded.metadata, files.map((p) => ({ path: p, records: 10 })), options);
  await mustCommit(cat, name, written.commit);
  return written;
}

test('purge of a table beside another deletes the files its manifests list, only its own', async () => {
  const a = `${cat.whUri}/shared/a`;
  const b = `${cat.whUri}/shared/b`;
  const loose = `${cat.whUri}/loose/x.parquet`;
  await createAt('a', a);
  await createAt('b', b);
  const bFiles = [`${b}/data/b1.parquet`, `${b}/data/b2.parquet`];
  const bSnap = await append('b', bFiles);
  const first = await append('a', [`${a}/data/1.parquet`, `${a}/data/2.parquet`]);
  writeAt(loose, Buffer.from('loose'));
  // A's second snapshot also lists a file of B and one outside A's locations.
  const second = await append('a', [`${a}/data/3.parquet`, bFiles[0], loose], { writeData: false });
  writeAt(`${a}/data/3.parquet`, Buffer.from('PAR1'));
  const unreferenced = `${a}/data/not-listed.parquet`;
  writeAt(unreferenced, Buffer.from('PAR1'));
  const aMetadata = (await mustLoad(cat, 'a'))['metadata-location'];

  const dropped = await cat.ice.dropTable(['ns'], 'a', true);
  assert.equal(dropped.status, 204, describeResponse(dropped));

  for (const gone of [`${a}/data/1.parquet`, `${a}/data/2.parquet`, `${a}/data/3.parquet`,
                      first.manifest, first.list, second.manifest, second.list, aMetadata]) {
    assert.ok(!exists(gone), `purge of a left ${gone}`);
  }
  assert.ok(exists(loose), 'a file outside the table\'s locations is kept although its manifest lists it');
  for (const kept of [...bFiles, bSnap.manifest, bSnap.list]) {
    assert.ok(exists(kept), `purge of a deleted ${kept}, a file of table b`);
  }
  assert.ok(exists(unreferenced), 'a file no metadata of a lists, in a location the client chose, is kept');
  // B is whole: it loads, and its own purge takes its files.
  await mustLoad(cat, 'b');
  assert.equal((await cat.ice.dropTable(['ns'], 'b', true)).status, 204);
  for (const gone of [...bFiles, bSnap.manifest, bSnap.list]) assert.ok(!exists(gone), `purge of b left ${gone}`);
});

test('purge of a table in its Cairn-chosen directory keeps a listed file outside it', async () => {
  const table = await mustCreateTable(cat, 'c');
  const location = table.metadata.location;
  const outside = `${cat.whUri}/elsewhere/c.parquet`;
  writeAt(outside, Buffer.from('PAR1'));
  await append('c', [`${location}/data/1.parquet`, outside]);
  assert.equal((await cat.ice.dropTable(['ns'], 'c', true)).status, 204);
  assert.ok(!exists(location), 'the table\'s directory is gone');
  assert.ok(exists(outside), 'a listed file outside the table\'s directory is kept');
});

test('purge of a table whose manifest list is not Avro deletes what it can prove and answers 204', async () => {
  const d = `${cat.whUri}/shared/d`;
  await createAt('d', d);
  const written = await append('d', [`${d}/data/1.parquet`]);
  writeAt(written.list, Buffer.from('not avro at all'));
  const aFile = `${d}/data/1.parquet`;
  assert.equal((await cat.ice.dropTable(['ns'], 'd', true)).status, 204);
  assert.ok(exists(aFile), 'files of an unreadable manifest list are kept');
  assert.ok(exists(written.list), 'the unreadable manifest list is kept');
  assert.ok(exists(written.manifest), 'the manifest an unreadable list names is not known, so kept');
  assert.equal((await cat.ice.loadTable(['ns'], 'd')).status, 404);
});
