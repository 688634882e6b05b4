import { useCallback, useState } from "react";

/**
 * Paging over an opaque cursor: the cursor of the page shown, and the cursors of the pages before it
 * so "previous" can go back (the API only links forward).
 */
export function useCursorPages() {
  const [stack, setStack] = useState<Array<string | undefined>>([undefined]);
  const cursor = stack[stack.length - 1];
  return {
    cursor,
    page: stack.length,
    hasPrevious: stack.length > 1,
    next: useCallback((nextCursor: string) => setStack((s) => [...s, nextCursor]), []),
    previous: useCallback(() => setStack((s) => (s.length > 1 ? s.slice(0, -1) : s)), []),
    reset: useCallback(() => setStack([undefined]), []),
  };
}
