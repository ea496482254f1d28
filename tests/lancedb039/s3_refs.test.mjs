// Tags and branches of a Lance table on S3 (the throw-away Ceph RGW): Cairn reads and writes the
// same `_refs/` objects LanceDB 0.39 does, with the keys Lance gives them (a branch's `/` as a
// literal `%2F` in its key), and a branch Cairn creates is one LanceDB reads and writes. Skipped when CAIRN_TEST_S3_ENDPOINT is not set.

import assert from 'node:assert/strict';
import { s3LanceTest, startLake } from '../node/lib/s3_lance.mjs';
import { listKeys } from '../node/lib/s3.mjs';
import { connect, rows } from './lib/managed.mjs';

s3LanceTest('tags and branches on S3: one set of _refs/ objects for LanceDB and Cairn', async (t) => {
  const lake = await startLake();
  t.after(() => lake.cleanup());
  try {
    const { api, bucket } = lake;
    const db = await connect(lake.server);
    const ns = ['lake', 'ns'];  // the lake's catalog `lake` is at s3://<bucket>/wh/lake
    await db.createNamespace(ns);
    const levels = [...ns, 't'];
    const tableKey = 'wh/lake/ns/t.lance';
    const table = await db.createTable('t', rows(1, 2), ns);
    await table.add(rows(10, 3));
    const op = (action, body) => api.op('table', levels, action, { body: { id: levels, ...body }, spec: 'latest' });

    // Through Cairn: LanceDB resolves and checks the tag out; retargeted, it follows.
    assert.equal((await op('tags/create', { tag: 'first', version: 1 })).status, 200);
    assert.ok((await listKeys(bucket, `${tableKey}/_refs/`)).includes(`${tableKey}/_refs/tags/first.json`));
    const tags = await table.tags();
    assert.equal(await tags.getVersion('first'), 1);
    const reader = await (await connect(lake.server)).openTable('t', ns);
    await reader.checkout('first');
    assert.equal(await reader.countRows(), 2);
    assert.equal((await op('tags/update', { tag: 'first', version: 2 })).status, 200);
    assert.equal(await tags.getVersion('first'), 2);

    // Through LanceDB: Cairn lists the tag and the branch.
    await tags.create('second', 2);
    const branch = await (await table.branches()).create('feat/x');
    await branch.add(rows(100, 1));
    const listed = await api.must('table', levels, 'tags/list', { body: { id: levels }, spec: 'latest' });
    assert.deepEqual(Object.keys(listed.tags), ['first', 'second']);
    const branches = await api.must('table', levels, 'branches/list', { body: { id: levels }, spec: 'latest' });
    assert.deepEqual(Object.keys(branches.branches), ['feat/x']);
    const refKeys = await listKeys(bucket, `${tableKey}/_refs/branches/`);
    assert.deepEqual(refKeys, [`${tableKey}/_refs/branches/feat%2Fx.json`]);

    // Cairn deletes the tag and the branch with its objects; main is untouched.
    assert.equal((await op('tags/delete', { tag: 'second' })).status, 200);
    assert.equal((await op('branches/delete', { name: 'feat/x' })).status, 200);
    assert.deepEqual(await listKeys(bucket, `${tableKey}/tree/`), []);
    assert.deepEqual(await listKeys(bucket, `${tableKey}/_refs/branches/`), []);
    assert.deepEqual(Object.keys(await tags.list()), ['first']);
    const fresh = await (await connect(lake.server)).openTable('t', ns);
    assert.equal(await fresh.countRows(), 5);

    // Cairn creates a branch in the bucket: LanceDB reads version 1's rows through the base
    // path `s3://…/t.lance` and writes to the branch; main is untouched.
    assert.equal((await op('branches/create', { name: 'exp', from_version: 1 })).status, 200);
    const expKeys = await listKeys(bucket, `${tableKey}/tree/exp/`);
    assert.ok(expKeys.some((k) => k.startsWith(`${tableKey}/tree/exp/_versions/`)), expKeys.join(' '));
    assert.ok(expKeys.some((k) => k.startsWith(`${tableKey}/tree/exp/_transactions/`)), expKeys.join(' '));
    assert.deepEqual(await listKeys(bucket, `${tableKey}/_refs/branches/`), [`${tableKey}/_refs/branches/exp.json`]);
    const exp = await (await fresh.branches()).checkout('exp');
    assert.equal(await exp.countRows(), 2);
    await exp.add(rows(200, 2));
    assert.equal(await exp.countRows(), 4);
    assert.equal(await (await (await connect(lake.server)).openTable('t', ns)).countRows(), 5);
  } catch (e) {
    e.message += `\n--- cairn stderr ---\n${lake.server.stderr().slice(-8000)}`;
    throw e;
  }
});
