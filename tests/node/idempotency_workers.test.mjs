// Idempotency-Key duplicates and dead claims:
// - duplicates of a request that is still in progress hold no worker thread while they wait
//   for its answer: with two workers and twenty duplicates waiting, reads and /health/ready
//   are still served; the duplicates then get the stored answer (or 503 with Retry-After);
// - a claim held by a server that died (kill -9) is taken over after a restart, or by another
//   replica, within seconds instead of after the claim's 60 s lease.
//
// On SQLite, a request "in progress" is made by turning a real request's stored answer back
// into an unanswered claim with the sqlite3 CLI (nothing in a real request can be made to
// stop half-way there from outside). On PostgreSQL (when scripts/test provides one) it is a
// real request blocked on a row lock that psql holds.

import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import path from 'node:path';
import { test, after } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { startServer, makeTempDir, removeDir, stderrTail } from './lib/server.mjs';
import { call } from './lib/http.mjs';
import { waitFor } from './lib/wait.mjs';
import { assertIcebergError } from './lib/spec.mjs';
import {
  postgresAvailable,
  POSTGRES_SKIP_MESSAGE,
  createDatabase,
  dropDatabase,
  psql,
} from './lib/postgres.mjs';

const servers = [];
const dirs = [];
after(async () => {
  for (const s of servers) await s.stop('SIGKILL').catch(() => {});
  for (const d of dirs) removeDir(d);
});

async function serve({ args = [], dataDir } = {}) {
  const srv = await startServer({ args: ['--worker-threads', '2', ...args], dataDir });
  servers.push(srv);
  return srv;
}

const NS = '/iceberg/v1/default/namespaces';
// A hang guard well below the 60 s lease, and above the 10 s a duplicate may wait.
const GUARD_MS = 30_000;

const createNs = (srv, levels, key, timeoutMs = GUARD_MS) =>
  call(srv.url, 'POST', NS, {
    body: { namespace: levels },
    headers: key ? { 'Idempotency-Key': key } : {},
    timeoutMs,
  });

/** Runs SQL on a SQLite database with the sqlite3 CLI; resolves with its output lines. */
function sqlite(dbFile, sql) {
  return new Promise((resolve, reject) => {
    execFile('sqlite3', ['-cmd', '.timeout 10000', dbFile, sql], { timeout: 20_000 }, (err, stdout, stderr) => {
      if (err) reject(new Error(`sqlite3 failed: ${err.message}\n${stderr}`));
      else resolve(stdout.split('\n').filter((l) => l.length > 0));
    });
  });
}

/** Makes the answered claim of `key` look like a request that is still running. */
const SQL_UNANSWER = (key, { leaseUntil }) =>
  'CREATE TABLE IF NOT EXISTS test_saved_answers (key TEXT PRIMARY KEY, answer TEXT); ' +
  `INSERT OR REPLACE INTO test_saved_answers SELECT key, answer FROM idempotency_keys WHERE key = '${key}'; ` +
  `UPDATE idempotency_keys SET answer = NULL, applied = 0, lease_until_ms = ${leaseUntil} WHERE key = '${key}';`;
/** Undoes SQL_UNANSWER: the request's answer lands, with its effect applied. */
const SQL_ANSWER = (key) =>
  `UPDATE idempotency_keys SET applied = 1, answer = (SELECT answer FROM test_saved_answers WHERE key = '${key}') WHERE key = '${key}';`;

/** The server's `cairn_http_pending_requests` gauge: requests waiting, holding no worker,
 * for the answer of a running request with their Idempotency-Key. */
async function pendingRequests(srv) {
  const metrics = await call(srv.url, 'GET', '/metrics', { timeoutMs: GUARD_MS });
  assert.equal(metrics.status, 200, metrics.text);
  const match = /^cairn_http_pending_requests (\d+)$/m.exec(metrics.text);
  assert.ok(match, 'no cairn_http_pending_requests in /metrics');
  return Number(match[1]);
}

/** Starts `count` calls at once; tracks how many have settled. A call that fails (its
 * connection broke) resolves with its error. */
function startAll(count, fn) {
  const tracker = { settled: 0, promises: [] };
  for (let i = 0; i < count; i++) {
    tracker.promises.push(
      fn(i)
        .catch((err) => err)
        .finally(() => {
          tracker.settled += 1;
        }),
    );
  }
  return tracker;
}

/** A duplicate's answer: the stored one replayed, or 503 with Retry-After. */
function assertReplayOrRetryLater(res, first) {
  assert.ok(!(res instanceof Error), String(res));
  if (res.status === 503) {
    assertIcebergError(res, 503, 'ServiceUnavailableException');
    assert.ok(res.headers['retry-after'], 'a 503 for a duplicate must carry Retry-After');
    return 'busy';
  }
  assert.equal(res.status, first.status, res.text);
  assert.deepEqual(res.json, first.json);
  assert.equal(res.headers['idempotent-replayed'], 'true');
  return 'replayed';
}

test('duplicates waiting for a running request hold no worker: reads and health are served meanwhile', async () => {
  const srv = await serve();
  const db = path.join(srv.dataDir, 'cairn.db');
  const first = await createNs(srv, ['slow'], 'held-key');
  assert.equal(first.status, 200, first.text);
  // The claim names the live server process that holds it.
  const [instance] = await sqlite(db, "SELECT instance FROM idempotency_keys WHERE key = 'held-key';");
  assert.deepEqual(await sqlite(db, 'SELECT id FROM server_instances;'), [instance]);

  await sqlite(db, SQL_UNANSWER('held-key', { leaseUntil: Date.now() + 600_000 }));
  const duplicates = startAll(20, () => createNs(srv, ['slow'], 'held-key'));
  await waitFor(async () => (await pendingRequests(srv)) === 20, {
    what: 'all twenty duplicates to wait for the first answer',
  });

  // Two workers, twenty duplicates waiting: a list and the readiness probe still run.
  const list = await call(srv.url, 'GET', NS, { timeoutMs: GUARD_MS });
  assert.equal(list.status, 200, list.text);
  assert.deepEqual(list.json.namespaces, [['slow']]);
  const ready = await call(srv.url, 'GET', '/health/ready', { timeoutMs: GUARD_MS });
  assert.equal(ready.status, 200, ready.text);
  assert.equal(duplicates.settled, 0, 'the duplicates must still be waiting for the first answer');

  // The first request's answer lands: the waiting duplicates get it.
  await sqlite(db, SQL_ANSWER('held-key'));
  const answers = await Promise.all(duplicates.promises);
  const kinds = answers.map((res) => assertReplayOrRetryLater(res, first));
  assert.ok(kinds.includes('replayed'), `expected replayed answers, got ${kinds.join(', ')}`);
});

test('a duplicate whose first request never finishes gets 503 with Retry-After after a bounded wait', async () => {
  const srv = await serve();
  const db = path.join(srv.dataDir, 'cairn.db');
  assert.equal((await createNs(srv, ['stuck'], 'stuck-key')).status, 200);
  await sqlite(db, SQL_UNANSWER('stuck-key', { leaseUntil: Date.now() + 600_000 }));
  const res = await createNs(srv, ['stuck'], 'stuck-key');
  assertIcebergError(res, 503, 'ServiceUnavailableException');
  assert.equal(res.headers['retry-after'], '1');
  assert.match(res.json.error.message, /still in progress/);
  // Meanwhile the server stayed responsive.
  assert.equal((await call(srv.url, 'GET', '/health/ready', { timeoutMs: GUARD_MS })).status, 200);
});

test('after kill -9 of the server holding a claim, a retry on the restarted server executes without waiting for the lease', async () => {
  const dataDir = makeTempDir('cairn-node-idem-crash-');
  dirs.push(dataDir);
  const db = path.join(dataDir, 'cairn.db');
  const crashed = await serve({ dataDir });
  const first = await createNs(crashed, ['crashed'], 'crash-key');
  assert.equal(first.status, 200, first.text);
  // As if the server died while running the request, before its effect committed: the
  // effect is not there and the key is claimed, unanswered, for the next 60 s.
  assert.equal((await call(crashed.url, 'DELETE', `${NS}/crashed`)).status, 204);
  await sqlite(db, SQL_UNANSWER('crash-key', { leaseUntil: Date.now() + 60_000 }));
  await crashed.stop('SIGKILL');
  assert.equal((await sqlite(db, 'SELECT count(*) FROM server_instances;'))[0], '1', 'the dead server is still registered');

  const restarted = await serve({ dataDir });
  const t0 = Date.now();
  let retry;
  for (;;) {
    retry = await createNs(restarted, ['crashed'], 'crash-key');
    if (retry.status !== 503 || Date.now() - t0 > GUARD_MS) break;
    assert.ok(retry.headers['retry-after'], retry.text);
    await sleep(1000 * Number(retry.headers['retry-after']));
  }
  assert.equal(retry.status, 200, `${retry.text}\n${stderrTail(restarted)}`);
  assert.equal(retry.headers['idempotent-replayed'], undefined, 'the retry must execute, not replay');
  assert.ok(Date.now() - t0 < GUARD_MS, 'the retry must not wait for the 60 s lease');
  assert.equal((await call(restarted.url, 'HEAD', `${NS}/crashed`)).status, 204);
  // Its answer is stored now.
  const replay = await createNs(restarted, ['crashed'], 'crash-key');
  assert.equal(replay.headers['idempotent-replayed'], 'true');

  // The claim was taken over by the restarted process; a clean stop unregisters it (its
  // claims would be free at once), while the killed one stays until it is forgotten.
  const [holder] = await sqlite(db, "SELECT instance FROM idempotency_keys WHERE key = 'crash-key';");
  const registered = await sqlite(db, 'SELECT id FROM server_instances;');
  assert.ok(registered.includes(holder), `${holder} not in ${registered}`);
  assert.equal(await restarted.stop('SIGTERM'), 0);
  const after = await sqlite(db, 'SELECT id FROM server_instances;');
  assert.ok(!after.includes(holder), 'a clean stop must unregister the process');
  assert.equal(after.length, registered.length - 1);
});

/** Holds an exclusive lock on the rows `select` returns, from psql, until released. */
async function holdRowLock(url, select) {
  const proc = spawn(
    process.env.CAIRN_TEST_POSTGRES_BIN ? path.join(process.env.CAIRN_TEST_POSTGRES_BIN, 'psql') : 'psql',
    [url, '-X', '-q', '-A', '-t'],
    { stdio: ['pipe', 'pipe', 'pipe'] },
  );
  let out = '';
  proc.stdout.on('data', (d) => (out += d));
  proc.stdin.write(`BEGIN; ${select} FOR UPDATE; SELECT 'locked';\n`);
  const t0 = Date.now();
  while (!out.includes('locked')) {
    assert.ok(Date.now() - t0 < 10_000, 'psql did not take the row lock');
    await sleep(20);
  }
  return {
    release: () =>
      new Promise((resolve) => {
        proc.on('close', resolve);
        proc.stdin.end('ROLLBACK;\n\\q\n');
      }),
  };
}

test('replicas on PostgreSQL: duplicates of a blocked request hold no worker, and a killed replica\'s claim is taken over', { timeout: 120_000 }, async (t) => {
  if (!postgresAvailable()) {
    t.skip(POSTGRES_SKIP_MESSAGE);
    return;
  }
  const url = await createDatabase();
  const dataDir = makeTempDir('cairn-node-idem-pg-');
  dirs.push(dataDir);
  let lock;
  try {
    const args = ['--store', url, '--store-lock-timeout-ms', '60000'];
    const doomed = await serve({ args, dataDir });
    const other = await serve({ args, dataDir });
    assert.equal((await createNs(doomed, ['parent'])).status, 200);
    // Creating a child waits for the parent's row, which psql holds: a real request that
    // stays in progress on `doomed`, holding its claim of the key.
    lock = await holdRowLock(url, "SELECT id FROM namespaces WHERE name = 'parent'");
    const blocked = createNs(doomed, ['parent', 'child'], 'pg-key', 90_000).catch((e) => e);
    const t0 = Date.now();
    while ((await psql("SELECT count(*) FROM idempotency_keys WHERE key = 'pg-key'", url))[0][0] !== '1') {
      assert.ok(Date.now() - t0 < 10_000, 'the first request did not claim its key');
      await sleep(50);
    }

    const duplicates = startAll(20, (i) => createNs(i % 2 ? doomed : other, ['parent', 'child'], 'pg-key'));
    await waitFor(async () => (await pendingRequests(doomed)) === 10 && (await pendingRequests(other)) === 10, {
      what: 'ten duplicates on each replica to wait for the first answer',
    });
    for (const srv of [doomed, other]) {
      const list = await call(srv.url, 'GET', NS, { timeoutMs: GUARD_MS });
      assert.equal(list.status, 200, list.text);
      assert.equal((await call(srv.url, 'GET', '/health/ready', { timeoutMs: GUARD_MS })).status, 200);
    }
    assert.equal(duplicates.settled, 0, 'the duplicates must still be waiting for the first answer');

    // The replica running the request dies; its transaction is rolled back with its session.
    await doomed.stop('SIGKILL');
    await lock.release();
    lock = undefined;
    await blocked;
    const answers = await Promise.all(duplicates.promises);
    // Duplicates sent to the dead replica lost their connection; those on the live one
    // either took the claim over (one executes) or got its answer or a 503.
    const live = answers.filter((a, i) => i % 2 === 0);
    let executed = 0;
    for (const res of live) {
      if (res.status === 200 && res.headers['idempotent-replayed'] !== 'true') executed += 1;
      else if (res.status !== 200) assertIcebergError(res, 503, 'ServiceUnavailableException');
    }
    assert.ok(executed <= 1, 'the effect must run at most once');
    const retry = await createNs(other, ['parent', 'child'], 'pg-key');
    assert.equal(retry.status, 200, `${retry.text}\n${stderrTail(other)}`);
    if (executed === 1) assert.equal(retry.headers['idempotent-replayed'], 'true');
    assert.equal((await call(other.url, 'HEAD', `${NS}/parent%1Fchild`)).status, 204);
  } finally {
    if (lock) await lock.release();
    for (const s of servers) await s.stop('SIGKILL').catch(() => {});
    await dropDatabase(url).catch(() => {});
  }
});
