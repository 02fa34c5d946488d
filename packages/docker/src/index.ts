export { DockerClient } from './docker-client.js';
export { DaemonHousekeeping } from './daemon-housekeeping.js';
export type {
  DaemonContainer,
  DaemonEvent,
  DaemonImage,
  DaemonVolume,
  HelperRun,
  RemoveOutcome,
} from './daemon-housekeeping.js';
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
export type { ImageInfo, PullImageOptions } from './docker-client.js';
export type { BuildImageOptions, BuiltImage } from './image-build.js';
export type { BuildKitBuildOptions } from './buildkit-build.js';
export { PLATFORM_UNSUPPORTED } from './buildkit-build.js';
export { BUILDKIT_UNAVAILABLE, DOCKER_CLI_PATHS } from './buildkit-cli.js';
export type { PushedImage, RegistryAuth } from './image-push.js';
export { parseImageReference, repositoryOf } from './image-reference.js';
export type { ImageReference } from './image-reference.js';
export { dockerIgnoreMatcher } from './docker-ignore.js';
export { rewriteTar } from './tar-rewrite.js';
export type { TarRewriteOptions } from './tar-rewrite.js';
