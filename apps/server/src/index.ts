export { createServer, SERVER_VERSION } from './server.js';
export type { CreateServerOptions, SluiceServer } from './server.js';
export { loadServerConfig } from './config.js';
export type { ServerConfig, ServerFlags } from './config.js';
