/**
 * The questions `sluice runner init` asks a person at a terminal (with @inquirer/prompts), one
 * for each setting no flag or values file gave: kube context, namespace, runtime name, the
 * control plane's URL as pods reach it, the agent and engine image, warm volumes (else a
 * StorageClass), build node selector and tolerations, the proxy (when the environment has one),
 * default runtime, test pipeline. Each answer is checked
 * as the flag would be, so a typo is asked again rather than failing later.
 * @module
 */
import { confirm, input, select } from '@inquirer/prompts';
import { RUNTIME_INSTALL_DEFAULTS } from '@sluice/runtime-spec';
import type { RuntimeInstallValues } from '@sluice/runtime-spec';
import type { Wizard, WizardContext } from './runner-init.js';
import {
  nameFrom,
  nodeSelectorText,
  parseNodeSelector,
  parseToleration,
  RUNNER_DEFAULTS,
  tolerationText,
} from './runner-settings.js';
import type { WizardAnswers } from './runner-settings.js';

const NAMESPACE = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

/** `registry:5000/sluice/engine:1` as its repository and tag; undefined without a tag. */
function imageParts(text: string): { imageRepository: string; imageTag: string } | undefined {
  const match = /^([a-z0-9][\w./:-]*?):([\w][\w.-]{0,127})$/.exec(text.trim());
  if (match === null || match[1] === undefined || match[2] === undefined) return undefined;
  return { imageRepository: match[1], imageTag: match[2] };
}

function problemsOf(check: (problems: string[]) => void): string | true {
  const problems: string[] = [];
  check(problems);
  return problems.length === 0 ? true : (problems[0] ?? 'invalid').replace(/^[^:]*: /, '');
}

/**
 * A question whose answer may be nothing. Its default is the install's recorded answer, and as
 * an empty answer takes the default, `-` is how to say "nothing" when there is one.
 */
async function optional(
  question: string,
  nothing: string,
  recorded: string,
  validate?: (value: string) => string | true,
): Promise<string> {
  const answer = await input({
    message: `${question} (${recorded === '' ? 'empty' : '-'}: ${nothing})`,
    ...(recorded === '' ? {} : { default: recorded }),
    ...(validate === undefined ? {} : { validate: (v) => v.trim() === '-' || validate(v) }),
  });
  return answer.trim() === '-' ? '' : answer;
}

async function ask(context: WizardContext): Promise<WizardAnswers> {
  const { flags, env } = context;
  const answers: WizardAnswers = {};
  if (flags.kubeContext === undefined && context.contexts.length > 0)
    answers.kubeContext = await select({
      message: 'Kubernetes context to install the runner in',
      choices: context.contexts.map((name) => ({ name, value: name })),
      ...(context.currentContext ? { default: context.currentContext } : {}),
    });
  const contextName = flags.kubeContext ?? answers.kubeContext ?? 'cluster';
  if (flags.namespace === undefined)
    answers.namespace = await input({
      message: 'Namespace of the agent and the builds',
      default: RUNNER_DEFAULTS.namespace,
      validate: (v) => NAMESPACE.test(v) || 'lowercase letters, digits and -',
    });
  const namespace = flags.namespace ?? answers.namespace ?? RUNNER_DEFAULTS.namespace;
  // A rerun on an install: every default is what the install has, so Enter keeps it.
  const stored = await context.recorded(flags.kubeContext ?? answers.kubeContext, namespace);
  const values = stored?.values as Partial<RuntimeInstallValues> | undefined;
  if (flags.runtime === undefined)
    answers.runtime = await input({
      message: 'Runtime environment name (pipelines choose it)',
      default:
        values?.runtime?.name ?? `${nameFrom(contextName)}/${flags.buildNamespace ?? namespace}`,
      validate: (v) => /^[A-Za-z0-9][\w./:@-]*$/.test(v) || 'letters, digits and . _ - / : @',
    });
  if (flags.controlPlaneUrl === undefined)
    answers.controlPlaneUrl = await input({
      message: "The Sluice server's URL as pods in the cluster reach it",
      default: values?.controlPlane?.url || context.serverUrl,
      validate: (v) => /^https?:\/\/[^\s/]+(\/\S*)?$/.test(v) || 'an http(s) URL',
    });
  if (flags.imageRepository === undefined && flags.imageTag === undefined) {
    const { repository, tag } = { ...RUNTIME_INSTALL_DEFAULTS.image, ...values?.agent?.image };
    const standard = `${repository}:${tag}`;
    const image = await input({
      message:
        "Image of the agent and the engine (your registry's copy on an air-gapped cluster; dind follows it)",
      default: standard,
      validate: (v) =>
        imageParts(v) !== undefined || 'REPOSITORY:TAG, e.g. registry:5000/sluice/engine:1',
    });
    // The default stays a default: the record keeps no image it was not given, and the one it has.
    if (image.trim() !== standard) Object.assign(answers, imageParts(image));
  }
  if (flags.warmVolumes === undefined && flags.storageClass === undefined)
    answers.warmVolumes = await confirm({
      message:
        "Warm build caches: each build's Docker daemon on a volume a matching build used (installs Sluice's volume provisioner)?",
      default: stored === undefined || values?.volumes?.enabled === true,
    });
  if (flags.storageClass === undefined && answers.warmVolumes !== true)
    answers.storageClass = await optional(
      "StorageClass of the builds' cache volumes",
      "the cluster's default",
      stored?.storageClass ?? '',
    );
  if (flags.buildNodeSelector === undefined)
    answers.buildNodeSelector = await optional(
      'Node selector for build pods, KEY=VALUE,...',
      'any node',
      nodeSelectorText(stored?.buildNodeSelector ?? {}),
      (v) => problemsOf((p) => parseNodeSelector(v, 'selector', p)),
    );
  if (flags.buildToleration === undefined || flags.buildToleration.length === 0)
    answers.buildTolerations = await optional(
      'Taints build pods tolerate, KEY[=VALUE][:EFFECT] separated by spaces',
      'none',
      (stored?.buildTolerations ?? []).map(tolerationText).join(' '),
      (v) =>
        problemsOf((p) =>
          v
            .split(/\s+/)
            .filter(Boolean)
            .forEach((t) => parseToleration(t, 'toleration', p)),
        ),
    );
  const proxyEnv = {
    httpProxy: env['HTTP_PROXY'] ?? env['http_proxy'],
    httpsProxy: env['HTTPS_PROXY'] ?? env['https_proxy'],
    noProxy: env['NO_PROXY'] ?? env['no_proxy'],
  };
  if ((proxyEnv.httpProxy || proxyEnv.httpsProxy) && flags.httpsProxy === undefined) {
    for (const [key, label] of [
      ['httpProxy', 'HTTP_PROXY'],
      ['httpsProxy', 'HTTPS_PROXY'],
      ['noProxy', 'NO_PROXY'],
    ] as const)
      answers[key] = await input({
        message: `${label} for the agent (found in this shell)`,
        default: values?.proxy?.[key] ?? proxyEnv[key] ?? '',
      });
  }
  if (flags.setDefault === undefined)
    answers.setDefault = await confirm({
      message: "Make it the account's default runtime?",
      default: false,
    });
  if (flags.testPipeline === undefined)
    answers.testPipeline = await confirm({
      message: 'Run a test pipeline on it when it is ready?',
      default: true,
    });
  return answers;
}

export function inquirerWizard(): Wizard {
  return { ask, confirm: (message) => confirm({ message, default: true }) };
}
