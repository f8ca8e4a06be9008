import type { ReactNode } from "react";

/**
 * A table that may be wider than the screen scrolls inside this region; the region takes focus, so a keyboard
 * user can scroll it too, and is named for screen readers.
 */
export function TableScroll({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div className="table-wrap" role="region" aria-label={label} tabIndex={0}>
      {children}
    </div>
  );
}
