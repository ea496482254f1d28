# A throw-away S3 server for the tests: Ceph's RADOS Gateway (RGW, Debian's Ceph 16.2) over a
# one-node Ceph cluster (one monitor, one memstore OSD, authentication off between the
# daemons) in its own temp dir, monitor and RGW on free loopback ports. S3 requests are still
# SigV4-signed and checked, and STS AssumeRole with session policies is enforced, which the npm
# fakes do not do (see /work/shared/reference/ceph-rgw.md).
# Sourced, not executed (needs log() from common.sh); install CAIRN_RGW_PACKAGES first
# (ensure_packages "${CAIRN_RGW_PACKAGES[@]}").
#
#   rgw_start             starts it: cluster, RGW, an S3 user with random keys and an STS role
#                         that user may assume; exports CAIRN_TEST_S3_* (see below). Ports
#                         taken meanwhile and Ceph's race on the cluster fsid at the OSD's
#                         start are retried (a bounded number of times, then a clear error).
#   rgw_stop              stops the daemons by their pid files, waits until they have exited
#                         and removes the temp dir (idempotent)
#   rgw_start_with_trap   rgw_start, plus a trap on EXIT, INT and TERM that runs rgw_stop and
#                         then whatever trap was set before (see below)
#
# Exported for the tests (tests/node/lib/s3.mjs):
#   CAIRN_TEST_S3_ENDPOINT    http://127.0.0.1:PORT (path-style addressing; STS on the same URL)
#   CAIRN_TEST_S3_REGION      us-east-1
#   CAIRN_TEST_S3_ACCESS_KEY  the S3 user's access key (random on each start)
#   CAIRN_TEST_S3_SECRET_KEY  its secret key
#   CAIRN_TEST_S3_ROLE_ARN    arn:aws:iam:::role/cairn-test-role: the user may assume it; its
#                             role policy allows s3:* on everything (narrow it with a session
#                             policy)
#   CAIRN_TEST_S3_DIR         the cluster's scratch dir (ceph.conf, logs, pid files)
#   CAIRN_TEST_S3_LOG         the RGW log file
#
# Cost (2 cores): about 2.5 s to start (most of it RGW creating its pools), 0.6 s to stop,
# about 120 MB of resident memory (monitor 31 MB, OSD 43 MB, RGW 41 MB). The OSD keeps objects
# in RAM (memstore): restarting it loses them, which is fine for throw-away tests. It holds at
# most CAIRN_RGW_MEMSTORE_BYTES (default 1 GiB; bench W7 raises it), and stops accepting
# writes when nearly full. Bucket names must be 3-63 characters.
#
# Root (CI) needs nothing special: the daemons run as the invoking user unless given --setuser.
#
# Traps: postgres_start_with_trap (postgres.sh) replaces the EXIT/INT/TERM traps, so call
# rgw_start_with_trap AFTER it: rgw's traps run rgw_stop and then the trap found in place
# (postgres_stop), so one cleanup stops both servers whichever way the script ends.
#
# To run the S3 harness test by hand (from the repository root, in bash):
#   source scripts/lib/common.sh; source scripts/lib/rgw.sh
#   ensure_packages "${CAIRN_RGW_PACKAGES[@]}"
#   rgw_start_with_trap && (cd tests/node && node --test s3_server.test.mjs)
# (in an interactive shell, call rgw_stop when done).

# Debian packages the server needs (monitor, OSD, gateway, and the ceph/radosgw-admin tools).
CAIRN_RGW_PACKAGES=(ceph-mon ceph-osd radosgw ceph-common)

CAIRN_RGW_ROLE_NAME=cairn-test-role
CAIRN_RGW_USER=cairn-test

_CAIRN_RGW_TMP=""

# True when something accepts TCP connections on 127.0.0.1:$1.
_rgw_port_in_use() {
  (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

# A port that looked free just now (the callers retry when a daemon cannot bind it).
_rgw_pick_port() {
  local port i
  for i in $(seq 1 50); do
    port=$((20000 + RANDOM % 30000))
    if ! _rgw_port_in_use "$port"; then
      printf '%s\n' "$port"
      return 0
    fi
  done
  return 1
}

# $1 random bytes as lowercase hex.
_rgw_random_hex() {
  od -An -tx1 -N"$1" /dev/urandom | tr -d ' \n'
}

# True while process $1 runs (an exited one waiting to be reaped, a zombie, does not count:
# the daemons fork, so their parent is not this shell and they are reaped whenever).
_rgw_pid_running() {
  local stat
  stat="$(cat "/proc/$1/stat" 2>/dev/null)" || return 1
  stat="${stat##*) }"
  [ "${stat:0:1}" != Z ]
}

# True while the daemon whose pid file is $1 runs (the pid is checked against /proc so that a
# reused pid of another program does not count).
_rgw_daemon_alive() {
  local pid
  pid="$(cat "$1" 2>/dev/null)" || return 1
  [ -n "$pid" ] && _rgw_pid_running "$pid" || return 1
  grep -q -a -e ceph -e radosgw "/proc/$pid/cmdline" 2>/dev/null
}

# The cluster config. Authentication is off between the daemons (loopback only); S3 clients
# still sign their requests. $1 dir, $2 fsid, $3 monitor port.
_rgw_write_conf() {
  local c="$1" fsid="$2" mon_port="$3"
  cat >"$c/ceph.conf" <<EOF
[global]
fsid = $fsid
# An explicit msgr v1 address: on a port other than 6789, clients would otherwise try msgr v2
# and fail authentication (-13) even with authentication off.
mon host = [v1:127.0.0.1:$mon_port]
mon initial members = a
auth cluster required = none
auth service required = none
auth client required = none
osd pool default size = 1
osd pool default min size = 1
mon allow pool size one = true
mon warn on pool no redundancy = false
osd objectstore = memstore
memstore device bytes = ${CAIRN_RGW_MEMSTORE_BYTES:-1073741824}
osd data = $c/osd\$id
mon data = $c/mon
run dir = $c/run
pid file = $c/run/\$name.pid
log file = $c/log/\$name.log
mon cluster log file = $c/log/cluster.log
admin socket = $c/run/\$name.asok
crash dir = $c/crash
keyring = $c/keyring
osd crush chooseleaf type = 0
mon max pg per osd = 2000
osd pool default pg num = 8
osd pool default pgp num = 8
ms bind ipv4 = true
ms bind ipv6 = false
# The monitor commits a map change every second by default: RGW's first start creates its
# pools one after another, each waiting for a commit (about 10 s at 1 s, 2 s at 0.1 s).
paxos propose interval = 0.1
[mon]
# A taken port fails at once (the default is 3 tries, 5 s apart): rgw_start picks another.
ms bind retry count = 1
[client.rgw]
rgw data = $c/rgw
rgw sts key = $(_rgw_random_hex 8)
rgw s3 auth use sts = true
# Local users first. Each engine but the last answers for itself (a refusal becomes the
# answer so far); the last listed is only a fallback that keeps the answer so far. With the
# default order (sts, external, local), a wrong secret therefore got the STS engine's
# AccessDenied instead of the local engine's SignatureDoesNotMatch, which AWS answers. No
# "external": the last engine listed must be one that is enabled.
rgw s3 auth order = local, sts
EOF
}

# Creates and starts the monitor on a free port (new port, new monmap, after a bind failure).
# $1 dir, $2 fsid.
_rgw_start_mon() {
  local c="$1" fsid="$2" port
  for _ in 1 2 3 4 5; do
    port="$(_rgw_pick_port)" || { echo "no free TCP port found for the Ceph monitor" >&2; return 1; }
    rm -rf "$c/mon" "$c/monmap" "$c/log/mon.a.log" "$c/run/mon.a.pid"
    _rgw_write_conf "$c" "$fsid" "$port"
    if ! monmaptool --create --addv a "[v1:127.0.0.1:$port]" --fsid "$fsid" "$c/monmap" \
      >"$c/log/setup.log" 2>&1 ||
      ! ceph-mon --mkfs -i a --monmap "$c/monmap" -c "$c/ceph.conf" >>"$c/log/setup.log" 2>&1; then
      echo "could not create the Ceph monitor:" >&2
      cat "$c/log/setup.log" >&2
      return 1
    fi
    # ceph-mon forks once it has bound its port; a bind failure ends it with an error.
    if ceph-mon -i a -c "$c/ceph.conf" >>"$c/log/setup.log" 2>&1 && sleep 0.2 &&
      _rgw_daemon_alive "$c/run/mon.a.pid"; then
      printf '%s\n' "$port"
      return 0
    fi
    if ! grep -q -i "address already in use\|unable to bind" "$c/log/setup.log" "$c/log/mon.a.log" 2>/dev/null; then
      break
    fi
    log "Ceph monitor could not bind port $port, trying another one"
  done
  echo "the Ceph monitor did not start:" >&2
  tail -n 30 "$c/log/setup.log" "$c/log/mon.a.log" >&2 2>/dev/null
  return 1
}

# How many commands the monitor has refused for carrying the zero fsid. Ceph 16's clients (the
# ceph tool, an OSD) can send their first command before they have the monitor map, hence the
# cluster's fsid: the monitor logs "handle_command on fsid 00000000-... != <fsid>" and answers
# EPERM, and the client fails ("problem getting command descriptions"; an OSD logs "wrong
# fsid" and exits, but may exit before that line reaches its log). A race of timing: on 2
# loaded cores an OSD loses it several times in a row. $1 dir.
_rgw_mon_fsid_refusals() {
  local count
  count="$(grep -c "handle_command on fsid 00000000-0000-0000-0000-000000000000" \
    "$1/log/mon.a.log" 2>/dev/null)"
  printf '%s\n' "${count:-0}"
}

# True when the monitor has refused a zero-fsid command since it had refused $2. It writes its
# log after it has answered, so this waits up to a second for the line. $1 dir.
_rgw_mon_refused_since() {
  local i
  for i in $(seq 1 20); do
    [ "$(_rgw_mon_fsid_refusals "$1")" -gt "$2" ] && return 0
    sleep 0.05
  done
  return 1
}

# How often a command that loses that race is run (each try costs a fraction of a second).
CAIRN_RGW_FSID_TRIES=10

# Runs the command "$@" (its output passed on) until it succeeds, again each time it failed
# because the monitor refused it for the zero fsid, at most CAIRN_RGW_FSID_TRIES times.
# Returns 0, 1 when it failed otherwise, 2 when the monitor refused every try. $1 dir.
_rgw_run_past_fsid_race() {
  local c="$1" refusals
  shift
  for _ in $(seq 1 "$CAIRN_RGW_FSID_TRIES"); do
    refusals="$(_rgw_mon_fsid_refusals "$c")"
    "$@" && return 0
    _rgw_mon_refused_since "$c" "$refusals" || return 1
  done
  return 2
}

# What to add to a failure message when _rgw_run_past_fsid_race returned $1.
_rgw_fsid_race_note() {
  [ "$1" != 2 ] ||
    printf ' (refused %s times in a row: each time it asked the monitor before it knew the cluster fsid, a race that load makes likelier)' \
      "$CAIRN_RGW_FSID_TRIES"
}

# Registers, creates and starts OSD 0 (memstore: nothing on disk but its small data dir). The
# OSD's uuid must be the one registered, or it is refused at boot. `ceph osd create` answers
# the same id again for the same uuid, so repeating it is harmless.
_rgw_start_osd() {
  local c="$1" id uuid result=0
  uuid="$(cat /proc/sys/kernel/random/uuid)"
  id="$(_rgw_run_past_fsid_race "$c" timeout 60 ceph -c "$c/ceph.conf" --connect-timeout 30 \
    osd create "$uuid" 2>>"$c/log/setup.log")" || result=$?
  if [ "$result" != 0 ]; then
    echo "could not register the Ceph OSD$(_rgw_fsid_race_note "$result"):" >&2
    tail -n 30 "$c/log/setup.log" >&2
    return 1
  fi
  if [ "$id" != 0 ]; then
    echo "unexpected OSD id '$id' (a fresh cluster gives 0)" >&2
    return 1
  fi
  mkdir -p "$c/osd0"
  if ! ceph-osd -i 0 --mkfs --osd-uuid "$uuid" -c "$c/ceph.conf" >>"$c/log/setup.log" 2>&1; then
    echo "could not create the Ceph OSD:" >&2
    tail -n 30 "$c/log/setup.log" >&2
    return 1
  fi
  # ceph-osd forks once it has booted; often it then loses the fsid race and exits (on a
  # loaded machine a third of the starts lose it at least once, some five times in a row):
  # started again, quietly.
  _rgw_run_past_fsid_race "$c" ceph-osd -i 0 -c "$c/ceph.conf" >>"$c/log/setup.log" 2>&1 ||
    result=$?
  [ "$result" != 0 ] || return 0
  echo "the Ceph OSD did not start$(_rgw_fsid_race_note "$result"):" >&2
  tail -n 30 "$c/log/setup.log" "$c/log/osd.0.log" >&2 2>/dev/null
  return 1
}

# True when an HTTP server answers GET / on 127.0.0.1:$1 (any status line will do).
_rgw_http_answers() {
  local line
  # shellcheck disable=SC2016  # $1 is the inner shell's argument
  line="$(timeout 5 bash -c 'exec 3<>"/dev/tcp/127.0.0.1/$1" &&
    printf "GET / HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n" >&3 && head -n 1 <&3' _ "$1" 2>/dev/null)"
  [[ "$line" == HTTP/* ]]
}

# Starts RGW on a free port and waits until it answers HTTP; prints the port. Its first start
# creates its pools, which takes most of the start-up time.
_rgw_start_gateway() {
  local c="$1" port i pid bind_failed
  for _ in 1 2 3 4 5; do
    port="$(_rgw_pick_port)" || { echo "no free TCP port found for RGW" >&2; return 1; }
    rm -f "$c/log/client.rgw.log" "$c/run/client.rgw.pid"
    bind_failed=0
    if radosgw -c "$c/ceph.conf" -n client.rgw --rgw-frontends="beast endpoint=127.0.0.1:$port" \
      >>"$c/log/setup.log" 2>&1; then
      for i in $(seq 1 600); do
        if _rgw_http_answers "$port"; then
          printf '%s\n' "$port"
          return 0
        fi
        # A gateway that could not bind its port may take its 120 s shutdown alarm to exit
        # during its first start: end it now. (Its watches on RGW's control objects then
        # linger until they time out, which slows radosgw-admin by about 25 s, once.)
        if grep -q "failed to bind address" "$c/log/client.rgw.log" 2>/dev/null; then
          bind_failed=1
          pid="$(cat "$c/run/client.rgw.pid" 2>/dev/null || true)"
          [ -z "$pid" ] || ! _rgw_daemon_alive "$c/run/client.rgw.pid" || kill -KILL "$pid"
          while [ -n "$pid" ] && _rgw_pid_running "$pid"; do sleep 0.05; done
          break
        fi
        # The pid file appears once the daemon has forked; until then keep waiting.
        if [ -f "$c/run/client.rgw.pid" ] && ! _rgw_daemon_alive "$c/run/client.rgw.pid"; then
          break
        fi
        sleep 0.1
      done
    fi
    [ "$bind_failed" = 1 ] || break
    log "RGW could not bind port $port, trying another one"
  done
  echo "RGW did not start (or did not answer on 127.0.0.1:$port within 60 s):" >&2
  tail -n 30 "$c/log/setup.log" "$c/log/client.rgw.log" >&2 2>/dev/null
  return 1
}

# Creates the S3 user (random keys, allowed to manage roles) and the STS role it may assume.
# $1 dir, $2 access key, $3 secret key.
_rgw_create_user_and_role() {
  local c="$1" access="$2" secret="$3" trust policy
  # As client.admin, not client.rgw: the gateway holds client.rgw's admin socket.
  local admin=(timeout 60 radosgw-admin -c "$c/ceph.conf")
  trust='{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"AWS":["arn:aws:iam:::user/'"$CAIRN_RGW_USER"'"]},"Action":["sts:AssumeRole"]}]}'
  policy='{"Version":"2012-10-17","Statement":{"Effect":"Allow","Action":["s3:*"],"Resource":"arn:aws:s3:::*"}}'
  if ! {
    "${admin[@]}" user create --uid="$CAIRN_RGW_USER" --display-name="$CAIRN_RGW_USER" \
      --access-key="$access" --secret-key="$secret" &&
      "${admin[@]}" caps add --uid="$CAIRN_RGW_USER" --caps="roles=*" &&
      "${admin[@]}" role create --role-name="$CAIRN_RGW_ROLE_NAME" --path=/ \
        --assume-role-policy-doc="$trust" &&
      "${admin[@]}" role-policy put --role-name="$CAIRN_RGW_ROLE_NAME" --policy-name=all \
        --policy-doc="$policy"
  } >"$c/log/admin.log" 2>&1; then
    echo "could not create the S3 user and role:" >&2
    tail -n 30 "$c/log/admin.log" >&2
    return 1
  fi
}

rgw_start() {
  local tool c
  for tool in monmaptool ceph-mon ceph-osd ceph radosgw radosgw-admin; do
    if ! command -v "$tool" >/dev/null; then
      echo "$tool not found: install the Debian packages ${CAIRN_RGW_PACKAGES[*]}" >&2
      return 1
    fi
  done
  if ! [[ "${CAIRN_RGW_MEMSTORE_BYTES:-1073741824}" =~ ^[1-9][0-9]{7,12}$ ]]; then
    echo "CAIRN_RGW_MEMSTORE_BYTES must be a number of bytes (at least 10 MB)" >&2
    return 1
  fi
  rgw_stop
  # Admin sockets are unix sockets (at most 107 bytes of path): fall back to /tmp when
  # $TMPDIR is deep.
  c="${TMPDIR:-/tmp}"
  [ ${#c} -le 40 ] || c=/tmp
  c="$(mktemp -d "$c/cairn-rgw.XXXXXX")" || return 1
  _CAIRN_RGW_TMP="$c"
  # On failure the log tails are already on stderr: stop whatever did start.
  _rgw_start_in "$c" || {
    rgw_stop
    return 1
  }
}

# rgw_start's work in the fresh dir $1.
_rgw_start_in() {
  local c="$1" fsid mon_port port access secret
  mkdir -p "$c/run" "$c/log" "$c/crash" "$c/rgw" || return 1
  fsid="$(cat /proc/sys/kernel/random/uuid)"

  mon_port="$(_rgw_start_mon "$c" "$fsid")" || return 1
  _rgw_start_osd "$c" || return 1
  port="$(_rgw_start_gateway "$c")" || return 1

  # S3-looking keys: 20 upper-case characters, 40 characters of secret.
  access="CAIRN$(_rgw_random_hex 8 | tr a-f A-F)"
  access="${access:0:20}"
  secret="$(_rgw_random_hex 20)"
  _rgw_create_user_and_role "$c" "$access" "$secret" || return 1

  export CAIRN_TEST_S3_ENDPOINT="http://127.0.0.1:$port"
  export CAIRN_TEST_S3_REGION=us-east-1
  export CAIRN_TEST_S3_ACCESS_KEY="$access"
  export CAIRN_TEST_S3_SECRET_KEY="$secret"
  export CAIRN_TEST_S3_ROLE_ARN="arn:aws:iam:::role/$CAIRN_RGW_ROLE_NAME"
  export CAIRN_TEST_S3_DIR="$c"
  export CAIRN_TEST_S3_LOG="$c/log/client.rgw.log"
  log "Ceph RGW $(radosgw --version | awk '{print $3}') on 127.0.0.1:$port (monitor on port $mon_port, dir $c)"
}

# Sends SIGTERM to the daemons whose names follow $1 (the cluster dir) and waits until they
# have exited (zombies count as exited); after 10 s, SIGKILL, and 10 s later give up waiting.
# The daemons remove their pid files as they exit, so the pids are read before waiting.
_rgw_stop_daemons() {
  local c="$1" name pidfile pid i alive
  shift
  local pids=()
  for name in "$@"; do
    pidfile="$c/run/$name.pid"
    if _rgw_daemon_alive "$pidfile"; then
      pid="$(cat "$pidfile")"
      pids+=("$pid")
      kill -TERM "$pid" 2>/dev/null || true
    fi
  done
  [ ${#pids[@]} -gt 0 ] || return 0
  for i in $(seq 1 400); do
    alive=0
    for pid in "${pids[@]}"; do
      if _rgw_pid_running "$pid"; then alive=1; fi
    done
    [ "$alive" = 0 ] && return 0
    [ "$i" = 200 ] && kill -KILL "${pids[@]}" 2>/dev/null
    sleep 0.05
  done
}

rgw_stop() {
  local c="$_CAIRN_RGW_TMP"
  [ -n "$c" ] || return 0
  # One at a time, clients first (about 0.5 s in all): a stopping RGW waits for the OSD (a
  # SIGTERM to both at once leaves RGW hanging until its own 120 s alarm), and a stopping OSD
  # waits up to 5 s for the monitor to acknowledge it.
  _rgw_stop_daemons "$c" client.rgw
  _rgw_stop_daemons "$c" osd.0
  _rgw_stop_daemons "$c" mon.a
  rm -rf "$c"
  _CAIRN_RGW_TMP=""
  unset CAIRN_TEST_S3_ENDPOINT CAIRN_TEST_S3_REGION CAIRN_TEST_S3_ACCESS_KEY \
    CAIRN_TEST_S3_SECRET_KEY CAIRN_TEST_S3_ROLE_ARN CAIRN_TEST_S3_DIR CAIRN_TEST_S3_LOG
}

# The command of the trap currently set for signal $1 (empty when none).
_rgw_current_trap() {
  local current
  current="$(trap -p "$1")"
  [ -n "$current" ] || return 0
  eval "set -- $current"
  printf '%s\n' "$3"
}

# Starts the throw-away server and makes sure it is stopped however the script ends. The traps
# run rgw_stop first, then the trap that was in place (e.g. postgres_start_with_trap's), so
# both servers are cleaned up by one combined trap. A signal trap without a previous one
# re-raises the signal once rgw is stopped, as postgres.sh does.
rgw_start_with_trap() {
  local sig previous
  previous="$(_rgw_current_trap EXIT)"
  # shellcheck disable=SC2064  # expand the previous command now
  trap "rgw_stop${previous:+; $previous}" EXIT
  for sig in INT TERM; do
    previous="$(_rgw_current_trap "$sig")"
    [ -n "$previous" ] || previous="trap - $sig; kill -$sig \$\$"
    # shellcheck disable=SC2064
    trap "rgw_stop; $previous" "$sig"
  done
  rgw_start
}
