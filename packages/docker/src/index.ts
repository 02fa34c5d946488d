export { DockerClient } from './docker-client.js';
export { messageOf } from './connection-errors.js';
export type {
  ContainerSpec,
  OutputHandler,
  OutputStream,
  StartedContainer,
} from './container-run.js';
export { toDockerodeOptions, loadTlsFiles, DEFAULT_DOCKER_HOST } from './docker-endpoint.js';
export type { DockerEndpoint, TlsMaterial } from './docker-endpoint.js';
export { LineSplitter } from './line-splitter.js';
