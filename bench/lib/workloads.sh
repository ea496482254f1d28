# shellcheck shell=bash
# The workloads of bench/run (issue 7), one function each. Sourced by bench/run, not executed.
# Each runs in its own subshell with a fresh server (see run_workload in bench/run) and
# writes raw/<W>-*.json through measure/record (server.sh).
#
# Sizes come from bench/run: DURATION_S, WARMUP_S, TIMED (the options of every timed run),
# W2_SNAPSHOTS, W5_NAMESPACES, W5_TABLES_PER_NAMESPACE, W5_WIDE_TABLES, WALK_REPEAT,
# W9_VERSIONS, W9_MANIFEST_BYTES, W10_MANIFESTS, W10_FILES_PER_MANIFEST, W10_COLD_RUNS,
# W10_FULL_REPEAT.
# W6 and W7 also need scripts/lib/postgres.sh and scripts/lib/rgw.sh (sourced by bench/run).
# W8 also needs bench/lib/auth.mjs (tokens of its server with authentication on); W10
# bench/lib/scan_table.mjs (its table and ceilings; avsc from tests/node/node_modules).

# Runs cairn-bench for setting things up (not a measurement): output kept in WORK_DIR only.
prepare() {
  local name="$1" sub="$2"
  shift 2
  if ! "$CAIRN_BENCH_BIN" "$sub" --url "$SERVER_URL" --prefix "$CATALOG_PREFIX" "$@" \
    >"$WORK_DIR/$name.out" 2>"$WORK_DIR/$name.err"; then
    echo "$name: cairn-bench $sub failed:" >&2
    tail -n 30 "$WORK_DIR/$name.err" >&2
    return 1
  fi
}

# loadTable of the small table against GET /health at each concurrency, back to back in the
# same server, so the ratio compares two numbers taken under the same machine noise.
loadtable_vs_health() {
  local prefix="$1" c
  shift
  for c in "$@"; do
    measure "$prefix-loadtable-c$c" "$WARMUP_S" get \
      --path /v1/default/namespaces/bench/tables/small --connections "$c" "${TIMED[@]}"
    measure "$prefix-health-c$c" "$WARMUP_S" get --path /health --connections "$c" "${TIMED[@]}"
  done
}

# Mean size of the metadata files under the tables whose names start with PREFIX: what one
# commit wrote and fsynced, so the size of the ceiling loop's file.
mean_metadata_bytes() {
  find "$SERVER_DATA/warehouse" -path "*/$1*/metadata/*" -name '*.metadata.json' -printf '%s\n' |
    awk '{ s += $1; n++ } END { if (n) printf "%d\n", s / n }'
}

# N writers, each appending to its own fresh table: raw/<PREFIX>-commits-wN.json, through
# MEASURE (default measure). Sets COMMIT_TABLES, the name prefix the tables share (e.g.
# w3w4t), and CEILING_COUNT, how many operations the ceiling that follows does: as many as
# the server did commits, at least 50 per connection — at a ceiling at least as fast as the
# server, that takes at most as long as the commit run.
measure_commits() {
  local prefix="$1" n="$2" measure="${3:-measure}"
  # Fresh tables for each N (`commits` creates them), so every run starts from small
  # metadata and the metadata files under them are this run's.
  COMMIT_TABLES="${prefix,,}w${n}t"
  local tables=() i list commits
  for ((i = 0; i < n; i++)); do tables+=("$COMMIT_TABLES$i"); done
  list="$(IFS=,; echo "${tables[*]}")"
  "$measure" "$prefix-commits-w$n" "$WARMUP_S" commits --namespace bench --tables "$list" --writers "$n" "${TIMED[@]}"
  commits="$(json_field "$RAW_DIR/$prefix-commits-w$n.json" result.commits)"
  CEILING_COUNT=$((commits > 50 * n ? commits : 50 * n))
}

# N writers, each appending to its own fresh table, then the durable-commit ceiling with the
# same number of connections: write + fsync a file of the mean metadata size the commits
# wrote, then a one-row transaction in a fresh store of the same kind (CEILING_STORE).
commits_vs_ceiling() {
  local prefix="$1" n="$2" ceiling_store="$3"
  measure_commits "$prefix" "$n"
  local bytes
  bytes="$(mean_metadata_bytes "$COMMIT_TABLES")"
  if [ -z "$bytes" ]; then
    # Only when the tables live somewhere else than under the data dir: say so, go on.
    log "$prefix: no metadata files found under $SERVER_DATA/warehouse for w$n; the ceiling writes 4096 bytes"
    bytes=4096
  fi
  mkdir -p "$WORK_DIR/$prefix-ceiling-w$n"
  measure "$prefix-ceiling-w$n" 0 durable-ceiling --dir "$WORK_DIR/$prefix-ceiling-w$n" \
    --bytes "$bytes" --count "$CEILING_COUNT" --connections "$n" --store "$ceiling_store"
}

# Records the facts of the workload's server at its end.
record_server() {
  local name="$1"
  shift
  record "$name-server" peak_rss_kib="$(server_peak_rss_kib)" cpu_s="$(server_cpu_s)" \
    data_bytes="$(du -sb "$SERVER_DATA" | cut -f1)" "$@"
}

# W1: loadTable of a small table (one schema, 5 snapshots) at 1, 16 and 64 connections,
# each against /health at the same concurrency.
workload_W1() {
  server_start "$WORK_DIR/W1"
  measure W1-setup 0 setup-table --namespace bench --table small --snapshots 5
  loadtable_vs_health W1 1 16 64
  # What `cairn serve` picks by default: one I/O thread per core, at most 4.
  record_server W1 store=sqlite io_threads="$(( $(nproc) < 4 ? $(nproc) : 4 ))"
  # The default runs one I/O thread per core, and on this machine the load generator
  # shares those cores: with two I/O threads /health itself gets slower. So 64
  # connections once more on a server with a single I/O thread, where the ceiling is the
  # highest and the ratio shows the per-request cost of a load alone.
  server_stop
  server_start "$WORK_DIR/W1-io1" --io-threads 1
  measure W1-io1-setup 0 setup-table --namespace bench --table small --snapshots 5
  measure W1-io1-loadtable-c64 "$WARMUP_S" get \
    --path /v1/default/namespaces/bench/tables/small --connections 64 "${TIMED[@]}"
  measure W1-io1-health-c64 "$WARMUP_S" get --path /health --connections 64 "${TIMED[@]}"
}

# W2: loadTable of a table with many snapshots: snapshots=all, snapshots=refs and a
# conditional GET answered with 304, at 1 connection (latency) and 16 (throughput).
workload_W2() {
  server_start "$WORK_DIR/W2"
  measure W2-setup 0 setup-table --namespace bench --table large --snapshots "$W2_SNAPSHOTS" --batch 100
  local path=/v1/default/namespaces/bench/tables/large
  measure W2-etag 0 etag --path "$path"
  local etag
  etag="$(json_field "$RAW_DIR/W2-etag.json" result.etag)"
  # Response sizes, for the report only: what a client downloads in each variant.
  local all_bytes refs_bytes
  all_bytes="$(response_bytes "$SERVER_URL$path?snapshots=all" || true)"
  refs_bytes="$(response_bytes "$SERVER_URL$path?snapshots=refs" || true)"
  local c
  for c in 1 16; do
    measure "W2-all-c$c" "$WARMUP_S" get --path "$path?snapshots=all" --connections "$c" "${TIMED[@]}"
    measure "W2-refs-c$c" "$WARMUP_S" get --path "$path?snapshots=refs" --connections "$c" "${TIMED[@]}"
    measure "W2-304-c$c" "$WARMUP_S" get --path "$path" --header "If-None-Match: $etag" \
      --expect 304 --connections "$c" "${TIMED[@]}"
  done
  record_server W2 store=sqlite snapshots="$W2_SNAPSHOTS" all_response_bytes="$all_bytes" \
    refs_response_bytes="$refs_bytes"
}

# Size of a response body (after any content decoding), fetched once with Node.
response_bytes() {
  # shellcheck disable=SC2016 # JavaScript, not shell
  node -e 'fetch(process.argv[1]).then(async (r) => {
    if (!r.ok) { console.error(`${process.argv[1]}: HTTP ${r.status}`); process.exit(1); }
    console.log((await r.arrayBuffer()).byteLength);
  })' "$1"
}

# W3: 1, 4 and 16 writers, each on its own table, against the durable-commit ceiling.
workload_W3() {
  server_start "$WORK_DIR/W3"
  local n
  for n in 1 4 16; do
    commits_vs_ceiling W3 "$n" "sqlite:$WORK_DIR/W3-ceiling-w$n.db"
  done
  record_server W3 store=sqlite
}

# W4: 8 writers on one table (created by `commits`); the load generator asserts the ref's
# snapshot id and retries on 409, so the result is successful commits/s and the share of
# attempts that conflicted.
workload_W4() {
  server_start "$WORK_DIR/W4"
  measure W4-commits-w8 "$WARMUP_S" commits --namespace bench --tables hot --writers 8 "${TIMED[@]}"
  record_server W4 store=sqlite
}

# W5: many namespaces and tables: creation throughput, then page-by-page walks of
# listNamespaces and listTables (including one wide namespace) and the server's peak RSS
# with all of it loaded.
workload_W5() {
  server_start "$WORK_DIR/W5"
  measure W5-create 0 create-tables --namespaces "$W5_NAMESPACES" \
    --tables-per-namespace "$W5_TABLES_PER_NAMESPACE" --connections 16
  measure W5-create-wide 0 create-tables --namespaces 1 --namespace-prefix wide \
    --tables-per-namespace "$W5_WIDE_TABLES" --connections 16
  local walk=(--page-size 100 --repeat "$WALK_REPEAT")
  measure W5-walk-namespaces 0 walk --path /v1/default/namespaces "${walk[@]}"
  measure W5-walk-ns00000 0 walk --path /v1/default/namespaces/ns00000/tables "${walk[@]}"
  measure W5-walk-wide 0 walk --path /v1/default/namespaces/wide00000/tables "${walk[@]}"
  record_server W5 store=sqlite walk_repeat="$WALK_REPEAT" namespaces=$((W5_NAMESPACES + 1)) \
    tables=$((W5_NAMESPACES * W5_TABLES_PER_NAMESPACE + W5_WIDE_TABLES))
}

# W6: W1 at 16 and 64 connections and W3 with 4 writers on a throw-away PostgreSQL server
# (scripts/lib/postgres.sh); the ceiling's one-row transaction goes to PostgreSQL too, in a
# database of its own.
workload_W6() {
  # postgres_start (not postgres_start_with_trap): this subshell's EXIT trap, bench_cleanup,
  # stops Cairn first and then PostgreSQL (see run_workload in bench/run).
  postgres_start
  local psql="$CAIRN_TEST_POSTGRES_BIN/psql" base="postgresql://cairn@127.0.0.1:$CAIRN_TEST_POSTGRES_PORT"
  "$psql" "$CAIRN_TEST_POSTGRES_URL" -v ON_ERROR_STOP=1 -q \
    -c 'CREATE DATABASE cairn_bench' -c 'CREATE DATABASE cairn_bench_ceiling'
  local version
  version="$("$psql" "$CAIRN_TEST_POSTGRES_URL" -Atc 'SHOW server_version')"
  server_start "$WORK_DIR/W6" --store "$base/cairn_bench"
  prepare W6-setup setup-table --namespace bench --table small --snapshots 5
  loadtable_vs_health W6 16 64
  commits_vs_ceiling W6 4 "$base/cairn_bench_ceiling"
  record_server W6 store=postgresql postgres_version="$version"
}

# W7's S3 options of cairn-bench (set by workload_W7): endpoint, bucket, and the names of
# the environment variables holding the keys (rgw.sh exports them; never their values,
# which would land in raw/ with the command line).
W7_S3=()

# The config file of W7's server: a storage on the RGW and the catalog `s3` whose warehouse
# is in BUCKET; Cairn reads the keys from the environment variables rgw.sh exports.
write_w7_config() {
  local file="$1" bucket="$2"
  cat >"$file" <<TOML
[storage.rgw]
endpoint = "$CAIRN_TEST_S3_ENDPOINT"
region = "$CAIRN_TEST_S3_REGION"
path-style-access = true
access-key-id-env = "CAIRN_TEST_S3_ACCESS_KEY"
secret-access-key-env = "CAIRN_TEST_S3_SECRET_KEY"
locations = ["s3://$bucket/wh"]

[catalog.s3]
warehouse = "s3://$bucket/wh/s3"
TOML
}

# RGW's CPU seconds so far: its three daemons (monitor, OSD, gateway) together.
rgw_cpu_s() {
  local name pid stat total=0
  for name in mon.a osd.0 client.rgw; do
    pid="$(cat "$CAIRN_TEST_S3_DIR/run/$name.pid")"
    stat="$(cat "/proc/$pid/stat")"
    stat="${stat##*) }"
    total="$(awk -v t="$total" -v tck="$CLK_TCK" '{ printf "%.3f\n", t + ($12 + $13) / tck }' <<<"$stat")"
  done
  echo "$total"
}

# RGW's request counters so far (perf dump over its admin socket): "requests gets puts",
# where gets counts GETs and HEADs of objects.
rgw_counters() {
  local file="$WORK_DIR/rgw-perf.json" field
  ceph --admin-daemon "$CAIRN_TEST_S3_DIR/run/client.rgw.asok" perf dump rgw >"$file"
  for field in req get put; do json_field "$file" "rgw.$field"; done | paste -sd ' '
}

# measure, plus what RGW did meanwhile, warm-up included: its requests and its CPU seconds,
# into raw/NAME-rgw.json. A loadTable run must show no GET: loads never read S3.
measure_rgw() {
  local name="$1" b a cpu0 t0
  read -r -a b <<<"$(rgw_counters)"
  cpu0="$(rgw_cpu_s)"
  t0="$(now_s)"
  measure "$@"
  read -r -a a <<<"$(rgw_counters)"
  record "$name-rgw" wall_s="$(awk -v a="$t0" -v b="$(now_s)" 'BEGIN { printf "%.3f", b - a }')" \
    cpu_s="$(awk -v a="$cpu0" -v b="$(rgw_cpu_s)" 'BEGIN { printf "%.3f", b - a }')" \
    requests=$((a[0] - b[0])) gets=$((a[1] - b[1])) puts=$((a[2] - b[2]))
}

# N writers on fresh tables of the S3 catalog and the S3 ceiling with as many connections,
# taking turns of 500 ms in one run (`s3-commits`; a turn hands over once the other side's
# operations have ended): the ceiling's loop i does one conditional PUT of the mean size
# writer i's commits wrote in their last turn to a fresh key, then a one-row transaction
# in a fresh SQLite file. Turns, because RGW drifts: the same ceiling measured three times
# in a row took 7.5, 6.6 and 5.5 ms per operation, and a ceiling measured after the
# commits (as this workload did before) met another RGW than they did. The run lasts
# twice DURATION_S, so that each side has about DURATION_S.
commits_vs_s3_ceiling() {
  local n="$1" i tables=() list
  COMMIT_TABLES="w7w${n}t"
  for ((i = 0; i < n; i++)); do tables+=("$COMMIT_TABLES$i"); done
  list="$(IFS=,; echo "${tables[*]}")"
  CATALOG_PREFIX=s3 measure_rgw "W7-commits-w$n" "$WARMUP_S" s3-commits --namespace bench \
    --tables "$list" --writers "$n" "${W7_S3[@]}" --key-prefix ceiling/ \
    --store "sqlite:$WORK_DIR/W7-ceiling-w$n.db" --phase-ms 500 \
    --duration-s "$(awk -v d="$DURATION_S" 'BEGIN { print 2 * d }')" --warmup-s "$WARMUP_S"
  # For the report: the metadata files the commits wrote. Table locations are
  # <warehouse>/<namespace>/<name>-<random suffix>. RGW answers a GET slowly (tens of ms),
  # so the mean is taken over 100 files evenly spread over the listing (table by table,
  # version by version): the sizes grow steadily with the versions.
  measure W7-size-w"$n" 0 s3-mean-size "${W7_S3[@]}" --key-prefix "wh/s3/bench/$COMMIT_TABLES" \
    --sample 100
  # Purged before the next writer count, which writes about as much again.
  for ((i = 0; i < n; i++)); do
    curl -sS -f -X DELETE -o /dev/null \
      "$SERVER_URL/v1/s3/namespaces/bench/tables/$COMMIT_TABLES$i?purgeRequested=true"
  done
}

# W7: Iceberg tables on S3, on a throw-away Ceph RGW (scripts/lib/rgw.sh: one memstore OSD,
# objects in RAM) on this machine, sharing its cores with the server and the load generator.
# One server with two catalogs: `default` on the local disk and `s3` in a fresh bucket.
# loadTable of a small table of each at 16 and 64 connections, taking turns; then commits
# by 1, 4 and 16 writers on fresh S3 tables, each against the S3 ceiling.
workload_W7() {
  # rgw_start, not rgw_start_with_trap: this subshell's EXIT trap (run_workload in
  # bench/run) stops Cairn first, then RGW.
  # Each commit's metadata file holds every snapshot so far: a full run writes 0.3 to 0.6 GB
  # of them per writer count here (more on a faster machine), and its ceiling as much again,
  # all in the OSD's RAM until deleted. The default 1 GiB would be too tight.
  CAIRN_RGW_MEMSTORE_BYTES=$((6 << 30)) rgw_start
  local bucket=cairn-bench-w7
  W7_S3=(--endpoint "$CAIRN_TEST_S3_ENDPOINT" --region "$CAIRN_TEST_S3_REGION" --bucket "$bucket"
    --access-key-env CAIRN_TEST_S3_ACCESS_KEY --secret-key-env CAIRN_TEST_S3_SECRET_KEY)
  # No server yet: `prepare` needs none for an S3 subcommand.
  prepare W7-bucket s3-create-bucket "${W7_S3[@]}"
  write_w7_config "$WORK_DIR/W7.toml" "$bucket"
  server_start "$WORK_DIR/W7" --config "$WORK_DIR/W7.toml"

  CATALOG_PREFIX=s3 measure W7-setup-s3 0 setup-table --namespace bench --table small --snapshots 5
  measure W7-setup-local 0 setup-table --namespace bench --table small --snapshots 5
  # Both tables in one run per concurrency, taking turns every 100 ms, so that both see the
  # same machine (a build starting elsewhere on it slows both, not the one measured then),
  # each for as long as any other workload's run.
  local c
  for c in 16 64; do
    measure_rgw "W7-loadtable-c$c" "$WARMUP_S" get --path /v1/s3/namespaces/bench/tables/small \
      --path /v1/default/namespaces/bench/tables/small --phase-ms 100 --connections "$c" \
      --duration-s "$(awk -v d="$DURATION_S" 'BEGIN { print 2 * d }')" --warmup-s "$WARMUP_S"
  done

  local n
  for n in 1 4 16; do
    commits_vs_s3_ceiling "$n"
  done
  record_server W7 store=sqlite rgw_version="$(radosgw --version | awk '{print $3}')"
}

# W8 (issue 15): W1's loadTable with authentication and authorization on, against the same
# loads on a server without them. Two servers of W1's settings, each on its own data dir
# (one SQLite store cannot have two servers) with the same small table: `auth` (auth on;
# the load generator sends the token of bench-reader, whose only grant is TABLE_READ on the
# namespace bench, so that every load is authorized through a grant, not SERVICE_ADMIN's
# shortcut) and `open` (no auth: it ignores the same Authorization header, so both get
# identical requests). In one run per concurrency, four paths take turns every 100 ms —
# loadTable and /health on each server — so that all four meet the same machine; each for
# as long as one of W1's runs.
workload_W8() {
  local table=/v1/default/namespaces/bench/tables/small
  server_start "$WORK_DIR/W8-open"
  measure W8-setup-open 0 setup-table --namespace bench --table small --snapshots 5
  server_set_aside

  # The root principal is created from this at the auth server's first start; auth.mjs
  # reads it too. Only this workload's subshell and its children see it.
  CAIRN_ROOT_CREDENTIALS="bench-root:$(od -An -tx1 -N16 /dev/urandom | tr -d ' \n')"
  export CAIRN_ROOT_CREDENTIALS
  server_start "$WORK_DIR/W8-auth" --auth on
  local refused
  refused="$(curl -sS -o /dev/null -w '%{http_code}' "$SERVER_URL$table")"
  if [ "$refused" != 401 ]; then
    echo "W8: a loadTable without a token got $refused, not 401: is auth on?" >&2
    return 1
  fi
  # Tokens through the environment (cairn-bench --token-env), never on a command line.
  CAIRN_BENCH_TOKEN="$(node "$BENCH_LIB/auth.mjs" root-token "$SERVER_URL")"
  export CAIRN_BENCH_TOKEN
  measure W8-setup-auth 0 setup-table --namespace bench --table small --snapshots 5 \
    --token-env CAIRN_BENCH_TOKEN
  CAIRN_BENCH_TOKEN="$(node "$BENCH_LIB/auth.mjs" reader-token "$SERVER_URL" bench)"

  local c
  for c in 16 64; do
    measure "W8-c$c" "$WARMUP_S" get --token-env CAIRN_BENCH_TOKEN \
      --path "$table" --path /health --path "$OTHER_URL$table" --path "$OTHER_URL/health" \
      --phase-ms 100 --connections "$c" --warmup-s "$WARMUP_S" \
      --duration-s "$(awk -v d="$DURATION_S" 'BEGIN { print 4 * d }')"
  done
  record_server W8 store=sqlite io_threads="$(($(nproc) < 4 ? $(nproc) : 4))" \
    unauthenticated_status="$refused" open_peak_rss_kib="$(server_peak_rss_kib "$OTHER_PID")" \
    open_cpu_s="$(server_cpu_s "$OTHER_PID")" open_data_bytes="$(du -sb "$OTHER_DATA" | cut -f1)"
}

# W9's managed Lance tables: catalog `bench` (created with managed_versioning = "true"),
# namespace `bench`. The id of a table as a path segment, levels joined by `$` (%24).
W9_TABLE_PATH=/lance/v1/table/bench%24bench%24

# N writers, each committing versions of its own fresh managed table (lance-commits: write
# the staging manifest, then CreateTableVersion), then the durable-commit ceiling with the
# same number of connections: write + fsync a file of the manifest's size, then a one-row
# transaction in a fresh SQLite file.
lance_commits_vs_ceiling() {
  local n="$1" tables=() i
  for ((i = 0; i < n; i++)); do tables+=("w9w${n}t$i"); done
  measure "W9-commits-w$n" "$WARMUP_S" lance-commits --tables "$(IFS=,; echo "${tables[*]}")" \
    --writers "$n" --manifest-bytes "$W9_MANIFEST_BYTES" "${TIMED[@]}"
  local commits
  commits="$(json_field "$RAW_DIR/W9-commits-w$n.json" result.commits)"
  mkdir -p "$WORK_DIR/W9-ceiling-w$n"
  measure "W9-ceiling-w$n" 0 durable-ceiling --dir "$WORK_DIR/W9-ceiling-w$n" \
    --bytes "$W9_MANIFEST_BYTES" --count $((commits > 50 * n ? commits : 50 * n)) \
    --connections "$n" --store "sqlite:$WORK_DIR/W9-ceiling-w$n.db"
}

# W9 (issue 16): Lance managed versioning. CreateTableVersion by 1, 4 and 16 writers, each
# on its own table, against the durable-commit ceiling; then a table with W9_VERSIONS
# recorded versions, each a real LanceDB 0.39 manifest (the test fixture of version 5,
# rewritten as each version), and what a client reads of it — DescribeTable, the same
# with its detailed metadata (version, schema, stats of the latest manifest, cached),
# DescribeTableVersion of the latest, ListTableVersions newest first with limit=1
# (LanceDB 0.39 at every open) — at 1 and 16 connections, each against GET /health at the
# same concurrency.
workload_W9() {
  server_start "$WORK_DIR/W9"
  local n
  for n in 1 4 16; do
    lance_commits_vs_ceiling "$n"
  done
  measure W9-setup 0 lance-setup --tables large --versions "$W9_VERSIONS" \
    --manifest-template "$W9_MANIFEST_TEMPLATE" --connections 8
  local table="${W9_TABLE_PATH}large" body='{"id":["bench","bench","large"]}' c
  for c in 1 16; do
    measure "W9-describe-c$c" "$WARMUP_S" get --path "$table/describe?delimiter=%24" \
      --body "$body" --connections "$c" "${TIMED[@]}"
    measure "W9-detailed-c$c" "$WARMUP_S" get \
      --path "$table/describe?delimiter=%24&load_detailed_metadata=true" \
      --body "$body" --connections "$c" "${TIMED[@]}"
    measure "W9-latest-c$c" "$WARMUP_S" get --path "$table/version/describe?delimiter=%24" \
      --body "$body" --connections "$c" "${TIMED[@]}"
    measure "W9-list-c$c" "$WARMUP_S" get \
      --path "$table/version/list?delimiter=%24&limit=1&descending=true" \
      --body "$body" --connections "$c" "${TIMED[@]}"
    measure "W9-health-c$c" "$WARMUP_S" get --path /health --connections "$c" "${TIMED[@]}"
  done
  record_server W9 store=sqlite versions="$W9_VERSIONS" manifest_bytes="$W9_MANIFEST_BYTES"
}

# W10's table: bench.scan, built by lib/scan_table.mjs (W10_MANIFESTS manifests of
# W10_FILES_PER_MANIFEST data-file entries, manifest i holding partition p = i).
W10_TABLE=(--namespace bench --table scan)
# A cold plan's POST is answered at once (submitted) unless its manifests are under
# scan-plan-async-manifest-bytes: then it plans in the request, so the timeout is generous.
W10_PLAN=("${W10_TABLE[@]}" --timeout-ms 120000)

# The server's bytes read so far through read(2) and its kind (rchar of /proc/PID/io): how
# much of the manifests a plan read again.
server_rchar() {
  awk '/^rchar:/ { print $2 }' "/proc/$SERVER_PID/io"
}

# measure, plus the bytes the server read meanwhile (warm-up included): raw/NAME-io.json.
measure_io() {
  local name="$1" before
  before="$(server_rchar)"
  measure "$@"
  record "$name-io" read_bytes=$(($(server_rchar) - before))
}

# Fails the workload unless every plan of raw/NAME.json succeeded with EXPECTED files.
check_plans() {
  local name="$1" expected="$2" errors files
  errors="$(json_field "$RAW_DIR/$name.json" result.errors)"
  files="$(json_field "$RAW_DIR/$name.json" result.files_per_plan)"
  if [ "$errors" != 0 ] || [ "$files" != "$expected" ]; then
    echo "$name: $errors failed plans, $files file-scan tasks per plan (expected $expected):" >&2
    json_field "$RAW_DIR/$name.json" result.error_samples >&2
    return 1
  fi
}

# W10 (issue 17): server-side scan planning on a table of W10_MANIFESTS manifests of
# W10_FILES_PER_MANIFEST data files (one snapshot, one commit). Cold plans on fresh server
# processes against reading the same manifests raw, inflated and decoded (Node, same
# run); a selective plan (one partition: one manifest) at 1 connection and full plans
# streamed through their plan tasks over 1 and 4 connections, each against GET /health at
# the same concurrency, with the default manifest cache (which holds the whole table).
workload_W10() {
  # Other work on the machine moves these absolute rates: its load, at the start and end.
  local load_start
  load_start="$(cut -d' ' -f1-3 /proc/loadavg)"
  server_start "$WORK_DIR/W10"
  local files=$((W10_MANIFESTS * W10_FILES_PER_MANIFEST))
  log "W10: writing ${W10_MANIFESTS} manifests of ${W10_FILES_PER_MANIFEST} files"
  node "$BENCH_LIB/scan_table.mjs" create --url "$SERVER_URL" --prefix "$CATALOG_PREFIX" \
    "${W10_TABLE[@]}" --manifests "$W10_MANIFESTS" --files-per-manifest "$W10_FILES_PER_MANIFEST" \
    --name W10-setup --out "$RAW_DIR/W10-setup.json"
  local list
  list="$(json_field "$RAW_DIR/W10-setup.json" result.manifest_list)"
  # The ceilings of the cold plan. The files were just written: the page cache holds them,
  # as it does for the cold plans below, so both sides measure decoding, not the disk.
  node "$BENCH_LIB/scan_table.mjs" read --list "$list" --repeat 3 \
    --name W10-read --out "$RAW_DIR/W10-read.json"

  # Cold plans: each on a fresh server process (same data dir), which has parsed nothing;
  # every page fetched over one connection, and the plan deleted after its last page.
  local r
  for ((r = 1; r <= W10_COLD_RUNS; r++)); do
    server_stop
    server_start "$WORK_DIR/W10"
    measure_io "W10-cold-r$r" 0 plan "${W10_PLAN[@]}" --repeat 1 --expect-files "$files" --delete
    check_plans "W10-cold-r$r" "$files"
  done

  # Warm, as far as the manifest cache holds the table: one partition (one manifest, the
  # others skipped by the manifest list's partition summaries), closed loop at 1 connection.
  measure_io W10-selective-c1 "$WARMUP_S" plan "${W10_PLAN[@]}" \
    --filter '{"type":"eq","term":"p","value":7}' --expect-files "$W10_FILES_PER_MANIFEST" \
    --connections 1 "${TIMED[@]}"
  check_plans W10-selective-c1 "$W10_FILES_PER_MANIFEST"
  measure W10-health-c1 "$WARMUP_S" get --path /health --connections 1 "${TIMED[@]}"

  # Full plans streamed through their plan tasks, the pages over 1 and then 4 connections.
  local c
  for c in 1 4; do
    measure_io "W10-full-p$c" 0 plan "${W10_PLAN[@]}" --repeat "$W10_FULL_REPEAT" \
      --page-connections "$c" --expect-files "$files" --delete
    check_plans "W10-full-p$c" "$files"
  done
  measure W10-health-c4 "$WARMUP_S" get --path /health --connections 4 "${TIMED[@]}"
  record_server W10 store=sqlite manifests="$W10_MANIFESTS" \
    files_per_manifest="$W10_FILES_PER_MANIFEST" cold_runs="$W10_COLD_RUNS" \
    full_repeat="$W10_FULL_REPEAT" load_start="$load_start" load_end="$(cut -d' ' -f1-3 /proc/loadavg)"
}
