// Operational metrics on GET /metrics (common/op_metrics.h): store statements and
// transaction retries, commits by kind and outcome, commit retries, metadata cache hits,
// misses and holdings. Each test reads the counters before and after the requests they
// count and asserts how they moved — never a timing.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test, after } from 'node:test';
import { startServer, makeTempDir, removeDir, withServerLog } from './lib/server.mjs';
import { call, describeResponse } from './lib/http.mjs';
import { catalog, icall, tableApi, sampleSchema } from './lib/catalog.mjs';

const T_TRANSACTION = '/v1/{prefix}/transactions/commit';
const servers = [];
const dirs = [];
after(async () => {
  for (const s of servers) await s.cleanup();
  for (const d of dirs) removeDir(d);
});

/** Starts a server that the suite stops at the end. */
async function start(opts) {
  const server = await startServer(opts);
  servers.push(server);
  return server;
}

/** Parses the exposition into a Map from `name{labels}` (as written) to its value. */
function parseProm(text) {
  const samples = new Map();
  for (const line of text.split('\n')) {
    if (!line.trim() || line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*(?:\{.*\})?)\s+(\S+)$/.exec(line);
    assert.ok(m, `not a sample line: ${JSON.stringify(line)}`);
    samples.set(m[1], Number(m[2]));
  }
  return samples;
}

/** One scrape: {text, value(series)}; a series not exposed reads 0. */
async function scrape(base) {
  const res = await call(base, 'GET', '/metrics');
  assert.equal(res.status, 200, describeResponse(res));
  const samples = parseProm(res.text);
  return { text: res.text, value: (series) => samples.get(series) ?? 0 };
}

/** How each series moved between two scrapes. */
const delta = (before, after) => (series) => after.value(series) - before.value(series);

/** Prometheus's own parser and linter, as ops.test.mjs runs it. */
function promtoolCheck(text) {
  const checked = spawnSync('promtool', ['check', 'metrics'], { input: text, encoding: 'utf8' });
  assert.ok(!checked.error, `promtool is missing (scripts/test installs the prometheus package): ${checked.error}`);
  assert.equal(checked.status, 0, `promtool check metrics:\n${checked.stdout}${checked.stderr}`);
}

const commits = (kind, outcome) => `cairn_commits_total{kind="${kind}",outcome="${outcome}"}`;
const retries = (kind) => `cairn_commit_retries_total{kind="${kind}"}`;
const hits = (cache) => `cairn_metadata_cache_hits_total{cache="${cache}"}`;
const misses = (cache) => `cairn_metadata_cache_misses_total{cache="${cache}"}`;
const statements = (kind) => `cairn_store_statement_duration_seconds_count{backend="sqlite",kind="${kind}"}`;

/** A fresh namespace with table `t` in it; returns the table API. */
async function tableIn(base, ns) {
  await catalog(base).mustCreate(ns);
  const tables = tableApi(base);
  await tables.mustCreate(ns, { name: 't', schema: sampleSchema() });
  return tables;
}

const setProperty = (key, value) => ({ requirements: [], updates: [{ action: 'set-properties', updates: { [key]: value } }] });

test('the operational families are exposed with HELP and TYPE, and promtool accepts them', async () => {
  const server = await start();
  await withServerLog(() => server, async () => {
    const tables = await tableIn(server.url, ['ops_promtool']);
    await tables.mustCommit(['ops_promtool'], 't', setProperty('a', '1'));
    await tables.mustLoad(['ops_promtool'], 't');
    const { text, value } = await scrape(server.url);
    promtoolCheck(text);
    for (const [name, type] of [
      ['cairn_store_statement_duration_seconds', 'histogram'],
      ['cairn_store_transaction_retries_total', 'counter'],
      ['cairn_commits_total', 'counter'],
      ['cairn_commit_retries_total', 'counter'],
      ['cairn_metadata_cache_hits_total', 'counter'],
      ['cairn_metadata_cache_misses_total', 'counter'],
      ['cairn_metadata_cache_bytes', 'gauge'],
      ['cairn_metadata_cache_entries', 'gauge'],
    ]) {
      assert.match(text, new RegExp(`^# HELP ${name} \\S`, 'm'), `HELP of ${name}`);
      assert.match(text, new RegExp(`^# TYPE ${name} ${type}$`, 'm'), `TYPE of ${name}`);
    }
    // Every label combination of a counter is there from the start, at zero or more.
    for (const kind of ['iceberg-table', 'iceberg-transaction', 'iceberg-view', 'lance-version', 'lance-batch', 'lance-rewrite']) {
      for (const outcome of ['committed', 'unchanged', 'conflict', 'unknown', 'failed']) {
        assert.ok(text.includes(`${commits(kind, outcome)} `), `no ${commits(kind, outcome)}`);
      }
    }
    // The store of this server is SQLite: no PostgreSQL series.
    assert.ok(!text.includes('backend="postgres"'), 'a postgres series on a SQLite server');
    assert.ok(value(statements('read')) > 0 && value(statements('commit')) > 0);
    assert.ok(value('cairn_metadata_cache_entries{cache="iceberg-metadata-json"}') >= 1);
    assert.ok(value('cairn_metadata_cache_bytes{cache="iceberg-metadata-json"}') > 0);
  })();
});

test('a commit counts as committed and runs write statements; a load runs reads', async () => {
  const server = await start();
  await withServerLog(() => server, async () => {
    const ns = ['ops_commit'];
    const tables = await tableIn(server.url, ns);
    let before = await scrape(server.url);
    await tables.mustCommit(ns, 't', setProperty('k', 'v'));
    let after = await scrape(server.url);
    let moved = delta(before, after);
    assert.equal(moved(commits('iceberg-table', 'committed')), 1, after.text);
    assert.equal(moved(retries('iceberg-table')), 0);
    for (const outcome of ['unchanged', 'conflict', 'unknown', 'failed']) {
      assert.equal(moved(commits('iceberg-table', outcome)), 0, outcome);
    }
    assert.ok(moved(statements('begin')) >= 1, 'a write transaction began');
    assert.ok(moved(statements('write')) >= 1, 'statements ran in it');
    assert.ok(moved(statements('commit')) >= 1, 'and it committed');

    before = after;
    await tables.mustLoad(ns, 't');
    after = await scrape(server.url);
    moved = delta(before, after);
    assert.ok(moved(statements('read')) >= 1, 'a load reads the pointer');
    assert.equal(moved(statements('commit')), 0, 'a load commits nothing');

    // Nothing to change: a success without a swap.
    before = after;
    await tables.mustCommit(ns, 't', { requirements: [], updates: [] });
    after = await scrape(server.url);
    assert.equal(delta(before, after)(commits('iceberg-table', 'unchanged')), 1, after.text);
  })();
});

test('a commit with a stale requirement counts as a conflict (409)', async () => {
  const server = await start();
  await withServerLog(() => server, async () => {
    const ns = ['ops_conflict'];
    const tables = await tableIn(server.url, ns);
    const before = await scrape(server.url);
    const stale = {
      requirements: [{ type: 'assert-table-uuid', uuid: '00000000-0000-4000-8000-000000000000' }],
      updates: [{ action: 'set-properties', updates: { k: 'v' } }],
    };
    const res = await tables.commit(ns, 't', stale);
    assert.equal(res.status, 409, describeResponse(res));
    const stillStale = {
      requirements: [{ type: 'assert-ref-snapshot-id', ref: 'main', 'snapshot-id': 12345 }],
      updates: [{ action: 'set-properties', updates: { k: 'w' } }],
    };
    assert.equal((await tables.commit(ns, 't', stillStale)).status, 409);
    const after = await scrape(server.url);
    const moved = delta(before, after);
    assert.equal(moved(commits('iceberg-table', 'conflict')), 2, after.text);
    assert.equal(moved(commits('iceberg-table', 'committed')), 0);
    assert.equal(moved(retries('iceberg-table')), 0, 'a failed requirement is not retried');
  })();
});

test('a multi-table transaction counts as one transaction commit', async () => {
  const server = await start();
  await withServerLog(() => server, async () => {
    const ns = ['ops_txn'];
    const tables = await tableIn(server.url, ns);
    await tables.mustCreate(ns, { name: 'u', schema: sampleSchema() });
    const before = await scrape(server.url);
    const res = await icall(server.url, 'POST', '/iceberg/v1/default/transactions/commit', T_TRANSACTION, {
      body: {
        'table-changes': ['t', 'u'].map((name) => ({ identifier: { namespace: ns, name }, ...setProperty('x', name) })),
      },
    });
    assert.equal(res.status, 204, describeResponse(res));
    const after = await scrape(server.url);
    const moved = delta(before, after);
    assert.equal(moved(commits('iceberg-transaction', 'committed')), 1, after.text);
    assert.equal(moved(commits('iceberg-table', 'committed')), 0);
  })();
});

test('concurrent commits to one table: each counted once by its answer; lost races count as retries', { timeout: 120_000 }, async () => {
  // More workers than the per-table commit queue holds, so that commits race at the swap.
  const server = await start({ args: ['--worker-threads', '16'] });
  await withServerLog(() => server, async () => {
    const ns = ['ops_race'];
    const tables = await tableIn(server.url, ns);
    const first = await scrape(server.url);
    let answered = { 200: 0, 409: 0 };
    let last = first;
    for (let round = 0; round < 20; round++) {
      const results = await Promise.all(
        Array.from({ length: 12 }, (_, i) => tables.commit(ns, 't', setProperty(`r${round}c${i}`, 'x'))),
      );
      for (const res of results) {
        assert.ok(res.status === 200 || res.status === 409, describeResponse(res));
        answered[res.status]++;
      }
      last = await scrape(server.url);
      if (delta(first, last)(retries('iceberg-table')) > 0) break;
    }
    const moved = delta(first, last);
    // A commit without requirements fails only after losing every attempt: a 409 then.
    assert.equal(moved(commits('iceberg-table', 'committed')), answered[200], last.text);
    assert.equal(moved(commits('iceberg-table', 'conflict')), answered[409], last.text);
    assert.ok(moved(retries('iceberg-table')) > 0, `no lost race in ${answered[200] + answered[409]} concurrent commits`);
  })();
});

test('a cached table load counts a hit; the first load after a restart a miss', async () => {
  const dataDir = makeTempDir('cairn-node-ops-metrics-');
  dirs.push(dataDir);
  const ns = ['ops_cache'];
  const json = 'iceberg-metadata-json';
  let server = await start({ dataDir });
  await withServerLog(() => server, async () => {
    const tables = await tableIn(server.url, ns);
    await tables.mustLoad(ns, 't');
    const before = await scrape(server.url);
    await tables.mustLoad(ns, 't');
    const after = await scrape(server.url);
    assert.ok(delta(before, after)(hits(json)) >= 1, after.text);
    assert.equal(delta(before, after)(misses(json)), 0, after.text);
  })();
  await server.stop();

  server = await start({ dataDir });
  await withServerLog(() => server, async () => {
    const tables = tableApi(server.url);
    const before = await scrape(server.url);
    assert.equal(before.value(`cairn_metadata_cache_entries{cache="${json}"}`), 0, 'a restart starts empty');
    await tables.mustLoad(ns, 't');
    const missed = await scrape(server.url);
    assert.ok(delta(before, missed)(misses(json)) >= 1, missed.text);
    assert.equal(delta(before, missed)(hits(json)), 0, missed.text);
    assert.ok(missed.value(`cairn_metadata_cache_entries{cache="${json}"}`) >= 1, 'the load kept what it read');
    await tables.mustLoad(ns, 't');
    const hit = await scrape(server.url);
    assert.ok(delta(missed, hit)(hits(json)) >= 1, hit.text);
    assert.equal(delta(missed, hit)(misses(json)), 0, hit.text);
  })();
});
