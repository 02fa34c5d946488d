/**
 * The bundle's entry: mounts the app on `#root`.
 * @module
 */
// First: zod reads this before @sluice/protocol makes its schemas.
import './app/zod-jitless.js';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { askEarly } from './api/early-requests.js';
import { App } from './app/app.js';
import './styles.css';

// A build's page asks for its build and log now, with the session, not after it.
askEarly(window.location.pathname);
const root = document.getElementById('root');
if (root) {
  createRoot(root).render(
    <StrictMode>
      <App />
    </StrictMode>,
  );
}
