# shellcheck shell=bash
# The Cairn server under test and the load generator around it. Sourced by bench/run, not
# executed. Every function here runs inside one workload's subshell: the server it starts is
# that workload's own, and bench_cleanup (the subshell's EXIT trap) stops it.
#
# Needs from the caller: CAIRN_BIN, CAIRN_BENCH_BIN, BENCH_LIB, RAW_DIR, WORK_DIR and log().
#
#   server_start DATA_DIR [cairn serve options...]   sets SERVER_PID, SERVER_URL, SERVER_DATA
#   server_stop                                      SIGTERM, then SIGKILL after a grace period
#   server_set_aside                                 keeps the server running as OTHER_*
#   server_cpu_s / server_peak_rss_kib [PID]         a server's CPU time and VmHWM
#   measure NAME WARMUP_S SUBCOMMAND [options...]    one load-generator run into raw/NAME.json
#
# CATALOG_PREFIX is the Iceberg prefix (the catalog) that measure and prepare pass to
# cairn-bench: `default` unless a workload sets it (W7 for its catalog on S3).

CATALOG_PREFIX=default
SERVER_PID=""
SERVER_URL=""
SERVER_DATA=""
OTHER_PID=""
OTHER_URL=""
OTHER_DATA=""
BENCH_PID=""
CLK_TCK="$(getconf CLK_TCK)"

# Starts `cairn serve` on a free loopback port with the given data dir (plus any extra serve
# options) and waits for its `listening on http://...` line, so the port is known and the
# server accepts connections before the first request.
server_start() {
  local data="$1"
  shift
  mkdir -p "$data"
  SERVER_DATA="$data"
  "$CAIRN_BIN" serve --listen 127.0.0.1:0 --data-dir "$data" --log-level warn "$@" \
    >"$data.stdout" 2>"$data.stderr" &
  SERVER_PID=$!
  for _ in $(seq 1 600); do
    SERVER_URL="$(sed -n 's/^listening on \(http:\/\/[^ ]*\).*/\1/p' "$data.stdout" | head -n 1)"
    [ -n "$SERVER_URL" ] && break
    if ! kill -0 "$SERVER_PID" 2>/dev/null; then
      echo "cairn serve exited before listening:" >&2
      tail -n 30 "$data.stderr" >&2
      SERVER_PID=""
      return 1
    fi
    sleep 0.05
  done
  if [ -z "$SERVER_URL" ]; then
    echo "cairn serve did not print its address within 30 s" >&2
    tail -n 30 "$data.stderr" >&2
    return 1
  fi
  log "server pid $SERVER_PID on $SERVER_URL (data $data)"
}

server_stop() {
  local pid="$SERVER_PID"
  SERVER_PID=""
  stop_pid "$pid"
}

# A workload that compares two servers side by side (W8) starts one, sets it aside (it
# keeps running, as OTHER_PID, OTHER_URL and OTHER_DATA), then starts the other; measure
# records both servers' CPU time and bench_cleanup stops both.
server_set_aside() {
  OTHER_PID="$SERVER_PID" OTHER_URL="$SERVER_URL" OTHER_DATA="$SERVER_DATA"
  SERVER_PID="" SERVER_URL="" SERVER_DATA=""
}

# SIGTERM to the server PID, then SIGKILL after a grace period; waits for it to end.
stop_pid() {
  local pid="$1"
  [ -n "$pid" ] || return 0
  kill -TERM "$pid" 2>/dev/null || return 0
  # The server lets in-flight requests finish (shutdown-grace-ms); give it a little longer.
  for _ in $(seq 1 150); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  if kill -0 "$pid" 2>/dev/null; then
    log "server $pid did not stop on SIGTERM; killing it"
    kill -KILL "$pid" 2>/dev/null || true
  fi
  wait "$pid" 2>/dev/null || true
}

# The server's (or process PID's) user + system CPU time in seconds. Fields 14 and 15 of
# /proc/PID/stat, counted after the `)` that closes the command name (which may itself
# contain spaces).
server_cpu_s() {
  local stat
  stat="$(cat "/proc/${1:-$SERVER_PID}/stat")"
  stat="${stat##*) }"
  # After the name, field 3 (state) is the first: utime and stime are the 12th and 13th.
  awk -v tck="$CLK_TCK" '{ printf "%.3f\n", ($12 + $13) / tck }' <<<"$stat"
}

# The server's (or process PID's) peak resident set size so far (VmHWM), in KiB.
server_peak_rss_kib() {
  awk '/^VmHWM:/ { print $2 }' "/proc/${1:-$SERVER_PID}/status"
}

now_s() { date +%s.%N; }

# measure NAME WARMUP_S SUBCOMMAND [options...]
# Runs one cairn-bench subcommand against the current server and writes raw/NAME.json:
#   {"name", "workload", "argv", "wall_s", "server": {"cpu_s", "cores", "peak_rss_kib"}, "result"}
# where result is cairn-bench's own JSON object; with a server set aside, "other_server"
# holds the same for that one. The server's CPU time is counted from the
# end of the load generator's warm-up (WARMUP_S) to its end, so it covers the measured window
# (plus the load generator's start and its final report, a few milliseconds).
# The load generator's stderr is kept in WORK_DIR and shown when it fails.
measure() {
  local name="$1" warmup="$2" sub="$3"
  shift 3
  local workload="${name%%-*}"
  local out="$WORK_DIR/$name.out" err="$WORK_DIR/$name.err"
  local argv=("$sub" --url "$SERVER_URL" --prefix "$CATALOG_PREFIX" "$@")
  log "$name: cairn-bench ${argv[*]}"
  local t0 cpu0 cpu1 t1 rc=0 other_usage=()
  "$CAIRN_BENCH_BIN" "${argv[@]}" >"$out" 2>"$err" &
  BENCH_PID=$!
  if [ "$warmup" != 0 ]; then sleep "$warmup"; fi
  cpu0="$(server_cpu_s)"
  if [ -n "$OTHER_PID" ]; then other_usage+=(other_cpu0="$(server_cpu_s "$OTHER_PID")"); fi
  t0="$(now_s)"
  wait "$BENCH_PID" || rc=$?
  BENCH_PID=""
  t1="$(now_s)"
  cpu1="$(server_cpu_s)" || {
    echo "$name: the server died during the run:" >&2
    tail -n 30 "$SERVER_DATA.stderr" >&2
    return 1
  }
  if [ -n "$OTHER_PID" ]; then
    local other_cpu1
    other_cpu1="$(server_cpu_s "$OTHER_PID")" || {
      echo "$name: the server set aside died during the run:" >&2
      tail -n 30 "$OTHER_DATA.stderr" >&2
      return 1
    }
    other_usage+=(other_cpu1="$other_cpu1" other_peak_rss_kib="$(server_peak_rss_kib "$OTHER_PID")")
  fi
  if [ "$rc" -ne 0 ] || [ ! -s "$out" ]; then
    echo "$name: cairn-bench failed (exit $rc):" >&2
    tail -n 30 "$err" >&2
    return 1
  fi
  # shellcheck disable=SC2153 # BENCH_LIB comes from bench/run
  node "$BENCH_LIB/json.mjs" wrap "$out" \
    name="$name" workload="$workload" argv="${argv[*]}" \
    wall_s="$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')" \
    cpu0="$cpu0" cpu1="$cpu1" peak_rss_kib="$(server_peak_rss_kib)" "${other_usage[@]}" \
    >"$RAW_DIR/$name.json"
}

# Writes raw/NAME.json for facts about a workload's server that are not one run:
# record NAME key=value...
record() {
  local name="$1"
  shift
  node "$BENCH_LIB/json.mjs" object name="$name" workload="${name%%-*}" "$@" >"$RAW_DIR/$name.json"
}

# A field of a JSON file, e.g. `json_field raw/W2-setup.json result.metadata_bytes`.
json_field() {
  node "$BENCH_LIB/json.mjs" get "$1" "$2"
}

# The EXIT trap of a workload's subshell: stop what it started, whatever made it end.
bench_cleanup() {
  if [ -n "$BENCH_PID" ]; then kill -TERM "$BENCH_PID" 2>/dev/null || true; fi
  server_stop
  local other_pid="$OTHER_PID"
  OTHER_PID=""
  stop_pid "$other_pid"
}
