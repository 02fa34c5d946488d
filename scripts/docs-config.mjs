#!/usr/bin/env node
// Writes docs/config/environment.md from the zod schemas of @sluice/config (build it first:
// `npm run docs:config` does both). packages/config/src/environment-doc.test.ts fails when the
// file and the schemas differ.
import { writeFileSync } from 'node:fs';
import { renderEnvironmentDoc } from '../packages/config/dist/index.js';

const file = new URL('../docs/config/environment.md', import.meta.url);
writeFileSync(file, renderEnvironmentDoc());
console.log(`wrote ${file.pathname}`);
