/**
 * `sluice engine`'s own variables (one build, started by a runner), on top of the CLI's Docker
 * and proxy variables.
 * @module
 */
import { numberVar, requiredTextVar, switchVar, textVar, urlVar } from './variables.js';
import type { EnvValues } from './parse-env.js';
import { cleanerEnv } from './cleaner-env.js';
import { ENGINE_DEFAULTS } from './defaults.js';

export const engineEnv = {
  SLUICE_SERVER_URL: urlVar({
    description: 'The control plane, as the engine reaches it',
    required: true,
  }),
  SLUICE_ENGINE_TOKEN: requiredTextVar({
    description:
      "The build's engine token: it reaches only that build, and dies when the build ends",
    secret: true,
  }),
  SLUICE_DOCKER_WAIT_SECONDS: numberVar({
    description:
      'How long the engine waits for its Docker daemon to answer (its dind starting beside it); after that the build fails on its first Docker call, with the reason',
    min: 0,
    max: 86_400,
    fraction: true,
    unit: 'seconds',
    default: ENGINE_DEFAULTS.dockerWaitSeconds,
  }),
  SLUICE_LOG_SPOOL_DIR: textVar({
    description:
      'Where the engine spools log lines until the control plane acknowledges them, in `<dir>/<build id>/` (docs/build-logs.md); the temporary directory if that cannot be written. The local runtime sets `<SLUICE_AGENT_STATE_DIR>/log-spool`',
    default: ENGINE_DEFAULTS.logSpoolDir,
    defaultText: `\`${ENGINE_DEFAULTS.logSpoolDir}\` in its working directory`,
  }),
  SLUICE_LOG_SPOOL_ONE_BUILD: switchVar({
    description:
      "The spool directory serves one build at a time (the build's volume on Kubernetes, reused by later builds): at start the engine removes the spools of other builds found there (directories of segment files only), left by engines that died before their lines were acknowledged",
  }),
  SLUICE_LOG_DRAIN_SECONDS: numberVar({
    description:
      'How long the end of a build waits for its log to be acknowledged before it reports the build anyway, not as a success and with the reason (docs/errors.md)',
    min: 1,
    max: 86_400,
    fraction: true,
    unit: 'seconds',
    default: ENGINE_DEFAULTS.logDrainSeconds,
  }),
  SLUICE_ENGINE_DOCKER_OWNER: textVar({
    description:
      "A label value (`io.sluice.owner`) the engine puts on every container and network of its build: the local runtime sets it to a hash of its agent's state directory, so that its reaper finds what a killed engine left on the machine's Docker, and only its own",
  }),
  SLUICE_CLUSTER_CREDENTIALS: textVar({
    description:
      "The tokens the runner agent minted for the build's clusters behind the runtime's firewall (JSON, from the build's cluster Secret): every step gets them in KUBECONFIG, masked",
    secret: true,
  }),
  ...cleanerEnv,
};

export type EngineEnv = EnvValues<typeof engineEnv>;
