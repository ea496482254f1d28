# Unit tests of the Iceberg table-metadata model and its JSON serde (fixtures in resources/).
set(CAIRN_ICEBERG_TESTS
  unit/iceberg_expression_serde_test.cc
  unit/iceberg_manifest_test.cc
  unit/iceberg_manifest_packing_test.cc
  unit/iceberg_partition_sort_test.cc
  unit/iceberg_scan_filter_test.cc
  unit/iceberg_schema_test.cc
  unit/iceberg_snapshot_list_test.cc
  unit/iceberg_snapshot_retention_test.cc
  unit/iceberg_table_metadata_test.cc
  unit/iceberg_types_test.cc
  unit/iceberg_view_builder_test.cc
  unit/iceberg_view_serde_test.cc
  unit/view_service_test.cc
)
