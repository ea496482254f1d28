import * as jose from 'jose';
const { publicKey, privateKey } = await jose.generateKeyPair('ES256', { extractable: true });
const jwk = await jose.exportJWK(publicKey);
jwk.kid = 'jose-test-es256';
jwk.alg = 'ES256';
jwk.use = 'sig';
const token = await new jose.SignJWT({ scope: 'catalog', email: 'alice@example.com' })
  .setProtectedHeader({ alg: 'ES256', kid: jwk.kid, typ: 'JWT' })
  .setIssuer('https://issuer.example.com')
  .setAudience(['cairn', 'other'])
  .setSubject('alice')
  .setJti('jti-1')
  .setIssuedAt(1767225600)        // 2026-01-01T00:00:00Z
  .setNotBefore(1767225600)
  .setExpirationTime(4102444800)  // 2100-01-01T00:00:00Z
  .sign(privateKey);
const r = await jose.generateKeyPair('RS256', { extractable: true, modulusLength: 2048 });
const rjwk = await jose.exportJWK(r.publicKey);
rjwk.kid = 'jose-test-rs256';
rjwk.alg = 'RS256';
const rtoken = await new jose.SignJWT({})
  .setProtectedHeader({ alg: 'RS256', kid: rjwk.kid })
  .setIssuer('https://issuer.example.com')
  .setAudience('cairn')
  .setSubject('bob')
  .setIssuedAt(1767225600)
  .setExpirationTime(4102444800)
  .sign(r.privateKey);
console.log(JSON.stringify({ es256_token: token, rs256_token: rtoken, jwks: { keys: [jwk, rjwk] } }, null, 2));
