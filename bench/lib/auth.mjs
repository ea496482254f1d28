// Tokens for W8's server with authentication on. The root principal's credentials come
// from CAIRN_ROOT_CREDENTIALS (client_id:client_secret, as the server read them at its first
// start); the token printed on stdout is for bench/run to put in an environment variable
// (cairn-bench --token-env). No token or secret is ever written anywhere else, nor in an
// error message.
//
//   node auth.mjs root-token URL              a token of the root principal (SERVICE_ADMIN)
//   node auth.mjs reader-token URL NAMESPACE  creates the principal bench-reader whose only
//                                             grant is TABLE_READ on NAMESPACE of the catalog
//                                             `default`, checks that it is not an admin, and
//                                             prints a token of it
const [command, base, namespace] = process.argv.slice(2);

function die(message) {
  process.stderr.write(`auth.mjs: ${message}\n`);
  process.exit(1);
}

// The first bytes of an error response, for a message: the management API's and the token
// endpoint's error bodies hold no credential.
async function describe(res) {
  return `${res.status} ${(await res.text()).slice(0, 300)}`;
}

async function token(clientId, clientSecret) {
  const res = await fetch(`${base}/v1/oauth/tokens`, {
    method: 'POST',
    body: new URLSearchParams({ grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret, scope: 'catalog' }),
  });
  if (res.status !== 200) die(`token request for ${clientId}: ${await describe(res)}`);
  return (await res.json()).access_token;
}

function rootCredentials() {
  const value = process.env.CAIRN_ROOT_CREDENTIALS ?? '';
  const colon = value.indexOf(':');
  if (colon <= 0) die('CAIRN_ROOT_CREDENTIALS must be client_id:client_secret');
  return [value.slice(0, colon), value.slice(colon + 1)];
}

// One management call as `bearer`; dies unless the status is `expect`.
async function manage(bearer, method, path, body, expect) {
  const res = await fetch(`${base}/management/v1${path}`, {
    method,
    headers: { Authorization: `Bearer ${bearer}`, ...(body ? { 'Content-Type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  if (res.status !== expect) die(`${method} /management/v1${path}: expected ${expect}, got ${await describe(res)}`);
  return res.status === 204 ? undefined : res.json();
}

async function readerToken() {
  if (!namespace) die('reader-token needs URL and NAMESPACE');
  const root = await token(...rootCredentials());
  const name = 'bench-reader';
  const created = await manage(root, 'POST', '/principals', { name }, 201);
  await manage(root, 'POST', '/roles', { name }, 201);
  await manage(root, 'PUT', `/principals/${name}/roles/${name}`, undefined, 204);
  await manage(root, 'POST', `/roles/${name}/grants`,
    { privilege: 'TABLE_READ', securable: { kind: 'namespace', catalog: 'default', namespace: [namespace] } }, 204);
  const reader = await token(created['client-id'], created['client-secret']);
  // Not an admin: the management API refuses it, so its loads go through the grant check.
  await manage(reader, 'GET', '/principals', undefined, 403);
  return reader;
}

if (!base) die('usage: auth.mjs root-token URL | reader-token URL NAMESPACE');
switch (command) {
  case 'root-token':
    process.stdout.write(`${await token(...rootCredentials())}\n`);
    break;
  case 'reader-token':
    process.stdout.write(`${await readerToken()}\n`);
    break;
  default:
    die(`unknown command '${command}'`);
}
