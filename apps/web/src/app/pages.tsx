/**
 * The pages beyond builds, by address; an unknown address says so.
 * @module
 */
import type { ReactNode } from 'react';

export function routePage(path: string, _search: string): ReactNode {
  return (
    <section>
      <h1>Not found</h1>
      <p>No page at {path}.</p>
    </section>
  );
}
