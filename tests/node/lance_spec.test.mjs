// Raw HTTP against every Lance operation: the twelve operations of the 0.0.1 spec in its own
// request shapes (`name`/`parent`/`namespace` bodies, POST list, CREATE/EXIST_OK/OVERWRITE,
// SKIP/FAIL, RESTRICT/CASCADE, pageToken/pageSize, the `.` default delimiter) validated
// against lance-rest-namespace-0.0.1.yaml, and the same operations as today's clients send
// them (`id` bodies, GET lists, PascalCase modes, `$`) plus ListTables, DeclareTable,
// ListAllTables and RenameTable, validated against lance-rest-namespace-latest.yaml.

import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { test, before, after } from 'node:test';
import * as lancedb from '@lancedb/lancedb';
import { startServer, withServerLog } from './lib/server.mjs';
import { lance, waitForTransaction } from './lib/lance.mjs';
import { assertLanceError, validateLanceResponse } from './lib/lance_spec.mjs';
import { call } from './lib/http.mjs';

let server;
before(async () => {
  // Every drop of a non-empty dataset goes through a transaction here.
  server = await startServer({ args: ['--lance-async-drop-files', '0'] });
});
after(async () => {
  await server?.cleanup();
});

/**
 * A real dataset written by LanceDB (not through Cairn) inside the warehouse of `catalog`,
 * where that catalog may register it; returns its directory.
 */
async function writeDataset(name, catalog, rows = [{ id: 1, s: 'a' }, { id: 2, s: 'b' }]) {
  const dir = path.join(server.dataDir, 'warehouse', catalog, 'external-data', name);
  const local = await lancedb.connect(dir);
  await local.createTable('t', rows);
  return path.join(dir, 't.lance');
}

test('0.0.1: every operation in the seed shapes matches the 0.0.1 spec', withServerLog(() => server, async () => {
  const seed = lance(server.url, { delimiter: null }); // no delimiter parameter: `.` applies
  const S = '0.0.1';

  // CreateNamespace: a catalog (level 1), then a namespace in it.
  let body = await seed.must('namespace', ['seedcat'], 'create', { body: { name: 'seedcat', mode: 'CREATE' }, spec: S });
  assert.equal(body.name, 'seedcat');
  assert.deepEqual(body.parent, []);
  assert.ok(body.properties.location.endsWith('/warehouse/seedcat'));
  body = await seed.must('namespace', ['seedcat', 'ns'], 'create', {
    body: { name: 'ns', parent: ['seedcat'], mode: 'CREATE', options: { owner: 'ann' } },
    spec: S,
  });
  assert.deepEqual(body, { name: 'ns', parent: ['seedcat'], properties: { owner: 'ann' } });
  let res = await seed.op('namespace', ['seedcat', 'ns'], 'create', { body: { name: 'ns', parent: ['seedcat'], mode: 'CREATE' }, spec: S });
  assertLanceError(res, 409, 2);
  body = await seed.must('namespace', ['seedcat', 'ns'], 'create', { body: { name: 'ns', parent: ['seedcat'], mode: 'EXIST_OK' }, spec: S });
  assert.deepEqual(body.properties, { owner: 'ann' });
  body = await seed.must('namespace', ['seedcat', 'ns'], 'create', {
    body: { name: 'ns', parent: ['seedcat'], mode: 'OVERWRITE', options: { owner: 'bob' } },
    spec: S,
  });
  assert.deepEqual(body.properties, { owner: 'bob' });
  for (const n of ['a', 'b', 'c']) {
    await seed.must('namespace', ['seedcat', n], 'create', { body: { name: n, parent: ['seedcat'], mode: 'CREATE' }, spec: S });
  }

  // ListNamespaces: POST, the root addressed as the delimiter itself, pageToken/pageSize.
  body = await seed.must('namespace', '.', 'list', { body: {}, spec: S });
  assert.deepEqual(body.namespaces, ['default', 'seedcat']);
  const names = [];
  let pageToken;
  for (let i = 0; i < 10; i++) {
    body = await seed.must('namespace', ['seedcat'], 'list', { body: { parent: ['seedcat'], pageToken, pageSize: 3 }, spec: S });
    assert.ok(body.namespaces.length <= 3);
    names.push(...body.namespaces);
    if (!body.nextPageToken) break;
    pageToken = body.nextPageToken;
  }
  assert.deepEqual(names, ['a', 'b', 'c', 'ns']);

  // DescribeNamespace / NamespaceExists.
  body = await seed.must('namespace', ['seedcat', 'ns'], 'describe', { body: { name: 'ns', parent: ['seedcat'] }, spec: S });
  assert.deepEqual(body, { name: 'ns', parent: ['seedcat'], properties: { owner: 'bob' } });
  body = await seed.must('namespace', ['seedcat', 'ns'], 'exists', { body: { name: 'ns', parent: ['seedcat'] }, spec: S });
  assert.deepEqual(body, { exists: true });
  res = await seed.op('namespace', ['seedcat', 'zz'], 'exists', { body: { name: 'zz', parent: ['seedcat'] }, spec: S });
  assertLanceError(res, 404, 1);
  res = await seed.op('namespace', ['seedcat', 'zz'], 'describe', { body: { name: 'zz', parent: ['seedcat'] }, spec: S });
  assertLanceError(res, 404, 1);

  // RegisterTable / DescribeTable / TableExists / DeregisterTable.
  const dir = await writeDataset('seed1', 'seedcat');
  const tbl = { name: 't', namespace: ['seedcat', 'ns'] };
  body = await seed.must('table', ['seedcat', 'ns', 't'], 'register', { body: { ...tbl, location: dir }, spec: S });
  assert.equal(body.location, `file://${dir}`, "the location comes back in canonical form");
  res = await seed.op('table', ['seedcat', 'ns', 't'], 'register', { body: { ...tbl, location: dir }, spec: S });
  assertLanceError(res, 409, 5);
  body = await seed.must('table', ['seedcat', 'ns', 't'], 'describe', { body: tbl, spec: S });
  assert.deepEqual([body.name, body.namespace, body.location], ['t', ['seedcat', 'ns'], `file://${dir}`]);
  body = await seed.must('table', ['seedcat', 'ns', 't'], 'exists', { body: tbl, spec: S });
  assert.deepEqual(body, { exists: true });
  res = await seed.op('table', ['seedcat', 'ns', 'u'], 'exists', { body: { name: 'u', namespace: ['seedcat', 'ns'] }, spec: S });
  assertLanceError(res, 404, 4);
  res = await seed.op('table', ['seedcat', 'ns', 'u'], 'describe', { body: { name: 'u', namespace: ['seedcat', 'ns'] }, spec: S });
  assertLanceError(res, 404, 4);
  body = await seed.must('table', ['seedcat', 'ns', 't'], 'deregister', { body: tbl, spec: S });
  assert.equal(body.location, `file://${dir}`);
  assert.ok(existsSync(path.join(dir, '_versions')), 'deregister keeps the files');
  res = await seed.op('table', ['seedcat', 'ns', 't'], 'deregister', { body: tbl, spec: S });
  assertLanceError(res, 404, 4);

  // DropTable: deletes the data; here (threshold 0) it answers with a transaction.
  await seed.must('table', ['seedcat', 'ns', 't'], 'register', { body: { ...tbl, location: dir }, spec: S });
  body = await seed.must('table', ['seedcat', 'ns', 't'], 'drop', { body: tbl, spec: S });
  assert.equal(body.location, `file://${dir}`);
  assert.equal(typeof body.transactionId, 'string');
  const txid = body.transactionId;

  // DescribeTransaction / AlterTransaction.
  const done = await waitForTransaction(seed, txid, { spec: S });
  assert.equal(done.body.status, 'SUCCEEDED');
  assert.equal(done.body.id, txid);
  assert.ok(!existsSync(dir), 'drop deletes the dataset');
  body = await seed.must('transaction', txid, 'alter', {
    body: { id: txid, actions: [{ setPropertyAction: { key: 'note', value: 'checked', mode: 'OVERWRITE' } }] },
    spec: S,
  });
  assert.deepEqual([body.id, body.status], [txid, 'SUCCEEDED']);
  body = await seed.must('transaction', txid, 'describe', { body: { id: txid }, spec: S });
  assert.equal(body.properties.note, 'checked');
  assert.equal(body.properties.operation, 'DropTable');
  res = await seed.op('transaction', txid, 'alter', {
    body: { id: txid, actions: [{ setStatusAction: { status: 'CANCELED' } }] },
    spec: S,
  });
  assertLanceError(res, 409, 14);
  res = await seed.op('transaction', 'no-such-tx', 'describe', { body: { id: 'no-such-tx' }, spec: S });
  assertLanceError(res, 404, 10);

  // DropNamespace: RESTRICT refuses a non-empty namespace; FAIL / SKIP when missing.
  res = await seed.op('namespace', ['seedcat'], 'drop', { body: { name: 'seedcat', mode: 'FAIL', behavior: 'RESTRICT' }, spec: S });
  assertLanceError(res, 409, 3);
  body = await seed.must('namespace', ['seedcat', 'a'], 'drop', { body: { name: 'a', parent: ['seedcat'], mode: 'FAIL', behavior: 'RESTRICT' }, spec: S });
  assert.equal(body.name, 'a');
  res = await seed.op('namespace', ['seedcat', 'a'], 'drop', { body: { name: 'a', parent: ['seedcat'], mode: 'FAIL' }, spec: S });
  assertLanceError(res, 404, 1);
  await seed.must('namespace', ['seedcat', 'a'], 'drop', { body: { name: 'a', parent: ['seedcat'], mode: 'SKIP' }, spec: S });
  body = await seed.must('namespace', ['seedcat'], 'drop', { body: { name: 'seedcat', behavior: 'CASCADE' }, spec: S });
  assert.equal(body.transactionId, undefined, 'nothing to delete: no transaction');
  res = await seed.op('namespace', ['seedcat'], 'exists', { body: { name: 'seedcat' }, spec: S });
  assertLanceError(res, 404, 1);
}));

test('latest: the operations as current clients send them match the latest spec', withServerLog(() => server, async () => {
  const cur = lance(server.url); // delimiter=$
  const L = 'latest';
  await cur.must('namespace', ['curcat'], 'create', { body: { id: ['curcat'] }, spec: L });
  let body = await cur.must('namespace', ['curcat', 'child b'], 'create', {
    body: { id: ['curcat', 'child b'], mode: 'ExistOk', properties: { k: 'v' } },
    spec: L,
  });
  assert.deepEqual(body.properties, { k: 'v' });
  await cur.must('namespace', ['curcat', 'child b'], 'create', { body: { id: ['curcat', 'child b'], mode: 'exist_ok' }, spec: L });
  let res = await cur.op('namespace', ['curcat', 'child b'], 'create', { body: { id: ['curcat', 'child b'], mode: 'Create' }, spec: L });
  assertLanceError(res, 409, 2);
  for (const n of ['n1', 'n2']) await cur.must('namespace', ['curcat', n], 'create', { body: { id: ['curcat', n] }, spec: L });

  // GET lists with page_token / limit; the root is `$`.
  body = await cur.must('namespace', [], 'list', { method: 'GET', spec: L });
  assert.deepEqual(body.namespaces, ['curcat', 'default']);
  const names = [];
  let token = '';
  for (let i = 0; i < 10; i++) {
    body = await cur.must('namespace', ['curcat'], 'list', {
      method: 'GET',
      query: `limit=2${token ? `&page_token=${encodeURIComponent(token)}` : ''}`,
      spec: L,
    });
    names.push(...body.namespaces);
    if (!body.page_token) break;
    token = body.page_token;
  }
  assert.deepEqual(names, ['child b', 'n1', 'n2']);

  body = await cur.must('namespace', ['curcat', 'child b'], 'describe', { body: { id: ['curcat', 'child b'] }, spec: L });
  assert.deepEqual(body.properties, { k: 'v' });
  await cur.must('namespace', ['curcat', 'child b'], 'exists', { body: { id: ['curcat', 'child b'] }, spec: L });
  res = await cur.op('namespace', ['curcat', 'gone'], 'exists', { body: { id: ['curcat', 'gone'] }, spec: L });
  assertLanceError(res, 404, 1);

  // DeclareTable, ListTables, ListAllTables, DescribeTable (query flags), RenameTable.
  const ns = ['curcat', 'child b'];
  body = await cur.must('table', [...ns, 't1'], 'declare', { body: { id: [...ns, 't1'], properties: { p: '1' } }, spec: L });
  assert.match(body.location, /\/warehouse\/curcat\/child%20b\/t1\.lance$/);
  const t1Location = body.location;
  res = await cur.op('table', [...ns, 't1'], 'declare', { body: { id: [...ns, 't1'] }, spec: L });
  assertLanceError(res, 409, 5);
  const real = await writeDataset('cur1', 'curcat');
  body = await cur.must('table', [...ns, 't2'], 'register', { body: { id: [...ns, 't2'], location: real, mode: 'Create' }, spec: L });
  assert.equal(body.location, `file://${real}`);
  body = await cur.must('namespace', ns, 'table/list', { method: 'GET', spec: L });
  assert.deepEqual(body.tables, ['t1', 't2']);
  body = await cur.must('namespace', ns, 'table/list', { method: 'GET', query: 'include_declared=false', spec: L });
  assert.deepEqual(body.tables, ['t2']);
  body = await cur.must('namespace', ns, 'table/list', { method: 'GET', query: 'limit=1', spec: L });
  assert.deepEqual(body.tables, ['t1']);
  assert.ok(body.page_token);
  res = await call(server.url, 'GET', '/lance/v1/table?delimiter=%24');
  validateLanceResponse(L, 'GET', '/v1/table', res.status, res.json);
  assert.deepEqual(res.json.tables, ['curcat$child b$t1', 'curcat$child b$t2']);
  body = await cur.must('table', [...ns, 't1'], 'describe', {
    body: { id: [...ns, 't1'] },
    query: 'with_table_uri=true&check_declared=true',
    spec: L,
  });
  assert.equal(body.location, t1Location);
  assert.equal(body.table_uri, t1Location);
  assert.equal(body.is_only_declared, true);
  assert.deepEqual(body.properties, { p: '1' });
  await cur.must('table', [...ns, 't1'], 'exists', { body: { id: [...ns, 't1'] }, spec: L });
  body = await cur.must('table', [...ns, 't2'], 'rename', {
    body: { id: [...ns, 't2'], new_table_name: 't3', new_namespace_id: ['curcat', 'n1'] },
    spec: L,
  });
  assert.deepEqual(body, {});
  body = await cur.must('table', ['curcat', 'n1', 't3'], 'describe', { body: { id: ['curcat', 'n1', 't3'] }, spec: L });
  assert.equal(body.location, `file://${real}`);

  // DropTable without a body, DeregisterTable with one.
  body = await cur.must('table', ['curcat', 'n1', 't3'], 'drop', { spec: L });
  assert.equal(typeof body.transaction_id, 'string');
  const done = await waitForTransaction(cur, body.transaction_id, { spec: L });
  assert.equal(done.body.status, 'SUCCEEDED');
  assert.ok(!existsSync(real));
  body = await cur.must('transaction', done.body.id, 'alter', {
    body: { id: [done.body.id], actions: [{ unsetPropertyAction: { key: 'operation', mode: 'Fail' } }] },
    spec: L,
  });
  assert.equal(body.properties.operation, undefined);
  body = await cur.must('table', [...ns, 't1'], 'deregister', { body: { id: [...ns, 't1'] }, spec: L });
  assert.equal(body.location, t1Location);

  // DropNamespace with Skip/Cascade, current spelling; a cascade over a table answers with
  // the transaction list of the current spec.
  const real2 = await writeDataset('cur2', 'curcat');
  await cur.must('table', ['curcat', 'n2', 'x'], 'register', { body: { id: ['curcat', 'n2', 'x'], location: real2 }, spec: L });
  body = await cur.must('namespace', ['curcat'], 'drop', { body: { id: ['curcat'], mode: 'Skip', behavior: 'Cascade' }, spec: L });
  assert.ok(Array.isArray(body.transaction_id) && body.transaction_id.length === 1, JSON.stringify(body));
  assert.equal(body.transactionId, body.transaction_id[0]);
  assert.equal((await waitForTransaction(cur, body.transactionId, { spec: L })).body.status, 'SUCCEEDED');
  assert.ok(!existsSync(real2));
  res = await cur.op('namespace', ['curcat'], 'drop', { body: { id: ['curcat'], mode: 'Fail' }, spec: L });
  assertLanceError(res, 404, 1);
}));
