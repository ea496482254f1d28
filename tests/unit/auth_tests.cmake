set(CAIRN_AUTH_TESTS
  unit/access_test.cc
  unit/audit_log_test.cc
  unit/crypto_util_test.cc
  unit/jwt_test.cc
  unit/privilege_test.cc
  unit/secret_hash_test.cc
)
