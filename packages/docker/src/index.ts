export { DockerClient } from './docker-client.js';
export {
  messageOf,
  DOCKER_TLS_HOST_MISMATCH,
  DOCKER_TLS_REJECTED,
  DOCKER_TLS_REQUIRED,
  DOCKER_TLS_UNTRUSTED,
  DOCKER_UNAVAILABLE,
} from './connection-errors.js';
export type {
  ContainerSpec,
  OutputHandler,
  OutputStream,
  StartedContainer,
} from './container-run.js';
export { toDockerodeOptions, loadTlsFiles, DEFAULT_DOCKER_HOST } from './docker-endpoint.js';
export type { DockerEndpoint, TlsMaterial } from './docker-endpoint.js';
export { LineSplitter } from './line-splitter.js';
