// What reads manifests, on S3 (issue 17 on issue 14's storage), against the throw-away
// Ceph RGW: a scan plan of manifests stored there, with vended credentials that reach the
// planned files; orphan-file removal, whose ages come from the server's LastModified, whose
// keys are compared in canonical `s3://bucket/key` form, and which never touches anything
// outside the table's prefix (a neighbour whose key starts with the table's as a string).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { GetObjectCommand } from '@aws-sdk/client-s3';

import { call } from './lib/http.mjs';
import { writeManifest, writeManifestList } from './lib/iceberg_snapshots.mjs';
import { listKeys, putObject, s3Client } from './lib/s3.mjs';
import { assertStatus, s3Test, splitS3 } from './lib/s3_catalog.mjs';
import { makeTempDir, removeDir } from './lib/server.mjs';

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

s3Test('STS: a scan plan of manifests on S3 lists the files and vends credentials that read them', { vending: 'sts' }, async (cat) => {
  const t = assertStatus(await cat.ice.createTable(NS, { name: 'p', schema }), 200, 'create p');
  const loc = t.metadata.location;
  const { key } = splitS3(loc);
  const files = [`${loc}/data/a.parquet`, `${loc}/data/b.parquet`];
  for (const file of files) await putObject(cat.bucket, splitS3(file).key, 'PAR1data');
  // Avro written locally by the npm writer, then stored on S3 where the metadata says.
  const tmp = makeTempDir();
  const snapshotId = 4242;
  const upload = async (local, name) => {
    await putObject(cat.bucket, `${key}/metadata/${name}`, readFileSync(local));
    return `${loc}/metadata/${name}`;
  };
  try {
    const entry = await writeManifest(path.join(tmp, 'm0.avro'), files.map((p) => ({ path: p, records: 1 })),
                                      { snapshotId, sequenceNumber: 1 });
    entry.manifest_path = await upload(path.join(tmp, 'm0.avro'), 'm0.avro');
    await writeManifestList(path.join(tmp, 'list.avro'), [entry], { snapshotId, sequenceNumber: 1 });
    const list = await upload(path.join(tmp, 'list.avro'), `snap-${snapshotId}.avro`);
    const snapshot = { 'snapshot-id': snapshotId, 'sequence-number': 1, 'timestamp-ms': Date.now(),
                       'manifest-list': list, summary: { operation: 'append' }, 'schema-id': 0 };
    assertStatus(await cat.ice.commitTable(NS, 'p', {
      requirements: [{ type: 'assert-ref-snapshot-id', ref: 'main', 'snapshot-id': null }],
      updates: [{ action: 'add-snapshot', snapshot },
                { action: 'set-snapshot-ref', 'ref-name': 'main', type: 'branch', 'snapshot-id': snapshotId }],
    }), 200, 'commit the snapshot');
  } finally {
    removeDir(tmp);
  }

  const url = '/iceberg/v1/lake/namespaces/ns/tables/p/plan';
  const vended = await call(cat.base, 'POST', url, { body: {}, headers: { 'X-Iceberg-Access-Delegation': 'vended-credentials' } });
  assert.equal(vended.status, 200, vended.text);
  assert.equal(vended.json.status, 'completed');
  assert.deepEqual(vended.json['file-scan-tasks'].map((task) => task['data-file']['file-path']).sort(), files);
  const credential = vended.json['storage-credentials']?.[0];
  assert.equal(credential?.prefix, loc, vended.text.slice(0, 500));
  const c = credential.config;
  assert.ok(c['s3.session-token'], 'STS credentials without a session token');
  // The vended credentials read a planned file, as an engine would next.
  const engine = s3Client({ accessKeyId: c['s3.access-key-id'], secretAccessKey: c['s3.secret-access-key'], sessionToken: c['s3.session-token'] });
  const object = await engine.send(new GetObjectCommand({ Bucket: cat.bucket, Key: splitS3(files[0]).key }));
  assert.equal(Buffer.from(await object.Body.transformToByteArray()).toString(), 'PAR1data');

  const plain = await call(cat.base, 'POST', url, { body: {} });
  assert.equal(plain.status, 200, plain.text);
  assert.ok(!('storage-credentials' in plain.json), 'credentials without asking for them');
});
