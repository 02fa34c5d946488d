/**
 * The `cf_export` contract: `${CF_VOLUME_PATH}/env_vars_to_export` holds `NAME=value` lines
 * (later lines win), and `cf_export --mask` announces the value on a marker line, on stdout and
 * stderr alike, that the engine swallows before any output is shown.
 * @module
 */

export const EXPORTS_FILE = '/codefresh/volume/env_vars_to_export';

export function parseExportsFile(text: string): Map<string, string> {
  const values = new Map<string, string>();
  for (const line of text.split('\n')) {
    const eq = line.indexOf('=');
    if (eq <= 0) continue;
    const name = line.slice(0, eq).trim();
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) continue;
    values.set(name, line.slice(eq + 1).replace(/\r$/, ''));
  }
  return values;
}

/** The marker prefix for mask announcements; the nonce keeps builds from spoofing each other. */
export function maskMarker(nonce: string): string {
  return `::sluice-mask-${nonce}::`;
}
