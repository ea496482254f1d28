// The plumbing of bench W8 (loadTable with authentication on, against a server without it):
// cairn-bench sends a bearer token read from the environment variable --token-env names
// (never shown in what it prints), `get` paths that are whole URLs go to another server
// taking turns with --url's, and bench/lib/auth.mjs makes the reader principal W8 loads
// with: TABLE_READ on one namespace, not an admin. Seconds, not a benchmark.

import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { test, before, after } from 'node:test';
import { ROOT_ID, ROOT_SECRET, bearer, startSecuredServer } from './lib/auth.mjs';
import { call, describeResponse } from './lib/http.mjs';
import { CAIRN_BIN, REPO_ROOT, startServer } from './lib/server.mjs';

const BENCH_BIN = path.join(path.dirname(CAIRN_BIN), 'cairn-bench');
const AUTH_MJS = path.join(REPO_ROOT, 'bench', 'lib', 'auth.mjs');
const TOKEN_ENV = 'CAIRN_BENCH_TEST_TOKEN';
const TABLE = '/v1/default/namespaces/bench/tables/small';

let secured;
let open;
before(async () => {
  secured = await startSecuredServer();
  open = await startServer();
});
after(async () => {
  await secured?.cleanup();
  await open?.cleanup();
});

/** Runs `file args` with `env` added; resolves with {code, stdout, stderr}. */
function run(file, args, env = {}) {
  return new Promise((resolve) => {
    execFile(file, args, { timeout: 30_000, env: { ...process.env, ...env } }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, stdout, stderr });
    });
  });
}

/** Runs a cairn-bench subcommand that must succeed, with `token` in TOKEN_ENV; its JSON. */
async function bench(args, token) {
  if (!existsSync(BENCH_BIN)) throw new Error(`cairn-bench not found at ${BENCH_BIN}`);
  const { code, stdout, stderr } = await run(BENCH_BIN, args, token ? { [TOKEN_ENV]: token } : {});
  const where = `cairn-bench ${args.join(' ')}\n--- stdout ---\n${stdout}\n--- stderr ---\n${stderr}`;
  assert.equal(code, 0, where);
  if (token) assert.ok(!stdout.includes(token) && !stderr.includes(token), `the token shows: ${where}`);
  return JSON.parse(stdout);
}

const timed = ['--duration-s', '0.6', '--warmup-s', '0', '--connections', '2'];

test('setup-table and get with --token-env: the token authenticates every request', async () => {
  const root = secured.rootToken;
  await bench(['setup-table', '--url', secured.url, '--token-env', TOKEN_ENV, '--namespace', 'bench',
    '--table', 'small', '--snapshots', '5'], root);
  const loads = await bench(['get', '--url', secured.url, '--token-env', TOKEN_ENV, '--path', TABLE, ...timed], root);
  assert.ok(loads.ok > 0 && loads.errors === 0, JSON.stringify(loads));

  // Without it, every load is a 401 and counted as an error.
  const refused = await bench(['get', '--url', secured.url, '--path', TABLE, ...timed]);
  assert.ok(refused.ok === 0 && refused.errors > 0, JSON.stringify(refused));
  assert.equal(refused.error_samples[0].status, 401);
});

test('--token-env naming an unset variable: exit 1, the variable named, nothing on stdout', async () => {
  const env = { [TOKEN_ENV]: '' };
  const { code, stdout, stderr } = await run(BENCH_BIN, ['get', '--url', secured.url, '--token-env', TOKEN_ENV, '--path', TABLE], env);
  assert.equal(code, 1, stderr);
  assert.equal(stdout, '');
  assert.match(stderr, new RegExp(`--token-env ${TOKEN_ENV}: the variable is not set or empty`));
  const spaced = await run(BENCH_BIN, ['get', '--url', secured.url, '--token-env', TOKEN_ENV, '--path', TABLE],
    { [TOKEN_ENV]: 'secret-part other-part' });
  assert.equal(spaced.code, 1, spaced.stderr);
  assert.ok(!spaced.stderr.includes('secret-part'), spaced.stderr);
});

test('auth.mjs reader-token: TABLE_READ on the namespace only, then loads on two servers taking turns', async () => {
  const made = await run(process.execPath, [AUTH_MJS, 'reader-token', secured.url, 'bench'],
    { CAIRN_ROOT_CREDENTIALS: `${ROOT_ID}:${ROOT_SECRET}` });
  assert.equal(made.code, 0, made.stderr);
  const reader = made.stdout.trim();
  assert.equal((await call(secured.url, 'GET', TABLE, { headers: bearer(reader) })).status, 200);
  const write = await call(secured.url, 'POST', '/v1/default/namespaces', { body: { namespace: ['other'] }, headers: bearer(reader) });
  assert.equal(write.status, 403, describeResponse(write));

  await bench(['setup-table', '--url', open.url, '--namespace', 'bench', '--table', 'small', '--snapshots', '5']);
  // W8's shape: loadTable and /health on each server; the server without auth ignores the
  // token it is sent too.
  const r = await bench(['get', '--url', secured.url, '--token-env', TOKEN_ENV, '--path', TABLE, '--path', '/health',
    '--path', `${open.url}${TABLE}`, '--path', `${open.url}/health`, '--phase-ms', '50', ...timed], reader);
  assert.deepEqual(r.paths.map((p) => p.path), [TABLE, '/health', `${open.url}${TABLE}`, `${open.url}/health`]);
  for (const p of r.paths) assert.ok(p.ok > 0 && p.errors === 0, JSON.stringify(p));
  assert.equal(r.paths.reduce((n, p) => n + p.requests, 0), r.requests);
});
