// A Cairn server whose catalog `lake` keeps its tables on the test S3 server (Ceph RGW,
// lib/s3.mjs): a fresh bucket, a config file with `[storage.lake]` (keys read from environment
// variables the config names) and `[catalog.lake]`, raw Iceberg calls with optional
// delegation headers (validated against the spec), the server's whole log for secret checks,
// and a TCP proxy that a test can stop, start, or make drop answers, to fault the storage.
//
//   s3Test('x', { vending: 'sts' }, async (cat) => {   // skipped without CAIRN_TEST_S3_*
//     const res = await cat.ice.createTable(['ns'], request, { vend: true });
//     const keys = await listKeys(cat.bucket, 'wh/');   // lib/s3.mjs
//     cat.assertNoSecrets([res.json['storage-credentials'][0].config['s3.session-token']]);
//   });                                                 // own server, stopped after the test

import assert from 'node:assert/strict';
import net from 'node:net';
import { test } from 'node:test';
import { call, describeResponse, nsPath } from './http.mjs';
import { validateResponse } from './spec.mjs';
import { startServer, stderrTail } from './server.mjs';
import { createBucket, s3Available, S3_SKIP_MESSAGE, userCredentials } from './s3.mjs';

/** Every HTTP call of these tests gives up after this long, so a stuck request is a failure. */
export const CALL_TIMEOUT_MS = 20_000;

/** The environment variables the config names for the storage's keys. */
export const KEY_ENV = 'CAIRN_E2E_LAKE_ACCESS_KEY_ID';
export const SECRET_ENV = 'CAIRN_E2E_LAKE_SECRET_ACCESS_KEY';

const T_CONFIG = '/v1/config';
const T_TABLES = '/v1/{prefix}/namespaces/{namespace}/tables';
const T_TABLE = '/v1/{prefix}/namespaces/{namespace}/tables/{table}';
const T_CREDENTIALS = '/v1/{prefix}/namespaces/{namespace}/tables/{table}/credentials';
const T_NAMESPACES = '/v1/{prefix}/namespaces';

const q = JSON.stringify; // TOML basic strings are JSON strings for the characters used here

/**
 * One `[storage.NAME]` table on `endpoint` serving `locations`, and one `[catalog.NAME]` with
 * `warehouse`. `extra` adds key = value lines to the storage (numbers, strings).
 */
export function storageToml(name, { endpoint, locations, warehouse, vending, roleArn, extra = {} }) {
  const lines = [
    `[storage.${name}]`,
    `endpoint = ${q(endpoint)}`,
    `region = ${q(process.env.CAIRN_TEST_S3_REGION || 'us-east-1')}`,
    'path-style-access = true',
    `access-key-id-env = ${q(KEY_ENV)}`,
    `secret-access-key-env = ${q(SECRET_ENV)}`,
    `locations = [${locations.map(q).join(', ')}]`,
  ];
  if (vending) lines.push(`credential-vending = ${q(vending)}`);
  if (roleArn) lines.push(`sts-role-arn = ${q(roleArn)}`);
  for (const [k, v] of Object.entries(extra)) lines.push(`${k} = ${typeof v === 'string' ? q(v) : String(v)}`);
  lines.push('', `[catalog.${name}]`, `warehouse = ${q(warehouse)}`, '');
  return lines.join('\n');
}

/** The environment that hands the S3 user's keys to Cairn through KEY_ENV and SECRET_ENV. */
export function keyEnv() {
  const { accessKeyId, secretAccessKey } = userCredentials();
  return { [KEY_ENV]: accessKeyId, [SECRET_ENV]: secretAccessKey };
}

/** Sends one Iceberg request and validates the answer against the spec operation `template`. */
async function icebergCall(base, method, target, template, { body, headers } = {}) {
  const res = await call(base, method, target, { body, headers, timeoutMs: CALL_TIMEOUT_MS });
  const parsed = res.json !== undefined ? res.json : res.text;
  try {
    validateResponse(method, template, res.status, parsed);
  } catch (e) {
    e.message = `${method} ${target}: ${e.message}`;
    throw e;
  }
  return res;
}

const VEND = { 'X-Iceberg-Access-Delegation': 'vended-credentials' };

/** Raw Iceberg routes of catalog `prefix`; `{ vend: true }` sends the delegation header. */
export function icebergApi(base, prefix) {
  const root = `/iceberg/v1/${prefix}`;
  const tables = (ns) => `${root}/namespaces/${nsPath(ns)}/tables`;
  const table = (ns, name) => `${tables(ns)}/${encodeURIComponent(name)}`;
  const h = (vend) => (vend ? VEND : {});
  return {
    createNamespace: (ns) => icebergCall(base, 'POST', `${root}/namespaces`, T_NAMESPACES, { body: { namespace: ns } }),
    createTable: (ns, body, { vend = false } = {}) => icebergCall(base, 'POST', tables(ns), T_TABLES, { body, headers: h(vend) }),
    loadTable: (ns, name, { vend = false } = {}) => icebergCall(base, 'GET', table(ns, name), T_TABLE, { headers: h(vend) }),
    commitTable: (ns, name, body) => icebergCall(base, 'POST', table(ns, name), T_TABLE, { body }),
    dropTable: (ns, name, purge) => icebergCall(base, 'DELETE', `${table(ns, name)}?purgeRequested=${purge}`, T_TABLE),
    loadCredentials: (ns, name) => icebergCall(base, 'GET', `${table(ns, name)}/credentials`, T_CREDENTIALS),
    config: () => icebergCall(base, 'GET', `/iceberg/v1/config?warehouse=${prefix}`, T_CONFIG),
  };
}

/** Asserts `res` has status `status`; the message shows the answer. */
export function assertStatus(res, status, ctx) {
  assert.equal(res.status, status, `${ctx}: expected HTTP ${status}, got ${describeResponse(res)}`);
  return res.json;
}

/** `s3://bucket/key` → { bucket, key } (key without a trailing slash). */
export function splitS3(location) {
  const m = /^s3:\/\/([^/]+)\/(.*)$/.exec(location);
  assert.ok(m, `not an s3:// location: ${location}`);
  return { bucket: m[1], key: m[2].replace(/\/+$/, '') };
}

/**
 * Starts `cairn serve --log-level debug` with catalog `lake` on a fresh bucket (`bucket`),
 * storage locations `s3://<bucket>/wh`, warehouse `s3://<bucket>/wh/lake`, and namespace `ns`
 * in it. `vending`: none (omitted), sts or static. `moreToml`: more storages and catalogs.
 * `args`: more `cairn serve` options.
 * `log()` is the server's whole stdout and stderr.
 */
export async function startS3Catalog({ vending, moreToml = '', extra = {}, namespace = true, args = [] } = {}) {
  const bucket = await createBucket();
  const toml =
    storageToml('lake', {
      endpoint: process.env.CAIRN_TEST_S3_ENDPOINT,
      locations: [`s3://${bucket}/wh`],
      warehouse: `s3://${bucket}/wh/lake`,
      vending,
      roleArn: vending === 'sts' ? process.env.CAIRN_TEST_S3_ROLE_ARN : undefined,
      extra,
    }) + moreToml;
  const server = await startServer({ config: toml, env: keyEnv(), args: ['--log-level', 'debug', ...args] });
  const cat = {
    server,
    bucket,
    toml,
    base: server.url,
    ice: icebergApi(server.url, 'lake'),
    api: (prefix) => icebergApi(server.url, prefix),
    log: () => `${server.stdout()}\n${server.stderr()}`,
    /** Asserts that none of `secrets` (and not the storage's secret key) is in the server's log. */
    assertNoSecrets(secrets = [], ctx = 'server log') {
      assertNoSecretIn(cat.log(), [userCredentials().secretAccessKey, ...secrets], ctx);
    },
    cleanup: () => server.cleanup(),
  };
  if (namespace) assertStatus(await cat.ice.createNamespace(['ns']), 200, 'create namespace ns');
  return cat;
}

/** Asserts that no secret (strings of 8+ characters; shorter or empty ones are skipped) is in `text`. */
export function assertNoSecretIn(text, secrets, ctx) {
  for (const secret of secrets) {
    if (typeof secret !== 'string' || secret.length < 8) continue;
    assert.ok(!String(text).includes(secret), `${ctx} contains a secret (${secret.slice(0, 4)}...)`);
  }
}

/** A TCP port on 127.0.0.1 that nothing listens on (it was free a moment ago). */
export async function closedPort() {
  const srv = net.createServer();
  await new Promise((resolve, reject) => srv.once('error', reject).listen(0, '127.0.0.1', resolve));
  const { port } = srv.address();
  await new Promise((resolve) => srv.close(resolve));
  return port;
}

/**
 * A TCP proxy on 127.0.0.1 to `target` (http://host:port) that the test can stop (the port
 * refuses connections and every open connection is cut) and start again on the same port.
 * `dropResponses(true)` keeps forwarding requests but throws away what the server answers
 * (a PUT lands, its client never hears of it and times out), on connections opened after it.
 */
export async function tcpProxy(target) {
  const to = new URL(target);
  const sockets = new Set();
  let server = null;
  let port = 0;
  let dropping = false;
  const track = (s) => {
    sockets.add(s);
    s.once('close', () => sockets.delete(s));
  };
  const cutAll = () => {
    for (const s of sockets) s.destroy();
  };
  const start = async () => {
    server = net.createServer((client) => {
      const upstream = net.connect(Number(to.port), to.hostname);
      track(client);
      track(upstream);
      client.on('error', () => upstream.destroy());
      upstream.on('error', () => client.destroy());
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
      client.pipe(upstream);
      if (dropping) upstream.resume(); // read and discard the answers
      else upstream.pipe(client);
    });
    await new Promise((resolve, reject) => server.once('error', reject).listen(port, '127.0.0.1', resolve));
    port = server.address().port;
  };
  const stop = async () => {
    if (!server) return;
    const closed = new Promise((resolve) => server.close(resolve));
    cutAll();
    await closed;
    server = null;
  };
  /** Switches answer dropping on or off; open connections are cut so that the change holds. */
  const dropResponses = (on) => {
    dropping = on;
    cutAll();
  };
  await start();
  return { url: () => `http://127.0.0.1:${port}`, start, stop, dropResponses };
}

/**
 * A test on a server of its own (startS3Catalog options): skipped without the S3 server; on
 * failure the server's log is shown; at the end its whole log must hold no secret.
 * `testOptions` go to node:test (e.g. `{ todo: 'the bug' }`).
 */
export function s3Test(name, options, fn, testOptions = {}) {
  test(name, { timeout: 60_000, ...testOptions }, async (t) => {
    if (!s3Available()) return t.skip(S3_SKIP_MESSAGE);
    await withS3Catalog(options, fn);
  });
}

/** Runs `fn(cat)` on a server of its own; shows its log on failure; checks the log for secrets. */
export async function withS3Catalog(options, fn) {
  const cat = await startS3Catalog(options);
  try {
    await fn(cat);
    cat.assertNoSecrets();
  } catch (e) {
    e.message += `\n--- cairn log (tail) ---\n${stderrTail(cat.server)}`;
    throw e;
  } finally {
    await cat.cleanup();
  }
}
