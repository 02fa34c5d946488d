/**
 * A YAML code editor (CodeMirror 6 with its YAML mode), checked by the server as you type
 * (debounced): each problem is a lint marker in the gutter and an underline from its line and
 * column, and is listed under the editor as a button that puts the cursor there. Tab moves the
 * focus on, as everywhere else on the page (YAML is indented with spaces; Enter keeps the
 * indentation). CodeMirror injects its styles as a `<style>` element, which the page's CSP
 * allows (`style-src 'unsafe-inline'`, as React's style attributes need); scripts stay strict.
 * @module
 */
import { useEffect, useRef, useState } from 'react';
import type { CallOutput } from '@sluice/protocol';
import { defaultKeymap, history, historyKeymap } from '@codemirror/commands';
import { yaml } from '@codemirror/lang-yaml';
import { defaultHighlightStyle, syntaxHighlighting } from '@codemirror/language';
import { lintGutter, setDiagnostics } from '@codemirror/lint';
import type { Diagnostic } from '@codemirror/lint';
import { EditorState } from '@codemirror/state';
import type { Text } from '@codemirror/state';
import {
  EditorView,
  drawSelection,
  highlightActiveLine,
  highlightActiveLineGutter,
  keymap,
  lineNumbers,
} from '@codemirror/view';
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
  // Notifications: a new function each render must not check again or remake the editor.
  const notify = useRef(onIssues);
  notify.current = onIssues;
  const { host, view } = useCodeMirror(value, onChange, label);

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

  useEffect(() => {
    const editor = view.current;
    if (!editor) return;
    const diagnostics = issues.map((issue) => diagnosticOf(editor.state.doc, issue));
    editor.dispatch(setDiagnostics(editor.state, diagnostics));
  }, [issues, view]);

  const reveal = (issue: PipelineIssue) => {
    const editor = view.current;
    if (!editor) return;
    const { from } = diagnosticOf(editor.state.doc, issue);
    editor.dispatch({ selection: { anchor: from }, scrollIntoView: true });
    editor.focus();
  };

  return (
    <div className="yaml-editor">
      <div className="code-editor" ref={host} />
      <p className="muted small" aria-live="polite">
        {checking ? 'Checking…' : issues.length === 0 ? 'No problems found.' : ''}
      </p>
      <ul className="issues" aria-label="Problems">
        {issues.map((issue, i) => (
          <li key={i} data-line={issue.line} className={issue.severity}>
            <button type="button" className="link" onClick={() => reveal(issue)}>
              Line {issue.line}:{issue.column}
            </button>{' '}
            — {issue.message} <span className="muted">({issue.code})</span>
          </li>
        ))}
      </ul>
    </div>
  );
}

/**
 * The editor on a host element, made once: its text follows `value` when that changes from
 * outside (a draft restored, the server's version taken), and each edit calls `onChange`.
 */
function useCodeMirror(value: string, onChange: (value: string) => void, label: string) {
  const host = useRef<HTMLDivElement>(null);
  const current = useRef<EditorView | null>(null);
  const change = useRef(onChange);
  change.current = onChange;
  const initial = useRef({ value, label });

  useEffect(() => {
    if (!host.current) return;
    const editor = new EditorView({
      parent: host.current,
      state: EditorState.create({
        doc: initial.current.value,
        extensions: [
          lineNumbers(),
          highlightActiveLineGutter(),
          highlightActiveLine(),
          history(),
          drawSelection(),
          syntaxHighlighting(defaultHighlightStyle),
          yaml(),
          lintGutter(),
          keymap.of([...defaultKeymap, ...historyKeymap]),
          EditorView.contentAttributes.of({ 'aria-label': initial.current.label }),
          EditorView.updateListener.of((update) => {
            if (update.docChanged) change.current(update.state.doc.toString());
          }),
        ],
      }),
    });
    current.current = editor;
    return () => {
      editor.destroy();
      current.current = null;
    };
  }, []);

  useEffect(() => {
    const editor = current.current;
    if (!editor || editor.state.doc.toString() === value) return;
    editor.dispatch({ changes: { from: 0, to: editor.state.doc.length, insert: value } });
  }, [value]);

  return { host, view: current };
}

/** An issue's line and column (1-based, as the API gives them) as a range of the text. */
export function diagnosticOf(doc: Text, issue: PipelineIssue): Diagnostic {
  const line = doc.line(Math.min(Math.max(issue.line, 1), doc.lines));
  const from = line.from + Math.min(Math.max(issue.column - 1, 0), line.length);
  return {
    from,
    to: from === line.to ? from : line.to,
    severity: issue.severity,
    message: issue.message,
    source: issue.code,
  };
}
