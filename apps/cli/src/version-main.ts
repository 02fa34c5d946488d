/**
 * `sluice --version` (and `sluice version`) as `bin/sluice.js` runs it: the version alone, without
 * loading the command tree, its configuration schemas or the clients (a tenth of a second saved
 * on every call from scripts).
 * @module
 */
import { CLI_VERSION } from './version.js';

process.stdout.write(`${CLI_VERSION}\n`);
