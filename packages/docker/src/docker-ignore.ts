/**
 * `.dockerignore` as the Docker CLI reads it (moby/patternmatcher): one pattern a line, `#`
 * comments, `!` re-includes, `*` and `?` stay within one path segment, `**` spans any number of
 * them, and a path is excluded when it or one of its parent directories matches. The last
 * matching pattern wins.
 * @module
 */
import { posix } from 'node:path';

interface Pattern {
  regex: RegExp;
  negated: boolean;
}

/** A predicate for paths relative to the context root (no leading `./` or `/`). */
export function dockerIgnoreMatcher(content: string): (path: string) => boolean {
  const patterns = parsePatterns(content);
  if (patterns.length === 0) return () => false;
  return (path) => {
    const candidates = parentsAndSelf(path);
    let excluded = false;
    for (const pattern of patterns) {
      if (candidates.some((p) => pattern.regex.test(p))) excluded = !pattern.negated;
    }
    return excluded;
  };
}

function parsePatterns(content: string): Pattern[] {
  const patterns: Pattern[] = [];
  for (const raw of content.split(/\r?\n/)) {
    let line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const negated = line.startsWith('!');
    if (negated) line = line.slice(1).trim();
    line = posix.normalize(line).replace(/^\/+/, '').replace(/\/+$/, '');
    if (line === '' || line === '.') continue;
    patterns.push({ regex: toRegex(line), negated });
  }
  return patterns;
}

function parentsAndSelf(path: string): string[] {
  const parts = path.split('/');
  return parts.map((_, i) => parts.slice(0, i + 1).join('/'));
}

function toRegex(pattern: string): RegExp {
  let out = '';
  for (let i = 0; i < pattern.length; i += 1) {
    const ch = pattern[i] ?? '';
    if (ch === '*' && pattern[i + 1] === '*') {
      i += 1;
      // `**/` matches zero or more whole directories; a bare `**` anything at all.
      if (pattern[i + 1] === '/') {
        i += 1;
        out += '(?:.*/)?';
      } else out += '.*';
    } else if (ch === '*') out += '[^/]*';
    else if (ch === '?') out += '[^/]';
    else if (ch === '[') {
      const close = pattern.indexOf(']', i + 1);
      if (close === -1) out += '\\[';
      else {
        out += `[${pattern
          .slice(i + 1, close)
          .replace(/^!/, '^')
          .replace(/\\/g, '\\\\')}]`;
        i = close;
      }
    } else if (ch === '\\' && i + 1 < pattern.length) {
      i += 1;
      out += escapeChar(pattern[i] ?? '');
    } else out += escapeChar(ch);
  }
  return new RegExp(`^${out}$`);
}

function escapeChar(ch: string): string {
  return /[.+^${}()|[\]\\]/.test(ch) ? `\\${ch}` : ch;
}
