// The identity routes of the management API (principals, roles, grants; auth = on):
// every answer, success and error, validated against docs/management-api.yaml, so that
// the document describes what the server says.
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';

import { call, describeResponse } from './lib/http.mjs';
import { bearer, startSecuredServer } from './lib/auth.mjs';
import { assertManagementAnswer } from './lib/management_spec.mjs';

let srv;
before(async () => { srv = await startSecuredServer(); });
after(async () => { await srv?.cleanup(); });

/** Calls `method path` as root and validates the answer against `template`. */
async function managed(method, template, path, body, expected) {
  const res = assertManagementAnswer(method, template, await call(srv.url, method, path, { body, headers: bearer(srv.rootToken) }));
  assert.equal(res.status, expected, `${method} ${path}: ${describeResponse(res)}`);
  return res;
}

test('principals, roles, assignments and grants answer as documented', async () => {
  const P = '/management/v1/principals';
  const R = '/management/v1/roles';
  const created = await managed('POST', P, P, { name: 'etl' }, 201);
  assert.ok(created.json['client-secret']);
  await managed('POST', P, P, { name: 'etl' }, 409);
  await managed('GET', P, P, undefined, 200);
  await managed('GET', `${P}/{principal}`, `${P}/etl`, undefined, 200);
  await managed('GET', `${P}/{principal}`, `${P}/ghost`, undefined, 404);
  await managed('POST', `${P}/{principal}/rotate`, `${P}/etl/rotate`, undefined, 200);

  await managed('POST', R, R, { name: 'writers' }, 201);
  await managed('GET', R, R, undefined, 200);
  await managed('PUT', `${P}/{principal}/roles/{role}`, `${P}/etl/roles/writers`, undefined, 204);
  const grant = { privilege: 'TABLE_WRITE', securable: { kind: 'catalog', catalog: 'default' } };
  await managed('POST', `${R}/{role}/grants`, `${R}/writers/grants`, grant, 204);
  const grants = await managed('GET', `${R}/{role}/grants`, `${R}/writers/grants`, undefined, 200);
  assert.equal(grants.json.grants.length, 1);
  await managed('POST', `${R}/{role}/grants`, `${R}/writers/grants`, { privilege: 'NOT_A_PRIVILEGE', securable: { kind: 'catalog', catalog: 'default' } }, 400);
  await managed('POST', `${R}/{role}/grants/revoke`, `${R}/writers/grants/revoke`, grant, 204);
  await managed('DELETE', `${P}/{principal}/roles/{role}`, `${P}/etl/roles/writers`, undefined, 204);
  await managed('DELETE', `${R}/{role}`, `${R}/writers`, undefined, 204);
  await managed('DELETE', `${P}/{principal}`, `${P}/etl`, undefined, 204);
  await managed('GET', '/management/v1/routes', '/management/v1/routes', undefined, 200);

  const anonymous = assertManagementAnswer('GET', P, await call(srv.url, 'GET', P));
  assert.equal(anonymous.status, 401);
});
