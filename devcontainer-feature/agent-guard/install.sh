#!/bin/sh
# agent-guard Dev Container Feature installer (docs/devcontainer.md). Runs as root at image build.
#
# Options (environment, from devcontainer-feature.json): SHELLHOOKS (true|false, default true),
# HARNESSHOOKS (comma-separated claude,codex,gemini,copilot; default empty), INSTALLPREFIX
# (default /usr/local/agent-guard). From the tooling: _REMOTE_USER, _REMOTE_USER_HOME
# (_CONTAINER_USER, _CONTAINER_USER_HOME as fallbacks).
#
# Where the agent-guard sources come from: $AGENT_GUARD_SOURCE (a checkout, a copy holding
# install.sh, package.json, dist/, shims/, shell/, or the npm package's tarball), else
# <this directory>/agent-guard-src, the copy the packaging step puts next to this file, else the one
# npm package tarball agent-guard-*.tgz next to this file (docs/devcontainer.md).
#
# AGENT_GUARD_FEATURE_ROOT (tests only; empty in production) is put in front of every system path
# written: /etc/profile.d/agent-guard.sh, /etc/bash.bashrc, /etc/zsh/zshenv. The install prefix is
# used as given (its path is baked into those files).
#
# Nothing here activates the guard for the image build: no containerEnv, and every snippet checks
# that the shell belongs to the remote user baked in at install time.
# Exit status: 0 done, 1 failed.
set -eu

me=agent-guard-feature
die() { printf '%s: %s\n' "$me" "$*" >&2; exit 1; }
note() { printf '%s: %s\n' "$me" "$*" >&2; }
q() { printf "'%s'" "$(printf '%s' "$1" | sed "s/'/'\\\\''/g")"; }

shell_hooks=${SHELLHOOKS:-true}
case $shell_hooks in true | false) ;; *) die "shellHooks must be true or false, not: $shell_hooks" ;; esac
harness_hooks=$(printf '%s' "${HARNESSHOOKS-}" | tr -d ' \t')
prefix=${INSTALLPREFIX:-/usr/local/agent-guard}
case $prefix in /*) ;; *) die "installPrefix must be an absolute path, not: $prefix" ;; esac
root=${AGENT_GUARD_FEATURE_ROOT-}
root=${root%/}

user=${_REMOTE_USER:-${_CONTAINER_USER:-root}}
user_home=${_REMOTE_USER_HOME:-${_CONTAINER_USER_HOME-}}
if [ -z "$user_home" ]; then
  user_home=$(getent passwd "$user" 2>/dev/null | cut -d: -f6) || true
fi
case $user in '' | *[!A-Za-z0-9._-]*) die "unsupported remote user name: $user" ;; esac

# Harness names first: a typo fails before anything is written.
harnesses=''
if [ -n "$harness_hooks" ]; then
  old_ifs=$IFS
  IFS=,
  for h in $harness_hooks; do
    case $h in
      '') ;;
      claude | codex | gemini | copilot) harnesses="$harnesses $h" ;;
      *) IFS=$old_ifs; die "harnessHooks: unknown harness '$h' (choose among claude,codex,gemini,copilot)" ;;
    esac
  done
  IFS=$old_ifs
fi

# ------------------------------------------------------------- install agent-guard itself
case $0 in */*) here=${0%/*} ;; *) here=. ;; esac
here=$(cd "$here" && pwd -P)
src=${AGENT_GUARD_SOURCE-}
if [ -z "$src" ]; then
  src=$here/agent-guard-src
  if [ ! -d "$src" ]; then
    set -- "$here"/agent-guard-*.tgz
    if [ $# -eq 1 ] && [ -f "$1" ]; then src=$1; fi
    [ $# -le 1 ] || die "more than one agent-guard-*.tgz in $here: keep one"
  fi
fi
# The npm package (npm pack): unpacked into a temporary directory; it holds install.sh and the
# built bundle, so nothing is built and no registry is needed.
unpacked=''
case $src in
  *.tgz)
    [ -f "$src" ] || die "no agent-guard package at $src"
    unpacked=$(mktemp -d) || die "cannot make a temporary directory"
    trap 'rm -rf -- "$unpacked"' EXIT
    tar -xzf "$src" -C "$unpacked" || die "cannot unpack $src"
    src=$unpacked/package
    ;;
esac
[ -f "$src/install.sh" ] || die "no agent-guard sources at $src (set AGENT_GUARD_SOURCE, or package them next to this file: docs/devcontainer.md)"
command -v node >/dev/null 2>&1 || die "node not found on PATH: install Node 20.16 or newer first (e.g. the ghcr.io/devcontainers/features/node feature)"
mkdir -p -- "${prefix%/*}"
sh "$src/install.sh" --prefix "$prefix" > /dev/null || die "agent-guard's install.sh failed"
ag=$prefix/bin/agent-guard
[ -x "$ag" ] || die "install.sh did not produce $ag"

# ------------------------------------------------------------- system files
# Writes TEXT to FILE (our own file) only when it differs; a new file gets mode 644.
put_file() { # FILE TEXT
  if [ -f "$1" ] && printf '%s' "$2" | cmp -s - "$1"; then return 0; fi
  mkdir -p -- "${1%/*}"
  tmp=$1.agent-guard.$$
  { printf '%s' "$2" > "$tmp" && chmod 644 "$tmp" && mv -f -- "$tmp" "$1"; } || die "cannot write $1"
}
begin='# >>> agent-guard (devcontainer feature) >>>'
end='# <<< agent-guard (devcontainer feature) <<<'
# Replaces our block in a shared FILE (or appends it; empty TEXT removes it). The file is rewritten
# in place (same inode, owner and mode) and only when its content changes.
put_block() { # FILE TEXT
  if [ -f "$1" ]; then
    rest=$(awk -v b="$begin" -v e="$end" '$0 == b { skip = 1; next } $0 == e { skip = 0; next } !skip' "$1")
  elif [ -z "$2" ]; then
    return 0
  else
    rest=''
  fi
  new=$rest
  if [ -n "$2" ]; then
    [ -z "$new" ] || new="$new
"
    new="$new$begin
$2
$end"
  fi
  new="$new
"
  [ -n "$rest$2" ] || new=''
  if [ -f "$1" ] && printf '%s' "$new" | cmp -s - "$1"; then return 0; fi
  mkdir -p -- "${1%/*}"
  if [ -f "$1" ]; then
    printf '%s' "$new" > "$1" || die "cannot write $1"
  else
    put_file "$1" "$new"
  fi
}

qag=$(q "$ag")
quser=$(q "$user")
qshims=$(q "$prefix/shims")
is_user="[ \"\$(id -un 2>/dev/null)\" = $quser ]"

if [ "$shell_hooks" = true ]; then
  profile="# agent-guard devcontainer feature: guards the login shells of the remote user $user only
# (not the image build, not other users). Written by the feature's install.sh; rewritten on reinstall.
if $is_user && [ -x $qag ]; then
  if [ -n \"\${BASH_VERSION-}\" ]; then
    eval \"\$($qag shell-init bash 2>/dev/null)\"
  else
    eval \"\$($qag shell-init bash 2>/dev/null | sed -n '/^export /p')\"
  fi
fi
"
  bashrc="if $is_user && [ -x $qag ]; then
  eval \"\$($qag shell-init bash 2>/dev/null)\"
fi"
  zshenv="if $is_user && [ -x $qag ] && [ \"\${ZDOTDIR-}\" != $(q "$prefix/shell/zsh") ]; then
  eval \"\$($qag shell-init zsh 2>/dev/null)\"
fi"
else
  profile="# agent-guard devcontainer feature (shellHooks=false): the shims first on PATH for the login
# shells of the remote user $user only. Written by the feature's install.sh; rewritten on reinstall.
if $is_user; then
  case :\$PATH: in
    :$prefix/shims:*) ;;
    *) PATH=$qshims:\$PATH; export PATH ;;
  esac
fi
"
  bashrc=''
  zshenv=''
fi

put_file "$root/etc/profile.d/agent-guard.sh" "$profile"
put_block "$root/etc/bash.bashrc" "$bashrc"
put_block "$root/etc/zsh/zshenv" "$zshenv"

# ------------------------------------------------------------- harness hooks
if [ -n "$harnesses" ]; then
  # Commander prints the top-level help (exit 0) for an unknown command, so the status alone
  # does not tell: the usage line must name the subcommand.
  help=$("$ag" hook install --help 2>/dev/null) || help=''
  case $help in
    *'agent-guard hook install'*) ;;
    *) die "harnessHooks is set but this agent-guard has no 'hook install' command: upgrade agent-guard or leave harnessHooks empty" ;;
  esac
  [ -n "$user_home" ] || die "no home for the remote user $user: cannot install harness hooks"
  for h in $harnesses; do
    if [ "$user" = "$(id -un)" ]; then
      HOME=$user_home "$ag" hook install "$h" --user || die "agent-guard hook install $h --user failed"
    else
      id "$user" >/dev/null 2>&1 || die "the remote user $user does not exist: cannot install harness hooks"
      su -s /bin/sh "$user" -c "HOME=$(q "$user_home") $qag hook install $h --user" ||
        die "agent-guard hook install $h --user failed (as $user)"
    fi
  done
fi

note "installed agent-guard into $prefix for the remote user $user (shellHooks=$shell_hooks${harnesses:+, harness hooks:$harnesses})"
