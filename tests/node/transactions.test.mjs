// Multi-table transactions (POST /v1/{prefix}/transactions/commit): all tables change or
// none does, also while single-table commits race the transaction.

import assert from 'node:assert/strict';
import { test, before, after } from 'node:test';
import { startServer, withServerLog } from './lib/server.mjs';
import { assertIcebergError } from './lib/spec.mjs';
import { catalog, icall, tableApi, sampleSchema, appendCommit } from './lib/catalog.mjs';

const T_TRANSACTION = '/v1/{prefix}/transactions/commit';
let server;
before(async () => {
  server = await startServer();
});
after(async () => {
  await server?.cleanup();
});
const it = (name, fn) => test(name, withServerLog(() => server, fn));

const commitTransaction = (body) =>
  icall(server.url, 'POST', '/iceberg/v1/default/transactions/commit', T_TRANSACTION, { body });

async function createTables(ns, names) {
  await catalog(server.url).mustCreate(ns);
  const tables = tableApi(server.url);
  for (const name of names) await tables.mustCreate(ns, { name, schema: sampleSchema() });
  return tables;
}

/** A table change that appends `snapshotId` on top of `metadata`, as the Java client does. */
function change(ns, name, metadata, snapshotId) {
  return { identifier: { namespace: ns, name }, ...appendCommit(metadata, snapshotId) };
}

it('commits several tables atomically (204) and each table moves once', async () => {
  const ns = ['txn_ok'];
  const tables = await createTables(ns, ['a', 'b', 'c']);
  const before = {};
  for (const t of ['a', 'b', 'c']) before[t] = (await tables.mustLoad(ns, t)).metadata;
  const res = await commitTransaction({
    'table-changes': ['a', 'b', 'c'].map((t, i) => change(ns, t, before[t], 100 + i)),
  });
  assert.equal(res.status, 204, res.text);
  for (const [i, t] of ['a', 'b', 'c'].entries()) {
    const loaded = await tables.mustLoad(ns, t);
    assert.equal(loaded.metadata['current-snapshot-id'], 100 + i);
    assert.equal(loaded.metadata['metadata-log'].length, 1);
  }
});

it('a failed requirement on the third table leaves all three unchanged (409 naming it)', async () => {
  const ns = ['txn_fail'];
  const tables = await createTables(ns, ['a', 'b', 'c']);
  const before = {};
  for (const t of ['a', 'b', 'c']) before[t] = await tables.mustLoad(ns, t);
  const changes = ['a', 'b', 'c'].map((t, i) => change(ns, t, before[t].metadata, 200 + i));
  changes[2].requirements[0].uuid = '00000000-0000-0000-0000-000000000000';
  const res = await commitTransaction({ 'table-changes': changes });
  const err = assertIcebergError(res, 409, 'CommitFailedException');
  assert.match(err.message, /UUID does not match/);
  assert.match(err.message, /txn_fail\.c/);
  for (const t of ['a', 'b', 'c']) {
    const now = await tables.mustLoad(ns, t);
    assert.equal(now['metadata-location'], before[t]['metadata-location'], `${t} changed`);
  }
});

it('a missing table is a 404 naming it, and nothing changes', async () => {
  const ns = ['txn_missing'];
  const tables = await createTables(ns, ['a']);
  const before = await tables.mustLoad(ns, 'a');
  const res = await commitTransaction({
    'table-changes': [change(ns, 'a', before.metadata, 300), change(ns, 'ghost', before.metadata, 301)],
  });
  const err = assertIcebergError(res, 404, 'NoSuchTableException');
  assert.match(err.message, /txn_missing\.ghost/);
  assert.equal((await tables.mustLoad(ns, 'a'))['metadata-location'], before['metadata-location']);
});

it('bad transactions are 400: empty, duplicate table, assert-create, no identifier', async () => {
  const ns = ['txn_bad'];
  const tables = await createTables(ns, ['a']);
  const md = (await tables.mustLoad(ns, 'a')).metadata;
  const cases = [
    [{ 'table-changes': [] }, /must not be empty/],
    [{ 'table-changes': [change(ns, 'a', md, 1), change(ns, 'a', md, 2)] }, /more than once/],
    [{ 'table-changes': [{ identifier: { namespace: ns, name: 'a' }, requirements: [{ type: 'assert-create' }], updates: [] }] }, /assert-create/],
    [{ 'table-changes': [{ requirements: [], updates: [] }] }, /identifier/],
    [{}, /table-changes/],
  ];
  for (const [body, message] of cases) {
    const err = assertIcebergError(await commitTransaction(body), 400, 'BadRequestException');
    assert.match(err.message, message);
  }
});

it('a transaction racing single-table commits never half-applies', async () => {
  const ns = ['txn_race'];
  const names = ['x', 'y', 'z'];
  const tables = await createTables(ns, names);
  let nextId = 1000;
  const txnSnapshots = [];
  const failedTxnSnapshots = [];
  // Transactions append one snapshot to every table; single commits append to one table.
  // A transaction that loses a race reloads and tries again, as clients do on a 409.
  const transactions = async () => {
    for (let i = 0; i < 15; i++) {
      for (let attempt = 0; attempt < 10; attempt++) {
        const metas = {};
        for (const t of names) metas[t] = (await tables.mustLoad(ns, t)).metadata;
        const ids = names.map(() => nextId++);
        const res = await commitTransaction({ 'table-changes': names.map((t, k) => change(ns, t, metas[t], ids[k])) });
        if (res.status === 204) {
          txnSnapshots.push(ids);
          break;
        }
        assert.equal(res.status, 409, res.text);
        failedTxnSnapshots.push(ids);
      }
    }
  };
  const singles = async (t) => {
    for (let i = 0; i < 15; i++) {
      const md = (await tables.mustLoad(ns, t)).metadata;
      const res = await tables.commit(ns, t, appendCommit(md, nextId++));
      assert.ok([200, 409].includes(res.status), res.text);
    }
  };
  await Promise.all([transactions(), transactions(), ...names.map(singles)]);
  assert.ok(txnSnapshots.length > 0, 'no transaction succeeded');
  const snapshotsOf = {};
  for (const t of names) {
    const md = (await tables.mustLoad(ns, t)).metadata;
    snapshotsOf[t] = new Set(md.snapshots.map((s) => s['snapshot-id']));
  }
  // Every transaction that succeeded is in all three tables; no failed one is in any.
  for (const ids of txnSnapshots) {
    ids.forEach((id, k) => assert.ok(snapshotsOf[names[k]].has(id), `snapshot ${id} missing from ${names[k]}`));
  }
  for (const ids of failedTxnSnapshots) {
    ids.forEach((id, k) => assert.ok(!snapshotsOf[names[k]].has(id), `failed transaction's snapshot ${id} is in ${names[k]}`));
  }
});
