// Lance tables on the throw-away S3 server (Ceph RGW, see lib/s3.mjs): a Cairn whose config
// declares a storage on a fresh bucket and a catalog on it, and the helpers the S3 Lance tests
// share.
//
//   s3LanceTest('x', async (t) => {
//     const lake = await startLake();              // fresh bucket, [storage.lake], [catalog.lake]
//     t.after(() => lake.cleanup());
//     const db = await lake.connect();             // LanceDB through Cairn's Lance routes
//     await db.createNamespace(['lake', 'ns']);
//     await lake.listKeys('wh/lake/ns/');          // what landed in the bucket
//   });
//
// LanceDB runs inside this Node process: `clearAwsEnvironment()` (called on import) removes
// every AWS_* variable, so whatever it writes to S3 it does with what Cairn hands it.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as lancedb from '@lancedb/lancedb';
import { startServer } from './server.mjs';
import { lance, waitForTransaction } from './lance.mjs';
import { s3Available, S3_SKIP_MESSAGE, createBucket, listKeys } from './s3.mjs';

/** The environment variables the config names for the storage's keys (set for Cairn only). */
export const KEY_ID_ENV = 'CAIRN_LAKE_ACCESS_KEY_ID';
export const SECRET_ENV = 'CAIRN_LAKE_SECRET_ACCESS_KEY';

/** Removes AWS_* from this process's environment (LanceDB's object store reads them). */
export function clearAwsEnvironment() {
  for (const name of Object.keys(process.env)) {
    if (name.startsWith('AWS_')) delete process.env[name];
  }
}
clearAwsEnvironment();

/** The storage's own secret key (the S3 user's), which Cairn must never show. */
export function storageSecret() {
  return process.env.CAIRN_TEST_S3_SECRET_KEY;
}

/** A test that needs the S3 server: skipped (with the reason) when there is none. */
export function s3LanceTest(name, fn, { timeout = 60_000, todo } = {}) {
  test(name, { timeout, todo }, async (t) => {
    if (!s3Available()) {
      t.skip(S3_SKIP_MESSAGE);
      return;
    }
    await fn(t);
  });
}

/**
 * The config file: `[storage.lake]` on the RGW serving `s3://<bucket>/wh` (keys from the
 * environment variables above, vending `vending` unless null) and `[catalog.lake]` at
 * `s3://<bucket>/wh/lake`.
 */
export function lakeConfig(bucket, { vending = 'sts', extra = '' } = {}) {
  const env = process.env;
  const lines = [
    '[storage.lake]',
    `endpoint = ${JSON.stringify(env.CAIRN_TEST_S3_ENDPOINT)}`,
    `region = ${JSON.stringify(env.CAIRN_TEST_S3_REGION || 'us-east-1')}`,
    'path-style-access = true',
    `access-key-id-env = "${KEY_ID_ENV}"`,
    `secret-access-key-env = "${SECRET_ENV}"`,
    `locations = [${JSON.stringify(`s3://${bucket}/wh`)}]`,
  ];
  if (vending) lines.push(`credential-vending = ${JSON.stringify(vending)}`);
  if (vending === 'sts') lines.push(`sts-role-arn = ${JSON.stringify(env.CAIRN_TEST_S3_ROLE_ARN)}`);
  lines.push('', '[catalog.lake]', `warehouse = ${JSON.stringify(`s3://${bucket}/wh/lake`)}`, '');
  return lines.join('\n') + extra;
}

/**
 * Starts Cairn with `lakeConfig` on a fresh bucket. Resolves with `{server, bucket, url, api,
 * connect(), listKeys(prefix), cleanup()}`. `extra(bucket)` is TOML appended to the config.
 */
export async function startLake({ vending = 'sts', extra = () => '' } = {}) {
  const bucket = await createBucket();
  const server = await startServer({
    config: lakeConfig(bucket, { vending, extra: extra(bucket) }),
    env: {
      [KEY_ID_ENV]: process.env.CAIRN_TEST_S3_ACCESS_KEY,
      [SECRET_ENV]: process.env.CAIRN_TEST_S3_SECRET_KEY,
    },
  });
  const api = lance(server.url);
  return {
    server,
    bucket,
    url: server.url,
    api,
    connect: () => lancedb.connectNamespace('rest', { uri: `${server.url}/lance` }),
    listKeys: (prefix = '') => listKeys(bucket, prefix),
    cleanup: () => server.cleanup(),
  };
}

/** Drops a table through the REST route and waits for a background deletion, if any. */
export async function dropTable(api, levels) {
  const dropped = await api.must('table', levels, 'drop', { body: { id: levels } });
  if (typeof dropped.transaction_id === 'string') {
    const { body } = await waitForTransaction(api, dropped.transaction_id);
    assert.equal(body.status, 'SUCCEEDED', JSON.stringify(body));
  }
  return dropped;
}

/** The keys under `prefix` once a drop's deletion is done (a LanceDB drop may run in background). */
export async function keysAfterDrop(lake, prefix, { gone, timeoutMs = 15_000 }) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const keys = await lake.listKeys(prefix);
    if (!keys.some((k) => k.startsWith(gone)) || Date.now() > deadline) return keys;
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** `fields` of each row (ids as numbers: LanceDB hands back bigints for int64), sorted by id. */
export function pick(rows, fields) {
  return rows
    .map((r) => Object.fromEntries(fields.map((f) => [f, f === 'id' ? Number(r[f]) : r[f]])))
    .sort((a, b) => a.id - b.id);
}
