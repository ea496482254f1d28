# Shared by scripts/run and scripts/test: install what is missing, configure once, build.
# Sourced, not executed.

CAIRN_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"

# Debian packages needed to build the server.
CAIRN_BUILD_PACKAGES=(
  g++ cmake ninja-build pkg-config
  libboost1.81-dev libboost-json1.81-dev libboost-url1.81-dev
  libsqlite3-dev libtomlplusplus-dev libcli11-dev libspdlog-dev libfmt-dev
  libexpected-dev libssl-dev zlib1g-dev libpq-dev libjemalloc-dev
  libcurl4-openssl-dev libexpat1-dev libargon2-dev libcjose-dev
  libjansson-dev  # cjose.pc requires jansson.pc; libcjose-dev does not pull it in
  libprotobuf-dev protobuf-compiler  # Lance manifests (src/lance/proto/manifest.proto)
  libavro-dev libsnappy-dev libzstd-dev  # Iceberg manifests (Avro; snappy and zstd blocks)
)
# scripts/package: dpkg-shlibdeps finds the package's dependencies.
CAIRN_PACKAGE_PACKAGES=(dpkg-dev)
# Extra Debian packages needed to run the tests (postgresql: the throw-away server of
# scripts/lib/postgres.sh for the PostgreSQL store tests; clang, libclang-rt-14-dev and
# libfuzzer-14-dev: the libFuzzer harnesses of scripts/lib/fuzz.sh; openssl: the test
# certificate authorities of tests/support/make_test_tls.sh; dpkg-dev and systemd: the
# package test builds a .deb (dpkg-shlibdeps) and verifies its unit (systemd-analyze);
# prometheus: its promtool checks /metrics with Prometheus's own parser — on a machine
# where systemd runs, the package also starts a Prometheus server, which the tests do
# not use).
CAIRN_TEST_PACKAGES=(libgtest-dev libgmock-dev sqlite3 postgresql
                     clang libclang-rt-14-dev libfuzzer-14-dev openssl dpkg-dev systemd
                     prometheus)

log() { printf '==> %s\n' "$*" >&2; }

# Installs the given Debian packages that are not installed yet (apt-get update only when
# something is missing, so a second run installs nothing and asks no registry).
ensure_packages() {
  local missing=()
  local pkg
  for pkg in "$@"; do
    if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "ok installed"; then
      missing+=("$pkg")
    fi
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  log "installing Debian packages: ${missing[*]}"
  local sudo=()
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null || { echo "need root (or sudo) to install: ${missing[*]}" >&2; return 1; }
    sudo=(sudo)
  fi
  "${sudo[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

# Installs Node.js and npm from Debian when no node is on the PATH.
ensure_node() {
  if command -v node >/dev/null && command -v npm >/dev/null; then return 0; fi
  ensure_packages nodejs npm
}

# Configures (first time only) and builds a CMake preset.
build_preset() {
  local preset="$1"
  cd "$CAIRN_ROOT"
  if [ ! -f "build/$preset/build.ninja" ]; then
    log "configuring preset $preset"
    cmake --preset "$preset" >/dev/null
  fi
  log "building preset $preset"
  cmake --build --preset "$preset"
}
