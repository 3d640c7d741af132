// Types of tree.mjs (plain JavaScript, so drivers inside the sandbox can use it without tsx).
export function populate(dir: string, seed?: string): void;
export const POPULATED_FILES: number;
export const POPULATED_LINKS: number;
export function listing(p: string, base?: string, skip?: (rel: string) => boolean): string[];
export function workTree(ws: string): string[];
export function tree(root: string): string[];
export function allPaths(dir: string): string[];
