/**
 * `sluice get triggers PIPELINE [-o yaml|json]`: a pipeline's git and cron triggers, with the
 * git integration a git trigger names (never a webhook secret).
 * @module
 */
import type { Trigger } from '@sluice/protocol';
import type { Terminal } from '../ui/terminal.js';
import { resolvePipeline } from './pipeline-ref.js';
import { printResources, serverClient } from './server-resources.js';
import type { OutputFormat, ServerOptions } from './server-resources.js';

const TABLE = {
  header: ['ID', 'KIND', 'PROVIDER', 'REPO', 'EVENTS', 'GIT-INTEGRATION', 'SCHEDULE', 'ENABLED'],
  row: (t: Trigger) => [
    t.id,
    t.kind,
    t.provider ?? '',
    t.repo ?? '',
    t.events.join(','),
    t.gitIntegration ?? '',
    t.cron ?? '',
    t.enabled ? 'yes' : 'no',
  ],
};

export async function getTriggers(
  term: Terminal,
  pipelineRef: string,
  options: ServerOptions & { output: OutputFormat },
): Promise<number> {
  const client = serverClient(options);
  const pipeline = await resolvePipeline(client, pipelineRef);
  const { items } = await client.call('listTriggers', { params: { pipelineId: pipeline.id } });
  printResources(term, items, options.output, TABLE);
  return 0;
}
