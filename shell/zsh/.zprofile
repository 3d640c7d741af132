# agent-guard ZDOTDIR wrapper: .zprofile. Sources the user's .zprofile the way .zshenv does with the
# user's .zshenv (ZDOTDIR as the user has it, checks off while it runs), then lets the guard
# re-check PATH, its TRAPDEBUG and its hooks. The helpers are .zshenv's, loaded here when this
# shell did not start through the wrapper's .zshenv.
if (( ! ${+functions[__agent_guard_zpre]} )); then
  __agent_guard_helpers_only=1
  \builtin source "${${(%):-%x}:h}/.zshenv"
fi
__agent_guard_zpre .zprofile
if [[ -n $__agent_guard_zfile ]]; then
  \builtin source "$__agent_guard_zfile"
fi
__agent_guard_zpost
