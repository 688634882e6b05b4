import { useEffect, useId, useRef, type ReactNode } from "react";
import { useI18n } from "../i18n/i18n.tsx";

/**
 * A modal dialog on the native <dialog> element: showModal() makes the rest of the page inert and
 * keeps Tab inside, Escape closes it, and focus goes back to what had it before (the button that
 * opened it). The first field or button gets focus, or the element marked `autoFocus`.
 */
export function Dialog({ open, title, onClose, children, wide }: { open: boolean; title: string; onClose: () => void; children: ReactNode; wide?: boolean }) {
  const ref = useRef<HTMLDialogElement>(null);
  const returnTo = useRef<Element | null>(null);
  const titleId = useId();
  const { t } = useI18n();
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) {
      returnTo.current = document.activeElement;
      dialog.showModal();
    } else if (!open && dialog.open) {
      dialog.close();
    }
  }, [open]);
  useEffect(
    () => () => {
      if (returnTo.current instanceof HTMLElement && returnTo.current.isConnected) returnTo.current.focus();
    },
    [],
  );
  return (
    <dialog
      ref={ref}
      aria-labelledby={titleId}
      className={wide ? "dialog dialog-wide" : "dialog"}
      onClose={() => {
        const target = returnTo.current;
        returnTo.current = null;
        if (target instanceof HTMLElement && target.isConnected) target.focus();
        onClose();
      }}
    >
      {open ? (
        <>
          <header className="dialog-header">
            <h2 id={titleId}>{title}</h2>
            <button type="button" className="button-ghost" onClick={() => ref.current?.close()}>
              {t("common.close")}
            </button>
          </header>
          <div className="dialog-body">{children}</div>
        </>
      ) : null}
    </dialog>
  );
}

/** "Are you sure?" for destructive actions; the confirm button says what it does. */
export function ConfirmDialog(props: {
  open: boolean;
  title: string;
  confirmLabel: string;
  onConfirm: () => void;
  onClose: () => void;
  busy?: boolean;
  children?: ReactNode;
  error?: ReactNode;
}) {
  const { t } = useI18n();
  return (
    <Dialog open={props.open} title={props.title} onClose={props.onClose}>
      {props.children}
      {props.error}
      <div className="actions">
        <button type="button" className="button-danger" onClick={props.onConfirm} disabled={props.busy}>
          {props.confirmLabel}
        </button>
        <button type="button" className="button-secondary" onClick={props.onClose} autoFocus>
          {t("common.cancel")}
        </button>
      </div>
    </Dialog>
  );
}
