/**
 * A task as the control plane hands it out, for the agent's tests: the fields a test names, the
 * rest a first attempt of a fresh task.
 * @module
 */
import type { Task } from '@sluice/protocol';

export function testTask(fields: Pick<Task, 'type'> & Partial<Task>): Task {
  return {
    id: 'task-1',
    buildId: 'build-1',
    runtime: 'test',
    position: 0,
    statusRevision: 0,
    attempt: 0,
    spec: {},
    createdAt: new Date(0).toISOString(),
    ...fields,
  };
}
