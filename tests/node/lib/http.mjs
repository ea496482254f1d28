// Tiny HTTP client for tests. Uses node:http directly (not fetch) so that request paths are
// sent byte-for-byte (no dot-segment normalisation, `%2F`, `+` etc. untouched), Content-Length
// is always explicit, and a server that answers early (413) and stops reading is handled.

import http from 'node:http';

const EARLY_RESPONSE_THRESHOLD = 1 << 20;
const EARLY_RESPONSE_WAIT_MS = 500;

/**
 * @param {string} base     e.g. http://127.0.0.1:1234
 * @param {string} method   GET, POST, HEAD, ...
 * @param {string} path     raw request target, e.g. /iceberg/v1/default/namespaces?pageSize=2
 * @param {object} [opts]
 * @param {any}    [opts.body]     serialised with JSON.stringify (Content-Type: application/json)
 * @param {string|Buffer} [opts.rawBody]  sent as-is (Content-Type: application/json unless given)
 * @param {object} [opts.headers]
 * @param {number} [opts.timeoutMs]
 * @returns {Promise<{status:number, headers:object, text:string, json:any, jsonError?:string}>}
 *   headers: lower-cased names; json: parsed when the content-type is JSON and the body non-empty.
 */
export function call(base, method, path, { body, rawBody, headers = {}, timeoutMs = 30_000 } = {}) {
  const u = new URL(base);
  let payload;
  const hdrs = { ...headers };
  if (rawBody !== undefined) {
    payload = Buffer.isBuffer(rawBody) ? rawBody : Buffer.from(String(rawBody), 'utf8');
  } else if (body !== undefined) {
    payload = Buffer.from(JSON.stringify(body), 'utf8');
  }
  const hasHeader = (name) => Object.keys(hdrs).some((k) => k.toLowerCase() === name);
  if (payload !== undefined) {
    if (!hasHeader('content-type')) hdrs['Content-Type'] = 'application/json';
    if (!hasHeader('content-length')) hdrs['Content-Length'] = String(payload.length);
  }

  return new Promise((resolve, reject) => {
    let settled = false;
    let gotResponse = false;
    const req = http.request({
      host: u.hostname,
      port: u.port,
      method,
      path,
      headers: hdrs,
      agent: false, // one connection per call: no stale keep-alive sockets across restarts
    });
    const timer = setTimeout(() => {
      req.destroy(new Error(`timeout after ${timeoutMs} ms: ${method} ${path}`));
    }, timeoutMs);
    const fail = (err) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      err.message = `${method} ${path}: ${err.message}`;
      reject(err);
    };
    req.on('error', (err) => {
      // After the response has started, write errors (EPIPE/ECONNRESET because the server
      // stopped reading a too-large body) are expected; the response handler finishes.
      if (gotResponse) return;
      if (payload !== undefined && ['EPIPE', 'ECONNRESET'].includes(err.code)) {
        err.message += ` (connection closed by the server while the ${payload.length}-byte body was being sent, before any HTTP response was read)`;
      }
      fail(err);
    });
    req.on('response', (res) => {
      gotResponse = true;
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('error', fail);
      res.on('end', () => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        const text = Buffer.concat(chunks).toString('utf8');
        const ctype = String(res.headers['content-type'] || '');
        let json;
        let jsonError;
        if (/\bjson\b/i.test(ctype) && text.length > 0) {
          try {
            json = JSON.parse(text);
          } catch (e) {
            jsonError = e.message;
          }
        }
        resolve({ status: res.statusCode, headers: res.headers, text, json, jsonError });
      });
    });
    if (payload !== undefined) {
      // Write in chunks so that an early response can still be read.
      const CHUNK = 1 << 20;
      let off = 0;
      const pump = () => {
        while (off < payload.length) {
          if (req.destroyed || gotResponse) return req.end();
          const ok = req.write(payload.subarray(off, off + CHUNK));
          off += CHUNK;
          if (!ok) return req.once('drain', pump);
        }
        req.end();
      };
      if (payload.length >= EARLY_RESPONSE_THRESHOLD) {
        // Large body: send the headers first and give the server a moment to reject on
        // Content-Length alone (413) before streaming the body.
        req.flushHeaders();
        const t = setTimeout(pump, EARLY_RESPONSE_WAIT_MS);
        req.once('response', () => clearTimeout(t));
        req.once('error', () => clearTimeout(t));
      } else {
        pump();
      }
    } else {
      req.end();
    }
  });
}

/** Encodes a namespace (array of levels) as one path segment: levels %-encoded, joined with %1F. */
export function nsPath(levels) {
  return levels.map((l) => encodeURIComponent(l)).join('%1F');
}

/** Encodes a namespace as the `parent` query value (levels joined with 0x1F, URL-encoded). */
export function nsQuery(levels) {
  return encodeURIComponent(levels.join('\x1f'));
}

/** Short description of a response for assertion messages. */
export function describeResponse(res) {
  const body = res.text.length > 2000 ? `${res.text.slice(0, 2000)}...` : res.text;
  return `HTTP ${res.status} headers=${JSON.stringify(res.headers)} body=${body}`;
}
