import { useEffect, useRef, type ReactNode } from "react";
import { useI18n } from "../i18n/i18n.tsx";

/**
 * A page's heading. It takes focus when the page opens (after a client-side navigation a screen
 * reader would otherwise stay on the link that was followed) and names the document.
 */
export function PageTitle({ children, text }: { children?: ReactNode; text: string }) {
  const ref = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    document.title = `${text} · ir21`;
    // Only move focus after a navigation inside the app, not on the first load.
    if (document.body.dataset.navigated === "1") ref.current?.focus();
  }, [text]);
  return (
    <h1 ref={ref} tabIndex={-1}>
      {children ?? text}
    </h1>
  );
}

/** A wide table that scrolls sideways on a narrow screen; the region is focusable so keyboards can scroll it. */
export function TableWrap({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div className="table-wrap" role="region" aria-label={label} tabIndex={0}>
      {children}
    </div>
  );
}

export function Loading() {
  const { t } = useI18n();
  return (
    <p role="status" className="muted">
      {t("common.loading")}
    </p>
  );
}

/** Previous/next by cursor: `cursors` is the stack of cursors of the pages before this one. */
export function Pager({ hasPrevious, hasNext, onPrevious, onNext, summary }: { hasPrevious: boolean; hasNext: boolean; onPrevious: () => void; onNext: () => void; summary?: string }) {
  const { t } = useI18n();
  return (
    <nav className="pager" aria-label={t("common.pagination")}>
      <button type="button" className="button-secondary" disabled={!hasPrevious} onClick={onPrevious}>
        {t("common.previousPage")}
      </button>
      {summary ? <span className="muted">{summary}</span> : null}
      <button type="button" className="button-secondary" disabled={!hasNext} onClick={onNext}>
        {t("common.nextPage")}
      </button>
    </nav>
  );
}
