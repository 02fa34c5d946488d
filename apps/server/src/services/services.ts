/**
 * Builds every service once, in dependency order: the server's wiring in one place.
 * @module
 */
import { AgentService } from './tasks/agent-service.js';
import { CertificateService } from './identity/certificate-service.js';
import { BuildService } from './builds/build-service.js';
import { BuildStore } from './builds/build-store.js';
import { BuildDeletion } from './builds/build-deletion.js';
import { BuildRetention } from './builds/build-retention.js';
import { CronTriggers } from './triggers/cron-triggers.js';
import { EngineService } from './engine-api/engine-service.js';
import { AuditLog } from './identity/audit-log.js';
import { IdentityService } from './identity/identity-service.js';
import { UserService } from './identity/user-service.js';
import { SessionStore } from './identity/session-store.js';
import { AuditRetention } from './identity/audit-retention.js';
import { SignInService } from './identity/sign-in-service.js';
import { CliLogin } from './identity/cli-login.js';
import { OidcSignIn } from './identity/oidc-sign-in.js';
import { SignInFlows } from './identity/sign-in-flows.js';
import { InfrastructureRetries } from './tasks/infrastructure-retries.js';
import { LogHub } from './logs/log-hub.js';
import { ProjectService } from './projects/project-service.js';
import { RuntimeService } from './settings/runtime-service.js';
import { Scheduler } from './scheduling/scheduler.js';
import { SchedulingWakeups } from './scheduling-wakeups.js';
import { TaskQueue } from './tasks/task-queue.js';
import { TriggerService } from './triggers/trigger-service.js';
import { WebhookService } from './triggers/webhook-service.js';
import { ApprovalService } from './builds/approval-service.js';
import { RegistryService } from './settings/registry-service.js';
import { ClusterService } from './settings/cluster-service.js';
import { GitIntegrationService } from './settings/git-integration-service.js';
import { loadBuiltInStepTypes } from './settings/built-in-step-types.js';
import { StepTypeService } from './settings/step-type-service.js';
import { createTaskPlanner } from './tasks/task-planner.js';
import { WorkflowLimitsEnforcer } from './limits/workflow-limits.js';
import type { ServerContext } from './server-context.js';
import { ParsePool } from './parsing/parse-pool.js';

import { CommitStatusService } from './statuses/commit-status-service.js';

export interface Services {
  ctx: ServerContext;
  identity: IdentityService;
  users: UserService;
  audit: AuditLog;
  sessions: SessionStore;
  signIn: SignInService;
  auditRetention: AuditRetention;
  /** Single sign-on (OpenID Connect); undefined when not configured. */
  oidc: OidcSignIn | undefined;
  cliLogin: CliLogin;
  projects: ProjectService;
  scheduler: Scheduler;
  builds: BuildService;
  tasks: TaskQueue;
  logs: LogHub;
  engine: EngineService;
  runtimes: RuntimeService;
  agents: AgentService;
  infrastructureRetries: InfrastructureRetries;
  triggers: TriggerService;
  webhooks: WebhookService;
  cron: CronTriggers;
  certificates: CertificateService;
  approvals: ApprovalService;
  registries: RegistryService;
  gitIntegrations: GitIntegrationService;
  clusters: ClusterService;
  stepTypes: StepTypeService;
  limits: WorkflowLimitsEnforcer;
  commitStatuses: CommitStatusService;
  deletion: BuildDeletion;
  retention: BuildRetention;
}

export function createServices(ctx: ServerContext): Services {
  const wakeups = new SchedulingWakeups(ctx.signals, ctx.log);
  const audit = new AuditLog(ctx);
  const identity = new IdentityService(ctx, wakeups, audit);
  const signIn = new SignInService(ctx, { identity, audit });
  const sessions = new SessionStore(ctx);
  // Its workers end when idle, so it needs no closing.
  const parser = ParsePool.create({
    log: ctx.log,
    counted: (kind, where) => ctx.metrics.documentParsed(kind, where),
  });
  const builtIn = loadBuiltInStepTypes(ctx.config.stepTypesDir, ctx.log);
  const stepTypes = new StepTypeService(ctx, {
    parse: (text, source) => parser.parseStepType(text, source),
    builtIn,
  });
  const registries = new RegistryService(ctx);
  const gitIntegrations = new GitIntegrationService(ctx);
  const projects = new ProjectService(ctx, stepTypes, parser);
  const runtimes = new RuntimeService(ctx);
  const clusters = new ClusterService(ctx, runtimes);
  const certificates = new CertificateService(ctx);
  const planner = createTaskPlanner({ ctx, identity, certificates, clusters });
  const store = new BuildStore(ctx, wakeups, planner);
  const scheduler = new Scheduler(ctx, planner, store);
  // Every write that frees or takes a place wakes a pass, in this process and the others.
  wakeups.drive((accountId) => scheduler.schedule(accountId));
  const commitStatuses = new CommitStatusService(ctx, gitIntegrations);
  const builds = new BuildService(ctx, projects, store, stepTypes, commitStatuses);
  const triggers = new TriggerService(ctx, { projects, gitIntegrations, parser });
  const flows = new SignInFlows(ctx);
  return {
    ctx,
    identity,
    users: new UserService(ctx, identity, signIn.passwords),
    audit,
    sessions,
    signIn,
    auditRetention: new AuditRetention(ctx, sessions),
    oidc: ctx.config.oidc === undefined ? undefined : new OidcSignIn(ctx.config.oidc, ctx, flows),
    cliLogin: new CliLogin(ctx, flows, identity),
    projects,
    scheduler,
    builds,
    tasks: new TaskQueue(ctx, builds, store),
    logs: new LogHub(ctx),
    engine: new EngineService(ctx, {
      projects,
      builds,
      store,
      certificates,
      registries,
      gitIntegrations,
      clusters,
      stepTypes,
      statuses: commitStatuses,
      runtimes,
    }),
    runtimes,
    agents: new AgentService(ctx, identity, runtimes),
    infrastructureRetries: new InfrastructureRetries(ctx, runtimes, builds, store),
    triggers,
    webhooks: new WebhookService(ctx, { triggers, builds, parser }),
    cron: new CronTriggers(ctx, builds),
    certificates,
    approvals: new ApprovalService(ctx, store),
    registries,
    gitIntegrations,
    clusters,
    stepTypes,
    limits: new WorkflowLimitsEnforcer(ctx, { runtimes, store }),
    commitStatuses,
    deletion: new BuildDeletion(ctx, store),
    retention: new BuildRetention(ctx, store),
  };
}
