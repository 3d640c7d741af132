// The destructive smell: a text test used only where the text cannot be read as commands (an
// unterminated quote, an expansion in program position, `bash -c "$X"`, a sourced file, an internal
// error). It is deliberately broad: it only ever makes a decision more restrictive.

const PATTERNS: readonly RegExp[] = [
  /(^|[^\w.-])(rm|rmdir|unlink|shred|srm|wipe|trash)($|[^\w.-])/i,
  /(^|\s)-delete\b/,
  /\bfind\b[\s\S]*-(exec|execdir|ok|okdir)\b/,
  /\bgit\b[\s\S]*\b(clean|reset|restore|checkout|switch|push|stash|branch|rm)\b/,
  /(^|\s)-[a-zA-Z]*[rR][a-zA-Z]*f[a-zA-Z]*(\s|$)|(^|\s)-[a-zA-Z]*f[a-zA-Z]*[rR][a-zA-Z]*(\s|$)/,
  /--(recursive|force|no-preserve-root|hard|discard-changes|mirror|delete)\b/,
];

export function smellsDestructive(text: string): boolean {
  return PATTERNS.some((p) => p.test(text));
}
