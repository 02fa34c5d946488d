/**
 * The one place that loads `@peculiar/x509`. The library resolves its algorithm providers
 * through tsyringe, which refuses to load without a Reflect metadata polyfill, so the polyfill
 * is imported first (ES modules evaluate imports in order). It signs with Node's own WebCrypto.
 * @module
 */
import 'reflect-metadata';
import { webcrypto } from 'node:crypto';
import * as x509 from '@peculiar/x509';

x509.cryptoProvider.set(webcrypto);

export { x509 };
