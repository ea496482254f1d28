// The throw-away S3 server (Ceph RGW) that scripts/lib/rgw.sh starts and exports as
// CAIRN_TEST_S3_*: clients, buckets with fresh names, small object helpers, and STS AssumeRole.
//
//   test('x', async (t) => {
//     if (!s3Available()) return t.skip(S3_SKIP_MESSAGE);
//     const bucket = await createBucket();               // cairn-test-<random>
//     await putObject(bucket, 'a/b.txt', 'hello');
//     assert.deepEqual(await listKeys(bucket, 'a/'), ['a/b.txt']);
//     const creds = await assumeRole({ policy: prefixPolicy(bucket, 'a/') });
//     const narrow = s3Client(creds);                    // signed with the session credentials
//   });
//
// RGW is a real S3 implementation: SigV4 signatures, conditional PUTs and session policies are
// checked, unlike the npm fakes. Objects live in RAM and vanish when the server stops.

import { randomBytes } from 'node:crypto';
import {
  S3Client,
  CreateBucketCommand,
  GetObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
} from '@aws-sdk/client-s3';
import { STSClient, AssumeRoleCommand } from '@aws-sdk/client-sts';

const env = process.env;

export const S3_SKIP_MESSAGE =
  'S3 tests skipped: CAIRN_TEST_S3_ENDPOINT is not set (source scripts/lib/rgw.sh and run rgw_start_with_trap to start a throw-away Ceph RGW)';

/** True when a test S3 server was handed to us (CAIRN_TEST_S3_ENDPOINT and friends). */
export function s3Available() {
  return Boolean(env.CAIRN_TEST_S3_ENDPOINT);
}

function endpoint() {
  if (!s3Available()) throw new Error(S3_SKIP_MESSAGE);
  return env.CAIRN_TEST_S3_ENDPOINT;
}

function region() {
  return env.CAIRN_TEST_S3_REGION || 'us-east-1';
}

/** The S3 user's own credentials (the ones rgw.sh created), in the SDK's shape. */
export function userCredentials() {
  return { accessKeyId: env.CAIRN_TEST_S3_ACCESS_KEY, secretAccessKey: env.CAIRN_TEST_S3_SECRET_KEY };
}

/**
 * An S3 client for the test server: path-style addressing (no bucket host names on
 * 127.0.0.1), signed with `credentials` (default: the S3 user's keys). Checksums only where an
 * operation requires one: the SDK's default CRC32 trailers (aws-chunked uploads) are newer
 * than this RGW.
 *
 * @param {{accessKeyId?: string, secretAccessKey?: string, sessionToken?: string}} [credentials]
 */
export function s3Client(credentials = {}) {
  return new S3Client({
    endpoint: endpoint(),
    region: region(),
    forcePathStyle: true,
    credentials: { ...userCredentials(), ...credentials },
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
}

let defaultClient;
function client() {
  defaultClient ??= s3Client();
  return defaultClient;
}

/** A fresh, valid bucket name (3-63 characters, lower case, digits and dashes). */
export function randomBucketName(prefix = 'cairn-test') {
  return `${prefix}-${process.pid}-${randomBytes(6).toString('hex')}`;
}

/** Creates a bucket (default: a fresh random name) with the user's keys; resolves with its name. */
export async function createBucket(name = randomBucketName()) {
  await client().send(new CreateBucketCommand({ Bucket: name }));
  return name;
}

/** Every key under `prefix` in `bucket` (all pages of ListObjectsV2), in S3's order. */
export async function listKeys(bucket, prefix = '', s3 = client()) {
  const keys = [];
  let ContinuationToken;
  do {
    const page = await s3.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix, ContinuationToken }));
    for (const o of page.Contents ?? []) keys.push(o.Key);
    ContinuationToken = page.IsTruncated ? page.NextContinuationToken : undefined;
  } while (ContinuationToken);
  return keys;
}

/** PUTs `body` (string or bytes) at `key`; `extra` adds PutObject fields (e.g. IfNoneMatch: '*'). */
export async function putObject(bucket, key, body, { s3 = client(), ...extra } = {}) {
  return s3.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: body, ...extra }));
}

/** The object at `key` as text (UTF-8). */
export async function getObject(bucket, key, { s3 = client() } = {}) {
  const out = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
  return out.Body.transformToString();
}

/**
 * A session policy allowing every S3 action on the objects of `bucket` under `prefix` and
 * nothing else (no listing, no other bucket).
 */
export function prefixPolicy(bucket, prefix) {
  return {
    Version: '2012-10-17',
    Statement: [{ Effect: 'Allow', Action: ['s3:*'], Resource: [`arn:aws:s3:::${bucket}/${prefix}*`] }],
  };
}

/**
 * STS AssumeRole of CAIRN_TEST_S3_ROLE_ARN (its role policy allows s3:* on everything), signed
 * with the user's keys, on the S3 endpoint. `policy` (object or JSON text) is an inline session
 * policy: the credentials may do only what both it and the role policy allow. Resolves with
 * credentials in the shape s3Client takes (plus `expiration`).
 *
 * @param {{policy?: object | string, durationSeconds?: number, sessionName?: string}} [opts]
 */
export async function assumeRole({ policy, durationSeconds = 900, sessionName = `cairn-test-${process.pid}` } = {}) {
  const sts = new STSClient({ endpoint: endpoint(), region: region(), credentials: userCredentials() });
  const out = await sts.send(
    new AssumeRoleCommand({
      RoleArn: env.CAIRN_TEST_S3_ROLE_ARN,
      RoleSessionName: sessionName,
      DurationSeconds: durationSeconds,
      Policy: policy === undefined || typeof policy === 'string' ? policy : JSON.stringify(policy),
    }),
  );
  const c = out.Credentials;
  return {
    accessKeyId: c.AccessKeyId,
    secretAccessKey: c.SecretAccessKey,
    sessionToken: c.SessionToken,
    expiration: c.Expiration,
  };
}
