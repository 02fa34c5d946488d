/**
 * Kubernetes name rules (namespace, object names, label keys and values, env var names) as zod
 * schemas whose messages name the rule and the offending value. Messages that start in lower
 * case are completed with the field name when issues are collected (see `zod-issues.ts`).
 * @module
 */
import { isLabelValue } from '@sluice/labels';
import { z } from 'zod';
import { typeName } from '../describe-value.js';

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const LABEL_NAME = /^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;
const ENV_NAME = /^[-._a-zA-Z][-._a-zA-Z0-9]*$/;

export function isDnsLabel(text: string): boolean {
  return text.length <= 63 && DNS_LABEL.test(text);
}

export function isDnsSubdomain(text: string): boolean {
  return text.length <= 253 && text.split('.').every(isDnsLabel);
}

/** `app`, `sluice.io/pipeline-id`: an optional DNS subdomain prefix, then a name. */
export function isLabelKey(text: string): boolean {
  const slash = text.indexOf('/');
  const name = slash === -1 ? text : text.slice(slash + 1);
  const prefixOk = slash === -1 || isDnsSubdomain(text.slice(0, slash));
  return prefixOk && name.length <= 63 && LABEL_NAME.test(name);
}

/** A string field checked by `test`, described as `what` in the message. */
export function patterned(test: (text: string) => boolean, what: string): z.ZodString {
  return z.string().refine(test, {
    error: (issue) => `must be ${what}, got ${typeName(issue.input)}`,
  });
}

/** A record key checked by `test`; the key itself is named by the issue collector. */
function keyOf(test: (text: string) => boolean, what: string): z.ZodString {
  return z.string().refine(test, { error: () => `is not ${what}` });
}

const LABEL_KEY_RULE =
  'a label key (an optional DNS prefix and "/", then at most 63 letters, digits, "-", "_" or ".")';
const LABEL_VALUE_RULE = 'a label value (at most 63 letters, digits, "-", "_" or ".")';

export const namespaceName = patterned(
  isDnsLabel,
  'a namespace name (at most 63 lowercase letters, digits and "-")',
);
export const objectName = patterned(
  isDnsSubdomain,
  'a Kubernetes object name (lowercase letters, digits, "-" and ".")',
);
export const labelKey = patterned(isLabelKey, LABEL_KEY_RULE);
export const envName = patterned((t) => ENV_NAME.test(t), 'an environment variable name');

/** Labels and node selectors: both keys and values follow the label rules. */
export const labelMap = z.record(
  keyOf(isLabelKey, LABEL_KEY_RULE),
  patterned(isLabelValue, LABEL_VALUE_RULE),
);

/** Annotations: label-style keys, any text as value. */
export const annotationMap = z.record(keyOf(isLabelKey, LABEL_KEY_RULE), z.string());

/** A comma list of label keys, as `reuseVolumeSelector` takes. */
export const labelKeyList = z.string().superRefine((text, ctx) => {
  const keys = text.split(',').map((k) => k.trim());
  const bad = keys.filter((k) => !isLabelKey(k));
  if (bad.length === 0) return;
  ctx.addIssue({
    code: 'custom',
    input: text,
    message: `must be a comma-separated list of label keys, got ${bad
      .map((k) => (k === '' ? 'an empty key' : JSON.stringify(k)))
      .join(', ')} in ${JSON.stringify(text)}`,
  });
});
