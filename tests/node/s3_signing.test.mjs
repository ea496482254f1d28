// Remote signing against a real S3 server (Ceph RGW): Cairn signs an engine's S3 request with
// the storage's keys only when its target lies inside the table's locations, and RGW accepts
// what Cairn signed and refuses it once tampered with. Both routes: the table's
// `POST .../tables/{table}/sign` (signRequest) and the older `POST /v1/aws/s3/sign`.
// Skipped without CAIRN_TEST_S3_* (scripts/lib/rgw.sh).

import assert from 'node:assert/strict';
import { call } from './lib/http.mjs';
import { getObject, listKeys, putObject } from './lib/s3.mjs';
import { assertStatus, s3Test, splitS3 } from './lib/s3_catalog.mjs';

const NS = ['ns'];
const SIGNING = { extra: { 'remote-signing': true } };
const tableRequest = (name) => ({
  name,
  schema: { type: 'struct', 'schema-id': 0, fields: [{ id: 1, name: 'id', type: 'long', required: false }] },
});

/** The request an engine would have signed: a PUT or GET of `key` in `bucket`, path-style. */
function s3Request(method, bucket, key, { query = '' } = {}) {
  const path = key.split('/').map(encodeURIComponent).join('/');
  return {
    region: process.env.CAIRN_TEST_S3_REGION || 'us-east-1',
    method,
    uri: `${process.env.CAIRN_TEST_S3_ENDPOINT}/${bucket}/${path}${query}`,
    headers: { 'x-amz-content-sha256': ['UNSIGNED-PAYLOAD'] },
  };
}

/** Sends the signed request to RGW as the engine would; resolves with its status. */
async function send(signed, method, body) {
  const headers = {};
  for (const [name, values] of Object.entries(signed.headers)) {
    if (name.toLowerCase() !== 'host') headers[name] = values.join(',');
  }
  const res = await fetch(signed.uri, { method, headers, body });
  await res.arrayBuffer();
  return res.status;
}

const signAt = (cat, path, request) =>
  call(cat.base, 'POST', path, { body: request });
const tableSign = (cat, table, request) =>
  signAt(cat, `/iceberg/v1/lake/namespaces/ns/tables/${table}/sign`, request);

s3Test('loadTable advertises remote signing; the table route signs inside the table only, and RGW checks it', SIGNING, async (cat) => {
  assertStatus(await cat.ice.createTable(NS, tableRequest('t')), 200, 'create t');
  assertStatus(await cat.ice.createTable(NS, tableRequest('u')), 200, 'create u');
  const loaded = await call(cat.base, 'GET', '/iceberg/v1/lake/namespaces/ns/tables/t', {
    headers: { 'X-Iceberg-Access-Delegation': 'remote-signing' },
  });
  assertStatus(loaded, 200, 'load');
  assert.equal(loaded.json.config['s3.remote-signing-enabled'], 'true');
  assert.equal(loaded.json.config['s3.signer.endpoint'], 'v1/lake/namespaces/ns/tables/t/sign');
  assert.deepEqual(loaded.json['remote-signing-config'], {});
  assert.ok(!('s3.secret-access-key' in loaded.json.config), 'a secret in config');

  const { bucket, key } = splitS3(loaded.json.metadata.location);
  const inside = `${key}/data/part-0.parquet`;
  const put = await tableSign(cat, 't', s3Request('PUT', bucket, inside));
  assertStatus(put, 200, 'sign PUT inside');
  assert.equal(put.headers['cache-control'], 'no-cache');
  assert.equal(await send(put.json, 'PUT', 'rows'), 200, 'RGW refused a request Cairn signed');
  assert.equal(await getObject(bucket, inside), 'rows');

  const get = await tableSign(cat, 't', s3Request('GET', bucket, inside));
  assertStatus(get, 200, 'sign GET inside');
  assert.equal(get.headers['cache-control'], 'private');
  assert.equal(await send(get.json, 'GET'), 200);

  // Tampered: another key with the same signature.
  const tampered = { ...put.json, uri: put.json.uri.replace('part-0', 'part-1') };
  assert.equal(await send(tampered, 'PUT', 'evil'), 403, 'RGW accepted a tampered signature');

  // Outside the table: its sibling prefix, another table, the bucket.
  const other = splitS3((await cat.ice.loadTable(NS, 'u')).json.metadata.location).key;
  for (const target of [`${key}x/data/a`, `${other}/data/a`, 'wh/evil']) {
    const refused = await tableSign(cat, 't', s3Request('PUT', bucket, target));
    assert.equal(refused.status, 403, `${target}: ${refused.status} ${refused.text}`);
    assert.equal(refused.json.error.type, 'ForbiddenException');
  }
  assert.deepEqual(await listKeys(bucket, `${other}/data/`), []);
});

s3Test('the older /v1/aws/s3/sign route signs only for targets inside some table', SIGNING, async (cat) => {
  assertStatus(await cat.ice.createTable(NS, tableRequest('t')), 200, 'create t');
  const { bucket, key } = splitS3((await cat.ice.loadTable(NS, 't')).json.metadata.location);
  const inside = `${key}/data/legacy.parquet`;
  const signed = await signAt(cat, '/iceberg/v1/aws/s3/sign', s3Request('PUT', bucket, inside));
  assertStatus(signed, 200, 'sign inside');
  assert.equal(await send(signed.json, 'PUT', 'legacy'), 200);
  assert.equal(await getObject(bucket, inside), 'legacy');

  const list = await signAt(cat, '/v1/aws/s3/sign', s3Request('GET', bucket, '', { query: `?list-type=2&prefix=${encodeURIComponent(`${key}/`)}` }));
  assertStatus(list, 200, 'sign a listing of the table');
  assert.equal(await send(list.json, 'GET'), 200);

  for (const [what, request] of [
    ['outside every table', s3Request('PUT', bucket, 'wh/lake/ns/nobody/x')],
    ['the warehouse listing', s3Request('GET', bucket, '', { query: '?list-type=2&prefix=wh%2F' })],
    ['another endpoint', { ...s3Request('GET', bucket, inside), uri: `http://169.254.169.254/${bucket}/${inside}` }],
  ]) {
    const refused = await signAt(cat, '/v1/aws/s3/sign', request);
    assert.equal(refused.status, 403, `${what}: ${refused.status} ${refused.text}`);
  }
});

s3Test('a storage without remote signing refuses to sign (406), and loadTable does not advertise it', {}, async (cat) => {
  assertStatus(await cat.ice.createTable(NS, tableRequest('t')), 200, 'create t');
  const loaded = await call(cat.base, 'GET', '/iceberg/v1/lake/namespaces/ns/tables/t', {
    headers: { 'X-Iceberg-Access-Delegation': 'remote-signing' },
  });
  assert.ok(!('s3.remote-signing-enabled' in loaded.json.config));
  const { bucket, key } = splitS3(loaded.json.metadata.location);
  const refused = await tableSign(cat, 't', s3Request('GET', bucket, `${key}/data/a`));
  assert.equal(refused.status, 406, refused.text);
  const legacy = await signAt(cat, '/v1/aws/s3/sign', s3Request('GET', bucket, `${key}/data/a`));
  assert.equal(legacy.status, 403, legacy.text);
});
