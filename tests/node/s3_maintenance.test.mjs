// Orphan-file removal on S3 (issue 17 on issue 14's storage), against the throw-away Ceph
// RGW: ages come from the server's LastModified, keys are compared in canonical
// `s3://bucket/key` form, and nothing outside the table's prefix (a neighbour whose key
// starts with the table's as a string) is touched.
import assert from 'node:assert/strict';

import { call } from './lib/http.mjs';
import { listKeys, putObject } from './lib/s3.mjs';
import { assertStatus, s3Test, splitS3 } from './lib/s3_catalog.mjs';

const NS = ['ns'];
const schema = { type: 'struct', 'schema-id': 0, fields: [{ id: 1, name: 'id', type: 'long', required: true }] };
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

s3Test('orphan removal on S3 deletes old unreferenced objects of the table only', { args: ['--orphan-file-min-age-s', '0'] }, async (cat) => {
  const t = assertStatus(await cat.ice.createTable(NS, { name: 't', schema }), 200, 'create t');
  const { key } = splitS3(t.metadata.location);
  const strays = [`${key}/data/stray.parquet`, `${key}/metadata/lost.avro`];
  for (const stray of strays) await putObject(cat.bucket, stray, 'x');
  await putObject(cat.bucket, `${key}-x/data/neighbour.parquet`, 'x');
  // LastModified has whole seconds: wait until the objects above are surely older than now.
  await sleep(1100);
  const threshold = Date.now();
  await putObject(cat.bucket, `${key}/data/young.parquet`, 'x');
  const before = await listKeys(cat.bucket);

  const url = `/management/v1/catalogs/lake/namespaces/ns/tables/t/maintenance/remove-orphan-files`;
  const dry = await call(cat.base, 'POST', url, { body: { 'dry-run': true, 'older-than-ms': threshold } });
  assert.equal(dry.status, 200, dry.text);
  assert.deepEqual([...dry.json.files].sort(), strays.map((k) => `s3://${cat.bucket}/${k}`).sort());
  assert.equal(dry.json['kept-recent'], 1, dry.text);
  assert.deepEqual(await listKeys(cat.bucket), before, 'a dry run deleted objects');

  const done = await call(cat.base, 'POST', url, { body: { 'older-than-ms': threshold } });
  assert.equal(done.status, 200, done.text);
  assert.equal(done.json['file-count'], 2, done.text);
  assert.deepEqual(await listKeys(cat.bucket), before.filter((k) => !strays.includes(k)));
  assertStatus(await cat.ice.loadTable(NS, 't'), 200, 'load t after the removal');
});
