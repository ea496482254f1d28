# The libFuzzer harnesses of tests/fuzz: build the fuzz preset (clang, ASan+UBSan) and run
# each harness time-boxed from its committed seed corpus. Sourced after common.sh.
#   CAIRN_FUZZ_SECONDS  seconds per harness (default 16: nine harnesses, two at a time, in
#                       the time eight took at 20 s)
#   CAIRN_FUZZ_JOBS     harnesses run at once (default 2)

# One entry per tests/fuzz/<name>.cc; corpus in tests/fuzz/corpus/<name>/, dictionary (if
# any) in tests/fuzz/dict/<name>.dict.
CAIRN_FUZZERS=(
  table_metadata_fuzz
  view_metadata_fuzz
  commit_table_fuzz
  transaction_fuzz
  lance_id_fuzz
  lance_manifest_fuzz
  manifest_avro_fuzz
  url_codec_fuzz
  jwt_fuzz
)

# Runs harness $1 in its work dir $2 for $3 seconds; its output goes to $2/log.
_fuzz_one() {
  local name="$1" dir="$2" seconds="$3" dict_args=()
  if [ -f "$CAIRN_ROOT/tests/fuzz/dict/$name.dict" ]; then
    dict_args=("-dict=$CAIRN_ROOT/tests/fuzz/dict/$name.dict")
  fi
  ASAN_OPTIONS="halt_on_error=1:detect_leaks=1" \
  UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1" \
    "$CAIRN_ROOT/build/fuzz/fuzzers/$name" -max_total_time="$seconds" -rss_limit_mb=2048 \
      -timeout=10 -artifact_prefix="$dir/artifacts/" "${dict_args[@]}" "$dir/corpus" \
      >"$dir/log" 2>&1
}

# Builds the fuzz preset and runs every harness for CAIRN_FUZZ_SECONDS, CAIRN_FUZZ_JOBS
# (default 2: one per core) at a time. The committed corpus is copied to a temporary
# directory first, so the run never changes it. Returns non-zero when a harness fails to
# build or crashes; each crash is reported with the harness, the saved input and the log,
# which are kept (the temporary directory of a clean run is removed).
run_fuzzers() {
  local seconds="${CAIRN_FUZZ_SECONDS:-16}"
  local jobs="${CAIRN_FUZZ_JOBS:-2}"
  build_preset fuzz || return 1
  local work
  work="$(mktemp -d "${TMPDIR:-/tmp}/cairn-fuzz.XXXXXX")" || return 1
  local failed=() name dir input i
  local running=() pids=()
  # Waits for the running batch and records the harnesses that crashed.
  _fuzz_collect() {
    for i in "${!pids[@]}"; do
      name="${running[$i]}"
      dir="$work/$name"
      if wait "${pids[$i]}"; then
        grep -E '^Done [0-9]+ runs' "$dir/log" | sed "s/^/$name: /" >&2 || true
      else
        input="$(find "$dir/artifacts" -type f | head -n 1)"
        log "FAILED: $name crashed; input: ${input:-none saved}; log: $dir/log"
        grep -E 'ERROR: |FUZZ_CHECK failed|runtime error|SUMMARY' "$dir/log" | head -n 5 >&2
        failed+=("$name")
      fi
    done
    running=()
    pids=()
  }
  for name in "${CAIRN_FUZZERS[@]}"; do
    dir="$work/$name"
    mkdir -p "$dir/corpus" "$dir/artifacts"
    cp -R "$CAIRN_ROOT/tests/fuzz/corpus/$name/." "$dir/corpus/"
    log "fuzzing $name for ${seconds}s"
    _fuzz_one "$name" "$dir" "$seconds" &
    pids+=("$!")
    running+=("$name")
    if [ "${#pids[@]}" -ge "$jobs" ]; then _fuzz_collect; fi
  done
  _fuzz_collect
  if [ ${#failed[@]} -ne 0 ]; then
    log "fuzzing FAILED: ${failed[*]} (inputs and logs kept in $work)"
    return 1
  fi
  rm -rf "$work"
}
