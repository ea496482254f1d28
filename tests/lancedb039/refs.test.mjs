// Tags and branches through Cairn's namespace and through LanceDB 0.39 at once: both keep them
// in the dataset's own `_refs/` files, so a tag LanceDB created is listed by ListTableTags and a
// tag created through Cairn is one LanceDB lists, resolves and checks out. Every answer is
// validated against the latest Lance spec.

import assert from 'node:assert/strict';
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { test, before, after } from 'node:test';
import { startServer, withServerLog } from '../node/lib/server.mjs';
import { lance } from '../node/lib/lance.mjs';
import { assertLanceError, validateLanceResponse } from '../node/lib/lance_spec.mjs';
import { connect, filesBelow, manifestName, rows, threeVersions as sharedThreeVersions } from './lib/managed.mjs';

let server;
let db;
let api;
before(async () => {
  server = await startServer();
  db = await connect(server);
  api = lance(server.url);
  await db.createNamespace(['refs']);
  await db.createNamespace(['refs', 'ns']);
  await db.createNamespace(['mv'], { properties: { managed_versioning: 'true' } });
  await db.createNamespace(['mv', 'ns']);
});
after(async () => {
  await server?.cleanup();
});

/** A table of three versions holding 2, 3 and 5 rows, with its levels and directory. */
const threeVersions = (ns, name) => sharedThreeVersions(db, api, ns, name);
const COUNTS = [2, 3, 5];

/**
 * ListTableTags or ListTableBranches (`what`): GET as Lance's REST client sends it, or POST as
 * the spec says; either answer is checked against the spec's (POST) operation.
 */
async function list(levels, what, { method = 'GET', query } = {}) {
  const body = method === 'POST' ? { id: levels } : undefined;
  const res = await api.op('table', levels, `${what}/list`, { method, body, query });
  validateLanceResponse('latest', 'POST', `/v1/table/{id}/${what}/list`, res.status, res.json);
  assert.equal(res.status, 200, res.text);
  return res.json;
}
const listTags = (levels, opts) => list(levels, 'tags', opts);

function tagOp(levels, action, body) {
  return api.op('table', levels, `tags/${action}`, { body: { id: levels, ...body }, spec: 'latest' });
}

test('a tag LanceDB created is listed and resolved by the namespace', withServerLog(() => server, async () => {
  const { table, levels, dir } = await threeVersions(['refs', 'ns'], 'by_lancedb');
  const tags = await table.tags();
  await tags.create('first', 1);
  await tags.create('v2.0-rc_1', 2);

  for (const method of ['GET', 'POST']) {
    const listed = await listTags(levels, { method });
    assert.deepEqual(Object.keys(listed.tags), ['first', 'v2.0-rc_1'], method);
    assert.deepEqual(listed.tags.first, {
      version: 1,
      manifestSize: statSync(path.join(dir, '_versions', manifestName(1))).size,
    });
    assert.equal(listed.tags['v2.0-rc_1'].version, 2);
    assert.equal(listed.page_token, undefined);
  }
  const page = await listTags(levels, { query: 'limit=1' });
  assert.deepEqual(Object.keys(page.tags), ['first']);
  assert.equal(page.page_token, 'first');
  const rest = await listTags(levels, { query: `limit=1&page_token=${page.page_token}` });
  assert.deepEqual(Object.keys(rest.tags), ['v2.0-rc_1']);

  const version = await tagOp(levels, 'version', { tag: 'v2.0-rc_1' });
  assert.equal(version.status, 200, version.text);
  assert.deepEqual(version.json, { version: 2 });
}));

test('DescribeTable with a tag describes the tagged version; a missing tag is code 8', withServerLog(() => server, async () => {
  const { table, levels } = await threeVersions(['refs', 'ns'], 'described_by_tag');
  await (await table.tags()).create('second', 2);
  const describe = (body, query = '') => api.op('table', levels, 'describe', {
    body: { id: levels, ...body }, query, spec: 'latest',
  });

  const tagged = await describe({ tag: 'second' });
  assert.equal(tagged.status, 200, tagged.text);
  assert.equal(tagged.json.version, 2);
  assert.ok(tagged.json.schema?.fields?.length > 0, tagged.text);
  const latest = await describe({}, 'load_detailed_metadata=true');
  assert.equal(latest.json.version, 3);

  const missing = await describe({ tag: 'no_such_tag' });
  assertLanceError(missing, 404, 8);
}));

test('a tag created through the namespace is LanceDB\'s to list, resolve and check out', withServerLog(() => server, async () => {
  const { table, levels, dir } = await threeVersions(['refs', 'ns'], 'by_cairn');
  const created = await tagOp(levels, 'create', { tag: 'stable', version: 2 });
  assert.equal(created.status, 200, created.text);

  const tags = await table.tags();
  assert.equal(await tags.getVersion('stable'), 2);
  const listed = await tags.list();
  assert.deepEqual(Object.keys(listed), ['stable']);
  assert.equal(listed.stable.version, 2);
  assert.equal(listed.stable.manifestSize, statSync(path.join(dir, '_versions', manifestName(2))).size);
  const reader = await (await connect(server)).openTable('by_cairn', ['refs', 'ns']);
  await reader.checkout('stable');
  assert.equal(await reader.version(), 2);
  assert.equal(await reader.countRows(), COUNTS[1]);

  // Retargeted through the namespace: LanceDB follows.
  const updated = await tagOp(levels, 'update', { tag: 'stable', version: 1 });
  assert.equal(updated.status, 200, updated.text);
  assert.equal(await tags.getVersion('stable'), 1);
  const again = await (await connect(server)).openTable('by_cairn', ['refs', 'ns']);
  await again.checkout('stable');
  assert.equal(await again.countRows(), COUNTS[0]);

  // LanceDB retargets; the namespace follows. Then the namespace deletes it.
  await tags.update('stable', 3);
  assert.equal((await tagOp(levels, 'version', { tag: 'stable' })).json.version, 3);
  const deleted = await tagOp(levels, 'delete', { tag: 'stable' });
  assert.equal(deleted.status, 200, deleted.text);
  assert.deepEqual(await tags.list(), {});
  assert.deepEqual((await listTags(levels)).tags, {});
}));

test('tag errors carry the spec\'s codes, and bad names touch no file', withServerLog(() => server, async () => {
  const { levels, dir } = await threeVersions(['refs', 'ns'], 'errors');
  assert.equal((await tagOp(levels, 'create', { tag: 'taken', version: 1 })).status, 200);
  const before = filesBelow(path.dirname(dir));

  assertLanceError(await tagOp(levels, 'create', { tag: 'taken', version: 2 }), 409, 9);
  assertLanceError(await tagOp(levels, 'version', { tag: 'nope' }), 404, 8);
  assertLanceError(await tagOp(levels, 'update', { tag: 'nope', version: 1 }), 404, 8);
  assertLanceError(await tagOp(levels, 'delete', { tag: 'nope' }), 404, 8);
  assertLanceError(await tagOp(levels, 'create', { tag: 'later', version: 99 }), 404, 11);
  assertLanceError(await tagOp(levels, 'update', { tag: 'taken', version: 99 }), 404, 11);
  assertLanceError(await tagOp(levels, 'create', { tag: 'b', version: 1, branch: 'nope' }), 404, 11);
  assertLanceError(await tagOp(levels, 'create', { tag: 'x' }), 400, 13);
  assertLanceError(await tagOp(levels, 'create', { tag: 'x', version: -1 }), 400, 13);
  assertLanceError(await api.op('table', ['refs', 'ns', 'ghost'], 'tags/list', { method: 'GET' }), 404, 4);

  const bad = ['../x', '../../escape', '', 'a/b', '/abs', '.hidden', 'x.lock', 'a..b', 'x'.repeat(300), 'a\\b', 'é'];
  for (const tag of bad) {
    for (const [action, extra] of [['create', { version: 1 }], ['update', { version: 1 }], ['version', {}], ['delete', {}]]) {
      assertLanceError(await tagOp(levels, action, { tag, ...extra }), 400, 13);
    }
  }
  assertLanceError(await tagOp(levels, 'create', { tag: 'ok', version: 1, branch: '../x' }), 400, 13);
  assertLanceError(await api.op('table', levels, 'tags/list', { method: 'GET', query: 'limit=0' }), 400, 13);
  assert.deepEqual(filesBelow(path.dirname(dir)), before, 'a refused request changed files');
  assert.deepEqual(filesBelow(path.join(dir, '_refs')), ['tags/taken.json']);
}));

test('branches LanceDB created are listed, tagged and deleted through the namespace', withServerLog(() => server, async () => {
  const ns = ['refs', 'ns'];
  const { table, levels, dir } = await threeVersions(ns, 'branched');
  const branches = await table.branches();
  const feat = await branches.create('feat/x');
  await feat.add(rows(100, 4));
  const featVersion = await feat.version();
  assert.equal(await feat.countRows(), COUNTS[2] + 4);

  const listed = await list(levels, 'branches');
  assert.deepEqual(Object.keys(listed.branches), ['feat/x']);
  assert.equal(listed.branches['feat/x'].parentVersion, 3);
  assert.equal(listed.branches['feat/x'].parentBranch, undefined);
  const posted = await list(levels, 'branches', { method: 'POST' });
  assert.deepEqual(posted, listed);

  // A tag on the branch's version, through the namespace: LanceDB checks out the branch's rows.
  const tagged = await tagOp(levels, 'create', { tag: 'feat-head', version: featVersion, branch: 'feat/x' });
  assert.equal(tagged.status, 200, tagged.text);
  assert.deepEqual((await tagOp(levels, 'version', { tag: 'feat-head' })).json, { version: featVersion, branch: 'feat/x' });
  const reader = await (await connect(server)).openTable('branched', ns);
  await reader.checkout('feat-head');
  assert.equal(await reader.countRows(), COUNTS[2] + 4);

  const del = (name, spec = 'latest') => api.op('table', levels, 'branches/delete', { body: { id: levels, name }, spec });
  // The tag points at it: InvalidTableState, 409 as Lance's REST adapter answers that code
  // (the spec lists no 409 for this operation, hence no status check against it).
  assertLanceError(await del('feat/x', null), 409, 19);
  assertLanceError(await del('nope'), 404, 22);
  assertLanceError(await del('../branched'), 400, 13);
  assert.ok(existsSync(path.join(dir, 'tree', 'feat', 'x', '_versions')));
  assert.equal((await tagOp(levels, 'delete', { tag: 'feat-head' })).status, 200);
  const deleted = await del('feat/x');
  assert.equal(deleted.status, 200, deleted.text);
  assert.deepEqual(await branches.list(), {});
  assert.ok(!existsSync(path.join(dir, 'tree', 'feat')), 'the branch directory is gone');
  const main = await (await connect(server)).openTable('branched', ns);
  assert.equal(await main.countRows(), COUNTS[2]);
}));

test('a managed table\'s versions are tagged through the namespace and checked out by LanceDB', withServerLog(() => server, async () => {
  const { table, levels } = await threeVersions(['mv', 'ns'], 'managed');
  const created = await tagOp(levels, 'create', { tag: 'one', version: 1 });
  assert.equal(created.status, 200, created.text);
  assert.equal(await (await table.tags()).getVersion('one'), 1);
  const reader = await (await connect(server)).openTable('managed', ['mv', 'ns']);
  await reader.checkout('one');
  assert.equal(await reader.countRows(), COUNTS[0]);
  assertLanceError(await tagOp(levels, 'create', { tag: 'ahead', version: 4 }), 404, 11);
}));
