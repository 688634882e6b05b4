import { useEffect, useState } from "react";

/** The current time in ms, re-rendered every `intervalMs` while `active` (countdowns). */
export function useNow(active = true, intervalMs = 1000): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!active) return;
    setNow(Date.now());
    const timer = setInterval(() => setNow(Date.now()), intervalMs);
    return () => clearInterval(timer);
  }, [active, intervalMs]);
  return now;
}

/** Seconds left until `untilMs` (0 once passed, or when there is no deadline). */
export function useSecondsLeft(untilMs: number | null): number {
  const now = useNow(untilMs !== null && untilMs > Date.now());
  return untilMs === null ? 0 : Math.max(0, Math.ceil((untilMs - now) / 1000));
}
