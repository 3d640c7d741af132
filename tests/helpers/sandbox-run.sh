#!/bin/sh
# Run a command with the whole filesystem read-only except one directory (a test's temp dir).
# usage: sandbox-run.sh RW_DIR [--cwd DIR] [--timeout SECS] [--ready] -- COMMAND [ARG...]
#
# Same technique as /work/shared/tools/sandbox-run: a private mount namespace (unshare -m), a
# read-only rbind of / with every submount remounted read-only (and then verified: setup aborts
# if any visible mount is still writable), a private /dev holding only null, zero, full, random,
# urandom and tty, a private throwaway tmpfs on /dev/shm (callers may point TMPDIR there), RW_DIR
# bound writable, then chroot. The environment passes through unchanged. /tmp itself stays
# read-only: masking it with a tmpfs would hide the very paths a test must prove are protected.
#
# Exit status: the command's own; 124 when --timeout expires; 125 when no sandbox can be made
# (message on stderr starting "sandbox-run:"). With --ready, "ok" is written to fd 3 once the
# sandbox is in place, so a caller can tell a setup failure from a command that exits 125.
# Needs root and mount namespaces. POSIX sh (runs under dash).
set -eu

# Every "cannot make a sandbox" path ends here, so callers see one status.
fail() { echo "sandbox-run: $*" >&2; exit 125; }

[ $# -ge 1 ] || fail "usage: sandbox-run.sh RW_DIR [--cwd DIR] [--timeout SECS] [--ready] -- COMMAND [ARG...]"
rw=$(cd "$1" 2>/dev/null && pwd -P) || fail "not a directory: $1"
shift
[ "$rw" != / ] || fail "refusing to make / writable"
cwd=$rw timeout= ready=
while [ $# -gt 0 ]; do
  case $1 in
    --cwd) [ $# -ge 2 ] || fail "--cwd needs a value"; cwd=$2; shift 2 ;;
    --timeout) [ $# -ge 2 ] || fail "--timeout needs a value"; timeout=$2; shift 2 ;;
    --ready) ready=1; shift ;;
    --) shift; break ;;
    *) break ;;
  esac
done
[ $# -gt 0 ] || fail "no command given"
case $timeout in *[!0-9.]*) fail "bad --timeout: $timeout" ;; esac
[ "$(id -u)" = 0 ] || fail "needs root (running as uid $(id -u))"
for t in unshare mount umount chroot awk sort ${timeout:+timeout}; do
  command -v "$t" >/dev/null 2>&1 || fail "missing tool: $t"
done
# timeout(1) puts the whole sandboxed process group in its own group and kills it on expiry.
wrap=${timeout:+timeout -k 5 $timeout}

# The mount root only ever becomes a mount point inside the private namespace; prefer a tmpfs.
root=$(mktemp -d /dev/shm/sbx.XXXXXX 2>/dev/null || mktemp -d) || fail "cannot create a mount root"
rc=0
$wrap unshare -m --propagation private sh -c '
  set -eu
  root=$1 rw=$2 cwd=$3 ready=$4; shift 4
  trap "echo \"sandbox-run: setup failed\" >&2; exit 125" EXIT
  mount --rbind / "$root"
  mount -o remount,bind,ro "$root"
  # every submount read-only, deepest first (or detached when that is impossible)
  awk -v r="$root" '"'"'$5 != r && index($5, r "/") == 1 { print $5 }'"'"' /proc/self/mountinfo | sort -r |
    while read -r m; do mount -o remount,bind,ro "$m" 2>/dev/null || umount -l "$m" 2>/dev/null || true; done
  mount -t tmpfs -o mode=755,nosuid dev "$root/dev"
  for n in null zero full random urandom tty; do : > "$root/dev/$n"; mount --bind "/dev/$n" "$root/dev/$n"; done
  mkdir "$root/dev/shm" "$root/dev/pts" && mount -t tmpfs -o nosuid,nodev shm "$root/dev/shm"
  ln -s /proc/self/fd "$root/dev/fd"
  mount -o remount,ro,bind "$root/dev"
  # verify: no visible mount under the root is writable, except our own /dev/* (devices, shm).
  # A mount is hidden (unreachable) when another mount sits on the same mount point on top of it.
  bad=$(awk -v r="$root" '"'"'
    { id[NR] = $1; par[NR] = $2; mp[NR] = $5; opt[NR] = $6; over[$2 " " $5] = 1 }
    END { for (i = 1; i <= NR; i++)
            if ((mp[i] == r || index(mp[i], r "/") == 1) && index(mp[i], r "/dev/") != 1 &&
                opt[i] !~ /^ro(,|$)/ && !((id[i] " " mp[i]) in over)) print mp[i] }'"'"' /proc/self/mountinfo)
  [ -z "$bad" ] || { echo "sandbox-run: still writable: $bad" >&2; exit 125; }
  mount --bind "$rw" "$root$rw"
  mount -o remount,bind,rw "$root$rw"
  cd "$root"
  exec chroot "$root" /bin/sh -c "cd \"\$0\" || exit 125; [ -z \"\$1\" ] || { echo ok >&3 && exec 3>&-; }; shift; exec \"\$@\"" \
    "$cwd" "$ready" "$@"
' sandbox "$root" "$rw" "$cwd" "$ready" "$@" || rc=$?
rmdir "$root" 2>/dev/null || true
exit $rc
