// The README's LanceDB walkthrough on a managed table (README → Lance → A LanceDB 0.39
// walkthrough), step by step as it is printed there, so that the README stays true: a
// managed catalog, a table created and appended to (each commit a CreateTableVersion), the
// versions listed, read back, tagged and checked out by tag, a restore, a rename and a
// drop, each served by Cairn and read by LanceDB.

import assert from 'node:assert/strict';
import { test, after } from 'node:test';
import * as lancedb from '@lancedb/lancedb';
import { startServer, withServerLog } from '../node/lib/server.mjs';

let server;
after(async () => {
  await server?.cleanup();
});

/** A call of Cairn's Lance REST routes, as the README shows it with curl. */
async function post(path, body) {
  const res = await fetch(`${server.url}/lance/v1/${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const json = await res.json();
  assert.equal(res.status, 200, JSON.stringify(json));
  return json;
}

test('the README walkthrough', withServerLog(() => server, async () => {
  server = await startServer();
  // 1. Connect and create a catalog whose tables Cairn versions.
  const db = await lancedb.connectNamespace('rest', { uri: `${server.url}/lance` });
  await db.createNamespace(['lake'], { properties: { managed_versioning: 'true' } });
  await db.createNamespace(['lake', 'sales']);

  // 2. Create a table and append: each commit is a CreateTableVersion.
  const orders = await db.createTable('orders', [{ id: 1, item: 'tea' }, { id: 2, item: 'rice' }], ['lake', 'sales']);
  await orders.add([{ id: 3, item: 'salt' }]);
  assert.equal(await orders.version(), 2);

  // 3. What Cairn recorded.
  const listed = await post('table/lake$sales$orders/version/list?delimiter=$', { descending: true });
  assert.deepEqual(listed.versions.map((v) => v.version), [2, 1]);
  assert.match(listed.versions[0].manifest_path, /orders\.lance\/_versions\/18446744073709551613\.manifest$/);
  const described = await post('table/lake$sales$orders/describe?delimiter=$', { load_detailed_metadata: true });
  assert.equal(described.managed_versioning, true);
  assert.equal(described.version, 2);
  assert.deepEqual(described.schema.fields.map((f) => f.name), ['id', 'item']);
  assert.deepEqual(described.stats, { num_deleted_rows: 0, num_fragments: 2 });

  // 4. Time travel and tags.
  await orders.checkout(1);
  assert.equal(await orders.countRows(), 2);
  await orders.checkoutLatest();
  await (await orders.tags()).create('before-cleanup', 2);
  await orders.delete("item = 'salt'"); // version 3
  await orders.checkout('before-cleanup');
  assert.equal(await orders.countRows(), 3);
  await orders.checkoutLatest();

  // 5. Versions Cairn writes itself: a restore, a rename, a drop.
  assert.equal((await post('table/lake$sales$orders/restore?delimiter=$', { version: 2 })).version, 4);
  const renamed = await post('table/lake$sales$orders/alter_columns?delimiter=$', {
    alterations: [{ path: 'item', rename: 'product' }],
  });
  assert.equal(renamed.version, 5);
  const missing = await fetch(`${server.url}/lance/v1/table/lake$sales$orders/alter_columns?delimiter=$`, {
    method: 'POST',
    body: JSON.stringify({ alterations: [{ path: 'nope', rename: 'x' }] }),
  });
  assert.equal(missing.status, 404);
  const error = await missing.json();
  assert.equal(error.code, 12);
  assert.equal(error.detail, "Table lake$sales$orders: the table has no field 'nope'");
  const reopened = await db.openTable('orders', ['lake', 'sales']);
  assert.equal(await reopened.version(), 5);
  assert.deepEqual((await reopened.query().toArray()).map((r) => r.product).sort(), ['rice', 'salt', 'tea']);

  // 6. And LanceDB keeps writing on top.
  await reopened.add([{ id: 4, product: 'oil' }]);
  assert.equal(await reopened.version(), 6);
  assert.equal(await reopened.countRows(), 4);
  const versions = await reopened.listVersions();
  assert.deepEqual(versions.map((v) => v.version), [1, 2, 3, 4, 5, 6]);
}));
