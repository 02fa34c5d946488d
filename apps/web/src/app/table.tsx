/**
 * The UI's tables: a header row of column names over the rows given, in a wrapper that scrolls
 * sideways on its own at phone width (the page never does).
 * @module
 */
import type { ReactNode } from 'react';

export interface TableProps {
  headers: readonly string[];
  children: ReactNode;
  label?: string;
  className?: string;
}

export function Table({ headers, children, label, className }: TableProps) {
  return (
    <div className="table-wrap">
      <table className={className} aria-label={label}>
        <thead>
          <tr>
            {headers.map((header) => (
              <th key={header}>{header}</th>
            ))}
          </tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
    </div>
  );
}
