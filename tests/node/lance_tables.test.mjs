// Lance table semantics over HTTP: RegisterTable accepts only Lance datasets (one written
// by LanceDB reads back through Cairn), DeregisterTable keeps the files, a background drop
// reaches SUCCEEDED — also when the server is killed in between — and bad input is refused
// with InvalidInput (code 13).

import assert from 'node:assert/strict';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test, before, after } from 'node:test';
import * as lancedb from '@lancedb/lancedb';
import { startServer, makeTempDir, removeDir, withServerLog } from './lib/server.mjs';
import { lance, localPath, waitForTransaction, writeFiles } from './lib/lance.mjs';
import { assertLanceError } from './lib/lance_spec.mjs';
import { call } from './lib/http.mjs';

let server;
let dataRoot;
before(async () => {
  server = await startServer();
  // Datasets written beside Cairn must lie under the catalog's allowed locations (its
  // warehouse) to be registered.
  dataRoot = path.join(server.dataDir, 'warehouse', 'default', 'external-data');
  mkdirSync(dataRoot, { recursive: true });
});
after(async () => {
  await server?.cleanup();
  removeDir(dataRoot);
});

async function writeDataset(name, rows) {
  const local = await lancedb.connect(path.join(dataRoot, name));
  await local.createTable('t', rows);
  return path.join(dataRoot, name, 't.lance');
}

test('register accepts a LanceDB dataset and refuses empty or non-Lance directories', withServerLog(() => server, async () => {
  const api = lance(server.url);
  await api.must('namespace', ['default', 'reg'], 'create', { body: { id: ['default', 'reg'] } });
  const real = await writeDataset('real', [{ id: 7, label: 'seven' }, { id: 8, label: 'eight' }]);
  const empty = path.join(dataRoot, 'empty');
  const other = path.join(dataRoot, 'other');
  const fake = path.join(dataRoot, 'fake');
  mkdirSync(empty, { recursive: true });
  mkdirSync(other, { recursive: true });
  writeFileSync(path.join(other, 'data.csv'), 'id\n1\n');
  mkdirSync(path.join(fake, '_versions'), { recursive: true });
  writeFileSync(path.join(fake, '_versions', '1.manifest'), 'this is not a lance manifest at all');

  for (const location of [empty, other, fake, path.join(dataRoot, 'missing'), 'relative/dir', '']) {
    const res = await api.op('table', ['default', 'reg', 'bad'], 'register', { body: { id: ['default', 'reg', 'bad'], location }, spec: 'latest' });
    assertLanceError(res, 400, 13);
  }
  const res = await api.op('table', ['default', 'reg', 'bad'], 'exists', { body: {} });
  assertLanceError(res, 404, 4);

  const body = await api.must('table', ['default', 'reg', 'seven'], 'register', {
    body: { id: ['default', 'reg', 'seven'], location: `file://${real}`, properties: { source: 'lancedb' } },
    spec: 'latest',
  });
  assert.equal(body.location, `file://${real}`);
  assertLanceError(
    await api.op('table', ['default', 'reg', 'seven'], 'register', { body: { id: ['default', 'reg', 'seven'], location: real } }),
    409,
    5,
  );

  // LanceDB reads the registered dataset through Cairn.
  const db = await lancedb.connectNamespace('rest', { uri: `${server.url}/lance` });
  const rows = await (await db.openTable('seven', ['default', 'reg'])).query().toArray();
  assert.deepEqual(rows.map((r) => r.label).sort(), ['eight', 'seven']);

  // Deregister forgets the table and keeps every file: the dataset is still readable.
  await api.must('table', ['default', 'reg', 'seven'], 'deregister', { body: { id: ['default', 'reg', 'seven'] }, spec: 'latest' });
  assert.deepEqual(await db.tableNames(['default', 'reg']), []);
  assert.ok(existsSync(path.join(real, '_versions')));
  const direct = await (await lancedb.connect(path.join(dataRoot, 'real'))).openTable('t');
  assert.equal(await direct.countRows(), 2);
  // ... and can be registered again.
  await api.must('table', ['default', 'reg', 'again'], 'register', { body: { id: ['default', 'reg', 'again'], location: real } });
  await api.must('table', ['default', 'reg', 'again'], 'deregister', { body: {} });
}));

test('a background drop moves QUEUED -> RUNNING -> SUCCEEDED', async () => {
  const srv = await startServer({ config: { 'lance-async-drop-files': 0 } });
  try {
    const api = lance(srv.url);
    const db = await lancedb.connectNamespace('rest', { uri: `${srv.url}/lance` });
    await db.createNamespace(['default', 'bg']);
    await db.createTable('t', [{ id: 1 }, { id: 2 }], ['default', 'bg']);
    const { location } = await api.must('table', ['default', 'bg', 't'], 'describe', { body: {} });
    const dropped = await api.must('table', ['default', 'bg', 't'], 'drop', { spec: 'latest' });
    assert.equal(typeof dropped.transaction_id, 'string');
    // The table is gone at once; its files go in the background.
    assertLanceError(await api.op('table', ['default', 'bg', 't'], 'exists', { body: {} }), 404, 4);
    const { seen, body } = await waitForTransaction(api, dropped.transaction_id, { spec: 'latest' });
    const order = ['QUEUED', 'RUNNING', 'SUCCEEDED'];
    assert.deepEqual(seen, [...seen].sort((a, b) => order.indexOf(a) - order.indexOf(b)), `statuses seen: ${seen}`);
    assert.ok(seen.every((s) => order.includes(s)), `statuses seen: ${seen}`);
    assert.equal(body.status, 'SUCCEEDED');
    assert.equal(body.properties.target, 'default$bg$t');
    assert.ok(!existsSync(localPath(location)));
  } catch (e) {
    e.message += `\n--- cairn stderr ---\n${srv.stderr()}`;
    throw e;
  } finally {
    await srv.cleanup();
  }
});

test('a background drop reaches SUCCEEDED when the server is killed in between', async () => {
  const dataDir = makeTempDir('cairn-lance-restart-');
  let srv = await startServer({ dataDir, config: { 'lance-async-drop-files': 0 } });
  try {
    const api = lance(srv.url);
    const db = await lancedb.connectNamespace('rest', { uri: `${srv.url}/lance` });
    await db.createNamespace(['default', 'rs']);
    await db.createTable('big', [{ id: 1 }], ['default', 'rs']);
    const { location } = await api.must('table', ['default', 'rs', 'big'], 'describe', { body: {} });
    const dir = localPath(location);
    // Many files make the deletion take a while, so that the kill likely interrupts it;
    // the outcome asserted below is the same either way.
    writeFiles(path.join(dir, 'data'), 3000);
    const dropped = await api.must('table', ['default', 'rs', 'big'], 'drop', { body: { id: ['default', 'rs', 'big'] } });
    const txid = dropped.transaction_id;
    assert.equal(typeof txid, 'string');
    await srv.stop('SIGKILL');
    const interrupted = existsSync(dir);
    console.log(`kill interrupted the deletion: ${interrupted}`);

    srv = await startServer({ dataDir, config: { 'lance-async-drop-files': 0 } });
    const api2 = lance(srv.url);
    const { body } = await waitForTransaction(api2, txid, { spec: 'latest' });
    assert.equal(body.status, 'SUCCEEDED', JSON.stringify(body));
    assert.ok(!existsSync(dir), `${dir} should be gone (interrupted by the kill: ${interrupted})`);
    assertLanceError(await api2.op('table', ['default', 'rs', 'big'], 'describe', { body: {} }), 404, 4);
  } catch (e) {
    e.message += `\n--- cairn stderr ---\n${srv.stderr()}`;
    throw e;
  } finally {
    await srv.cleanup();
    removeDir(dataDir);
  }
});

test('bad input is refused with InvalidInput', withServerLog(() => server, async () => {
  const api = lance(server.url);
  await api.must('namespace', ['default', 'bad'], 'create', { body: { id: ['default', 'bad'] } });
  await api.must('namespace', ['default', 'bad', 'sub'], 'create', { body: { id: ['default', 'bad', 'sub'] } });
  await api.must('table', ['default', 'bad', 'tbl'], 'declare', { body: {} });

  const expect400 = async (method, target, body) => {
    const res = await call(server.url, method, target, body === undefined ? {} : { rawBody: body });
    assertLanceError(res, 400, 13);
    return res;
  };
  // Ids with empty levels.
  await expect400('POST', '/lance/v1/namespace/default%24%24x/create?delimiter=%24', '{}');
  await expect400('POST', '/lance/v1/namespace/%24default/create?delimiter=%24', '{}');
  await expect400('POST', '/lance/v1/namespace/default%24/create?delimiter=%24', '{}');
  await expect400('POST', '/lance/v1/table/default..bad.t/describe', '{}');
  // `..` and other names that cannot be directories.
  await expect400('POST', '/lance/v1/namespace/default%24../create?delimiter=%24', '{}');
  await expect400('POST', '/lance/v1/namespace/../create', '{}');
  await expect400('POST', '/lance/v1/namespace/default%24a%2Fb/create?delimiter=%24', '{}');
  // The delimiter inside a name (from the body), and path/body disagreement.
  const inside = await expect400('POST', '/lance/v1/namespace/default%24a%24b/create?delimiter=%24', JSON.stringify({ id: ['default', 'a$b'] }));
  assert.match(inside.json.error, /delimiter/);
  await expect400('POST', '/lance/v1/namespace/default%24a/create?delimiter=%24', JSON.stringify({ id: ['default', 'b'] }));
  await expect400('POST', '/lance/v1/table/default%24bad%24tbl/describe?delimiter=%24', JSON.stringify({ name: 'other', namespace: ['default', 'bad'] }));
  // Unknown modes.
  await expect400('POST', '/lance/v1/namespace/default%24m/create?delimiter=%24', JSON.stringify({ mode: 'Sometimes' }));
  await expect400('POST', '/lance/v1/namespace/default%24bad/drop?delimiter=%24', JSON.stringify({ behavior: 'Purge' }));
  await expect400('POST', '/lance/v1/namespace/default%24bad/drop?delimiter=%24', JSON.stringify({ mode: 'Maybe' }));
  await expect400('POST', '/lance/v1/table/default%24bad%24x/register?delimiter=%24', JSON.stringify({ location: '/x', mode: 'Replace' }));
  // A table id where a namespace is expected, and the other way round.
  const tableAsNs = await expect400('POST', '/lance/v1/namespace/default%24bad%24tbl/describe?delimiter=%24', '{}');
  assert.match(tableAsNs.json.error, /table, not a namespace/);
  await expect400('GET', '/lance/v1/namespace/default%24bad%24tbl/table/list?delimiter=%24');
  const nsAsTable = await expect400('POST', '/lance/v1/table/default%24bad%24sub/describe?delimiter=%24', '{}');
  assert.match(nsAsTable.json.error, /namespace, not a table/);
  await expect400('POST', '/lance/v1/table/default%24bad/declare?delimiter=%24', '{}');
  // Malformed bodies and parameters.
  await expect400('POST', '/lance/v1/namespace/default%24bad/describe?delimiter=%24', '{"id": [');
  await expect400('POST', '/lance/v1/namespace/default%24bad/describe?delimiter=%24', '["default"]');
  await expect400('GET', '/lance/v1/namespace/default/list?delimiter=%24&limit=0');
  await expect400('GET', '/lance/v1/namespace/default/list?delimiter=%24&page_token=nothex');
  await expect400('GET', '/lance/v1/namespace/default/list?delimiter=');
  await expect400('POST', '/lance/v1/transaction/abc/alter?delimiter=%24', JSON.stringify({ id: 'abc', actions: [] }));
  // The root and the default catalog cannot be dropped.
  await expect400('POST', '/lance/v1/namespace/%24/drop?delimiter=%24', '{}');
  await expect400('POST', '/lance/v1/namespace/default/drop?delimiter=%24', JSON.stringify({ behavior: 'Cascade' }));
  // Operations that need a query engine answer Unsupported (406, code 0), naming the
  // operation; a route no spec has is 404 with code 0.
  let res = await call(server.url, 'POST', '/lance/v1/table/default%24bad%24tbl/query?delimiter=%24', { rawBody: '{}' });
  assert.equal(res.status, 406);
  assert.equal(res.json.code, 0);
  assert.match(res.json.error, /QueryTable is not supported by Cairn: .*Lance engine/);
  res = await call(server.url, 'POST', '/lance/v1/table/default%24bad%24tbl/frobnicate?delimiter=%24', { rawBody: '{}' });
  assert.equal(res.status, 404);
  assert.equal(res.json.code, 0);
}));

test('tolerated spellings: trailing slashes, `+` for spaces, no delimiter (the 0.0.1 `.`)', withServerLog(() => server, async () => {
  let res = await call(server.url, 'POST', '/lance/v1/namespace/default%24with+space/create/?delimiter=%24', { rawBody: '{"mode":"exist_ok"}' });
  assert.equal(res.status, 200, res.text);
  res = await call(server.url, 'POST', '/lance/v1/namespace/default.with%20space/describe', { rawBody: '{"name":"with space","parent":["default"]}' });
  assert.equal(res.status, 200, res.text);
  assert.deepEqual(res.json.parent, ['default']);
  res = await call(server.url, 'GET', '/lance/v1/namespace/default/list/?delimiter=%24');
  assert.equal(res.status, 200, res.text);
  assert.ok(res.json.namespaces.includes('with space'));
  res = await call(server.url, 'GET', '/lance/v1/table/?delimiter=%24');
  assert.equal(res.status, 200, res.text);
  res = await call(server.url, 'POST', '/lance/v1/namespace/default::with+space/exists?delimiter=%3A%3A', { rawBody: '{"id":["default","with space"]}' });
  assert.equal(res.status, 200, res.text);
}));
