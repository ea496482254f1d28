// RestoreTable against LanceDB 0.39: Cairn commits an old version's manifest again as the
// table's next version (rewritten from the old one), and LanceDB opens it, reads the old
// rows, and keeps writing on top of it — on a managed table (the version recorded in the
// store) and on an unmanaged one (the file alone); a writer that had an older version open
// gets Lance's own conflict with a restore. Responses are validated against the latest
// Lance spec.

import assert from 'node:assert/strict';
import { test, before, after } from 'node:test';
import { withServerLog } from '../node/lib/server.mjs';
import { connect, rows, startWithCatalogs } from './lib/managed.mjs';

let server;
let db;
let api;
before(async () => {
  ({ server, db, api } = await startWithCatalogs());
});
after(async () => {
  await server?.cleanup();
});

function restore(levels, body) {
  return api.op('table', levels, 'restore', { body: { id: levels, ...body }, spec: 'latest' });
}

const ids = async (table) => (await table.query().toArray()).map((r) => Number(r.id)).sort((a, b) => a - b);

for (const kind of ['mv', 'plain']) {
  test(`${kind}: LanceDB reads a restored version and writes on top of it`, withServerLog(() => server, async () => {
    const ns = [kind, 'restore'];
    await db.createNamespace(ns);
    const levels = [...ns, 't'];
    const table = await db.createTable('t', rows(0, 3), ns); // v1: ids 0..2
    await table.add(rows(10, 2)); // v2
    await table.delete('id = 0'); // v3
    assert.equal(await table.version(), 3);

    const restored = await restore(levels, { version: 1 });
    assert.equal(restored.status, 200, JSON.stringify(restored.json));
    assert.equal(restored.json.version, 4);

    // A fresh connection sees version 4 with version 1's rows.
    const reader = await (await connect(server)).openTable('t', ns);
    assert.equal(await reader.version(), 4);
    assert.equal(await reader.countRows(), 3);
    assert.deepEqual(await ids(reader), [0, 1, 2]);
    assert.deepEqual((await reader.listVersions()).map((v) => v.version), [1, 2, 3, 4]);
    // Older versions still read as they were.
    await reader.checkout(3);
    assert.deepEqual(await ids(reader), [1, 2, 10, 11]);
    await reader.checkoutLatest();

    // Writing on top of the restored version.
    await reader.add(rows(20, 2));
    assert.equal(await reader.version(), 5);
    assert.deepEqual(await ids(reader), [0, 1, 2, 20, 21]);
    const described = await api.must('table', levels, 'describe', {
      body: { id: levels },
      query: 'load_detailed_metadata=true',
      spec: 'latest',
    });
    assert.equal(described.version, 5);
    assert.deepEqual(described.stats, { num_deleted_rows: 0, num_fragments: 2 });

    // The writer that still has version 3 open: its append conflicts with the restore
    // (Lance reads the restore's transaction file); once it catches up, it writes.
    await assert.rejects(table.add(rows(30, 1)), /incompatible with concurrent transaction Restore/);
    await table.checkoutLatest();
    assert.equal(await table.version(), 5);
    await table.add(rows(30, 1));
    assert.deepEqual(await ids(table), [0, 1, 2, 20, 21, 30]);

    const missing = await restore(levels, { version: 42 });
    assert.equal(missing.status, 404, JSON.stringify(missing.json));
    assert.equal(missing.json.code, 11);
    const noVersion = await api.op('table', levels, 'restore', { body: { id: levels } });
    assert.equal(noVersion.status, 400);
  }));
}
