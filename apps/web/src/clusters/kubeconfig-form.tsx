/**
 * The form that adds a cluster the control plane can reach from a kubeconfig: pasted, or a file
 * read here in the browser (it goes nowhere but the `POST`). The server keeps one context of it
 * and never returns its credentials, so neither does the page: once added, the text is dropped
 * from the form. A refused file shows the server's reason (`SLUICE_CLUSTER_KUBECONFIG_INVALID`
 * names what to change) beside the form, the text kept to fix.
 * @module
 */
import { useId, useState } from 'react';
import type { ChangeEvent, FormEvent } from 'react';
import type { CreateCluster } from '@sluice/protocol';
import { ErrorNote } from '../app/error-note.js';
import { useAction } from '../app/use-action.js';
import { parseProjects } from './cluster-text.js';

export interface KubeconfigFormProps {
  onCreate: (body: CreateCluster) => Promise<unknown>;
}

type FieldEvent = ChangeEvent<HTMLInputElement | HTMLTextAreaElement>;

const EMPTY = { name: '', kubeconfig: '', context: '', namespace: '', projects: '' };

export function KubeconfigForm({ onCreate }: KubeconfigFormProps) {
  const id = useId();
  const action = useAction();
  const [fields, setFields] = useState(EMPTY);
  const [added, setAdded] = useState<string | undefined>();
  const [fileError, setFileError] = useState<Error | undefined>();
  // A file input cannot be cleared by state: a new key makes a new, empty one.
  const [fileKey, setFileKey] = useState(0);
  const set = (field: keyof typeof EMPTY) => (event: FieldEvent) =>
    setFields((prev) => ({ ...prev, [field]: event.target.value }));

  const readFile = (event: ChangeEvent<HTMLInputElement>) => {
    const file = event.target.files?.[0];
    setFileError(undefined);
    if (file === undefined) return;
    file.text().then(
      (kubeconfig) => setFields((prev) => ({ ...prev, kubeconfig })),
      (err: unknown) => setFileError(err instanceof Error ? err : new Error(String(err))),
    );
  };

  const submit = (event: FormEvent) => {
    event.preventDefault();
    return action.run(async () => {
      setAdded(undefined);
      const name = fields.name.trim();
      const context = fields.context.trim();
      const namespace = fields.namespace.trim();
      const projects = parseProjects(fields.projects);
      await onCreate({
        name,
        kubeconfig: fields.kubeconfig,
        ...(context === '' ? {} : { context }),
        ...(namespace === '' ? {} : { namespace }),
        ...(projects === undefined ? {} : { projects }),
      });
      setFields(EMPTY);
      setFileKey((key) => key + 1);
      setAdded(name);
    });
  };

  return (
    <form
      className="grid-form cluster-form"
      onSubmit={(e) => void submit(e)}
      aria-label="Add a cluster from a kubeconfig"
    >
      <div className="field">
        <label htmlFor={`${id}-name`}>Name</label>
        <input
          id={`${id}-name`}
          value={fields.name}
          onChange={set('name')}
          required
          maxLength={63}
          autoComplete="off"
          spellCheck={false}
          aria-describedby={`${id}-name-hint`}
        />
        <span id={`${id}-name-hint`} className="muted small">
          What steps name it by: lowercase letters, digits, “.”, “_” and “-”
        </span>
      </div>
      <div className="field">
        <label htmlFor={`${id}-kubeconfig`}>Kubeconfig</label>
        <textarea
          id={`${id}-kubeconfig`}
          className="mono"
          value={fields.kubeconfig}
          onChange={set('kubeconfig')}
          required
          rows={8}
          spellCheck={false}
          autoComplete="off"
          aria-describedby={`${id}-kubeconfig-hint`}
        />
        <span id={`${id}-kubeconfig-hint`} className="muted small">
          YAML or JSON. Certificates and keys inline, credentials a token, a client certificate or a
          password (no exec or auth-provider plugins):{' '}
          <code>kubectl config view --minify --flatten --context C</code> writes one context so.
        </span>
      </div>
      <div className="field">
        <label htmlFor={`${id}-file`}>Or read a kubeconfig file</label>
        <input id={`${id}-file`} key={fileKey} type="file" onChange={readFile} />
      </div>
      {fileError ? <ErrorNote error={fileError} /> : null}
      <TextField
        id={`${id}-context`}
        label="Context (optional)"
        placeholder="its current-context"
        value={fields.context}
        onChange={set('context')}
      />
      <TextField
        id={`${id}-namespace`}
        label="Namespace (optional)"
        placeholder="the context's, else default"
        value={fields.namespace}
        onChange={set('namespace')}
      />
      <TextField
        id={`${id}-projects`}
        label="Projects (optional, comma-separated)"
        placeholder="every project"
        value={fields.projects}
        onChange={set('projects')}
      />
      <div>
        <button type="submit" className="primary" disabled={action.pending}>
          Add cluster
        </button>
      </div>
      {action.error ? <ErrorNote error={action.error} /> : null}
      {added ? <p role="status">Cluster {added} added.</p> : null}
    </form>
  );
}

interface TextFieldProps {
  id: string;
  label: string;
  placeholder: string;
  value: string;
  onChange: (event: FieldEvent) => void;
}

/** A label beside its input, not around it: a label around a field names it with its value too. */
function TextField({ id, label, placeholder, value, onChange }: TextFieldProps) {
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <input
        id={id}
        value={value}
        onChange={onChange}
        placeholder={placeholder}
        autoComplete="off"
        spellCheck={false}
      />
    </div>
  );
}
