// Interpreter one-liners and the code fed to interpreters on stdin, through `check` (issue 15 item 4,
// docs/classifier.md "Interpreters"): literal targets get rm's decisions, computed ones and what
// cannot be read are BLOCK_UNDETERMINABLE_EFFECT, a command handed to a shell is read as `sh -c`
// text, and code that only reads or prints (also a call inside a string or a comment) is ALLOW_NOOP.
// A script file is not read. Decided in the fixture workspace (tests/helpers/fixture.ts).
import type { Case } from './types.js';

export const INTERPRETERS: readonly Case[] = [
  // Literal targets: rm's decisions.
  { cmd: `python3 -c "import shutil; shutil.rmtree('src')"`, expect: 'RELOCATE', code: 'RELOCATE_TREE' },
  { cmd: `python3 -c 'import os; os.remove("/etc/passwd")'`, expect: 'BLOCK', code: 'BLOCK_OUT_OF_WORKSPACE' },
  { cmd: `node -p "require('fs').unlinkSync('README.md')"`, expect: 'RELOCATE', code: 'RELOCATE_PATHS' },
  { cmd: `node --eval "require('fs').rmSync('build', {recursive: true})"`, expect: 'RELOCATE', code: 'RELOCATE_TREE' },
  { cmd: `perl -E 'unlink "README.md"'`, expect: 'RELOCATE', code: 'RELOCATE_PATHS' },
  { cmd: `ruby -e 'FileUtils.rm_rf("node_modules")'`, expect: 'ALLOW', code: 'ALLOW_REGENERABLE' },
  { cmd: `python3 -c "from pathlib import Path; Path('empty').rmdir()"`, expect: 'RELOCATE', code: 'RELOCATE_PATHS' },
  // shutil.rmtree does not expand patterns: '*' is a name.
  { cmd: `python3 -c "import shutil; shutil.rmtree('*')"`, expect: 'RELOCATE', code: 'RELOCATE_TREE' },
  // A comment's call is not a call; a string's neither.
  { cmd: `python3 -c "import os; os.remove('src/a.ts')  # os.remove('/etc/passwd')"`, expect: 'RELOCATE', code: 'RELOCATE_PATHS' },
  { cmd: `python3 -c "x = 'os.remove(\\"/etc/passwd\\")'; print(x)"`, expect: 'ALLOW', code: 'ALLOW_NOOP' },
  // Computed targets, patterns an API expands, code that cannot be read and smells.
  { cmd: `python3 -c "import shutil; shutil.rmtree(d)"`, expect: 'BLOCK', code: 'BLOCK_UNDETERMINABLE_EFFECT' },
  { cmd: `python3 -c "import os; [os.remove(f) for f in os.listdir('.')]"`, expect: 'BLOCK', code: 'BLOCK_UNDETERMINABLE_EFFECT' },
  { cmd: `node -e "require('rimraf').sync('src/*.ts')"`, expect: 'BLOCK', code: 'BLOCK_UNDETERMINABLE_EFFECT' },
  { cmd: `python3 -c "import shutil; shutil.rmtree('src'"`, expect: 'BLOCK', code: 'BLOCK_UNDETERMINABLE_EFFECT' },
  // Code or commands built when the program runs (decoded, read from stdin or argv) cannot be
  // judged, destructive-looking or not; running a script file's text is running the file.
  { cmd: `python3 -c "import base64; exec(base64.b64decode('cHJpbnQoMSk='))"`, expect: 'BLOCK', code: 'BLOCK_UNDETERMINABLE_EFFECT' },
  { cmd: `python3 -c "import sys; exec(sys.stdin.read())"`, expect: 'BLOCK', code: 'BLOCK_UNDETERMINABLE_EFFECT' },
  { cmd: `python3 -c "import os; os.system(input())"`, expect: 'BLOCK', code: 'BLOCK_UNDETERMINABLE_EFFECT' },
  { cmd: `python3 -c "import subprocess, sys; subprocess.run(sys.argv[1:])" rm -rf src`, expect: 'BLOCK', code: 'BLOCK_UNDETERMINABLE_EFFECT' },
  { cmd: `node -e "require('child_process').execSync(process.argv[1])" "rm -rf src"`, expect: 'BLOCK', code: 'BLOCK_UNDETERMINABLE_EFFECT' },
  { cmd: `node -e "eval(process.argv[1])" x`, expect: 'BLOCK', code: 'BLOCK_UNDETERMINABLE_EFFECT' },
  { cmd: `ruby -e 'eval(ARGV[0])' x`, expect: 'BLOCK', code: 'BLOCK_UNDETERMINABLE_EFFECT' },
  { cmd: `python3 -c "exec(open('setup.py').read())"`, expect: 'ALLOW', code: 'ALLOW_NOOP' },
  // Unreadable but nothing destructive in it: it runs.
  { cmd: `python3 -c "print('x'"`, expect: 'ALLOW', code: 'ALLOW_NOOP' },
  // Shell hand-offs are `sh -c` text: a destructive one is rule 2, a harmless one runs.
  { cmd: `python3 -c "import os; os.system('rm -rf build')"`, expect: 'BLOCK', code: 'BLOCK_UNDETERMINABLE_EFFECT' },
  { cmd: `python3 -c "import os; os.system('ls -la')"`, expect: 'ALLOW', code: 'ALLOW_NOOP' },
  { cmd: 'ruby -e \'puts `ls`\'', expect: 'ALLOW', code: 'ALLOW_NOOP' },
  // Standard input: a quoted heredoc and a here-string are read; an unquoted heredoc that expands
  // something is computed; a pipe is judged by the line's smell.
  { cmd: "python3 - <<'PY'\nimport shutil\nshutil.rmtree('build')\nPY", expect: 'RELOCATE', code: 'RELOCATE_TREE' },
  { cmd: "python3 - <<PY\nimport shutil\nshutil.rmtree('$D')\nPY", expect: 'BLOCK', code: 'BLOCK_UNDETERMINABLE_EFFECT' },
  { cmd: `python3 <<< "import os; os.remove('README.md')"`, expect: 'RELOCATE', code: 'RELOCATE_PATHS' },
  { cmd: `echo "import os; os.remove('README.md')" | python3`, expect: 'BLOCK', code: 'BLOCK_UNDETERMINABLE_EFFECT' },
  { cmd: `echo "print(1)" | python3`, expect: 'ALLOW', code: 'ALLOW_NOOP' },
  // No deletion call; a script file is not read.
  { cmd: `python3 -c "print(1)"`, expect: 'ALLOW', code: 'ALLOW_NOOP' },
  { cmd: `node -e "console.log(1)"`, expect: 'ALLOW', code: 'ALLOW_NOOP' },
  { cmd: 'python3 script.py', expect: 'ALLOW', code: 'ALLOW_NOOP', note: 'script files are not read (docs/limitations.md)' },
];
