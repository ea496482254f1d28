// The S3 subcommands of the benchmark load generator (`cairn-bench`, bench W7) against the
// test S3 server (Ceph RGW, lib/s3.mjs): the ceiling writes exactly the objects it reports
// and removes them, the mean size is the mean of what is stored, and no key ever shows in
// what the tool prints. Skipped without CAIRN_TEST_S3_* (scripts/lib/rgw.sh).

import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { CAIRN_BIN } from './lib/server.mjs';
import { createBucket, listKeys, putObject, s3Available, S3_SKIP_MESSAGE } from './lib/s3.mjs';

const BENCH_BIN = path.join(path.dirname(CAIRN_BIN), 'cairn-bench');
const KEY_ENV = 'CAIRN_BENCH_TEST_ACCESS_KEY';
const SECRET_ENV = 'CAIRN_BENCH_TEST_SECRET_KEY';

/** Runs cairn-bench with `env` added; resolves with {code, stdout, stderr}. */
function runBench(args, env = {}) {
  if (!existsSync(BENCH_BIN)) throw new Error(`cairn-bench not found at ${BENCH_BIN}`);
  return new Promise((resolve) => {
    execFile(BENCH_BIN, args, { timeout: 60_000, env: { ...process.env, ...env } }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, stdout, stderr });
    });
  });
}

/** The S3 options of every subcommand, keys through KEY_ENV and SECRET_ENV. */
function s3Args(bucket) {
  return ['--endpoint', process.env.CAIRN_TEST_S3_ENDPOINT, '--region', process.env.CAIRN_TEST_S3_REGION || 'us-east-1',
    '--bucket', bucket, '--access-key-env', KEY_ENV, '--secret-key-env', SECRET_ENV];
}

const userKeys = () => ({ [KEY_ENV]: process.env.CAIRN_TEST_S3_ACCESS_KEY, [SECRET_ENV]: process.env.CAIRN_TEST_S3_SECRET_KEY });

/** Runs a subcommand that must succeed; returns its one JSON result. */
async function bench(subcommand, args, env = userKeys()) {
  const { code, stdout, stderr } = await runBench([subcommand, ...args], env);
  const where = `cairn-bench ${subcommand} ${args.join(' ')}\n--- stdout ---\n${stdout}\n--- stderr ---\n${stderr}`;
  assert.equal(code, 0, `exit code ${code}: ${where}`);
  const result = JSON.parse(stdout.trim());
  assert.equal(result.subcommand, subcommand, where);
  return result;
}

function s3Test(name, fn) {
  test(name, async (t) => {
    if (!s3Available()) return t.skip(S3_SKIP_MESSAGE);
    return fn(t);
  });
}

s3Test('s3-create-bucket, then s3-mean-size: the mean of the matching objects, read back', async () => {
  const bucket = `cairn-bench-test-${randomBytes(5).toString('hex')}`;
  assert.equal((await bench('s3-create-bucket', s3Args(bucket))).bucket, bucket);
  await bench('s3-create-bucket', s3Args(bucket)); // one the user already owns is fine
  await putObject(bucket, 'wh/t1/metadata/00001.metadata.json', 'a'.repeat(100));
  await putObject(bucket, 'wh/t1/metadata/00002.metadata.json', 'b'.repeat(301));
  await putObject(bucket, 'wh/t1/metadata/snap-1.avro', 'c'.repeat(5000)); // other suffix
  await putObject(bucket, 'other/00001.metadata.json', 'd'.repeat(9000)); // other prefix

  const all = await bench('s3-mean-size', [...s3Args(bucket), '--key-prefix', 'wh/']);
  assert.deepEqual(
    { objects: all.objects, read: all.read, mean: all.mean_bytes, min: all.min_bytes, max: all.max_bytes },
    { objects: 2, read: 2, mean: 200, min: 100, max: 301 },
  );
  const one = await bench('s3-mean-size', [...s3Args(bucket), '--key-prefix', 'wh/', '--sample', '1']);
  assert.deepEqual({ objects: one.objects, read: one.read, mean: one.mean_bytes }, { objects: 2, read: 1, mean: 100 });

  const none = await runBench(['s3-mean-size', ...s3Args(bucket), '--key-prefix', 'nothing/'], userKeys());
  assert.notEqual(none.code, 0);
  assert.match(none.stderr, /No object ending in '\.metadata\.json' under s3:\/\/.*\/nothing\//);
});

s3Test('s3-ceiling: as many conditional PUTs and transactions as asked, objects removed after', async () => {
  const bucket = await createBucket();
  const dir = mkdtempSync(path.join(os.tmpdir(), 'cairn-bench-s3-'));
  try {
    const r = await bench('s3-ceiling', [...s3Args(bucket), '--key-prefix', 'ceil/', '--bytes', '1000', '--count', '7',
      '--connections', '3', '--store', `sqlite:${path.join(dir, 'c.db')}`]);
    assert.equal(r.ops, 7, JSON.stringify(r));
    assert.equal(r.latency_us.count, 7, JSON.stringify(r));
    assert.equal(r.put_latency_us.count, 7, JSON.stringify(r));
    assert.ok(r.put_latency_us.p50 <= r.latency_us.p50 * 1.01, `the PUT is part of the operation: ${JSON.stringify(r)}`);
    assert.equal(r.bytes, 1000);
    assert.equal(r.connections, 3);
    assert.equal(r.store, 'sqlite');
    assert.deepEqual(await listKeys(bucket, ''), [], 'the ceiling deletes what it wrote');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

s3Test('S3 subcommands never print a key: a wrong secret fails with S3\'s code, a missing one names its variable', async () => {
  const bucket = await createBucket();
  const dir = mkdtempSync(path.join(os.tmpdir(), 'cairn-bench-s3-'));
  try {
    const wrong = randomBytes(20).toString('hex');
    const args = ['s3-ceiling', ...s3Args(bucket), '--bytes', '10', '--count', '1', '--store', `sqlite:${path.join(dir, 'c.db')}`];
    const refused = await runBench(args, { ...userKeys(), [SECRET_ENV]: wrong });
    assert.notEqual(refused.code, 0);
    assert.match(refused.stderr, /403 SignatureDoesNotMatch/);
    for (const secret of [wrong, process.env.CAIRN_TEST_S3_SECRET_KEY]) {
      assert.ok(!refused.stdout.includes(secret) && !refused.stderr.includes(secret), `a secret in the output: ${refused.stderr}`);
    }

    const missing = await runBench(args, { [KEY_ENV]: process.env.CAIRN_TEST_S3_ACCESS_KEY, [SECRET_ENV]: '' });
    assert.notEqual(missing.code, 0);
    assert.match(missing.stderr, new RegExp(`environment variable ${SECRET_ENV} \\(--secret-key-env\\) is not set`));
    assert.equal(missing.stdout.trim(), '');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
