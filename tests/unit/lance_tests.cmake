# Unit tests of the Lance REST Namespace adapter.
set(CAIRN_LANCE_TESTS
  unit/lance_arrow_schema_test.cc
  unit/lance_dataset_test.cc
  unit/lance_manifest_cache_test.cc
  unit/lance_manifest_rewrite_test.cc
  unit/lance_manifest_serde_test.cc
  unit/lance_manifest_test.cc
  unit/lance_manifests_test.cc
  unit/lance_restore_test.cc
  unit/lance_error_test.cc
  unit/lance_refs_test.cc
  unit/lance_ref_names_test.cc
  unit/lance_rest_test.cc
  unit/lance_service_test.cc
  unit/lance_transaction_prune_test.cc
)
