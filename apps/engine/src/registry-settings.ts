/**
 * Docker registries a build can push to: held by the control plane (account settings) or given
 * to `sluice run --registry`. Passwords are secrets: masked in every log line.
 * @module
 */

export interface RegistrySetting {
  /** What `registry:` in a build or push step names. */
  name: string;
  /** `host[:port]` images are tagged with, e.g. `registry.example.com:5000`. */
  domain: string;
  username?: string;
  password?: string;
  /** The registry used when a step names none. */
  default?: boolean;
}
