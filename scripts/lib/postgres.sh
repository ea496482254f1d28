# A throw-away PostgreSQL server for the tests: a fresh cluster in its own temp dir, on a
# free loopback port, trust authentication, superuser role `cairn`.
# Sourced, not executed (needs log() from common.sh).
#
#   postgres_start       starts it, exports CAIRN_TEST_POSTGRES_* (see below) and installs a
#                        trap on EXIT, INT and TERM that stops it and removes its temp dir
#   postgres_stop        stops it and removes the temp dir (idempotent)
#
# Exported for the tests (tests/node/lib/postgres.mjs, the GoogleTest store suite):
#   CAIRN_TEST_POSTGRES_URL         postgresql://cairn@127.0.0.1:PORT/postgres (admin connection)
#   CAIRN_TEST_POSTGRES_BIN         the PostgreSQL bin directory (initdb, pg_ctl, psql, ...)
#   CAIRN_TEST_POSTGRES_DATA        the cluster's data directory
#   CAIRN_TEST_POSTGRES_PORT        the TCP port on 127.0.0.1
#   CAIRN_TEST_POSTGRES_SOCKET_DIR  the unix socket directory
#   CAIRN_TEST_POSTGRES_RUN_AS      user to run pg_ctl as (empty: the current user)
#   CAIRN_TEST_POSTGRES_OPTS        the server options pg_ctl passes with -o
#   CAIRN_TEST_POSTGRES_LOG         the server log file
#
# As root (CI) the server runs as the `postgres` system user that the Debian package creates
# (PostgreSQL refuses to run as root); otherwise as the current user.
# CAIRN_POSTGRES_BIN overrides the bin directory (default: the highest /usr/lib/postgresql/*/bin).

_CAIRN_PG_TMP=""
_CAIRN_PG_BIN=""
_CAIRN_PG_STARTED=0

# The bin directory of the newest installed PostgreSQL (empty when none).
postgres_bin_dir() {
  if [ -n "${CAIRN_POSTGRES_BIN:-}" ]; then
    printf '%s\n' "$CAIRN_POSTGRES_BIN"
    return 0
  fi
  local dir
  dir="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)"
  if [ -z "$dir" ] && command -v initdb >/dev/null; then
    dir="$(dirname "$(readlink -f "$(command -v initdb)")")"
  fi
  printf '%s\n' "$dir"
}

# Runs a command as the cluster's owner ($CAIRN_TEST_POSTGRES_RUN_AS, or the current user).
_postgres_as_owner() {
  if [ -n "${CAIRN_TEST_POSTGRES_RUN_AS:-}" ]; then
    runuser -u "$CAIRN_TEST_POSTGRES_RUN_AS" -- "$@"
  else
    "$@"
  fi
}

# True when something accepts TCP connections on 127.0.0.1:$1.
_postgres_port_in_use() {
  (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

# A port that looked free just now (the caller retries when the server cannot bind it).
_postgres_pick_port() {
  local port i
  for i in $(seq 1 50); do
    port=$((20000 + RANDOM % 30000))
    if ! _postgres_port_in_use "$port"; then
      printf '%s\n' "$port"
      return 0
    fi
  done
  return 1
}

postgres_start() {
  local bin run_as="" base tmp data sockets logfile port opts attempt
  bin="$(postgres_bin_dir)"
  if [ -z "$bin" ] || [ ! -x "$bin/initdb" ] || [ ! -x "$bin/pg_ctl" ]; then
    echo "PostgreSQL server binaries not found (looked in /usr/lib/postgresql/*/bin; install the postgresql package or set CAIRN_POSTGRES_BIN)" >&2
    return 1
  fi
  _CAIRN_PG_BIN="$bin"
  if [ "$(id -u)" -eq 0 ]; then
    run_as=postgres
    if ! id -u "$run_as" >/dev/null 2>&1; then
      echo "running as root but there is no '$run_as' user to run PostgreSQL as" >&2
      return 1
    fi
  fi
  export CAIRN_TEST_POSTGRES_RUN_AS="$run_as"

  # The server user must be able to reach the temp dir: fall back to /tmp when it cannot.
  base="${TMPDIR:-/tmp}"
  if [ -n "$run_as" ] && ! runuser -u "$run_as" -- test -x "$base" 2>/dev/null; then base=/tmp; fi
  tmp="$(mktemp -d "$base/cairn-pg.XXXXXX")" || return 1
  _CAIRN_PG_TMP="$tmp"
  data="$tmp/data"
  sockets="$tmp/s"
  logfile="$tmp/postgres.log"
  mkdir -p "$sockets" || return 1
  if [ -n "$run_as" ]; then chown -R "$run_as": "$tmp" || return 1; fi

  # --no-sync: initdb's own fsyncs are not needed for a throw-away cluster (the server itself
  # runs with fsync=on).
  if ! _postgres_as_owner "$bin/initdb" -D "$data" -U cairn --auth=trust -E UTF8 --locale=C --no-sync \
    >"$tmp/initdb.log" 2>&1; then
    echo "initdb failed:" >&2
    cat "$tmp/initdb.log" >&2
    return 1
  fi

  # A port can be taken between the check and the bind: retry with another one.
  for attempt in 1 2 3 4 5; do
    port="$(_postgres_pick_port)" || { echo "no free TCP port found for PostgreSQL" >&2; return 1; }
    rm -f "$logfile"
    opts="-p $port -k $sockets -c listen_addresses=127.0.0.1 -c fsync=on"
    if _postgres_as_owner "$bin/pg_ctl" -D "$data" -l "$logfile" -w -t 30 -o "$opts" start >"$tmp/pg_ctl.log" 2>&1; then
      _CAIRN_PG_STARTED=1
      break
    fi
    if ! grep -q -i "could not bind\|address already in use" "$logfile" 2>/dev/null; then
      break
    fi
    log "PostgreSQL could not bind port $port, trying another one"
  done
  if [ "$_CAIRN_PG_STARTED" != 1 ]; then
    echo "PostgreSQL did not start:" >&2
    cat "$tmp/pg_ctl.log" >&2
    [ -f "$logfile" ] && tail -n 50 "$logfile" >&2
    return 1
  fi
  # pg_ctl -w waited for the server to accept connections; check the TCP listener too.
  if [ -x "$bin/pg_isready" ] && ! "$bin/pg_isready" -q -h 127.0.0.1 -p "$port" -t 10; then
    echo "PostgreSQL started but does not answer on 127.0.0.1:$port" >&2
    tail -n 50 "$logfile" >&2
    return 1
  fi

  export CAIRN_TEST_POSTGRES_URL="postgresql://cairn@127.0.0.1:$port/postgres"
  export CAIRN_TEST_POSTGRES_BIN="$bin"
  export CAIRN_TEST_POSTGRES_DATA="$data"
  export CAIRN_TEST_POSTGRES_PORT="$port"
  export CAIRN_TEST_POSTGRES_SOCKET_DIR="$sockets"
  export CAIRN_TEST_POSTGRES_OPTS="$opts"
  export CAIRN_TEST_POSTGRES_LOG="$logfile"
  log "PostgreSQL $("$bin/postgres" --version | awk '{print $3}') on 127.0.0.1:$port (data $data${run_as:+, user $run_as})"
}

postgres_stop() {
  local tmp="$_CAIRN_PG_TMP" data pid
  [ -n "$tmp" ] || return 0
  data="$tmp/data"
  if [ -f "$data/postmaster.pid" ]; then
    pid="$(head -n 1 "$data/postmaster.pid" 2>/dev/null || true)"
    if ! _postgres_as_owner "$_CAIRN_PG_BIN/pg_ctl" -D "$data" -m fast -w -t 20 stop >/dev/null 2>&1 \
      && ! _postgres_as_owner "$_CAIRN_PG_BIN/pg_ctl" -D "$data" -m immediate -w -t 10 stop >/dev/null 2>&1 \
      && [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
      # pg_ctl could not stop it: kill this cluster's postmaster by its pid (its backends
      # notice the postmaster's death and exit).
      kill -KILL "$pid" 2>/dev/null || true
    fi
  fi
  rm -rf "$tmp"
  _CAIRN_PG_TMP=""
  _CAIRN_PG_STARTED=0
  unset CAIRN_TEST_POSTGRES_URL CAIRN_TEST_POSTGRES_DATA CAIRN_TEST_POSTGRES_PORT \
    CAIRN_TEST_POSTGRES_SOCKET_DIR CAIRN_TEST_POSTGRES_OPTS CAIRN_TEST_POSTGRES_LOG
}

# Starts the throw-away server and makes sure it is stopped however the script ends.
postgres_start_with_trap() {
  trap 'postgres_stop' EXIT
  trap 'postgres_stop; trap - INT; kill -INT $$' INT
  trap 'postgres_stop; trap - TERM; kill -TERM $$' TERM
  postgres_start
}
