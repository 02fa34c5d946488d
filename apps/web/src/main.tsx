/**
 * The bundle's entry: mounts the app on `#root`.
 * @module
 */
// First: zod reads this before @sluice/protocol makes its schemas.
import './app/zod-jitless.js';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './app/app.js';
import './styles.css';

const root = document.getElementById('root');
if (root) {
  createRoot(root).render(
    <StrictMode>
      <App />
    </StrictMode>,
  );
}
