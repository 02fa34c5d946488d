/**
 * The labels the engine puts on the Docker containers and networks of a build. The engine
 * removes what a build left behind by them, and the local runtime's agent finds (and stops)
 * a build's containers by them after its engine process is gone.
 * @module
 */

export const DOCKER_LABELS = {
  build: 'io.sluice.build-id',
  step: 'io.sluice.step',
  volumeKey: 'io.sluice.volume-key',
} as const;
