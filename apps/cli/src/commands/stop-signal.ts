/**
 * How the long-running commands (`server`, `agent`, `up`) wait for the user: the first SIGINT
 * or SIGTERM resolves, and the handlers go, so a second Ctrl-C during shutdown is Node's own
 * (it ends the process at once). A `failure` that rejects first (an agent that could not
 * start) rejects instead.
 * @module
 */

export function waitForStopSignal(failure?: Promise<unknown>): Promise<NodeJS.Signals> {
  return new Promise((resolve, reject) => {
    const detach = () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
    };
    const stop = (signal: NodeJS.Signals) => {
      detach();
      resolve(signal);
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
    failure?.catch((err: unknown) => {
      detach();
      reject(err instanceof Error ? err : new Error(String(err)));
    });
  });
}
