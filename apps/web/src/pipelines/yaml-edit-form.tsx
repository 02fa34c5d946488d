/**
 * Editing a pipeline's stored YAML without losing anything: the save sends the version the text
 * is based on (`ifUpdatedAt`) and the server refuses it with 409 when the pipeline changed
 * meanwhile; the page's refresh never replaces unsaved text; both cases show the two versions
 * and let the person keep theirs, take the saved one, or copy theirs. Unsaved text is kept as a
 * draft in the browser (yaml-draft.ts) and leaving the page asks first.
 * @module
 */
import { useEffect, useState } from 'react';
import type { FormEvent } from 'react';
import { ConflictError } from '@sluice/errors';
import type { Pipeline } from '@sluice/protocol';
import { useApi } from '../api/api-context.js';
import { ErrorNote } from '../app/error-note.js';
import { useLeaveGuard } from '../app/router.js';
import { useAction } from '../app/use-action.js';
import { clearDraft, loadDraft, saveDraft } from './yaml-draft.js';
import type { YamlBase } from './yaml-draft.js';
import { LazyYamlEditor } from './yaml-editor-lazy.js';

export interface YamlEditFormProps {
  /** The pipeline as last loaded (the page reloads it every 15 s). */
  pipeline: Pipeline;
  /** The pipeline reads its repository now: saving stores this YAML instead. */
  switching: boolean;
  onSaved: () => void;
}

const LEAVE = 'Your changes to the YAML are not saved. Leave anyway? (This browser keeps a draft.)';

export function YamlEditForm({ pipeline, switching, onSaved }: YamlEditFormProps) {
  const api = useApi();
  const action = useAction();
  const [draft] = useState(() => loadDraft(pipeline.id));
  const [base, setBase] = useState<YamlBase>(draft?.base ?? versionOf(pipeline));
  const [text, setText] = useState(draft?.yaml ?? pipeline.yaml);
  /** A version saved elsewhere after `base`, while this text is unsaved. */
  const [theirs, setTheirs] = useState<YamlBase | null>(null);
  const [saved, setSaved] = useState(false);
  const dirty = text !== base.yaml;
  useLeaveGuard(dirty ? LEAVE : null);

  useEffect(() => {
    if (dirty) saveDraft(pipeline.id, { yaml: text, base });
    else clearDraft(pipeline.id);
  }, [pipeline.id, text, base, dirty]);

  // A newer version from the refresh: taken when nothing is unsaved, else shown beside.
  const latest = versionOf(pipeline);
  useEffect(() => {
    if (latest.updatedAt === base.updatedAt) return;
    if (!dirty) setText(latest.yaml);
    if (!dirty || latest.yaml === base.yaml) setBase(latest);
    else setTheirs(latest);
    // Only a new version of the pipeline is news; the text's own changes are not.
  }, [latest.updatedAt, latest.yaml]);

  const settle = (version: YamlBase, yaml: string) => {
    setBase(version);
    setText(yaml);
    setTheirs(null);
  };

  const save = (event: FormEvent) => {
    event.preventDefault();
    setSaved(false);
    return action.run(async () => {
      let ifUpdatedAt = base.updatedAt;
      // Twice at most: a change elsewhere that left the YAML alone (a variable, the runtime)
      // is no conflict, so the save is sent again on the new version.
      for (let attempt = 0; ; attempt++) {
        try {
          const done = await api.call('updatePipeline', {
            params: { pipelineId: pipeline.id },
            body: { yaml: text, ifUpdatedAt },
          });
          settle(versionOf(done), text);
          setSaved(true);
          onSaved();
          return;
        } catch (err) {
          const current = changedVersion(err);
          if (current === undefined) throw err;
          if (current.yaml !== base.yaml || attempt > 0) return setTheirs(current);
          setBase(current);
          ifUpdatedAt = current.updatedAt;
        }
      }
    });
  };

  return (
    <form className="grid-form" onSubmit={(e) => void save(e)} aria-label="Edit YAML">
      {draft !== undefined && draft.yaml !== pipeline.yaml ? (
        <p role="note" className="muted">
          Your unsaved draft from this browser is restored.
        </p>
      ) : null}
      {theirs !== null && theirs.yaml !== text ? (
        <Conflict
          mine={text}
          theirs={theirs}
          onKeepMine={() => settle(theirs, text)}
          onTakeTheirs={() => settle(theirs, theirs.yaml)}
        />
      ) : null}
      <LazyYamlEditor label="Pipeline YAML" value={text} onChange={setText} />
      <div>
        <button type="submit" disabled={text.trim() === '' || (!switching && !dirty)}>
          Save
        </button>{' '}
        {saved && !dirty ? <span role="status">Saved.</span> : null}
        {dirty ? <span className="muted">Unsaved changes (kept in this browser)</span> : null}
      </div>
      {action.error ? <ErrorNote error={action.error} /> : null}
    </form>
  );
}

interface ConflictProps {
  mine: string;
  theirs: YamlBase;
  onKeepMine: () => void;
  onTakeTheirs: () => void;
}

function Conflict({ mine, theirs, onKeepMine, onTakeTheirs }: ConflictProps) {
  const [copied, setCopied] = useState<string | null>(null);
  const copy = () =>
    navigator.clipboard
      .writeText(mine)
      .then(() => setCopied('Copied.'))
      .catch(() => setCopied('The browser refused: select your version above and copy it.'));
  return (
    <section className="error-note" aria-labelledby="conflict-title">
      <h3 id="conflict-title">This pipeline changed elsewhere</h3>
      <p role="alert">
        It was saved at {new Date(theirs.updatedAt).toLocaleString()}, after the version you are
        editing. Your text is kept until you choose.
      </p>
      <div className="conflict">
        <div>
          <h4>Yours, not saved</h4>
          <pre tabIndex={0} aria-label="Your version">
            {mine}
          </pre>
        </div>
        <div>
          <h4>Saved now</h4>
          <pre tabIndex={0} aria-label="The saved version">
            {theirs.yaml}
          </pre>
        </div>
      </div>
      <button type="button" onClick={onKeepMine}>
        Keep mine
      </button>{' '}
      <button type="button" onClick={onTakeTheirs}>
        Take the saved version
      </button>{' '}
      <button type="button" onClick={() => void copy()}>
        Copy mine
      </button>{' '}
      {copied ? <span role="status">{copied}</span> : null}
      {' Keep mine: the next Save replaces the saved version with yours.'}
    </section>
  );
}

function versionOf(pipeline: Pipeline): YamlBase {
  return { yaml: pipeline.yaml, updatedAt: pipeline.updatedAt };
}

/** The pipeline's current version when `err` is the server's SLUICE_PIPELINE_CHANGED. */
function changedVersion(err: unknown): YamlBase | undefined {
  if (!(err instanceof ConflictError) || err.code !== 'SLUICE_PIPELINE_CHANGED') return undefined;
  const current = (err.details?.details as { current?: Pipeline } | undefined)?.current;
  return current === undefined ? undefined : versionOf(current);
}
