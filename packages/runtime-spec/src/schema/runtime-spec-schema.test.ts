import { test } from 'node:test';
import assert from 'node:assert/strict';
import { z } from 'zod';
import { runtimeSpecSchema } from './runtime-spec-schema.js';

/**
 * The JSON Schema of the spec (what docs generation will use) has a description on every
 * property, so `.describe()` was not forgotten anywhere.
 */
test('every field of the spec has a description', () => {
  const schema = z.toJSONSchema(runtimeSpecSchema, {
    io: 'input',
    unrepresentable: 'any',
  }) as JsonNode;
  const missing: string[] = [];
  visit(schema, '', missing);
  assert.deepEqual(missing, []);
});

test('every object of the spec rejects unknown fields', () => {
  const schema = z.toJSONSchema(runtimeSpecSchema, {
    io: 'input',
    unrepresentable: 'any',
  }) as JsonNode;
  const open: string[] = [];
  walk(schema, '', (node, path) => {
    if (node.type === 'object' && node.properties !== undefined) {
      if (node.additionalProperties !== false) open.push(path || '(root)');
    }
  });
  assert.deepEqual(open, []);
});

interface JsonNode {
  type?: string;
  description?: string;
  properties?: Record<string, JsonNode>;
  additionalProperties?: JsonNode | boolean;
  items?: JsonNode;
  anyOf?: JsonNode[];
  allOf?: JsonNode[];
}

function visit(node: JsonNode, path: string, missing: string[]): void {
  walk(node, path, (n, p) => {
    for (const [key, child] of Object.entries(n.properties ?? {})) {
      if (!described(child)) missing.push(p ? `${p}.${key}` : key);
    }
  });
}

function described(node: JsonNode): boolean {
  return node.description !== undefined || (node.anyOf ?? node.allOf ?? []).some(described);
}

function walk(node: JsonNode, path: string, fn: (node: JsonNode, path: string) => void): void {
  fn(node, path);
  for (const [key, child] of Object.entries(node.properties ?? {})) {
    walk(child, path ? `${path}.${key}` : key, fn);
  }
  if (typeof node.additionalProperties === 'object')
    walk(node.additionalProperties, `${path}.*`, fn);
  if (node.items) walk(node.items, `${path}[]`, fn);
  for (const option of [...(node.anyOf ?? []), ...(node.allOf ?? [])]) walk(option, path, fn);
}
