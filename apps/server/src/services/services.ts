/**
 * Builds every service once, in dependency order: the server's wiring in one place.
 * @module
 */
import { AgentService } from './agent-service.js';
import { CertificateService } from './certificate-service.js';
import { BuildService } from './build-service.js';
import { CronTriggers } from './cron-triggers.js';
import { EngineService } from './engine-service.js';
import { IdentityService } from './identity-service.js';
import { LogHub } from './log-hub.js';
import { ProjectService } from './project-service.js';
import { RuntimeService } from './runtime-service.js';
import { Scheduler } from './scheduler.js';
import { TaskQueue } from './task-queue.js';
import { TriggerService } from './trigger-service.js';
import { WebhookService } from './webhook-service.js';
import { engineProcessPlanner } from './task-planner.js';
import type { TaskPlanner } from './task-planner.js';
import type { ServerContext } from './server-context.js';

export interface Services {
  ctx: ServerContext;
  identity: IdentityService;
  projects: ProjectService;
  scheduler: Scheduler;
  builds: BuildService;
  tasks: TaskQueue;
  logs: LogHub;
  engine: EngineService;
  runtimes: RuntimeService;
  agents: AgentService;
  triggers: TriggerService;
  webhooks: WebhookService;
  cron: CronTriggers;
  certificates: CertificateService;
}

export function createServices(
  ctx: ServerContext,
  planner: TaskPlanner = engineProcessPlanner,
): Services {
  const identity = new IdentityService(ctx);
  const projects = new ProjectService(ctx);
  const scheduler = new Scheduler(ctx, planner);
  const builds = new BuildService(ctx, projects, scheduler);
  const triggers = new TriggerService(ctx, projects);
  const certificates = new CertificateService(ctx);
  return {
    ctx,
    identity,
    projects,
    scheduler,
    builds,
    tasks: new TaskQueue(ctx, identity, builds),
    logs: new LogHub(ctx),
    engine: new EngineService(ctx, projects, builds, scheduler, certificates),
    runtimes: new RuntimeService(ctx),
    agents: new AgentService(ctx, identity),
    triggers,
    webhooks: new WebhookService(ctx, triggers, builds),
    cron: new CronTriggers(ctx, builds),
    certificates,
  };
}
