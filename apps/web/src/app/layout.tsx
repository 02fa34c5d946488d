/**
 * The frame around every page: navigation, the connection banner (shown while the server does
 * not answer, gone on the next answer), and sign-out; the tab's title and the focus follow the
 * page's heading (page-heading.ts).
 * @module
 */
import { useRef } from 'react';
import type { ReactNode } from 'react';
import { useApi } from '../api/api-context.js';
import { useOnline } from '../api/connection.js';
import { usePageHeading } from './page-heading.js';
import { Link } from './router.js';

const NAV = [
  { href: '/builds', label: 'Builds' },
  { href: '/pipelines', label: 'Pipelines' },
  { href: '/runtimes', label: 'Runtime environments' },
  { href: '/agents', label: 'Agents' },
  { href: '/clusters', label: 'Clusters' },
  { href: '/tokens', label: 'Tokens' },
  { href: '/users', label: 'Users', admin: true },
  { href: '/audit', label: 'Audit log', admin: true },
];

export function Layout({ path, children }: { path: string; children: ReactNode }) {
  const api = useApi();
  const online = useOnline();
  const main = useRef<HTMLElement>(null);
  usePageHeading(main, path);
  return (
    <div className="layout">
      <header className="top">
        <Link href="/builds" className="brand">
          Sluice
        </Link>
        <nav aria-label="Main">
          {NAV.filter((item) => !item.admin || api.session.user.role === 'admin').map((item) => (
            <Link
              key={item.href}
              href={item.href}
              aria-current={path.startsWith(item.href) ? 'page' : undefined}
            >
              {item.label}
            </Link>
          ))}
        </nav>
        <span className="muted small" title={api.session.user.role}>
          {api.session.user.name}
        </span>
        <button type="button" className="sign-out" onClick={api.signOut}>
          Sign out
        </button>
      </header>
      {online ? null : (
        <div className="offline" role="status">
          Connection to the server lost — retrying…
        </div>
      )}
      <main className="content" ref={main}>
        {children}
      </main>
    </div>
  );
}
