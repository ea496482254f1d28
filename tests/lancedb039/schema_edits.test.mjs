// The schema edits against LanceDB 0.39: UpdateTableSchemaMetadata, UpdateFieldMetadata,
// AlterTableAlterColumns (rename, nullability) and AlterTableDropColumns each commit the
// table's next version, a manifest Cairn writes from the latest one, and LanceDB opens it,
// sees the new schema, reads the rows under it and keeps writing — on a managed table (the
// version recorded in the store) and on an unmanaged one (the file alone). A dropped
// column's index goes with it. Client mistakes get the spec's errors and commit nothing.
// Responses are validated against the latest Lance spec.

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

const edit = (levels, action, body) => api.op('table', levels, action, { body, spec: 'latest' });

async function reopen(ns) {
  return (await connect(server)).openTable('t', ns);
}

const fieldNames = async (table) => (await table.schema()).fields.map((f) => f.name);
const fieldOf = async (table, name) => (await table.schema()).fields.find((f) => f.name === name);

for (const kind of ['mv', 'plain']) {
  test(`${kind}: LanceDB reads and writes after each schema edit`, withServerLog(() => server, async () => {
    const ns = [kind, 'edits'];
    await db.createNamespace(ns);
    const levels = [...ns, 't'];
    const table = await db.createTable('t', rows(0, 3), ns); // v1: id, s
    await table.add([{ id: 3, s: 'r3' }]); // v2

    // Schema metadata: replaced by the map sent, which the answer repeats.
    let res = await edit(levels, 'schema_metadata/update', { owner: 'team-a', tier: 'gold' });
    assert.equal(res.status, 200, JSON.stringify(res.json));
    assert.deepEqual(res.json, { owner: 'team-a', tier: 'gold' });
    res = await edit(levels, 'schema_metadata/update', { owner: 'team-a' });
    assert.deepEqual(res.json, { owner: 'team-a' });
    let reader = await reopen(ns);
    assert.equal(await reader.version(), 4);
    const metadata = (await reader.schema()).metadata;
    assert.equal(metadata.get('owner'), 'team-a');
    assert.equal(metadata.has('tier'), false);

    // Field metadata: set, then one key removed by null.
    res = await edit(levels, 'update_field_metadata', {
      updates: [{ path: 's', metadata: { unit: 'text', pii: 'no' } }],
    });
    assert.equal(res.status, 200, JSON.stringify(res.json));
    assert.equal(res.json.version, 5);
    assert.deepEqual(res.json.fields, { s: { unit: 'text', pii: 'no' } });
    res = await edit(levels, 'update_field_metadata', { updates: [{ path: 's', metadata: { pii: null } }] });
    assert.deepEqual(res.json.fields, { s: { unit: 'text' } });
    reader = await reopen(ns);
    assert.equal(await reader.version(), 6);
    assert.equal((await fieldOf(reader, 's')).metadata.get('unit'), 'text');
    assert.equal((await fieldOf(reader, 's')).metadata.has('pii'), false);

    // Rename: the rows read under the new name, the field keeps its metadata.
    res = await edit(levels, 'alter_columns', { alterations: [{ path: 's', rename: 'label', nullable: true }] });
    assert.equal(res.status, 200, JSON.stringify(res.json));
    assert.equal(res.json.version, 7);
    reader = await reopen(ns);
    assert.deepEqual(await fieldNames(reader), ['id', 'label']);
    assert.equal((await fieldOf(reader, 'label')).metadata.get('unit'), 'text');
    const labels = (await reader.query().toArray()).map((r) => r.label).sort();
    assert.deepEqual(labels, ['r0', 'r1', 'r2', 'r3']);

    // The writer that still has version 2 open: Lance reads the rename's transaction file
    // (a projection, which an append does not conflict with) and lands the append on top
    // of it as version 8; its row reads under the new name.
    await table.add([{ id: 9, s: 'stale' }]);
    assert.equal(await table.version(), 8);
    await reader.checkoutLatest();
    assert.deepEqual((await reader.query().where('id = 9').toArray()).map((r) => r.label), ['stale']);

    // An index on a column that is dropped goes with it; the rest stays readable.
    await reader.add([{ id: 4, label: 'r4' }]); // v9
    await reader.createIndex('label'); // v10
    assert.deepEqual((await reader.listIndices()).map((i) => i.columns), [['label']]);
    res = await edit(levels, 'drop_columns', { columns: ['label'] });
    assert.equal(res.status, 200, JSON.stringify(res.json));
    assert.equal(res.json.version, 11);
    reader = await reopen(ns);
    assert.deepEqual(await fieldNames(reader), ['id']);
    assert.deepEqual(await reader.listIndices(), []);
    assert.equal(await reader.countRows(), 6);
    assert.equal((await reader.schema()).metadata.get('owner'), 'team-a');

    // LanceDB writes on top, and older versions still read as they were.
    await reader.add([{ id: 5 }]);
    assert.equal(await reader.version(), 12);
    assert.deepEqual((await reader.query().toArray()).map((r) => Number(r.id)).sort((a, b) => a - b), [0, 1, 2, 3, 4, 5, 9]);
    await reader.checkout(6);
    assert.deepEqual(await fieldNames(reader), ['id', 's']);
    assert.equal(await reader.countRows(), 4);
  }));
}

test('schema edits refuse client mistakes with the spec errors and commit nothing', withServerLog(() => server, async () => {
  const ns = ['mv', 'mistakes'];
  await db.createNamespace(ns);
  const levels = [...ns, 't'];
  const table = await db.createTable('t', rows(0, 2), ns);
  const before = await table.version();
  // The spec declares no 406 for these operations: that answer is checked by hand.
  const expect = async (action, body, status, code, pattern) => {
    const res = await api.op('table', levels, action, { body, spec: status === 406 ? undefined : 'latest' });
    assert.equal(res.status, status, `${action} ${JSON.stringify(body)}: ${JSON.stringify(res.json)}`);
    assert.equal(res.json.code, code, JSON.stringify(res.json));
    assert.match(res.json.error, pattern);
  };
  await expect('alter_columns', { alterations: [{ path: 'nope', rename: 'x' }] }, 404, 12, /no field 'nope'/);
  await expect('drop_columns', { columns: ['id', 's'] }, 400, 13, /at least one column/);
  await expect('alter_columns', { alterations: [{ path: 's', nullable: false }] }, 400, 13, /cannot be made non-nullable/);
  await expect('alter_columns', { alterations: [{ path: 's', rename: 'id' }] }, 400, 13, /a field of that name exists/);
  await expect('alter_columns', { alterations: [{ path: 's' }] }, 400, 13, /changes nothing/);
  await expect('alter_columns', { alterations: [{ path: 's', data_type: { type: 'int64' } }] }, 406, 0, /data type of 's'/);
  await expect('update_field_metadata', { updates: [{ path: '`s', metadata: {} }] }, 400, 13, /not closed/);
  await expect('update_field_metadata', { updates: [{ path: 's', metadata: { a: 1 } }] }, 400, 13, /expected a string/);
  await expect('drop_columns', { columns: ['s', 's'] }, 400, 13, /named twice/);
  await expect('schema_metadata/update', { a: 1 }, 400, 13, /expected a string/);
  const reader = await reopen(ns);
  assert.equal(await reader.version(), before);
  assert.deepEqual(await fieldNames(reader), ['id', 's']);
}));
