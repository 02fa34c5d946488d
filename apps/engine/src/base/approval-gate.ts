/**
 * How a `pending-approval` step gets its answer: `sluice run` asks on the terminal or takes
 * `--approve`/`--deny`; under the control plane the answer arrives on the engine's control
 * channel. The engine applies the step's timeout itself (its `finalState` wins when nobody
 * answers), so a gate only resolves when someone decided, and stops waiting on `signal`.
 * @module
 */

export interface ApprovalRequest {
  step: string;
  title: string | undefined;
  timeoutMs: number;
  finalState: 'approved' | 'denied';
}

export interface ApprovalAnswer {
  decision: 'approved' | 'denied';
  /** Who answered, when known (a user name, `--approve`, `terminal`). */
  by?: string;
}

export type ApprovalGate = (
  request: ApprovalRequest,
  signal: AbortSignal,
) => Promise<ApprovalAnswer>;
