/**
 * Checks of the options every issuing function takes, reported all at once, and the validity
 * window they turn into.
 * @module
 */
import { isIP } from 'node:net';
import { randomBytes } from 'node:crypto';
import { InputError } from '@sluice/errors';

export const PKI_OPTIONS_INVALID = 'SLUICE_PKI_OPTIONS_INVALID';

/** X.520's upper bound for a common name. */
const MAX_COMMON_NAME = 64;
/**
 * notBefore is set this far in the past so that a dind whose clock runs a little behind the
 * control plane's still accepts a certificate issued a moment ago.
 */
const CLOCK_SKEW_MS = 5 * 60_000;
const DAY_MS = 24 * 60 * 60_000;
/** A DNS name, optionally with a leading `*.` wildcard label. */
const DNS_NAME =
  /^(\*\.)?([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/i;

export interface NameOptions {
  commonName: string;
  organization?: string;
}

export interface ValidityOptions {
  /** Whole days from `now`; at least 1. */
  validityDays: number;
  /** The clock; the current time when absent. */
  now?: Date;
}

export function nameIssues(options: NameOptions): string[] {
  const issues: string[] = [];
  const { commonName, organization } = options;
  if (commonName.trim() === '') issues.push('commonName is empty');
  if (commonName.length > MAX_COMMON_NAME)
    issues.push(`commonName "${commonName}" is longer than ${MAX_COMMON_NAME} characters`);
  if (organization !== undefined && organization.trim() === '')
    issues.push('organization is empty');
  return issues;
}

export function validityIssues(options: ValidityOptions): string[] {
  const { validityDays, now } = options;
  const issues: string[] = [];
  if (!Number.isInteger(validityDays) || validityDays < 1)
    issues.push(`validityDays ${validityDays} is not a whole number of days of at least 1`);
  if (now !== undefined && Number.isNaN(now.getTime())) issues.push('now is an invalid Date');
  return issues;
}

export function subjectAltNameIssues(
  dnsNames: readonly string[],
  ips: readonly string[],
): string[] {
  const issues: string[] = [];
  for (const name of dnsNames)
    if (name.length > 253 || !DNS_NAME.test(name)) issues.push(`"${name}" is not a DNS name`);
  for (const ip of ips) if (isIP(ip) === 0) issues.push(`"${ip}" is not an IP address`);
  return issues;
}

/** Throws one InputError naming every problem, or returns when there is none. */
export function assertNoIssues(what: string, issues: readonly string[]): void {
  if (issues.length === 0) return;
  throw new InputError(PKI_OPTIONS_INVALID, `Invalid ${what} options: ${issues.join('; ')}`, {
    details: { issues },
  });
}

export function validityWindow(options: ValidityOptions): { notBefore: Date; notAfter: Date } {
  const now = (options.now ?? new Date()).getTime();
  return {
    notBefore: new Date(now - CLOCK_SKEW_MS),
    notAfter: new Date(now + options.validityDays * DAY_MS),
  };
}

/** 128 random bits as hex, top bit clear so the DER integer stays positive. */
export function randomSerialNumber(): string {
  const bytes = randomBytes(16);
  bytes[0] = ((bytes[0] ?? 0) & 0x7f) | 0x01;
  return bytes.toString('hex');
}

/** The subject as `@peculiar/x509` takes it: organization first, common name last. */
export function subjectName(options: NameOptions): Record<string, string[]>[] {
  const name: Record<string, string[]>[] = [];
  if (options.organization !== undefined) name.push({ O: [options.organization] });
  name.push({ CN: [options.commonName] });
  return name;
}
