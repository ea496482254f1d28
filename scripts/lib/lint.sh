# The style checks of scripts/lint: clang-format and clang-tidy, both clang 14 (the
# version Debian 12 ships). Sourced after common.sh. Neither changes a file.

# Debian packages the checks need (clang-tidy-14 brings run-clang-tidy-14 too).
CAIRN_LINT_PACKAGES=(clang-format-14 clang-tidy-14)

# The C++ files under version control, NUL-separated. Nothing is excluded: the benchmark
# load generator and the fuzz harnesses follow the same style as the server.
lint_cxx_files() {
  git -C "$CAIRN_ROOT" ls-files -z -- '*.h' '*.cc'
}

# Fails when clang-format-14 (.clang-format) would change any tracked .h/.cc file; lists
# each such file with its number of findings. Fix with:
#   git ls-files '*.h' '*.cc' | xargs clang-format-14 -i
lint_format() {
  local out
  out="$(cd "$CAIRN_ROOT" && lint_cxx_files |
         xargs -0 clang-format-14 --dry-run -Werror 2>&1)" && return 0
  local files
  files="$(grep -oE '^[^ :]+:[0-9]+:[0-9]+: error:' <<<"$out" | cut -d: -f1 | sort | uniq -c)"
  if [ -z "$files" ]; then  # clang-format itself failed (a bad .clang-format, say)
    printf '%s\n' "$out" >&2
    return 1
  fi
  log "clang-format: $(wc -l <<<"$files") files would change (count of findings, file):"
  printf '%s\n' "$files" >&2
  return 1
}

# Prints the compile database $1 without CMake's precompiled-header units and flags.
_tidy_database_without_pch() {
  python3 - "$1" <<'PY'
import json, shlex, sys
PCH_PAIRS = {"-include-pch", "-include"}  # each spelled -Xclang <flag> -Xclang <file>
out = []
for entry in json.load(open(sys.argv[1])):
    if entry["file"].endswith("cmake_pch.hxx.cxx"):
        continue
    args = shlex.split(entry["command"])
    kept, i = [], 0
    while i < len(args):
        if (args[i] == "-Xclang" and i + 3 < len(args) and args[i + 1] in PCH_PAIRS
                and args[i + 2] == "-Xclang" and "cmake_pch" in args[i + 3]):
            i += 4
            continue
        if args[i] in ("-Winvalid-pch", "-fpch-instantiate-templates"):
            i += 1
            continue
        kept.append(args[i])
        i += 1
    entry["command"] = shlex.join(kept)
    out.append(entry)
json.dump(out, sys.stdout, indent=1)
PY
}

# Runs clang-tidy-14 (.clang-tidy) on every translation unit of the build in $1 (default
# build/dev; its compile_commands.json must exist), CAIRN_LINT_JOBS (2) at a time.
# Prints the findings (a header's finding once, however many units include it), then a
# count per check and per file; fails on any finding or when clang-tidy itself fails.
lint_tidy() {
  local build="${1:-$CAIRN_ROOT/build/dev}"
  local jobs="${CAIRN_LINT_JOBS:-2}"
  local db="$build/compile_commands.json"
  [ -f "$db" ] || { log "lint_tidy: no $db (configure the dev preset first)"; return 1; }
  local work
  work="$(mktemp -d "${TMPDIR:-/tmp}/cairn-tidy.XXXXXX")" || return 1
  # clang-tidy reads a copy of the database without the precompiled headers
  # (cmake/CairnPch.cmake): each unit is analysed exactly as written, so one that compiles
  # only thanks to the PCH fails here, and no PCH needs to be built first.
  mkdir "$work/db"
  _tidy_database_without_pch "$db" >"$work/db/compile_commands.json" || return 1
  # One output file per unit, so that parallel runs never interleave their lines.
  python3 -c 'import json, sys
for f in sorted({e["file"] for e in json.load(open(sys.argv[1]))}): print(f, end="\0")' \
      "$work/db/compile_commands.json" |
    xargs -0 -n 1 -P "$jobs" sh -c '
      out="$1/$(printf %s "$2" | tr / _)"
      clang-tidy-14 --quiet -p "$0" "$2" >"$out.out" 2>"$out.err" || echo "$2" >"$out.failed"
    ' "$work/db" "$work"
  local failed=0
  if compgen -G "$work/*.failed" >/dev/null; then
    # clang-tidy exits non-zero on compiler errors in a unit, not on mere warnings.
    log "clang-tidy failed on: $(cat "$work"/*.failed | tr '\n' ' ')"
    cat "$work"/*.err >&2
    failed=1
  fi
  # "path:line:col: warning: text [check]", headers seen through the layer include roots
  # (build/<preset>/layers/<library>/<dir>/) mapped back to src/<dir>/. Only our files
  # count: an analyzer path that ends inside a Boost or libstdc++ header is dropped.
  cat "$work"/*.out |
    { grep -E '^/[^ ]+:[0-9]+:[0-9]+: (warning|error): .* \[[^]]+\]$' || true; } |
    sed -E "s#^$CAIRN_ROOT/##; s#^build/[^/]+/layers/[^/]+/#src/#" |
    { grep -E '^(src|tests|bench)/' || true; } | sort -u >"$work/findings"
  local count
  count="$(wc -l <"$work/findings")"
  if [ "$count" -eq 0 ] && [ "$failed" -eq 0 ]; then
    rm -rf "$work"
    return 0
  fi
  cat "$work/findings" >&2
  log "clang-tidy: $count findings; per check:"
  sed -E 's/.*\[([^]]+)\]$/\1/' "$work/findings" | sort | uniq -c | sort -rn >&2
  log "per file:"
  cut -d: -f1 "$work/findings" | sort | uniq -c | sort -rn >&2
  rm -rf "$work"
  return 1
}
