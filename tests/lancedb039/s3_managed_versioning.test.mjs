// Managed versioning on S3 (the throw-away Ceph RGW): LanceDB 0.39 writes with the
// storage_options Cairn vends, Cairn materializes each version's final manifest in the bucket,
// and an independent client (@aws-sdk/client-s3 with the S3 user's keys) checks the keys;
// a restore and a schema edit, versions Cairn writes itself, land there the same way.
// Skipped when CAIRN_TEST_S3_ENDPOINT is not set.
//
// The Cairn and its bucket come from tests/node/lib/s3_lance.mjs (which also clears AWS_* from
// this process, so LanceDB holds only what Cairn hands it); the LanceDB here is 0.39.

import assert from 'node:assert/strict';
import { s3LanceTest, startLake } from '../node/lib/s3_lance.mjs';
import { listKeys } from '../node/lib/s3.mjs';
import { connect, assertLatestRecorded, isStaging, rows } from './lib/managed.mjs';

/** Fails with the server's log attached. */
function withLog(lake, fn) {
  return fn().catch((e) => {
    e.message += `\n--- cairn stderr ---\n${lake.server.stderr().slice(-8000)}`;
    throw e;
  });
}

s3LanceTest('a managed table on S3: final manifests at _versions/ keys, no staging object left', async (t) => {
  const lake = await startLake();
  t.after(() => lake.cleanup());
  await withLog(lake, async () => {
    const { api, bucket } = lake;
    const db = await connect(lake.server);
    await db.createNamespace(['mv'], {
      properties: { location: `s3://${bucket}/wh/mv`, managed_versioning: 'true' },
    });
    const ns = ['mv', 'ns'];
    await db.createNamespace(ns);
    const levels = [...ns, 't'];
    const tableKey = 'wh/mv/ns/t.lance';
    const exists = async (key) => (await listKeys(bucket, key)).includes(key);
    const versionKeys = async () => listKeys(bucket, `${tableKey}/_versions/`);

    const table = await db.createTable('t', rows(1, 2), ns);
    const described = await api.must('table', levels, 'describe', { body: { id: levels }, spec: 'latest' });
    // (storage_options carry vended credentials: not in a failure message)
    assert.equal(described.managed_versioning, true, `managed_versioning of ${described.location}`);
    assert.equal(described.location, `s3://${bucket}/${tableKey}`);
    await assertLatestRecorded(api, levels, 1, { tableKey, exists });
    const counts = [2];
    for (let i = 0; i < 2; i++) {
      await table.add(rows(100 + 10 * i, i + 1));
      counts.push(counts[counts.length - 1] + i + 1);
      await assertLatestRecorded(api, levels, i + 2, { tableKey, exists });
    }
    const keys = await versionKeys();
    assert.deepEqual(keys.filter((k) => isStaging(k)), [], keys.join('\n'));
    assert.equal(keys.filter((k) => k.endsWith('.manifest')).length, 3, keys.join('\n'));

    // A fresh connection (fresh credentials) reads every version.
    const reader = await (await connect(lake.server)).openTable('t', ns);
    assert.equal(await reader.version(), 3);
    for (let v = 1; v <= 3; v++) {
      await reader.checkout(v);
      assert.equal(await reader.countRows(), counts[v - 1], `rows of version ${v}`);
    }

    // Versions Cairn writes itself, on S3: a restore of version 1, then a rename. Each is
    // a final manifest and a transaction file in the bucket; LanceDB reads both.
    const restored = await api.must('table', levels, 'restore', { body: { id: levels, version: 1 }, spec: 'latest' });
    assert.equal(restored.version, 4);
    const renamed = await api.must('table', levels, 'alter_columns', {
      body: { alterations: [{ path: 's', rename: 'label' }] },
      spec: 'latest',
    });
    assert.equal(renamed.version, 5);
    await assertLatestRecorded(api, levels, 5, { tableKey, exists });
    const transactions = await listKeys(bucket, `${tableKey}/_transactions/`);
    assert.ok(transactions.some((k) => /\/3-[0-9a-f-]+\.txn$/.test(k)), transactions.join('\n'));
    assert.ok(transactions.some((k) => /\/4-[0-9a-f-]+\.txn$/.test(k)), transactions.join('\n'));
    const edited = await (await connect(lake.server)).openTable('t', ns);
    assert.equal(await edited.version(), 5);
    assert.deepEqual((await edited.schema()).fields.map((f) => f.name), ['id', 'label']);
    assert.equal(await edited.countRows(), counts[0]);

    const all = await lake.listKeys();
    assert.deepEqual(all.filter((k) => !k.startsWith(`${tableKey}/`)), []);
  });
});
