// HTTP/1.1 behaviour below the Iceberg API: keep-alive and pipelining (HEAD framing), chunked
// bodies, Expect: 100-continue, malformed requests, request ids on every response, and
// stalled clients not blocking others.

import assert from 'node:assert/strict';
import http from 'node:http';
import net from 'node:net';
import { test, before, after } from 'node:test';
import { startServer, withServerLog } from './lib/server.mjs';
import { call, describeResponse } from './lib/http.mjs';
import { assertIcebergError } from './lib/spec.mjs';
import { catalog } from './lib/catalog.mjs';
import { waitFor } from './lib/wait.mjs';

let server;
let base;
before(async () => {
  server = await startServer();
  base = server.url;
  await catalog(base).mustCreate(['proto'], { k: 'v' });
});
after(async () => {
  await server?.cleanup();
});
const it = (name, fn) => test(name, withServerLog(() => server, fn));

async function healthy() {
  const res = await call(base, 'GET', '/health');
  assert.equal(res.status, 200, `server unhealthy: ${describeResponse(res)}`);
}

/** Writes raw bytes on a fresh TCP connection; resolves with everything read until close/timeout. */
function rawExchange(data, { waitMs = 2000 } = {}) {
  return new Promise((resolve) => {
    const s = net.connect(server.port, '127.0.0.1');
    const chunks = [];
    let done = false;
    const finish = (why) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      s.destroy();
      resolve({ text: Buffer.concat(chunks).toString('utf8'), why });
    };
    const timer = setTimeout(() => finish('timeout'), waitMs);
    s.on('data', (d) => chunks.push(d));
    s.on('error', () => finish('error'));
    s.on('close', () => finish('close'));
    s.write(data);
  });
}

/** Parses consecutive HTTP/1.x responses out of a raw byte string (Content-Length framing). */
function parseResponses(text, methods) {
  const out = [];
  let rest = text;
  for (const method of methods) {
    const headEnd = rest.indexOf('\r\n\r\n');
    if (headEnd < 0) break;
    const lines = rest.slice(0, headEnd).split('\r\n');
    const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(lines[0])?.[1]);
    const headers = {};
    for (const l of lines.slice(1)) {
      const i = l.indexOf(':');
      headers[l.slice(0, i).trim().toLowerCase()] = l.slice(i + 1).trim();
    }
    const len = method === 'HEAD' || status === 204 || status === 304 ? 0 : Number(headers['content-length'] ?? 0);
    const body = rest.slice(headEnd + 4, headEnd + 4 + len);
    out.push({ status, headers, body });
    rest = rest.slice(headEnd + 4 + len);
  }
  return { responses: out, rest };
}

it('keep-alive: one connection serves HEAD 204/404, GET, errors, POST in sequence', async () => {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const req = (method, path, body) =>
    new Promise((resolve, reject) => {
      const headers = body !== undefined ? { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) } : {};
      const r = http.request({ host: '127.0.0.1', port: server.port, method, path, agent, headers }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d) => (text += d));
        res.on('end', () => resolve({ status: res.statusCode, text, reused: r.reusedSocket }));
      });
      r.on('error', reject);
      r.end(body);
    });
  const NS = '/iceberg/v1/default/namespaces';
  try {
    const seq = [
      ['HEAD', `${NS}/proto`, undefined, 204],
      ['GET', `${NS}/proto`, undefined, 200],
      ['HEAD', `${NS}/nope`, undefined, 404],
      ['GET', `${NS}/nope`, undefined, 404],
      ['POST', NS, '{"namespace": [', 400],
      ['POST', `${NS}/proto/properties`, '{"updates":{"k2":"v2"}}', 200],
      ['PUT', NS, '{}', 405],
      ['GET', '/no/such/route', undefined, 404],
      ['GET', `${NS}/proto`, undefined, 200],
    ];
    const results = [];
    for (const [method, path, body, want] of seq) {
      const r = await req(method, path, body);
      results.push(r);
      assert.equal(r.status, want, `${method} ${path}: HTTP ${r.status} ${r.text}`);
      if (method === 'HEAD') assert.equal(r.text, '');
    }
    assert.deepEqual(JSON.parse(results.at(-1).text), { namespace: ['proto'], properties: { k: 'v', k2: 'v2' } });
    const reused = results.filter((r) => r.reused).length;
    assert.ok(reused >= seq.length - 2, `connection was not kept alive (${reused}/${seq.length} reused)`);
  } finally {
    agent.destroy();
  }
});

it('pipelined requests on one connection are answered in order (HEAD has no body)', async () => {
  const NS = '/iceberg/v1/default/namespaces';
  const reqs = [
    ['HEAD', `${NS}/proto`],
    ['GET', `${NS}/proto`],
    ['HEAD', `${NS}/missing`],
    ['GET', `${NS}/missing`],
    ['GET', '/health'],
  ];
  const data = reqs
    .map(([m, p], i) => `${m} ${p} HTTP/1.1\r\nHost: x\r\n${i === reqs.length - 1 ? 'Connection: close\r\n' : ''}\r\n`)
    .join('');
  const { text } = await rawExchange(data);
  const { responses, rest } = parseResponses(
    text,
    reqs.map(([m]) => m),
  );
  assert.deepEqual(
    responses.map((r) => r.status),
    [204, 200, 404, 404, 200],
    `raw responses:\n${text}`,
  );
  assert.equal(JSON.parse(responses[1].body).namespace[0], 'proto');
  assert.equal(JSON.parse(responses[3].body).error.code, 404);
  assert.equal(rest, '', `unexpected trailing bytes (a HEAD body?):\n${text}`);
});

it('HTTP/1.0 request is answered', async () => {
  const { text } = await rawExchange('GET /health HTTP/1.0\r\n\r\n');
  assert.match(text, /^HTTP\/1\.[01] 200 /, text);
});

it('chunked request body is accepted', async () => {
  const body = JSON.stringify({ namespace: ['chunked'], properties: { a: 'b' } });
  const half = Math.floor(body.length / 2);
  const chunk = (s) => `${Buffer.byteLength(s).toString(16)}\r\n${s}\r\n`;
  const data =
    'POST /iceberg/v1/default/namespaces HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n' +
    'Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n' +
    chunk(body.slice(0, half)) +
    chunk(body.slice(half)) +
    '0\r\n\r\n';
  const { text } = await rawExchange(data);
  const { responses } = parseResponses(text, ['POST']);
  assert.equal(responses[0]?.status, 200, text);
  assert.deepEqual(JSON.parse(responses[0].body), { namespace: ['chunked'], properties: { a: 'b' } });
});

it('a 40 MiB chunked body (no Content-Length) -> 413', async () => {
  const res = await new Promise((resolve, reject) => {
    const r = http.request(
      { host: '127.0.0.1', port: server.port, method: 'POST', path: '/iceberg/v1/default/namespaces', agent: false, headers: { 'Content-Type': 'application/json' } },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d) => (text += d));
        res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, text, json: JSON.parse(text || 'null') }));
      },
    );
    let got = false;
    r.on('response', () => (got = true));
    r.on('error', (e) => {
      if (!got) reject(e);
    });
    const chunk = Buffer.alloc(1 << 20, 'a');
    let sent = 0;
    const pump = () => {
      while (sent < 40 && !got && !r.destroyed) {
        sent++;
        if (!r.write(chunk)) return r.once('drain', pump);
      }
      r.end();
    };
    r.write('{"namespace":["bigchunk"],"properties":{"x":"');
    pump();
  });
  assertIcebergError(res, 413, 'RequestTooLargeException');
  await healthy();
  assert.equal((await call(base, 'HEAD', '/iceberg/v1/default/namespaces/bigchunk')).status, 404);
});

it('Expect: 100-continue works', async () => {
  const body = JSON.stringify({ namespace: ['expect100'] });
  const data =
    'POST /iceberg/v1/default/namespaces HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n' +
    `Content-Length: ${body.length}\r\nExpect: 100-continue\r\nConnection: close\r\n\r\n`;
  const s = net.connect(server.port, '127.0.0.1');
  const text = await new Promise((resolve) => {
    let out = '';
    let sentBody = false;
    const timer = setTimeout(() => s.destroy(), 3000);
    s.on('data', (d) => {
      out += d;
      if (!sentBody && /^HTTP\/1\.1 100/.test(out)) {
        sentBody = true;
        s.write(body);
      }
    });
    s.on('close', () => {
      clearTimeout(timer);
      resolve(out);
    });
    s.on('error', () => {});
    s.write(data);
    // A server that ignores Expect gets the body after a short wait (like curl does).
    setTimeout(() => {
      if (!sentBody) {
        sentBody = true;
        s.write(body);
      }
    }, 1000);
  });
  assert.match(text, /HTTP\/1\.1 200 /, text);
  assert.match(text, /"expect100"/, text);
});

for (const [name, raw, statuses] of [
  ['garbage request line', 'GARBAGE\r\n\r\n', [400]],
  ['bad Content-Length', 'POST /iceberg/v1/default/namespaces HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n{}', [400]],
  ['header section too large', `GET /health HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(200_000)}\r\n\r\n`, [400, 431]],
  ['request target too long', `GET /iceberg/v1/default/namespaces/${'a'.repeat(200_000)} HTTP/1.1\r\nHost: x\r\n\r\n`, [400, 414, 431]],
]) {
  it(`malformed HTTP (${name}) -> ${statuses.join('/')} with a JSON Iceberg error (code = status), server survives`, async () => {
    const { text } = await rawExchange(raw);
    const { responses } = parseResponses(text, ['GET']);
    const r = responses[0];
    assert.ok(r, `no HTTP response: ${JSON.stringify(text)}`);
    assert.ok(statuses.includes(r.status), `expected HTTP ${statuses.join(' or ')}:\n${text}`);
    assert.match(r.headers['content-type'] || '', /json/, text);
    const err = JSON.parse(r.body).error;
    assert.equal(typeof err?.message, 'string', text);
    assert.equal(err.code, r.status, `error.code must equal the HTTP status:\n${text}`);
    await healthy();
  });
}

it('X-Request-Id is present on every kind of response', async () => {
  const NS = '/iceberg/v1/default/namespaces';
  const cases = [
    ['GET', '/health', {}],
    ['GET', '/metrics', {}],
    ['GET', '/iceberg/v1/config', {}],
    ['HEAD', `${NS}/proto`, {}],
    ['HEAD', `${NS}/missing`, {}],
    ['GET', '/nope', {}],
    ['PUT', NS, { body: {} }],
    ['POST', NS, { rawBody: '{' }],
    ['GET', `${NS}/a%2Fb`, {}],
  ];
  for (const [method, path, opts] of cases) {
    const id = `rid-${method}-${path.length}`;
    let res = await call(base, method, path, { ...opts, headers: { 'X-Request-Id': id } });
    assert.equal(res.headers['x-request-id'], id, `${method} ${path} (HTTP ${res.status}) must echo X-Request-Id`);
    res = await call(base, method, path, opts);
    assert.ok(String(res.headers['x-request-id'] || '').length > 0, `${method} ${path} (HTTP ${res.status}) must carry a generated X-Request-Id`);
  }
});

it('X-Request-Id is also set on a 413 response', async () => {
  const size = 33 * 1024 * 1024;
  const res = await call(base, 'POST', '/iceberg/v1/default/namespaces', {
    rawBody: Buffer.alloc(size, 'a'),
    headers: { 'X-Request-Id': 'rid-413' },
  });
  assert.equal(res.status, 413, describeResponse(res));
  assert.equal(res.headers['x-request-id'], 'rid-413', `413 must echo X-Request-Id: ${describeResponse(res)}`);
});

it('stalled and idle clients do not block other requests', async () => {
  const socks = [];
  let halfRequestsSent = 0;
  try {
    for (let i = 0; i < 32; i++) {
      const s = net.connect(server.port, '127.0.0.1');
      s.on('error', () => {});
      // Half a request: headers promise a body that never comes.
      s.write('POST /iceberg/v1/default/namespaces HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{', (err) => {
        if (!err) halfRequestsSent += 1;
      });
      socks.push(s);
    }
    for (let i = 0; i < 32; i++) {
      const s = net.connect(server.port, '127.0.0.1'); // connected, never sends anything
      s.on('error', () => {});
      socks.push(s);
    }
    await waitFor(() => halfRequestsSent === 32 && socks.every((s) => !s.connecting && !s.destroyed), {
      timeoutMs: 5000,
      what: () => `64 open connections with 32 half requests sent (${halfRequestsSent} sent)`,
    });
    const t0 = Date.now();
    const res = await call(base, 'GET', '/iceberg/v1/default/namespaces/proto', { timeoutMs: 5000 });
    assert.equal(res.status, 200, describeResponse(res));
    assert.ok(Date.now() - t0 < 2000, `request took ${Date.now() - t0} ms with stalled clients`);
  } finally {
    for (const s of socks) s.destroy();
  }
  await healthy();
});

test('an oversized body on a Lance route is answered in the Lance error shape', async () => {
  const srv = await startServer({ args: ['--max-body-bytes', '1024'] });
  try {
    const res = await call(srv.url, 'POST', '/lance/v1/namespace/x/create', { rawBody: 'a'.repeat(4096) });
    assert.equal(res.status, 413, describeResponse(res));
    assert.equal(res.json.status, 413);
    assert.equal(typeof res.json.code, 'number');
    assert.match(res.json.detail, /exceeds the limit of 1024 bytes/);
    assert.ok(!('error' in res.json && typeof res.json.error === 'object'), 'Iceberg shape on a Lance route');
  } finally {
    await srv.cleanup();
  }
});
