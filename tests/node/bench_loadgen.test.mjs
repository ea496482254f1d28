// The benchmark load generator (bench/loadgen, `cairn-bench`) must count correctly: a run
// against a live server reports its successes, an error response or a status outside
// --expect is an error (never a success), and concurrent commit writers append exactly the
// commits they report. Benchmarks are not tests; this is the one smoke check of the tool.

import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { test, before, after } from 'node:test';
import { CAIRN_BIN, startServer, withServerLog } from './lib/server.mjs';
import { call, describeResponse } from './lib/http.mjs';

const BENCH_BIN = path.join(path.dirname(CAIRN_BIN), 'cairn-bench');

let server;
before(async () => {
  server = await startServer();
});
after(async () => {
  await server?.cleanup();
});
const it = (name, fn) => test(name, withServerLog(() => server, fn));

/** Runs cairn-bench; resolves with {code, stdout, stderr} (never rejects on exit codes). */
function runBench(args, { timeoutMs = 30_000 } = {}) {
  if (!existsSync(BENCH_BIN)) {
    throw new Error(
      `cairn-bench not found at ${BENCH_BIN}: build it (cmake --build --preset dev --target cairn-bench)`,
    );
  }
  return new Promise((resolve) => {
    execFile(BENCH_BIN, args, { timeout: timeoutMs, maxBuffer: 16 << 20 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

/** Runs a subcommand against `url` that must succeed; returns its one JSON result. */
async function bench(subcommand, args, url = server.url) {
  const argv = [subcommand, '--url', url, ...args];
  const { code, stdout, stderr } = await runBench(argv);
  const where = `cairn-bench ${argv.join(' ')}\n--- stdout ---\n${stdout}\n--- stderr ---\n${stderr}`;
  assert.equal(code, 0, `exit code ${code}: ${where}`);
  const lines = stdout.trim().split('\n');
  assert.equal(lines.length, 1, `expected exactly one JSON line on stdout: ${where}`);
  const result = JSON.parse(lines[0]);
  assert.equal(result.subcommand, subcommand, where);
  return result;
}

/** Counts add up: every completed request is exactly one of ok or error. */
function assertConsistent(r) {
  assert.equal(r.requests, r.ok + r.errors, JSON.stringify(r));
  assert.equal(r.latency_us.count, r.ok, `latency is recorded for successes only: ${JSON.stringify(r)}`);
  assert.ok(r.error_samples.length <= 5, JSON.stringify(r));
  assert.equal(r.error_samples.length, Math.min(5, r.errors), JSON.stringify(r));
}

it('get /health: every request succeeds and is counted once', async () => {
  const r = await bench('get', ['--path', '/health', '--duration-s', '1', '--warmup-s', '0', '--connections', '4']);
  assertConsistent(r);
  assert.ok(r.ok > 0, JSON.stringify(r));
  assert.equal(r.errors, 0, JSON.stringify(r));
  assert.equal(r.connections, 4);
  assert.ok(r.duration_s >= 1 && r.duration_s < 3, JSON.stringify(r));
  assert.ok(Math.abs(r.throughput_rps - r.ok / r.duration_s) <= 0.002 * r.throughput_rps, JSON.stringify(r));
  const l = r.latency_us;
  assert.ok(l.p50 > 0 && l.p50 <= l.p90 && l.p90 <= l.p99 && l.p99 <= l.p999 && l.p999 <= l.max, JSON.stringify(l));
});

it('get of a 404 route: every response is an error, none a success', async () => {
  const r = await bench('get', ['--path', '/v1/namespaces/missing', '--duration-s', '0.5', '--warmup-s', '0', '--connections', '2']);
  assertConsistent(r);
  assert.ok(r.requests > 0, JSON.stringify(r));
  assert.equal(r.ok, 0, JSON.stringify(r));
  assert.equal(r.errors, r.requests, JSON.stringify(r));
  assert.equal(r.throughput_rps, 0);
  assert.ok(r.error_samples.length > 0);
  for (const s of r.error_samples) {
    assert.equal(s.status, 404, JSON.stringify(s));
    assert.match(s.detail, /404/);
    assert.match(s.detail, /NoSuchNamespaceException/);
  }
});

it('get with two paths: they take turns, each counted on its own', async () => {
  const r = await bench('get', ['--path', '/health', '--path', '/v1/namespaces/missing', '--phase-ms', '100',
    '--duration-s', '1', '--warmup-s', '0.2', '--connections', '3']);
  assertConsistent(r);
  assert.equal(r.path, undefined, JSON.stringify(r));
  assert.equal(r.phase_ms, 100);
  const [health, missing] = r.paths;
  assert.equal(health.path, '/health');
  assert.equal(missing.path, '/v1/namespaces/missing');
  for (const p of r.paths) assertConsistent(p);
  assert.ok(health.ok > 0 && health.errors === 0, JSON.stringify(health));
  assert.ok(missing.ok === 0 && missing.errors > 0, JSON.stringify(missing));
  assert.equal(health.requests + missing.requests, r.requests);
  // Ten phases of 100 ms: half the window each.
  assert.ok(Math.abs(health.seconds - missing.seconds) <= 0.11, JSON.stringify(r));
  assert.ok(Math.abs(health.seconds + missing.seconds - r.duration_s) < 0.002, JSON.stringify(r));
  assert.ok(Math.abs(health.throughput_rps - health.ok / health.seconds) <= 0.002 * health.throughput_rps + 0.1);
});

it('get with --expect 304: a 200 outside the expected set is an error', async () => {
  const r = await bench('get', ['--path', '/health', '--expect', '304', '--duration-s', '0.5', '--warmup-s', '0']);
  assertConsistent(r);
  assert.ok(r.requests > 0, JSON.stringify(r));
  assert.equal(r.ok, 0, JSON.stringify(r));
  assert.equal(r.errors, r.requests, JSON.stringify(r));
  assert.equal(r.error_samples[0].status, 200);
});

it('get against a closed port: transport errors are errors', async () => {
  const port = await new Promise((resolve) => {
    const s = net.createServer();
    s.listen(0, '127.0.0.1', () => {
      const p = s.address().port;
      s.close(() => resolve(p));
    });
  });
  const r = await bench('get', ['--path', '/health', '--duration-s', '0.3', '--warmup-s', '0'], `http://127.0.0.1:${port}`);
  assertConsistent(r);
  assert.equal(r.ok, 0, JSON.stringify(r));
  assert.ok(r.errors > 0, JSON.stringify(r));
  assert.equal(r.error_samples[0].status, 0);
  assert.match(r.error_samples[0].detail, /connect/i);
});

it('commits: two writers on one table land exactly the commits they report', async () => {
  const r = await bench('commits', ['--namespace', 'benchtest', '--tables', 'hot', '--writers', '2', '--commits-per-writer', '5']);
  assert.equal(r.commits, 10, JSON.stringify(r));
  assert.equal(r.errors, 0, JSON.stringify(r));
  assert.equal(r.latency_us.count, 10);
  assert.equal(r.post_latency_us.count, r.commits + r.conflicts, JSON.stringify(r));

  const res = await call(server.url, 'GET', '/v1/default/namespaces/benchtest/tables/hot');
  assert.equal(res.status, 200, describeResponse(res));
  const m = res.json.metadata;
  assert.equal(m.snapshots.length, 10, `expected exactly 10 snapshots: ${JSON.stringify(m.snapshots.map((s) => s['snapshot-id']))}`);
  // One linear history from main back to the first snapshot, sequence numbers 1..10.
  const byId = new Map(m.snapshots.map((s) => [s['snapshot-id'], s]));
  const chain = [];
  for (let id = m.refs.main['snapshot-id']; id !== undefined; id = byId.get(id)['parent-snapshot-id']) {
    assert.ok(byId.has(id), `main's ancestry names a missing snapshot ${id}`);
    chain.push(byId.get(id));
  }
  assert.equal(chain.length, 10);
  assert.deepEqual(chain.map((s) => s['sequence-number']).reverse(), [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
  assert.equal(chain[0].summary['total-data-files'], String(chain.reduce((n, s) => n + Number(s.summary['added-data-files']), 0)));
});

it('setup-table: batched commits build one sequential history', async () => {
  const r = await bench('setup-table', ['--namespace', 'benchtest', '--table', 'big', '--snapshots', '23', '--batch', '10']);
  assert.equal(r.snapshots, 23);
  const res = await call(server.url, 'GET', '/v1/default/namespaces/benchtest/tables/big');
  assert.equal(res.status, 200, describeResponse(res));
  assert.equal(r.metadata_bytes, Buffer.byteLength(res.text), 'metadata_bytes is the loadTable body size');
  const ids = res.json.metadata.snapshots.map((s) => s['snapshot-id']);
  assert.deepEqual(ids, Array.from({ length: 23 }, (_, i) => i + 1));
  assert.equal(res.json.metadata['current-snapshot-id'], 23);
  assert.match(res.json.metadata.snapshots[22]['manifest-list'], /\/metadata\/snap-23-1-[0-9a-f-]{36}\.avro$/);
});

it('walk and etag: pages follow next-page-token; the ETag gives a 304', async () => {
  const w = await bench('walk', ['--path', '/v1/default/namespaces/benchtest/tables', '--page-size', '1', '--repeat', '2']);
  assert.equal(w.items, 2, JSON.stringify(w)); // hot and big
  assert.equal(w.pages, 2, JSON.stringify(w));
  assert.equal(w.page_latency_us.length, 2);
  assert.equal(w.latency_us.count, 4);

  const e = await bench('etag', ['--path', '/v1/default/namespaces/benchtest/tables/big']);
  assert.ok(e.etag.length > 0);
  const r = await bench('get', [
    '--path', '/v1/default/namespaces/benchtest/tables/big', '--header', `If-None-Match: ${e.etag}`,
    '--expect', '304', '--duration-s', '0.3', '--warmup-s', '0',
  ]);
  assertConsistent(r);
  assert.ok(r.ok > 0, JSON.stringify(r));
  assert.equal(r.errors, 0, JSON.stringify(r));
});

it('usage errors exit non-zero with nothing on stdout', async () => {
  const { code, stdout } = await runBench(['get', '--url', server.url]); // no --path
  assert.notEqual(code, 0);
  assert.equal(stdout.trim(), '');
});
