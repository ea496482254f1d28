// The load generator's Lance managed-versioning subcommands (W9 of bench/run): lance-setup
// and lance-commits must commit exactly the versions they report, as CreateTableVersion
// calls that Cairn accepts (a valid staging manifest at the right path), and `get --body`
// must POST it, so that the Lance reads W9 times are real 200s.

import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { test, before, after } from 'node:test';
import { CAIRN_BIN, startServer, withServerLog } from './lib/server.mjs';
import { call, describeResponse } from './lib/http.mjs';

const BENCH_BIN = path.join(path.dirname(CAIRN_BIN), 'cairn-bench');
const TABLE = (name) => `/lance/v1/table/lb%24ns%24${name}`;
const ID = (name) => ({ id: ['lb', 'ns', name] });

let server;
before(async () => {
  server = await startServer();
});
after(async () => {
  await server?.cleanup();
});
const it = (name, fn) => test(name, withServerLog(() => server, fn));

/** Runs a cairn-bench subcommand that must succeed; returns its one JSON result. */
function bench(subcommand, args) {
  assert.ok(existsSync(BENCH_BIN), `cairn-bench not found at ${BENCH_BIN}`);
  const argv = [subcommand, '--url', server.url, ...args];
  return new Promise((resolve) => {
    execFile(BENCH_BIN, argv, { timeout: 60_000 }, (error, stdout, stderr) => {
      const where = `cairn-bench ${argv.join(' ')}\n--- stdout ---\n${stdout}\n--- stderr ---\n${stderr}`;
      assert.equal(error, null, where);
      const lines = stdout.trim().split('\n');
      assert.equal(lines.length, 1, where);
      const result = JSON.parse(lines[0]);
      assert.equal(result.subcommand, subcommand, where);
      resolve(result);
    });
  });
}

/** Every recorded version of a table, oldest first. */
async function versions(name) {
  const res = await call(server.url, 'POST', `${TABLE(name)}/version/list?delimiter=%24&limit=1000`, { body: ID(name) });
  assert.equal(res.status, 200, describeResponse(res));
  return res.json.versions;
}

it('lance-setup: a managed table with exactly the versions asked for, staging files gone', async () => {
  const r = await bench('lance-setup', ['--catalog', 'lb', '--namespace', 'ns', '--tables', 'big',
    '--versions', '25', '--connections', '3', '--manifest-bytes', '700']);
  assert.equal(r.versions_per_table, 25);
  const listed = await versions('big');
  assert.deepEqual(listed.map((v) => v.version), Array.from({ length: 25 }, (_, i) => i + 1));
  for (const v of listed) assert.equal(v.manifest_size, 700, JSON.stringify(v));
  const dir = path.join(r.tables[0].dir, '_versions');
  const files = readdirSync(dir);
  assert.equal(files.length, 25, `only final manifests are left: ${files.join(', ')}`);
  assert.ok(files.every((f) => /^\d{20}\.manifest$/.test(f)), files.join(', '));

  // A second setup continues after the latest version (reported as it is at the end).
  const again = await bench('lance-setup', ['--catalog', 'lb', '--namespace', 'ns', '--tables', 'big', '--versions', '2']);
  assert.equal(again.tables[0].latest_version, 27);
  assert.equal((await versions('big')).length, 27);
});

it('lance-commits: each writer commits its table\'s versions in turn, all counted', async () => {
  const r = await bench('lance-commits', ['--catalog', 'lb', '--namespace', 'ns', '--tables', 'a,b',
    '--writers', '2', '--duration-s', '0.5', '--warmup-s', '0']);
  assert.equal(r.errors, 0, JSON.stringify(r));
  assert.ok(r.commits > 0, JSON.stringify(r));
  assert.equal(r.latency_us.count, r.commits);
  assert.equal(r.write_latency_us.count, r.commits);
  assert.equal(r.post_latency_us.count, r.commits);
  const [a, b] = [await versions('a'), await versions('b')];
  assert.equal(a.length + b.length, r.commits, 'every version committed is counted once');
  assert.deepEqual(a.map((v) => v.version), Array.from({ length: a.length }, (_, i) => i + 1));
});

it('get --body: Lance reads are POSTs that answer 200', async () => {
  const body = JSON.stringify(ID('big'));
  const r = await bench('get', ['--path', `${TABLE('big')}/describe?delimiter=%24`, '--body', body,
    '--path', `${TABLE('big')}/version/list?delimiter=%24&limit=1&descending=true`, '--body', body,
    '--duration-s', '0.4', '--warmup-s', '0']);
  assert.ok(r.ok > 0 && r.errors === 0, JSON.stringify(r));
  for (const p of r.paths) assert.ok(p.ok > 0 && p.errors === 0, JSON.stringify(p));
});
