# The libFuzzer harnesses of tests/fuzz: build the fuzz preset (clang, ASan+UBSan) and run
# each harness time-boxed from its committed seed corpus. Sourced after common.sh.
#   CAIRN_FUZZ_SECONDS  seconds per harness (default 20)

# One entry per tests/fuzz/<name>.cc; corpus in tests/fuzz/corpus/<name>/, dictionary (if
# any) in tests/fuzz/dict/<name>.dict.
CAIRN_FUZZERS=(
  table_metadata_fuzz
  view_metadata_fuzz
  commit_table_fuzz
  transaction_fuzz
  lance_id_fuzz
  url_codec_fuzz
)

# Builds the fuzz preset and runs every harness for CAIRN_FUZZ_SECONDS. The committed
# corpus is copied to a temporary directory first, so the run never changes it. Returns
# non-zero when a harness fails to build or crashes; each crash is reported with the
# harness, the saved input and the log, which are kept (the temporary directory of a
# clean run is removed).
run_fuzzers() {
  local seconds="${CAIRN_FUZZ_SECONDS:-20}"
  build_preset fuzz || return 1
  local bin="$CAIRN_ROOT/build/fuzz/fuzzers"
  local work
  work="$(mktemp -d "${TMPDIR:-/tmp}/cairn-fuzz.XXXXXX")" || return 1
  local failed=() name dir dict_args input
  for name in "${CAIRN_FUZZERS[@]}"; do
    dir="$work/$name"
    mkdir -p "$dir/corpus" "$dir/artifacts"
    cp -R "$CAIRN_ROOT/tests/fuzz/corpus/$name/." "$dir/corpus/"
    dict_args=()
    if [ -f "$CAIRN_ROOT/tests/fuzz/dict/$name.dict" ]; then
      dict_args=("-dict=$CAIRN_ROOT/tests/fuzz/dict/$name.dict")
    fi
    log "fuzzing $name for ${seconds}s"
    if ASAN_OPTIONS="halt_on_error=1:detect_leaks=1" \
       UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1" \
       "$bin/$name" -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=10 \
         -artifact_prefix="$dir/artifacts/" "${dict_args[@]}" "$dir/corpus" \
         >"$dir/log" 2>&1; then
      grep -E '^Done [0-9]+ runs' "$dir/log" >&2 || true
    else
      input="$(find "$dir/artifacts" -type f | head -n 1)"
      log "FAILED: $name crashed; input: ${input:-none saved}; log: $dir/log"
      grep -E 'ERROR: |FUZZ_CHECK failed|runtime error|SUMMARY' "$dir/log" | head -n 5 >&2
      failed+=("$name")
    fi
  done
  if [ ${#failed[@]} -ne 0 ]; then
    log "fuzzing FAILED: ${failed[*]} (inputs and logs kept in $work)"
    return 1
  fi
  rm -rf "$work"
}
