/**
 * A YAML text area with line numbers, checked by the server as you type (debounced): each
 * problem marks its line in the gutter and is listed under the editor with line:column.
 * @module
 */
import { useEffect, useRef, useState } from 'react';
import type { CallOutput } from '@sluice/protocol';
import { useApi } from '../api/api-context.js';

export type PipelineIssue = CallOutput<'validatePipeline'>['issues'][number];

const DEBOUNCE_MS = 400;

export interface YamlEditorProps {
  value: string;
  onChange: (value: string) => void;
  /** Called with each answer of the server's check (an empty list when valid). */
  onIssues?: (issues: PipelineIssue[]) => void;
  label: string;
}

export function YamlEditor({ value, onChange, onIssues, label }: YamlEditorProps) {
  const api = useApi();
  const [issues, setIssues] = useState<PipelineIssue[]>([]);
  const [checking, setChecking] = useState(false);
  // A notification: a new function each render must not check again.
  const notify = useRef(onIssues);
  notify.current = onIssues;

  useEffect(() => {
    if (value.trim() === '') return;
    const controller = new AbortController();
    const timer = setTimeout(() => {
      setChecking(true);
      api
        .call('validatePipeline', { body: { yaml: value }, signal: controller.signal })
        .then((result) => {
          setIssues(result.issues);
          notify.current?.(result.issues);
        })
        .catch(() => undefined)
        .finally(() => setChecking(false));
    }, DEBOUNCE_MS);
    return () => {
      clearTimeout(timer);
      controller.abort();
    };
  }, [api, value]);

  const lines = value.split('\n');
  const marked = new Map<number, PipelineIssue[]>();
  for (const issue of issues) marked.set(issue.line, [...(marked.get(issue.line) ?? []), issue]);

  return (
    <div>
      <div className="editor">
        <div className="gutter" aria-hidden="true">
          {lines.map((_, i) => {
            const here = marked.get(i + 1);
            return (
              <div
                key={i}
                className={here ? 'has-issue' : undefined}
                data-line={i + 1}
                title={here?.map((x) => x.message).join('\n')}
              >
                {i + 1}
              </div>
            );
          })}
        </div>
        <textarea
          aria-label={label}
          spellCheck={false}
          value={value}
          rows={Math.max(12, lines.length + 1)}
          onChange={(e) => onChange(e.target.value)}
        />
      </div>
      <p className="muted small" aria-live="polite">
        {checking ? 'Checking…' : issues.length === 0 ? 'No problems found.' : ''}
      </p>
      <ul className="issues" aria-label="Problems">
        {issues.map((issue, i) => (
          <li key={i} data-line={issue.line} className={issue.severity}>
            Line {issue.line}:{issue.column} — {issue.message}{' '}
            <span className="muted">({issue.code})</span>
          </li>
        ))}
      </ul>
    </div>
  );
}
