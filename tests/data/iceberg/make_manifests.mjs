// Writes the Avro fixtures of tests/unit/iceberg_manifest_test.cc with avsc, in the
// schemas Java writes (tests/node/lib/iceberg_avro.mjs). Deterministic: run from the
// repository root with `node tests/data/iceberg/make_manifests.mjs` after
// `npm ci` in tests/node; the test compares with the values written here.
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import {
  avroFile, manifestListSchema, manifestSchema, single, statsMap,
} from '../../node/lib/iceberg_avro.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const write = (name, bytes) => writeFileSync(join(here, name), bytes);

const snapshotId = 7351832516871240305n;  // past 2^53
const parent = 4040404040404040404n;

// v2 manifest list: a data manifest and a delete manifest.
write('v2_manifest_list.avro', await avroFile(manifestListSchema(2), [
  {
    manifest_path: 's3://bucket/t/metadata/m-data.avro', manifest_length: 7012n,
    partition_spec_id: 1, content: 0, sequence_number: 5n, min_sequence_number: 3n,
    added_snapshot_id: snapshotId, added_files_count: 2, existing_files_count: 1,
    deleted_files_count: 0, added_rows_count: 300n, existing_rows_count: 100n,
    deleted_rows_count: 0n,
    partitions: [{ contains_null: false, contains_nan: null,
                   lower_bound: single.int(19000), upper_bound: single.int(19010) }],
  },
  {
    manifest_path: 's3://bucket/t/metadata/m-deletes.avro', manifest_length: 1200n,
    partition_spec_id: 1, content: 1, sequence_number: 5n, min_sequence_number: 5n,
    added_snapshot_id: snapshotId, added_files_count: 1, existing_files_count: 0,
    deleted_files_count: 0, added_rows_count: 4n, existing_rows_count: 0n,
    deleted_rows_count: 0n, partitions: [{ contains_null: true }],
  },
], { metadata: { 'snapshot-id': snapshotId, 'parent-snapshot-id': parent,
                 'sequence-number': 5, 'format-version': 2 } }));

// v1 manifest list: counts optional, one left null.
write('v1_manifest_list.avro', await avroFile(manifestListSchema(1), [
  { manifest_path: '/tables/t/metadata/m1.avro', manifest_length: 900n, partition_spec_id: 0,
    added_snapshot_id: 11n, added_files_count: 1, existing_files_count: null },
], { codec: 'null', metadata: { 'snapshot-id': 11, 'parent-snapshot-id': 'null',
                                'format-version': 1 } }));

// v2 data manifest partitioned by day(ts) (1000, date) and bucket(16, id) (1001, int).
const partitionFields = [
  { id: 1000, name: 'ts_day', type: { type: 'int', logicalType: 'date' } },
  { id: 1001, name: 'id_bucket', type: 'int' },
];
write('v2_data_manifest.avro', await avroFile(manifestSchema(2, partitionFields), [
  { status: 1, snapshot_id: null, sequence_number: null, file_sequence_number: null,
    data_file: {
      content: 0, file_path: 's3://bucket/t/data/a.parquet', file_format: 'PARQUET',
      partition: { ts_day: 19000, id_bucket: 3 }, record_count: 200n,
      file_size_in_bytes: 4096n,
      column_sizes: statsMap({ 1: 1000n, 2: 2000n }),
      value_counts: statsMap({ 1: 200n, 2: 200n }),
      null_value_counts: statsMap({ 1: 0n, 2: 5n }),
      nan_value_counts: statsMap({}),
      lower_bounds: statsMap({ 1: single.long(1), 2: single.string('apple') }),
      upper_bounds: statsMap({ 1: single.long(200), 2: single.string('pear') }),
      split_offsets: [4n], sort_order_id: 0 } },
  { status: 0, snapshot_id: 99n, sequence_number: 3n, file_sequence_number: 3n,
    data_file: {
      content: 0, file_path: 's3://bucket/t/data/b.parquet', file_format: 'parquet',
      partition: { ts_day: 19010, id_bucket: null }, record_count: 100n,
      file_size_in_bytes: 2048n } },
  { status: 2, snapshot_id: 98n, sequence_number: 2n, file_sequence_number: 2n,
    data_file: {
      content: 0, file_path: 's3://bucket/t/data/gone.parquet', file_format: 'PARQUET',
      partition: { ts_day: 18000, id_bucket: 1 }, record_count: 10n,
      file_size_in_bytes: 512n } },
], { metadata: { schema: '{"type":"struct","schema-id":0,"fields":[]}',
                 'partition-spec': '[]', 'partition-spec-id': 1, 'format-version': 2,
                 content: 'data' }, blockSize: 256 }));

// v3 delete manifest: a deletion vector and an equality delete file, unpartitioned.
write('v3_delete_manifest.avro', await avroFile(manifestSchema(3, []), [
  { status: 1, data_file: {
      content: 1, file_path: 's3://bucket/t/data/dv.puffin', file_format: 'PUFFIN',
      partition: {}, record_count: 4n, file_size_in_bytes: 300n,
      referenced_data_file: 's3://bucket/t/data/a.parquet', content_offset: 4n,
      content_size_in_bytes: 60n } },
  { status: 1, data_file: {
      content: 2, file_path: 's3://bucket/t/data/eq.parquet', file_format: 'PARQUET',
      partition: {}, record_count: 2n, file_size_in_bytes: 700n, equality_ids: [1, 2] } },
], { metadata: { 'format-version': 3, content: 'deletes' } }));

// v3 data manifest: row lineage ids assigned on read.
write('v3_data_manifest.avro', await avroFile(manifestSchema(3, []), [
  { status: 1, data_file: { content: 0, file_path: '/t/data/1.parquet', file_format: 'PARQUET',
                            partition: {}, record_count: 10n, file_size_in_bytes: 1n } },
  { status: 2, snapshot_id: 1n, sequence_number: 1n, file_sequence_number: 1n,
    data_file: { content: 0, file_path: '/t/data/2.parquet', file_format: 'PARQUET',
                 partition: {}, record_count: 7n, file_size_in_bytes: 1n } },
  { status: 0, snapshot_id: 1n, sequence_number: 1n, file_sequence_number: 1n,
    data_file: { content: 0, file_path: '/t/data/3.parquet', file_format: 'PARQUET',
                 partition: {}, record_count: 5n, file_size_in_bytes: 1n,
                 first_row_id: 500n } },
  { status: 0, snapshot_id: 1n, sequence_number: 1n, file_sequence_number: 1n,
    data_file: { content: 0, file_path: '/t/data/4.parquet', file_format: 'PARQUET',
                 partition: {}, record_count: 3n, file_size_in_bytes: 1n } },
], { metadata: { 'format-version': 3, content: 'data' } }));
