#!/bin/sh
# agent-guard launcher: the `agent-guard` command (docs/distribution.md, "The launcher").
# scripts/build.mjs writes it to dist/agent-guard with the version put in; npm links it as the bin,
# install.sh installs it as <prefix>/bin/agent-guard with its node and bundle put in.
# POSIX sh, run by dash, bash, zsh and busybox sh.
#   Warm path: `restore list` and `status` (each also with --json) inside a guarded session are
#   asked of the session's warm checker (AGENT_GUARD_CHECKER, docs/shims.md "Warm path"), with
#   builtins and at most one `cat` of a large answer: no Node start.
#   Cold path, for everything else and whenever the checker cannot answer in full: exec Node on
#   the bundle next to this file (through symlinks), as the bin did before.
[ -z "${ZSH_VERSION-}" ] || emulate sh
ag_version='@AG_VERSION@'
# install.sh puts its node and bundle here (these two lines exactly); empty: found at run time.
ag_node=''
ag_bundle=''

ag_warm=''
case $# in
  1) [ "$1" != status ] || ag_warm=1 ;;
  2) if { [ "$1" = restore ] && [ "$2" = list ]; } || { [ "$1" = status ] && [ "$2" = --json ]; }; then ag_warm=1; fi ;;
  3) if [ "$1" = restore ] && [ "$2" = list ] && [ "$3" = --json ]; then ag_warm=1; fi ;;
esac

# Warm path: the same checks and the same slot protocol as the shims (shims/shim.sh, section 5).
# The request is `<pid> cli <argc> <name> <version>`; the server reads our argv, environment and
# cwd from /proc. Frames are kept until the last one (`dexit N`) has come: an answer that is not
# complete prints nothing and goes cold. `f` stands for stdout written to the slot's answer file,
# which is opened before the slot is freed (the server removes the file then).
if [ -n "$ag_warm" ]; then
  ag_cd=${AGENT_GUARD_CHECKER-}
  ag_self=${0##*/}
  case $ag_cd in /?*/?*) ;; *) ag_cd='' ;; esac
  case $ag_self in [A-Za-z0-9]*) ;; *) ag_cd='' ;; esac
  case $ag_self in *[!A-Za-z0-9._+-]*) ag_cd='' ;; esac
  ag_exit=''
  if [ -n "$ag_cd" ] && [ -O "${ag_cd%/*}" ] && ! [ -h "${ag_cd%/*}" ] && [ -O "$ag_cd" ] && ! [ -h "$ag_cd" ] && [ -p "$ag_cd/s0.q" ]; then
    ag_slot='' ag_i=0
    set -C
    while [ -p "$ag_cd/s$ag_i.q" ]; do
      if { printf '%s\n' "$$" > "$ag_cd/s$ag_i.lock"; } 2>/dev/null; then ag_slot=$ag_i; break; fi
      ag_i=$((ag_i + 1))
    done
    set +C
    ag_nl='
'
    ag_frames='' ag_file=''
    if [ -n "$ag_slot" ] && { command exec 7<>"$ag_cd/s$ag_slot.a"; } 2>/dev/null; then
      if { command exec 6<"/proc/$$/fd/7"; } 2>/dev/null; then
        exec 7>&-
        if { command exec 7<>"$ag_cd/s$ag_slot.q"; } 2>/dev/null; then
          printf '%s cli %s %s %s\n' "$$" "$#" "$ag_self" "$ag_version" >&7
          while IFS= read -r ag_l <&6; do
            case $ag_l in
              [oOeE]*) ag_frames=$ag_frames$ag_l$ag_nl ;;
              f) ag_file=1 ag_frames=${ag_frames}f$ag_nl ;;
              'dexit '*)
                ag_n=${ag_l#dexit }
                case $ag_n in [0-9] | [1-9][0-9] | 1[0-9][0-9] | 2[0-4][0-9] | 25[0-5]) ag_exit=$ag_n ;; esac
                break
                ;;
              *) break ;;
            esac
          done
          if [ -n "$ag_exit" ] && [ -n "$ag_file" ]; then
            if ! command -v cat >/dev/null || ! { command exec 5<"$ag_cd/s$ag_slot.out"; } 2>/dev/null; then ag_exit=''; fi
          fi
          printf 'done %s\n' "$$" >&7
        fi
      fi
      exec 6<&- 7>&-
    fi
  fi
  if [ -n "$ag_exit" ]; then
    set -f
    IFS=$ag_nl
    for ag_l in $ag_frames; do
      case $ag_l in
        o*) printf '%s\n' "${ag_l#?}" ;;
        O*) printf '%s' "${ag_l#?}" ;;
        e*) printf '%s\n' "${ag_l#?}" >&2 ;;
        E*) printf '%s' "${ag_l#?}" >&2 ;;
        f) cat <&5 ;;
      esac
    done
    exit "$ag_exit"
  fi
fi

# Cold path. The bundle is next to this file; npm's bin is a symlink to it (one readlink per hop).
if [ -z "$ag_bundle" ]; then
  ag_self=$0
  case $ag_self in
    */*) ;;
    *) if [ -f "./$ag_self" ]; then ag_self=./$ag_self; else ag_self=$(command -v -- "$ag_self") || ag_self=''; fi ;;
  esac
  ag_hops=0
  while [ -h "$ag_self" ] && [ "$ag_hops" -lt 40 ]; do
    ag_l=$(readlink "$ag_self") || break
    case $ag_l in
      /*) ag_self=$ag_l ;;
      *) ag_self=${ag_self%/*}/$ag_l ;;
    esac
    ag_hops=$((ag_hops + 1))
  done
  ag_bundle=${ag_self%/*}/agent-guard.cjs
fi
if [ -n "$ag_node" ] && [ -x "$ag_node" ]; then exec "$ag_node" "$ag_bundle" "$@"; fi
# No node of its own (npm), or that node is gone (Node moved or upgraded: re-run install.sh to put
# the new one in): the node on PATH, as `#!/usr/bin/env node` would.
exec node "$ag_bundle" "$@"
