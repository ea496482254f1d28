// Operational surface: health, metrics, CLI, config file, body limit, signals.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { writeFileSync, existsSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { test, before, after } from 'node:test';
import { startServer, runCairn, makeTempDir, removeDir, withServerLog } from './lib/server.mjs';
import { call, describeResponse } from './lib/http.mjs';
import { assertIcebergError } from './lib/spec.mjs';
import { catalog, icall, tableApi, sampleSchema, T_CONFIG, T_NAMESPACES, T_NAMESPACE } from './lib/catalog.mjs';
import { filesUnder } from './lib/files.mjs';
import { holdWriteLock } from './lib/sqlite_lock.mjs';
import { waitFor } from './lib/wait.mjs';

let server;
let base;
const tmpDirs = [];
before(async () => {
  server = await startServer();
  base = server.url;
});
after(async () => {
  await server?.cleanup();
  for (const d of tmpDirs) removeDir(d);
});
const it = (name, fn) => test(name, withServerLog(() => server, fn));

function tmp() {
  const d = makeTempDir('cairn-node-ops-');
  tmpDirs.push(d);
  return d;
}

/** Writes `text` to a fresh cairn.toml and returns its path. */
function configFile(text) {
  const f = path.join(tmp(), 'cairn.toml');
  writeFileSync(f, text);
  return f;
}

// --- health / metrics ---------------------------------------------------------------------------

for (const p of ['/health', '/health/live', '/health/ready']) {
  it(`GET ${p} -> 200 JSON`, async () => {
    const res = await call(base, 'GET', p);
    assert.equal(res.status, 200, describeResponse(res));
    assert.match(String(res.headers['content-type']), /application\/json/);
    assert.ok(res.json && typeof res.json === 'object', `not a JSON object: ${res.text}`);
  });
}

/** Parses Prometheus text exposition into samples [{name, labels, value}] (comments skipped). */
function parseProm(text) {
  const samples = [];
  for (const line of text.split('\n')) {
    if (!line.trim() || line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})?\s+(\S+)(\s+\d+)?\s*$/.exec(line);
    assert.ok(m, `not a valid Prometheus sample line: ${JSON.stringify(line)}`);
    const labels = {};
    if (m[3] !== undefined) {
      for (const l of m[3].matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) labels[l[1]] = l[2];
    }
    samples.push({ name: m[1], labels, value: Number(m[4]) });
  }
  return samples;
}

it('GET /metrics -> Prometheus text with request counters and duration histogram', async () => {
  const c = catalog(base);
  await c.mustCreate(['metricsns'], { a: 'b' });
  await c.mustList();
  await c.load(['metricsns']);
  await c.load(['metricsns_missing']);

  let res = await call(base, 'GET', '/metrics');
  assert.equal(res.status, 200, describeResponse(res));
  assert.match(String(res.headers['content-type']), /^text\/plain/);
  const samples = parseProm(res.text);
  const ctx = `\n--- /metrics ---\n${res.text}`;
  const counters = samples.filter((s) => s.name === 'cairn_http_requests_total');
  assert.ok(counters.length > 0, `no cairn_http_requests_total samples${ctx}`);
  assert.ok(counters.every((s) => typeof s.labels.route === 'string'), `every cairn_http_requests_total sample needs a route label${ctx}`);
  const buckets = samples.filter((s) => s.name === 'cairn_http_request_duration_seconds_bucket');
  assert.ok(buckets.length > 0 && buckets.every((s) => 'le' in s.labels), `no duration histogram buckets with le${ctx}`);
  const isNsRoute = (r) => /namespace/i.test(r) && !/propert/i.test(r);
  assert.ok(counters.some((s) => isNsRoute(s.labels.route)), `no counter for a namespaces route we called${ctx}`);
  // Route labels are templates, not raw request paths (bounded cardinality).
  assert.ok(!counters.some((s) => s.labels.route.includes('metricsns')), `route label must be the route template, not the path${ctx}`);

  const total = (list) => list.filter((s) => s.name === 'cairn_http_requests_total' && isNsRoute(s.labels.route)).reduce((a, s) => a + s.value, 0);
  const before = total(samples);
  assert.ok(before >= 4, `expected >= 4 namespace requests counted, got ${before}${ctx}`);
  for (let i = 0; i < 3; i++) await c.mustList();
  res = await call(base, 'GET', '/metrics');
  const afterCount = total(parseProm(res.text));
  assert.ok(afterCount >= before + 3, `counter did not grow by 3: ${before} -> ${afterCount}`);
});

/** Prometheus's own parser and linter (promtool, Debian's prometheus package). */
function promtoolCheck(text) {
  const checked = spawnSync('promtool', ['check', 'metrics'], { input: text, encoding: 'utf8' });
  assert.ok(!checked.error, `promtool is missing (scripts/test installs the prometheus package): ${checked.error}`);
  assert.equal(checked.status, 0, `promtool check metrics:\n${checked.stdout}${checked.stderr}`);
}

it('GET /metrics: exact codes, method and route apart, build and process; promtool accepts it', async () => {
  const c = catalog(base);
  const count = (samples, labels) => samples
    .filter((s) => s.name === 'cairn_http_requests_total' && Object.entries(labels).every(([k, v]) => s.labels[k] === v))
    .reduce((a, s) => a + s.value, 0);
  const route = '/iceberg/v1/{prefix}/namespaces/{namespace}';
  const first = parseProm((await call(base, 'GET', '/metrics')).text);
  await c.load(['metrics_absent']);
  await c.load(['metrics_absent']);
  await call(base, 'GET', '/no-such-route');
  const res = await call(base, 'GET', '/metrics');
  promtoolCheck(res.text);
  const samples = parseProm(res.text);
  const ctx = `\n--- /metrics ---\n${res.text}`;
  assert.equal(count(samples, { method: 'GET', route, code: '404' }) - count(first, { method: 'GET', route, code: '404' }), 2, `two 404s of GET ${route}${ctx}`);
  assert.ok(count(samples, { route: 'unmatched', code: '404' }) > count(first, { route: 'unmatched', code: '404' }), `the unmatched 404${ctx}`);
  assert.ok(samples.every((s) => s.name !== 'cairn_http_requests_total' || /^[1-5]\d\d$/.test(s.labels.code)), `exact codes only${ctx}`);
  const one = (name) => {
    const found = samples.find((s) => s.name === name);
    assert.ok(found, `no ${name}${ctx}`);
    return found;
  };
  assert.match(one('cairn_build_info').labels.version, /^\d+\.\d+\.\d+$/);
  assert.ok(one('process_resident_memory_bytes').value > 1 << 20);
  assert.ok(one('process_open_fds').value > 3);
  assert.ok(one('process_cpu_seconds_total').value > 0);
  assert.ok(Math.abs(one('process_start_time_seconds').value - Date.now() / 1000) < 24 * 3600);
  assert.ok(one('cairn_worker_queue_depth').value >= 0);
});

// --- CLI ------------------------------------------------------------------------------------------

test('cairn --version prints a version and exits 0', async () => {
  const r = await runCairn(['--version']);
  assert.equal(r.code, 0, `exit ${r.code}; stdout=${r.stdout} stderr=${r.stderr}`);
  assert.match(r.stdout, /\d+\.\d+/, `no version number in stdout: ${JSON.stringify(r.stdout)}`);
});

test('cairn --help prints usage and exits 0', async () => {
  const r = await runCairn(['--help']);
  assert.equal(r.code, 0, `exit ${r.code}; stdout=${r.stdout} stderr=${r.stderr}`);
  assert.match(r.stdout + r.stderr, /serve/);
});

for (const listen of ['nonsense', '127.0.0.1:99999', '127.0.0.1:notaport']) {
  test(`cairn serve --listen ${listen} exits non-zero with a one-line message about listen`, async () => {
    const r = await runCairn(['serve', '--listen', listen, '--data-dir', tmp()], { timeoutMs: 10_000 });
    assert.ok(!r.timedOut, `cairn kept running with --listen ${listen}; stdout=${r.stdout} stderr=${r.stderr}`);
    assert.notEqual(r.code, 0, `exit code; stderr=${r.stderr}`);
    assert.equal(r.signal, null, `killed by ${r.signal}; stderr=${r.stderr}`);
    const msg = r.stderr.trim();
    assert.ok(msg.length > 0, 'stderr message expected');
    assert.equal(msg.split('\n').length, 1, `expected a one-line stderr message, got:\n${r.stderr}`);
    assert.match(msg, /listen/i);
    assert.doesNotMatch(r.stdout, /listening on/);
  });
}

test('config file with an invalid max-body-bytes fails at start, naming the key', async () => {
  const cfg = configFile('listen = "127.0.0.1:0"\nmax-body-bytes = "x"\n');
  const r = await runCairn(['serve', '--config', cfg, '--data-dir', tmp()], { timeoutMs: 10_000 });
  assert.ok(!r.timedOut, `cairn started despite the bad config; stdout=${r.stdout} stderr=${r.stderr}`);
  assert.notEqual(r.code, 0, `exit code; stderr=${r.stderr}`);
  assert.match(r.stderr, /max-body-bytes/);
  assert.doesNotMatch(r.stdout, /listening on/);
});

test('malformed TOML or a missing config file fails at start', async () => {
  let r = await runCairn(['serve', '--config', configFile('listen = "127.0.0.1:0\n[[[\n'), '--data-dir', tmp()], {
    timeoutMs: 10_000,
  });
  assert.ok(!r.timedOut, `cairn started despite malformed TOML; stderr=${r.stderr}`);
  assert.notEqual(r.code, 0, `exit code; stderr=${r.stderr}`);
  assert.ok(r.stderr.trim().length > 0);
  r = await runCairn(['serve', '--config', path.join(tmp(), 'does-not-exist.toml'), '--data-dir', tmp()], {
    timeoutMs: 10_000,
  });
  assert.ok(!r.timedOut, `cairn started with a missing config file; stderr=${r.stderr}`);
  assert.notEqual(r.code, 0, `exit code; stderr=${r.stderr}`);
});

/** Asserts the server at `url` rejects a 2 KiB body with 413 and accepts a small one. */
async function assertBodyLimit1024(url) {
  const big = JSON.stringify({ namespace: ['toobig'], properties: { x: 'a'.repeat(2048) } });
  const res = await call(url, 'POST', '/iceberg/v1/default/namespaces', { rawBody: big });
  assertIcebergError(res, 413, 'RequestTooLargeException');
  const small = await icall(url, 'POST', '/iceberg/v1/default/namespaces', T_NAMESPACES, { body: { namespace: ['small'] } });
  assert.equal(small.status, 200, describeResponse(small));
  const head = await icall(url, 'HEAD', '/iceberg/v1/default/namespaces/toobig', T_NAMESPACE);
  assert.equal(head.status, 404);
}

test('config file: listen + top-level max-body-bytes = 1024 -> a 2 KiB body gets 413', async () => {
  let srv;
  try {
    srv = await startServer({ listen: null, config: 'listen = "127.0.0.1:0"\nmax-body-bytes = 1024\n' });
    await assertBodyLimit1024(srv.url);
  } catch (e) {
    if (srv) e.message += `\n--- cairn stderr ---\n${srv.stderr()}`;
    throw e;
  } finally {
    await srv?.cleanup();
  }
});

test('--max-body-bytes 1024 on the command line -> a 2 KiB body gets 413', async () => {
  let srv;
  try {
    srv = await startServer({ args: ['--max-body-bytes', '1024'] });
    await assertBodyLimit1024(srv.url);
  } catch (e) {
    if (srv) e.message += `\n--- cairn stderr ---\n${srv.stderr()}`;
    throw e;
  } finally {
    await srv?.cleanup();
  }
});

test('settings by environment: CAIRN_MAX_BODY_BYTES overrides the file, a flag overrides both', async () => {
  let srv;
  try {
    // The file says 4096, the environment 1024: 1024 holds.
    srv = await startServer({ config: 'max-body-bytes = 4096\n', env: { CAIRN_MAX_BODY_BYTES: '1024' } });
    await assertBodyLimit1024(srv.url);
    await srv.cleanup();
    // The environment says 64, the flag 1024: 1024 holds.
    srv = await startServer({ args: ['--max-body-bytes', '1024'], env: { CAIRN_MAX_BODY_BYTES: '64' } });
    await assertBodyLimit1024(srv.url);
  } catch (e) {
    if (srv) e.message += `\n--- cairn stderr ---\n${srv.stderr()}`;
    throw e;
  } finally {
    await srv?.cleanup();
  }
  // A bad value names the variable, and the server does not start.
  const dir = makeTempDir();
  const bad = await runCairn(['serve', '--listen', '127.0.0.1:0', '--data-dir', dir], {
    env: { CAIRN_MAX_BODY_BYTES: 'lots' },
  }).finally(() => removeDir(dir));
  assert.notEqual(bad.code, 0);
  assert.match(bad.stderr, /CAIRN_MAX_BODY_BYTES/);
});

test('SIGTERM while a request body is still arriving: it is answered within the grace period', async () => {
  await withOwnServer({}, async (srv) => {
    const { port } = new URL(srv.url);
    const body = JSON.stringify({ namespace: ['late_body'] });
    const socket = net.connect(Number(port), '127.0.0.1');
    await new Promise((resolve, reject) => socket.once('connect', resolve).once('error', reject));
    let answer = '';
    socket.setEncoding('utf8').on('data', (d) => { answer += d; });
    const closed = new Promise((resolve) => socket.once('close', resolve));
    // The head and half the body, then the stop, then the rest.
    socket.write(`POST /iceberg/v1/default/namespaces HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, 10)}`);
    await new Promise((r) => setTimeout(r, 200));
    const exited = srv.stop('SIGTERM');
    await new Promise((r) => setTimeout(r, 300));
    socket.write(body.slice(10));
    await closed;
    assert.match(answer, /^HTTP\/1\.1 200 /, `the late request was not answered:\n${answer}`);
    assert.match(answer, /connection: close/i, 'a stopping server ends the keep-alive');
    assert.equal(await exited, 0);
  });
});

test('SIGTERM -> exit code 0; stdout held exactly the listening line', async () => {
  const srv = await startServer();
  try {
    const res = await call(srv.url, 'GET', '/health');
    assert.equal(res.status, 200);
    const code = await srv.stop('SIGTERM');
    assert.equal(code, 0, `exit code after SIGTERM; stderr:\n${srv.stderr()}`);
    assert.equal(srv.stdout(), `listening on ${srv.url}\n`, 'stdout must hold exactly one line');
  } finally {
    await srv.cleanup();
  }
});

/** Starts a server with `opts`, runs fn(srv), always cleans up; failures carry the stderr. */
async function withOwnServer(opts, fn) {
  let srv;
  try {
    srv = await startServer(opts);
    await fn(srv);
  } catch (e) {
    if (srv) e.message += `\n--- cairn stderr ---\n${srv.stderr()}`;
    throw e;
  } finally {
    await srv?.cleanup();
  }
}

test('--store sqlite:PATH keeps the metadata in that file', async () => {
  const dir = tmp();
  const db = path.join(dir, 'custom.db');
  await withOwnServer({ args: ['--store', `sqlite:${db}`] }, async (srv) => {
    await catalog(srv.url).mustCreate(['stored'], { a: 'b' });
    assert.ok(existsSync(db), `${db} was not created`);
  });
  // Another data dir, same store: the namespace is there.
  await withOwnServer({ args: ['--store', `sqlite:${db}`] }, async (srv) => {
    const res = await catalog(srv.url).load(['stored']);
    assert.equal(res.status, 200, describeResponse(res));
    assert.deepEqual(res.json.properties, { a: 'b' });
  });
});

test('--default-catalog NAME changes the prefix and what the short routes address', async () => {
  await withOwnServer({ args: ['--default-catalog', 'other'] }, async (srv) => {
    const cfg = await icall(srv.url, 'GET', '/iceberg/v1/config', T_CONFIG);
    assert.equal(cfg.status, 200, describeResponse(cfg));
    assert.equal(cfg.json.overrides.prefix, 'other');
    await catalog(srv.url, '/v1').mustCreate(['viashort']);
    assert.deepEqual(await catalog(srv.url, '/iceberg/v1/other').mustList(), [['viashort']]);
    const res = await icall(srv.url, 'GET', '/iceberg/v1/default/namespaces', T_NAMESPACES);
    assertIcebergError(res, 404, 'NoSuchWarehouseException');
  });
});


test('overload: with the worker busy and the queue full, the next request gets 503 + Retry-After and changes nothing', async () => {
  // One worker and a queue of one. The store's write lock is held from outside, so the
  // first create occupies the worker (waiting on the lock); of the two creates sent next,
  // one waits in the queue and the other must be refused at once.
  await withOwnServer(
    { args: ['--worker-threads', '1', '--worker-queue', '1', '--sqlite-busy-timeout-ms', '20000'] },
    async (srv) => {
      const tables = tableApi(srv.url);
      await catalog(srv.url).mustCreate(['busy']);
      const warehouse = path.join(srv.dataDir, 'warehouse');
      const metadataFiles = () => filesUnder(warehouse).filter((f) => f.endsWith('.metadata.json'));
      const lock = await holdWriteLock(path.join(srv.dataDir, 'cairn.db'));
      try {
        const create = (name) => tables.create(['busy'], { name, schema: sampleSchema() });
        const first = create('first');
        // A table's metadata file is written before its store write: once it is there, the
        // first create runs on the one worker (and then waits for the lock), the queue is empty.
        await waitFor(() => metadataFiles().length === 1, { what: 'the first create to write its metadata file on the worker' });
        // Which of the next two reaches the queue first is up to the network; the other finds
        // it full. The queued one cannot answer before the lock is released.
        const next = { second: create('second'), third: create('third') };
        let refused;
        for (const [name, answer] of Object.entries(next)) answer.then((res) => (refused ??= { name, res }));
        await waitFor(() => refused, {
          timeoutMs: 5000,
          what: 'one of two creates sent to a busy worker with a full queue to be refused',
        });
        assertIcebergError(refused.res, 503, 'ServiceUnavailableException');
        assert.equal(refused.res.headers['retry-after'], '1');
        const queuedName = refused.name === 'second' ? 'third' : 'second';
        // Liveness does not need a worker, so it still answers under overload.
        assert.equal((await call(srv.url, 'GET', '/health/live')).status, 200);
        await lock.release();
        assert.equal((await first).status, 200);
        assert.equal((await next[queuedName]).status, 200);
        const listed = (await tables.mustList(['busy'])).map((t) => t.name).sort();
        assert.deepEqual(listed, ['first', queuedName].sort());
        assert.equal(metadataFiles().length, 2, `the refused create left files: ${metadataFiles().join(', ')}`);
        const metrics = await call(srv.url, 'GET', '/metrics');
        assert.match(metrics.text, /^cairn_http_rejected_total 1$/m);
      } finally {
        await lock.release();
      }
    },
  );
});

test('a store lock held past the busy timeout gives 503 ServiceUnavailableException, and nothing is half-done', async () => {
  await withOwnServer({ args: ['--sqlite-busy-timeout-ms', '200'] }, async (srv) => {
    const lock = await holdWriteLock(path.join(srv.dataDir, 'cairn.db'));
    const res = await icall(srv.url, 'POST', '/iceberg/v1/default/namespaces', T_NAMESPACES, {
      body: { namespace: ['blocked'] },
    });
    assertIcebergError(res, 503, 'ServiceUnavailableException');
    await lock.release();
    assert.deepEqual(await catalog(srv.url).mustList(), []);
    assert.equal((await catalog(srv.url).mustCreate(['blocked'])).namespace[0], 'blocked');
  });
});

test('--header-timeout-ms closes a connection that never finishes its headers', async () => {
  await withOwnServer({ args: ['--header-timeout-ms', '300'] }, async (srv) => {
    const t0 = Date.now();
    const closedAfter = await new Promise((resolve) => {
      const s = net.connect(srv.port, '127.0.0.1');
      s.on('error', () => {});
      s.on('close', () => resolve(Date.now() - t0));
      s.write('GET /health HTTP/1.1\r\nHost: x\r\n'); // no final CRLF
      setTimeout(() => {
        s.destroy();
        resolve(null);
      }, 5000);
    });
    assert.ok(closedAfter !== null, 'connection still open after 5 s');
    assert.ok(closedAfter >= 200, `closed too early (${closedAfter} ms)`);
    assert.equal((await call(srv.url, 'GET', '/health')).status, 200);
  });
});

test('SIGHUP reloads the log level from the file and never stops the server', async () => {
  await withOwnServer({ config: 'log-level = "warn"\n' }, async (srv) => {
    const configFile = srv.argv[srv.argv.indexOf('--config') + 1];
    await call(srv.url, 'GET', '/health');
    assert.doesNotMatch(srv.stderr(), /path=\/health /, 'warn: no request lines');
    writeFileSync(configFile, 'log-level = "info"\n');
    srv.proc.kill('SIGHUP');
    await waitFor(() => /received SIGHUP: log level info/.test(srv.stderr()), { timeoutMs: 5000, what: 'the reload line' });
    await waitFor(async () => {
      await call(srv.url, 'GET', '/health');
      return /path=\/health /.test(srv.stderr());
    }, { timeoutMs: 5000, what: 'a request line at info' });
    // A file that no longer reads keeps the level, and the server keeps serving.
    writeFileSync(configFile, 'log-level = "nonsense"\n');
    srv.proc.kill('SIGHUP');
    await waitFor(() => /the log level stays/.test(srv.stderr()), { timeoutMs: 5000, what: 'the refusal line' });
    assert.equal((await call(srv.url, 'GET', '/health')).status, 200);
    assert.equal(srv.proc.exitCode, null, 'SIGHUP stopped the server');
  });
});

test('--log-format json: every line is one JSON object; request lines carry their fields, early errors too', async () => {
  await withOwnServer({ args: ['--log-format', 'json', '--max-body-bytes', '1024'] }, async (srv) => {
    await catalog(srv.url).mustCreate(['logged']);
    const big = JSON.stringify({ namespace: ['toobig'], properties: { x: 'a'.repeat(2048) } });
    assert.equal((await call(srv.url, 'POST', '/iceberg/v1/default/namespaces', { rawBody: big })).status, 413);
    assert.equal(await srv.stop('SIGTERM'), 0);
    await waitFor(() => srv.proc.stderr.readableEnded, { timeoutMs: 5000, what: "the end of the stopped server's stderr" });
    const lines = srv.stderr().trim().split('\n').map((line) => {
      try {
        return JSON.parse(line);
      } catch {
        assert.fail(`not a JSON line: ${line}`);
      }
    });
    for (const line of lines) {
      assert.match(line.time, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      assert.ok(['info', 'warning', 'error', 'debug'].includes(line.level), JSON.stringify(line));
    }
    const created = lines.find((l) => l.method === 'POST' && l.status === 200);
    assert.ok(created, `no request line for the namespace:\n${srv.stderr()}`);
    assert.equal(created.path, '/iceberg/v1/default/namespaces');
    assert.ok(created.bytes_in > 0 && created.bytes_out > 0, JSON.stringify(created));
    assert.match(created.client, /^127\.0\.0\.1:\d+$/);
    assert.equal(created.principal, '-');
    assert.match(created.request_id, /^[0-9a-f]{32}$/);
    assert.equal(typeof created.duration_ms, 'number');
    // Refused before routing: the same fields, and the error.
    const refused = lines.find((l) => l.status === 413);
    assert.ok(refused, `no line for the 413:\n${srv.stderr()}`);
    assert.equal(refused.method, 'POST');
    assert.equal(refused.path, '/iceberg/v1/default/namespaces');
    assert.equal(refused.bytes_in, Buffer.byteLength(big));
    assert.match(refused.client, /^127\.0\.0\.1:\d+$/);
    assert.match(refused.error, /1024 bytes/);
    assert.ok(lines.some((l) => typeof l.message === 'string' && /listening|stopping/.test(l.message)), 'plain lines have a message');
  });
});

test('--log-level error silences request logs on stderr', async () => {
  await withOwnServer({ args: ['--log-level', 'error'] }, async (srv) => {
    await catalog(srv.url).mustCreate(['quiet']);
    await call(srv.url, 'GET', '/nope');
    // A request is logged before it is answered, but its line may still be in the pipe: stop
    // the server and read its stderr to the end (the shutdown's own lines are info too).
    assert.equal(await srv.stop('SIGTERM'), 0);
    await waitFor(() => srv.proc.stderr.readableEnded, { timeoutMs: 5000, what: "the end of the stopped server's stderr" });
    assert.doesNotMatch(srv.stderr(), /\binfo\b/, `info lines with --log-level error:\n${srv.stderr()}`);
  });
});
