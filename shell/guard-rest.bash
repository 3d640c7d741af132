# shellcheck shell=bash
# Deliberate throughout: single-quoted $ in patterns (SC2016), unquoted pattern variables on the
# right of == (SC2053), and `a= b=` empty assignments (SC1007).
# shellcheck disable=SC2016,SC2053,SC1007
# The __agent_guard_mine/okw/okr/rwc arrays are associative (declared in guard.bash's
# __agent_guard_arm, which shellcheck does not see from here): their `[$key]` subscripts are strings.
# shellcheck disable=SC2004
# agent-guard: the rest of the bash hook (docs/shell-hooks.md), read by shell/guard.bash on first
# need (__agent_guard_more): the filters, the redirection reader, the checker call and the verdict.
# Never sourced on its own. Sourced inside a function: nothing here may `declare` without -g.
# THE PREFILTER. Returns 0 when $1 may be destructive, so the checker decides; 1 when it cannot be,
# so Node is never started:
# - `$(`, a backquote, `<(` or `>(` anywhere (`$((` arithmetic is fine);
# - the guard's own machinery: DEBUG, BASH_ENV, ZDOTDIR, AGENT_GUARD, agent_guard, extdebug,
#   functrace, unfunction, +T, `trap -`, `trap ''` (so that the checker can refuse tampering);
# - a word of __agent_guard_words (the one list, below), as a whole word anywhere (`echo git`
#   counts), or a short-option cluster with both r/R and f (-rf, -fR, -vrf);
# - in program position (first word of a command, after NAME=value assignments and `!`, `{`, `if`,
#   `then`, `do`, `else`, `elif`, `while`, `until`): `.`, a word with / $ \ ' " * ? [ { ~ = `, which
#   may be a path, an expansion, a quoted name or a glob that turns into rm, or a redirection
#   (`>f /bin/rm x`: the program comes later).
# Everything else (ls, echo hi, cd x, npm test, X=1, "$x" as an argument) never starts Node.
__agent_guard_words='@(rm|rmdir|unlink|shred|srm|wipe|trash|git|find|xargs|parallel|eval|source|exec'\
'|command|builtin|env|sudo|doas|su|runuser|busybox|sh|bash|zsh|dash|ksh|fish|script|watch|timeout'\
'|nice|nohup|setsid|stdbuf|ionice|taskset|chrt|flock|unshare|time|hash|enable|coproc'\
'|-delete|--force|--hard|-*([A-Za-z])[rR]*([A-Za-z])f*([A-Za-z])|-*([A-Za-z])f*([A-Za-z])[rR]*([A-Za-z]))'
# The pattern is matched with [[ == ]], where bash applies extended globs without `shopt -s
# extglob`. A bash that does not gets the catch-all pattern: every text goes to the checker.
if ! [[ 'rm' == $__agent_guard_words ]]; then __agent_guard_words='*'; fi

__agent_guard_prefilter() {
  case $1 in
    *'$('[!\(]* | *'`'* | *'<('* | *'>('*) \builtin return 0 ;;
    *[\;\&\|$'\n']*) ;;
    '(('*'))') \builtin return 1 ;; # an arithmetic command
    . | *[!A-Za-z0-9_.,:+@%-]*) ;;
    *) # one plain word: true, ls, rm
      [[ $1 == $__agent_guard_words ]]
      \builtin return
      ;;
  esac
  # The guard's own machinery: the checker refuses turning it off (BLOCK_GUARD_TAMPERING).
  case $1 in
    *DEBUG* | *BASH_ENV* | *ZDOTDIR* | *AGENT_GUARD* | *agent_guard* | *extdebug* | *functrace* | \
      *unfunction* | *+T* | *'trap -'* | *"trap ''"* | *'trap ""'*)
      \builtin return 0
      ;;
  esac
  # Quoted strings become '' or "" and ${...} becomes $, so that their blanks do not split words
  # (x="a b" or ${x// /_} would otherwise leave a "program" behind); glob characters become %, so
  # that the split cannot expand them; then words split at blanks, with ; & | ( ) newline as
  # separate ";" words.
  \builtin local IFS=$' \t\n' w n p=1 s="$1" u= q
  while [[ $s == *[\"\'\\]* || $s == *'${'* ]]; do
    q=${s%%[\"\'\\]*} w=${s%%'${'*}
    ((${#w} >= ${#q})) || q=$w
    u+=$q s=${s:${#q}}
    case $s in
      \\*) u+='\_' s=${s:2} ;;
      \'*)
        s=${s:1}
        [[ $s == *\'* ]] || break
        u+="''" s=${s#*\'}
        ;;
      \"*)
        w=${s:1} q=
        while [[ $w == *\"* ]]; do
          q+=${w%%\"*} w=${w#*\"}
          [[ $q == *\\ ]] || break
          q+='"'
        done
        [[ $s == \"*\"* ]] || break
        u+='""' s=$w
        ;;
      *)
        [[ $s == *'}'* ]] || break
        u+='$' s=${s#*'}'}
        ;;
    esac
  done
  s="$u$s"
  s=${s//[*?[]/%}
  for w in ${s//[;&|()$'\n']/ ; }; do
    if ((p)); then
      case $w in
        ';' | '{' | '}' | '!' | if | then | do | else | elif | while | until) continue ;;
        % | %%) # [ and [[ (their glob characters were turned into %)
          p=0
          continue
          ;;
        [A-Za-z_]*=*)
          n=${w%%=*} n=${n%+} n=${n%%%*}
          [[ $n == *[!A-Za-z0-9_]* ]] || continue
          ;;
        . | *[/\$\\\'\"%\{~=\`]* | [\<\>]* | [0-9]*[\<\>]*) \builtin return 0 ;;
      esac
      p=0
    fi
    if [[ $w == ';' ]]; then
      p=1
    elif [[ $w == $__agent_guard_words ]]; then
      \builtin return 0
    fi
  done
  \builtin return 1
}

# THE BYPASS FILTER, used instead of the prefilter while the PATH shims are active: every program
# reached through a PATH lookup is then the shims' business (they see its expanded argv, its cwd
# and the disk at that moment), so the hook only looks at one simple command at a time for what
# takes a command past them or turns the guard off. Returns 0 when $1 has:
# - a guarded program named by a path, anywhere (`/bin/rm`, `sh -c '/usr/bin/git clean -fdx'`,
#   `xargs /bin/rm`, an alias that expands to one);
# - a word that resolves programs past PATH or runs them as another user (`sudo`, `doas`, `su`,
#   `runuser`, `pkexec`, `busybox`, `toybox`, `command -p`, `env` with an option, `hash -p`), a
#   `PATH=` assignment that does not start with `$PATH` (an append keeps the shims first), or
#   `unset … PATH`;
# - a builtin loader (`enable`, `zmodload`) or the guard's own machinery (the checker decides
#   whether it is tampering).
# A leading `$name` / `${name}` program word is resolved from the shell's variables (no side
# effect) by __agent_guard_varprog. Nothing else starts a process: loop headers, `$(…)`,
# assignments, pipelines of unguarded programs, `eval`, `bash -c` (the inner commands come through
# this trap again, or reach the shims).
# (__agent_guard_bypass, the pattern itself, is defined in guard.bash: its common case uses it too.)

# $1 is `PATH=VALUE` where VALUE (quoted as a whole or not) is a prefix of literal directories and
# `$NAME`/`${NAME}` references, then `:$PATH` or `:${PATH}`: returns 0 when the prefix, resolved from
# the shell's variables (no side effect), names only absolute directories holding none of the
# programs the shims cover.
__agent_guard_prepend() {
  \builtin local __agent_guard_pv="${1#PATH=}" __agent_guard_pr= __agent_guard_pn
  case $__agent_guard_pv in
    \"*\") __agent_guard_pv=${__agent_guard_pv:1:${#__agent_guard_pv}-2} ;;
  esac
  case $__agent_guard_pv in
    *:\$PATH) __agent_guard_pv=${__agent_guard_pv%:\$PATH} ;;
    *:\$\{PATH\}) __agent_guard_pv=${__agent_guard_pv%:\$\{PATH\}} ;;
    *) \builtin return 1 ;;
  esac
  while [[ -n $__agent_guard_pv ]]; do
    case $__agent_guard_pv in
      \$\{[A-Za-z_]*\}*)
        __agent_guard_pn=${__agent_guard_pv:2} __agent_guard_pn=${__agent_guard_pn%%\}*}
        [[ $__agent_guard_pn != *[!A-Za-z0-9_]* ]] || \builtin return 1
        __agent_guard_pv=${__agent_guard_pv:${#__agent_guard_pn}+3}
        ;;
      \$[A-Za-z_]*)
        __agent_guard_pn=${__agent_guard_pv:1} __agent_guard_pn=${__agent_guard_pn%%[!A-Za-z0-9_]*}
        __agent_guard_pv=${__agent_guard_pv:${#__agent_guard_pn}+1}
        ;;
      [/:A-Za-z0-9._+@%-]*)
        __agent_guard_pn=${__agent_guard_pv%%[!/:A-Za-z0-9._+@%-]*}
        __agent_guard_pr+=$__agent_guard_pn __agent_guard_pv=${__agent_guard_pv:${#__agent_guard_pn}}
        \builtin continue
        ;;
      *) \builtin return 1 ;;
    esac
    [[ $__agent_guard_pn != PATH && -n ${!__agent_guard_pn-} ]] || \builtin return 1
    __agent_guard_pr+=${!__agent_guard_pn}
  done
  [[ -n $__agent_guard_pr ]] && __agent_guard_clearto "$__agent_guard_pr" ''
}

# $1 starts with a variable as its program (`$x -rf y`, `"${RM}" y`): sets __agent_guard_t to the
# text with that variable's value in its place and returns 0 when that value holds a `/` (a program
# named by a path, which the shims do not see) and the resolved text is a bypass (a guarded program
# by its path, `sudo`, …), so that the checker sees what will run; nothing when a PATH lookup
# decides it (returns 1). Positional parameters (`"$@"` in a wrapper function) are not resolved (the trap
# function has its own): docs/limitations.md.
__agent_guard_varprog() {
  # (the locals carry the guard's prefix: ${!name} must not find one of them instead of the user's)
  \builtin local __agent_guard_vs="$1" __agent_guard_vn __agent_guard_vr __agent_guard_vq=
  case $__agent_guard_vs in
    '"${'*) __agent_guard_vq='}"' __agent_guard_vs=${__agent_guard_vs:3} ;;
    '"$'*) __agent_guard_vq='"' __agent_guard_vs=${__agent_guard_vs:2} ;;
    '${'*) __agent_guard_vq='}' __agent_guard_vs=${__agent_guard_vs:2} ;;
    '$'*) __agent_guard_vs=${__agent_guard_vs:1} ;;
    *) \builtin return 1 ;;
  esac
  __agent_guard_vn=${__agent_guard_vs%%[!A-Za-z0-9_]*}
  __agent_guard_vr=${__agent_guard_vs:${#__agent_guard_vn}}
  [[ $__agent_guard_vn == [A-Za-z_]* && $__agent_guard_vr == "$__agent_guard_vq"* ]] || \builtin return 1
  __agent_guard_vr=${__agent_guard_vr:${#__agent_guard_vq}} __agent_guard_vs=${!__agent_guard_vn-}
  [[ $__agent_guard_vs == */* ]] || \builtin return 1
  if [[ $__agent_guard_vq == *'"' ]]; then
    \builtin printf -v __agent_guard_t '%q%s' "$__agent_guard_vs" "$__agent_guard_vr"
  else
    __agent_guard_t=$__agent_guard_vs$__agent_guard_vr
  fi
  # Only what the resolved text takes past the shims counts (`$RM -rf x` with RM=/bin/rm), not any
  # program named by a path (pyenv's `"$READLINK" "$1"` on every python3 call).
  [[ $__agent_guard_t == $__agent_guard_bypass ]]
}

# Names whose builtin would take a command past the shims or break the hook: the same list as
# GUARDED_BUILTINS in src/enforce/tamper.ts (tests/shell/tamper.test.ts keeps them in step).
__agent_guard_guarded='@(rm|rmdir|unlink|shred|git|find|srm|wipe|xargs|parallel|mv|cp|truncate|rsync|enable|builtin|command|trap|shopt|set|unset|local|return|exit|kill|printf|eval|source|.|declare|typeset|history|hash|type|exec|bash|sh|zsh|env|sudo|node)'

# $1 is an `enable` command: returns 0 when every builtin it names is a plain name outside
# __agent_guard_guarded (options, the -f library and redirections aside; __agent_guard_lib marks a
# word to skip).
__agent_guard_enableok() {
  \builtin local -a __agent_guard_w
  \builtin local __agent_guard_x __agent_guard_lib=
  \builtin read -r -a __agent_guard_w <<<"${1#enable }" || :
  for __agent_guard_x in "${__agent_guard_w[@]}"; do
    if [[ -n $__agent_guard_lib ]]; then
      __agent_guard_lib=
      continue
    fi
    case $__agent_guard_x in
      -*f) __agent_guard_lib=1 ;;
      -[adnps]*) ;;
      [\<\>] | [0-9][\<\>] | [\<\>][\>\&] | [0-9][\<\>][\>\&] | \&\>) __agent_guard_lib=1 ;; # its target follows
      [0-9][\<\>]* | [\<\>]* | \&\>*) ;;
      *[!A-Za-z0-9_-]*) \builtin return 1 ;;
      *) [[ $__agent_guard_x != $__agent_guard_guarded ]] || \builtin return 1 ;;
    esac
  done
  [[ -z $__agent_guard_lib ]]
}

# Sets __agent_guard_t to the text the checker must see and returns 0; returns 1 when $1 needs no
# check. With the shims active, the bypass filter; otherwise the prefilter.
__agent_guard_risky() {
  __agent_guard_t=$1
  [[ -n ${__agent_guard_bpok-} ]] || __agent_guard_bpcheck
  if __agent_guard_shims_active; then
    # First substrings every bypass must contain, as plain patterns (about 20 µs for all of them;
    # the extended pattern below costs ten times more, so it runs only on a hit).
    case $1 in
      # (the same list inlined in __agent_guard_debug's common case)
      */rm* | */unlink* | */shred* | */git* | */find* | */xargs* | */parallel* | */srm* | */wipe* | \
        *su* | *doas* | *runuser* | *pkexec* | *box* | *enable* | *zmod* | *command* | *hash* | \
        *env* | *PATH* | *path=* | *trap* | *DEBUG* | *_ENV* | *ZDOT* | *AGENT_GUARD* | *agent_guard* | \
        *extdebug* | *func* | *+T* | *_CMDS* | *posix* | *POSIX* | *zsh*) ;;
      \$* | \"\$*)
        __agent_guard_varprog "$1"
        \builtin return
        ;;
      *) \builtin return 1 ;;
    esac
    # A trap whose handler calls a function: the handler runs past this hook, the function's body
    # with it (__agent_guard_trapfn).
    [[ $1 == trap[[:space:]]* ]] && __agent_guard_trapfn "$1" && \builtin return 0
    if [[ $1 == $__agent_guard_bypass ]]; then
      # A PATH that keeps the shim dir first (a harness's shell snapshot re-exporting the PATH it
      # was started with) takes nothing past the shims.
      [[ $1 == ?(export )PATH=?([\"\'])"$AGENT_GUARD_SHIMS"?(:*([!\;\&\|\`\$\(\)]))?([\"\']) ]] && \builtin return 1
      # Nor does one that puts directories holding none of the shimmed programs before the PATH it
      # had (`export PATH="$PYENV_BIN_PATH:$PATH"`): the shims stay first in effect.
      [[ $1 == ?(export )PATH=* ]] && __agent_guard_prepend "${1#export }" && \builtin return 1
      # A loadable builtin of a name the guard does not care about (pyenv, rbenv, nodenv and goenv
      # load `realpath` this way on every call) starts no checker.
      [[ $1 == enable\ * ]] && __agent_guard_enableok "$1" && \builtin return 1
      \builtin return 0
    fi
    __agent_guard_varprog "$1"
    \builtin return
  fi
  [[ $1 == trap[[:space:]]* ]] && __agent_guard_trapfn "$1" && \builtin return 0
  __agent_guard_prefilter "$1"
}


# $1 is a `trap …` text: returns 0 when a word of it names a shell function, with
# __agent_guard_t set to the text and, before it, one more `trap -- '…' EXIT` whose handler holds
# the bodies of those functions and of the functions they name (at most 16), so that the checker
# reads them as the handler they will run in: a handler runs past the DEBUG trap (bash shows it a
# stale text then), so only the shims will see it, and `cleanup() { /bin/rm -rf "$d"; }; trap
# cleanup EXIT` would delete past them. One `declare -f` (a fork) per function, once per trap.
__agent_guard_trapfn() {
  # (split on spaces whatever IFS the script set; the words hold no glob character)
  \builtin local todo w body bodies seen n=0 IFS=' '
  \builtin local -a ws
  todo="${1//[^A-Za-z0-9_.:-]/ }" bodies='' seen=' '
  while [[ -n ${todo// /} ]] && ((n < 16)); do
    ws=($todo)
    todo=''
    for w in "${ws[@]}"; do
      [[ $w == [A-Za-z_]*([A-Za-z0-9_.:-]) && $seen != *" $w "* && $w != __agent_guard_* ]] || continue
      \builtin declare -F -- "$w" >/dev/null 2>&1 || continue
      seen+="$w "
      ((++n <= 16)) || break
      body=$(\builtin declare -f -- "$w" 2>/dev/null)
      body="${body#*$'\n'\{}"
      body="${body%\}}"
      bodies+="$body"$'\n'
      todo+=" ${body//[^A-Za-z0-9_.:-]/ }"
    done
  done
  [[ -n $bodies ]] || \builtin return 1
  # (first: after a function definition the checker places nothing)
  __agent_guard_t="trap -- '${bodies//\'/\'\\\'\'}' EXIT"$'\n'"$1"
}

# Returns 0 when $1 can be left to the shims: shims active, nothing outside quotes that could start
# another command (; & | ( ) { newline, backquote, $( — quoted parts are removed first, and any
# doubt means "no"), and the first word after assignments (none of PATH) is exactly a shim name.
__agent_guard_defer() {
  __agent_guard_shims_active || \builtin return 1
  \builtin local s="$1" u= q w
  while :; do
    case $s in *[\'\"\\]*) ;; *) u+=$s; break ;; esac
    q=${s%%[\'\"\\]*}
    u+=$q s=${s:${#q}}
    case $s in
      \\*) s=${s:2} u+=_ ;;
      \'*)
        s=${s:1}
        [[ $s == *\'* ]] || \builtin return 1
        s=${s#*\'} u+=_
        ;;
      *)
        s=${s:1} q=${s%%\"*}
        [[ $s == *\"* ]] || \builtin return 1
        case $q in *'$('* | *'`'* | *\\*) \builtin return 1 ;; esac
        s=${s#*\"} u+=_
        ;;
    esac
  done
  u=${u//'${'/} u=${u//'>&'/>} u=${u//'<&'/<} u=${u//'&>'/>}
  case $u in *[\;\&\|\(\)\{\`$'\n']*) \builtin return 1 ;; esac
  while :; do
    u=${u#"${u%%[! $'\t']*}"}
    w=${u%%[ $'\t']*}
    u=${u:${#w}}
    case $w in
      PATH=* | PATH+=*) \builtin return 1 ;;
      [A-Za-z_]*=*)
        q=${w%%=*} q=${q%+}
        [[ $q == *[!A-Za-z0-9_]* ]] || continue
        \builtin return 1
        ;;
      rm | rmdir | unlink | shred | git | find) \builtin return 0 ;;
      *) \builtin return 1 ;;
    esac
  done
}

# OVERWRITES (docs/shell-hooks.md, "Redirections"). Sets __agent_guard_rw to the raw target words of the output redirections of $1 that truncate a file
# (`>`, `>|`, `&>`, `>&word`, with any fd); returns 1 when there are none. Quoted strings, `$(…)`,
# backquotes and `${…}` are skipped; `[[ … ]]` and `(( … ))` hold comparisons, not redirections.
__agent_guard_redirs() {
  __agent_guard_rw=()
  \builtin local s="$1" w t q n
  case $s in '[['* | '(('*) \builtin return 1 ;; esac
  while :; do
    w=${s%%[\'\"\\\`\$\>]*}
    s=${s:${#w}}
    case $s in
      '') break ;;
      \\*) s=${s:2} ;;
      \'*)
        s=${s:1}
        [[ $s == *\'* ]] || break
        s=${s#*\'}
        ;;
      \"*)
        s=${s:1}
        while [[ $s == *\"* ]]; do
          q=${s%%\"*} s=${s#*\"}
          [[ $q == *\\ && $q != *\\\\ ]] || break
        done
        ;;
      \`*)
        s=${s:1}
        [[ $s == *\`* ]] || break
        s=${s#*\`}
        ;;
      '$('* | '${'*)
        # to the matching close (nesting counted, quotes not: a text this odd is left alone)
        n=0
        while [[ -n $s ]]; do
          q=${s%%[()\{\}]*}
          s=${s:${#q}}
          case $s in [\(\{]*) ((++n)) ;; [\)\}]*) ((--n)) ;; esac
          s=${s:1}
          ((n > 0)) || break
        done
        ;;
      \$*) s=${s:1} ;;
      \>*)
        s=${s:1}
        case $w in *'<') continue ;; esac # <> opens read-write: nothing is truncated
        case $s in
          \>* | \(*) s=${s:1}; continue ;; # >> appends; >(…) is a process substitution
          \|*) s=${s:1} ;;
          \&*)
            s=${s:1}
            case $s in [0-9-]* | ' '[0-9-]*) continue ;; esac # a descriptor copy (>&2, 2>&1, >&-)
            ;;
        esac
        s=${s#"${s%%[! $'\t']*}"}
        t=
        while [[ -n $s ]]; do
          case $s in
            [[:space:]\;\&\|\<\>\(\)]*) break ;;
            \'*)
              q=${s:1}
              [[ $q == *\'* ]] || \builtin return 1
              q=${q%%\'*} t+="'$q'" s=${s:$((${#q} + 2))}
              ;;
            \"*)
              q=${s:1} w=
              while [[ $q == *\"* ]]; do
                w+=${q%%\"*} q=${q#*\"}
                [[ $w == *\\ && $w != *\\\\ ]] || break
                w+='"'
              done
              [[ $s == \"*\"* ]] || \builtin return 1
              t+="\"$w\"" s=$q
              ;;
            \\?*) t+=${s:0:2} s=${s:2} ;;
            *)
              q=${s%%[[:space:]\;\&\|\<\>\(\)\'\"\\]*}
              t+=$q s=${s:${#q}}
              ;;
          esac
        done
        [[ -z $t ]] || __agent_guard_rw+=("$t")
        ;;
    esac
  done
  ((${#__agent_guard_rw[@]}))
}

# Expands a raw target word $1 without side effects into __agent_guard_x: quotes, backslashes, a
# leading `~` or `~/`, and `$name` / `${name}` of a set variable. Anything else (a substitution,
# `$1`, an unset variable, an unquoted glob) returns 1: not read (docs/shell-hooks.md). The locals
# carry the guard's prefix: ${!name} must not find one of them instead of the user's.
__agent_guard_expand() {
  \builtin local __agent_guard_s="$1" __agent_guard_q __agent_guard_n __agent_guard_in=
  __agent_guard_x=
  case $__agent_guard_s in
    *'$('* | *'`'*) \builtin return 1 ;;
    \~ | \~/*)
      [[ -n ${HOME-} ]] || \builtin return 1
      __agent_guard_x=$HOME __agent_guard_s=${__agent_guard_s:1}
      ;;
    \~*) \builtin return 1 ;;
  esac
  while [[ -n $__agent_guard_s ]]; do
    case $__agent_guard_in$__agent_guard_s in
      1\"*) __agent_guard_in= __agent_guard_s=${__agent_guard_s:1} ;;
      1\\[\"\\\$\`]*) __agent_guard_x+=${__agent_guard_s:1:1} __agent_guard_s=${__agent_guard_s:2} ;;
      1\\*) __agent_guard_x+=\\ __agent_guard_s=${__agent_guard_s:1} ;;
      \"*) __agent_guard_in=1 __agent_guard_s=${__agent_guard_s:1} ;;
      \'*)
        __agent_guard_q=${__agent_guard_s:1}
        __agent_guard_q=${__agent_guard_q%%\'*}
        __agent_guard_x+=$__agent_guard_q __agent_guard_s=${__agent_guard_s:$((${#__agent_guard_q} + 2))}
        ;;
      \\?*) __agent_guard_x+=${__agent_guard_s:1:1} __agent_guard_s=${__agent_guard_s:2} ;;
      *)
        case $__agent_guard_s in
          '${'*)
            __agent_guard_n=${__agent_guard_s:2} __agent_guard_n=${__agent_guard_n%%\}*}
            __agent_guard_s=${__agent_guard_s:$((${#__agent_guard_n} + 3))}
            ;;
          \$[A-Za-z_]*)
            __agent_guard_n=${__agent_guard_s:1} __agent_guard_n=${__agent_guard_n%%[!A-Za-z0-9_]*}
            __agent_guard_s=${__agent_guard_s:$((${#__agent_guard_n} + 1))}
            ;;
          \$*) \builtin return 1 ;;
          *)
            if [[ -n $__agent_guard_in ]]; then
              __agent_guard_q=${__agent_guard_s%%[\"\\\$]*}
            else
              __agent_guard_q=${__agent_guard_s%%[\"\'\\\$]*}
              [[ $__agent_guard_q != *[*?[]* ]] || \builtin return 1
            fi
            __agent_guard_x+=$__agent_guard_q __agent_guard_s=${__agent_guard_s:${#__agent_guard_q}}
            \builtin continue
            ;;
        esac
        [[ $__agent_guard_n == [A-Za-z_]* && $__agent_guard_n != *[!A-Za-z0-9_]* && -n ${!__agent_guard_n+x} ]] || \builtin return 1
        __agent_guard_x+=${!__agent_guard_n}
        ;;
    esac
  done
  [[ -z $__agent_guard_in && -n $__agent_guard_x ]]
}

# Sets __agent_guard_ow to the files the redirections of $1 would truncate that hold content this
# shell did not write itself, and returns 0 when there is one. No fork: a target that is missing or
# empty now is this shell's own output from here on (__agent_guard_mine), and so is a file it has
# already had checked; a target that cannot be read without expanding (`> "$(…)"`, `> $1`, a glob) is
# left alone. A text whose literal targets are all settled is remembered per directory.
__agent_guard_overwrites() {
  __agent_guard_ow=()
  \builtin local key="$PWD"$'\x1f'"$1" raw w x literal=1 IFS
  [[ -z ${__agent_guard_okw[$key]-} ]] || \builtin return 1
  raw=${__agent_guard_rwc[$1]-}
  if [[ -z $raw ]]; then
    raw=-
    if __agent_guard_redirs "$1"; then
      IFS=$'\x1f'
      raw="${__agent_guard_rw[*]}"
    fi
    ((${#__agent_guard_rwc[@]} < 256)) || __agent_guard_rwc=()
    __agent_guard_rwc[$1]=$raw
  fi
  if [[ $raw != - ]]; then
    IFS=$'\x1f'
    for w in $raw; do
      if [[ $w == *[\$~\'\"\\\`*?[]* ]]; then
        literal=
        __agent_guard_expand "$w" || continue
        x=$__agent_guard_x
      else
        x=$w
      fi
      # one name per file for what this shell wrote: ./x, a//b
      __agent_guard_abs "$x"
      x=$__agent_guard_nx
      # a device or a descriptor (/dev/null, /dev/stdout, /dev/fd/1, /proc/self/fd/1): not a file here
      [[ $x != /dev/* && $x != /proc/* ]] || continue
      [[ -z ${__agent_guard_mine[$x]-} ]] || continue
      if [[ -f $x && -s $x ]]; then
        __agent_guard_ow+=("$x")
      elif [[ ! -e $x || -f $x ]]; then
        ((${#__agent_guard_mine[@]} < 4096)) || __agent_guard_mine=()
        __agent_guard_mine[$x]=1
      elif [[ ! -c $x ]]; then
        literal= # a directory, a FIFO: nothing to keep now, but not settled
      fi
    done
  fi
  if ((${#__agent_guard_ow[@]})); then \builtin return 0; fi
  if [[ -n $literal ]]; then
    ((${#__agent_guard_okw[@]} < 256)) || __agent_guard_okw=()
    __agent_guard_okw[$key]=1
  fi
  \builtin return 1
}

# The checker for a text whose redirections would truncate files (__agent_guard_ow): it keeps what
# they hold and, in the same call, decides the text when the filter sends it ($3 non-empty: the
# text itself was checked already). Refusals as in __agent_guard_decide; once kept, the files count
# as this shell's own.
__agent_guard_owdecide() {
  \builtin local t="$1" x
  __agent_guard_owonly=1
  if [[ -z ${3-} ]] && __agent_guard_risky "$1"; then t=$__agent_guard_t __agent_guard_owonly=; fi
  if __agent_guard_decide "$t" "$2"; then
    for x in "${__agent_guard_ow[@]}"; do __agent_guard_mine[$x]=1; done
    __agent_guard_ow=() __agent_guard_owonly=
    \builtin return 0
  fi
  __agent_guard_ow=() __agent_guard_owonly=
  \builtin return 1
}

# Runs the checker on $1 with its messages on fd $2; returns its status (127: no runnable node).
__agent_guard_run() {
  \builtin local -a a
  \builtin local x
  a=(hook-shell --shell bash)
  [[ -n ${__agent_guard_interactive-} ]] && a+=(--interactive)
  __agent_guard_shims_active && a+=(--shims)
  for x in "${__agent_guard_ow[@]}"; do a+=(--overwrite "$x"); done
  [[ -z ${__agent_guard_owonly-} ]] || a+=(--overwrite-only)
  # Both of its outputs go to the message fd: nothing may reach the command's stdout.
  # The session's warm checker first (a process start instead of a Node start: shell/hook-client.sh);
  # 125 means it could not answer. A question at the terminal is asked from a Node of our own.
  if [[ -n ${AGENT_GUARD_CHECKER-} && -z ${__agent_guard_interactive-} && -r ${__agent_guard_rest%/*}/hook-client.sh ]]; then
    \builtin local rc=0
    /bin/sh "${__agent_guard_rest%/*}/hook-client.sh" "${a[@]}" --cwd "$PWD" -- "$1" </dev/null >&"$2" 2>&"$2" || rc=$?
    ((rc == 125)) || \builtin return "$rc"
  fi
  [[ -n ${AGENT_GUARD_NODE-} && -f $AGENT_GUARD_NODE && -x $AGENT_GUARD_NODE ]] || \builtin return 127
  # shellcheck disable=SC2261
  NODE_EXTRA_CA_CERTS= "$AGENT_GUARD_NODE" "${AGENT_GUARD_BUNDLE-}" "${a[@]}" --cwd "$PWD" -- "$1" \
    </dev/null >&"$2" 2>&"$2"
}

# The decision on one text $1 (messages on fd $2): 0 = run it, 1 = skip it (interactive refusal).
# A non-interactive refusal exits the shell with 126 from here.
__agent_guard_verdict() {
  __agent_guard_risky "$1" || \builtin return 0
  __agent_guard_decide "$__agent_guard_t" "$2"
}

# The same for a text that passed the prefilter.
__agent_guard_decide() {
  [[ -z ${__agent_guard_refused-} ]] || \builtin return 1
  ((${#__agent_guard_ow[@]})) || ! __agent_guard_defer "$1" || \builtin return 0
  \builtin local rc=0 t
  __agent_guard_run "$1" "$2" || rc=$?
  ((rc == 0)) && \builtin return 0
  if ((rc != 2 && rc != 3)); then
    t=${1//[$'\n\t']/ }
    ((${#t} <= 200)) || t="${t:0:200}..."
    \builtin printf 'agent-guard: the checker failed (status %s): refusing: %s\nagent-guard: next: run '\''agent-guard doctor'\'' to see what is broken, then retry\n' "$rc" "$t" >&"$2"
  fi
  if [[ -n ${__agent_guard_interactive-} ]]; then
    # Skip this command and drop the rest of the line like Ctrl-C would; should SIGINT be trapped,
    # every later command of the line that passes the prefilter is skipped as well.
    __agent_guard_refused=1
    [[ $BASHPID != "$$" ]] || \builtin kill -INT "$$"
    \builtin return 1
  fi
  \builtin exit 126
}

# Interactive: the whole line from history, once per line (the per-command checks still follow).
__agent_guard_line() {
  \builtin local h n
  h=$(HISTTIMEFORMAT= && \builtin history 1)
  h=${h#"${h%%[! $'\t']*}"}
  n=${h%%[!0-9]*}
  [[ -n $n && $n != "${__agent_guard_histno-}" ]] || \builtin return 0
  __agent_guard_histno=$n
  h=${h#"$n"} h=${h#\*}
  h=${h#"${h%%[! $'\t']*}"}
  __agent_guard_verdict "$h" "$1" || \builtin return 1
  __agent_guard_same=$h
}

# (guard.bash's stubs check this: the whole file was read)
__agent_guard_full=1
