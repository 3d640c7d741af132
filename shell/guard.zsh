# agent-guard: the zsh hook (docs/shell-hooks.md).
#
# Sourced by the ZDOTDIR wrapper's .zshenv (shell/zsh/.zshenv) in every zsh that reads startup
# files, after the user's own .zshenv. A function-form TRAPDEBUG sends command text that may be
# destructive to the checker
#
#   NODE_EXTRA_CA_CERTS= "$AGENT_GUARD_NODE" "$AGENT_GUARD_BUNDLE" hook-shell --shell zsh \
#       [--interactive] [--shims] --cwd "$PWD" -- "<text>"
#
# and runs the command on status 0. Status 2 (block), 3 (ask) or anything else refuses it: a
# non-interactive zsh exits 126 (`exit 126` from TRAPDEBUG); an interactive one abandons the rest
# of the command line and returns to the prompt (TRAPDEBUG returns 1, $? is 1). zsh hands the trap
# one *sublist* at a time, as reprinted text: `cd x && rm -rf *` arrives whole.
# Sourcing prints nothing, keeps $?, a second source changes nothing, and aliases are off while
# this file is parsed. The user's start-up files run with the checks off (__agent_guard_phase=1).

__agent_guard_st=$?
if [[ -o aliases ]]; then __agent_guard_al=1; else __agent_guard_al=; fi
\builtin unsetopt aliases

# Loaded ("1"): nothing to do. An exported value came from the environment and does not count.
if [[ ${__agent_guard_loaded-} != 1 || ${(t)__agent_guard_loaded} == *export* ]]; then
  \builtin unset __agent_guard_loaded
  __agent_guard_loaded=1

  # THE PREFILTER: the same rules as shell/guard.bash (docs/shell-hooks.md). A text may be
  # destructive when it has `$(`, a backquote, `<(`, `>(` or `=(`; the guard's own names (DEBUG,
  # ZDOTDIR, ...: the checker refuses tampering); a word of this list anywhere (zsh adds zmodload,
  # zf_rm and zf_rmdir: zsh/files turns rm into a builtin) or an -rf-like option cluster; or, in
  # program position, `.`, a word with / $ \ ' " * ? [ { ~ = ` or a redirection.
  __agent_guard_words='(rm|rmdir|unlink|shred|srm|wipe|trash|git|find|xargs|parallel|eval|source|exec'\
'|command|builtin|env|sudo|doas|su|runuser|busybox|sh|bash|zsh|dash|ksh|fish|script|watch|timeout'\
'|nice|nohup|setsid|stdbuf|ionice|taskset|chrt|flock|unshare|time|hash|enable|coproc'\
'|zmodload|zf_rm|zf_rmdir|-delete|--force|--hard'\
'|-[A-Za-z]#[rR][A-Za-z]#f[A-Za-z]#|-[A-Za-z]#f[A-Za-z]#[rR][A-Za-z]#)'
  # Tokens of ${(z)...} after which the next word is in program position, and (for the deferral
  # test) every token that means more than one simple command.
  __agent_guard_seps='(;|;;|;&|;\||&&|\|\||\||\|&|&|&\||&!|\(|{|\(\))'
  __agent_guard_multi='(;|;;|;&|;\||&&|\|\||\||\|&|&|&\||&!|\(|\)|{|}|\(\))'
  # THE BYPASS FILTER, used instead of the prefilter while the PATH shims are active (the same
  # rules as shell/guard.bash, docs/shell-hooks.md): a guarded program named by a path anywhere; a
  # word that resolves programs past PATH or runs them as another user; a PATH (or zsh's `path`)
  # assignment; a builtin loader; the guard's own machinery. Everything reached through a PATH
  # lookup is the shims' business.
  __agent_guard_bypass='(*/(rm|rmdir|unlink|shred|git|find|xargs|parallel|srm|wipe)(|[^A-Za-z0-9_.+-]*)'\
'|(|*[[:space:];&|(){}!`"'\''])(sudo|doas|su|runuser|pkexec|busybox|toybox|enable|zmodload|zf_rm|zf_rmdir)(|[[:space:];&|)}`"'\'']*)'\
'|(|*[[:space:];&|(){}!`"'\''])(command|hash)[[:space:]]##-[A-Za-z]#p*'\
'|(|*[[:space:];&|(){}!`"'\''])env[[:space:]]##-*'\
'|((|*[[:space:];&|(){}!`"'\''])PATH=*~(|*[[:space:];&|(){}!`"'\''])PATH=(|[\"])[$](|[{])PATH*)|(|*[[:space:];&|(){}!`"'\''])path=*|*unset*(PATH|path)*'\
'|*trap*DEBUG*|*TRAPDEBUG*|*BASH_ENV*|*ZDOTDIR*|*AGENT_GUARD*|*agent_guard*|*extdebug*|*functrace*'\
'|*unfunction*|*+T*|*trap -*|*trap '\'''\''*|*trap ""*'\
'|(|*[[:space:];&|(){}!`"'\''])hash[[:space:]]##*=*|*commands\[*|*commands(|+)=\(*'\
'|*trap*[;&|({`"'\''][[:space:]]#[$]*|*TRAP[A-Z]*'\
'|*bash*posix*|*POSIXLY_CORRECT*|(|*[[:space:];&|(){}!`"'\''])zsh[[:space:]]##-[A-Za-z]#f*|*zsh*rcs*|*zsh*--emulate*)'

  # This file and the wrapper's files live here; their own code is never checked.
  __agent_guard_dir=${${(%):-%x}:h}

  # First in effect, as in guard.bash: the shim dir, or absolute directories before it that hold
  # none of the shimmed names; checked once per PATH value (__agent_guard_pathok).
  __agent_guard_shims_active() {
    [[ -n ${AGENT_GUARD_SHIMS-} ]] || \builtin return 1
    [[ $PATH == $AGENT_GUARD_SHIMS || $PATH == $AGENT_GUARD_SHIMS:* || $PATH == ${__agent_guard_pathok-} ]] && \builtin return 0
    \builtin integer at=${path[(ie)$AGENT_GUARD_SHIMS]}
    (( at <= $#path )) && __agent_guard_clear "${(@)path[1,at-1]}" || \builtin return 1
    __agent_guard_pathok=$PATH
  }

  # Returns 0 when every argument is an absolute directory holding none of the programs the shims
  # cover (a directory that may come before the shim dir on PATH).
  __agent_guard_clear() {
    \builtin local d n
    for d in "$@"; do
      [[ $d == /* ]] || \builtin return 1
      for n in rm rmdir unlink shred git find mv cp truncate rsync; do
        [[ ! -e $d/$n ]] || \builtin return 1
      done
    done
  }

  # Returns 0 when $1 can be left to the PATH shims: shims active, the text is one simple command
  # (no separator, group or subshell token; no `$(`, backquote, `<(`, `>(`, `=(` in any word), and
  # its first word after assignments (none of PATH) is exactly one of rm rmdir unlink shred git find.
  __agent_guard_defer() {
    \builtin emulate -L zsh
    \builtin setopt extendedglob
    __agent_guard_shims_active || \builtin return 1
    case $1 in (*'$('* | *'`'* | *'<('* | *'>('* | *'=('*) \builtin return 1 ;; esac
    \builtin local -a w
    w=("${(@z)1}")
    \builtin local x
    for x in "${w[@]}"; do
      [[ $x == ${~__agent_guard_multi} || $x == $'\n' ]] && \builtin return 1
    done
    while (( $#w )); do
      case $w[1] in
        (PATH=* | PATH+=*) \builtin return 1 ;;
        ([A-Za-z_]##=*) w=(${w[2,-1]}) ;;
        (rm | rmdir | unlink | shred | git | find) \builtin return 0 ;;
        (*) \builtin return 1 ;;
      esac
    done
    \builtin return 1
  }

  # $1 is `PATH=VALUE` (VALUE quoted as a whole or not): a prefix of literal directories and
  # `$NAME`/`${NAME}` references, then `:$PATH` or `:${PATH}`. Returns 0 when the prefix, resolved
  # from the shell's variables (no side effect), names only absolute directories holding none of the
  # programs the shims cover (as in guard.bash: pyenv's `export PATH="${PYENV_BIN_PATH}:${PATH}"`).
  __agent_guard_prepend() {
    \builtin emulate -L zsh
    \builtin setopt extendedglob
    \builtin local __agent_guard_pv=${${1#PATH=}%%[[:space:]]#} __agent_guard_pr= __agent_guard_pn
    [[ $__agent_guard_pv == \"*\" ]] && __agent_guard_pv=${${__agent_guard_pv#\"}%\"}
    case $__agent_guard_pv in
      (*:\$PATH) __agent_guard_pv=${__agent_guard_pv%:\$PATH} ;;
      (*:\$\{PATH\}) __agent_guard_pv=${__agent_guard_pv%:\$\{PATH\}} ;;
      (*) \builtin return 1 ;;
    esac
    while [[ -n $__agent_guard_pv ]]; do
      if [[ $__agent_guard_pv == (#b)\$\{([A-Za-z_][A-Za-z0-9_]#)\}(*) || $__agent_guard_pv == (#b)\$([A-Za-z_][A-Za-z0-9_]#)(*) ]]; then
        __agent_guard_pn=$match[1] __agent_guard_pv=$match[2]
        [[ $__agent_guard_pn != PATH && -n ${(P)__agent_guard_pn-} ]] || \builtin return 1
        __agent_guard_pr+=${(P)__agent_guard_pn}
      elif [[ $__agent_guard_pv == (#b)([/:A-Za-z0-9._+@%-]##)(*) ]]; then
        __agent_guard_pr+=$match[1] __agent_guard_pv=$match[2]
      else
        \builtin return 1
      fi
    done
    [[ -n $__agent_guard_pr ]] && __agent_guard_clear "${(@s.:.)__agent_guard_pr}"
  }

  # $1 is a `trap …` text or a trap function's definition: returns 0 when a word of it names a
  # function, with __agent_guard_tt set to the text and, before it, one more `trap -- '…' EXIT` whose
  # handler holds the bodies of those functions and of the functions they name (at most 16): a
  # handler runs past TRAPDEBUG (zsh runs none inside it), so only the shims will see it, and
  # `cleanup() { /bin/rm -rf $d }; trap cleanup EXIT` would delete past them. No fork.
  __agent_guard_trapfn() {
    \builtin emulate -L zsh
    \builtin setopt extendedglob
    \builtin local todo=${1//[^A-Za-z0-9_.:-]/ } w bodies= seen=' ' IFS=' '
    \builtin integer n=0
    while [[ -n ${todo// /} ]] && (( n < 16 )); do
      \builtin local -a ws
      ws=(${=todo})
      todo=
      for w in $ws; do
        [[ $w == [A-Za-z_][A-Za-z0-9_.:-]# && $seen != *" $w "* && $w != __agent_guard_* ]] || continue
        (( ${+functions[$w]} )) || continue
        seen+="$w "
        (( ++n <= 16 )) || break
        bodies+=${functions[$w]}$'\n'
        todo+=" ${functions[$w]//[^A-Za-z0-9_.:-]/ }"
      done
    done
    [[ -n $bodies ]] || \builtin return 1
    # (first: after a function definition the checker places nothing)
    __agent_guard_tt="trap -- ${(qq)bodies} EXIT"$'\n'$1
  }

  # $ZSH_DEBUG_CMD starts with a variable as its program (`$x -rf y`, `"${RM}" y`): sets
  # __agent_guard_vt to the text with the variable's value in its place when that value holds a `/`
  # (a program named by a path, which the shims do not see). Its locals have the guard's prefix, so
  # that no user variable is hidden by one of them.
  __agent_guard_varprog() {
    \builtin emulate -L zsh
    \builtin setopt extendedglob
    \builtin local __agent_guard_vs=${ZSH_DEBUG_CMD#\"} __agent_guard_vn
    __agent_guard_vs=${__agent_guard_vs#\$}
    __agent_guard_vs=${__agent_guard_vs#\{}
    __agent_guard_vn=${__agent_guard_vs%%[^A-Za-z0-9_]*}
    [[ $__agent_guard_vn == [A-Za-z_]* && ${(P)__agent_guard_vn-} == */* ]] || \builtin return 0
    __agent_guard_vs=${__agent_guard_vs#$__agent_guard_vn}
    __agent_guard_vs=${__agent_guard_vs#\}}
    __agent_guard_vs=${__agent_guard_vs#\"}
    __agent_guard_vt="${(q)${(P)__agent_guard_vn}}$__agent_guard_vs"
  }

  # OVERWRITES (docs/shell-hooks.md, "Redirections"; the same rules as shell/guard.bash, on zsh's
  # own tokens of the sublist): sets __agent_guard_ow to the files the redirections of $1 would
  # truncate (`>`, `>|`, `>!`, `&>`, `>&` onto a name, any fd) that hold content this shell did not
  # write itself, and returns 0 when there is one. No fork. Only redirections at the sublist's top
  # level count (one inside `{ … }`, a loop or an `if` is checked when its command runs); a literal
  # `cd DIR` before one moves the directory relative targets are read in, another `cd` leaves them
  # unread. A target that cannot be read without expanding (`$(…)`, `$1`, a glob) is left alone.
  __agent_guard_overwrites() {
    \builtin emulate -L zsh
    \builtin setopt extendedglob
    __agent_guard_ow=()
    \builtin local key="$PWD"$'\x1f'"$1" tok t x dir=$PWD
    [[ -z ${__agent_guard_okw[$key]-} ]] || \builtin return 1
    \builtin local -a w match mbegin mend
    w=("${(@z)1}")
    \builtin integer i=1 n=$#w depth=0 cmd=1 literal=1 cd=0
    while (( i <= n )); do
      tok=$w[i]
      (( i++ ))
      if [[ $tok == (<->|)(\>|\>\||\>\!|\&\>|\&\>\||\&\>\!|\>\&|\>\&\||\>\&\!) ]]; then
        t=$w[i]
        (( i++ ))
        (( depth == 0 )) || continue
        [[ $tok == *\& && $t == (<->|-|p) ]] && continue # a descriptor copy (>&2, 2>&1, >&-)
        if [[ $t == *[\$\`\'\"\\~*?\[]* ]]; then
          literal=0
          if [[ $t == \~(|/*) && -n ${HOME-} ]]; then
            x=$HOME${t#\~}
            [[ $x != *[\$\`\'\"\\*?\[]* ]] || continue
          elif [[ $t != *[\`\'\\*?\[~]* && $t == ((#s)\"|)([^\$\"]|\$[A-Za-z_][A-Za-z0-9_]#|\$\{[A-Za-z_][A-Za-z0-9_]#\})#(\"(#e)|) ]]; then
            x=${t#\"} x=${x%\"}
            [[ $x != *\"* ]] || continue
            # every variable it names must be set
            t=$x
            while [[ $t == (#b)*\$(\{|)([A-Za-z_][A-Za-z0-9_]#)* ]]; do
              (( ${(P)+match[2]} )) || continue 2
              t=${t/\$${match[1]}${match[2]}}
            done
            x=${(e)x}
          else
            continue
          fi
        else
          x=$t
        fi
        if [[ $x != /* ]]; then
          [[ -n $dir ]] || continue
          x=$dir/$x
        fi
        # one name per file for what this shell wrote: ./x, a//b
        while [[ $x == *//* || $x == */./* ]]; do x=${x//\/.\//\/} x=${x//\/\//\/}; done
        # a device or a descriptor (/dev/null, /dev/stdout, /dev/fd/1, /proc/self/fd/1): not a file here
        [[ $x != /dev/* && $x != /proc/* ]] || continue
        [[ -z ${__agent_guard_mine[$x]-} ]] || continue
        if [[ -f $x && -s $x ]]; then
          __agent_guard_ow+=("$x")
        elif [[ ! -e $x || -f $x ]]; then
          (( ${#__agent_guard_mine} < 4096 )) || __agent_guard_mine=()
          __agent_guard_mine[$x]=1
        elif [[ ! -c $x ]]; then
          literal=0
        fi
        continue
      fi
      if (( cd )); then
        cd=0
        if [[ $tok == [^-\$\`\'\"\\~*?\[]* && $tok != *[\$\`\'\"\\*?\[]* ]]; then
          if [[ $tok == /* ]]; then dir=$tok; elif [[ -n $dir ]]; then dir=$dir/$tok; fi
        else
          dir='' literal=0
        fi
        continue
      fi
      case $tok in
        (\;|\;\;|\;\&|\;\||\&\&|\|\||\||\|\&|\&|\&\||\&\!|$'\n') cmd=1 ;;
        (\{|\(|\(\(|if|case|for|while|until|select|repeat|foreach) (( cmd )) && (( ++depth )) ;;
        (\}|\)|\)\)|fi|esac|done|end) (( cmd && depth > 0 )) && (( --depth )) ;;
        (then|else|elif|do|\!|time|nocorrect|noglob|-|builtin|command|exec) ;;
        ([A-Za-z_][A-Za-z0-9_]#(|\+)=*) ;;
        (cd|pushd|popd|chdir)
          if (( cmd && depth == 0 )); then
            cmd=0 cd=1
            # `cd` with no operand: HOME; the operand is read next (an option makes it unread)
            if (( i > n )) || [[ $w[i] == (\;|\&\&|\|\||\||\&) ]]; then dir=${HOME-} cd=0; fi
          else
            cmd=0
          fi
          ;;
        (*) cmd=0 ;;
      esac
    done
    (( ${#__agent_guard_ow} )) && \builtin return 0
    if (( literal )); then
      (( ${#__agent_guard_okw} < 256 )) || __agent_guard_okw=()
      __agent_guard_okw[$key]=1
    fi
    \builtin return 1
  }

  # The decision on a text $1 that passed the prefilter: 0 = run it, 1 = refused in an interactive
  # shell (the trap then abandons the line). A non-interactive refusal exits the shell with 126.
  __agent_guard_decide() {
    (( ${#__agent_guard_ow} )) || ! __agent_guard_defer "$1" || \builtin return 0
    \builtin emulate -L zsh
    \builtin local -a a
    \builtin local x
    a=(hook-shell --shell zsh)
    [[ -n ${__agent_guard_interactive-} ]] && a+=(--interactive)
    __agent_guard_shims_active && a+=(--shims)
    for x in $__agent_guard_ow; do a+=(--overwrite $x); done
    [[ -z ${__agent_guard_owonly-} ]] || a+=(--overwrite-only)
    \builtin integer rc=127
    # The session's warm checker first (shell/hook-client.sh: a process start instead of a Node
    # start); 125: it could not answer. A question at the terminal is asked from a Node of our own.
    if [[ -n ${AGENT_GUARD_CHECKER-} && -z ${__agent_guard_interactive-} && -r $__agent_guard_dir/hook-client.sh ]]; then
      /bin/sh "$__agent_guard_dir/hook-client.sh" $a --cwd "$PWD" -- "$1" </dev/null >&2
      rc=$?
    fi
    if (( rc == 125 || rc == 127 )) && [[ -n ${AGENT_GUARD_NODE-} && -f $AGENT_GUARD_NODE && -x $AGENT_GUARD_NODE ]]; then
      NODE_EXTRA_CA_CERTS= "$AGENT_GUARD_NODE" "${AGENT_GUARD_BUNDLE-}" $a --cwd "$PWD" -- "$1" </dev/null >&2
      rc=$?
    fi
    # (what the checker kept counts as this shell's own from here on)
    if (( rc == 0 )); then
      for x in $__agent_guard_ow; do __agent_guard_mine[$x]=1; done
      __agent_guard_ow=() __agent_guard_owonly=
      \builtin return 0
    fi
    __agent_guard_ow=() __agent_guard_owonly=
    if (( rc != 2 && rc != 3 )); then
      \builtin local t=${1//[$'\n\t']/ }
      (( $#t <= 200 )) || t="${t[1,200]}..."
      \builtin print -rlu2 -- "agent-guard: the checker failed (status $rc): refusing: $t" "agent-guard: next: run 'agent-guard doctor' to see what is broken, then retry"
    fi
    [[ -n ${__agent_guard_interactive-} ]] && \builtin return 1
    \builtin exit 126
  }

  # The trap body, installed as TRAPDEBUG by __agent_guard_install. The prefilter is inlined here:
  # every function call costs a zsh trap tens of microseconds. Returns 0 to run the command (then
  # a TRAPDEBUG the user had runs too), 1 to abandon the line (interactive refusal).
  __agent_guard_trapdebug() {
    # A text the bypass filter passed before, under the same options and PATH (__agent_guard_fast,
    # filled below; the key is `$-`, PATH and the text, each ended by a newline but the last, and
    # neither a PATH nor a text with a newline is entered, so keys never run together): nothing to
    # check. Loops repeat their texts; the rest of this body costs a zsh loop of builtins several
    # times this test (docs/shell-hooks.md, "Cost").
    # (zsh reads no $'…' inside a subscript: __agent_guard_nl holds the newline)
    if [[ -n ${__agent_guard_fast[$-$__agent_guard_nl$PATH$__agent_guard_nl$ZSH_DEBUG_CMD]-} ]]; then
      (( ${+functions[__agent_guard_user_trapdebug]} )) || \builtin return 0
      __agent_guard_user_trapdebug "$@"
      \builtin return
    fi
    # (quoted: a script under `emulate sh` splits words here, before the check's own emulate)
    \builtin local __agent_guard_key="$-$__agent_guard_nl$PATH$__agent_guard_nl$ZSH_DEBUG_CMD"
    # A leading `$name` program word, resolved before any local of this function can hide a
    # variable of the same name.
    __agent_guard_vt=
    [[ $ZSH_DEBUG_CMD == (\$|\"\$)* ]] && __agent_guard_varprog
    \builtin integer check=1
    # The guard's own code (this file, the wrapper's files, our functions) is never checked, and
    # a user's trap does not see it either.
    (( ${#funcstack} > 1 )) && [[ ${funcsourcetrace[2]-} == "$__agent_guard_dir"/* ]] && \builtin return 0
    if (( ${__agent_guard_phase:-0} )); then
      check=0 # start-up files, prompt time
    elif (( ${#funcstack} > 1 )); then
      # Interactive: hook functions (precmd runs before our precmd hook can mark the prompt) are
      # the user's configuration, not typed commands.
      if [[ -n ${__agent_guard_interactive-} ]]; then
        case ${funcstack[-1]} in
          (precmd | preexec | chpwd | periodic | zshaddhistory | zshexit) check=0 ;;
        esac
        (( ${precmd_functions[(Ie)${funcstack[-1]}]} || ${preexec_functions[(Ie)${funcstack[-1]}]} ||
          ${chpwd_functions[(Ie)${funcstack[-1]}]} || ${periodic_functions[(Ie)${funcstack[-1]}]} ||
          ${zshaddhistory_functions[(Ie)${funcstack[-1]}]} || ${zshexit_functions[(Ie)${funcstack[-1]}]} )) &&
          check=0
      fi
    fi
    if (( check )); then
      \builtin emulate -L zsh
      \builtin setopt extendedglob
      \builtin local c=$ZSH_DEBUG_CMD w n
      \builtin integer p=1 risky=0
      \builtin integer shims=0
      if __agent_guard_shims_active; then
        shims=1
        # One sublist at a time, bypasses only; a leading `$name` program word is resolved (by
        # __agent_guard_varprog, before this function's locals existed). First substrings every
        # bypass must contain, as plain patterns; the extended pattern costs far more and runs only
        # on a hit.
        if [[ -n $__agent_guard_vt ]]; then
          # (only when the resolved text takes a command past the shims: `$RM` = /bin/rm, not
          # pyenv's `"$READLINK" "$1"`)
          c=$__agent_guard_vt
          [[ $c != ${~__agent_guard_bypass} ]] || risky=1
        else
          case $c in
            (*/rm* | */unlink* | */shred* | */git* | */find* | */xargs* | */parallel* | */srm* | */wipe* | \
              *su* | *doas* | *runuser* | *pkexec* | *box* | *enable* | *zmod* | *zf_* | *command* | \
              *hash* | *env* | *PATH* | *path* | *trap* | *TRAP* | *DEBUG* | *_ENV* | *ZDOT* | *AGENT_GUARD* | *agent_guard* | \
              *posix* | *POSIX* | *zsh* | \
              *extdebug* | *func* | *+T*)
              # A PATH that keeps the shim dir first (a harness's shell snapshot re-exporting the
              # PATH it was started with) takes nothing past the shims.
              if [[ $c == ${~__agent_guard_bypass} ]]; then
                [[ $c == (export |)PATH=(|[\"\'])${(b)AGENT_GUARD_SHIMS}(|:[^\;\&\|\`\$\(\)]#)(|[\"\']) ]] ||
                  { [[ $c == (export |)PATH=* ]] && __agent_guard_prepend "${c#export }"; } || risky=1
              fi
              ;;
          esac
        fi
      else
      case $c in
        (*'$('[^\(]* | *'`'* | *'<('* | *'>('* | *'=('*) risky=1 ;;
        # the guard's own machinery: the checker refuses turning it off (BLOCK_GUARD_TAMPERING)
        (*DEBUG* | *BASH_ENV* | *ZDOTDIR* | *AGENT_GUARD* | *agent_guard* | *extdebug* | *functrace* | \
          *unfunction* | *+T* | *'trap -'* | *"trap ''"* | *'trap ""'*) risky=1 ;;
        (. | *[^A-Za-z0-9_.,:+@%-]*)
          # THE PREFILTER (same rules as shell/guard.bash): a word of __agent_guard_words anywhere;
          # in program position `.`, a word with / $ \ ' " * ? [ { ~ = ` or a redirection.
          for w in "${(@z)c}"; do
            if (( p )); then
              if [[ $w == ${~__agent_guard_seps} ]]; then continue; fi
              case $w in
                ('!' | if | then | do | else | elif | while | until | noglob | nocorrect | '-') continue ;;
                ('[' | '[[') p=0; continue ;;
                ([A-Za-z_]*=*)
                  n=${w%%\=*} n=${n%+} n=${n%%\[*}
                  [[ $n == *[^A-Za-z0-9_]* ]] || continue
                  ;;
                (. | *[/\$\\\'\"*?\[\{~=\`]* | [\<\>]* | [0-9]*[\<\>]*) risky=1; break ;;
              esac
              p=0
            fi
            if [[ $w == ${~__agent_guard_seps} ]]; then
              p=1
            elif [[ $w == ${~__agent_guard_words} ]]; then
              risky=1; break
            fi
          done
          ;;
        (*) [[ $c == ${~__agent_guard_words} ]] && risky=1 ;; # one plain word
      esac
      fi
      # A trap (or a trap function's definition) whose handler calls a function: the bodies go with
      # it (__agent_guard_trapfn).
      if [[ $c == (trap|(function[[:space:]]##|)TRAP[A-Z]##)[[:space:]\(]* ]] && __agent_guard_trapfn "$c"; then
        c=$__agent_guard_tt risky=1
      fi
      # A redirection that would truncate a file holding content this shell did not write: kept
      # first (with the text's own check in the same call when the filter sends it).
      __agent_guard_owonly=
      if [[ $ZSH_DEBUG_CMD == *'>'* ]] && __agent_guard_overwrites "$ZSH_DEBUG_CMD"; then
        (( risky )) || __agent_guard_owonly=1
        risky=1
      fi
      if (( risky )); then
        __agent_guard_decide "$c" || \builtin return 1
      elif (( shims )) && [[ -z $__agent_guard_vt && $__agent_guard_key != *$'\n'*$'\n'*$'\n'* && $ZSH_DEBUG_CMD != *'>'* && $ZSH_DEBUG_CMD != (\$|\"\$)* ]]; then
        # Remembered for the test at the top: no bypass, no redirection (its targets' contents
        # change), no program named by a value (its value changes).
        (( ${#__agent_guard_fast} < 256 )) || __agent_guard_fast=()
        __agent_guard_fast[$__agent_guard_key]=1
      fi
    fi
    if (( ${+functions[__agent_guard_user_trapdebug]} )); then
      __agent_guard_user_trapdebug "$@"
    fi
  }

  # (Re)installs TRAPDEBUG unless it is already ours. A TRAPDEBUG function found in its place (the
  # user's, defined before or after the guard) is kept as __agent_guard_user_trapdebug and runs
  # after the check when the command is allowed; its non-zero status aborts as before. A string
  # `trap '...' DEBUG` cannot be read back without running it, so it is replaced (documented).
  # TRAPDEBUG must be defined by a function definition (a copy made with `functions -c` is not
  # armed as a trap), hence the eval of our body.
  __agent_guard_install() {
    [[ ${functions[TRAPDEBUG]-} == "${functions[__agent_guard_trapdebug]}" ]] && \builtin return 0
    if (( ${+functions[TRAPDEBUG]} )); then
      \builtin functions -c TRAPDEBUG __agent_guard_user_trapdebug
    fi
    \builtin eval "TRAPDEBUG() {
${functions[__agent_guard_trapdebug]}
}"
    \builtin setopt debug_before_cmd
  }

  # bash -lc and friends: a login profile may have reset PATH; put the shim dir back in front.
  __agent_guard_path() {
    if [[ -n ${AGENT_GUARD_SHIMS-} ]] && ! __agent_guard_shims_active; then
      PATH=$AGENT_GUARD_SHIMS${PATH:+:$PATH}
    fi
  }

  # Interactive: "at the prompt" (no checks: precmd hooks, prompt expansion, zle, completion) from
  # our precmd hook (run first) until our preexec hook (run last), which turns the checks on.
  __agent_guard_precmd() {
    __agent_guard_phase=1
    # A new line: what an earlier line wrote is no longer "just written" (__agent_guard_overwrites).
    __agent_guard_mine=() __agent_guard_okw=()
    preexec_functions=(${preexec_functions:#__agent_guard_preexec} __agent_guard_preexec)
  }
  __agent_guard_preexec() {
    __agent_guard_phase=0
  }

  # Called by the wrapper after each of the user's start-up files ($1: its name; empty when this
  # file was sourced some other way, e.g. by the shell-init snippet from the user's .zshrc): PATH
  # repair, TRAPDEBUG still ours, our precmd first. The checks go on after the last start-up file
  # this shell reads (.zlogin for a login shell, .zshrc for an interactive one, else .zshenv), or
  # at once when NO_RCS stops the reading; until then start-up code (the system's too) is
  # unchecked. Sourced directly, an interactive shell starts checking at its first command line
  # (the rest of the rc file is configuration), any other shell at once.
  __agent_guard_ready() {
    __agent_guard_path
    __agent_guard_install
    if [[ -n ${__agent_guard_interactive-} ]]; then
      precmd_functions=(__agent_guard_precmd ${precmd_functions:#__agent_guard_precmd})
      preexec_functions=(${preexec_functions:#__agent_guard_preexec} __agent_guard_preexec)
    fi
    \builtin local last=.zshenv
    if [[ -o login ]]; then
      last=.zlogin
    elif [[ -o interactive ]]; then
      last=.zshrc
    fi
    if [[ -z $1 ]]; then
      [[ -n ${__agent_guard_interactive-} ]] || __agent_guard_phase=0
    elif [[ $1 == $last || ! -o rcs ]]; then
      __agent_guard_phase=0
    fi
    \builtin return 0
  }

  \builtin typeset -gA __agent_guard_mine __agent_guard_okw __agent_guard_fast
  __agent_guard_nl=$'\n'
  \builtin typeset -ga __agent_guard_ow
  __agent_guard_mine=() __agent_guard_okw=() __agent_guard_ow=()

  __agent_guard_interactive=
  [[ -o interactive && -z ${ZSH_EXECUTION_STRING-} ]] && __agent_guard_interactive=1
  # Loaded by the wrapper's .zshenv: its .zshenv is the start-up file just read. Sourced any other
  # way (a user's own rc file): checks on at once.
  __agent_guard_phase=1
  __agent_guard_ready ${__agent_guard_zfile_name-}
fi

() {
  [[ -z $2 ]] || \builtin setopt aliases
  \builtin unset __agent_guard_st __agent_guard_al
  \builtin return $1
} "$__agent_guard_st" "$__agent_guard_al"
