// A scratch zone's quarantine (docs/zones.md): `<zone>/.agent-trash-<uid>` in a temp directory,
// `<cache>/agent-guard/trash` in the cache directory. A shared temp directory lets any user create
// any name in it, so the quarantine is verified before every use, and refused (never repaired) when
// someone else could control it: every directory from the zone down to the quarantine must be a real
// directory (never a symlink) owned by this user and writable by nobody else, and the zone itself
// must keep others from renaming it away (owned by root or this user; sticky when others may write).
import fs from 'node:fs';
import path from 'node:path';

export class UnsafeZoneQuarantine extends Error {
  readonly code = 'EZONEUNSAFE';
}

interface ZonePlace {
  root: string;
  quarantine: string;
}

const octal = (mode: number): string => (mode & 0o7777).toString(8).padStart(4, '0');

/** Checks (and with `create`, makes: mode 0700) the directories from the zone down to its
 *  quarantine. Returns false when the quarantine does not exist (only without `create`); throws
 *  UnsafeZoneQuarantine when it may not be used. */
function verify(q: ZonePlace, create: boolean, uid: number): boolean {
  const unsafe = (why: string): never => {
    throw new UnsafeZoneQuarantine(`the scratch zone quarantine ${q.quarantine} is not safe to use: ${why}`);
  };
  const zone = fs.lstatSync(q.root);
  if (!zone.isDirectory()) unsafe(`${q.root} is not a directory`);
  if (zone.uid !== 0 && zone.uid !== uid) unsafe(`the zone ${q.root} belongs to uid ${zone.uid}`);
  if ((zone.mode & 0o002) !== 0 && (zone.mode & 0o1000) === 0) unsafe(`the zone ${q.root} is writable by everyone without the sticky bit (mode ${octal(zone.mode)})`);
  let dir = q.root;
  for (const part of path.relative(q.root, q.quarantine).split('/')) {
    dir = path.join(dir, part);
    if (create) {
      try {
        fs.mkdirSync(dir, { mode: 0o700 });
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      }
    }
    const st = fs.lstatSync(dir, { throwIfNoEntry: false });
    if (!st) return false;
    if (st.isSymbolicLink() || !st.isDirectory()) unsafe(`${dir} is not a directory (a symlink or a file stands there)`);
    if (st.uid !== uid) unsafe(`${dir} is owned by uid ${st.uid}, not by this user (uid ${uid})`);
    if ((st.mode & 0o022) !== 0) unsafe(`${dir} is writable by others (mode ${octal(st.mode)})`);
    // Ours and writable by nobody else: what others may only read is closed (quarantined scratch
    // may hold secrets).
    if (dir === q.quarantine && (st.mode & 0o077) !== 0 && create) fs.chmodSync(dir, 0o700);
  }
  return true;
}

const currentUid = (): number => process.getuid?.() ?? -1;

/** Creates (0700) and verifies a zone's quarantine before anything is recorded or moved into it. */
export function ensureZoneQuarantine(q: ZonePlace, uid = currentUid()): void {
  verify(q, true, uid);
}

/** Why a zone's quarantine may not be read as ours (null: it may; 'absent': there is none). */
export function zoneQuarantineProblem(q: ZonePlace, uid = currentUid()): string | null {
  try {
    return verify(q, false, uid) ? null : 'absent';
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return 'absent';
    return err instanceof Error ? err.message : String(err);
  }
}
