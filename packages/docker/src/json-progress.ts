/**
 * The daemon's JSON-lines progress streams (build, push, pull): each message parsed and handed
 * on, and the first `error` message remembered, because the daemon reports a failed build or
 * push inside a 200 response rather than with an HTTP status.
 * @module
 */
import { LineSplitter } from './line-splitter.js';

export interface ProgressMessage {
  stream?: string;
  status?: string;
  id?: string;
  progress?: string;
  progressDetail?: { current?: number; total?: number };
  error?: string;
  errorDetail?: { message?: string; code?: number };
  aux?: { ID?: string; Tag?: string; Digest?: string; Size?: number };
}

/** Reads the stream to its end; resolves with the daemon's error message, if it sent one. */
export async function followProgress(
  stream: NodeJS.ReadableStream,
  onMessage: (message: ProgressMessage) => void,
): Promise<{ error: string | undefined }> {
  let error: string | undefined;
  const splitter = new LineSplitter((line) => {
    if (line.trim() === '') return;
    const message = parse(line);
    if (message.error !== undefined || message.errorDetail?.message !== undefined)
      error ??= message.errorDetail?.message ?? message.error;
    onMessage(message);
  });
  for await (const chunk of stream as AsyncIterable<Buffer | string>)
    splitter.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  splitter.flush();
  return { error };
}

function parse(line: string): ProgressMessage {
  try {
    const value: unknown = JSON.parse(line);
    if (typeof value === 'object' && value !== null) return value;
  } catch {
    // Not JSON: a proxy or an old daemon; show it as it came.
  }
  return { stream: `${line}\n` };
}
