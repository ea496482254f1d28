// BatchCommitTables through raw REST on managed tables that LanceDB 0.39 wrote: one commit
// whose version of one table conflicts changes neither table (no record, no final manifest);
// a mixed commit (a declaration, a version of another table, version deletions of a third and
// a deregistration) is visible whole. Every answer is validated against the latest spec.
//
// As in create_table_version.test.mjs, a new version's staging manifest is a copy of the
// table's version-1 manifest at the name LanceDB would give it; a table given such a version
// is not read through LanceDB afterwards.

import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test, before, after } from 'node:test';
import { call } from '../node/lib/http.mjs';
import { startServer, withServerLog } from '../node/lib/server.mjs';
import { lance } from '../node/lib/lance.mjs';
import { assertLanceError, validateLanceResponse } from '../node/lib/lance_spec.mjs';
import { connect, describeTable, tableDir, objectStorePath, manifestName, latestRecorded, rows } from './lib/managed.mjs';

const NS = ['mv', 'batch'];
const id = (name) => [...NS, name];

let server;
let api;
let db;
const dirs = {};
before(async () => {
  server = await startServer();
  api = lance(server.url);
  db = await connect(server);
  await db.createNamespace(['mv'], { properties: { managed_versioning: 'true' } });
  await db.createNamespace(NS);
  for (const name of ['a', 'b', 'c', 'd']) {
    await db.createTable(name, rows(1, 2), NS);
    dirs[name] = await tableDir(api, id(name));
  }
  const c = await db.openTable('c', NS);
  await c.add(rows(10, 1));
  await c.add(rows(20, 1));
});
after(async () => {
  await server?.cleanup();
});

/** POST /lance/v1/table/batch-commit, the answer validated against the latest spec. */
async function batchCommit(operations) {
  const res = await call(server.url, 'POST', '/lance/v1/table/batch-commit?delimiter=%24', { body: { operations } });
  validateLanceResponse('latest', 'POST', '/v1/table/batch-commit', res.status, res.json);
  return res;
}

/** A staging manifest for `version` of table `name` (a copy of its version 1) and the
 *  create_table_version operation that commits it. */
function stagedVersion(name, version) {
  const dir = dirs[name];
  const file = path.join(dir, '_versions', `${manifestName(version)}-${randomUUID()}`);
  mkdirSync(path.dirname(file), { recursive: true });
  copyFileSync(path.join(dir, '_versions', manifestName(1)), file);
  return {
    create_table_version: {
      id: id(name),
      version,
      manifest_path: objectStorePath(file),
      manifest_size: statSync(file).size,
      naming_scheme: 'V2',
    },
  };
}

/** Every version Cairn recorded for a table, ascending. */
async function recorded(name) {
  const body = await api.must('table', id(name), 'version/list', { body: { id: id(name) }, spec: 'latest' });
  return body.versions.map((v) => v.version);
}

const finalManifest = (name, version) => path.join(dirs[name], '_versions', manifestName(version));

test('a commit whose version of one table conflicts answers 409 (code 14) and changes neither table', withServerLog(() => server, async () => {
  const before = { a: await recorded('a'), b: await recorded('b') };
  const described = { a: await describeTable(api, id('a')), b: await describeTable(api, id('b')) };
  assert.equal(described.a.version, 1);

  const res = await batchCommit([stagedVersion('a', 2), stagedVersion('b', 1)]);
  assertLanceError(res, 409, 14);
  assert.match(res.json.error, /Version 1 of mv\$batch\$b already exists/);

  assert.deepEqual(await recorded('a'), before.a);
  assert.deepEqual(await recorded('b'), before.b);
  assert.deepEqual(await describeTable(api, id('a')), described.a);
  assert.deepEqual(await describeTable(api, id('b')), described.b);
  assert.ok(!existsSync(finalManifest('a', 2)), 'no final manifest left for the table that did not conflict');

  // LanceDB still reads both tables as they were.
  for (const name of ['a', 'b']) {
    const table = await (await connect(server)).openTable(name, NS);
    assert.equal(await table.version(), 1, name);
    assert.equal(await table.countRows(), 2, name);
  }

  // The same, conflicting on storage (another final manifest written behind Cairn's back)
  // after the first table's manifest was placed: that one is taken back.
  writeFileSync(finalManifest('b', 2), 'written by hand');
  assertLanceError(await batchCommit([stagedVersion('a', 2), stagedVersion('b', 2)]), 409, 14);
  assert.ok(!existsSync(finalManifest('a', 2)));
  assert.deepEqual(await recorded('a'), before.a);
  assert.deepEqual(await recorded('b'), before.b);
  rmSync(finalManifest('b', 2));
}));

test('a mixed commit — declare, a version, version deletions, a deregistration — is visible whole', withServerLog(() => server, async () => {
  assert.deepEqual(await recorded('c'), [1, 2, 3]);
  const res = await batchCommit([
    { declare_table: { id: id('fresh'), properties: { owner: 'batch' } } },
    stagedVersion('a', 2),
    { delete_table_versions: { id: id('c'), ranges: [{ start_version: 1, end_version: 3 }] } },
    { deregister_table: { id: id('d') } },
  ]);
  assert.equal(res.status, 200, res.text);
  const { results } = res.json;
  assert.equal(results.length, 4);
  assert.deepEqual(results.map((r) => Object.keys(r)), [['declare_table'], ['create_table_version'], ['delete_table_versions'], ['deregister_table']]);

  const declared = results[0].declare_table;
  assert.equal(declared.managed_versioning, true);
  assert.deepEqual(declared.properties, { owner: 'batch' });
  const fresh = await describeTable(api, id('fresh'));
  assert.equal(fresh.location, declared.location);

  const created = results[1].create_table_version.version;
  assert.equal(created.version, 2);
  assert.equal(created.manifest_path, objectStorePath(finalManifest('a', 2)));
  assert.ok(existsSync(finalManifest('a', 2)));
  assert.equal((await latestRecorded(api, id('a'))).version, 2);
  assert.equal((await describeTable(api, id('a'))).version, 2);

  assert.equal(results[2].delete_table_versions.deleted_count, 2);
  assert.deepEqual(await recorded('c'), [3]);

  assert.deepEqual(results[3].deregister_table.id, id('d'));
  assertLanceError(await api.op('table', id('d'), 'describe', { body: { id: id('d') }, spec: 'latest' }), 404, 4);
  assert.ok(existsSync(finalManifest('d', 1)), 'a deregistered table keeps its files');

  // The declared table is listed, and the deregistered one is not.
  const listed = await api.must('namespace', NS, 'table/list', { method: 'GET', spec: 'latest' });
  assert.deepEqual(listed.tables.sort(), ['a', 'b', 'c', 'fresh']);
}));

test('malformed operations and operations that may not meet answer 400 (code 13)', withServerLog(() => server, async () => {
  for (const operations of [
    [],
    [{}],
    [{ declare_table: { id: id('x') }, deregister_table: { id: id('b') } }],
    [{ deregister_table: {} }],
    [{ deregister_table: { id: id('b') } }, { delete_table_versions: { id: id('b'), ranges: [] } }],
  ]) {
    assertLanceError(await batchCommit(operations), 400, 13);
  }
  assert.equal((await describeTable(api, id('b'))).version, 1);
}));
