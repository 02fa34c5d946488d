/**
 * zod's schemas (the API's, through @sluice/protocol) without code generation: by default zod
 * probes `new Function('')` to compile its parsers, which the page's CSP (no `unsafe-eval`)
 * refuses and the browser reports as a console error on every load. Imported first by
 * `main.tsx`, before any schema is made.
 * @module
 */
import { z } from 'zod';

z.config({ jitless: true });
