/**
 * The YAML editor loaded when a page shows it: CodeMirror is most of the bundle's size, and
 * the pages people open most (builds, a build) never need it.
 * @module
 */
import { Suspense, lazy } from 'react';
import type { YamlEditorProps } from './yaml-editor.js';

const Editor = lazy(() => import('./yaml-editor.js').then((m) => ({ default: m.YamlEditor })));

export function LazyYamlEditor(props: YamlEditorProps) {
  return (
    <Suspense fallback={<p className="muted">Loading the editor…</p>}>
      <Editor {...props} />
    </Suspense>
  );
}
