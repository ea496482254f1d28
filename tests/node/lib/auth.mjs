// Helpers for tests with authentication on: a server whose token key and root credentials
// the test knows, tokens from the token endpoint, and tokens minted by the test itself
// (expired, wrongly signed, for another audience) with node:crypto.

import { createHash, createPrivateKey, generateKeyPairSync, sign } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import path from 'node:path';

import { call } from './http.mjs';
import { makeTempDir, removeDir, startServer } from './server.mjs';

export const ROOT_ID = 'root-client';
export const ROOT_SECRET = 'root-secret-0123456789abcdef';

const b64url = (buf) => Buffer.from(buf).toString('base64url');

/** A fresh EC P-256 key: { pem, kid } (kid = the RFC 7638 thumbprint, as Cairn names it). */
export function newSigningKey() {
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const pem = privateKey.export({ type: 'pkcs8', format: 'pem' });
  const jwk = privateKey.export({ format: 'jwk' });
  const canonical = JSON.stringify({ crv: jwk.crv, kty: jwk.kty, x: jwk.x, y: jwk.y });
  const kid = b64url(createHash('sha256').update(canonical).digest());
  return { pem, kid, key: createPrivateKey(pem) };
}

/** A compact ES256 JWT of `claims` signed with `signingKey`. */
export function mintToken(signingKey, claims, header = {}) {
  const head = b64url(JSON.stringify({ alg: 'ES256', kid: signingKey.kid, typ: 'JWT', ...header }));
  const body = b64url(JSON.stringify(claims));
  const signature = sign('sha256', Buffer.from(`${head}.${body}`), {
    key: signingKey.key,
    dsaEncoding: 'ieee-p1363',
  });
  return `${head}.${body}.${b64url(signature)}`;
}

/** Claims as Cairn issues them, valid for a minute, with `overrides`. */
export function claimsFor(subject, overrides = {}) {
  const now = Math.floor(Date.now() / 1000);
  return { iss: 'cairn', aud: 'cairn', sub: subject, iat: now, nbf: now, exp: now + 60, ...overrides };
}

/**
 * Starts Cairn with `auth = on`, a signing key the test holds and known root credentials.
 * Returns the server plus { key, rootToken, token(id, secret), bearer(token) }.
 */
export async function startSecuredServer({ args = [], env = {}, config } = {}) {
  const keyDir = makeTempDir('cairn-node-key-');
  const key = newSigningKey();
  const keyFile = path.join(keyDir, 'token-key.pem');
  writeFileSync(keyFile, key.pem, { mode: 0o600 });
  const srv = await startServer({
    args: ['--auth', 'on', '--token-signing-key-file', keyFile, ...args],
    env: { CAIRN_ROOT_CREDENTIALS: `${ROOT_ID}:${ROOT_SECRET}`, ...env },
    config,
  });
  const cleanup = srv.cleanup;
  srv.cleanup = async () => {
    await cleanup();
    removeDir(keyDir);
  };
  srv.key = key;
  srv.token = (id, secret) => clientToken(srv.url, id, secret);
  srv.rootToken = await srv.token(ROOT_ID, ROOT_SECRET);
  return srv;
}

/** POSTs a form to the token endpoint; the raw response. */
export function tokenRequest(base, form, headers = {}, path = '/v1/oauth/tokens') {
  return call(base, 'POST', path, {
    rawBody: new URLSearchParams(form).toString(),
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', ...headers },
  });
}

/** An access token for client credentials; throws on failure. */
export async function clientToken(base, id, secret) {
  const res = await tokenRequest(base, { grant_type: 'client_credentials', client_id: id, client_secret: secret, scope: 'catalog' });
  if (res.status !== 200) throw new Error(`token request failed: ${res.status} ${res.text}`);
  return res.json.access_token;
}

export const bearer = (token) => ({ Authorization: `Bearer ${token}` });

/** Management API call as `token`; throws unless the status is `expect`. */
export async function manage(base, token, method, path, body, expect) {
  const res = await call(base, method, `/management/v1${path}`, { body, headers: bearer(token) });
  if (expect !== undefined && res.status !== expect) {
    throw new Error(`${method} ${path}: expected ${expect}, got ${res.status} ${res.text}`);
  }
  return res;
}

/** A principal with the given grants (one role named after it); returns { id, secret, token }. */
export async function principalWith(srv, name, grants = []) {
  const created = await manage(srv.url, srv.rootToken, 'POST', '/principals', { name }, 201);
  const role = `${name}-role`;
  await manage(srv.url, srv.rootToken, 'POST', '/roles', { name: role }, 201);
  await manage(srv.url, srv.rootToken, 'PUT', `/principals/${name}/roles/${role}`, undefined, 204);
  for (const grant of grants) {
    await manage(srv.url, srv.rootToken, 'POST', `/roles/${role}/grants`, grant, 204);
  }
  const id = created.json['client-id'];
  const secret = created.json['client-secret'];
  return { id, secret, role, token: await srv.token(id, secret) };
}

/** A grant body: privilege on a securable. */
export function grant(privilege, kind, { catalog, namespace, name } = {}) {
  const securable = { kind };
  if (catalog !== undefined) securable.catalog = catalog;
  if (namespace !== undefined) securable.namespace = namespace;
  if (name !== undefined) securable.name = name;
  return { privilege, securable };
}
