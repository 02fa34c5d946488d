/**
 * The labels the engine puts on the Docker containers and networks of a build. The engine
 * removes what a build left behind by them, and the local runtime's agent finds (and stops)
 * a build's containers by them after its engine process is gone. `owner` names the local
 * runtime whose engines made them (a hash of its agent's state directory): that agent's
 * reaper removes what the builds it ran left (an engine killed mid-step, a machine restarted)
 * once the control plane says they are over, and never another runtime's on the same daemon.
 * @module
 */

export const DOCKER_LABELS = {
  build: 'io.sluice.build-id',
  step: 'io.sluice.step',
  volumeKey: 'io.sluice.volume-key',
  owner: 'io.sluice.owner',
} as const;
