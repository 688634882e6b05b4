import { useId, useState } from "react";
import { useI18n } from "../i18n/i18n.tsx";

/** Copies text to the clipboard and says so (politely, for screen readers). */
export function CopyButton({ text, label }: { text: string; label?: string }) {
  const { t } = useI18n();
  const [state, setState] = useState<"idle" | "copied" | "failed">("idle");
  return (
    <>
      <button
        type="button"
        className="button-secondary"
        onClick={async () => {
          try {
            await navigator.clipboard.writeText(text);
            setState("copied");
          } catch {
            setState("failed");
          }
        }}
      >
        {label ?? t("common.copy")}
      </button>
      <span role="status" className="copy-status">
        {state === "copied" ? t("common.copied") : state === "failed" ? t("common.copyFailed") : ""}
      </span>
    </>
  );
}

/**
 * A secret the server returns once (an API key, a webhook signing secret): read-only, selectable,
 * with a copy button and the warning that it will not be shown again. It lives in component state
 * only: never in storage, the URL or history state.
 */
export function SecretOnce({ label, value, warning }: { label: string; value: string; warning: string }) {
  const id = useId();
  return (
    <div className="secret-once">
      <p className="notice notice-warning">{warning}</p>
      <label htmlFor={id}>{label}</label>
      <div className="secret-row">
        <input id={id} className="mono" readOnly value={value} onFocus={(e) => e.currentTarget.select()} spellCheck={false} autoComplete="off" />
        <CopyButton text={value} />
      </div>
    </div>
  );
}
