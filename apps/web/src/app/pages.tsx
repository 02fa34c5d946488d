/**
 * The pages beyond builds, by address; an unknown address says so.
 * @module
 */
import type { ReactNode } from 'react';
import { AuditPage } from '../access/audit-page.js';
import { TokensPage } from '../access/tokens-page.js';
import { UsersPage } from '../access/users-page.js';
import { AgentsPage } from '../agents/agents-page.js';
import { ClustersPage } from '../clusters/clusters-page.js';
import { PipelinePage } from '../pipelines/pipeline-page.js';
import { NewPipelinePage, PipelinesPage } from '../pipelines/pipelines-page.js';
import { RuntimePage, RuntimesPage } from '../runtimes/runtimes-page.js';
import { matchPath } from './router.js';

export function routePage(path: string): ReactNode {
  if (path === '/pipelines') return <PipelinesPage />;
  if (path === '/pipelines/new') return <NewPipelinePage />;
  const pipeline = matchPath('/pipelines/:pipelineId', path);
  if (pipeline?.pipelineId) return <PipelinePage pipelineId={pipeline.pipelineId} />;
  if (path === '/runtimes') return <RuntimesPage />;
  const runtime = matchPath('/runtimes/:name', path);
  if (runtime?.name) return <RuntimePage name={runtime.name} />;
  if (path === '/agents') return <AgentsPage />;
  if (path === '/clusters') return <ClustersPage />;
  if (path === '/users') return <UsersPage />;
  if (path === '/tokens') return <TokensPage />;
  if (path === '/audit') return <AuditPage />;
  return (
    <section>
      <h1>Not found</h1>
      <p>No page at {path}.</p>
    </section>
  );
}
