// Program names as data, shared by the three dialects' walkers so their lists cannot drift apart.
// (Each walker's dispatch table is keyed by these names.)

/** POSIX shells: `NAME -c TEXT` runs TEXT; fed by a pipe, a heredoc or a file they run their input. */
export const POSIX_SHELLS: readonly string[] = ['sh', 'bash', 'zsh', 'ksh', 'dash', 'mksh', 'yash', 'ash', 'fish'];

/** PowerShell's executables. */
export const POWERSHELLS: readonly string[] = ['powershell', 'pwsh', 'powershell_ise'];

/** Programs that run the program in their arguments. The POSIX reader peels the ones it has an
 *  option table for (posix/unwrap.ts, which checks it covers this list); the Windows readers judge
 *  what follows any of them by its smell. */
export const WRAPPERS: readonly string[] = [
  'sudo', 'doas', 'env', 'nice', 'nohup', 'command', 'builtin', 'exec', 'time', 'timeout', 'stdbuf', 'busybox',
  'setsid', 'ionice', 'taskset', 'chrt', 'flock', 'unshare',
];

/** Wrappers only the Windows readers name (Windows' own, and POSIX ones the POSIX reader reads
 *  elsewhere: `watch` runs text, `chroot` a program under another root). */
export const WINDOWS_WRAPPERS: readonly string[] = [...WRAPPERS, 'gsudo', 'runas', 'chroot', 'watch'];

/** Programs that create files or directories (shape F2), per dialect. */
export const POSIX_CREATORS: readonly string[] = ['touch', 'mkdir', 'cp', 'mv', 'install', 'ln', 'tee'];
export const CMD_CREATORS: readonly string[] = ['copy', 'xcopy', 'robocopy', 'md', 'mkdir', 'mklink', 'ren', 'rename', 'move'];
export const POWERSHELL_CREATORS: readonly string[] = [
  'new-item', 'ni', 'mkdir', 'md', 'copy-item', 'copy', 'cp', 'cpi', 'move-item', 'move', 'mv', 'mi', 'rename-item', 'ren', 'rni',
  'set-content', 'sc', 'add-content', 'ac', 'out-file', 'tee-object', 'tee', 'xcopy', 'robocopy', 'mklink',
];

/** Directory changes (shape F1). */
export const POSIX_CD: readonly string[] = ['cd', 'pushd', 'popd', 'chdir'];
export const CMD_CD: readonly string[] = ['cd', 'chdir', 'pushd', 'popd'];

/** powershell.exe / pwsh parameters that take a value, with the abbreviations they accept (both
 *  Windows readers skip the value when they look for -Command). */
export const POWERSHELL_VALUE_PARAMS: readonly string[] = [
  'executionpolicy', 'ep', 'ex', 'exe', 'exec', 'workingdirectory', 'wd', 'configurationname', 'config', 'configurationfile',
  'custompipename', 'inputformat', 'inp', 'if', 'outputformat', 'o', 'of', 'op', 'out', 'windowstyle', 'w', 'win', 'window',
  'settingsfile', 'settings', 'psconsolefile', 'version', 'v', 'encodedarguments', 'ea', 'encodeda',
];

/** Interpreters whose program text the classifier reads (interp/), by program name: versioned
 *  Pythons (`python3.12`), `nodejs`, `perl5`. */
export const INTERPRETERS: Readonly<Record<string, 'python' | 'node' | 'perl' | 'ruby'>> = Object.fromEntries([
  ...['python', 'python2', 'python3', 'python2.7', 'pypy', 'pypy3', ...Array.from({ length: 20 }, (_, k) => `python3.${k}`)].map((n) => [n, 'python'] as const),
  ...['node', 'nodejs'].map((n) => [n, 'node'] as const),
  ...['perl', 'perl5'].map((n) => [n, 'perl'] as const),
  ['ruby', 'ruby'] as const,
]);
