// Validation of management API answers against Cairn's own OpenAPI document
// (docs/management-api.yaml, in this repository: always present, never skipped).

import assert from 'node:assert/strict';
import path from 'node:path';
import { absolutizeRefs, loadOpenApi } from './openapi.mjs';
import { REPO_ROOT } from './server.mjs';

export const MANAGEMENT_SPEC_PATH = path.join(REPO_ROOT, 'docs', 'management-api.yaml');
const SPEC_ID = 'https://cairn.test/management-api.json';

let state;
const validators = new Map();

function load() {
  state ??= loadOpenApi(MANAGEMENT_SPEC_PATH, SPEC_ID);
  return state;
}

/** The operations the document declares, as "METHOD /path/template". */
export function managementOperations() {
  const { doc } = load();
  return Object.entries(doc.paths).flatMap(([p, item]) =>
    Object.keys(item).filter((k) => k !== 'parameters').map((m) => `${m.toUpperCase()} ${p}`));
}

/**
 * Asserts that `res` (from http.call) is an answer `METHOD pathTemplate` documents: its
 * status is listed and its JSON body matches the schema. Returns `res`.
 */
export function assertManagementAnswer(method, pathTemplate, res) {
  const { doc, ajv } = load();
  const op = doc.paths[pathTemplate]?.[method.toLowerCase()];
  assert.ok(op, `docs/management-api.yaml has no operation ${method} ${pathTemplate}`);
  const documented = op.responses[String(res.status)];
  assert.ok(documented, `${method} ${pathTemplate}: status ${res.status} is not documented (${Object.keys(op.responses).join(', ')}); body ${res.text}`);
  let answer = documented;
  if (answer.$ref) answer = doc.components.responses[answer.$ref.split('/').pop()];
  const schema = answer.content?.['application/json']?.schema;
  if (!schema) {
    assert.ok(!res.text, `${method} ${pathTemplate} -> ${res.status}: expected no body, got ${res.text}`);
    return res;
  }
  const key = `${method} ${pathTemplate} ${res.status}`;
  let validate = validators.get(key);
  if (!validate) {
    validate = ajv.compile(absolutizeRefs(schema, SPEC_ID));
    validators.set(key, validate);
  }
  if (!validate(res.json)) {
    const errors = validate.errors.map((e) => `  ${e.instancePath || '/'} ${e.message} ${JSON.stringify(e.params)}`).join('\n');
    assert.fail(`${method} ${pathTemplate} -> ${res.status} does not match docs/management-api.yaml:\n${errors}\nbody: ${res.text}`);
  }
  return res;
}
