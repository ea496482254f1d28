// Validation of responses against the official Iceberg REST Catalog OpenAPI spec
// (<repo>/../shared/spec/iceberg-rest-catalog-open-api.yaml, OpenAPI 3.1 = JSON Schema 2020-12).
// When the spec file is absent every validation is a no-op (a note is printed once).

import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { absolutizeRefs, loadOpenApi } from './openapi.mjs';
import { REPO_ROOT } from './server.mjs';

export const SPEC_PATH = path.resolve(REPO_ROOT, '..', 'shared', 'spec', 'iceberg-rest-catalog-open-api.yaml');
const SPEC_ID = 'https://cairn.test/iceberg-rest-catalog-open-api.json';

let state; // {doc, ajv} | null (spec missing)
let warned = false;
const validators = new Map();

function load() {
  if (state !== undefined) return state;
  if (!existsSync(SPEC_PATH)) {
    if (!warned) {
      warned = true;
      console.log('spec validation skipped: ../shared/spec not found');
    }
    state = null;
    return state;
  }
  state = loadOpenApi(SPEC_PATH, SPEC_ID, patchSpecDefects);
  return state;
}

/** True when the spec was found (validation active). */
export function specAvailable() {
  return load() !== null;
}

// The spec's `PrimitiveTypeValue` is a `oneOf` whose alternatives overlap: a string is
// a StringTypeValue and a DecimalTypeValue (and, by its form, a date, a timestamp or hex
// binary) at once, so no string value (a string partition value, a bound, a filter
// literal) can match exactly one. Which one a value is follows from the field's Iceberg
// type, not from the JSON; validate it as "one of these forms" (anyOf).
//
// The planning results (`PlanTableScanResult`, `FetchPlanningResult`) choose their
// alternative by `status` (a `discriminator` with a mapping, which Ajv does not apply),
// and their alternatives overlap too: `{"status":"submitted","plan-id":...}` is both an
// AsyncPlanningResult and an EmptyPlanningResult. Apply the mapping as the spec means it:
// the alternative `status` names, and only that one.
function patchSpecDefects(doc) {
  const schemas = doc.components?.schemas ?? {};
  const values = schemas.PrimitiveTypeValue;
  if (values?.oneOf) {
    values.anyOf = values.oneOf;
    delete values.oneOf;
  }
  for (const name of ['PlanTableScanResult', 'FetchPlanningResult']) {
    const result = schemas[name];
    const mapping = result?.discriminator?.mapping;
    if (!result?.oneOf || !mapping) continue;
    const property = result.discriminator.propertyName;
    result.allOf = [
      { required: [property], properties: { [property]: { enum: Object.keys(mapping) } } },
      ...Object.entries(mapping).map(([value, ref]) => ({
        if: { required: [property], properties: { [property]: { const: value } } },
        then: { $ref: ref },
      })),
    ];
    delete result.oneOf;
  }
}

function compile(key, schema) {
  let v = validators.get(key);
  if (!v) {
    v = load().ajv.compile(absolutizeRefs(schema, SPEC_ID));
    validators.set(key, v);
  }
  return v;
}

function fmtErrors(errors) {
  return (errors || []).map((e) => `  ${e.instancePath || '/'} ${e.message} ${JSON.stringify(e.params)}`).join('\n');
}

/** Maps an actual route template to the spec's template: strips `/iceberg`, adds `{prefix}`. */
function specPathFor(pathTemplate) {
  let p = pathTemplate.replace(/\?.*$/, '');
  if (p.startsWith('/iceberg/')) p = p.slice('/iceberg'.length);
  const { doc } = load();
  if (doc.paths[p]) return p;
  if (p.startsWith('/v1/') && !p.startsWith('/v1/{prefix}/')) {
    const withPrefix = `/v1/{prefix}${p.slice(3)}`;
    if (doc.paths[withPrefix]) return withPrefix;
  }
  return p;
}

function resolveResponse(doc, resp) {
  let r = resp;
  for (let i = 0; r && r.$ref && i < 10; i++) {
    const m = /^#\/components\/responses\/(.+)$/.exec(r.$ref);
    assert.ok(m, `unsupported response $ref ${r.$ref}`);
    r = doc.components.responses[m[1]];
  }
  return r;
}

function isEmptyBody(body) {
  return body === undefined || body === null || body === '' || (Buffer.isBuffer(body) && body.length === 0);
}

/**
 * Validates a response against the spec operation `method pathTemplate` (e.g.
 * `GET /v1/{prefix}/namespaces`; `/iceberg` and missing `{prefix}` are tolerated).
 * `body` is the parsed JSON body (undefined/'' when empty). Throws an AssertionError when the
 * status is not documented for the operation, or the body does not match its schema.
 */
export function validateResponse(method, pathTemplate, status, body) {
  if (!load()) return;
  const { doc } = state;
  const m = method.toLowerCase();
  const specPath = specPathFor(pathTemplate);
  const item = doc.paths[specPath];
  assert.ok(item, `spec has no path ${pathTemplate} (looked up ${specPath})`);
  const op = item[m];
  assert.ok(op, `spec has no operation ${method.toUpperCase()} ${specPath}`);
  const responses = op.responses || {};
  const key = [String(status), `${String(status)[0]}XX`, 'default'].find((k) => k in responses);
  assert.ok(
    key !== undefined,
    `status ${status} is not documented for ${method.toUpperCase()} ${specPath} ` +
      `(documented: ${Object.keys(responses).join(', ')}); body=${JSON.stringify(body)}`,
  );
  const resp = resolveResponse(doc, responses[key]);
  const schema = resp?.content?.['application/json']?.schema;
  if (m === 'head' || status === 204 || status === 304 || !schema) {
    if (m === 'head' || status === 204 || status === 304 || !resp?.content) {
      assert.ok(isEmptyBody(body), `${method.toUpperCase()} ${specPath} -> ${status}: expected an empty body, got ${JSON.stringify(body)}`);
    }
    return;
  }
  assert.ok(
    !isEmptyBody(body) && typeof body !== 'string',
    `${method.toUpperCase()} ${specPath} -> ${status}: expected a JSON body, got ${JSON.stringify(body)}`,
  );
  const validate = compile(`${m} ${specPath} ${key}`, schema);
  if (!validate(body)) {
    assert.fail(
      `${method.toUpperCase()} ${specPath} -> ${status} (spec response ${key}) does not match the spec:\n` +
        `${fmtErrors(validate.errors)}\nbody: ${JSON.stringify(body)}`,
    );
  }
}

/** Validates `value` against `components.schemas[name]` (no-op without the spec). */
export function validateSchema(name, value) {
  if (!load()) return;
  assert.ok(state.doc.components.schemas[name], `spec has no schema ${name}`);
  const validate = compile(`schema ${name}`, { $ref: `#/components/schemas/${name}` });
  if (!validate(value)) {
    assert.fail(`value does not match schema ${name}:\n${fmtErrors(validate.errors)}\nvalue: ${JSON.stringify(value)}`);
  }
}

/**
 * Asserts an Iceberg error response: HTTP `status`, JSON body `{error:{message,type,code}}`
 * with code === status and type === `type`. `res` is a response from http.call().
 * Returns the `error` object.
 */
export function assertIcebergError(res, status, type) {
  const ctx = `HTTP ${res.status} ${res.text}`;
  assert.equal(res.status, status, `expected HTTP ${status} ${type}, got ${ctx}`);
  assert.match(String(res.headers['content-type'] || ''), /json/i, `error response is not JSON: ${ctx}`);
  assert.ok(res.json && typeof res.json === 'object', `error body is not a JSON object: ${ctx}`);
  const err = res.json.error;
  assert.ok(err && typeof err === 'object', `error body lacks "error" object: ${ctx}`);
  assert.equal(typeof err.message, 'string', `error.message must be a string: ${ctx}`);
  assert.ok(err.message.length > 0, `error.message is empty: ${ctx}`);
  assert.equal(err.code, status, `error.code must equal the HTTP status: ${ctx}`);
  if (type !== undefined) assert.equal(err.type, type, `error.type: ${ctx}`);
  validateSchema('IcebergErrorResponse', res.json);
  return err;
}
