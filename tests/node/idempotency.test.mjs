// Idempotency-Key: the first final answer is stored with its effect and replayed for a
// repeat (also after a restart); 5xx is re-executed; a key reused for another request is 422.

import assert from 'node:assert/strict';
import path from 'node:path';
import { test, after } from 'node:test';
import { startServer, makeTempDir, removeDir } from './lib/server.mjs';
import { call } from './lib/http.mjs';
import { assertIcebergError, validateResponse } from './lib/spec.mjs';
import { catalog, icall, tableApi, sampleSchema, appendCommit, localPath, T_NAMESPACES, T_TABLE, T_CONFIG } from './lib/catalog.mjs';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { holdWriteLock } from './lib/sqlite_lock.mjs';
import { waitFor } from './lib/wait.mjs';

const servers = [];
const dirs = [];
after(async () => {
  for (const s of servers) await s.stop('SIGKILL').catch(() => {});
  for (const d of dirs) removeDir(d);
});

async function serve(args = [], dataDir) {
  const srv = await startServer({ args, dataDir });
  servers.push(srv);
  return srv;
}

/** [created_at_ms, expires_at_ms] of a stored Idempotency-Key, read from the SQLite store. */
function storedKeyTimes(srv, key) {
  const out = execFileSync('sqlite3', ['-cmd', '.timeout 5000', path.join(srv.dataDir, 'cairn.db'),
    `SELECT created_at_ms, expires_at_ms FROM idempotency_keys WHERE key = '${key}';`], { encoding: 'utf8' });
  const times = out.trim().split('|').map(Number);
  assert.ok(times.length === 2 && times.every(Number.isFinite), `no stored key ${key}: ${JSON.stringify(out)}`);
  return times;
}

const withKey = (key) => ({ headers: { 'Idempotency-Key': key } });
// The spec documents neither 404 nor 422 for createNamespace, so these answers are
// checked for the error shape (assertIcebergError) rather than against the route's schema.
const createNs = async (srv, levels, key) => {
  const res = await call(srv.url, 'POST', '/iceberg/v1/default/namespaces', { body: { namespace: levels }, ...withKey(key) });
  if (res.status === 200) validateResponse('POST', T_NAMESPACES, 200, res.json);
  return res;
};


test('config advertises the key lifetime', async () => {
  const srv = await serve();
  const res = await icall(srv.url, 'GET', '/iceberg/v1/config', T_CONFIG);
  assert.equal(res.json['idempotency-key-lifetime'], 'PT30M');
});

test('the same commit sent twice with one key adds one snapshot and both answers are equal', async () => {
  const srv = await serve();
  await catalog(srv.url).mustCreate(['idem']);
  const tables = tableApi(srv.url);
  await tables.mustCreate(['idem'], { name: 't', schema: sampleSchema() });
  const md = (await tables.mustLoad(['idem'], 't')).metadata;
  const body = appendCommit(md, 77);
  const first = await tables.commit(['idem'], 't', body, withKey('commit-key-1'));
  const second = await tables.commit(['idem'], 't', body, withKey('commit-key-1'));
  assert.equal(first.status, 200, first.text);
  assert.equal(second.status, 200, second.text);
  assert.deepEqual(second.json, first.json);
  assert.equal(second.headers.etag, first.headers.etag);
  assert.equal(second.headers['idempotent-replayed'], 'true');
  const now = (await tables.mustLoad(['idem'], 't')).metadata;
  assert.equal(now.snapshots.length, 1);
  assert.equal(now['metadata-log'].length, 1);
});

test('concurrent duplicates get one effect and equal answers', async () => {
  const srv = await serve();
  await catalog(srv.url).mustCreate(['dup']);
  const tables = tableApi(srv.url);
  await tables.mustCreate(['dup'], { name: 't', schema: sampleSchema() });
  const md = (await tables.mustLoad(['dup'], 't')).metadata;
  const body = appendCommit(md, 5);
  const answers = await Promise.all(Array.from({ length: 6 }, () => tables.commit(['dup'], 't', body, withKey('dup-key'))));
  for (const a of answers) {
    assert.equal(a.status, 200, a.text);
    assert.deepEqual(a.json, answers[0].json);
  }
  assert.equal((await tables.mustLoad(['dup'], 't')).metadata.snapshots.length, 1);
});

test('a create-namespace replay after someone else dropped it returns the stored answer and creates nothing', async () => {
  const srv = await serve();
  const first = await createNs(srv, ['gone'], 'ns-key');
  assert.equal(first.status, 200);
  assert.equal((await call(srv.url, 'DELETE', '/iceberg/v1/default/namespaces/gone')).status, 204);
  const replay = await createNs(srv, ['gone'], 'ns-key');
  assert.equal(replay.status, 200);
  assert.deepEqual(replay.json, first.json);
  assert.equal((await call(srv.url, 'HEAD', '/iceberg/v1/default/namespaces/gone')).status, 404);
});

test('a deterministic 4xx is stored too', async () => {
  const srv = await serve();
  const first = await createNs(srv, ['parent', 'child'], 'missing-parent');
  assertIcebergError(first, 404, 'NoSuchNamespaceException');
  assert.equal((await createNs(srv, ['parent'], 'other-key')).status, 200);
  const replay = await createNs(srv, ['parent', 'child'], 'missing-parent');
  assertIcebergError(replay, 404, 'NoSuchNamespaceException');
  assert.equal(replay.text, first.text);
});

test('a retry after a restart returns the stored answer', async () => {
  const dataDir = makeTempDir('cairn-node-idem-');
  dirs.push(dataDir);
  let srv = await startServer({ dataDir });
  const first = await createNs(srv, ['durable'], 'restart-key');
  assert.equal(first.status, 200);
  await call(srv.url, 'DELETE', '/iceberg/v1/default/namespaces/durable');
  assert.equal(await srv.stop('SIGTERM'), 0);
  srv = await serve([], dataDir);
  const replay = await createNs(srv, ['durable'], 'restart-key');
  assert.equal(replay.status, 200);
  assert.deepEqual(replay.json, first.json);
  assert.equal((await call(srv.url, 'HEAD', '/iceberg/v1/default/namespaces/durable')).status, 404);
});

test('a 5xx is not stored: the retry executes', async () => {
  const srv = await serve(['--sqlite-busy-timeout-ms', '200']);
  const lock = await holdWriteLock(path.join(srv.dataDir, 'cairn.db'));
  const busy = await createNs(srv, ['later'], 'busy-key');
  assertIcebergError(busy, 503, 'ServiceUnavailableException');
  await lock.release();
  const retry = await createNs(srv, ['later'], 'busy-key');
  assert.equal(retry.status, 200, retry.text);
  assert.equal((await call(srv.url, 'HEAD', '/iceberg/v1/default/namespaces/later')).status, 204);
});

test('a key reused for a different request is 422; an invalid key is 400', async () => {
  const srv = await serve();
  assert.equal((await createNs(srv, ['a'], 'reused')).status, 200);
  const other = await createNs(srv, ['b'], 'reused');
  const err = assertIcebergError(other, 422, 'UnprocessableEntityException');
  assert.match(err.message, /reused/);
  assert.equal((await call(srv.url, 'HEAD', '/iceberg/v1/default/namespaces/b')).status, 404);
  const drop = await call(srv.url, 'DELETE', '/iceberg/v1/default/namespaces/a', withKey('reused'));
  assertIcebergError(drop, 422, 'UnprocessableEntityException');
  assertIcebergError(await createNs(srv, ['c'], 'x'.repeat(129)), 400, 'BadRequestException');
});

test('keys expire after the configured lifetime', async () => {
  const srv = await serve(['--idempotency-key-lifetime', 'PT1S']);
  const res = await icall(srv.url, 'GET', '/iceberg/v1/config', T_CONFIG);
  assert.equal(res.json['idempotency-key-lifetime'], 'PT1S');
  assert.equal((await createNs(srv, ['first'], 'short-lived')).status, 200);
  // The stored key carries its expiry; the server compares it with the same clock as Date.now().
  const [created, expires] = storedKeyTimes(srv, 'short-lived');
  assert.equal(expires - created, 1000, 'the key must live for the configured PT1S');
  await waitFor(() => Date.now() > expires, { timeoutMs: 5000, what: `key "short-lived" to pass its expiry (${expires})` });
  const later = await createNs(srv, ['second'], 'short-lived');
  assert.equal(later.status, 200, later.text);
  assert.deepEqual(later.json.namespace, ['second']);
});

test('drop and commit routes honour keys as well (T_TABLE)', async () => {
  const srv = await serve();
  await catalog(srv.url).mustCreate(['d']);
  const tables = tableApi(srv.url);
  await tables.mustCreate(['d'], { name: 't', schema: sampleSchema() });
  const url = '/iceberg/v1/default/namespaces/d/tables/t';
  const first = await icall(srv.url, 'DELETE', url, T_TABLE, withKey('drop-key'));
  const again = await icall(srv.url, 'DELETE', url, T_TABLE, withKey('drop-key'));
  assert.equal(first.status, 204);
  assert.equal(again.status, 204);  // the stored answer, not a 404
});

test('an idempotent purge deletes the files once the drop committed; its replay is the same 204', async () => {
  const srv = await serve();
  await catalog(srv.url).mustCreate(['p']);
  const tables = tableApi(srv.url);
  const created = await tables.mustCreate(['p'], { name: 't', schema: sampleSchema() });
  const dir = localPath(created.metadata.location);
  assert.ok(existsSync(dir));
  const url = '/iceberg/v1/default/namespaces/p/tables/t?purgeRequested=true';
  const first = await icall(srv.url, 'DELETE', url, T_TABLE, withKey('purge-key'));
  assert.equal(first.status, 204, first.text);
  assert.ok(!existsSync(dir), 'purge left the table directory behind');
  const again = await icall(srv.url, 'DELETE', url, T_TABLE, withKey('purge-key'));
  assert.equal(again.status, 204);
  assert.equal(again.headers['idempotent-replayed'], 'true');
});
