// LanceDB 0.39 (connectNamespace("rest")) against Cairn with managed versioning: a catalog
// created with the property managed_versioning = "true" makes its Lance tables managed, so every
// commit LanceDB makes is a CreateTableVersion that Cairn records and materializes at the final
// `_versions/<name>.manifest`. Each check compares what Cairn recorded with the files.

import assert from 'node:assert/strict';
import { test, before, after } from 'node:test';
import { withServerLog } from '../node/lib/server.mjs';
import {
  connect,
  startWithCatalogs,
  describeTable,
  tableDir,
  objectStorePath,
  latestRecorded,
  assertLatestRecorded,
  assertNoStaging,
  assertEveryVersionOnStorage,
  localExists,
  versionFiles,
  isStaging,
  rows,
} from './lib/managed.mjs';

let server;
let db;
let api;
before(async () => {
  ({ server, db, api } = await startWithCatalogs());
});
after(async () => {
  await server?.cleanup();
});

/** Checks after a commit: `version` recorded, its manifest on disk, no staging file left. */
async function assertCommitted(levels, dir, version) {
  await assertLatestRecorded(api, levels, version, { tableKey: objectStorePath(dir), exists: localExists });
  assertNoStaging(dir);
}

test('a managed session: each commit is recorded with its final manifest; checkout, tags, restore', withServerLog(() => server, async () => {
  const ns = ['mv', 's1'];
  await db.createNamespace(ns);
  const levels = [...ns, 't'];
  const table = await db.createTable('t', rows(1, 2), ns);
  const described = await describeTable(api, levels);
  assert.equal(described.managed_versioning, true, JSON.stringify(described));
  const dir = await tableDir(api, levels);
  assert.equal(await table.version(), 1);
  await assertCommitted(levels, dir, 1);

  const counts = [2];
  for (let i = 0; i < 3; i++) {
    await table.add(rows(100 + 10 * i, i + 1));
    counts.push(counts[counts.length - 1] + i + 1);
    assert.equal(await table.version(), i + 2);
    await assertCommitted(levels, dir, i + 2);
  }

  // Every version reads back with its own rows, through a fresh connection too.
  const reader = await (await connect(server)).openTable('t', ns);
  assert.equal(await reader.version(), 4);
  for (let v = 1; v <= 4; v++) {
    await reader.checkout(v);
    assert.equal(await reader.version(), v);
    assert.equal(await reader.countRows(), counts[v - 1], `rows of version ${v}`);
  }
  await reader.checkoutLatest();
  assert.equal(await reader.countRows(), counts[3]);
  assert.deepEqual((await reader.listVersions()).map((v) => v.version), [1, 2, 3, 4]);

  // Tags are the client's own files; checking one out goes through DescribeTableVersion.
  const tags = await table.tags();
  await tags.create('second', 2);
  assert.equal(await tags.getVersion('second'), 2);
  await reader.checkout('second');
  assert.equal(await reader.version(), 2);
  assert.equal(await reader.countRows(), counts[1]);
  await reader.checkoutLatest();

  // restore() of version 1 is a new commit, recorded like the others.
  await table.checkout(1);
  await table.restore();
  assert.equal(await table.version(), 5);
  assert.equal(await table.countRows(), counts[0]);
  await assertCommitted(levels, dir, 5);
  const reopened = await (await connect(server)).openTable('t', ns);
  assert.equal(await reopened.version(), 5);
  assert.equal(await reopened.countRows(), counts[0]);
  assert.equal(await assertEveryVersionOnStorage(api, levels, localExists), 5);
}));

test('two connections appending at once: both land or one fails cleanly, never a lost version', withServerLog(() => server, async () => {
  const ns = ['mv', 's2'];
  await db.createNamespace(ns);
  const levels = [...ns, 't'];
  await db.createTable('t', rows(1, 1), ns);
  const dir = await tableDir(api, levels);
  const a = await (await connect(server)).openTable('t', ns);
  const b = await (await connect(server)).openTable('t', ns);

  let expectedRows = 1;
  let commits = 1;
  const rejections = [];
  for (let round = 0; round < 4; round++) {
    const batchA = rows(1000 + 100 * round, 2, 'a');
    const batchB = rows(5000 + 100 * round, 3, 'b');
    const before = (await latestRecorded(api, levels)).version;
    const settled = await Promise.allSettled([a.add(batchA), b.add(batchB)]);
    settled.forEach((s, i) => {
      if (s.status === 'fulfilled') {
        expectedRows += [batchA, batchB][i].length;
        commits += 1;
      } else {
        assert.ok(s.reason instanceof Error, `round ${round}: ${s.reason}`);
        assert.match(s.reason.message, /commit|conflict|concurrent/i, `round ${round}`);
        rejections.push(s.reason.message);
      }
    });
    const after = (await latestRecorded(api, levels)).version;
    const landed = settled.filter((s) => s.status === 'fulfilled').length;
    assert.equal(after, before + landed, `round ${round}: versions ${before} -> ${after}, ${landed} adds landed`);
  }

  // Every recorded version has its manifest; the table holds exactly the rows of the adds
  // that succeeded.
  assert.equal(await assertEveryVersionOnStorage(api, levels, localExists), commits);
  assertNoStaging(dir);
  const fresh = await (await connect(server)).openTable('t', ns);
  assert.equal(await fresh.version(), commits);
  assert.equal(await fresh.countRows(), expectedRows, `rejections: ${JSON.stringify(rejections)}`);
}));

test('a table in a catalog without the property is not managed and works as before', withServerLog(() => server, async () => {
  const ns = ['plain', 'p'];
  await db.createNamespace(ns);
  const levels = [...ns, 't'];
  const table = await db.createTable('t', rows(1, 2), ns);
  await table.add(rows(10, 1));
  const described = await describeTable(api, levels);
  assert.equal(described.managed_versioning ?? false, false, JSON.stringify(described));

  // LanceDB wrote its final manifests itself, with no staging step.
  const dir = await tableDir(api, levels);
  const files = versionFiles(dir);
  assert.ok(files.filter((f) => f.endsWith('.manifest')).length >= 2, files.join(' '));
  assert.deepEqual(files.filter(isStaging), []);

  const reader = await (await connect(server)).openTable('t', ns);
  assert.equal(await reader.countRows(), 3);
  await reader.checkout(1);
  assert.equal(await reader.countRows(), 2);
  await table.checkout(1);
  await table.restore();
  assert.equal(await table.version(), 3);
  assert.equal(await (await (await connect(server)).openTable('t', ns)).countRows(), 2);
}));

test('DeclareTable: managed_versioning follows the catalog unless the table property overrides it', withServerLog(() => server, async () => {
  await api.must('namespace', ['mv', 'decl'], 'create', { body: { id: ['mv', 'decl'] } });
  await api.must('namespace', ['plain', 'decl'], 'create', { body: { id: ['plain', 'decl'] } });
  const cases = [
    [['mv', 'decl', 'inherits'], undefined, true],
    [['mv', 'decl', 'opted_out'], 'false', false],
    [['plain', 'decl', 'inherits'], undefined, false],
    [['plain', 'decl', 'opted_in'], 'true', true],
  ];
  for (const [levels, override, managed] of cases) {
    const body = { id: levels };
    if (override !== undefined) body.properties = { managed_versioning: override };
    const declared = await api.must('table', levels, 'declare', { body, spec: 'latest' });
    assert.equal(declared.managed_versioning ?? false, managed, `declare ${levels}: ${JSON.stringify(declared)}`);
    const described = await describeTable(api, levels);
    assert.equal(described.managed_versioning ?? false, managed, `describe ${levels}: ${JSON.stringify(described)}`);
  }
}));

// Switching an existing table to managed: a table LanceDB wrote unmanaged is deregistered
// (its files stay) and registered again with managed_versioning = "true". Its versions
// are on storage, none recorded: LanceDB opens it (the latest found on storage and
// recorded then), reads the old versions, and its next commit is a CreateTableVersion.
test('an unmanaged table registered again as managed keeps its versions and commits through Cairn', withServerLog(() => server, async () => {
  const ns = ['plain', 'switch'];
  await db.createNamespace(ns);
  const levels = [...ns, 't'];
  const table = await db.createTable('t', rows(0, 3), ns); // v1, unmanaged
  await table.add(rows(10, 2)); // v2
  assert.equal((await describeTable(api, levels)).managed_versioning ?? false, false);
  const dir = await tableDir(api, levels);
  const location = (await describeTable(api, levels)).location;
  await api.must('table', levels, 'deregister', { body: { id: levels }, spec: 'latest' });

  const registered = await api.must('table', levels, 'register', {
    body: { id: levels, location, properties: { managed_versioning: 'true' } },
    spec: 'latest',
  });
  assert.equal(registered.location, location);
  assert.equal((await describeTable(api, levels)).managed_versioning, true);
  // Nothing was recorded: the latest is found on storage (and recorded then).
  assert.equal((await latestRecorded(api, levels))?.version, 2);

  const reader = await (await connect(server)).openTable('t', ns);
  assert.equal(await reader.version(), 2);
  assert.equal(await reader.countRows(), 5);
  await reader.checkout(1);
  assert.equal(await reader.countRows(), 3);
  await reader.checkoutLatest();
  await reader.add(rows(20, 1)); // v3, through CreateTableVersion
  await assertCommitted(levels, dir, 3);
  const listed = await api.must('table', levels, 'version/list', { body: { id: levels }, spec: 'latest' });
  assert.ok(listed.versions.some((v) => v.version === 3), JSON.stringify(listed));
  assert.equal(await (await (await connect(server)).openTable('t', ns)).countRows(), 6);
}));
