# shellcheck shell=bash
# Deliberate throughout: single-quoted $ in patterns (SC2016), unquoted pattern variables on the
# right of == (SC2053), and `a= b=` empty assignments (SC1007).
# shellcheck disable=SC2016,SC2053,SC1007
# agent-guard: the bash hook (docs/shell-hooks.md).
#
# Sourced through BASH_ENV by every non-interactive bash (`bash -c`, `bash -lc`, scripts), and by
# an interactive bash from the `agent-guard shell-init bash` snippet. A DEBUG trap sends command
# text that may be destructive to the checker
#
#   NODE_EXTRA_CA_CERTS= "$AGENT_GUARD_NODE" "$AGENT_GUARD_BUNDLE" hook-shell --shell bash \
#       [--interactive] [--shims] --cwd "$PWD" -- "<text>"
#
# and runs the command on status 0. Status 2 (block), 3 (ask) or anything else refuses it: a
# non-interactive shell exits 126, an interactive one skips the command and drops the rest of the
# line. Sourcing prints nothing, keeps $? (and the DEBUG trap keeps $_), a second source changes
# nothing, and aliases are off while this file is parsed; every builtin is called as \builtin.
# extdebug is switched on lazily inside the trap, never here: set during a non-interactive
# start-up it makes bash try to load bashdb and turn extdebug and functrace back off.

# Under `set -x` (bash -x script.sh) none of the guard is traced: xtrace is off while it loads and
# the trap runs in a form that keeps its trace off stderr (__agent_guard_settrap).
{ __agent_guard_st=$? __agent_guard_xt=$-; \builtin set +x; } 2>/dev/null

# Ends every source of this file: $? as it was before, xtrace back on if it was on.
__agent_guard_return() {
  \builtin unset -v __agent_guard_st __agent_guard_xt __agent_guard_go __agent_guard_prev
  if [[ $1 != 0 ]]; then
    [[ $2 != *x* ]] || \builtin set -x
    \builtin return "$1"
  fi
  [[ $2 != *x* ]] || \builtin set -x
}

# Loaded ("1") or loading ("0": the user's BASH_ENV sources this file again): nothing to do. An
# exported value came from the environment, not from this shell, and does not count.
__agent_guard_go=
if [[ ${__agent_guard_loaded-} != [01] || ${__agent_guard_loaded@a} == *x* ]]; then
  __agent_guard_go=1
  \builtin unset -v __agent_guard_loaded
  __agent_guard_loaded=0
  # The user's own BASH_ENV first (non-interactive shells only: an interactive bash never reads
  # BASH_ENV), at top level so that its `declare`s stay global.
  __agent_guard_usr=${AGENT_GUARD_USER_BASH_ENV-}
  [[ $__agent_guard_usr == */* ]] || __agent_guard_usr=${__agent_guard_usr:+./$__agent_guard_usr}
  if [[ $- != *i* && -n $__agent_guard_usr && -r $__agent_guard_usr && ! $__agent_guard_usr -ef ${BASH_SOURCE[0]} ]]; then
    [[ $__agent_guard_xt != *x* ]] || \builtin set -x
    \builtin source "$__agent_guard_usr"
    # A DEBUG trap it set is taken off at once (it would see the guard's own code) and chained
    # behind the guard's trap by __agent_guard_arm.
    { __agent_guard_prev=$(\builtin trap -p DEBUG) && \builtin trap - DEBUG && \builtin set +x; } 2>/dev/null
  fi
  \builtin unset -v __agent_guard_usr
  # The rest of the file is parsed without alias expansion; __agent_guard_arm restores it.
  __agent_guard_ea=
  if \builtin shopt -q expand_aliases; then
    __agent_guard_ea=1
    \builtin shopt -u expand_aliases
  fi
fi

if [[ -n $__agent_guard_go ]]; then

# THE REST of the hook (shell/guard-rest.bash: the filters, the redirection reader, the checker call)
# is read on first need. Most commands are settled by __agent_guard_debug's common case below, and
# parsing all of the hook cost each `bash -c` about as much again as bash's own start (docs/
# performance.md). Until it is read, these stubs stand in for its entry points; once read, its
# definitions replace them. A rest that cannot be read refuses what needed it (fail closed): a
# non-interactive shell exits 126, an interactive one skips the command.
__agent_guard_more() {
  \builtin local ea=
  if \builtin shopt -q expand_aliases; then
    ea=1
    \builtin shopt -u expand_aliases
  fi
  [[ -r ${__agent_guard_rest-} ]] && \builtin source "$__agent_guard_rest" 2>/dev/null
  [[ -z $ea ]] || \builtin shopt -s expand_aliases
  [[ -z ${__agent_guard_full-} ]] || \builtin return 0
  \builtin printf 'agent-guard: %s cannot be read: refusing (reinstall agent-guard, or run agent-guard doctor)\n' "${__agent_guard_rest-guard-rest.bash}" >&2
  [[ -n ${__agent_guard_interactive-} ]] && \builtin return 1
  \builtin exit 126
}
__agent_guard_risky() {
  __agent_guard_more || { __agent_guard_t=$1; \builtin return 0; }
  __agent_guard_risky "$@"
}
__agent_guard_decide() { __agent_guard_more && __agent_guard_decide "$@"; }
__agent_guard_verdict() { __agent_guard_more && __agent_guard_verdict "$@"; }
__agent_guard_line() { __agent_guard_more && __agent_guard_line "$@"; }
__agent_guard_overwrites() {
  __agent_guard_more || \builtin return 0
  __agent_guard_overwrites "$@"
}
__agent_guard_owdecide() { __agent_guard_more && __agent_guard_owdecide "$@"; }

# THE BYPASS FILTER's pattern (its rules: guard-rest.bash, __agent_guard_risky). The common case
# below tries it itself when a text has one of the first substrings every bypass contains, so that
# a text with a path, `command -v`, a `PATH=` … that is no bypass does not make the shell read the
# rest (3–5 ms of parsing on every `bash -c`).
__agent_guard_bypass='@(*/@(rm|rmdir|unlink|shred|git|find|xargs|parallel|srm|wipe)?([!A-Za-z0-9_.+-]*)'\
'|?(*[[:space:];&|(){}!`"'\''])@(sudo|doas|su|runuser|pkexec|busybox|toybox|enable|zmodload)?([[:space:];&|)}`"'\'']*)'\
'|?(*[[:space:];&|(){}!`"'\''])@(command|hash)+([[:space:]])-*([A-Za-z])p*'\
'|?(*[[:space:];&|(){}!`"'\''])env+([[:space:]])-*'\
'|?(*[[:space:];&|(){}!`"'\''])PATH=!(?(\")\$?({)PATH*)|*unset*PATH*'\
'|*trap*DEBUG*|*TRAPDEBUG*|*BASH_ENV*|*ZDOTDIR*|*AGENT_GUARD*|*agent_guard*|*extdebug*|*functrace*'\
'|*unfunction*|*+T*|*trap -*|*trap '\'''\''*|*trap ""*|*BASH_CMDS*|*trap*[;&|({`"'\'']*([[:space:]])\$*'\
'|*bash*posix*|*POSIXLY_CORRECT*|?(*[[:space:];&|(){}!`"'\''])zsh+([[:space:]])-*([A-Za-z])f*|*zsh*rcs*|*zsh*--emulate*)'
# A bash that does not apply extended globs in [[ == ]] sends every text (bash 5 does). Checked on
# the pattern's first use, not at start: the four matches cost every `bash -c` about 0.6 ms.
__agent_guard_bpcheck() {
  __agent_guard_bpok=1
  if ! [[ '/bin/rm x' == $__agent_guard_bypass && 'x; sudo rm' == $__agent_guard_bypass ]] ||
    [[ 'rm -rf x' == $__agent_guard_bypass || 'command -v git' == $__agent_guard_bypass ]]; then
    __agent_guard_bypass='*'
  fi
}

# Returns 0 when the text $1 (which holds a `>`) may hold a redirection that truncates a file, so
# that the redirection reader (__agent_guard_overwrites, in the rest) must look; 1 when every `>`
# is one of the forms that never do: `>>` appends, a descriptor copy or close (`2>&1`, `>&2`, `>&-`),
# and `/dev/null`. Plain substitutions, no fork, no rest.
__agent_guard_maygt() {
  \builtin local t="${1//'>>'/}"
  t=${t//[0-9]'>&'[0-9]/} t=${t//'>&'[0-9]/} t=${t//'>&-'/} t=${t//'>/dev/null'/} t=${t//'> /dev/null'/}
  [[ $t == *'>'* ]]
}

# One absolute name for a file this shell writes ($1, relative to $PWD: ./x and a//b collapsed), in
# __agent_guard_nx: the key of __agent_guard_mine.
__agent_guard_abs() {
  __agent_guard_nx=$1
  [[ $__agent_guard_nx == /* ]] || __agent_guard_nx=$PWD/$__agent_guard_nx
  while [[ $__agent_guard_nx == *//* || $__agent_guard_nx == */./* ]]; do
    __agent_guard_nx=${__agent_guard_nx//\/.\//\/} __agent_guard_nx=${__agent_guard_nx//\/\//\/}
  done
}

# Returns 0 when the text's one truncating redirection is a trailing `[N]>[|] WORD` whose WORD, a
# plain path, names nothing yet: there is nothing to keep, so the rest need not be read (the cwd file
# a harness writes after every command). The file is this shell's own from now on, as the
# redirection reader would have recorded it.
__agent_guard_newfile() {
  \builtin local x='^([^>]*[^>0-9])?[0-9]*[>][|]? *([A-Za-z0-9_./+,:@%=-]+)$'
  [[ $1 =~ $x ]] || \builtin return 1
  __agent_guard_abs "${BASH_REMATCH[2]}"
  x=$__agent_guard_nx
  [[ $x != /dev/* && $x != /proc/* && ! -e $x && ! -L $x ]] || \builtin return 1
  ((${#__agent_guard_mine[@]} < 4096)) || __agent_guard_mine=()
  __agent_guard_mine[$x]=1
}

# The programs the PATH shims cover. With the shim dir first on PATH, a single simple command
# that starts with one of them is left to the shim, which sees the expanded argv. First means first
# in effect: the shim dir, or absolute directories before it that hold none of the shimmed names (a
# version manager prepending its own directory: pyenv's shim runs `export PATH="$PYENV_BIN_PATH:$PATH"`
# on every python3 call). Checked once per PATH value (ten file tests per directory before it) and
# remembered in __agent_guard_pathok, which the trap's inline tests accept too.
__agent_guard_shims_active() {
  [[ -n ${AGENT_GUARD_SHIMS-} ]] || \builtin return 1
  [[ $PATH == "$AGENT_GUARD_SHIMS" || $PATH == "$AGENT_GUARD_SHIMS":* || $PATH == "${__agent_guard_pathok-}" ]] && \builtin return 0
  __agent_guard_clearto "$PATH" "$AGENT_GUARD_SHIMS" || \builtin return 1
  __agent_guard_pathok=$PATH
}

# Returns 0 when the :-list $1 reaches the entry $2 (or its end, when $2 is empty) through absolute
# directories only, none of which holds a program the shims cover.
__agent_guard_clearto() {
  \builtin local rest="$1" d n
  while :; do
    d=${rest%%:*}
    [[ -z $2 || $d != "$2" ]] || \builtin return 0
    [[ $d == /* ]] || \builtin return 1
    for n in rm rmdir unlink shred git find mv cp truncate rsync; do
      [[ ! -e $d/$n ]] || \builtin return 1
    done
    [[ $rest == *:* ]] || { [[ -z $2 ]]; \builtin return; }
    rest=${rest#*:}
  done
}

# The DEBUG trap. Its text (__agent_guard_settrap) first tries, inline, the cheapest test the hook
# has: a text the bypass filter already passed (the second time it comes), remembered in
# __agent_guard_fast under the `$-` and PATH it was settled with (the key is `$-`, PATH and the text, each ended by a newline but the
# last; only a PATH and a text without newlines are remembered there, so no two keys run
# together). Same options: no xtrace. Same PATH: the shims still first. Loops repeat their texts,
# and such a text then costs no function call: bash parses the trap text and copies a function's
# whole body on every call, and this test costs half of the function's (docs/performance.md).
# Everything else calls __agent_guard_debug, which passes $_ so that $_ survives the trap.
__agent_guard_debug() {
  # xtrace just came on (`set -x` in a script): the rest of this call, and every later one, runs
  # with its trace on /dev/null (the quiet form, __agent_guard_settrap). Shown once: the inline
  # test, this call and this test.
  if [[ $- == *x* && -z ${__agent_guard_quiet-} ]]; then
    { __agent_guard_settrap 1; __agent_guard_check "$@"; \builtin return; } 9>&2 2>/dev/null
  fi
  # The same text under another PATH that keeps the shims first (or other options without
  # xtrace): remembered again for this one. A text with a redirection is remembered per directory,
  # with its targets settled for this line (__agent_guard_okr: cleared with __agent_guard_mine): a
  # loop writing one file stays cheap.
  # This function stays this small for the same reason, so the rest is __agent_guard_check's.
  if [[ ${__agent_guard_phase-}${__agent_guard_quiet-}${__agent_guard_same-} == 0 && ($PATH == "${AGENT_GUARD_SHIMS-}":* || $PATH == "${__agent_guard_pathok-}") && $- != *x* ]]; then
    if [[ -n ${__agent_guard_ok[$BASH_COMMAND]-} ]]; then
      __agent_guard_fastok
      \builtin return 0
    fi
    [[ -z ${__agent_guard_okr[$PWD$'\x1f'$BASH_COMMAND]-} ]] || \builtin return 0
  fi
  __agent_guard_check "$@"
}

# Remembers $BASH_COMMAND for the trap's inline test (its conditions hold: the callers checked).
__agent_guard_fastok() {
  [[ $PATH != *$'\n'* && $BASH_COMMAND != *$'\n'* ]] || \builtin return 0
  ((${#__agent_guard_fast[@]} < 256)) || __agent_guard_fast=()
  __agent_guard_fast[$-$'\n'$PATH$'\n'$BASH_COMMAND]=1
}

# The trap's work for a text it has not settled before (__agent_guard_debug's caller is the
# command's own frame: BASH_SOURCE[2] here).
__agent_guard_check() {
  # This file's own code and the rest's (their functions, and the files while sourced) is not checked. This
  # comes first: extdebug must not be switched on while BASH_ENV is still being read.
  [[ ${BASH_SOURCE[2]-} != "$__agent_guard_self" && ${BASH_SOURCE[2]-} != "${__agent_guard_rest-}" ]] || \builtin return 0
  [[ $BASHOPTS == *extdebug* ]] || \builtin shopt -s extdebug
  # The first command of `bash -c STRING` with the shims active has nothing more to do than any
  # other (phase 3 below checks the whole string only without them).
  [[ ${__agent_guard_phase-} != 3 ]] || ! __agent_guard_shims_active || __agent_guard_phase=0
  # The common case, kept short: one command, nothing pending, no xtrace.
  if [[ ${__agent_guard_phase-}${__agent_guard_quiet-}${__agent_guard_same-} == 0 && $- != *x* ]]; then
    # A redirection that would truncate a file holding content this shell did not write: kept first.
    if [[ $BASH_COMMAND == *'>'* ]] && __agent_guard_maygt "$BASH_COMMAND" && ! __agent_guard_newfile "$BASH_COMMAND" && __agent_guard_overwrites "$BASH_COMMAND"; then
      __agent_guard_owdecide "$BASH_COMMAND" 2
      \builtin return
    fi
    # With the shims active, most commands are done here: no bypass substring, no `$` program word
    # (the first case of __agent_guard_risky, inlined: a function call costs as much as the test).
    if [[ -n ${AGENT_GUARD_SHIMS-} && ($PATH == "$AGENT_GUARD_SHIMS" || $PATH == "$AGENT_GUARD_SHIMS":* || $PATH == "${__agent_guard_pathok-}") ]]; then
      case $BASH_COMMAND in
        \$* | \"\$*) __agent_guard_hit=1 ;;
        */rm* | */unlink* | */shred* | */git* | */find* | */xargs* | */parallel* | */srm* | */wipe* | \
          *su* | *doas* | *runuser* | *pkexec* | *box* | *enable* | *zmod* | *command* | *hash* | \
          *env* | *PATH* | *path=* | *trap* | *DEBUG* | *_ENV* | *ZDOT* | *AGENT_GUARD* | *agent_guard* | \
          *extdebug* | *func* | *+T* | *_CMDS* | *posix* | *POSIX* | *zsh*)
          # A PATH that keeps the shim dir first (a harness's shell snapshot re-exporting the PATH it
          # was started with, on every command): __agent_guard_risky's first exemption.
          [[ $BASH_COMMAND != ?(export )PATH=?([\"\'])"$AGENT_GUARD_SHIMS"?(:*([!\;\&\|\`\$\(\)]))?([\"\']) ]] || \builtin return 0
          # A first substring without the whole pattern is no bypass either (as __agent_guard_risky
          # decides it): a path, `command -v`, `env VAR=x`, … need not read the rest.
          # (a bypass goes to __agent_guard_risky, in the rest, for its exemptions: a PATH prepend of
          # directories without the shimmed programs, a harmless `enable -f`.)
          [[ -n ${__agent_guard_bpok-} ]] || __agent_guard_bpcheck
          if [[ $BASH_COMMAND == $__agent_guard_bypass ]]; then __agent_guard_hit=1; else __agent_guard_hit=; fi
          # (a `trap` goes to the rest, which reads the functions its handler calls)
          [[ $BASH_COMMAND != trap[[:space:]]* ]] || __agent_guard_hit=1
          ;;
        *) __agent_guard_hit= ;;
      esac
      if [[ -z $__agent_guard_hit ]]; then
        # Remembered (at most 256 texts, then it starts over).
        ((${#__agent_guard_ok[@]} < 256)) || __agent_guard_ok=()
        if [[ $BASH_COMMAND == *'>'* ]] && __agent_guard_maygt "$BASH_COMMAND"; then
          # (its targets settled: __agent_guard_overwrites remembered the text in this directory)
          if [[ -n ${__agent_guard_okw[$PWD$'\x1f'$BASH_COMMAND]-} ]]; then
            ((${#__agent_guard_okr[@]} < 256)) || __agent_guard_okr=()
            __agent_guard_okr[$PWD$'\x1f'$BASH_COMMAND]=1
          fi
        elif [[ $BASH_COMMAND != [@*] ]]; then
          # (entered for the inline test the second time it comes: a `bash -c` of one command
          # never needs it)
          __agent_guard_ok[$BASH_COMMAND]=1
        fi
        \builtin return 0
      fi
    fi
    __agent_guard_risky "$BASH_COMMAND" || \builtin return 0
    __agent_guard_decide "$__agent_guard_t" 2
    \builtin return
  fi
  __agent_guard_other
}

# The rest of the trap's work, kept apart for the same reason: a line pending (interactive, the
# first command of `bash -c` without the shims), quiet mode, xtrace.
__agent_guard_other() {
  \builtin local __agent_guard_fd=2
  if [[ -n ${__agent_guard_quiet-} ]]; then
    __agent_guard_fd=9
    [[ $- == *x* ]] || __agent_guard_settrap ''
  fi
  if [[ $- == *x* ]]; then
    \builtin local -
    \builtin set +x
    [[ -n ${__agent_guard_quiet-} ]] || __agent_guard_settrap 1
  fi
  case ${__agent_guard_phase-0} in
    1) \builtin return 0 ;; # at the prompt: PROMPT_COMMAND, PS1 expansion, completion
    2) # the first command of a new interactive line
      __agent_guard_phase=0 __agent_guard_refused=
      # (with the shims active every command is checked on its own, below: the shims decide what
      # a whole line's shape used to be guessed from, on the concrete argv and cwd)
      __agent_guard_shims_active || __agent_guard_line "$__agent_guard_fd" || \builtin return 1
      ;;
    3) # the first command of `bash -c STRING`: the whole string once
      __agent_guard_phase=0
      if ! __agent_guard_shims_active; then
        __agent_guard_same=${BASH_EXECUTION_STRING-}
        __agent_guard_verdict "$__agent_guard_same" "$__agent_guard_fd"
      fi
      ;;
  esac
  if [[ $BASH_COMMAND == *'>'* ]] && __agent_guard_maygt "$BASH_COMMAND" && __agent_guard_overwrites "$BASH_COMMAND"; then
    \builtin local __agent_guard_seen=
    [[ $BASH_COMMAND != "${__agent_guard_same-}" ]] || __agent_guard_seen=1
    __agent_guard_same=
    __agent_guard_owdecide "$BASH_COMMAND" "$__agent_guard_fd" "$__agent_guard_seen"
    \builtin return
  fi
  if [[ -n ${__agent_guard_same-} ]]; then
    if [[ $BASH_COMMAND == "$__agent_guard_same" ]]; then
      __agent_guard_same=
      \builtin return 0
    fi
    __agent_guard_same=
  fi
  __agent_guard_verdict "$BASH_COMMAND" "$__agent_guard_fd"
}

# Installs the DEBUG trap; $1 non-empty = the xtrace form, which runs the hook with stderr on
# /dev/null (so `set -x` shows none of it) and its messages on fd 9. A DEBUG trap the shell had
# before the guard was loaded runs after the hook when the hook lets the command run (and not for
# the guard's own code); when it returns non-zero, the command is skipped as before.
__agent_guard_settrap() {
  \builtin local t='[[ -n ${__agent_guard_fast[$-$'\''\n'\''$PATH$'\''\n'\''$BASH_COMMAND]-} ]] || __agent_guard_debug "$_"'
  [[ -z $1 ]] || t='{ __agent_guard_debug "$_"; } 9>&2 2>/dev/null'
  __agent_guard_quiet=$1
  [[ -z ${__agent_guard_user_trap-} ]] ||
    t+=$' && { [[ ${BASH_SOURCE[0]-} == "$__agent_guard_self" || ${BASH_SOURCE[0]-} == "$__agent_guard_rest" ]] || {\n'"$__agent_guard_user_trap"$'\n}; }'
  \builtin trap -- "$t" DEBUG
}

# Interactive: runs first in PROMPT_COMMAND (keeping $?) and marks "at the prompt"; PS0, expanded
# once a line has been read, marks "new line".
__agent_guard_precmd() {
  \builtin local rc="$?"
  __agent_guard_phase=1 __agent_guard_refused=
  # A new line: what an earlier line wrote is no longer "just written" (__agent_guard_overwrites).
  __agent_guard_mine=() __agent_guard_okw=() __agent_guard_okr=()
  if ! \builtin shopt -q promptvars; then
    __agent_guard_phase=2 # PS0 would not be expanded: check everything, prompt included
  elif [[ ${PS0-} != *"$__agent_guard_ps0"* ]]; then
    PS0=$__agent_guard_ps0${PS0-}
  fi
  \builtin return "$rc"
}

__agent_guard_arm() {
  __agent_guard_self=${BASH_SOURCE[0]}
  # (absolute: the rest is read later, after any cd)
  case $__agent_guard_self in
    /*) __agent_guard_rest=${__agent_guard_self%/*}/guard-rest.bash ;;
    */*) __agent_guard_rest=$PWD/${__agent_guard_self%/*}/guard-rest.bash ;;
    *) __agent_guard_rest=$PWD/guard-rest.bash ;;
  esac
  # bash -lc: /etc/profile reset PATH before this file ran; put the shim dir back in front.
  if [[ -n ${AGENT_GUARD_SHIMS-} ]] && ! __agent_guard_shims_active; then
    PATH=$AGENT_GUARD_SHIMS${PATH:+:$PATH}
  fi
  __agent_guard_interactive= __agent_guard_phase=0 __agent_guard_user_trap=
  if [[ $- == *i* && -z ${BASH_EXECUTION_STRING-} ]]; then
    __agent_guard_interactive=1 __agent_guard_phase=1
    __agent_guard_nil=
    __agent_guard_ps0='${__agent_guard_nil:$((__agent_guard_phase=2)):0}'
    if [[ -n ${PROMPT_COMMAND+set} && ${PROMPT_COMMAND@a} == *a* ]]; then
      PROMPT_COMMAND=(__agent_guard_precmd "${PROMPT_COMMAND[@]}")
    else
      # shellcheck disable=SC2128,SC2178 # the string form, in this branch
      PROMPT_COMMAND=__agent_guard_precmd${PROMPT_COMMAND:+$'\n'$PROMPT_COMMAND}
    fi
  elif [[ -n ${BASH_EXECUTION_STRING-} ]]; then
    __agent_guard_phase=3
  fi
  # (never our own trap: that would check everything twice)
  if [[ -n ${__agent_guard_prev-} && $__agent_guard_prev != *__agent_guard_debug* ]]; then
    \builtin local -a p
    \builtin eval "p=($__agent_guard_prev)"
    __agent_guard_user_trap=${p[2]-}
  fi
  [[ -z $__agent_guard_ea ]] || \builtin shopt -s expand_aliases
  \builtin unset -v __agent_guard_ea
  __agent_guard_loaded=1
  # The texts the bypass filter passed (__agent_guard_debug).
  \builtin declare -gA __agent_guard_ok __agent_guard_fast __agent_guard_mine __agent_guard_okw __agent_guard_okr __agent_guard_rwc
  __agent_guard_ok=() __agent_guard_fast=() __agent_guard_mine=() __agent_guard_okw=() __agent_guard_okr=() __agent_guard_rwc=()
  \builtin declare -ga __agent_guard_ow
  __agent_guard_ow=()
  # An interactive shell reads the rest of the hook now: its start is not on an agent's path, and
  # its prompt hooks need it.
  [[ -z $__agent_guard_interactive ]] || __agent_guard_more || :
  \builtin set -T
  \builtin local q=
  [[ $__agent_guard_xt != *x* ]] || q=1
  __agent_guard_settrap "$q"
}

# A DEBUG trap set before the guard is chained. In a non-interactive shell only the user's BASH_ENV
# (sourced above) can have set one. In an interactive shell it comes from the start-up files, but
# bash hides the DEBUG trap inside a sourced file (unless set -T is on), so the shell-init
# snippet passes it in, as `trap -p DEBUG` output taken just before sourcing this file:
#   __agent_guard_prev=$(trap -p DEBUG); . /path/to/shell/guard.bash
if [[ -n ${__agent_guard_prev+set} && ${__agent_guard_prev@a} == *x* ]]; then
  __agent_guard_prev=
fi
if [[ -z ${__agent_guard_prev-} && $- == *i* ]]; then
  __agent_guard_prev=$(\builtin trap -p DEBUG)
fi
__agent_guard_arm

fi

__agent_guard_return "$__agent_guard_st" "$__agent_guard_xt"
