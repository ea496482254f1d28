#!/bin/sh
# Makes a throw-away certificate authority and a server certificate it signed, for the
# TLS tests: make_test_tls.sh DIR [PREFIX]
#   DIR/PREFIXca.pem        the CA certificate (what a client trusts)
#   DIR/PREFIXserver.pem    the server certificate (CN and SAN localhost, SAN 127.0.0.1)
#   DIR/PREFIXserver.key    its private key (unencrypted PKCS#8)
# P-256 keys, valid for two days. Needs the openssl command-line tool.
set -eu
dir=$1
prefix=${2:-}
work=$(mktemp -d "$dir/.make-test-tls.XXXXXX")
trap 'rm -rf "$work"' EXIT
# stderr is kept quiet on success; on failure it is shown.
run() { "$@" 2>"$work/err" || { cat "$work/err" >&2; exit 1; }; }
run openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
  -keyout "$work/ca.key" -out "$dir/${prefix}ca.pem" -days 2 \
  -subj "/CN=Cairn test CA ${prefix:-0} $$"
run openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
  -keyout "$dir/${prefix}server.key" -out "$work/server.csr" -subj "/CN=localhost"
printf 'subjectAltName=DNS:localhost,IP:127.0.0.1\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n' \
  >"$work/ext"
run openssl x509 -req -in "$work/server.csr" -CA "$dir/${prefix}ca.pem" -CAkey "$work/ca.key" \
  -CAcreateserial -CAserial "$work/ca.srl" -out "$dir/${prefix}server.pem" -days 2 \
  -extfile "$work/ext"
