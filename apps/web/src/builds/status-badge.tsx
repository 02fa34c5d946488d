/**
 * A build's or step's status as a coloured badge with its name in words (colour is never the
 * only signal).
 * @module
 */
export function StatusBadge({ status }: { status: string }) {
  return <span className={`badge status-${status}`}>{status}</span>;
}
