// Native HTTPS: `cairn serve` with a certificate from a throw-away CA (openssl CLI via
// tests/support/make_test_tls.sh), clients that trust only that CA, and the certificate
// swapped and reloaded with SIGHUP while a keep-alive connection stays open.

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { X509Certificate } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import path from 'node:path';
import { test, before, after } from 'node:test';
import { REPO_ROOT, startServer, runCairn, makeTempDir, removeDir, withServerLog } from './lib/server.mjs';
import { waitFor } from './lib/wait.mjs';

const MAKE_TEST_TLS = path.join(REPO_ROOT, 'tests', 'support', 'make_test_tls.sh');

let dir;
let first; // {ca, cert, key, fingerprint}
let second;
let servedCert;
let servedKey;
let server;
before(async () => {
  dir = makeTempDir('cairn-node-tls-');
  first = makePki('a-');
  second = makePki('b-');
  servedCert = path.join(dir, 'served.pem');
  servedKey = path.join(dir, 'served.key');
  install(first);
  // The TOML keys, as an operator's config file would have them.
  server = await startServer({ config: { 'tls-cert-file': servedCert, 'tls-key-file': servedKey } });
});
after(async () => {
  await server?.cleanup();
  removeDir(dir);
});
const it = (name, fn) => test(name, withServerLog(() => server, fn));

function makePki(prefix) {
  execFileSync('sh', [MAKE_TEST_TLS, dir, prefix], { stdio: ['ignore', 'ignore', 'inherit'] });
  const file = (name) => path.join(dir, `${prefix}${name}`);
  return {
    ca: readFileSync(file('ca.pem')),
    cert: file('server.pem'),
    key: file('server.key'),
    fingerprint: new X509Certificate(readFileSync(file('server.pem'))).fingerprint256,
  };
}

/** Copies a certificate and key over the files the server was started with. */
function install({ cert, key }) {
  copyFileSync(cert, servedCert);
  copyFileSync(key, servedKey);
}

/**
 * GET `path` over HTTPS trusting only `ca` (on a new connection unless `agent` is given).
 * Resolves with {status, body, fingerprint (of the certificate presented; undefined on a
 * reused connection), reused}.
 */
function get(path, { ca, agent } = {}) {
  return new Promise((resolve, reject) => {
    const req = https.get(
      { host: '127.0.0.1', port: server.port, path, ca, agent: agent ?? false, timeout: 10_000 },
      (res) => {
        const fingerprint = res.socket.getPeerX509Certificate()?.fingerprint256;
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (d) => (body += d));
        res.on('end', () => resolve({ status: res.statusCode, body, fingerprint, reused: req.reusedSocket }));
      },
    );
    req.on('timeout', () => req.destroy(new Error(`timeout: GET ${path}`)));
    req.on('error', reject);
  });
}

it('prints an https:// address and serves with a certificate that verifies against its CA', async () => {
  assert.match(server.url, /^https:\/\/127\.0\.0\.1:\d+$/);
  assert.equal(server.stdout(), `listening on ${server.url}\n`);
  assert.match(server.stderr(), /serving .* on https:\/\/127\.0\.0\.1:/);
  const res = await get('/health', { ca: first.ca });
  assert.equal(res.status, 200, res.body);
  assert.equal(res.fingerprint, first.fingerprint);
  await assert.rejects(get('/health', { ca: second.ca }), { code: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE' });
});

it('plain HTTP to the TLS port fails without harming the server', async () => {
  await assert.rejects(
    new Promise((resolve, reject) => {
      const req = http.get({ host: '127.0.0.1', port: server.port, path: '/health', agent: false }, resolve);
      req.setTimeout(10_000, () => req.destroy(new Error('timeout')));
      req.on('error', reject);
    }),
    (err) => err.message !== 'timeout',
  );
  assert.equal((await get('/health', { ca: first.ca })).status, 200);
});

it('SIGHUP reloads the swapped certificate for new connections; an open one keeps working', async () => {
  install(first);
  const bothCas = [first.ca, second.ca];
  const agent = new https.Agent({ keepAlive: true, maxSockets: 1, ca: bothCas });
  try {
    const before = await get('/health', { agent });
    assert.equal(before.fingerprint, first.fingerprint);

    install(second);
    const reloads = server.stderr().split('TLS certificate reloaded').length;
    server.proc.kill('SIGHUP');
    await waitFor(() => server.stderr().split('TLS certificate reloaded').length > reloads, {
      what: 'the reload to be logged',
    });
    const fresh = await get('/health', { ca: second.ca });
    assert.equal(fresh.status, 200);
    assert.equal(fresh.fingerprint, second.fingerprint);
    await assert.rejects(get('/health', { ca: first.ca }), { code: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE' });

    const kept = await get('/health', { agent });
    assert.equal(kept.status, 200);
    // The connection that presented the first certificate (Node shows the peer's
    // certificate only on the request that made the connection).
    assert.equal(kept.reused, true, 'the keep-alive connection was closed by the reload');
    assert.equal(server.proc.exitCode, null);
  } finally {
    agent.destroy();
  }
});

it('a reload with a broken key is logged naming the file and keeps the certificate served', async () => {
  install(second);
  server.proc.kill('SIGHUP');
  await waitFor(() => (server.stderr().match(/TLS certificate reloaded/g) || []).length >= 2, {
    what: 'the reload of the second certificate',
  });
  writeFileSync(servedKey, '-----BEGIN PRIVATE KEY-----\nS3CRETMARKER\n-----END PRIVATE KEY-----\n');
  copyFileSync(first.cert, servedCert);
  server.proc.kill('SIGHUP');
  await waitFor(() => /TLS reload failed/.test(server.stderr()), { what: 'the failed reload to be logged' });
  const line = server.stderr().split('\n').find((l) => l.includes('TLS reload failed'));
  assert.match(line, /^\S+ warning /);
  assert.ok(line.includes(servedKey), line);
  assert.doesNotMatch(server.stderr(), /S3CRETMARKER/);
  const res = await get('/health', { ca: second.ca });
  assert.equal(res.status, 200);
  assert.equal(res.fingerprint, second.fingerprint);
  assert.equal(server.proc.exitCode, null);
  install(second);
});

test('a start with a key that does not match the certificate fails with one line', async () => {
  const data = makeTempDir('cairn-node-tls-data-');
  try {
    const r = await runCairn([
      'serve', '--listen', '127.0.0.1:0', '--data-dir', data,
      '--tls-cert-file', first.cert, '--tls-key-file', second.key,
    ]);
    assert.equal(r.code, 2, r.stderr);
    assert.equal(r.stdout, '');
    assert.equal(
      r.stderr,
      `cairn: tls-key-file: the key in '${second.key}' does not match the certificate in '${first.cert}' (tls-cert-file)\n`,
    );
    const half = await runCairn(['serve', '--listen', '127.0.0.1:0', '--data-dir', data, '--tls-cert-file', first.cert]);
    assert.equal(half.code, 2);
    assert.match(half.stderr, /^cairn: tls-cert-file: set tls-cert-file and tls-key-file together/);
  } finally {
    removeDir(data);
  }
});

test('SIGHUP without TLS logs that there is no certificate to reload and the server keeps serving', async () => {
  const plain = await startServer();
  try {
    assert.match(plain.url, /^http:\/\//);
    plain.proc.kill('SIGHUP');
    await waitFor(() => /TLS is off, no certificate to reload/.test(plain.stderr()), { what: 'the SIGHUP log line' });
    const status = await new Promise((resolve, reject) => {
      http.get(`${plain.url}/health`, { agent: false }, (res) => {
        res.resume();
        resolve(res.statusCode);
      }).on('error', reject);
    });
    assert.equal(status, 200);
    assert.equal(plain.proc.exitCode, null);
    assert.equal(await plain.stop(), 0);
  } finally {
    await plain.cleanup();
  }
});
