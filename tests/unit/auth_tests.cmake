set(CAIRN_AUTH_TESTS
  unit/crypto_util_test.cc
  unit/jwks_fetcher_test.cc
  unit/jwt_test.cc
  unit/oidc_verifier_test.cc
  unit/privilege_test.cc
  unit/secret_hash_test.cc
)
