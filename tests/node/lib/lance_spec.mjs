// Validation of Lance REST responses against both Lance Namespace specs:
// <repo>/../shared/spec/lance-rest-namespace-0.0.1.yaml (what Cairn was specified against)
// and lance-rest-namespace-latest.yaml (what today's clients speak). OpenAPI 3.1 schemas
// are JSON Schema 2020-12; `nullable: true` (used by both files) is rewritten first.
// When a spec file is absent, validation against it is a no-op (a note is printed once).

import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { absolutizeRefs, loadOpenApi } from './openapi.mjs';
import { REPO_ROOT } from './server.mjs';

export const SPEC_DIR = path.resolve(REPO_ROOT, '..', 'shared', 'spec');
const FILES = {
  '0.0.1': 'lance-rest-namespace-0.0.1.yaml',
  latest: 'lance-rest-namespace-latest.yaml',
};

const states = new Map(); // version -> {doc, ajv, id} | null
const validators = new Map();

function load(version) {
  if (states.has(version)) return states.get(version);
  const file = path.join(SPEC_DIR, FILES[version]);
  if (!existsSync(file)) {
    console.log(`Lance spec validation (${version}) skipped: ${file} not found`);
    states.set(version, null);
    return null;
  }
  const id = `https://cairn.test/lance-${version}.json`;
  const state = { ...loadOpenApi(file, id), id };
  states.set(version, state);
  return state;
}

/** True when the spec file of `version` ('0.0.1' or 'latest') was found. */
export function lanceSpecAvailable(version) {
  return load(version) !== null;
}

function compile(state, key, schema) {
  const cacheKey = `${state.id} ${key}`;
  let v = validators.get(cacheKey);
  if (!v) {
    v = state.ajv.compile(absolutizeRefs(schema, state.id));
    validators.set(cacheKey, v);
  }
  return v;
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

function fmtErrors(errors) {
  return (errors || []).map((e) => `  ${e.instancePath || '/'} ${e.message} ${JSON.stringify(e.params)}`).join('\n');
}

/**
 * Validates a response against operation `METHOD template` of spec `version`. `template` is
 * the spec's path (`/v1/namespace/{id}/create`); a leading `/lance` is stripped. The status
 * must be documented for the operation; a JSON schema, when the spec gives one, must match.
 * A response the spec declares without content (the latest spec's exists operations) is
 * checked by status only: Cairn also sends `{"exists": true}` for 0.0.1 readers.
 */
export function validateLanceResponse(version, method, template, status, body) {
  const state = load(version);
  if (!state) return;
  const specPath = template.replace(/^\/lance/, '').replace(/\?.*$/, '');
  const item = state.doc.paths[specPath];
  assert.ok(item, `Lance spec ${version} has no path ${specPath}`);
  const op = item[method.toLowerCase()];
  assert.ok(op, `Lance spec ${version} has no operation ${method} ${specPath}`);
  const responses = op.responses || {};
  const key = [String(status), `${String(status)[0]}XX`, 'default'].find((k) => k in responses);
  assert.ok(
    key !== undefined,
    `status ${status} is not documented for ${method} ${specPath} in Lance spec ${version} ` +
      `(documented: ${Object.keys(responses).join(', ')}); body=${JSON.stringify(body)}`,
  );
  const resp = resolveResponse(state.doc, responses[key]);
  const schema = resp?.content?.['application/json']?.schema;
  if (!schema) return;
  assert.ok(body && typeof body === 'object', `${method} ${specPath} -> ${status}: expected a JSON body, got ${JSON.stringify(body)}`);
  const validate = compile(state, `${method} ${specPath} ${key}`, schema);
  if (!validate(body)) {
    assert.fail(
      `${method} ${specPath} -> ${status} does not match Lance spec ${version} (response ${key}):\n` +
        `${fmtErrors(validate.errors)}\nbody: ${JSON.stringify(body)}`,
    );
  }
}

/** Validates `value` against `components.schemas[name]` of spec `version`. */
export function validateLanceSchema(version, name, value) {
  const state = load(version);
  if (!state) return;
  assert.ok(state.doc.components.schemas[name], `Lance spec ${version} has no schema ${name}`);
  const validate = compile(state, `schema ${name}`, { $ref: `#/components/schemas/${name}` });
  if (!validate(value)) {
    assert.fail(`value does not match ${name} of Lance spec ${version}:\n${fmtErrors(validate.errors)}\nvalue: ${JSON.stringify(value)}`);
  }
}

/**
 * Asserts a Lance error response: HTTP `status`, Lance `code`, and a body that is valid for
 * both specs' ErrorResponse (RFC-7807 fields for 0.0.1, `code`/`error` for latest).
 * `res` comes from http.call(). Returns the body.
 */
export function assertLanceError(res, status, code) {
  const ctx = `HTTP ${res.status} ${res.text}`;
  assert.equal(res.status, status, `expected HTTP ${status} (code ${code}), got ${ctx}`);
  assert.match(String(res.headers['content-type'] || ''), /json/i, `error is not JSON: ${ctx}`);
  const body = res.json;
  assert.ok(body && typeof body === 'object', `error body is not a JSON object: ${ctx}`);
  assert.equal(body.code, code, `Lance code: ${ctx}`);
  assert.equal(body.status, status, `RFC-7807 status: ${ctx}`);
  assert.equal(typeof body.error, 'string', `error must be a string: ${ctx}`);
  assert.ok(body.error.length > 0, `error is empty: ${ctx}`);
  assert.equal(body.detail, body.error, `detail: ${ctx}`);
  assert.match(body.type, /^\/errors\/[a-z-]+$/, `type: ${ctx}`);
  assert.equal(typeof body.title, 'string', `title: ${ctx}`);
  validateLanceSchema('0.0.1', 'ErrorResponse', body);
  validateLanceSchema('latest', 'ErrorResponse', body);
  return body;
}
