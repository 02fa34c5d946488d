export { ensureDockerEngine, socketPathFor, DOCKER_UNAVAILABLE } from './docker-engine.js';
export type { DockerEngine, EnsureDockerEngineOptions } from './docker-engine.js';
export {
  ensureTestImages,
  imageExists,
  KUBECTL_IMAGE,
  TEST_IMAGES,
  TEST_IMAGES_UNAVAILABLE,
} from './test-images.js';
export type { EnsureTestImagesOptions, TestImage, TestImagesResult } from './test-images.js';
export {
  startPostgres,
  createTestDatabase,
  runPsql,
  freeLoopbackPort,
  POSTGRES_UNAVAILABLE,
} from './postgres.js';
export type {
  CreateTestDatabaseOptions,
  PostgresServer,
  StartPostgresOptions,
} from './postgres.js';
export { freeRestartablePort } from './restartable-port.js';
export { createGitRepo, DEFAULT_BRANCH } from './git-repo.js';
export type { CreateGitRepoOptions, GitRepo } from './git-repo.js';
export { CHART_RENDER_PACKAGES, ensureChartRenderer, renderChart } from './chart-render.js';
export type { RenderChartOptions, RenderedChart } from './chart-render.js';
export { makeTempDir } from './temp-dir.js';
export type { TempDir } from './temp-dir.js';
export { eventually, waitFor } from './wait-for.js';
export type { EventuallyOptions, WaitForOptions } from './wait-for.js';
export { findRepoRoot, REPO_ROOT_MARKER } from './repo-root.js';
export type { FindRepoRootOptions } from './repo-root.js';
export { runCommand } from './run-command.js';
export type { CommandResult, RunCommandOptions } from './run-command.js';
export { startTlsDockerd, writeDockerCertPath, DOCKERD_TLS_UNAVAILABLE } from './dockerd-tls.js';
export type { DockerCertFiles, StartTlsDockerdOptions, TlsDockerd } from './dockerd-tls.js';
export * from './kubernetes/index.js';
export { startRegistry, REGISTRY_UNAVAILABLE } from './registry.js';
export type { StartRegistryOptions, TestRegistry } from './registry.js';
export { family, parseMetrics, sample, scrape } from './prometheus-text.js';
export { startHttpProxy } from './http-proxy.js';
export { startGitHttpServer, GIT_HTTP_UNAVAILABLE } from './git-http-server.js';
export {
  dockerHostAddress,
  hostAddressOfBridge,
  DOCKER_HOST_ADDRESS_UNAVAILABLE,
} from './docker-host-address.js';
export type { BridgeNetwork, HostAddress, HostAddressSource } from './docker-host-address.js';
export { ensureSshd, startGitSshServer, GIT_SSH_UNAVAILABLE } from './git-ssh-server.js';
export type { GitSshServer, StartGitSshServerOptions } from './git-ssh-server.js';
export type {
  GitHttpRequest,
  GitHttpServer,
  StartGitHttpServerOptions,
} from './git-http-server.js';
export type { HttpProxy, StartHttpProxyOptions } from './http-proxy.js';
export type { MetricFamily, Sample, Scrape } from './prometheus-text.js';
export { startCuttableProxy } from './tcp-proxy.js';
export type { CuttableProxy } from './tcp-proxy.js';
