#!/bin/sh
# agent-guard: the bash/zsh hooks' client of the session's warm checker (docs/shell-hooks.md).
# The hooks run `/bin/sh hook-client.sh <hook-shell arguments>` instead of starting Node: the warm
# checker reads this process's argv, environment and working directory from /proc, exactly as for
# a shim (shims/shim.sh, section 5; docs/shims.md "Warm path"), decides with `hook-shell`'s code and
# sends back its messages and `dexit N`. Exits with the checker's status (0 run, 2 BLOCK, 3 ASK), or
# 125 when the warm checker cannot answer (none, no free slot, it died, it said `c`): the hook then
# starts the checker itself, as without a warm one. Builtins only; POSIX sh (dash, bash, zsh).
[ -z "${ZSH_VERSION-}" ] || emulate sh
set -f
d=${AGENT_GUARD_CHECKER-}
case $d in /?*/?*) ;; *) exit 125 ;; esac
{ [ -O "${d%/*}" ] && ! [ -h "${d%/*}" ] && [ -O "$d" ] && ! [ -h "$d" ] && [ -p "$d/s0.q" ]; } || exit 125
s='' ok=''
{
  i=0
  set -C
  while [ -p "$d/s$i.q" ]; do
    if printf '%s\n' "$$" > "$d/s$i.lock"; then s=$i; break; fi
    i=$((i + 1))
  done
  set +C
  if [ -n "$s" ] && command exec 7<>"$d/s$s.a" && command exec 6<"/proc/$$/fd/7"; then
    exec 7>&-
    command exec 7<>"$d/s$s.q" && ok=1
  fi
} 2>/dev/null
[ -n "$ok" ] || exit 125
printf '%s %s hook-shell /\n' "$$" "$#" >&7
r=125
while IFS= read -r l <&6; do
  case $l in
    o*) printf '%s\n' "${l#?}" ;;
    O*) printf '%s' "${l#?}" ;;
    e*) printf '%s\n' "${l#?}" >&2 ;;
    E*) printf '%s' "${l#?}" >&2 ;;
    'dexit '[0-9] | 'dexit '[0-9][0-9] | 'dexit '[0-9][0-9][0-9]) r=${l#dexit }; break ;;
    *) break ;;
  esac
done
printf 'done %s\n' "$$" >&7
[ "$r" -le 255 ] || r=125
exit "$r"
