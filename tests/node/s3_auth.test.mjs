// Vended credentials follow the caller's grants (issues 14 and 15): on a catalog on the test
// S3 server (Ceph RGW) with STS vending and `auth = on`, a principal that may only read a
// table (TABLE_READ) gets credentials RGW lets read but not write; one that may write it
// (TABLE_WRITE) gets credentials that write. RGW itself judges. Skipped without
// CAIRN_TEST_S3_ENDPOINT.

import assert from 'node:assert/strict';

import { bearer, clientToken, grant, ROOT_ID, ROOT_SECRET } from './lib/auth.mjs';
import { call } from './lib/http.mjs';
import { getObject, putObject, s3Client } from './lib/s3.mjs';
import { assertStatus, s3Test, splitS3 } from './lib/s3_catalog.mjs';

process.env.CAIRN_ROOT_CREDENTIALS = `${ROOT_ID}:${ROOT_SECRET}`;

const SCHEMA = { type: 'struct', 'schema-id': 0, fields: [{ id: 1, name: 'id', type: 'long', required: true }] };
const VEND = { 'X-Iceberg-Access-Delegation': 'vended-credentials' };

/** A principal holding one role with `grants`; its token. */
async function principal(base, rootToken, name, grants) {
  const as = (method, path, body) => call(base, method, `/management/v1${path}`, { body, headers: bearer(rootToken) });
  const created = await as('POST', '/principals', { name });
  assertStatus(created, 201, `create ${name}`);
  assertStatus(await as('POST', '/roles', { name: `${name}-role` }), 201, 'role');
  assertStatus(await as('PUT', `/principals/${name}/roles/${name}-role`), 204, 'assign');
  for (const g of grants) assertStatus(await as('POST', `/roles/${name}-role/grants`, g), 204, 'grant');
  return clientToken(base, created.json['client-id'], created.json['client-secret']);
}

function s3Of(body) {
  const c = body['storage-credentials'][0].config;
  return s3Client({ accessKeyId: c['s3.access-key-id'], secretAccessKey: c['s3.secret-access-key'], sessionToken: c['s3.session-token'] });
}

s3Test('STS with auth on: TABLE_READ gets read-only credentials, TABLE_WRITE read-write ones', { vending: 'sts', namespace: false, args: ['--auth', 'on'] }, async (cat) => {
  const root = await clientToken(cat.base, ROOT_ID, ROOT_SECRET);
  const ice = '/iceberg/v1/lake';
  assertStatus(await call(cat.base, 'POST', `${ice}/namespaces`, { body: { namespace: ['ns'] }, headers: bearer(root) }), 200, 'namespace');
  const created = await call(cat.base, 'POST', `${ice}/namespaces/ns/tables`, { body: { name: 't', schema: SCHEMA }, headers: bearer(root) });
  assertStatus(created, 200, 'create');
  const metadataKey = splitS3(created.json['metadata-location']).key;
  const tableKey = splitS3(created.json.metadata.location).key;

  const table = { catalog: 'lake', namespace: ['ns'], name: 't' };
  const reader = await principal(cat.base, root, 'reader', [grant('TABLE_READ', 'table', table)]);
  const writer = await principal(cat.base, root, 'writer', [grant('TABLE_WRITE', 'table', table)]);

  for (const [who, token, writes] of [['reader', reader, false], ['writer', writer, true]]) {
    for (const [how, method, path] of [
      ['loadTable', 'GET', `${ice}/namespaces/ns/tables/t`],
      ['loadCredentials', 'GET', `${ice}/namespaces/ns/tables/t/credentials`],
    ]) {
      const res = await call(cat.base, method, path, { headers: { ...bearer(token), ...VEND } });
      assertStatus(res, 200, `${who} ${how}`);
      const s3 = s3Of(res.json);
      const ctx = `${who} via ${how}`;
      assert.ok((await getObject(cat.bucket, metadataKey, { s3 })).length > 0, `${ctx}: read the metadata`);
      const put = putObject(cat.bucket, `${tableKey}/data/probe-${who}-${how}.txt`, 'x', { s3 });
      if (writes) {
        await put;
      } else {
        await assert.rejects(put, (e) => e.$metadata?.httpStatusCode === 403, `${ctx}: a write must be refused by RGW`);
      }
    }
  }
  // Without TABLE_READ there are no credentials at all.
  const outsider = await principal(cat.base, root, 'outsider', [grant('TABLE_READ', 'catalog', { catalog: 'default' })]);
  const refused = await call(cat.base, 'GET', `${ice}/namespaces/ns/tables/t/credentials`, { headers: { ...bearer(outsider), ...VEND } });
  assert.equal(refused.status, 403, refused.text);
});

/** The request an engine would have signed: `method` on `key` in `bucket`, path-style. */
function s3Request(method, bucket, key) {
  return {
    region: process.env.CAIRN_TEST_S3_REGION || 'us-east-1',
    method,
    uri: `${process.env.CAIRN_TEST_S3_ENDPOINT}/${bucket}/${key.split('/').map(encodeURIComponent).join('/')}`,
    headers: { 'x-amz-content-sha256': ['UNSIGNED-PAYLOAD'] },
  };
}

s3Test('remote signing with auth on: TABLE_READ signs reads only, TABLE_WRITE writes too; the table-less route needs SERVICE_ADMIN', { namespace: false, args: ['--auth', 'on'], extra: { 'remote-signing': true } }, async (cat) => {
  const root = await clientToken(cat.base, ROOT_ID, ROOT_SECRET);
  const ice = '/iceberg/v1/lake';
  assertStatus(await call(cat.base, 'POST', `${ice}/namespaces`, { body: { namespace: ['ns'] }, headers: bearer(root) }), 200, 'namespace');
  const created = await call(cat.base, 'POST', `${ice}/namespaces/ns/tables`, { body: { name: 't', schema: SCHEMA }, headers: bearer(root) });
  assertStatus(created, 200, 'create');
  const key = `${splitS3(created.json.metadata.location).key}/data/part-0.parquet`;
  const table = { catalog: 'lake', namespace: ['ns'], name: 't' };
  const reader = await principal(cat.base, root, 'signed-reader', [grant('TABLE_READ', 'table', table)]);
  const writer = await principal(cat.base, root, 'signed-writer', [grant('TABLE_WRITE', 'table', table)]);
  const sign = (token, method, route = `${ice}/namespaces/ns/tables/t/sign`) =>
    call(cat.base, 'POST', route, { body: s3Request(method, cat.bucket, key), headers: bearer(token) });

  assertStatus(await sign(reader, 'GET'), 200, 'a reader signs a GET');
  const readerPut = await sign(reader, 'PUT');
  assert.equal(readerPut.status, 403, `a reader must not get a PUT signed: ${readerPut.text}`);
  assertStatus(await sign(writer, 'PUT'), 200, 'a writer signs a PUT');
  assertStatus(await sign(writer, 'GET'), 200, 'a writer signs a GET');
  const tableless = await sign(writer, 'GET', '/iceberg/v1/aws/s3/sign');
  assert.equal(tableless.status, 403, tableless.text);
  assertStatus(await sign(root, 'GET', '/iceberg/v1/aws/s3/sign'), 200, 'root on the table-less route');
});
