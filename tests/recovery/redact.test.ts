// Redaction of stored command text: every secret shape goes, ordinary commands stay byte for byte,
// and no input can make it hang or throw.
import { describe, expect, it } from 'vitest';
import { redact } from '../../src/recovery/redact.js';

const GH = 'ghp_' + 'A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8';
const JWT = 'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c';

const TABLE: [string, string][] = [
  // NAME=value assignments
  ['GITHUB_TOKEN=abc123 npm publish', 'GITHUB_TOKEN=*** npm publish'],
  ["export API_KEY='my secret key'", 'export API_KEY=***'],
  ['env DB_PASSWORD="p w" ./run.sh', 'env DB_PASSWORD=*** ./run.sh'],
  ['AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG aws s3 ls', 'AWS_SECRET_ACCESS_KEY=*** aws s3 ls'],
  ['MYSQL_PASS=x;make', 'MYSQL_PASS=***;make'],
  ['export apikey=zzz ACCESSKEY=yyy', 'export apikey=*** ACCESSKEY=***'],
  ['SESSION_KEY=a PRIVATE_KEY=b GOOGLE_CREDENTIALS=c MY_AUTH=d COOKIE=e ./x', 'SESSION_KEY=*** PRIVATE_KEY=*** GOOGLE_CREDENTIALS=*** MY_AUTH=*** COOKIE=*** ./x'],
  ['docker run -e NPM_TOKEN=abc --rm img', 'docker run -e NPM_TOKEN=*** --rm img'],
  ['X_TOKEN=$(vault read -field=t secret/x) ./deploy', 'X_TOKEN=*** ./deploy'],
  ['X_TOKEN=`cat t` ./deploy', 'X_TOKEN=*** ./deploy'],
  ['P_SECRET=a\\ b c', 'P_SECRET=*** c'],
  ['curl "https://api.example.com/v1?access_token=abc123&page=2"', 'curl "https://api.example.com/v1?access_token=***&page=2"'],
  // credentials in URLs
  ['git clone https://user:hunter2@github.com/o/r.git', 'git clone https://user:***@github.com/o/r.git'],
  ['git clone https://user:p@ss@host:8443/r', 'git clone https://user:***@host:8443/r'],
  ['psql postgres://admin:s3cr3t@db.internal:5432/app', 'psql postgres://admin:***@db.internal:5432/app'],
  ['git push https://abcdefghij0123456789xyz@example.com/r', 'git push https://***@example.com/r'],
  // headers and flags
  ['curl -H "Authorization: Bearer abc.def" https://x', 'curl -H "Authorization: Bearer ***" https://x'],
  ["curl -H 'Authorization: token 123abc' https://x", "curl -H 'Authorization: token ***' https://x"],
  ["curl -H 'Cookie: session=abc; x=y' https://x", "curl -H 'Cookie: ***' https://x"],
  ['curl -H "X-Api-Key: k123" -H "PRIVATE-TOKEN: t456" https://x', 'curl -H "X-Api-Key: ***" -H "PRIVATE-TOKEN: ***" https://x'],
  [`curl -d '{"password": "p4ss", "user": "a"}' https://x`, `curl -d '{"password": "***", "user": "a"}' https://x`],
  [`curl -d '{"token":"abc","n":1}' https://x`, `curl -d '{"token":"***","n":1}' https://x`],
  ['tool --token=abc --password hunter2 --api-key k1 -v', 'tool --token=*** --password *** --api-key *** -v'],
  ['tool --token abc', 'tool --token ***'],
  ["tool --client-secret 'a b' --access-key=\"c d\" x", 'tool --client-secret *** --access-key=*** x'],
  ['curl -u admin:s3cret https://x', 'curl -u admin:*** https://x'],
  ["curl --user 'admin:pa ss' https://x", "curl --user 'admin:***' https://x"],
  // well-known token shapes
  [`echo ${GH}`, 'echo ***'],
  [`git clone https://${GH}@github.com/o/r`, 'git clone https://***@github.com/o/r'],
  ['gh auth login --with-token gho_0123456789abcdefghijABCDEFGHIJ', 'gh auth login --with-token ***'],
  ['echo ghs_0123456789abcdefghijABCDEFGHIJ github_pat_11ABCDEFG0123456789_abcdefghijklmnop', 'echo *** ***'],
  ['aws configure set aws_access_key_id AKIAIOSFODNN7EXAMPLE', 'aws configure set aws_access_key_id ***'],
  ['slack-post xoxb-1234567890-0987654321-AbCdEfGh', 'slack-post ***'],
  ['llm -k sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123', 'llm -k ***'],
  ['llm -k sk-proj-0123456789abcdefghij', 'llm -k ***'],
  [`http GET x "Authorization:Bearer ${JWT}"`, 'http GET x "Authorization:Bearer ***"'],
  [`echo ${JWT} | jq`, 'echo *** | jq'],
  [
    'printf "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA\n-----END RSA PRIVATE KEY-----\n" > id',
    'printf "-----BEGIN RSA PRIVATE KEY-----***-----END RSA PRIVATE KEY-----\n" > id',
  ],
  ['cat <<EOF\n-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXk\n', 'cat <<EOF\n-----BEGIN OPENSSH PRIVATE KEY-----***'],
];

const ORDINARY = [
  'rm -rf build',
  'git push origin main',
  'PATH=/bin:/usr/bin make',
  'D=./build',
  'git clean -fdx && git reset --hard HEAD~1',
  'find . -name "*.pyc" -delete',
  'GIT_AUTHOR_NAME=alice GIT_AUTHOR_EMAIL=a@b.c git commit -m "fix(auth): token refresh"',
  'git log --author alice',
  'curl --anyauth https://example.com',
  'docker login --password-stdin -u me registry.example.com',
  'docker run -u 1000:1000 img',
  'ssh://git@github.com/o/r.git',
  'git clone git@github.com:o/r.git',
  'git clone https://user@github.com/o/r.git',
  'pip install sk-learn-compatible-package-name',
  'npm publish --access public',
  'echo "note: see ticket"',
  'export NODE_ENV=production; npm run build',
  'rm -- -rf',
  '',
];

describe('redact', () => {
  it.each(TABLE)('redacts %j', (input, expected) => {
    expect(redact(input)).toBe(expected);
  });

  it.each(ORDINARY)('leaves %j unchanged', (input) => {
    expect(redact(input)).toBe(input);
  });

  it('is idempotent', () => {
    for (const [input] of TABLE) expect(redact(redact(input))).toBe(redact(input));
  });

  it('never throws, even on what is not a string', () => {
    expect(redact(undefined as unknown as string)).toBe('undefined');
    expect(typeof redact(Symbol('s') as unknown as string)).toBe('string');
    expect(redact('\u0000\ud800 TOKEN=\ud800x')).toBe('\u0000\ud800 TOKEN=***');
  });
});

// A small deterministic generator: the same secrets on every run.
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

describe('generated secrets', () => {
  const next = rng(20240601);
  const pick = (chars: string, n: number): string => Array.from({ length: n }, () => chars[Math.floor(next() * chars.length)]).join('');
  const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  // A random value with at least one letter and one digit (what a real key has).
  const value = (n: number): string => `${pick('abcdefghijklmnopqrstuvwxyz', 1)}${pick('0123456789', 1)}${pick(ALNUM, n - 2)}`;
  const PLACES: ((s: string) => { text: string; secret: string })[] = [
    (s) => ({ text: `API_TOKEN=${s} ./run`, secret: s }),
    (s) => ({ text: `export MY_SECRET="${s} x"; make`, secret: s }),
    (s) => ({ text: `env PGPASSWORD='${s}' psql`, secret: s }),
    (s) => ({ text: `git clone https://bot:${s}@git.example.com/r`, secret: s }),
    (s) => ({ text: `curl https://${s}@api.example.com/x`, secret: s }),
    (s) => ({ text: `curl -H "Authorization: Bearer ${s}" https://x`, secret: s }),
    (s) => ({ text: `curl -H 'X-Auth-Token: ${s}' https://x`, secret: s }),
    (s) => ({ text: `tool --token ${s} --verbose`, secret: s }),
    (s) => ({ text: `tool --api-key=${s}`, secret: s }),
    (s) => ({ text: `tool --password "${s}"`, secret: s }),
    (s) => ({ text: `curl -u me:${s} https://x`, secret: s }),
    (s) => ({ text: `echo ghp_${s.slice(0, 36).padEnd(36, '7')}`, secret: `ghp_${s.slice(0, 36).padEnd(36, '7')}` }),
    (s) => ({ text: `echo github_pat_${s}`, secret: `github_pat_${s}` }),
    (s) => ({ text: `x AKIA${pick('ABCDEFGHIJKLMNOPQRSTUVWXYZ234567', 16)} y`, secret: '' }),
    (s) => ({ text: `post xoxp-${s}`, secret: `xoxp-${s}` }),
    (s) => ({ text: `run sk-${s}`, secret: `sk-${s}` }),
    (s) => ({ text: `jwt eyJ${s}.eyJ${s}.${s}`, secret: s }),
    (s) => ({ text: `k='-----BEGIN EC PRIVATE KEY-----\n${s}\n-----END EC PRIVATE KEY-----'`, secret: s }),
  ];

  it('never appear verbatim in the output', () => {
    for (let i = 0; i < 40; i++) {
      for (const place of PLACES) {
        const { text, secret } = place(value(20 + Math.floor(next() * 30)));
        const out = redact(text);
        const hidden = secret !== '' ? secret : /AKIA[A-Z0-9]{16}/.exec(text)![0];
        expect(out, text).not.toContain(hidden);
        expect(out, text).toContain('***');
      }
    }
  });
});

describe('adversarial input', () => {
  const SIZE = 1 << 20;
  const fill = (unit: string): string => unit.repeat(Math.ceil(SIZE / unit.length)).slice(0, SIZE);
  const UNITS = [
    'a', 'A_TOKEN=', "A_TOKEN='", 'A_TOKEN="', 'eyJ', 'eyJa.', 'a://', 'https://a:', 'x://a@', '-----BEGIN PRIVATE KEY-----',
    '-----BEGIN ', 'Authorization:', 'Authorization: Bearer', 'X-Token', '"password": "', '--token ', "--token '", '-u a:',
    'ghp_a', 'sk-1', 'xoxb-', 'AKIA', 'TOKEN=$(', 'TOKEN=`', '\\', '@', 'a:b@', 'http://aaaaaaaaaaaaaaaaaaaaa1',
  ];

  // No timing assertion: a catastrophic pattern would not finish within the test timeout.
  it.each(UNITS)('a megabyte of %j completes', (unit) => {
    for (const text of [fill(unit), fill(`${unit}1`), fill(`${unit} `)]) expect(typeof redact(text)).toBe('string');
  });

  it('a megabyte of mixed fragments completes', () => {
    const next = rng(7);
    const parts = ['a', '1', '_', '-', ':', '/', '@', '=', '"', "'", ' ', '.', 'eyJ', 'TOKEN', 'Authorization', '://', 'ghp_', '$(', ')', '`', '\n'];
    let text = '';
    while (text.length < SIZE) text += parts[Math.floor(next() * parts.length)];
    expect(typeof redact(text)).toBe('string');
  });
});
