// Several replicas on one PostgreSQL store (`--store postgresql://...`, same --data-dir):
// optimistic concurrency, multi-table transactions, idempotency keys and create races hold
// across replicas, a commit through one replica is seen by the next load through the other,
// and a PostgreSQL outage is a 503 (never a 500 or a hang) that the replicas recover from by
// themselves without losing an acknowledged commit.
//
// Needs the throw-away PostgreSQL of scripts/test (CAIRN_TEST_POSTGRES_*); skipped without it.
// Each test gets its own database and shared data dir, and two fresh replicas.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import http from 'node:http';
import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { startServer, makeTempDir, removeDir, stderrTail } from './lib/server.mjs';
import { call, describeResponse } from './lib/http.mjs';
import { validateResponse, assertIcebergError } from './lib/spec.mjs';
import { catalog, icall, tableApi, agentCall, appendCommit, sampleSchema, T_TABLE, T_TABLES } from './lib/catalog.mjs';
import { waitFor } from './lib/wait.mjs';
import {
  postgresAvailable,
  POSTGRES_SKIP_MESSAGE,
  createDatabase,
  dropDatabase,
  stopPostgres,
  startPostgres,
  postgresRunning,
} from './lib/postgres.mjs';

const ROOT = '/iceberg/v1/default';
const T_TRANSACTION = '/v1/{prefix}/transactions/commit';
const TXN_PATH = `${ROOT}/transactions/commit`;
// Longer than the store's default wait for a row another replica holds (10 s), so that a
// timeout means a hang, not a legitimate wait.
const REQUEST_TIMEOUT_MS = 15_000;

/**
 * A test on a fresh database with two replicas sharing one data dir: fn(t, {servers, url}).
 * On failure the replicas' stderr (and the PostgreSQL log) is appended to the error.
 */
function replicaTest(name, { timeout = 60_000, replicas = 2 } = {}, fn) {
  test(name, { timeout }, async (t) => {
    if (!postgresAvailable()) {
      t.skip(POSTGRES_SKIP_MESSAGE);
      return;
    }
    const url = await createDatabase();
    const dataDir = makeTempDir('cairn-node-replicas-');
    const servers = [];
    try {
      // Started together: two replicas creating the schema of an empty database at once.
      const started = await Promise.allSettled(
        Array.from({ length: replicas }, () => startServer({ dataDir, args: ['--store', url] })),
      );
      for (const s of started) if (s.status === 'fulfilled') servers.push(s.value);
      const failed = started.find((s) => s.status === 'rejected');
      if (failed) throw failed.reason;
      await fn(t, { servers, url, dataDir });
    } catch (err) {
      if (err && typeof err === 'object') {
        let extra = '';
        servers.forEach((s, i) => (extra += `\n--- replica ${i} (${s.url}) stderr (tail) ---\n${stderrTail(s, 4000)}`));
        extra += `\n--- PostgreSQL log (tail) ---\n${postgresLogTail()}`;
        try {
          err.message = `${err.message}${extra}`;
        } catch {
          /* non-writable message */
        }
      }
      throw err;
    } finally {
      for (const s of servers) await s.stop().catch(() => {});
      await dropDatabase(url).catch((e) => t.diagnostic(`could not drop ${url}: ${e.message}`));
      removeDir(dataDir);
    }
  });
}

function postgresLogTail(n = 3000) {
  try {
    const text = readFileSync(process.env.CAIRN_TEST_POSTGRES_LOG, 'utf8');
    return text.length > n ? `...${text.slice(-n)}` : text;
  } catch {
    return '(no log)';
  }
}

const tablePathOf = (ns, name) => `${ROOT}/namespaces/${ns.map(encodeURIComponent).join('%1F')}/tables/${encodeURIComponent(name)}`;

/** Loads through `agent` and asserts 200; returns the LoadTableResult. */
async function agentLoad(agent, base, path) {
  const res = await agentCall(agent, base, 'GET', path, { timeoutMs: REQUEST_TIMEOUT_MS });
  validateResponse('GET', T_TABLE, res.status, res.json ?? res.text);
  assert.equal(res.status, 200, `load ${base}${path}: ${describeResponse(res)}`);
  return res.json;
}

/**
 * Asserts that `md` holds one linear history (no fork, one root, sequence numbers 1..n along
 * the chain, main at its head); returns the snapshot ids from the first to the current.
 */
function linearChain(md) {
  const snapshots = md.snapshots ?? [];
  const byId = new Map(snapshots.map((s) => [s['snapshot-id'], s]));
  assert.equal(byId.size, snapshots.length, 'duplicate snapshot ids');
  const children = new Map();
  for (const s of snapshots) {
    const p = s['parent-snapshot-id'];
    if (p === undefined || p === null) continue;
    assert.ok(byId.has(p), `snapshot ${s['snapshot-id']} has unknown parent ${p}`);
    assert.ok(!children.has(p), `fork: ${p} is the parent of both ${children.get(p)} and ${s['snapshot-id']}`);
    children.set(p, s['snapshot-id']);
  }
  const chain = [];
  for (let id = md['current-snapshot-id'] ?? null; id !== null && id !== -1; id = byId.get(id)['parent-snapshot-id'] ?? null) {
    assert.ok(byId.has(id), `current/parent snapshot ${id} is not in the table`);
    chain.push(id);
    assert.ok(chain.length <= snapshots.length, 'cycle in the parent chain');
  }
  chain.reverse();
  assert.equal(chain.length, snapshots.length, `the parent chain (${chain.length}) does not reach all ${snapshots.length} snapshots`);
  chain.forEach((id, i) => assert.equal(byId.get(id)['sequence-number'], i + 1, `sequence number of ${id}`));
  if (chain.length > 0) assert.equal(md.refs?.main?.['snapshot-id'], chain[chain.length - 1], 'main is not the head of the chain');
  return chain;
}

/** Loads `ns.name` through every replica: all must return the same version; returns it. */
async function loadEverywhere(servers, ns, name) {
  const loaded = [];
  for (const s of servers) loaded.push(await tableApi(s.url).mustLoad(ns, name));
  for (let i = 1; i < loaded.length; i++) {
    assert.equal(loaded[i]['metadata-location'], loaded[0]['metadata-location'], `replica ${i} and replica 0 load different versions of ${name}`);
    assert.deepEqual(loaded[i].metadata, loaded[0].metadata, `replica ${i} and replica 0 load different metadata for ${name}`);
  }
  return loaded[0];
}

/** Adds `key: value` to the summary of the snapshot a commit body adds. */
function tagSnapshot(body, key, value) {
  body.updates.find((u) => u.action === 'add-snapshot').snapshot.summary[key] = value;
  return body;
}

// ---------------------------------------------------------------------------------------------

const CLIENTS = 8;
const PER_CLIENT = 50;

replicaTest(
  `${CLIENTS} clients over 2 replicas x ${PER_CLIENT} guarded appends -> one chain of ${CLIENTS * PER_CLIENT}; commits through one replica are seen by the other`,
  { timeout: 120_000 },
  async (t, { servers }) => {
    const ns = ['conc'];
    const [a, b] = servers;
    await catalog(a.url).mustCreate(ns);
    await tableApi(a.url).mustCreate(ns, { name: 'hot', schema: sampleSchema() });
    const path = tablePathOf(ns, 'hot');

    const acked = [];
    const stats = { ok: 0, conflicts: 0 };
    const client = async (index) => {
      const base = servers[index % 2].url;
      const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
      try {
        let metadata = (await agentLoad(agent, base, path)).metadata;
        for (let done = 0, attempts = 0; done < PER_CLIENT; ) {
          assert.ok(++attempts <= 20_000, `client ${index}: no progress after ${attempts} attempts (livelock?)`);
          const snapshotId = (index + 1) * 1_000_000 + done + 1;
          const res = await agentCall(agent, base, 'POST', path, { body: appendCommit(metadata, snapshotId), timeoutMs: REQUEST_TIMEOUT_MS });
          validateResponse('POST', T_TABLE, res.status, res.json ?? res.text);
          if (res.status === 200) {
            metadata = res.json.metadata;
            assert.equal(metadata.refs.main['snapshot-id'], snapshotId, `client ${index}: the committed snapshot is not main`);
            acked.push(snapshotId);
            done++;
            stats.ok++;
          } else {
            assertIcebergError(res, 409, 'CommitFailedException');
            stats.conflicts++;
            const asserted = metadata.refs?.main?.['snapshot-id'] ?? null;
            metadata = (await agentLoad(agent, base, path)).metadata;
            // The store said main moved; a load through the same replica must see that.
            assert.notEqual(metadata.refs?.main?.['snapshot-id'] ?? null, asserted, `client ${index}: 409 on main=${asserted}, but the reload through ${base} still has it (stale cache?)`);
          }
        }
      } finally {
        agent.destroy();
      }
    };
    const t0 = Date.now();
    await Promise.all(Array.from({ length: CLIENTS }, (_, i) => client(i)));
    t.diagnostic(`${stats.ok} commits, ${stats.conflicts} conflicts (409 + reload), ${Date.now() - t0} ms`);

    const final = await loadEverywhere(servers, ns, 'hot');
    const chain = linearChain(final.metadata);
    assert.equal(chain.length, CLIENTS * PER_CLIENT);
    assert.deepEqual([...chain].sort((x, y) => x - y), [...acked].sort((x, y) => x - y), 'the chain is not exactly the acknowledged snapshots');
    for (let c = 0; c < CLIENTS; c++) {
      const mine = chain.filter((id) => Math.floor(id / 1_000_000) === c + 1);
      assert.deepEqual(mine, Array.from({ length: PER_CLIENT }, (_, k) => (c + 1) * 1_000_000 + k + 1), `client ${c} order`);
    }

    // Cache coherence, one step at a time: a commit through one replica is what the next load
    // through the other returns, also when that load revalidates an ETag it had before.
    let metadata = final.metadata;
    for (let k = 0; k < 10; k++) {
      const [writer, reader] = k % 2 === 0 ? [a, b] : [b, a];
      const stale = await tableApi(reader.url).mustLoad(ns, 'hot');
      const snapshotId = 9_000_000 + k;
      const committed = await tableApi(writer.url).mustCommit(ns, 'hot', appendCommit(metadata, snapshotId));
      const plain = await tableApi(reader.url).mustLoad(ns, 'hot');
      assert.equal(plain['metadata-location'], committed['metadata-location'], `step ${k}: load through the other replica returns an old version`);
      assert.equal(plain.metadata['current-snapshot-id'], snapshotId);
      const revalidated = await tableApi(reader.url).load(ns, 'hot', { headers: { 'If-None-Match': stale.etag } });
      assert.equal(revalidated.status, 200, `step ${k}: If-None-Match with the ETag of the old version: ${describeResponse(revalidated)}`);
      assert.equal(revalidated.json['metadata-location'], committed['metadata-location']);
      metadata = committed.metadata;
    }
  },
);

replicaTest(
  'transactions on t1+t2 racing single-table commits on both replicas are never half-applied',
  { timeout: 60_000 },
  async (t, { servers }) => {
    const ns = ['txn'];
    const names = ['t1', 't2'];
    await catalog(servers[0].url).mustCreate(ns);
    for (const name of names) await tableApi(servers[1].url).mustCreate(ns, { name, schema: sampleSchema() });
    const TXNS = 8; // successful transactions per transaction worker
    const SINGLES = 8; // successful commits per single-table worker
    const MAX_ATTEMPTS = 500;
    let nextId = 1;
    const succeeded = new Map(); // txn id -> [snapshot id in t1, in t2]
    const failed = new Map();
    const singles = { t1: [], t2: [] };
    const stats = { txnConflicts: 0, singleConflicts: 0 };

    const transactionWorker = async (w) => {
      const srv = servers[w % 2];
      const tables = tableApi(srv.url);
      for (let k = 0; k < TXNS; k++) {
        for (let attempt = 0; ; attempt++) {
          assert.ok(attempt < MAX_ATTEMPTS, `transaction worker ${w}: no success after ${attempt} attempts`);
          const txnId = `w${w}-k${k}-a${attempt}`;
          const ids = names.map(() => nextId++);
          const changes = [];
          for (const [i, name] of names.entries()) {
            const md = (await tables.mustLoad(ns, name)).metadata;
            changes.push({ identifier: { namespace: ns, name }, ...tagSnapshot(appendCommit(md, ids[i]), 'cairn-test.txn', txnId) });
          }
          const res = await icall(srv.url, 'POST', TXN_PATH, T_TRANSACTION, { body: { 'table-changes': changes }, timeoutMs: REQUEST_TIMEOUT_MS });
          if (res.status === 204) {
            succeeded.set(txnId, ids);
            break;
          }
          assertIcebergError(res, 409, 'CommitFailedException');
          failed.set(txnId, ids);
          stats.txnConflicts++;
        }
      }
    };
    const singleWorker = async (w, name) => {
      const srv = servers[w % 2];
      const tables = tableApi(srv.url);
      for (let k = 0; k < SINGLES; k++) {
        for (let attempt = 0; ; attempt++) {
          assert.ok(attempt < MAX_ATTEMPTS, `single worker ${w} on ${name}: no success after ${attempt} attempts`);
          const md = (await tables.mustLoad(ns, name)).metadata;
          const id = nextId++;
          const res = await tables.commit(ns, name, tagSnapshot(appendCommit(md, id), 'cairn-test.single', String(id)), { timeoutMs: REQUEST_TIMEOUT_MS });
          if (res.status === 200) {
            singles[name].push(id);
            break;
          }
          assertIcebergError(res, 409, 'CommitFailedException');
          stats.singleConflicts++;
        }
      }
    };
    await Promise.all([
      transactionWorker(0),
      transactionWorker(1),
      singleWorker(0, 't1'),
      singleWorker(1, 't1'),
      singleWorker(0, 't2'),
      singleWorker(1, 't2'),
    ]);
    t.diagnostic(`${succeeded.size} transactions committed, ${failed.size} answered 409; ${stats.singleConflicts} single-commit conflicts`);

    const txnIdsIn = {};
    for (const [i, name] of names.entries()) {
      const md = (await loadEverywhere(servers, ns, name)).metadata;
      linearChain(md);
      const found = new Map(); // txn id -> snapshot id
      for (const s of md.snapshots) {
        const txn = s.summary?.['cairn-test.txn'];
        if (txn !== undefined) {
          assert.ok(!found.has(txn), `transaction ${txn} has two snapshots in ${name}`);
          found.set(txn, s['snapshot-id']);
        }
      }
      txnIdsIn[name] = found;
      // Exactly the acknowledged commits: every 204 transaction and every 200 single commit.
      const expected = [...[...succeeded.values()].map((ids) => ids[i]), ...singles[name]].sort((x, y) => x - y);
      const actual = md.snapshots.map((s) => s['snapshot-id']).sort((x, y) => x - y);
      assert.deepEqual(actual, expected, `${name} does not hold exactly the acknowledged commits`);
    }
    for (const [txnId, ids] of succeeded) {
      names.forEach((name, i) => assert.equal(txnIdsIn[name].get(txnId), ids[i], `committed transaction ${txnId} missing from ${name}`));
    }
    for (const txnId of failed.keys()) {
      for (const name of names) assert.ok(!txnIdsIn[name].has(txnId), `failed transaction ${txnId} is in ${name} (half-applied)`);
    }
    for (const name of names) {
      for (const txnId of txnIdsIn[name].keys()) {
        assert.ok(names.every((n) => txnIdsIn[n].has(txnId)), `transaction ${txnId} is only in ${name} (half-applied)`);
      }
    }
    assert.equal(succeeded.size, 2 * TXNS);
  },
);

replicaTest(
  'an Idempotency-Key retried on the other replica gets the stored answer and no second effect',
  { timeout: 60_000 },
  async (t, { servers }) => {
    const [a, b] = servers;
    const withKey = (key) => ({ headers: { 'Idempotency-Key': key }, timeoutMs: REQUEST_TIMEOUT_MS });

    // Create namespace through A; B drops it; the retry through B replays, creates nothing.
    const first = await call(a.url, 'POST', `${ROOT}/namespaces`, { body: { namespace: ['idem'] }, ...withKey('ns-key') });
    assert.equal(first.status, 200, describeResponse(first));
    assert.equal((await call(b.url, 'DELETE', `${ROOT}/namespaces/idem`)).status, 204);
    const replay = await call(b.url, 'POST', `${ROOT}/namespaces`, { body: { namespace: ['idem'] }, ...withKey('ns-key') });
    assert.equal(replay.status, 200, `replay through the other replica: ${describeResponse(replay)}`);
    assert.deepEqual(replay.json, first.json);
    assert.equal(replay.headers['idempotent-replayed'], 'true', describeResponse(replay));
    for (const s of servers) assert.equal((await call(s.url, 'HEAD', `${ROOT}/namespaces/idem`)).status, 404, `${s.url}: the replay created the namespace again`);

    // A table commit through A, retried through B: one snapshot, the same answer and ETag.
    await catalog(a.url).mustCreate(['idem']);
    const ta = tableApi(a.url);
    const tb = tableApi(b.url);
    await ta.mustCreate(['idem'], { name: 't', schema: sampleSchema() });
    let md = (await tb.mustLoad(['idem'], 't')).metadata;
    const body = appendCommit(md, 77);
    const c1 = await ta.commit(['idem'], 't', body, withKey('commit-key'));
    assert.equal(c1.status, 200, describeResponse(c1));
    const c2 = await tb.commit(['idem'], 't', body, withKey('commit-key'));
    assert.equal(c2.status, 200, `replay through the other replica: ${describeResponse(c2)}`);
    assert.deepEqual(c2.json, c1.json);
    assert.equal(c2.headers.etag, c1.headers.etag);
    assert.equal(c2.headers['idempotent-replayed'], 'true', describeResponse(c2));
    md = (await loadEverywhere(servers, ['idem'], 't')).metadata;
    assert.deepEqual(md.snapshots.map((s) => s['snapshot-id']), [77]);
    assert.equal(md['metadata-log'].length, 1);

    // The same keyed commit sent 3x to each replica at once: one effect, six equal answers.
    const body2 = appendCommit(md, 78);
    const answers = await Promise.all(
      Array.from({ length: 6 }, (_, i) => tableApi(servers[i % 2].url).commit(['idem'], 't', body2, withKey('concurrent-key'))),
    );
    for (const r of answers) {
      assert.equal(r.status, 200, describeResponse(r));
      assert.deepEqual(r.json, answers[0].json);
    }
    assert.equal(answers.filter((r) => r.headers['idempotent-replayed'] !== 'true').length, 1, 'exactly one answer must be the original');
    md = (await loadEverywhere(servers, ['idem'], 't')).metadata;
    assert.deepEqual(md.snapshots.map((s) => s['snapshot-id']), [77, 78]);

    // The key reused through B for another body is 422, and changes nothing.
    // (http.call: the spec documents no 422 for this route.)
    const other = await call(b.url, 'POST', tb.tableUrl(['idem'], 't'), { body: appendCommit(md, 79), ...withKey('commit-key') });
    assertIcebergError(other, 422, 'UnprocessableEntityException');
    assert.equal((await tb.mustLoad(['idem'], 't')).metadata.snapshots.length, 2);
  },
);

replicaTest(
  'concurrent creates of one name across replicas: exactly one 200, the rest 409',
  { timeout: 60_000 },
  async (t, { servers }) => {
    const N = 10;
    // Namespaces.
    const nsAnswers = await Promise.all(
      Array.from({ length: N }, (_, i) => catalog(servers[i % 2].url).create(['race'], undefined, { timeoutMs: REQUEST_TIMEOUT_MS })),
    );
    assert.equal(nsAnswers.filter((r) => r.status === 200).length, 1, `namespace: ${nsAnswers.map((r) => r.status)}`);
    for (const r of nsAnswers.filter((x) => x.status !== 200)) assertIcebergError(r, 409, 'AlreadyExistsException');

    // Tables, a few rounds.
    for (let round = 0; round < 3; round++) {
      const name = `t${round}`;
      const answers = await Promise.all(
        Array.from({ length: N }, (_, i) =>
          icall(servers[i % 2].url, 'POST', `${ROOT}/namespaces/race/tables`, T_TABLES, {
            body: { name, schema: sampleSchema() },
            timeoutMs: REQUEST_TIMEOUT_MS,
          }),
        ),
      );
      const winners = answers.filter((r) => r.status === 200);
      assert.equal(winners.length, 1, `${name}: ${answers.map((r) => `${r.status}`).join(',')}`);
      for (const r of answers.filter((x) => x.status !== 200)) assertIcebergError(r, 409, 'AlreadyExistsException');
      const loaded = await loadEverywhere(servers, ['race'], name);
      assert.equal(loaded['metadata-location'], winners[0].json['metadata-location']);
      assert.equal(loaded.metadata['table-uuid'], winners[0].json.metadata['table-uuid']);
    }
    for (const s of servers) {
      const ids = await tableApi(s.url).mustList(['race']);
      assert.deepEqual(ids.map((i) => i.name).sort(), ['t0', 't1', 't2']);
    }
  },
);

replicaTest(
  'PostgreSQL down mid-load: 503 (not 500, no hang), /health/ready 503 then 200, recovery without a restart, nothing acknowledged lost',
  { timeout: 90_000 },
  async (t, { servers }) => {
    const ns = ['ha'];
    await catalog(servers[0].url).mustCreate(ns);
    await tableApi(servers[1].url).mustCreate(ns, { name: 'r', schema: sampleSchema() });
    const path = tablePathOf(ns, 'r');

    const CLIENTS_HA = 4;
    const events = []; // {client, replica, op, status|error, t0, t1}
    const acked = [];
    const attempted = new Set();
    let stopClients = false;
    let readyAt = Infinity; // when both replicas answered /health/ready 200 after the restart
    const ackedAfter = [0, 0]; // per replica: commits sent and acknowledged after readyAt

    const client = async (index) => {
      const replica = index % 2;
      const base = servers[replica].url;
      const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
      const request = async (op, method, body) => {
        const t0 = Date.now();
        try {
          const res = await agentCall(agent, base, method, path, { body, timeoutMs: REQUEST_TIMEOUT_MS });
          events.push({ client: index, replica, op, status: res.status, t0, t1: Date.now(), res });
          return res;
        } catch (e) {
          events.push({ client: index, replica, op, error: e.message, t0, t1: Date.now() });
          return null;
        }
      };
      try {
        for (let n = 0; !stopClients; n++) {
          const loaded = await request('load', 'GET');
          if (loaded?.status !== 200) {
            await sleep(20);
            continue;
          }
          const snapshotId = (index + 1) * 1_000_000 + n;
          attempted.add(snapshotId);
          const t0 = Date.now();
          const res = await request('commit', 'POST', appendCommit(loaded.json.metadata, snapshotId));
          if (res?.status === 200) {
            acked.push(snapshotId);
            if (t0 > readyAt) ackedAfter[replica]++;
          } else if (res?.status !== 409) {
            await sleep(20);
          }
        }
      } finally {
        agent.destroy();
      }
    };
    const clients = Promise.all(Array.from({ length: CLIENTS_HA }, (_, i) => client(i)));
    let stopIssuedAt; // pg_ctl stop called
    let outageStart; // pg_ctl stop returned: PostgreSQL is down
    let outageEnd; // pg_ctl start about to be called
    try {
      await waitFor(() => acked.length >= 8, { timeoutMs: 20_000, intervalMs: 50, what: '8 acknowledged commits before the outage' });
      const mdBefore = (await tableApi(servers[0].url).mustLoad(ns, 'r')).metadata;
      let pgStopped = false;
      try {
        stopIssuedAt = Date.now();
        await stopPostgres({ mode: 'immediate' });
        pgStopped = true;
        outageStart = Date.now();
        // Deterministic checks during the outage, on both replicas.
        for (const s of servers) {
          const ready = await call(s.url, 'GET', '/health/ready', { timeoutMs: REQUEST_TIMEOUT_MS });
          assert.equal(ready.status, 503, `${s.url} /health/ready during the outage: ${describeResponse(ready)}`);
          const live = await call(s.url, 'GET', '/health/live', { timeoutMs: REQUEST_TIMEOUT_MS });
          assert.equal(live.status, 200, `${s.url} /health/live during the outage: ${describeResponse(live)}`);
          // Never applied (503), so snapshot 42 must not show up in the final chain.
          const commit = await call(s.url, 'POST', path, { body: appendCommit(mdBefore, 42), timeoutMs: REQUEST_TIMEOUT_MS });
          assertIcebergError(commit, 503, 'ServiceUnavailableException');
          const createNs = await call(s.url, 'POST', `${ROOT}/namespaces`, { body: { namespace: ['during'] }, timeoutMs: REQUEST_TIMEOUT_MS });
          assertIcebergError(createNs, 503, 'ServiceUnavailableException');
        }
        // Let the clients run into the outage: every one of them, on both replicas, has been
        // answered 503 several times (and has retried) for requests sent while PostgreSQL is down.
        const REFUSALS_PER_CLIENT = 10;
        const refusalsDuringOutage = (client) =>
          events.filter((e) => e.client === client && e.t0 >= outageStart && e.status === 503).length;
        const clientIds = [...Array(CLIENTS_HA).keys()];
        await waitFor(() => clientIds.every((c) => refusalsDuringOutage(c) >= REFUSALS_PER_CLIENT), {
          timeoutMs: 15_000,
          intervalMs: 50,
          what: () =>
            `${REFUSALS_PER_CLIENT} answers 503 for each client during the outage (got ${clientIds.map(refusalsDuringOutage).join(', ')})`,
        });
      } finally {
        outageEnd = Date.now();
        // Leave PostgreSQL running whatever happened.
        if (pgStopped || !(await postgresRunning())) await startPostgres();
      }
      const restartedAt = Date.now();
      await waitFor(
        async () => {
          for (const s of servers) if ((await call(s.url, 'GET', '/health/ready', { timeoutMs: REQUEST_TIMEOUT_MS })).status !== 200) return false;
          return true;
        },
        { timeoutMs: 15_000, intervalMs: 50, what: '/health/ready 200 on both replicas after the restart' },
      );
      readyAt = Date.now();
      t.diagnostic(`outage ${outageEnd - outageStart} ms; both replicas ready ${readyAt - restartedAt} ms after PostgreSQL was back`);
      await waitFor(() => ackedAfter.every((n) => n >= 3), {
        timeoutMs: 20_000,
        intervalMs: 50,
        what: '3 acknowledged commits through each replica after the restart',
      });
    } finally {
      stopClients = true;
      await clients;
    }

    // No hang, no dropped connection; only 200/409/503. The one exception: a commit whose
    // connection broke during its COMMIT cannot know whether the transaction committed, and the
    // spec's answer for that is 500 CommitStateUnknownException (whether it landed is then
    // free). That can only happen to a commit in flight while PostgreSQL went down, and not
    // when the store could not even be connected to (nothing was sent: a plain 503). A request
    // that started once PostgreSQL was down or after it was back must never answer 500.
    const inFlightAtStop = (e) => e.t0 < outageStart && e.t1 >= stopIssuedAt;
    const unknown = events.filter(
      (e) =>
        e.op === 'commit' &&
        e.status === 500 &&
        inFlightAtStop(e) &&
        e.res.json?.error?.type === 'CommitStateUnknownException' &&
        !/cannot connect/i.test(e.res.json.error.message),
    );
    const bad = events.filter((e) => !unknown.includes(e) && (e.error !== undefined || ![200, 409, 503].includes(e.status)));
    assert.deepEqual(
      bad.map((e) => `client ${e.client} ${e.op} via replica ${e.replica} (sent ${e.t0 - outageStart} ms after PostgreSQL was down, took ${e.t1 - e.t0} ms): ${e.error ?? describeResponse(e.res)}`),
      [],
      'requests must answer 200, 409 or 503',
    );
    for (const e of events) {
      if (e.status === 503) assertIcebergError(e.res, 503, 'ServiceUnavailableException');
      else validateResponse(e.op === 'load' ? 'GET' : 'POST', T_TABLE, e.status, e.res.json ?? e.res.text);
    }
    for (const e of unknown) t.diagnostic(`commit in flight at the stop answered ${describeResponse(e.res)}`);
    const during = events.filter((e) => e.t0 >= outageStart && e.t1 <= outageEnd);
    const during503 = during.filter((e) => e.status === 503).length;
    t.diagnostic(
      `${events.length} client requests, ${acked.length} commits acknowledged; during the outage: ${during.length} requests, ${during503} answered 503`,
    );
    assert.ok(during503 > 0, 'no client request got 503 during the outage');

    // Every acknowledged commit is in the final chain; nothing there that no client sent.
    const md = (await loadEverywhere(servers, ns, 'r')).metadata;
    const chain = new Set(linearChain(md));
    for (const id of acked) assert.ok(chain.has(id), `acknowledged snapshot ${id} was lost`);
    for (const id of chain) assert.ok(attempted.has(id), `snapshot ${id} in the chain was never sent`);
  },
);
