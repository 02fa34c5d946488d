/**
 * Pipelines by project, each linking to its page and its builds (a project is deleted here with
 * its pipelines, builds and logs, once the page has said what goes), and the form for a new
 * one: project (an existing one or a new name), name and YAML, checked as you type.
 * @module
 */
import { useState } from 'react';
import type { FormEvent } from 'react';
import { useApi } from '../api/api-context.js';
import { DeleteData } from '../app/delete-data.js';
import { ErrorNote } from '../app/error-note.js';
import { Link, navigate } from '../app/router.js';
import { Table } from '../app/table.js';
import { useAction } from '../app/use-action.js';
import { usePipelines } from './use-pipelines.js';
import { LazyYamlEditor } from './yaml-editor-lazy.js';

const STARTER = `version: "1.0"
steps:
  hello:
    image: sluice/busybox:1
    commands:
      - echo hello
`;

export function PipelinesPage() {
  const api = useApi();
  const pipelines = usePipelines(api, 5000);
  return (
    <section>
      <header className="page-head">
        <h1>Pipelines</h1>
        <div className="actions">
          <Link href="/pipelines/new">New pipeline</Link>
        </div>
      </header>
      {pipelines.error ? <ErrorNote error={pipelines.error} /> : null}
      {pipelines.data?.length === 0 ? <p className="muted">No projects yet.</p> : null}
      {(pipelines.data ?? []).map(({ project, pipelines: list }) => (
        <section key={project.id} aria-label={`Project ${project.name}`}>
          <header className="section-head">
            <h2>{project.name}</h2>
            <DeleteData
              subject={`project ${project.name}`}
              call={(dryRun) =>
                api.call('deleteProject', { params: { project: project.name }, query: { dryRun } })
              }
              onDeleted={pipelines.reload}
            />
          </header>
          <Table headers={['Pipeline', 'Runtime environment', 'Variables', 'Builds']}>
            {list.map((p) => (
              <tr key={p.id}>
                <td>
                  <Link href={`/pipelines/${p.id}`}>{p.name}</Link>
                </td>
                <td>{p.runtimeEnvironment ?? <span className="muted">account default</span>}</td>
                <td>{p.variables.length}</td>
                <td>
                  <Link href={`/builds?pipelineId=${p.id}`}>builds</Link>
                </td>
              </tr>
            ))}
          </Table>
        </section>
      ))}
    </section>
  );
}

export function NewPipelinePage() {
  const api = useApi();
  const pipelines = usePipelines(api, 30_000);
  const [project, setProject] = useState('');
  const [name, setName] = useState('');
  const [yaml, setYaml] = useState(STARTER);
  const action = useAction();
  const projects = (pipelines.data ?? []).map((p) => p.project.name);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    return action.run(async () => {
      if (!projects.includes(project)) await api.call('createProject', { body: { name: project } });
      const created = await api.call('createPipeline', {
        params: { project },
        body: { name, yaml },
      });
      navigate(`/pipelines/${created.id}`);
    });
  };

  return (
    <section>
      <h1>New pipeline</h1>
      <form className="grid-form" onSubmit={(e) => void submit(e)}>
        <label>
          Project{' '}
          <input
            list="projects"
            value={project}
            onChange={(e) => setProject(e.target.value)}
            required
            placeholder="an existing project or a new name"
          />
          <datalist id="projects">
            {projects.map((p) => (
              <option key={p} value={p} />
            ))}
          </datalist>
        </label>
        <label>
          Name <input value={name} onChange={(e) => setName(e.target.value)} required />
        </label>
        <LazyYamlEditor label="Pipeline YAML" value={yaml} onChange={setYaml} />
        <div>
          <button type="submit" className="primary">
            Create pipeline
          </button>
        </div>
        {action.error ? <ErrorNote error={action.error} /> : null}
      </form>
    </section>
  );
}
