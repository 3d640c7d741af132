# agent-guard ZDOTDIR wrapper: .zshenv (docs/shell-hooks.md).
#
# `agent-guard run` / `shell-init zsh` export ZDOTDIR=<this directory> and keep the user's own
# value in AGENT_GUARD_USER_ZDOTDIR (empty: ZDOTDIR was unset, i.e. $HOME). zsh reads this file in
# every shell but `zsh -f`; it reads the user's .zshenv from there, with ZDOTDIR as the user had
# it, then loads shell/guard.zsh. ZDOTDIR stays exported as this directory, so that nested zsh
# processes come back here; the wrapper's .zprofile, .zshrc, .zlogin and .zlogout do the same for
# the user's files of those names. The user's files are sourced at top level, not in a function,
# so that their `typeset`s stay global.
#
# This file also holds the helpers those files share. When a shell did not start through this
# file (the shell-init snippet set ZDOTDIR to this directory from inside the user's own .zshrc,
# and a login shell then still reads this directory's .zlogin and .zlogout), they source it with
# __agent_guard_helpers_only=1 and get just the helpers.
#
# State: __agent_guard_wdir is this directory; __agent_guard_uset / __agent_guard_udir /
# __agent_guard_uexp describe the user's ZDOTDIR (set? value, exported?), starting from
# AGENT_GUARD_USER_ZDOTDIR (empty: it was unset, i.e. $HOME).

__agent_guard_wdir=${${(%):-%x}:h}
if [[ -n ${AGENT_GUARD_USER_ZDOTDIR-} ]]; then
  __agent_guard_uset=1 __agent_guard_uexp=1 __agent_guard_udir=$AGENT_GUARD_USER_ZDOTDIR
else
  __agent_guard_uset= __agent_guard_uexp= __agent_guard_udir=
fi

# Before one of the user's files ($1): checks off, ZDOTDIR as the user has it (unset when it was
# unset), and __agent_guard_zfile set to the file when it is readable (never the wrapper's own).
__agent_guard_zpre() {
  \builtin emulate -L zsh
  __agent_guard_phase=1 __agent_guard_zfile_name=$1
  __agent_guard_zfile=${__agent_guard_udir:-$HOME}/$1
  [[ -r $__agent_guard_zfile && ! $__agent_guard_zfile -ef $__agent_guard_wdir/$1 ]] || __agent_guard_zfile=
  if [[ -z $__agent_guard_uset ]]; then
    \builtin unset ZDOTDIR
  elif [[ -n $__agent_guard_uexp ]]; then
    \builtin export ZDOTDIR=$__agent_guard_udir
  else
    \builtin typeset -g +x ZDOTDIR=$__agent_guard_udir
  fi
}

# After it: remember the user's ZDOTDIR as the file left it (nested shells start from it when it
# is exported, as they would without the wrapper), put the wrapper's back, then let the guard
# re-check PATH, its trap and its hooks.
__agent_guard_zpost() {
  \builtin emulate -L zsh
  # A TRAPDEBUG the user's file defined is set aside at once (it would see this code); the guard
  # chains it behind its own.
  if (( ${+functions[TRAPDEBUG]} )) && [[ ${functions[TRAPDEBUG]} != "${functions[__agent_guard_trapdebug]-}" ]]; then
    \builtin functions -c TRAPDEBUG __agent_guard_user_trapdebug && \builtin unfunction TRAPDEBUG
  fi
  if (( ${+ZDOTDIR} )); then
    __agent_guard_uset=1 __agent_guard_udir=$ZDOTDIR __agent_guard_uexp=
    if [[ ${(t)ZDOTDIR} == *export* ]]; then
      __agent_guard_uexp=1
      \builtin export AGENT_GUARD_USER_ZDOTDIR=$ZDOTDIR
    fi
  else
    __agent_guard_uset= __agent_guard_udir= __agent_guard_uexp=
    [[ -z ${AGENT_GUARD_USER_ZDOTDIR-} ]] || \builtin export AGENT_GUARD_USER_ZDOTDIR=
  fi
  \builtin export ZDOTDIR=$__agent_guard_wdir
  if (( ${+functions[__agent_guard_ready]} )); then
    __agent_guard_ready "$__agent_guard_zfile_name"
  fi
}

if [[ -n ${__agent_guard_helpers_only-} ]]; then
  \builtin unset __agent_guard_helpers_only
  \builtin return 0
fi

__agent_guard_zpre .zshenv
if [[ -n $__agent_guard_zfile ]]; then
  \builtin source "$__agent_guard_zfile"
fi
__agent_guard_zpost
\builtin source "${__agent_guard_wdir:h}/guard.zsh"
