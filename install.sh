#!/bin/sh
# agent-guard installer (docs/install.md).
#
#   ./install.sh [--prefix DIR]      install (default prefix: ~/.agent-guard); idempotent
#   ./install.sh --uninstall [--prefix DIR]
#                                    remove exactly what the install list names
#
# Installs from this checkout, or from the npm package it came in (building dist/agent-guard.cjs
# first if it is missing):
#   <prefix>/lib/agent-guard.cjs   the bundled CLI            <prefix>/lib/shim.sh   the shim template
#   <prefix>/lib/*.cjs             the other bundles of dist/ (scripts/build.mjs: the MCP server, a Node preload, ...)
#   <prefix>/lib/agent-guard-python/  the Python guard (sitecustomize.py, agent-guard-delete.py; PYTHONPATH)
#   <prefix>/bin/agent-guard       the launcher (dist/agent-guard) with <node> and <prefix>/lib/agent-guard.cjs put in
#   <prefix>/shims/                rendered shims + marker    <prefix>/shell/        bash/zsh hooks
#                                  (the zsh files with their zcompile'd .zwc forms, when zsh is on PATH)
#   <prefix>/.agent-guard-install  every file and directory installed (read by --uninstall)
# stdout gets exactly one line: the line to add to your rc file (zsh when $SHELL is zsh, else
# bash), so `./install.sh >> ~/.bashrc` works. Progress and notes go to stderr.
# Exit status: 0 done, 1 refused or failed, 2 usage.
set -euf
# Lists below are newline-separated: words split at newlines only (and globbing is off: set -f).
nl='
'
IFS=$nl

me=agent-guard-install
die() { printf '%s: %s\n' "$me" "$*" >&2; exit 1; }
note() { printf '%s: %s\n' "$me" "$*" >&2; }
usage() {
  printf 'usage: %s [--prefix DIR] [--uninstall]\n' "$0" >&2
  exit 2
}

# rm and rmdir are guarded names: when this runs inside a guarded environment, the PATH shims would
# send the installer's own clean-up to the checker. `command -p` uses the system's default PATH.
real_rm() { command -p rm -f -- "$@"; }
real_rmdir() { command -p rmdir -- "$1" 2>/dev/null; }
# The bytecode Python wrote for the guard's files (not in the install list: named by Python version).
drop_pycache() {
  c=$prefix/lib/agent-guard-python/__pycache__
  [ -d "$c" ] && [ ! -L "$c" ] || return 0
  set +f
  for f in "$c"/sitecustomize.*.pyc "$c"/agent-guard-delete.*.pyc; do
    if [ -f "$f" ]; then real_rm "$f"; fi
  done
  set -f
  real_rmdir "$c" || true
}

prefix=''
uninstall=''
while [ $# -gt 0 ]; do
  case $1 in
    --prefix) [ $# -ge 2 ] || usage; prefix=$2; shift 2 ;;
    --prefix=*) prefix=${1#--prefix=}; shift ;;
    --uninstall) uninstall=1; shift ;;
    -h | --help) usage ;;
    *) printf '%s: unknown argument: %s\n' "$me" "$1" >&2; usage ;;
  esac
done

if [ -z "$prefix" ]; then
  [ -n "${HOME-}" ] || die "HOME is not set: pass --prefix DIR"
  prefix=$HOME/.agent-guard
fi
[ -n "$prefix" ] || die "empty --prefix"
case $prefix in /*) ;; *) prefix=$(pwd -P)/$prefix ;; esac
# No trailing slashes (but keep "/" itself, refused below).
while :; do
  case $prefix in
    / | *[!/]) break ;;
    */) prefix=${prefix%/} ;;
  esac
done

# The prefix ends up inside shell code and on PATH: nothing that would break the quoting of the
# shims (" $ ` \), PATH (:) or a line (control characters).
case $prefix in
  *[\"\$\`\\:]*) die "refusing prefix $prefix: it contains one of \" \$ \` \\ : (not possible in PATH or in the shims)" ;;
esac
[ "$(printf '%s' "$prefix" | LC_ALL=C tr -d '\001-\037\177')" = "$prefix" ] ||
  die "refusing a prefix with control characters"

# The physical form of an existing directory, else the path as given.
physical() { (cd "$1" 2>/dev/null && pwd -P) || printf '%s\n' "$1"; }
phys=$(physical "$prefix")
[ "$phys" != / ] || die "refusing prefix /: choose a directory of its own, e.g. \$HOME/.agent-guard"
if [ -n "${HOME-}" ] && [ "$phys" = "$(physical "$HOME")" ]; then
  die "refusing prefix $prefix: it is your home directory; choose a directory of its own, e.g. \$HOME/.agent-guard"
fi

list=$prefix/.agent-guard-install

# An install list line is "f REL" (a file) or "d REL" (a directory install.sh created), REL relative
# to the prefix: no leading /, no .. component. "d ." is the prefix itself.
check_list() {
  while IFS= read -r line || [ -n "$line" ]; do
    case $line in
      '' | '#'*) continue ;;
      'f '* | 'd '*) rel=${line#? } ;;
      *) die "$list: not an install list line: $line" ;;
    esac
    case $rel in
      '' | /* | .. | ../* | */.. | */../*) die "$list: refusing the path $rel" ;;
    esac
    case $line in 'f .' | 'f ./'*) die "$list: refusing the path $rel" ;; esac
  done < "$1"
}

# ---------------------------------------------------------------- uninstall
if [ -n "$uninstall" ]; then
  [ -f "$list" ] || die "no agent-guard installation at $prefix (no $list)"
  check_list "$list"
  dirs=$(sed -n 's/^d //p' "$list")
  n=0
  skipped=''
  while IFS= read -r line || [ -n "$line" ]; do
    case $line in
      'f '*)
        rel=${line#f }
        f=$prefix/$rel
        [ -f "$f" ] || [ -L "$f" ] || continue
        # Only inside the prefix itself: a directory on the way that became a symlink (shims ->
        # /usr/bin) would lead the removal elsewhere.
        case $rel in */*) want=$phys/${rel%/*} ;; *) want=$phys ;; esac
        if [ "$(cd "${f%/*}" 2>/dev/null && pwd -P)" != "$want" ]; then
          skipped="$skipped $f"
          continue
        fi
        real_rm "$f" || die "cannot remove $f"
        n=$((n + 1))
        ;;
    esac
  done < "$list"
  real_rm "$list" || die "cannot remove $list"
  drop_pycache
  # Directories deepest first (the list names them that way), and only when empty.
  kept=''
  for d in $dirs; do
    if [ "$d" = . ]; then d=$prefix; else d=$prefix/$d; fi
    [ -d "$d" ] || continue
    real_rmdir "$d" || kept="$kept $d"
  done
  note "removed $n files from $prefix"
  [ -z "$skipped" ] || note "not removed (a directory on the way is a symlink):$skipped"
  [ -z "$kept" ] || note "kept (not empty):$kept"
  exit 0
fi

# ---------------------------------------------------------------- install
case $0 in */*) src=${0%/*} ;; *) src=. ;; esac
src=$(cd "$src" && pwd -P) || die "cannot find the checkout install.sh belongs to"
{ [ -f "$src/package.json" ] && [ -f "$src/shims/shim.sh" ] && [ -f "$src/shell/guard.bash" ]; } ||
  die "$src is not an agent-guard checkout or package: run install.sh from the repository (or the unpacked npm package)"

if [ -e "$prefix" ] || [ -L "$prefix" ]; then
  [ -d "$prefix" ] || die "refusing prefix $prefix: it exists and is not a directory"
  if [ ! -f "$list" ] && [ -n "$(ls -A "$prefix")" ]; then
    die "refusing prefix $prefix: it holds other files and no agent-guard install list; choose an empty or new directory"
  fi
fi
case $phys/ in "$src"/*) die "refusing prefix $prefix: it is inside the checkout $src" ;; esac

node=$(command -v node 2>/dev/null) || die "node not found on PATH: install Node 20.16 or newer"
case $node in /*) ;; *) die "node is not a program on PATH ($node): install Node 20.16 or newer" ;; esac
"$node" -e 'const [a,b]=process.versions.node.split(".").map(Number);process.exit(a>20||(a===20&&b>=16)?0:1)' ||
  die "$node is Node $("$node" --version), older than 20.16: install a newer Node"
case $node in
  *[\"\$\`\\:]*) die "the node path $node contains one of \" \$ \` \\ : and cannot be baked into the shims" ;;
esac

bundle=$src/dist/agent-guard.cjs
mcp_bundle=$src/dist/agent-guard-mcp.cjs
launcher_src=$src/dist/agent-guard
# The Python guard's files (scripts/build.mjs copies them into dist/agent-guard-python/).
pyfiles='sitecustomize.py
agent-guard-delete.py'
if [ ! -f "$bundle" ] || [ ! -f "$mcp_bundle" ] || [ ! -f "$launcher_src" ] || [ ! -f "$src/dist/agent-guard-python/sitecustomize.py" ]; then
  note "building $bundle"
  command -v npm >/dev/null 2>&1 || die "npm not found: it is needed to build $bundle"
  if [ -d "$src/node_modules" ]; then
    (cd "$src" && npm run build >&2) || die "npm run build failed"
  else
    (cd "$src" && npm ci >&2 && npm run build >&2) || die "npm ci && npm run build failed"
  fi
  [ -f "$bundle" ] && [ -f "$mcp_bundle" ] && [ -f "$launcher_src" ] || die "the build did not produce $bundle, $mcp_bundle and $launcher_src"
fi

# Files to install: "SOURCE DEST MODE" (DEST relative to the prefix).
zfiles='.zshenv
.zprofile
.zshrc
.zlogin
.zlogout'
for z in $zfiles; do [ -f "$src/shell/zsh/$z" ] || die "missing $src/shell/zsh/$z"; done
[ -f "$src/shell/guard.zsh" ] || die "missing $src/shell/guard.zsh"

# Directories, parents first; those created now (or by an earlier install) go into the list.
old_dirs=''
old_files=''
if [ -f "$list" ]; then
  check_list "$list"
  old_dirs=$(sed -n 's/^d //p' "$list")
  old_files=$(sed -n 's/^f //p' "$list")
fi
created=''
was_created() {
  case "
$old_dirs
$created
" in *"
$1
"*) return 0 ;; esac
  return 1
}
mkd() { # REL
  if [ "$1" = . ]; then d=$prefix; else d=$prefix/$1; fi
  if [ "$1" != . ] && [ -L "$d" ]; then die "refusing to install through $d: it is a symlink"; fi
  if [ ! -d "$d" ]; then
    mkdir -m 755 -- "$d" || die "cannot create $d"
    created="$created
$1"
  fi
}
[ -d "$prefix" ] || mkdir -p -- "${prefix%/*}" 2>/dev/null || true
mkd .
for d in lib lib/agent-guard-python bin shims shell shell/zsh; do mkd "$d"; done

# The other bundles of dist/ (not agent-guard.cjs), by name.
extra=''
set +f
for b in "$src"/dist/*.cjs; do
  b=${b##*/}
  case $b in agent-guard.cjs | '*.cjs') ;; *[!A-Za-z0-9._-]*) die "refusing the bundle name $b" ;; *) extra="$extra${nl}$b" ;; esac
done
set -f

files='lib/agent-guard.cjs
lib/agent-guard-mcp.cjs
lib/agent-guard-preload.cjs
lib/shim.sh
bin/agent-guard
shell/guard.bash
shell/guard-rest.bash
shell/hook-client.sh
shell/guard.zsh'
for z in $zfiles; do files="$files${nl}shell/zsh/$z"; done
for b in $extra; do files="$files${nl}lib/$b"; done
for p in $pyfiles; do files="$files${nl}lib/agent-guard-python/$p"; done

# The zsh hook's compiled forms (FILE.zwc, made by zsh's zcompile builtin): zsh reads one instead of
# the file it sources or starts with when it is not older than that file and made by the same zsh
# version, which takes about 2 ms off every guarded zsh start (docs/performance.md). Made with the
# zsh on PATH, when there is one; without them zsh reads the files themselves.
zsh_bin=$(command -v zsh 2>/dev/null || :)
case $zsh_bin in /*) ;; *) zsh_bin='' ;; esac
zsources=''
if [ -n "$zsh_bin" ]; then
  zsources=shell/guard.zsh
  for z in $zfiles; do zsources="$zsources${nl}shell/zsh/$z"; done
fi
zwc_files=$(for f in $zsources; do printf '%s.zwc\n' "$f"; done)

# The list: files, then the directories install.sh created, deepest first (uninstall order).
list_text() { # FILE-LIST (newline separated)
  printf '# agent-guard install list (install.sh): --uninstall removes exactly these, relative to the prefix\n'
  printf '%s\n' "$1" | while IFS= read -r f; do [ -z "$f" ] || printf 'f %s\n' "$f"; done
  for d in shell/zsh shell shims lib/agent-guard-python lib bin .; do
    if was_created "$d"; then printf 'd %s\n' "$d"; fi
  done
}
write_list() { # FILE-LIST
  put_text .agent-guard-install 644 "$(list_text "$1")
"
}

# Copies SOURCE to <prefix>/DEST with MODE through a temporary file and a rename; an identical
# file is left alone (same inode, same mtime).
put() { # SOURCE DEST MODE
  dest=$prefix/$2
  if [ -f "$dest" ] && [ ! -L "$dest" ] && cmp -s -- "$1" "$dest" 2>/dev/null; then
    chmod "$3" "$dest"
    return 0
  fi
  tmp=$dest.tmp.$$
  { cp -- "$1" "$tmp" && chmod "$3" "$tmp" && mv -f -- "$tmp" "$dest"; } || die "cannot write $dest"
}
# The same with the content given as TEXT.
put_text() { # DEST MODE TEXT
  dest=$prefix/$1
  if [ -f "$dest" ] && [ ! -L "$dest" ] && printf '%s' "$3" | cmp -s - "$dest" 2>/dev/null; then
    chmod "$2" "$dest"
    return 0
  fi
  tmp=$dest.tmp.$$
  { printf '%s' "$3" > "$tmp" && chmod "$2" "$tmp" && mv -f -- "$tmp" "$dest"; } || die "cannot write $dest"
}

# First the list with everything this run may write (and what an earlier install wrote): a run
# that stops half-way can still be uninstalled or installed again.
all=$(printf '%s\n' "$files" "$zwc_files" "$old_files" | awk 'NF && !seen[$0]++')
write_list "$all"

put "$bundle" lib/agent-guard.cjs 755
for b in $extra; do put "$src/dist/$b" "lib/$b" 644; done
# Python caches the guard's bytecode beside it (lib/agent-guard-python/__pycache__): a changed file
# must not meet its old cache.
drop_pycache
for p in $pyfiles; do put "$src/dist/agent-guard-python/$p" "lib/agent-guard-python/$p" 644; done
put "$src/shims/shim.sh" lib/shim.sh 644
put "$src/shell/guard.bash" shell/guard.bash 644
put "$src/shell/guard-rest.bash" shell/guard-rest.bash 644
put "$src/shell/hook-client.sh" shell/hook-client.sh 644
put "$src/shell/guard.zsh" shell/guard.zsh 644
for z in $zfiles; do put "$src/shell/zsh/$z" "shell/zsh/$z" 644; done
# Compiled again only when missing, older than its file, or not readable by this zsh (another
# version): a second install changes nothing.
zwc_ok() { # FILE (relative to the prefix)
  [ -f "$prefix/$1.zwc" ] && [ ! -L "$prefix/$1.zwc" ] && [ ! "$prefix/$1" -nt "$prefix/$1.zwc" ] &&
    "$zsh_bin" -fc 'zcompile -t -- "$1"' zsh "$prefix/$1.zwc" > /dev/null 2>&1
}
zwc_made=''
for f in $zsources; do
  if ! zwc_ok "$f"; then
    if [ -e "$prefix/$f.zwc" ] || [ -L "$prefix/$f.zwc" ]; then real_rm "$prefix/$f.zwc"; fi
    if ! "$zsh_bin" -fc 'zcompile -- "$1"' zsh "$prefix/$f" 2> /dev/null || ! zwc_ok "$f"; then
      note "warning: zcompile $f failed: zsh reads the hook from its file"
      if [ -e "$prefix/$f.zwc" ]; then real_rm "$prefix/$f.zwc"; fi
      continue
    fi
  fi
  zwc_made="$zwc_made${nl}$f.zwc"
done

# The launcher (dist/agent-guard, docs/distribution.md): this installation's node and bundle put
# into its two empty lines, single-quoted. When that node is gone (Node moved or upgraded), it runs
# the bundle with the node on PATH: its run and shell-init then render the shims again for it.
q() { printf "'%s'" "$(printf '%s' "$1" | sed "s/'/'\\\\''/g")"; }
launcher_text=$(
  baked=0
  while IFS= read -r l || [ -n "$l" ]; do
    case $l in
      "ag_node=''") printf 'ag_node=%s\n' "$(q "$node")"; baked=$((baked + 1)) ;;
      "ag_bundle=''") printf 'ag_bundle=%s\n' "$(q "$prefix/lib/agent-guard.cjs")"; baked=$((baked + 1)) ;;
      *) printf '%s\n' "$l" ;;
    esac
  done < "$launcher_src"
  [ "$baked" = 2 ] || exit 1
) || die "$launcher_src has no ag_node='' and ag_bundle='' lines to put the paths in"
put_text bin/agent-guard 755 "$launcher_text
"

# The shims, rendered by the installed bundle itself (shell-init --write-shims prints the paths).
shims=$("$node" "$prefix/lib/agent-guard.cjs" shell-init --write-shims "$prefix/shims" --node "$node" --template "$prefix/lib/shim.sh") ||
  die "rendering the shims failed"
shim_files=$(printf '%s\n' "$shims" | while IFS= read -r f; do
  case $f in "$prefix"/*) printf '%s\n' "${f#"$prefix"/}" ;; '') ;; *) printf 'unexpected:%s\n' "$f" ;; esac
done)
case $shim_files in *unexpected:*) die "the shims were written outside $prefix: $shims" ;; esac

new=$(printf '%s\n' "$files" "$zwc_made" "$shim_files" | awk 'NF && !seen[$0]++')
# Files an earlier install wrote that this one does not: removed.
for f in $old_files; do
  case "
$new
" in *"
$f
"*) ;; *) if [ -f "$prefix/$f" ] || [ -L "$prefix/$f" ]; then real_rm "$prefix/$f"; fi ;; esac
done
write_list "$new"

note "installed into $prefix (node $node)"
shell_name=${SHELL-}
shell_name=${shell_name##*/}
case $shell_name in zsh) sh_kind=zsh other=bash ;; *) sh_kind=bash other=zsh ;; esac
launcher=$prefix/bin/agent-guard
case $launcher in *[!A-Za-z0-9_./+@%,=-]*) launcher=$(q "$launcher") ;; esac
note "add the line below to your ~/.${sh_kind}rc (for $other: shell-init $other); or run an agent with: $launcher run -- <command>"
# shellcheck disable=SC2016 # the line is for the rc file, where it expands
printf 'eval "$(%s shell-init %s)"\n' "$launcher" "$sh_kind"
