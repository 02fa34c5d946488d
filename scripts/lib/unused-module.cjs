// Stands in, inside the engine bundle (scripts/bundle-engine.mjs), for a package the engine
// never uses but its Docker client requires at load: ssh2 (ssh:// Docker hosts, which
// @sluice/docker refuses), gRPC and protobufjs (BuildKit sessions and progress, which no build
// asks for: @sluice/docker builds with the classic builder). Any use throws.
'use strict';
function unused() {
  throw new Error('the engine bundle leaves out this module: it is not used by sluice engine');
}
module.exports = new Proxy(unused, { get: (_, key) => (key === '__esModule' ? false : unused) });
