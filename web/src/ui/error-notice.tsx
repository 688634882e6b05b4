import { isIr21ApiError } from "@ir21/sdk";
import { useState } from "react";
import { useI18n } from "../i18n/i18n.tsx";
import type { MessageKey } from "../i18n/en.ts";
import { useSecondsLeft } from "./time.ts";

/** Error codes with a sentence of their own in the UI text (the server's message is shown as well). */
const EXPLAINED = new Set<string>([
  "SMS_NOT_CONFIGURED",
  "SMS_PROVIDER_UNAVAILABLE",
  "SMS_PROVIDER_THROTTLED",
  "SMS_SEND_LIMITED",
  "SIGN_IN_LOCKED",
  "RATE_LIMITED",
  "QUOTA_EXCEEDED",
  "CODE_INCORRECT",
  "CODE_ATTEMPTS_EXHAUSTED",
  "CHALLENGE_EXPIRED",
  "CHALLENGE_CONSUMED",
  "CHALLENGE_SUPERSEDED",
  "INVALID_PHONE",
  "AGREEMENT_OUTDATED",
  "CROSS_SITE_REQUEST",
  "UNAUTHORIZED",
  "WEBHOOK_URL_FORBIDDEN",
  "SECRET_IN_INQUIRY",
  "API_KEY_LIMIT_REACHED",
  "NETWORK_ERROR",
  "NO_DATASET",
]);

/**
 * A failed call as the person sees it: a sentence in their language, the server's own message (the
 * contract's `message`), its code and request id to quote, and, for 429/503 with Retry-After, a live
 * count of the wait.
 */
export function ErrorNotice({ error, title }: { error: unknown; title?: string }) {
  const { t, duration } = useI18n();
  const [shownAt] = useState(() => Date.now());
  const api = isIr21ApiError(error) ? error : null;
  const waitUntil = api?.retryAfter != null ? shownAt + api.retryAfter * 1000 : null;
  const waitLeft = useSecondsLeft(waitUntil);
  if (!api) {
    return (
      <div role="alert" className="notice notice-error">
        <p className="notice-title">{title ?? t("error.unexpected")}</p>
        <p>{error instanceof Error ? error.message : String(error)}</p>
      </div>
    );
  }
  const explained = EXPLAINED.has(api.code) ? t(`error.code.${api.code}` as MessageKey) : null;
  return (
    <div role="alert" className="notice notice-error">
      <p className="notice-title">{title ?? explained ?? t("error.failed")}</p>
      {title && explained ? <p>{explained}</p> : null}
      <p>
        <span className="visually-hidden">{t("error.serverSaid")} </span>
        <q lang="en">{api.message}</q>
      </p>
      {waitUntil !== null ? <p>{waitLeft > 0 ? t("error.waitFor", { time: duration(waitLeft) }) : t("error.waitOver")}</p> : null}
      <p className="notice-meta">
        {t("error.code")} <code>{api.code}</code>
        {api.status ? <> · HTTP {api.status}</> : null}
        {api.requestId ? (
          <>
            {" "}
            · {t("error.requestId")} <code>{api.requestId}</code>
          </>
        ) : null}
      </p>
    </div>
  );
}
