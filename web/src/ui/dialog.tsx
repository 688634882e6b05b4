import { useEffect, useId, useRef, type ReactNode } from "react";
import { useI18n } from "../i18n/i18n.tsx";
import { ErrorNotice } from "./error-notice.tsx";

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

/** What {@link ConfirmDialog} needs of the mutation it confirms (a TanStack Query `useMutation` result). */
export interface ConfirmedMutation {
  isPending: boolean;
  isError: boolean;
  error: unknown;
  reset(): void;
}

/**
 * "Are you sure?" for destructive actions; the confirm button says what it does. It is busy while
 * `mutation` runs, shows its error, and closing (Cancel, Escape) resets it, so a failure is not shown
 * again the next time the dialog opens.
 */
export function ConfirmDialog(props: { open: boolean; title: string; confirmLabel: string; onConfirm: () => void; onClose: () => void; mutation: ConfirmedMutation; children?: ReactNode }) {
  const { t } = useI18n();
  const { mutation } = props;
  const close = () => {
    props.onClose();
    mutation.reset();
  };
  return (
    <Dialog open={props.open} title={props.title} onClose={close}>
      {props.children}
      {mutation.isError ? <ErrorNotice error={mutation.error} /> : null}
      <div className="actions">
        <button type="button" className="button-danger" onClick={props.onConfirm} disabled={mutation.isPending}>
          {props.confirmLabel}
        </button>
        <button type="button" className="button-secondary" onClick={close} autoFocus>
          {t("common.cancel")}
        </button>
      </div>
    </Dialog>
  );
}
