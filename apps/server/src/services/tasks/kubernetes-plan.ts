/**
 * The start tasks of a build on a `KubernetesPod` runtime, in the order the agent applies them:
 * the namespace's headless dind Service, the PVC, the build Secret (sealed), the tokens of the
 * clusters behind the runtime's firewall the build may use (minted by the agent, bound to that
 * Secret), the daemon.json ConfigMap, the dind pod, the engine pod. The secret material is made here, once: the engine
 * token, the engine's client certificate and a dind server certificate for this build's dind
 * host name, so every hand-out of the Secret is the same and a restarted agent's AlreadyExists
 * is safe. A spec that cannot render ends the build, never the scheduler pass.
 * @module
 */
import { InputError } from '@sluice/errors';
import type { Executor } from '@sluice/db';
import { dindHostName, renderBuildObjects, renderDindService } from '@sluice/runtime-spec';
import type { BuildObjects, BuildRenderInput, BuildTls, RuntimeSpec } from '@sluice/runtime-spec';
import type { CertificateService } from '../identity/certificate-service.js';
import type { EngineToken } from '../identity/identity-service.js';
import { buildLabelFacts } from '../builds/build-rows.js';
import type { ClusterService } from '../settings/cluster-service.js';
import type { ServerContext } from '../server-context.js';
import type { PlannedTask, StartPlan } from '../builds/task-rows.js';

export interface KubernetesPlanDeps {
  ctx: ServerContext;
  certificates: CertificateService;
  clusters: ClusterService;
}

export interface KubernetesPlanInput {
  accountId: string;
  buildId: string;
  runtime: string;
  /** The runtime's spec, resolved over its parents. */
  spec: RuntimeSpec;
  /** Made at plan time, as a `RunEngine` token is: it lives inside the sealed Secret. */
  engineToken: EngineToken;
}

/** Stands in for the secret material in the first render, which only checks the spec. */
const PLACEHOLDER_TLS: BuildTls = {
  caPem: '',
  dindCertPem: '',
  dindKeyPem: '',
  clientCertPem: '',
  clientKeyPem: '',
};

export async function planKubernetesStart(
  trx: Executor,
  deps: KubernetesPlanDeps,
  input: KubernetesPlanInput,
): Promise<StartPlan> {
  const { spec, buildId } = input;
  const controlPlaneUrl = deps.ctx.config.publicUrl ?? spec.controlPlaneUrl;
  if (controlPlaneUrl === undefined) {
    const reason = `Runtime environment "${input.runtime}" has no controlPlaneUrl and the server has no public URL, so the engine pod could not reach it: set SLUICE_PUBLIC_URL or the runtime's controlPlaneUrl`;
    return { ok: false, reason };
  }
  const base = await renderInput(trx, input, controlPlaneUrl);
  base.clusters = await deps.clusters.inCluster(trx, input.accountId, {
    projectId: base.projectId,
    runtime: input.runtime,
  });
  let draft: BuildObjects;
  try {
    draft = renderBuildObjects(spec, { ...base, engineToken: '', tls: PLACEHOLDER_TLS });
  } catch (err) {
    if (err instanceof InputError) return { ok: false, reason: err.message };
    throw err;
  }
  const { namespace, name: dindPod } = draft.dindPod.metadata;
  const tls = await buildTls(deps.certificates, buildId, dindHostName(dindPod, namespace));
  const objects = renderBuildObjects(spec, { ...base, engineToken: input.engineToken.value, tls });
  return {
    ok: true,
    tasks: [
      { type: 'CreateService', spec: renderDindService(namespace) },
      { type: 'CreatePvc', spec: objects.pvc },
      { type: 'CreateSecret', spec: objects.secret, sealed: true },
      ...clusterCredentialsTask(objects),
      { type: 'CreateConfigMap', spec: objects.configMap },
      { type: 'CreatePod', spec: objects.dindPod },
      { type: 'CreatePod', spec: objects.enginePod },
    ],
    engineToken: input.engineToken.row,
  };
}

/** After the build Secret, which the tokens are bound to, and before the engine pod reads them. */
function clusterCredentialsTask(objects: BuildObjects): PlannedTask[] {
  const spec = objects.clusterCredentials;
  return spec === undefined ? [] : [{ type: 'CreateClusterCredentials', spec }];
}

type BaseRenderInput = Omit<BuildRenderInput, 'engineToken' | 'tls'>;

/** The build's facts the objects are labelled with: account, project, pipeline, branch, trigger. */
async function renderInput(
  trx: Executor,
  input: KubernetesPlanInput,
  controlPlaneUrl: string,
): Promise<BaseRenderInput> {
  const row = await buildLabelFacts(trx, input.buildId);
  // Pipelines have no volume size of their own yet: `pvcs.dind.volumeSize` decides.
  return {
    buildId: input.buildId,
    accountId: input.accountId,
    projectId: row.project_id,
    pipelineId: row.pipeline_id,
    branch: row.branch ?? undefined,
    trigger: row.trigger,
    controlPlaneUrl,
    runtimeName: input.runtime,
  };
}

async function buildTls(
  certificates: CertificateService,
  buildId: string,
  dindHost: string,
): Promise<BuildTls> {
  const [client, server] = await Promise.all([
    certificates.buildClientCertificate(buildId),
    certificates.buildDindServerCertificate({ buildId, hostName: dindHost }),
  ]);
  return {
    caPem: client.caPem,
    clientCertPem: client.certPem,
    clientKeyPem: client.keyPem,
    dindCertPem: server.certPem,
    dindKeyPem: server.keyPem,
  };
}
