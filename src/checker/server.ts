// The warm checker: one long-lived process per session that decides and compensates for the PATH
// shims, so that no slow-path shim call pays a Node start (docs/shims.md, "Warm path"). It calls
// the same `shim()` as the cold path, with the client's exact argv, environment and cwd read from
// /proc, and sends back its output and directive as frames (protocol.ts).
//
// Endpoint: the session's private directory holds SLOTS pairs of FIFOs (`s<i>.q` requests,
// `s<i>.a` answers) that this process made and keeps open read-write, so a client's open never
// blocks, and a dead server leaves its clients an end-of-file, never a hang. A client claims a
// slot by creating `s<i>.lock` exclusively (holding its pid); `done` frees it; a slot whose client
// died is reclaimed (both FIFOs closed and reopened, which discards anything left in them).
//
// One request at a time (the handlers are synchronous), so compensations never overlap; the
// answer is written asynchronously, so a slow reader blocks no one. It exits when idle, when the
// session's owner process ends, and on SIGTERM/SIGINT/SIGHUP, removing its directory.
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import type { Env } from '../config.js';
import { formatDirective, shim } from '../shims/checker.js';
import { CHECKER_ENV, FAILED_FILE, idleMs, isPrivateDir, liveServer, OWNER_FILE, ownerPid, processStart, SERVER_FILE, START_FILE } from './place.js';
import { COLD, frames, parseCliRequest, parseDone, parseRequest, parseRuntimeRequest, SLOTS, type Output } from './protocol.js';
import { answerCli, removeAnswerFile } from './cli-request.js';
import { readClient, readProcess } from './proc.js';
import { runtimeDelete } from '../runtime/delete.js';
import { parseDeleteRequest } from '../runtime/request.js';
import { deferringRecords } from '../enforce/index.js';
import { dropSpares, enableSpares, refillSpares } from '../recovery/spare.js';
import { HOOK_REQUEST, serveHook } from './hook-request.js';

/** Thrown by the `ask` callback: a terminal question cannot be asked from here (rm -i). */
class ColdAnswer extends Error {}

interface Slot {
  i: number;
  q: net.Socket | null;
  a: net.Socket | null;
  /** Bytes of an incomplete line read from the request FIFO. */
  buf: Buffer;
  /** The client the slot's lock names, with its start time, once seen. */
  holder: { pid: number; start: string | null } | null;
  /** An answer file (cli-request.ts) may exist for this slot. */
  out: boolean;
}

const TICK_MS = 1000;
/** A lock file still empty after this long was left by a client that died while creating it. */
const EMPTY_LOCK_MS = 5000;
const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Test points (AGENT_GUARD_TEST_CHECKER_HOOK in the server's own environment): the server kills
 *  itself with SIGKILL there, as `kill -9` would. */
type HookPoint = 'kill-before-decide' | 'kill-after-compensate' | 'kill-after-answer';

/** Closes descriptors inherited without close-on-exec (Node marks its own, and the low inherited
 *  ones, close-on-exec at start-up): a harness's pipe or make's jobserver must not be held open by
 *  a process that outlives the command. */
function closeInherited(): void {
  for (const n of fs.readdirSync('/proc/self/fd')) {
    const fd = Number(n);
    if (!(fd > 2)) continue;
    try {
      const flags = /^flags:\s*([0-7]+)/m.exec(fs.readFileSync(`/proc/self/fdinfo/${fd}`, 'latin1'));
      if (flags && (Number.parseInt(flags[1]!, 8) & 0o2000000) === 0) fs.closeSync(fd);
    } catch {
      // gone meanwhile (the directory listing's own descriptor)
    }
  }
}

export function serve(dir: string, env: Env): number {
  closeInherited();
  const uid = process.getuid?.() ?? -1;
  if (process.platform !== 'linux' || uid < 0 || !path.isAbsolute(dir) || !isPrivateDir(dir, uid)) return 1;
  // Why a start failed, for whoever looks into the directory (it stays until a later start sweeps
  // it). The cold path works meanwhile.
  const failed = (why: string): number => {
    try {
      fs.writeFileSync(path.join(dir, FAILED_FILE), `${new Date().toISOString()} ${why}\n`, { mode: 0o600 });
    } catch {
      // nowhere to say it
    }
    return 1;
  };
  const owner = ownerPid(env);
  const ownerStart = owner === null ? null : processStart(owner);
  if (owner === null || ownerStart === null) return failed('the session is over (its owner process is gone)');
  const running = liveServer(dir);
  if (running !== null && running !== process.pid) return 0;
  const idle = idleMs(env);
  const hookPoint = env.AGENT_GUARD_TEST_CHECKER_HOOK ?? '';
  const hook = (p: HookPoint): void => {
    if (hookPoint === p) process.kill(process.pid, 'SIGKILL');
  };

  const file = (name: string): string => path.join(dir, name);
  const unlink = (p: string): void => {
    try {
      fs.unlinkSync(p);
    } catch {
      // already gone
    }
  };
  // Left-overs of a server that was killed: its FIFOs (nobody holds them any more) and locks.
  for (const n of fs.readdirSync(dir)) if (/^\.?s\d+\.(q|a|lock|out)(\.tmp)?$/.test(n)) unlink(file(n));

  // The FIFOs are made under temporary names, opened, then renamed into place: a client never finds
  // one nobody holds. `mkfifo` (coreutils) once for all of them; Node cannot make a FIFO.
  const tmpNames = Array.from({ length: SLOTS }, (_, i) => [`.s${i}.q.tmp`, `.s${i}.a.tmp`]).flat();
  const mk = process.getBuiltinModule('node:child_process').spawnSync('mkfifo', ['-m', '600', ...tmpNames.map(file)], { stdio: 'ignore' });
  if (mk.status !== 0) return failed(`mkfifo failed (${mk.error?.message ?? `exit ${mk.status}`})`);

  const slots: Slot[] = [];
  let lastActive = Date.now();
  let stopping = false;
  let timer: NodeJS.Timeout | undefined;

  const open = (p: string, readable: boolean): net.Socket => {
    const fd = fs.openSync(p, fs.constants.O_RDWR | fs.constants.O_NONBLOCK);
    return new net.Socket({ fd, readable, writable: !readable });
  };

  const attach = (s: Slot, q: string, a: string): void => {
    s.a = open(a, false);
    s.q = open(q, true);
    s.a.on('error', () => {});
    s.q.on('error', () => {});
    s.q.on('data', (chunk: Buffer) => onData(s, chunk));
  };

  const lockOf = (s: Slot): string => file(`s${s.i}.lock`);

  /** The pid the slot's lock file names; null when none (or not yet written). */
  const lockPid = (s: Slot): number | null => {
    try {
      const m = /^([1-9]\d*)\n/.exec(fs.readFileSync(lockOf(s), 'latin1'));
      return m ? Number(m[1]) : null;
    } catch {
      return null;
    }
  };

  /** The slot's answer file (cli-request.ts): it lives only while the slot is held. */
  const outOf = (s: Slot): string => file(`s${s.i}.out`);

  const release = (s: Slot): void => {
    s.holder = null;
    if (s.out) removeAnswerFile(outOf(s));
    s.out = false;
    unlink(lockOf(s));
  };

  /** Drops everything in flight on the slot: closing the last descriptors of a FIFO discards its
   *  contents; then the same names are opened again. */
  const reset = (s: Slot): void => {
    s.q?.destroy();
    s.a?.destroy();
    s.buf = Buffer.alloc(0);
    attach(s, file(`s${s.i}.q`), file(`s${s.i}.a`));
    s.out = true; // whatever happened before: removed if there
    release(s);
  };

  const answer = (s: Slot, text: string, after?: () => void): void => {
    s.a?.write(text, after);
  };

  const handle = (s: Slot, line: Buffer): void => {
    let text: string;
    try {
      text = utf8.decode(line);
    } catch {
      return answer(s, COLD + '\n');
    }
    const done = parseDone(text);
    if (done !== null) {
      // The holder was read from the lock when its request came; a `done` of anyone else is ignored.
      if ((s.holder !== null ? s.holder.pid : lockPid(s)) === done) release(s);
      return;
    }
    lastActive = Date.now();
    const rt = parseRuntimeRequest(text);
    if (rt !== null) return handleRuntime(s, rt.pid, rt.json);
    const cli = parseCliRequest(text);
    if (cli !== null) {
      if (lockPid(s) !== cli.pid) return answer(s, COLD + '\n');
      s.holder = { pid: cli.pid, start: processStart(cli.pid) };
      s.out = true;
      answer(s, answerCli(cli, uid, outOf(s)));
      lastActive = Date.now();
      return;
    }
    const req = parseRequest(text);
    // The request must come from the process that holds the slot.
    if (!req || lockPid(s) !== req.pid) return answer(s, COLD + '\n');
    s.holder = { pid: req.pid, start: processStart(req.pid) };
    if (req.name === HOOK_REQUEST) return handleHook(s, req.pid, req.argc);
    const client = readClient(req.pid, req.argc, req.name, uid);
    if (typeof client === 'string') return answer(s, COLD + '\n');
    // The probes' own children (git hooks, fsmonitor) must not wait for this busy server.
    const cenv = { ...client.env, [CHECKER_ENV.dir]: '' };
    serveWork(s, () => {
      const out: Output[] = [];
      const d = shim(req.name, req.real, client.args, {
        env: cenv,
        cwd: client.cwd,
        io: { stdout: (t) => out.push({ fd: 1, text: t }), stderr: (t) => out.push({ fd: 2, text: t }) },
        ask: () => {
          // Nothing was done before a question (rm -i): the cold path asks it.
          throw new ColdAnswer('a question for the terminal');
        },
      });
      return { out, last: 'd' + formatDirective(d).replace(/\n$/, '') };
    });
  };

  /** One request's decision and compensation (`work`: the answer's output and last frame, or null
   *  to send the client cold), with its best-effort records (completions, the audit decision)
   *  written after the answer. A throw is cold too: the cold path decides again on the disk as it
   *  is now, exactly as after a crash. */
  const serveWork = (s: Slot, work: () => { out: Output[]; last: string } | null): void => {
    hook('kill-before-decide');
    let done: { value: { out: Output[]; last: string } | null; flush: () => void };
    try {
      done = deferringRecords(work);
    } catch {
      return answer(s, COLD + '\n');
    }
    const served = done.value;
    if (served === null) {
      done.flush();
      return answer(s, COLD + '\n');
    }
    hook('kill-after-compensate');
    answer(s, frames(served.out, served.last), () => hook('kill-after-answer'));
    done.flush();
    // The next transaction's directory, made while the client exits (spare.ts).
    refillSpares();
    lastActive = Date.now();
  };

  /** A bash/zsh hook's text (shell/hook-client.sh): hook-shell's decision, its messages, `dexit N`. */
  const handleHook = (s: Slot, pid: number, argc: number): void =>
    serveWork(s, () => {
      const served = serveHook(pid, argc, uid);
      return typeof served === 'string' ? null : { out: served.out, last: `dexit ${served.code}` };
    });

  /** A runtime guard's deletion (the Python guard): runtimeDelete with the client's environment
   *  and the request's cwd, as `agent-guard runtime-delete` decides it; the verdict as one `o` line. */
  const handleRuntime = (s: Slot, pid: number, json: string): void => {
    if (lockPid(s) !== pid) return answer(s, COLD + '\n');
    s.holder = { pid, start: processStart(pid) };
    const proc = readProcess(pid, uid);
    if (typeof proc === 'string') return answer(s, COLD + '\n');
    const req = parseDeleteRequest(json, { ...proc.env, [CHECKER_ENV.dir]: '' });
    if (typeof req === 'string') return answer(s, COLD + '\n');
    serveWork(s, () => {
      const out: Output[] = [];
      const verdict = JSON.stringify(runtimeDelete(req, (t) => out.push({ fd: 2, text: t })));
      out.push({ fd: 1, text: verdict + '\n' });
      return { out, last: 'dexit 0' };
    });
  };

  const onData = (s: Slot, chunk: Buffer): void => {
    s.buf = s.buf.length === 0 ? chunk : Buffer.concat([s.buf, chunk]);
    for (let nl = s.buf.indexOf(0x0a); nl >= 0 && !stopping; nl = s.buf.indexOf(0x0a)) {
      const line = s.buf.subarray(0, nl);
      s.buf = s.buf.subarray(nl + 1);
      handle(s, line);
    }
    if (s.buf.length > 8192) s.buf = Buffer.alloc(0); // no line is that long: garbage
  };

  /** Frees slots whose client is gone; ends the server when idle or when the session is over. */
  const tick = (): void => {
    if (stopping) return;
    if (processStart(owner) !== ownerStart) return stop(0);
    let held = 0;
    for (const s of slots) {
      let st: fs.Stats;
      try {
        st = fs.statSync(lockOf(s));
      } catch {
        s.holder = null;
        continue;
      }
      held++;
      const pid = lockPid(s);
      if (pid === null) {
        if (Date.now() - st.mtimeMs > EMPTY_LOCK_MS) reset(s);
        continue;
      }
      if (s.holder === null || s.holder.pid !== pid) s.holder = { pid, start: processStart(pid) };
      if (s.holder.start === null || processStart(pid) !== s.holder.start) reset(s);
    }
    if (held === 0 && Date.now() - lastActive > idle) stop(0);
  };

  const stop = (code: number): void => {
    if (stopping) return;
    stopping = true;
    clearInterval(timer);
    dropSpares();
    // Names first, so no new client finds the endpoint; then the descriptors (clients still
    // waiting get an end-of-file and take the cold path).
    for (const s of slots) {
      unlink(file(`s${s.i}.q`));
      unlink(file(`s${s.i}.a`));
      unlink(lockOf(s));
      unlink(outOf(s));
    }
    if (liveServer(dir) === process.pid) unlink(file(SERVER_FILE));
    unlink(file(START_FILE));
    unlink(file(OWNER_FILE));
    try {
      fs.rmdirSync(dir);
    } catch {
      // something else is in it: left as it is
    }
    let pending = 0;
    const finish = (): void => {
      if (--pending <= 0) process.exit(code);
    };
    for (const s of slots) {
      s.q?.destroy();
      if (s.a && s.a.writableLength > 0) {
        pending++;
        s.a.end(finish);
      } else s.a?.destroy();
    }
    if (pending === 0) process.exit(code);
    setTimeout(() => process.exit(code), 500).unref();
  };

  try {
    for (let i = 0; i < SLOTS; i++) {
      const s: Slot = { i, q: null, a: null, buf: Buffer.alloc(0), holder: null, out: false };
      attach(s, file(`.s${i}.q.tmp`), file(`.s${i}.a.tmp`));
      fs.renameSync(file(`.s${i}.a.tmp`), file(`s${i}.a`));
      fs.renameSync(file(`.s${i}.q.tmp`), file(`s${i}.q`));
      slots.push(s);
    }
    const tmp = file(`.${SERVER_FILE}.tmp`);
    fs.writeFileSync(tmp, `${process.pid} ${processStart(process.pid)}\n`, { mode: 0o600 });
    fs.renameSync(tmp, file(SERVER_FILE));
  } catch (err) {
    for (const n of tmpNames) unlink(file(n));
    failed(`cannot open its FIFOs: ${(err as Error).message}`);
    stop(1);
    return 1;
  }
  unlink(file(START_FILE));
  unlink(file(FAILED_FILE)); // an earlier start's failure is history now
  enableSpares();
  timer = setInterval(tick, Math.min(TICK_MS, idle / 2));
  for (const sig of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) process.on(sig, () => stop(0));
  process.on('uncaughtException', (err) => {
    failed(`internal error: ${err.message}`);
    stop(1);
  });
  return 0;
}
