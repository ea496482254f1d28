// An external OIDC issuer: no real one installs here, so a small local endpoint stands in.
// It serves a JWK Set (and records each fetch), the test mints the issuer's tokens with
// node:crypto, and Cairn accepts them — naming the principal by a configured claim —
// refuses the wrong ones, and follows a key rotation by refetching the set once.

import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { after, before, test } from 'node:test';

import { bearer, claimsFor, grant, manage, mintToken, newSigningKey, startSecuredServer } from './lib/auth.mjs';
import { call } from './lib/http.mjs';
import { withServerLog } from './lib/server.mjs';

const ISSUER = 'https://idp.example.test/realms/lake';
const AUDIENCE = 'cairn-api';

/** The stand-in issuer: serves its current keys at /jwks and counts what it is asked. */
function startIssuer() {
  const issuer = { keys: [newSigningKey()], fetches: 0, requests: [] };
  const server = createServer((req, res) => {
    issuer.requests.push(`${req.method} ${req.url}`);
    if (req.method !== 'GET' || req.url !== '/jwks') {
      res.writeHead(404).end();
      return;
    }
    issuer.fetches += 1;
    const keys = issuer.keys.map((k) => ({ ...k.key.export({ format: 'jwk' }), d: undefined, kid: k.kid, use: 'sig', alg: 'ES256' }));
    res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify({ keys }));
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      issuer.url = `http://127.0.0.1:${server.address().port}/jwks`;
      issuer.close = () => new Promise((r) => server.close(r));
      resolve(issuer);
    });
  });
}

let idp;
let srv;
before(async () => {
  idp = await startIssuer();
  srv = await startSecuredServer({
    args: ['--oidc-issuer', ISSUER, '--oidc-audience', AUDIENCE, '--oidc-jwks-url', idp.url, '--oidc-principal-claim', 'email', '--oidc-refresh-gap-s', '2'],
  });
  // Grants reach an external principal through the roles of Cairn's principal of that name.
  await manage(srv.url, srv.rootToken, 'POST', '/principals', { name: 'ana@example.com' }, 201);
  await manage(srv.url, srv.rootToken, 'POST', '/roles', { name: 'listers' }, 201);
  await manage(srv.url, srv.rootToken, 'PUT', '/principals/ana@example.com/roles/listers', undefined, 204);
  await manage(srv.url, srv.rootToken, 'POST', '/roles/listers/grants', grant('NAMESPACE_LIST', 'catalog', { catalog: 'default' }), 204);
});
after(async () => {
  await srv?.cleanup();
  await idp?.close();
});

const idpClaims = (email, overrides = {}) => claimsFor('user-123', { iss: ISSUER, aud: AUDIENCE, email, ...overrides });
const listAs = (token) => call(srv.url, 'GET', '/iceberg/v1/default/namespaces', { headers: bearer(token) });

test('a token of the issuer names its principal by the configured claim', withServerLog(() => srv, async () => {
  const ok = await listAs(mintToken(idp.keys[0], idpClaims('ana@example.com')));
  assert.equal(ok.status, 200, ok.text);
  assert.ok(idp.requests.every((r) => r === 'GET /jwks'), `the issuer was asked: ${idp.requests}`);
  // Known to the issuer, unknown to Cairn: authenticated, with no grants.
  const stranger = await listAs(mintToken(idp.keys[0], idpClaims('bob@example.com')));
  assert.equal(stranger.status, 403, stranger.text);
}));

test('wrong audience, wrong issuer, expired, another key or no claim: 401', withServerLog(() => srv, async () => {
  const now = Math.floor(Date.now() / 1000);
  const cases = {
    audience: mintToken(idp.keys[0], idpClaims('ana@example.com', { aud: 'other-api' })),
    issuer: mintToken(idp.keys[0], idpClaims('ana@example.com', { iss: 'https://evil.example' })),
    expired: mintToken(idp.keys[0], idpClaims('ana@example.com', { iat: now - 7200, nbf: now - 7200, exp: now - 3600 })),
    'forged signature': mintToken(newSigningKey(), idpClaims('ana@example.com'), { kid: idp.keys[0].kid }),
    'no email claim': mintToken(idp.keys[0], idpClaims(undefined)),
  };
  for (const [what, token] of Object.entries(cases)) {
    const res = await listAs(token);
    assert.equal(res.status, 401, `${what}: ${res.text}`);
    assert.ok(!res.text.includes(token));
  }
}));

test('a rotated key is fetched once, when a token first names it', withServerLog(() => srv, async () => {
  const before = idp.fetches;
  const next = newSigningKey();
  idp.keys = [next];
  // Until the gap since the start-up fetch (2 s here) has passed, the unknown kid is
  // refused without a fetch; then one fetch brings the new key.
  const token = mintToken(next, idpClaims('ana@example.com'));
  let res = await listAs(token);
  for (let i = 0; res.status !== 200 && i < 20; i++) {
    await new Promise((r) => setTimeout(r, 500));
    res = await listAs(token);
  }
  assert.equal(res.status, 200, res.text);
  assert.equal(idp.fetches, before + 1, 'one fetch for the new key');
  // Made-up kids do not make Cairn hammer the issuer.
  for (let i = 0; i < 20; i++) {
    const junk = mintToken(newSigningKey(), idpClaims('ana@example.com'));
    assert.equal((await listAs(junk)).status, 401);
  }
  assert.ok(idp.fetches <= before + 2, `fetches: ${idp.fetches - before}`);
}));
