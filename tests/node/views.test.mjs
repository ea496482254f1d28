// Iceberg view routes over raw HTTP: create (schema id 0, column ids kept, gzip metadata files,
// compression and metadata-path properties), load, exists, list (pagination), replace
// (assert-view-uuid, add-schema, add-view-version with version reuse and -1,
// set-current-view-version, dialect rule, version expiry, no-op), rename (across namespaces),
// drop, register-view, and name clashes with tables in both directions. Every response is
// validated against the OpenAPI spec, and metadata files are checked on disk.

import assert from 'node:assert/strict';
import { test, before, after } from 'node:test';
import { existsSync, readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { startServer, withServerLog } from './lib/server.mjs';
import { call, nsPath, describeResponse } from './lib/http.mjs';
import { assertIcebergError, validateResponse, validateSchema } from './lib/spec.mjs';
import { catalog, tableApi, localPath, readMetadataFile, sampleSchema } from './lib/catalog.mjs';

const T_VIEWS = '/v1/{prefix}/namespaces/{namespace}/views';
const T_VIEW = '/v1/{prefix}/namespaces/{namespace}/views/{view}';
const T_VIEW_RENAME = '/v1/{prefix}/views/rename';
const T_REGISTER_VIEW = '/v1/{prefix}/namespaces/{namespace}/register-view';

let server;
let base;
let ns; // namespace helper
let tb; // table helper
let vw; // view helper
before(async () => {
  server = await startServer();
  base = server.url;
  ns = catalog(base, '/iceberg/v1/default');
  tb = tableApi(base, '/iceberg/v1/default');
  vw = viewApi(base, '/iceberg/v1/default');
});
after(async () => {
  await server?.cleanup();
});
const it = (name, fn) => test(name, withServerLog(() => server, fn));

const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';
const GZ_FILE_RE = (version) => new RegExp(`/metadata/${version}-${UUID}\\.gz\\.metadata\\.json$`);

/**
 * Calls a view route and validates the response against `METHOD template`.
 *
 * The spec declares most view error responses (404/409/5XX) with the bare `ErrorModel` schema,
 * while their own examples, every other route and the Java client use the `IcebergErrorResponse`
 * wrapper `{"error": {...}}` (upstream inconsistency; apache/iceberg#8914 fixed it for the table
 * routes only). Cairn sends the wrapper everywhere, so such an error must match the wrapper and
 * its `error` object must match what the spec declares for the operation and status.
 */
async function vcall(baseUrl, method, path, template, opts) {
  const res = await call(baseUrl, method, path, opts);
  const body = res.json !== undefined ? res.json : res.text;
  try {
    validateResponse(method, template, res.status, body);
  } catch (e) {
    if (res.status < 400 || !body || typeof body !== 'object' || !('error' in body)) {
      e.message = `${method} ${path}: ${e.message}`;
      throw e;
    }
    validateSchema('IcebergErrorResponse', body);
    validateResponse(method, template, res.status, body.error);
  }
  return res;
}

/**
 * View API bound to one server and route root. Every call validates the response against the
 * spec operation.
 */
function viewApi(baseUrl, root) {
  const seg = (levels) => (typeof levels === 'string' ? levels : nsPath(levels));
  const viewsUrl = (levels) => `${root}/namespaces/${seg(levels)}/views`;
  const viewUrl = (levels, name) => `${viewsUrl(levels)}/${encodeURIComponent(name)}`;
  const api = {
    list: (levels, query = '') => vcall(baseUrl, 'GET', `${viewsUrl(levels)}${query ? `?${query}` : ''}`, T_VIEWS),
    create: (levels, body) => vcall(baseUrl, 'POST', viewsUrl(levels), T_VIEWS, { body }),
    load: (levels, name) => vcall(baseUrl, 'GET', viewUrl(levels, name), T_VIEW),
    head: (levels, name) => vcall(baseUrl, 'HEAD', viewUrl(levels, name), T_VIEW),
    replace: (levels, name, body) => vcall(baseUrl, 'POST', viewUrl(levels, name), T_VIEW, { body }),
    drop: (levels, name) => vcall(baseUrl, 'DELETE', viewUrl(levels, name), T_VIEW),
    rename: (source, destination) =>
      vcall(baseUrl, 'POST', `${root}/views/rename`, T_VIEW_RENAME, { body: { source, destination } }),
    register: (levels, body) => vcall(baseUrl, 'POST', `${root}/namespaces/${seg(levels)}/register-view`, T_REGISTER_VIEW, { body }),
    async mustCreate(levels, body) {
      const res = await api.create(levels, body);
      assert.equal(res.status, 200, `create view ${JSON.stringify(levels)}.${body?.name}: ${describeResponse(res)}`);
      return res.json;
    },
    async mustLoad(levels, name) {
      const res = await api.load(levels, name);
      assert.equal(res.status, 200, `load view ${JSON.stringify(levels)}.${name}: ${describeResponse(res)}`);
      return res.json;
    },
    async mustReplace(levels, name, body) {
      const res = await api.replace(levels, name, body);
      assert.equal(res.status, 200, `replace view ${JSON.stringify(levels)}.${name} ${JSON.stringify(body)}: ${describeResponse(res)}`);
      return res.json;
    },
    async mustList(levels, query = '') {
      const res = await api.list(levels, query);
      assert.equal(res.status, 200, `list views ${JSON.stringify(levels)} ?${query}: ${describeResponse(res)}`);
      return res.json.identifiers;
    },
  };
  return api;
}

/** A view version as the Java client sends it. */
function viewVersion({ id = 1, schemaId = -1, sqls = [['spark', 'select * from ns.tbl']], namespace = ['ns'], catalogName, summary } = {}) {
  const version = {
    'version-id': id,
    'timestamp-ms': 1_700_000_000_000 + id,
    'schema-id': schemaId,
    summary: summary ?? { 'engine-name': 'spark', 'engine-version': '3.5.1' },
    'default-namespace': namespace,
    representations: sqls.map(([dialect, sql]) => ({ type: 'sql', sql, dialect })),
  };
  if (catalogName !== undefined) version['default-catalog'] = catalogName;
  return version;
}

/** CreateViewRequest with the sample schema (column ids 3, 4; schema id 7). */
function createRequest(name, { properties = {}, location, version = viewVersion({ schemaId: 7 }) } = {}) {
  const body = { name, schema: sampleSchema(), 'view-version': version, properties };
  if (location !== undefined) body.location = location;
  return body;
}

/** A second schema for replacements (column id 1). */
const otherSchema = () => ({ type: 'struct', 'schema-id': 3, fields: [{ id: 1, name: 'some_id', type: 'int', required: true }] });

/** The Java client's replace: assert-view-uuid, optional add-schema, add-view-version, set-current -1. */
function replaceRequest(metadata, version, schema) {
  const updates = [];
  if (schema) updates.push({ action: 'add-schema', schema });
  updates.push({ action: 'add-view-version', 'view-version': version });
  updates.push({ action: 'set-current-view-version', 'view-version-id': -1 });
  return { requirements: [{ type: 'assert-view-uuid', uuid: metadata['view-uuid'] }], updates };
}

/** Asserts the (gzip) file named by `location` exists and holds exactly `metadata`. */
function assertFileHolds(location, metadata, ctx = '') {
  const p = localPath(location);
  assert.ok(existsSync(p), `${ctx} metadata file missing on disk: ${p}`);
  assert.deepEqual(readMetadataFile(location), metadata, `${ctx} file ${p} differs from the API's metadata`);
}

const ids = (list) => list.map((v) => v['version-id']);

// ---------------------------------------------------------------------------------------------

it('create: schema id 0, column ids kept, version 1, gzip metadata file; load, HEAD, list; 404s', async () => {
  await ns.mustCreate(['vc']);
  const created = await vw.mustCreate(['vc'], createRequest('daily', {
    properties: { comment: 'daily counts' },
    version: viewVersion({ id: 42, schemaId: 7, sqls: [['spark', 'select 1'], ['trino', 'select 1 using x']], catalogName: 'prod' }),
  }));
  const md = created.metadata;
  const mloc = created['metadata-location'];
  const warehouse = `file://${server.dataDir}/warehouse/default`;
  assert.ok(md.location.startsWith(`${warehouse}/vc/daily-`), md.location);
  assert.ok(mloc.startsWith(`${md.location}/metadata/`), mloc);
  assert.match(mloc, GZ_FILE_RE('00000'));
  // The file really is gzip, and holds what the API returned.
  const bytes = readFileSync(localPath(mloc));
  assert.deepEqual([bytes[0], bytes[1]], [0x1f, 0x8b]);
  assert.deepEqual(JSON.parse(gunzipSync(bytes).toString('utf8')), md);

  assert.match(md['view-uuid'], new RegExp(`^${UUID}$`));
  assert.equal(md['format-version'], 1);
  assert.deepEqual(md.properties, { comment: 'daily counts' });
  assert.deepEqual(md.schemas, [{ ...sampleSchema(), 'schema-id': 0 }], 'schema id 0, column ids 3 and 4 kept');
  assert.equal(md['current-version-id'], 1);
  assert.equal(md.versions.length, 1);
  const v1 = md.versions[0];
  assert.equal(v1['version-id'], 1);
  assert.equal(v1['schema-id'], 0);
  assert.equal(v1['default-catalog'], 'prod');
  assert.deepEqual(v1['default-namespace'], ['ns']);
  assert.deepEqual(v1.summary, { 'engine-name': 'spark', 'engine-version': '3.5.1' });
  assert.deepEqual(v1.representations.map((r) => r.dialect), ['spark', 'trino'], 'representation order kept');
  assert.ok(Math.abs(v1['timestamp-ms'] - Date.now()) < 60_000, 'the server sets the creation time');
  assert.deepEqual(md['version-log'], [{ 'timestamp-ms': v1['timestamp-ms'], 'version-id': 1 }]);

  const loaded = await vw.mustLoad(['vc'], 'daily');
  assert.equal(loaded['metadata-location'], mloc);
  assert.deepEqual(loaded.metadata, md);
  assert.equal((await vw.head(['vc'], 'daily')).status, 204);
  assert.equal((await vw.head(['vc'], 'nope')).status, 404);
  assert.equal((await vw.head(['vc_missing'], 'daily')).status, 404);
  assert.deepEqual(await vw.mustList(['vc']), [{ namespace: ['vc'], name: 'daily' }]);

  let err = assertIcebergError(await vw.load(['vc'], 'nope'), 404, 'NoSuchViewException');
  assert.equal(err.message, 'View does not exist: vc.nope');
  err = assertIcebergError(await vw.load(['vc_missing'], 'daily'), 404, 'NoSuchViewException');
  assert.equal(err.message, 'View does not exist: vc_missing.daily');
  err = assertIcebergError(await vw.create(['vc_missing'], createRequest('x')), 404, 'NoSuchNamespaceException');
  assert.equal(err.message, 'Namespace does not exist: vc_missing');
  assertIcebergError(await vw.list(['vc_missing']), 404, 'NoSuchNamespaceException');

  // Same name again: 409.
  err = assertIcebergError(await vw.create(['vc'], createRequest('daily')), 409, 'AlreadyExistsException');
  assert.equal(err.message, 'View already exists: vc.daily');

  // Bad requests.
  assertIcebergError(await vw.create(['vc'], createRequest('q', { version: viewVersion({ sqls: [] }) })), 400);
  err = assertIcebergError(await vw.create(['vc'], createRequest('dup', {
    version: viewVersion({ sqls: [['trino', 'a'], ['TRINO', 'b']] }),
  })), 400);
  assert.match(err.message, /Invalid view version: Cannot add multiple queries for dialect trino/);
  const noSchema = createRequest('s');
  delete noSchema.schema;
  assertIcebergError(await vw.create(['vc'], noSchema), 400);
  const substrait = createRequest('sub', { version: viewVersion() });
  substrait['view-version'].representations[0].type = 'substrait';
  err = assertIcebergError(await vw.create(['vc'], substrait), 400);
  assert.match(err.message, /unsupported view representation type 'substrait'/);
});

it('create honours location, write.metadata.compression-codec=none and write.metadata.path', async () => {
  await ns.mustCreate(['vloc']);
  const location = `file://${server.dataDir}/warehouse/default/elsewhere/vloc/plain`;
  const plain = await vw.mustCreate(['vloc'], createRequest('plain', {
    location,
    properties: { 'write.metadata.compression-codec': 'none' },
  }));
  assert.equal(plain.metadata.location, location);
  assert.match(plain['metadata-location'], new RegExp(`^${location}/metadata/00000-${UUID}\\.metadata\\.json$`));
  assert.deepEqual(JSON.parse(readFileSync(localPath(plain['metadata-location']), 'utf8')), plain.metadata);

  const metaDir = `file://${server.dataDir}/warehouse/default/custom-metadata/vloc`;
  const custom = await vw.mustCreate(['vloc'], createRequest('custom', { properties: { 'write.metadata.path': metaDir } }));
  assert.match(custom['metadata-location'], new RegExp(`^${metaDir}/00000-${UUID}\\.gz\\.metadata\\.json$`));
  assertFileHolds(custom['metadata-location'], custom.metadata);
});

it('tables and views share one identifier space, in both directions', async () => {
  await ns.mustCreate(['mix']);
  await tb.mustCreate(['mix'], { name: 'tbl', schema: sampleSchema() });
  await vw.mustCreate(['mix'], createRequest('vw'));

  let err = assertIcebergError(await vw.create(['mix'], createRequest('tbl')), 409, 'AlreadyExistsException');
  assert.equal(err.message, 'Table with same name already exists: mix.tbl');
  err = assertIcebergError(await tb.create(['mix'], { name: 'vw', schema: sampleSchema() }), 409, 'AlreadyExistsException');
  assert.equal(err.message, 'View with same name already exists: mix.vw');

  // Loading one kind by the other's name is a 404 of the asked-for kind.
  err = assertIcebergError(await vw.load(['mix'], 'tbl'), 404, 'NoSuchViewException');
  assert.equal(err.message, 'View does not exist: mix.tbl');
  err = assertIcebergError(await tb.load(['mix'], 'vw'), 404, 'NoSuchTableException');
  assert.equal(err.message, 'Table does not exist: mix.vw');
  assert.equal((await vw.head(['mix'], 'tbl')).status, 404);
  assert.equal((await tb.head(['mix'], 'vw')).status, 404);
  assertIcebergError(await vw.drop(['mix'], 'tbl'), 404, 'NoSuchViewException');
  assertIcebergError(await tb.drop(['mix'], 'vw'), 404, 'NoSuchTableException');

  // Registering either kind over the other.
  const view = await vw.mustLoad(['mix'], 'vw');
  const table = await tb.mustLoad(['mix'], 'tbl');
  err = assertIcebergError(await vw.register(['mix'], { name: 'tbl', 'metadata-location': view['metadata-location'] }), 409);
  assert.equal(err.message, 'Table with same name already exists: mix.tbl');
  err = assertIcebergError(await tb.register(['mix'], { name: 'vw', 'metadata-location': table['metadata-location'] }), 409);
  assert.equal(err.message, 'View with same name already exists: mix.vw');

  // Listings keep the kinds apart.
  assert.deepEqual(await vw.mustList(['mix']), [{ namespace: ['mix'], name: 'vw' }]);
  assert.deepEqual(await tb.mustList(['mix']), [{ namespace: ['mix'], name: 'tbl' }]);

  // A view keeps its namespace from being dropped.
  assert.equal((await tb.drop(['mix'], 'tbl')).status, 204);
  assertIcebergError(await ns.drop(['mix']), 409);
  assert.equal((await vw.drop(['mix'], 'vw')).status, 204);
  assert.equal((await ns.drop(['mix'])).status, 204);
});

it('replace: new schema and version (-1), version reuse, re-activation, no-op, requirements and errors', async () => {
  await ns.mustCreate(['vr']);
  const created = await vw.mustCreate(['vr'], createRequest('v', { properties: { 'replace.drop-dialect.allowed': 'true' } }));
  const md0 = created.metadata;

  // A new schema and a new version, both referenced as "last added".
  const r1 = await vw.mustReplace(['vr'], 'v', replaceRequest(md0,
    viewVersion({ id: 2, schemaId: -1, sqls: [['trino', 'select count(*) from ns.tbl']], catalogName: 'default' }), otherSchema()));
  assert.match(r1['metadata-location'], GZ_FILE_RE('00001'));
  assertFileHolds(r1['metadata-location'], r1.metadata);
  const md1 = r1.metadata;
  assert.deepEqual(ids(md1.versions), [1, 2]);
  assert.equal(md1['current-version-id'], 2);
  assert.deepEqual(md1.schemas.map((s) => s['schema-id']), [0, 1]);
  assert.deepEqual(md1.schemas[1].fields, otherSchema().fields, 'column ids are kept');
  assert.equal(md1.versions[1]['schema-id'], 1);
  assert.equal(md1.versions[1]['timestamp-ms'], 1_700_000_000_002, "the client's version timestamp is kept");
  assert.deepEqual(md1['version-log'].map((e) => e['version-id']), [1, 2]);
  assert.equal(md1['version-log'][1]['timestamp-ms'], 1_700_000_000_002, 'an added version became current at its own timestamp');
  assert.deepEqual(md1.properties, md0.properties);

  // The same definition as version 1 under another id: version 1 is reused, then made current by id.
  const same = { ...md0.versions[0], 'version-id': 9, 'timestamp-ms': 5 };
  const r2 = await vw.mustReplace(['vr'], 'v', {
    requirements: [{ type: 'assert-view-uuid', uuid: md0['view-uuid'].toUpperCase() }],
    updates: [
      { action: 'add-view-version', 'view-version': same },
      { action: 'set-current-view-version', 'view-version-id': 1 },
    ],
  });
  assert.deepEqual(ids(r2.metadata.versions), [1, 2], 'no new version for an identical definition');
  assert.equal(r2.metadata['current-version-id'], 1);
  const log = r2.metadata['version-log'];
  assert.deepEqual(log.map((e) => e['version-id']), [1, 2, 1]);
  assert.ok(Math.abs(log[2]['timestamp-ms'] - Date.now()) < 60_000, 're-activation is logged at commit time');
  assert.match(r2['metadata-location'], GZ_FILE_RE('00002'));

  // -1 with nothing added in the commit: 400.
  let err = assertIcebergError(await vw.replace(['vr'], 'v', {
    updates: [{ action: 'add-view-version', 'view-version': same }, { action: 'set-current-view-version', 'view-version-id': -1 }],
  }), 400);
  assert.match(err.message, /Cannot set last version id: no current version id has been set/);
  err = assertIcebergError(await vw.replace(['vr'], 'v', {
    updates: [{ action: 'add-view-version', 'view-version': viewVersion({ id: 3, schemaId: -1 }) }],
  }), 400);
  assert.match(err.message, /Cannot set last added schema: no schema has been added/);
  err = assertIcebergError(await vw.replace(['vr'], 'v', { updates: [{ action: 'set-current-view-version', 'view-version-id': 7 }] }), 400);
  assert.match(err.message, /Cannot set current version to unknown version: 7/);

  // A commit that changes nothing writes nothing.
  const noop = await vw.mustReplace(['vr'], 'v', {
    requirements: [{ type: 'assert-view-uuid', uuid: md0['view-uuid'] }],
    updates: [{ action: 'set-current-view-version', 'view-version-id': 1 }, { action: 'set-location', location: md0.location }],
  });
  assert.equal(noop['metadata-location'], r2['metadata-location']);
  assert.deepEqual(noop.metadata, r2.metadata);

  // Requirements and unknown views.
  err = assertIcebergError(await vw.replace(['vr'], 'v', {
    requirements: [{ type: 'assert-view-uuid', uuid: '2cc52516-5e73-41f2-b139-545d41a4e151' }],
    updates: [{ action: 'set-properties', updates: { k: 'v' } }],
  }), 409, 'CommitFailedException');
  assert.match(err.message, /^Requirement failed: view UUID does not match: expected /);
  err = assertIcebergError(await vw.replace(['vr'], 'nope', { updates: [{ action: 'set-properties', updates: { k: 'v' } }] }), 404, 'NoSuchViewException');
  assert.equal(err.message, 'View does not exist: vr.nope');
  assertIcebergError(await vw.replace(['vr_missing'], 'v', { updates: [] }), 404, 'NoSuchViewException');

  // Malformed or table-only changes: 400.
  err = assertIcebergError(await vw.replace(['vr'], 'v', { updates: [{ action: 'add-spec', spec: { fields: [] } }] }), 400);
  assert.match(err.message, /'add-spec' is not a view update action/);
  err = assertIcebergError(await vw.replace(['vr'], 'v', {
    requirements: [{ type: 'assert-table-uuid', uuid: md0['view-uuid'] }], updates: [],
  }), 400);
  assert.match(err.message, /'assert-table-uuid' is not a view requirement type/);
  err = assertIcebergError(await vw.replace(['vr'], 'v', { requirements: [] }), 400);
  assert.match(err.message, /updates/);
  err = assertIcebergError(await vw.replace(['vr'], 'v', { updates: [{ action: 'assign-uuid', uuid: '2cc52516-5e73-41f2-b139-545d41a4e151' }] }), 400);
  assert.match(err.message, /Cannot reassign uuid/);
  err = assertIcebergError(await vw.replace(['vr'], 'v', { updates: [{ action: 'upgrade-format-version', 'format-version': 2 }] }), 400);
  assert.match(err.message, /Unsupported format version: 2/);

  // Properties and location changes leave versions and history alone.
  const props = await vw.mustReplace(['vr'], 'v', {
    updates: [
      { action: 'set-properties', updates: { owner: 'me' } },
      { action: 'remove-properties', removals: ['missing'] },
      { action: 'set-location', location: `file://${server.dataDir}/warehouse/default/moved/vr/v` },
    ],
  });
  assert.equal(props.metadata.properties.owner, 'me');
  assert.equal(props.metadata.location, `file://${server.dataDir}/warehouse/default/moved/vr/v`);
  assert.deepEqual(props.metadata.versions, r2.metadata.versions);
  assert.deepEqual(props.metadata['version-log'], r2.metadata['version-log']);
  assert.ok(props['metadata-location'].startsWith(`file://${server.dataDir}/warehouse/default/moved/vr/v/metadata/`), props['metadata-location']);
  assert.deepEqual(await vw.mustLoad(['vr'], 'v'), props);
});

it('replace: the dialect rule and version.history.num-entries', async () => {
  await ns.mustCreate(['vd']);
  const created = await vw.mustCreate(['vd'], createRequest('v', { properties: { 'version.history.num-entries': '2' } }));
  const md0 = created.metadata;

  // Dropping the spark dialect is refused by default.
  let err = assertIcebergError(await vw.replace(['vd'], 'v',
    replaceRequest(md0, viewVersion({ id: 2, schemaId: 0, sqls: [['trino', 'select 2']] }))), 400);
  assert.match(err.message, /Cannot replace view due to loss of view dialects \(replace\.drop-dialect\.allowed=false\)/);

  // Keeping it (any case) and adding others is fine; three more versions expire the oldest.
  let md = md0;
  for (let i = 2; i <= 4; i++) {
    md = (await vw.mustReplace(['vd'], 'v', replaceRequest(md,
      viewVersion({ id: i, schemaId: 0, sqls: [['SPARK', `select ${i}`], ['trino', `select ${i}`]] })))).metadata;
  }
  assert.deepEqual(ids(md.versions), [3, 4], 'only version.history.num-entries versions are kept');
  assert.equal(md['current-version-id'], 4);
  assert.deepEqual(md['version-log'].map((e) => e['version-id']), [3, 4], 'history before an expired version is dropped');

  // With the property, the dialect may go.
  md = (await vw.mustReplace(['vd'], 'v', {
    requirements: [{ type: 'assert-view-uuid', uuid: md['view-uuid'] }],
    updates: [
      { action: 'set-properties', updates: { 'replace.drop-dialect.allowed': 'true' } },
      { action: 'add-view-version', 'view-version': viewVersion({ id: 1, schemaId: 0, sqls: [['trino', 'select 5']] }) },
      { action: 'set-current-view-version', 'view-version-id': -1 },
    ],
  })).metadata;
  assert.deepEqual(ids(md.versions), [4, 5], 'a requested id that is taken is bumped past the highest');
  assert.equal(md['current-version-id'], 5);
});

it('rename: within and across namespaces, clashes with views and tables, missing source or namespace', async () => {
  await ns.mustCreate(['rn']);
  await ns.mustCreate(['rn_other']);
  const created = await vw.mustCreate(['rn'], createRequest('v'));
  let res = await vw.rename({ namespace: ['rn'], name: 'v' }, { namespace: ['rn'], name: 'v2' });
  assert.equal(res.status, 204, describeResponse(res));
  res = await vw.rename({ namespace: ['rn'], name: 'v2' }, { namespace: ['rn_other'], name: 'moved' });
  assert.equal(res.status, 204, describeResponse(res));
  assertIcebergError(await vw.load(['rn'], 'v'), 404, 'NoSuchViewException');
  assertIcebergError(await vw.load(['rn'], 'v2'), 404, 'NoSuchViewException');
  const moved = await vw.mustLoad(['rn_other'], 'moved');
  assert.deepEqual(moved, created, 'a rename changes neither the metadata nor its file');
  assert.deepEqual(await vw.mustList(['rn']), []);
  assert.deepEqual(await vw.mustList(['rn_other']), [{ namespace: ['rn_other'], name: 'moved' }]);
  // Commits keep working under the new name.
  await vw.mustReplace(['rn_other'], 'moved', { updates: [{ action: 'set-properties', updates: { k: 'v' } }] });

  await vw.mustCreate(['rn'], createRequest('one'));
  await vw.mustCreate(['rn'], createRequest('two'));
  await tb.mustCreate(['rn'], { name: 'tbl', schema: sampleSchema() });
  let err = assertIcebergError(await vw.rename({ namespace: ['rn'], name: 'one' }, { namespace: ['rn'], name: 'two' }), 409, 'AlreadyExistsException');
  assert.equal(err.message, 'Cannot rename rn.one to rn.two. View already exists');
  err = assertIcebergError(await vw.rename({ namespace: ['rn'], name: 'one' }, { namespace: ['rn'], name: 'tbl' }), 409, 'AlreadyExistsException');
  assert.equal(err.message, 'Cannot rename rn.one to rn.tbl. Table already exists');
  err = assertIcebergError(await tb.rename({ namespace: ['rn'], name: 'tbl' }, { namespace: ['rn'], name: 'one' }), 409, 'AlreadyExistsException');
  assert.equal(err.message, 'Cannot rename rn.tbl to rn.one. View already exists');
  // Both sides intact after the refusals.
  await vw.mustLoad(['rn'], 'one');
  await vw.mustLoad(['rn'], 'two');
  await tb.mustLoad(['rn'], 'tbl');

  err = assertIcebergError(await vw.rename({ namespace: ['rn'], name: 'nope' }, { namespace: ['rn'], name: 'x' }), 404, 'NoSuchViewException');
  assert.equal(err.message, 'View does not exist: rn.nope');
  err = assertIcebergError(await vw.rename({ namespace: ['rn'], name: 'tbl' }, { namespace: ['rn'], name: 'x' }), 404, 'NoSuchViewException');
  err = assertIcebergError(await vw.rename({ namespace: ['rn'], name: 'one' }, { namespace: ['non_existing'], name: 'x' }), 404, 'NoSuchNamespaceException');
  assert.equal(err.message, 'Namespace does not exist: non_existing');
  assertIcebergError(await vw.rename({ namespace: ['rn'] }, { namespace: ['rn'], name: 'x' }), 400);
});

it('drop deletes the current file (unless gc.enabled=false); register-view restores a dropped view', async () => {
  await ns.mustCreate(['vg']);
  const gone = await vw.mustCreate(['vg'], createRequest('gone'));
  let res = await vw.drop(['vg'], 'gone');
  assert.equal(res.status, 204, describeResponse(res));
  assert.equal(res.text, '');
  assert.ok(!existsSync(localPath(gone['metadata-location'])), 'the current metadata file is deleted');
  assertIcebergError(await vw.drop(['vg'], 'gone'), 404, 'NoSuchViewException');
  assertIcebergError(await vw.load(['vg'], 'gone'), 404, 'NoSuchViewException');

  const kept = await vw.mustCreate(['vg'], createRequest('kept', { properties: { 'gc.enabled': 'false' } }));
  const replaced = await vw.mustReplace(['vg'], 'kept', replaceRequest(kept.metadata,
    viewVersion({ id: 2, schemaId: -1, sqls: [['spark', 'select 2']] }), otherSchema()));
  assert.equal((await vw.drop(['vg'], 'kept')).status, 204);
  assert.ok(existsSync(localPath(replaced['metadata-location'])));

  // Register the last file under a new name: identical metadata, commits continue from it.
  res = await vw.register(['vg'], { name: 'restored', 'metadata-location': replaced['metadata-location'] });
  assert.equal(res.status, 200, describeResponse(res));
  assert.equal(res.json['metadata-location'], replaced['metadata-location']);
  assert.deepEqual(res.json.metadata, replaced.metadata);
  assert.deepEqual(await vw.mustLoad(['vg'], 'restored'), res.json);
  const next = await vw.mustReplace(['vg'], 'restored', { updates: [{ action: 'set-properties', updates: { k: 'v' } }] });
  assert.match(next['metadata-location'], GZ_FILE_RE('00002'));

  let err = assertIcebergError(await vw.register(['vg'], { name: 'restored', 'metadata-location': replaced['metadata-location'] }), 409, 'AlreadyExistsException');
  assert.equal(err.message, 'View already exists: vg.restored');
  assertIcebergError(await vw.register(['vg_missing'], { name: 'x', 'metadata-location': replaced['metadata-location'] }), 404, 'NoSuchNamespaceException');
  assertIcebergError(await vw.register(['vg'], { name: 'x', 'metadata-location': `file://${server.dataDir}/warehouse/default/nope.gz.metadata.json` }), 404);
  assertIcebergError(await vw.register(['vg'], { name: 'x' }), 400);
  // A table's metadata file is not view metadata.
  const table = await tb.mustCreate(['vg'], { name: 'tbl', schema: sampleSchema() });
  err = assertIcebergError(await vw.register(['vg'], { name: 'x', 'metadata-location': table['metadata-location'] }), 400);
  assert.match(err.message, /^Invalid view metadata file /);
});

it('list views: pagination with pageToken/pageSize, everything without them', async () => {
  await ns.mustCreate(['vp']);
  const names = ['e', 'a', 'd', 'b', 'c'];
  for (const name of names) await vw.mustCreate(['vp'], createRequest(name));
  await tb.mustCreate(['vp'], { name: 'aa', schema: sampleSchema() });

  let res = await vw.list(['vp']);
  assert.equal(res.status, 200);
  assert.deepEqual(res.json.identifiers.map((i) => i.name), ['a', 'b', 'c', 'd', 'e']);
  assert.ok(res.json['next-page-token'] === undefined || res.json['next-page-token'] === null, res.text);

  const seen = [];
  let token = '';
  for (let page = 0; page < 10; page++) {
    res = await vw.list(['vp'], `pageToken=${encodeURIComponent(token)}&pageSize=2`);
    assert.equal(res.status, 200, describeResponse(res));
    assert.ok(res.json.identifiers.length <= 2, res.text);
    seen.push(...res.json.identifiers.map((i) => i.name));
    const next = res.json['next-page-token'];
    if (next === undefined || next === null) break;
    token = next;
  }
  assert.deepEqual(seen, ['a', 'b', 'c', 'd', 'e']);
  assertIcebergError(await vw.list(['vp'], 'pageSize=0'), 400);
});

it('view routes answer without the /iceberg base and without a prefix too', async () => {
  await ns.mustCreate(['vnp']);
  const bare = viewApi(base, '/v1');
  const created = await bare.mustCreate(['vnp'], createRequest('v'));
  assert.deepEqual(await viewApi(base, '/v1/default').mustLoad(['vnp'], 'v'), created);
  assert.deepEqual(await vw.mustLoad(['vnp'], 'v'), created);
  const res = await bare.rename({ namespace: ['vnp'], name: 'v' }, { namespace: ['vnp'], name: 'w' });
  assert.equal(res.status, 204, describeResponse(res));
  assert.equal((await bare.head(['vnp'], 'w')).status, 204);
});
