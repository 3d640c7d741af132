#!/bin/sh
# agent-guard-shim v1
# Generated from shims/shim.sh by writeShims (src/shims/render.ts); edits here are overwritten.
# POSIX sh, run by dash, bash and zsh. The fast path starts no process and no subshell; the slow
# path asks the session's warm checker (builtins only), else starts the checker (Node).
# docs/shims.md explains every step. Lines between `#@only NAME…` and `#@end` are kept only in the
# shims of the programs named (render.ts onlyFor): each shim holds only its own fast path.
[ -z "${ZSH_VERSION-}" ] || emulate sh
set -f
ag_name='@AG_NAME@'
ag_node="@AG_NODE@"
ag_bundle="@AG_BUNDLE@"

# Refuses, says how to fix it, never runs the real program: the checker is missing or broken.
ag_fail() {
  printf 'agent-guard: refusing to run %s: the checker %s (exit %s). Fix: %s; the command was not run.\n' \
    "$ag_name" "$1" "$2" "$3" >&2
  exit 126
}

# 1. This file, for the -ef test below. $0 holds a slash when the kernel ran us through PATH or a
#    shell was given a path; a bare name (`sh rm` in the shim dir) is rare, so it may fork.
ag_self=$0
case $ag_self in
  */*) ;;
  *) if [ -f "./$ag_self" ]; then ag_self=./$ag_self; else ag_self=$(command -v -- "$ag_self") || ag_self=''; fi ;;
esac

# 2. The real binary: the first absolute PATH entry that is no shim dir (marker file) and whose
#    program is not this very file (a symlinked dir, a dir listed twice, a hard link).
#    -ef is not in POSIX but dash, bash, zsh and busybox sh all have it.
ag_real=''
ag_ifs=$IFS
IFS=:
for ag_d in $PATH; do
  case $ag_d in /*) ;; *) continue ;; esac
  [ -e "$ag_d/.agent-guard-shims" ] && continue
  if [ -f "$ag_d/$ag_name" ] && [ -x "$ag_d/$ag_name" ]; then
    # shellcheck disable=SC3013
    [ "$ag_d/$ag_name" -ef "$ag_self" ] && continue
    ag_real=$ag_d/$ag_name
    break
  fi
done
IFS=$ag_ifs
if [ -z "$ag_real" ]; then
  printf 'agent-guard: real %s not found on PATH\n' "$ag_name" >&2
  exit 127
fi

# Execs the real tool ($1: the hop count for the loop guard; the rest: its argv). It runs as
# `<name>`, as the user typed it, so its messages and --help name it the same way: looked up with
# its own directory first on PATH. rm, rmdir, unlink, shred, mv, cp, truncate, rsync (its remote
# shell aside), and find without -exec/-ok start no other programs, so that PATH goes nowhere else; git, and find with -exec, do (hooks, -exec), and
# those must still find the shims, so they are run by their path.
ag_exec() {
  ag_h=$1
  shift
  if [ -n "$ag_byname" ]; then
    PATH="${ag_real%/*}:$PATH" AGENT_GUARD_SHIM_PID="$$ $ag_h" exec "$ag_name" "$@"
  fi
  AGENT_GUARD_SHIM_PID="$$ $ag_h" exec "$ag_real" "$@"
}
ag_byname=''
case $ag_name in
  rm | rmdir | unlink | shred | mv | cp | truncate | rsync) ag_byname=1 ;;
#@only find
  find)
    ag_byname=1
    for ag_a do
      case $ag_a in -exec | -execdir | -ok | -okdir) ag_byname=''; break ;; esac
    done
    ;;
#@end
esac

# 3. Loop guard. exec keeps the PID: "<our pid> <hops>" means a shim already checked this very
#    call and what it took for the real binary was another, unmarked shim copy. Pass the call on
#    unchecked; after 4 hops PATH leads from shim to shim (A -> B -> A): fail.
case ${AGENT_GUARD_SHIM_PID-} in
  "$$ "*)
    ag_hops=${AGENT_GUARD_SHIM_PID#"$$ "}
    case $ag_hops in
      [0-3]) ag_exec "$((ag_hops + 1))" "$@" ;;
    esac
    printf 'agent-guard: shim loop: %s leads back to a shim (%s); put the real %s on PATH after the shim dir, or mark that dir with .agent-guard-shims\n' \
      "$ag_name" "$ag_real" "$ag_name" >&2
    exit 127
    ;;
esac

#@only mv cp
# mv, cp: reads the argv as GNU getopt_long does (options anywhere before --, unless
# POSIXLY_CORRECT, which takes the slow path). Pass 1 ($1 = 1): -t DIR, -T, -n and the operands
# (ag_nops, the last one in ag_last); pass 2: slow when the entry of a source's name in $ag_mcdir
# exists. An option it does not know (an abbreviated long one too), or --parents, is slow.
ag_mc_scan() {
  ag_pass=$1
  shift
  ag_want='' ag_dd='' ag_i=0
  for ag_a do
    if [ -n "$ag_want" ]; then
      [ "$ag_want" != t ] || ag_tdir=$ag_a
      ag_want=''
      continue
    fi
    if [ -z "$ag_dd" ]; then
      case $ag_a in
        --) ag_dd=1; continue ;;
        --no-clobber) ag_nc=1; continue ;;
        --target-directory=*) ag_tdir=${ag_a#*=}; continue ;;
        --target-directory) ag_want=t; continue ;;
        --suffix | --sparse | --no-preserve) ag_want=v; continue ;;
        --no-target-directory) ag_T=1; continue ;;
        --archive | --attributes-only | --backup | --backup=* | --copy-contents | --debug | --force | --interactive | \
          --link | --dereference | --no-dereference | --preserve | --preserve=* | --no-preserve=* | --recursive | \
          --reflink | --reflink=* | --remove-destination | --sparse=* | --strip-trailing-slashes | --symbolic-link | \
          --suffix=* | --update | --update=* | --verbose | --one-file-system | --context | --context=* | \
          --keep-directory-symlink | --exchange | --no-copy | --help | --version) continue ;;
        --*) ag_slow=1; return ;;
        -?*)
          ag_s=${ag_a#-}
          while [ -n "$ag_s" ]; do
            ag_c=${ag_s%"${ag_s#?}"}
            ag_s=${ag_s#?}
            case $ag_c in
              t) if [ -n "$ag_s" ]; then ag_tdir=$ag_s; else ag_want=t; fi; break ;;
              S) [ -n "$ag_s" ] || ag_want=v; break ;;
              n) ag_nc=1 ;;
              T) ag_T=1 ;;
              [abdfiHlLPpRrsuvxZ]) ;;
              *) ag_slow=1; return ;;
            esac
          done
          continue
          ;;
      esac
    fi
    ag_i=$((ag_i + 1))
    if [ "$ag_pass" = 1 ]; then
      ag_last=$ag_a ag_nops=$ag_i
    elif [ -n "$ag_tdir" ] || [ "$ag_i" -lt "$ag_nops" ]; then
      ag_s=$ag_a
      while :; do case $ag_s in ?*/) ag_s=${ag_s%/} ;; *) break ;; esac; done
      ag_s=${ag_s##*/}
      case $ag_s in '' | . | ..) continue ;; esac
      if [ -e "$ag_mcdir/$ag_s" ] || [ -h "$ag_mcdir/$ag_s" ]; then ag_slow=1; return; fi
    fi
  done
}
#@end

# 4. Fast path: a call that cannot destroy data goes straight to the real binary.
ag_slow=''
case $ag_name in
#@only git
  git)
    # Config from the command line or the environment can define aliases, pagers, hooks.
    if [ -n "${GIT_CONFIG_PARAMETERS-}" ] || [ -n "${GIT_CONFIG_COUNT-}" ]; then ag_slow=1; fi
    ag_sub='' ag_skip=''
    for ag_a do
      [ -z "$ag_slow" ] || break
      if [ -n "$ag_skip" ]; then ag_skip=''; continue; fi
      case $ag_a in
        -c | --config-env | --config-env=*) ag_slow=1; break ;;
        -C | --git-dir | --work-tree | --namespace | --super-prefix | --attr-source | --list-cmds | --shallow-file)
          ag_skip=1 ;;
        --*=* | -p | -P | --paginate | --no-pager | --bare | --no-replace-objects | --literal-pathspecs | \
          --glob-pathspecs | --noglob-pathspecs | --icase-pathspecs | --no-optional-locks | --no-lazy-fetch | \
          --no-advice | --exec-path | --html-path | --man-path | --info-path) ;;
        -v | --version | -h | --help) break ;;
        # An unknown global option might take a value and hide the subcommand.
        -*) ag_slow=1; break ;;
        *) ag_sub=$ag_a; break ;;
      esac
    done
    case $ag_sub in
      clean | reset | restore | checkout | switch | push | stash | branch | worktree | rm | filter-branch | \
        filter-repo | update-ref | reflog | gc | prune | replace | symbolic-ref | tag | notes | submodule)
        ag_slow=1 ;;
      '' | add | am | annotate | apply | bisect | blame | bundle | cat-file | check-attr | check-ignore | cherry | \
        cherry-pick | clone | commit | config | count-objects | describe | diff | diff-files | diff-index | \
        diff-tree | fetch | for-each-ref | format-patch | fsck | grep | hash-object | help | init | log | \
        ls-files | ls-remote | ls-tree | merge | merge-base | mv | name-rev | pull | rebase | remote | rev-list | \
        rev-parse | revert | shortlog | show | show-ref | status | var | version | whatchanged | write-tree) ;;
      # An unknown word may be an alias (alias.x = reset --hard, or !rm -rf).
      *) ag_slow=1 ;;
    esac
    ;;
#@end
#@only find
  find)
    for ag_a do
      case $ag_a in
        -delete | -exec | -execdir | -ok | -okdir | -fprint | -fprint0 | -fprintf | -fls) ag_slow=1; break ;;
      esac
    done
    ;;
#@end
#@only rm rmdir unlink shred
  rm | rmdir | unlink | shred)
    # Fast only without operands: `rm -f` with an empty list, `rm --help`.
    ag_dd=''
    for ag_a do
      if [ -n "$ag_dd" ]; then ag_slow=1; break; fi
      case $ag_a in
        --) ag_dd=1 ;;
        -) ag_slow=1; break ;;
        -*) ;;
        *) ag_slow=1; break ;;
      esac
    done
    ;;
#@end
#@only mv cp
  mv | cp)
    # Slow only when an existing destination may be replaced: the single target, or a source's entry
    # in the target directory (-t DIR, or a last operand that is a directory). -n never replaces.
    ag_tdir='' ag_T='' ag_nc='' ag_last='' ag_nops=0 ag_mcdir=''
    [ -z "${POSIXLY_CORRECT+x}" ] || ag_slow=1
    [ -n "$ag_slow" ] || ag_mc_scan 1 "$@"
    if [ -z "$ag_slow" ] && [ -z "$ag_nc" ]; then
      if [ -n "$ag_tdir" ]; then
        ag_mcdir=$ag_tdir
      elif [ "$ag_nops" -lt 2 ]; then
        : # the tool reports the missing operand
      elif [ -n "$ag_T" ] || { [ "$ag_nops" -eq 2 ] && ! [ -d "$ag_last" ]; }; then
        if [ -e "$ag_last" ] || [ -h "$ag_last" ]; then ag_slow=1; fi
      else
        ag_mcdir=$ag_last
      fi
      [ -z "$ag_mcdir" ] || ag_mc_scan 2 "$@"
    fi
    ;;
#@end
#@only truncate
  truncate)
    # Slow only when an operand exists (it may shrink).
    ag_want='' ag_dd=''
    [ -z "${POSIXLY_CORRECT+x}" ] || ag_slow=1
    for ag_a do
      [ -z "$ag_slow" ] || break
      if [ -n "$ag_want" ]; then ag_want=''; continue; fi
      if [ -z "$ag_dd" ]; then
        case $ag_a in
          --) ag_dd=1; continue ;;
          --size | --reference) ag_want=1; continue ;;
          --size=* | --reference=* | --no-create | --io-blocks | --help | --version) continue ;;
          --*) ag_slow=1; break ;;
          -?*)
            ag_s=${ag_a#-}
            while [ -n "$ag_s" ]; do
              ag_c=${ag_s%"${ag_s#?}"}
              ag_s=${ag_s#?}
              case $ag_c in
                s | r) [ -n "$ag_s" ] || ag_want=1; break ;;
                c | o) ;;
                *) ag_slow=1; break ;;
              esac
            done
            continue
            ;;
        esac
      fi
      if [ -e "$ag_a" ]; then ag_slow=1; fi
    done
    ;;
#@end
#@only rsync
  rsync)
    # Slow only when the destination (the last operand) exists here. A dry run, the server or
    # daemon side, and a remote destination (host:path, rsync://) are fast; so is a missing one.
    ag_prev='' ag_last='' ag_dd='' ag_fast=''
    for ag_a do
      if [ -z "$ag_dd" ]; then
        case $ag_a in
          --) ag_dd=1 ;;
          -n | --dry-run | --server | --daemon | --sender | --list-only) ag_fast=1 ;;
          -[!-]*)
            # a short cluster with n before any letter that takes a value (-avn, not -e n)
            ag_s=${ag_a#-}
            ag_s=${ag_s%%[BeTfM@]*}
            case $ag_s in *n*) ag_fast=1 ;; esac
            ;;
        esac
      fi
      ag_prev=$ag_last ag_last=$ag_a
    done
    if [ -z "$ag_fast" ]; then
      ag_slow=1
      # The last word is the destination unless it is an option or an option's value.
      case $ag_last in -*) ag_prev=-e ;; esac
      [ "$ag_prev" != -- ] || ag_prev=''
      case $ag_prev in
        -*[BeTfM@] | --address | --backup-dir | --block-size | --bwlimit | --checksum-choice | --cc | --checksum-seed | \
          --chmod | --chown | --compare-dest | --compress-choice | --zc | --compress-level | --zl | --compress-threads | --zt | \
          --confine-root | --contimeout | --copy-as | --copy-dest | --debug | --early-input | --exclude | --exclude-from | \
          --files-from | --filter | --groupmap | --iconv | --include | --include-from | --info | --link-dest | --log-file | \
          --log-file-format | --log-format | --max-alloc | --max-delete | --max-size | --min-size | --modify-window | \
          --only-write-batch | --out-format | --outbuf | --partial-dir | --password-file | --port | --protocol | --read-batch | \
          --remote-option | --rsh | --rsync-path | --skip-compress | --sockopts | --stop-after | --stop-at | --time-limit | \
          --suffix | --temp-dir | --timeout | --usermap | --write-batch) ;;
        *)
          case ${ag_last%%/*} in
            *:*) ag_slow='' ;;
            *) [ -e "$ag_last" ] || [ -h "$ag_last" ] || ag_slow='' ;;
          esac
          ;;
      esac
    fi
    ;;
#@end
  *) ag_slow=1 ;;
esac
if [ -z "$ag_slow" ]; then
  ag_exec 1 "$@"
fi

# 5. Warm path: the session's long-lived checker (`run` and `shell-init` name its directory in
#    AGENT_GUARD_CHECKER) decides and compensates exactly as the cold path below would, reading our
#    argv, environment and cwd from /proc. Builtins only: a slot is claimed by an exclusive create
#    (set -C), one request line goes to its FIFO, framed lines come back (stdout, stderr, then the
#    directive). The answer FIFO is opened read-write first, then read-only through /proc, and the
#    read-write end closed: no open ever blocks, and a dead checker gives an end-of-file. Anything
#    short of a directive (no checker, no free slot, end-of-file, `c`) falls through to the cold path.
ag_dir='' ag_rc=0
ag_cd=${AGENT_GUARD_CHECKER-}
case $ag_cd in /?*/?*) ;; *) ag_cd='' ;; esac
case $ag_real in *'
'*) ag_cd='' ;; esac
if [ -n "$ag_cd" ] && [ -O "${ag_cd%/*}" ] && ! [ -h "${ag_cd%/*}" ] && [ -O "$ag_cd" ] && ! [ -h "$ag_cd" ] && [ -p "$ag_cd/s0.q" ]; then
  # One redirection of stderr for the whole set-up (each one costs the shell half a dozen system
  # calls); the descriptors opened by `exec` inside the group stay open after it.
  ag_slot='' ag_ok=''
  {
    ag_i=0
    set -C
    while [ -p "$ag_cd/s$ag_i.q" ]; do
      if printf '%s\n' "$$" > "$ag_cd/s$ag_i.lock"; then ag_slot=$ag_i; break; fi
      ag_i=$((ag_i + 1))
    done
    set +C
    if [ -n "$ag_slot" ] && command exec 7<>"$ag_cd/s$ag_slot.a" && command exec 6<"/proc/$$/fd/7"; then
      exec 7>&-
      command exec 7<>"$ag_cd/s$ag_slot.q" && ag_ok=1
    fi
  } 2>/dev/null
  if [ -n "$ag_ok" ]; then
    printf '%s %s %s %s\n' "$$" "$#" "$ag_name" "$ag_real" >&7
    while IFS= read -r ag_l <&6; do
      case $ag_l in
        o*) printf '%s\n' "${ag_l#?}" ;;
        O*) printf '%s' "${ag_l#?}" ;;
        e*) printf '%s\n' "${ag_l#?}" >&2 ;;
        E*) printf '%s' "${ag_l#?}" >&2 ;;
        d*) ag_dir=${ag_l#?}; break ;;
        *) break ;;
      esac
    done
    printf 'done %s\n' "$$" >&7
  fi
  # The real tool must not inherit them; an `exit` directive closes them by exiting.
  case $ag_slot:$ag_dir in :* | *:'exit '*) ;; *) exec 6<&- 7>&- ;; esac
fi

# 6. Cold path: the checker decides on the concrete argv, does any compensation, and writes one
#    directive line to fd 3; its stdout and stderr are ours. An empty NODE_EXTRA_CA_CERTS spares
#    Node loading a CA bundle it does not need (docs/shims.md).
#    A missing node or bundle is an upgrade, a moved Node or an uninstall: the fix says how these
#    shims get rendered again (docs/distribution.md).
if [ -z "$ag_dir" ]; then
  if ! [ -f "$ag_node" ] || ! [ -x "$ag_node" ]; then
    ag_fail "could not start: $ag_node is missing or not executable (Node moved or was upgraded?)" 127 \
      "run 'agent-guard run -- true' once or start a new shell (they render the shims again with the node you have now; an install.sh prefix you cannot write: re-run install.sh); 'agent-guard doctor' tells more"
  fi
  if ! [ -f "$ag_bundle" ] || ! [ -r "$ag_bundle" ]; then
    ag_fail "could not start: $ag_bundle is missing or unreadable (agent-guard upgraded, moved or removed?)" 127 \
      "start a new shell, so that 'agent-guard shell-init' puts the shims of the agent-guard you have now on PATH, or reinstall agent-guard (npm i -g agent-guard, or install.sh); 'agent-guard doctor' tells more"
  fi
  { ag_dir=$(NODE_EXTRA_CA_CERTS='' "$ag_node" "$ag_bundle" shim "$ag_name" "$ag_real" -- "$@" 3>&1 1>&4 4>&-); ag_rc=$?; } 4>&1
fi

# The directive decides; the checker's exit status matters only when there is no valid directive.
ag_fix="run 'agent-guard doctor', or reinstall agent-guard (npm i -g agent-guard, or install.sh)"
case $ag_dir in
  run)
    ag_exec 1 "$@"
    ;;
  keep)
    ag_exec 1
    ;;
  'keep '*)
    # "keep I1 I2 ...": 1-based, strictly increasing indexes into the original argv. Only the
    # checked digits go through eval, as references "${I}"; the arguments are expanded, never
    # parsed, so they stay byte-exact. (A loop of set -- "$@" "$a" is quadratic: 40 s for 5,000
    # arguments under bash.)
    ag_want=${ag_dir#keep }
    case $ag_want in
      ' '* | *' ' | *'  '* | *[!0-9\ ]* | 0* | *" 0"*) ag_fail "gave an invalid directive" "$ag_rc" "$ag_fix" ;;
    esac
    ag_refs='' ag_prev=0
    IFS=' '
    for ag_k in $ag_want; do
      case $ag_k in ??????????*) ag_fail "gave an invalid directive" "$ag_rc" "$ag_fix" ;; esac
      if ! [ "$ag_k" -gt "$ag_prev" ] || ! [ "$ag_k" -le "$#" ]; then
        ag_fail "gave an invalid directive" "$ag_rc" "$ag_fix"
      fi
      ag_refs="$ag_refs \"\${$ag_k}\""
      ag_prev=$ag_k
    done
    IFS=$ag_ifs
    eval "set -- $ag_refs"
    ag_exec 1 "$@"
    ;;
  'exit '*)
    ag_n=${ag_dir#exit }
    case $ag_n in
      [0-9] | [1-9][0-9] | 1[0-9][0-9] | 2[0-4][0-9] | 25[0-5]) exit "$ag_n" ;;
    esac
    ;;
  '')
    [ "$ag_rc" != 0 ] || ag_fail "gave no directive" "$ag_rc" "$ag_fix"
    ag_fail "failed without a directive" "$ag_rc" "$ag_fix"
    ;;
esac
ag_fail "gave an invalid directive" "$ag_rc" "$ag_fix"
