// A real LanceDB client (@lancedb/lancedb 0.31.0, connectNamespace("rest")) against Cairn:
// it declares tables through Cairn, writes and reads the data itself, and Cairn deletes the
// data when the table or its namespace is dropped.

import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import { test, before, after } from 'node:test';
import * as lancedb from '@lancedb/lancedb';
import { startServer, withServerLog } from './lib/server.mjs';
import { lance, localPath } from './lib/lance.mjs';

let server;
let db;
let api;
before(async () => {
  server = await startServer();
  db = await lancedb.connectNamespace('rest', { uri: `${server.url}/lance` });
  api = lance(server.url);
});
after(async () => {
  await server?.cleanup();
});

const rows = [
  { id: 1, name: 'alpha', score: 0.5 },
  { id: 2, name: 'beta', score: 1.5 },
  { id: 3, name: 'gamma', score: 2.5 },
];

async function locationOf(levels) {
  const body = await api.must('table', levels, 'describe', { body: { id: levels }, spec: 'latest' });
  return body.location;
}

test('a LanceDB session: namespaces, tables with data, drops that delete the data', withServerLog(() => server, async () => {
  // Level 1 is a catalog, level 2 a namespace in it.
  assert.deepEqual((await db.listNamespaces()).namespaces, ['default']);
  await db.createNamespace(['shop']);
  await db.createNamespace(['shop', 'sales 2026'], { mode: 'exist_ok', properties: { owner: 'ana' } });
  assert.deepEqual((await db.listNamespaces()).namespaces, ['default', 'shop']);
  assert.deepEqual((await db.listNamespaces(['shop'])).namespaces, ['sales 2026']);
  assert.deepEqual((await db.describeNamespace(['shop', 'sales 2026'])).properties, { owner: 'ana' });

  const ns = ['shop', 'sales 2026'];
  const created = await db.createTable('orders', rows, ns);
  assert.equal(await created.countRows(), 3);
  await db.createTable('empty_one', [{ id: 0 }], ns);
  assert.deepEqual((await db.tableNames(ns)).sort(), ['empty_one', 'orders']);

  // The client wrote the dataset itself, at the location Cairn declared.
  const location = await locationOf([...ns, 'orders']);
  assert.match(location, /\/warehouse\/shop\/sales%202026\/orders\.lance$/);
  const dir = localPath(location);
  assert.ok(existsSync(dir), `${dir} should exist`);
  assert.ok(readdirSync(`${dir}/_versions`).some((f) => f.endsWith('.manifest')));

  // Read back through a fresh connection.
  const db2 = await lancedb.connectNamespace('rest', { uri: `${server.url}/lance` });
  const table = await db2.openTable('orders', ns);
  const read = await table.query().where('score > 1').select(['id', 'name']).toArray();
  assert.deepEqual(read.map((r) => ({ id: Number(r.id), name: r.name })).sort((a, b) => a.id - b.id), [
    { id: 2, name: 'beta' },
    { id: 3, name: 'gamma' },
  ]);
  await table.add([{ id: 4, name: 'delta', score: 3.5 }]);
  assert.equal(await (await db.openTable('orders', ns)).countRows(), 4);

  // Not-found errors are reported as not found (the Lance `code` is understood).
  await assert.rejects(db.openTable('missing', ns), /not found/i);
  await assert.rejects(db.describeNamespace(['shop', 'nope']), /not found/i);

  // dropTable forgets the table and deletes its directory.
  await db.dropTable('orders', ns);
  assert.deepEqual(await db.tableNames(ns), ['empty_one']);
  assert.ok(!existsSync(dir), `${dir} should be gone after dropTable`);
  // The name (and its location) can be used again.
  await db.createTable('orders', rows.slice(0, 1), ns);
  assert.equal(await (await db.openTable('orders', ns)).countRows(), 1);

  // dropNamespace with cascade drops the catalog and deletes every table's data.
  const remaining = [localPath(await locationOf([...ns, 'orders'])), localPath(await locationOf([...ns, 'empty_one']))];
  await db.dropNamespace(['shop'], { mode: 'skip', behavior: 'cascade' });
  assert.deepEqual((await db.listNamespaces()).namespaces, ['default']);
  for (const d of remaining) assert.ok(!existsSync(d), `${d} should be gone after the cascade`);
  // Skip: dropping what is not there succeeds.
  await db.dropNamespace(['shop'], { mode: 'skip' });
  await assert.rejects(db.dropNamespace(['shop'], { mode: 'fail' }), /not found/i);
}));

test('LanceDB tables live beside Iceberg namespaces of the default catalog', withServerLog(() => server, async () => {
  // A namespace made through Iceberg REST is a Lance namespace too.
  const res = await fetch(`${server.url}/iceberg/v1/default/namespaces`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ namespace: ['from_iceberg'] }),
  });
  assert.equal(res.status, 200);
  assert.ok((await db.listNamespaces(['default'])).namespaces.includes('from_iceberg'));
  await db.createTable('vectors', [{ id: 1, vector: [0.1, 0.2] }, { id: 2, vector: [0.3, 0.4] }], ['default', 'from_iceberg']);
  const t = await db.openTable('vectors', ['default', 'from_iceberg']);
  const hits = await t.search([0.3, 0.4]).limit(1).toArray();
  assert.equal(Number(hits[0].id), 2);
  // Restrict refuses a namespace that still holds a table.
  await assert.rejects(db.dropNamespace(['default', 'from_iceberg'], { behavior: 'restrict' }), /not empty/i);
  await db.dropTable('vectors', ['default', 'from_iceberg']);
  await db.dropNamespace(['default', 'from_iceberg']);
}));
