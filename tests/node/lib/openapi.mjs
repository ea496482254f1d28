// Shared by the OpenAPI validators (spec.mjs for Iceberg, lance_spec.mjs for Lance): OpenAPI
// 3.1 documents are JSON Schema 2020-12 apart from `nullable`, which is rewritten first.

import { readFileSync } from 'node:fs';
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import YAML from 'yaml';

/** Deep copy with OpenAPI `nullable: true` rewritten into JSON Schema null-allowing forms. */
export function rewriteNullable(node) {
  if (Array.isArray(node)) return node.map(rewriteNullable);
  if (node === null || typeof node !== 'object') return node;
  const out = {};
  for (const [k, v] of Object.entries(node)) out[k] = rewriteNullable(v);
  if (!('nullable' in out)) return out;
  const nullable = out.nullable === true;
  delete out.nullable;
  if (!nullable) return out;
  if (typeof out.type === 'string') {
    out.type = [out.type, 'null'];
  } else if (Array.isArray(out.type)) {
    if (!out.type.includes('null')) out.type = [...out.type, 'null'];
  } else {
    // No `type` ($ref, allOf, oneOf, ...): allow null alongside the original schema.
    const { description, default: dflt, example, ...rest } = out;
    const wrapped = { anyOf: [rest, { type: 'null' }] };
    if (description !== undefined) wrapped.description = description;
    return wrapped;
  }
  if (Array.isArray(out.enum) && !out.enum.includes(null)) out.enum = [...out.enum, null];
  return out;
}

/** Rewrites local refs (`#/...`) to absolute refs into the document registered as `id`. */
export function absolutizeRefs(node, id) {
  if (Array.isArray(node)) return node.map((n) => absolutizeRefs(n, id));
  if (node === null || typeof node !== 'object') return node;
  const out = {};
  for (const [k, v] of Object.entries(node)) {
    out[k] = k === '$ref' && typeof v === 'string' && v.startsWith('#') ? `${id}${v}` : absolutizeRefs(v, id);
  }
  return out;
}

/**
 * Parses the OpenAPI YAML `file` and registers it with a new Ajv under `id`: `{doc, ajv}`.
 * `patch(doc)` may first correct a defect of the document (each caller says which and why).
 */
export function loadOpenApi(file, id, patch = () => {}) {
  const doc = rewriteNullable(YAML.parse(readFileSync(file, 'utf8')));
  patch(doc);
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
  addFormats(ajv);
  // Registered whole: `#/components/schemas/X` refs inside it resolve against it.
  ajv.addSchema({ ...doc, $id: id }, id);
  return { doc, ajv };
}
