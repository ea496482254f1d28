// Snapshots of a real Iceberg table written the way an engine writes them: data files,
// manifests and a manifest list (avsc, Java's schemas: lib/iceberg_avro.mjs) on the local
// file system, then the commit that adds the snapshot. For the tests of what Cairn does
// with manifests (purge, planning, maintenance).
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';

import { avroFile, manifestListSchema, manifestSchema } from './iceberg_avro.mjs';

const pathOf = (location) => (location.startsWith('file:') ? fileURLToPath(location) : location);

/** Writes `bytes` at the `file:` location (or plain path) `location`, creating parents. */
export function writeAt(location, bytes) {
  const file = pathOf(location);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, bytes);
}

/**
 * Writes one manifest of `entries` ({path, records, status?, content?, partition?, ...data_file
 * fields}) at `location` (format `formatVersion`, default 2; unpartitioned unless
 * `partitionFields`); returns its
 * manifest-list entry.
 */
export async function writeManifest(location, entries, {
  snapshotId, sequenceNumber, specId = 0, partitionFields = [], content = 0, formatVersion = 2,
}) {
  const records = entries.map((e) => ({
    status: e.status ?? 1,
    snapshot_id: e.status === undefined || e.status === 1 ? null : BigInt(e.snapshotId ?? snapshotId),
    sequence_number: e.status === undefined || e.status === 1 ? null : BigInt(e.sequenceNumber ?? 1),
    file_sequence_number: e.status === undefined || e.status === 1 ? null : BigInt(e.sequenceNumber ?? 1),
    data_file: {
      content: e.content ?? 0, file_path: e.path, file_format: e.format ?? 'PARQUET',
      partition: e.partition ?? {}, record_count: BigInt(e.records ?? 1),
      file_size_in_bytes: BigInt(e.size ?? 1), ...e.extra,
    },
  }));
  const bytes = await avroFile(manifestSchema(formatVersion, partitionFields), records, {
    metadata: { 'format-version': formatVersion, content: content === 0 ? 'data' : 'deletes',
                'partition-spec-id': specId, 'partition-spec': '[]', schema: '{}' },
  });
  writeAt(location, bytes);
  const count = (status) => entries.filter((e) => (e.status ?? 1) === status).length;
  return {
    manifest_path: location, manifest_length: BigInt(bytes.length), partition_spec_id: specId,
    content, sequence_number: BigInt(sequenceNumber), min_sequence_number: BigInt(sequenceNumber),
    added_snapshot_id: BigInt(snapshotId), added_files_count: count(1),
    existing_files_count: count(0), deleted_files_count: count(2),
    added_rows_count: 0n, existing_rows_count: 0n, deleted_rows_count: 0n,
  };
}

/** Writes a v2 manifest list of `manifests` (manifest-list entries) at `location`. */
export async function writeManifestList(location, manifests, { snapshotId, parentId, sequenceNumber }) {
  writeAt(location, await avroFile(manifestListSchema(2), manifests, {
    metadata: { 'snapshot-id': snapshotId, 'parent-snapshot-id': parentId ?? 'null',
                'sequence-number': sequenceNumber, 'format-version': 2 },
  }));
}

/**
 * Writes a snapshot of `metadata` (a LoadTableResult's metadata) whose manifest list holds
 * the manifests of `previous` (manifest-list entries of earlier snapshots, carried over as
 * engines do) and one new manifest listing `files` ({path, records, partition?, extra?,
 * content?}); with `content: 1` the new manifest is a delete manifest. Data files are written
 * too (`bytes`, default a few placeholder bytes, or each file's own `bytes`) unless
 * `writeData` is false. Returns the commit body, the new manifest-list entry (`entry`) and
 * every entry of the list (`manifests`, to pass as the next `previous`).
 */
export async function appendSnapshot(metadata, files, {
  snapshotId, writeData = true, bytes, previous = [], partitionFields = [], specId = 0,
  content = 0, operation = 'append', formatVersion = 2, timestampMs = Date.now(),
} = {}) {
  const main = metadata.refs?.main?.['snapshot-id'] ?? null;
  const sequenceNumber = (metadata['last-sequence-number'] ?? 0) + 1;
  const id = snapshotId ?? Math.floor(Math.random() * 2 ** 52);
  const metaDir = `${metadata.location}/metadata`;
  if (writeData) for (const f of files) writeAt(f.path, f.bytes ?? bytes ?? Buffer.from('PAR1data'));
  const entry = await writeManifest(`${metaDir}/${randomUUID()}-m0.avro`, files,
                                    { snapshotId: id, sequenceNumber, partitionFields, specId, content,
                                      formatVersion });
  const manifests = [...previous, entry];
  const list = `${metaDir}/snap-${id}-1-${randomUUID()}.avro`;
  await writeManifestList(list, manifests, { snapshotId: id, parentId: main, sequenceNumber });
  const snapshot = {
    'snapshot-id': id, 'sequence-number': sequenceNumber, 'timestamp-ms': timestampMs,
    'manifest-list': list, summary: { operation }, 'schema-id': metadata['current-schema-id'] ?? 0,
  };
  if (main !== null) snapshot['parent-snapshot-id'] = main;
  return {
    id, manifest: entry.manifest_path, list, entry, manifests,
    commit: {
      requirements: [{ type: 'assert-ref-snapshot-id', ref: 'main', 'snapshot-id': main }],
      updates: [
        { action: 'add-snapshot', snapshot },
        { action: 'set-snapshot-ref', 'ref-name': 'main', type: 'branch', 'snapshot-id': id },
      ],
    },
  };
}

/**
 * A writer that appends `count` snapshots to table ns.`table` of `cat` (see files.mjs's
 * startCatalog), one data file each, retrying a lost race (409) on the new current
 * metadata as an engine does, at most 20 times per snapshot. `onCommitted(snap, file)` runs
 * after each success. Resolves with the files committed, in order.
 */
export async function appendWithRetries(cat, table, count, onCommitted = () => {}) {
  const written = [];
  let previous = [];
  for (let i = 0; i < count; i++) {
    for (let attempt = 0; ; attempt++) {
      const loaded = await cat.ice.loadTable(['ns'], table);
      assert.equal(loaded.status, 200, `load ${table}: ${loaded.status}`);
      const { metadata } = loaded.json;
      const file = `${metadata.location}/data/w${i}-${attempt}.parquet`;
      const snap = await appendSnapshot(metadata, [{ path: file, records: 1 }], { previous });
      const res = await cat.ice.commitTable(['ns'], table, snap.commit);
      if (res.status === 200) {
        onCommitted(snap, file);
        written.push(file);
        previous = snap.manifests;
        break;
      }
      assert.equal(res.status, 409, `commit to ${table}: ${res.status} ${JSON.stringify(res.json)}`);
      assert.ok(attempt < 20, 'the writer kept losing');
    }
  }
  return written;
}
