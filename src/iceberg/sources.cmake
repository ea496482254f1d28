# Iceberg table-metadata model and its JSON serde (the REST routes live in iceberg/rest/).
set(CAIRN_ICEBERG_SOURCES
  iceberg/json_serde.cc
  iceberg/json_util_internal.cc
  iceberg/metadata_builder.cc
  iceberg/new_table.cc
  iceberg/partition_spec.cc
  iceberg/schema.cc
  iceberg/snapshot.cc
  iceberg/sort_order.cc
  iceberg/table_metadata.cc
  iceberg/table_requirement.cc
  iceberg/transform.cc
  iceberg/type.cc
  iceberg/update_serde.cc
)
