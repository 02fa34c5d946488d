/**
 * The small HTML pages of signing in that the server answers itself (the web UI is not loaded
 * yet, or the browser is about to go back to the CLI): a refusal or a failure, naming the
 * problem and what to do next, with the error's code; and the CLI's "you may close this tab".
 * Everything shown is escaped.
 * @module
 */
import { isSluiceError } from '@sluice/errors';
import type { FastifyReply } from 'fastify';
import { STATUS } from './error-handler.js';

export function escapeHtml(text: string): string {
  return text.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c,
  );
}

/** A whole page: a heading, paragraphs (escaped here) and a link back to signing in. */
export function page(title: string, paragraphs: string[], link?: { href: string; text: string }) {
  const body = paragraphs.map((p) => `<p>${escapeHtml(p)}</p>`).join('\n');
  const back =
    link === undefined
      ? ''
      : `<p><a href="${escapeHtml(link.href)}">${escapeHtml(link.text)}</a></p>`;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
<title>${escapeHtml(title)} · Sluice</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:40rem;margin:4rem auto;padding:0 1rem;color:#1f2328}
h1{font-size:1.4rem}code{background:#f3f4f6;padding:0 .25rem;border-radius:3px}</style>
</head><body><main><h1>${escapeHtml(title)}</h1>
${body}
${back}</main></body></html>`;
}

/** Answers a sign-in that failed with a page naming the problem, what to do and the code. */
export function sendSignInError(reply: FastifyReply, err: unknown): FastifyReply {
  const known = isSluiceError(err);
  const status = known ? STATUS[err.category] : 500;
  const title = status === 503 ? 'Single sign-on is unavailable' : 'You are not signed in';
  const paragraphs = known
    ? [err.message, ...(err.hint === undefined ? [] : [err.hint]), `Error code: ${err.code}`]
    : ['The server failed to sign you in; its log has the details', 'Error code: SLUICE_INTERNAL'];
  return reply
    .status(status)
    .header('cache-control', 'no-store')
    .type('text/html; charset=utf-8')
    .send(page(title, paragraphs, { href: '/', text: 'Back to the sign-in page' }));
}
