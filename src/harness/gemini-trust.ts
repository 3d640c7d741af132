// Gemini CLI's folder trust (docs/harness/gemini.md): with folder trust on, Gemini 0.61.0 runs no
// settings hook, user or project, in a folder it does not trust (hookRegistry.js: "Project hooks
// disabled because the folder is not trusted"). What can be told from its files, the way its
// utils/trust.js decides: GEMINI_CLI_TRUST_WORKSPACE / GEMINI_RESTRICTED_MODE, then the longest rule
// of trustedFolders.json that covers the folder (TRUST_PARENT covers the rule's parent). Read-only.
import fs from 'node:fs';
import path from 'node:path';

export interface GeminiTrust {
  /** `security.folderTrust.enabled` in the user settings: null when not set there. */
  enabled: boolean | null;
  /** What Gemini would decide for the folder: null when no rule says (Gemini then asks at start). */
  trusted: boolean | null;
  /** Where the answer came from. */
  source: string;
}

const real = (p: string): string => {
  try {
    return fs.realpathSync(p);
  } catch {
    return p;
  }
};

const within = (dir: string, p: string): boolean => p === dir || p.startsWith(dir.endsWith('/') ? dir : `${dir}/`);

/** `geminiDir`: Gemini's user directory (`$GEMINI_CLI_HOME/.gemini` or `~/.gemini`). */
export function geminiFolderTrust(env: Readonly<Record<string, string | undefined>>, geminiDir: string, folder: string): GeminiTrust {
  let enabled: boolean | null = null;
  try {
    const settings = JSON.parse(fs.readFileSync(path.join(geminiDir, 'settings.json'), 'utf8')) as { security?: { folderTrust?: { enabled?: unknown } } };
    const e = settings.security?.folderTrust?.enabled;
    if (typeof e === 'boolean') enabled = e;
  } catch {
    /* no settings, or not JSON: not set */
  }
  if (env.GEMINI_RESTRICTED_MODE === 'true' || env.GEMINI_CLI_TRUST_WORKSPACE === 'false') return { enabled, trusted: false, source: 'environment' };
  if (env.GEMINI_CLI_TRUST_WORKSPACE === 'true') return { enabled, trusted: true, source: 'GEMINI_CLI_TRUST_WORKSPACE=true' };
  if (enabled === false) return { enabled, trusted: true, source: 'folder trust is off' };
  const file = env.GEMINI_CLI_TRUSTED_FOLDERS_PATH || path.join(geminiDir, 'trustedFolders.json');
  let rules: Record<string, unknown>;
  try {
    rules = JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, unknown>;
    if (typeof rules !== 'object' || rules === null || Array.isArray(rules)) return { enabled, trusted: null, source: `${file} is not a JSON object` };
  } catch (err) {
    return { enabled, trusted: null, source: (err as NodeJS.ErrnoException).code === 'ENOENT' ? `no ${file}` : `${file} could not be read` };
  }
  const at = real(folder);
  let best = -1;
  let level: unknown;
  for (const [rule, lvl] of Object.entries(rules)) {
    const dir = real(lvl === 'TRUST_PARENT' ? path.dirname(rule) : rule);
    if (within(dir, at) && rule.length > best) {
      best = rule.length;
      level = lvl;
    }
  }
  if (level === 'DO_NOT_TRUST') return { enabled, trusted: false, source: file };
  if (level === 'TRUST_FOLDER' || level === 'TRUST_PARENT') return { enabled, trusted: true, source: file };
  return { enabled, trusted: null, source: `no rule for it in ${file}` };
}
