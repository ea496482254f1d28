// The S3 test server (Ceph RGW, scripts/lib/rgw.sh) is a real S3: what the object-storage tests
// rely on and an npm fake would let through is checked here (signatures, conditional PUTs,
// session policies). Skipped when CAIRN_TEST_S3_ENDPOINT is not set.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DeleteObjectsCommand } from '@aws-sdk/client-s3';
import {
  s3Available,
  S3_SKIP_MESSAGE,
  s3Client,
  userCredentials,
  createBucket,
  listKeys,
  putObject,
  getObject,
  assumeRole,
  prefixPolicy,
} from './lib/s3.mjs';

/** A test that needs the S3 server: skipped (with the reason) when there is none. */
function s3Test(name, fn) {
  test(name, { timeout: 30_000 }, async (t) => {
    if (!s3Available()) {
      t.skip(S3_SKIP_MESSAGE);
      return;
    }
    await fn(t);
  });
}

/** Runs `promise`, expecting an S3 error: asserts its HTTP status and code. */
async function assertS3Error(promise, status, code) {
  await assert.rejects(promise, (e) => {
    assert.equal(e.$metadata?.httpStatusCode, status, `HTTP status of ${e.name}: ${e.message}`);
    assert.equal(e.name, code);
    return true;
  });
}

s3Test('a request signed with a wrong secret gets 403 SignatureDoesNotMatch', async () => {
  const bucket = await createBucket();
  const wrong = s3Client({ ...userCredentials(), secretAccessKey: 'x'.repeat(40) });
  await assertS3Error(putObject(bucket, 'k', 'v', { s3: wrong }), 403, 'SignatureDoesNotMatch');
  await assertS3Error(listKeys(bucket, '', wrong), 403, 'SignatureDoesNotMatch');
  assert.deepEqual(await listKeys(bucket), []);
});

s3Test('PUT with If-None-Match: * over an existing key gets 412 and keeps the object', async () => {
  const bucket = await createBucket();
  await putObject(bucket, 'only-once', 'first', { IfNoneMatch: '*' });
  await assertS3Error(putObject(bucket, 'only-once', 'second', { IfNoneMatch: '*' }), 412, 'PreconditionFailed');
  assert.equal(await getObject(bucket, 'only-once'), 'first');
});

s3Test('ListObjectsV2 lists by prefix and DeleteObjects removes a batch', async () => {
  const bucket = await createBucket();
  const keys = ['data/a.parquet', 'data/b.parquet', 'data/c.parquet', 'metadata/v1.json'];
  for (const k of keys) await putObject(bucket, k, k);
  assert.deepEqual(await listKeys(bucket, 'data/'), keys.slice(0, 3));

  const out = await s3Client().send(
    new DeleteObjectsCommand({
      Bucket: bucket,
      Delete: { Objects: keys.slice(0, 2).map((Key) => ({ Key })) },
    }),
  );
  assert.deepEqual(out.Errors ?? [], []);
  assert.deepEqual(await listKeys(bucket), ['data/c.parquet', 'metadata/v1.json']);
});

s3Test('AssumeRole with a session policy for prefix-a/ can write there and nowhere else', async () => {
  const bucket = await createBucket();
  const creds = await assumeRole({ policy: prefixPolicy(bucket, 'prefix-a/') });
  assert.ok(creds.sessionToken, 'AssumeRole returns a session token');
  const narrow = s3Client(creds);

  await putObject(bucket, 'prefix-a/x.txt', 'inside', { s3: narrow });
  assert.equal(await getObject(bucket, 'prefix-a/x.txt', { s3: narrow }), 'inside');
  await assertS3Error(putObject(bucket, 'prefix-b/x.txt', 'outside', { s3: narrow }), 403, 'AccessDenied');
  assert.deepEqual(await listKeys(bucket), ['prefix-a/x.txt']);

  // The refusal comes from the session policy: the role alone may write under prefix-b/.
  const wide = s3Client(await assumeRole());
  await putObject(bucket, 'prefix-b/x.txt', 'role only', { s3: wide });
  assert.deepEqual(await listKeys(bucket), ['prefix-a/x.txt', 'prefix-b/x.txt']);
});
