/**
 * The `sluice runner init --yes …` that installs what the wizard's answers settled, printed
 * after the questions so the same install can be scripted (CI, another cluster) without them.
 * Pure.
 * @module
 */
import { nodeSelectorText, tolerationText } from './runner-settings.js';
import type { RunnerFlags, RunnerSettings } from './runner-settings.js';

/** A shell word: as it is when it is plain, else in single quotes. */
function shellWord(word: string): string {
  return /^[\w./:=,@%+-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}

/**
 * The command line, flag by flag: what the settings hold beyond the defaults, and the files
 * and values given as flags (their contents are not repeated).
 */
export function equivalentCommand(
  settings: RunnerSettings,
  contextName: string,
  flags: RunnerFlags,
): string {
  const { values } = settings;
  const args: string[] = ['sluice', 'runner', 'init', '--yes'];
  const add = (flag: string, value: string | undefined) => {
    if (value !== undefined && value !== '') args.push(flag, value);
  };
  add('--kubeconfig', flags.kubeconfig);
  add('--kube-context', contextName);
  add('--namespace', settings.namespace);
  if (values.runtime.namespace !== settings.namespace)
    add('--build-namespace', values.runtime.namespace);
  add('--release', flags.release);
  add('--runtime', values.runtime.name);
  add('--agent-name', flags.agentName);
  add('--control-plane-url', values.controlPlane.url);
  add('--image-repository', values.agent.image?.repository);
  add('--image-tag', values.agent.image?.tag);
  add('--dind-image', settings.dind.image);
  for (const mirror of settings.dind.registryMirrors) add('--registry-mirror', mirror);
  for (const host of settings.dind.insecureRegistries) add('--insecure-registry', host);
  if (values.volumes?.enabled === true) args.push('--warm-volumes');
  if (values.volumes?.enabled === true && values.volumes.volumeBackend === 'delegate') {
    add('--volume-backend', 'delegate');
    add('--storage-class-delegate', values.volumes.delegateStorageClass);
  }
  const pool = values.runtime.warmPool;
  if (pool !== undefined && pool.minSize === pool.maxSize && pool.mode !== 'adaptive')
    add('--warm-pool', String(pool.maxSize ?? 0));
  add('--storage-class', settings.storageClass);
  add('--build-node-selector', nodeSelectorText(settings.buildNodeSelector));
  for (const t of settings.buildTolerations) add('--build-toleration', tolerationText(t));
  add('--http-proxy', values.proxy?.httpProxy);
  add('--https-proxy', values.proxy?.httpsProxy);
  add('--noproxy', values.proxy?.noProxy);
  add('--values', flags.values);
  for (const pair of flags.setValue ?? []) add('--set-value', pair);
  add('--runtime-spec', flags.runtimeSpec);
  args.push(settings.setDefault ? '--set-default' : '--no-set-default');
  if (!settings.testPipeline) args.push('--no-test-pipeline');
  return args.map(shellWord).join(' ');
}
