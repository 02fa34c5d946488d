/**
 * The template language of a step type's `spec.steps`, a small subset of the Go templates that
 * Codefresh step types use: `[[ .Arguments.NAME ]]` (also `.Arguments.NAME.FIELD`) and
 * `[[ if .Arguments.NAME ]] … [[ else ]] … [[ end ]]` (also `if not`), inside one string value.
 * Templates apply to the parsed strings, never to the YAML text, so an argument holding quotes,
 * a colon or a newline cannot change the shape of the steps.
 * @module
 */
import { cloneValue } from './values.js';

export interface TemplateDelimiters {
  left: string;
  right: string;
}

export const DEFAULT_DELIMITERS: TemplateDelimiters = { left: '[[', right: ']]' };

export type TemplateNode =
  | { kind: 'text'; text: string }
  | { kind: 'value'; path: string[]; offset: number }
  | {
      kind: 'if';
      negate: boolean;
      path: string[];
      offset: number;
      then: TemplateNode[];
      otherwise: TemplateNode[];
    };

export interface TemplateProblem {
  /** Offset in the string where the action starts. */
  offset: number;
  message: string;
}

export type ParsedTemplate =
  { ok: true; nodes: TemplateNode[] } | { ok: false; problems: TemplateProblem[] };

const REFERENCE = /^\.Arguments((?:\.[A-Za-z_][A-Za-z0-9_]*)+)$/;
const SUPPORTED = '[[ .Arguments.NAME ]] and [[ if .Arguments.NAME ]] … [[ else ]] … [[ end ]]';

interface Frame {
  node: Extract<TemplateNode, { kind: 'if' }> | undefined;
  list: TemplateNode[];
  inElse: boolean;
}

export function parseTemplate(text: string, delimiters: TemplateDelimiters): ParsedTemplate {
  const problems: TemplateProblem[] = [];
  const root: Frame = { node: undefined, list: [], inElse: false };
  const stack: Frame[] = [root];
  let at = 0;
  while (at < text.length) {
    const open = text.indexOf(delimiters.left, at);
    const frame = stack[stack.length - 1] ?? root;
    if (open === -1) {
      frame.list.push({ kind: 'text', text: text.slice(at) });
      break;
    }
    if (open > at) frame.list.push({ kind: 'text', text: text.slice(at, open) });
    const close = text.indexOf(delimiters.right, open + delimiters.left.length);
    if (close === -1) {
      const message = `"${delimiters.left}" is not closed by "${delimiters.right}"`;
      problems.push({ offset: open, message });
      break;
    }
    const action = text.slice(open + delimiters.left.length, close).trim();
    const problem = applyAction(action, open, stack);
    if (problem !== undefined) problems.push({ offset: open, message: problem });
    at = close + delimiters.right.length;
  }
  for (const frame of stack.slice(1)) {
    const offset = frame.node?.offset ?? 0;
    problems.push({
      offset,
      message: `"${delimiters.left} if" has no "${delimiters.left} end ${delimiters.right}"`,
    });
  }
  return problems.length > 0 ? { ok: false, problems } : { ok: true, nodes: root.list };
}

/** Adds one action to the tree being built; returns a problem message when it is not valid. */
function applyAction(action: string, offset: number, stack: Frame[]): string | undefined {
  const frame = stack[stack.length - 1];
  if (frame === undefined) return undefined;
  const words = action.split(/\s+/);
  if (words[0] === 'if') {
    const negate = words[1] === 'not';
    const reference = words.slice(negate ? 2 : 1).join(' ');
    const path = referencePath(reference);
    if (path === undefined)
      return `"if" needs .Arguments.NAME, got "${action}"; supported: ${SUPPORTED}`;
    const node = { kind: 'if' as const, negate, path, offset, then: [], otherwise: [] };
    frame.list.push(node);
    stack.push({ node, list: node.then, inElse: false });
    return undefined;
  }
  if (action === 'else' || action === 'end') {
    if (frame.node === undefined) return `"${action}" without an "if" before it`;
    if (action === 'end') stack.pop();
    else if (frame.inElse) return '"else" appears twice in one "if"';
    else Object.assign(frame, { list: frame.node.otherwise, inElse: true });
    return undefined;
  }
  const path = referencePath(action);
  if (path === undefined)
    return `Template action "${action}" is not supported; supported: ${SUPPORTED}`;
  frame.list.push({ kind: 'value', path, offset });
  return undefined;
}

function referencePath(text: string): string[] | undefined {
  const match = REFERENCE.exec(text);
  return match?.[1] === undefined ? undefined : match[1].slice(1).split('.');
}

/** Every `.Arguments` reference in the template, for checking names against the schema. */
export function templateReferences(
  nodes: readonly TemplateNode[],
): { path: string[]; offset: number }[] {
  const out: { path: string[]; offset: number }[] = [];
  for (const node of nodes) {
    if (node.kind === 'text') continue;
    out.push({ path: node.path, offset: node.offset });
    if (node.kind === 'if')
      out.push(...templateReferences(node.then), ...templateReferences(node.otherwise));
  }
  return out;
}

/**
 * The string with its actions replaced. A string that is nothing but one `[[ .Arguments.X ]]`
 * becomes the argument's value itself, so a list or a number keeps its type; an absent optional
 * argument becomes "".
 */
export function renderTemplate(
  nodes: readonly TemplateNode[],
  args: Record<string, unknown>,
): unknown {
  const significant = nodes.filter((n) => !(n.kind === 'text' && n.text.trim() === ''));
  const only = significant[0];
  if (significant.length === 1 && only?.kind === 'value')
    return cloneValue(lookup(args, only.path) ?? '');
  return renderText(nodes, args);
}

function renderText(nodes: readonly TemplateNode[], args: Record<string, unknown>): string {
  let out = '';
  for (const node of nodes) {
    switch (node.kind) {
      case 'text':
        out += node.text;
        break;
      case 'value':
        out += textOf(lookup(args, node.path));
        break;
      case 'if': {
        const chosen =
          isTruthy(lookup(args, node.path)) !== node.negate ? node.then : node.otherwise;
        out += renderText(chosen, args);
        break;
      }
    }
  }
  return out;
}

function lookup(args: Record<string, unknown>, path: readonly string[]): unknown {
  let current: unknown = args;
  for (const key of path) {
    if (typeof current !== 'object' || current === null || Array.isArray(current)) return undefined;
    if (!Object.hasOwn(current, key)) return undefined;
    current = (current as Record<string, unknown>)[key];
  }
  return current;
}

function textOf(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
}

/** Go's rule: false, 0, "", null, and an empty list or map are false. */
function isTruthy(value: unknown): boolean {
  if (value === undefined || value === null || value === false || value === 0 || value === '')
    return false;
  if (Array.isArray(value)) return value.length > 0;
  if (typeof value === 'object') return Object.keys(value).length > 0;
  return true;
}
