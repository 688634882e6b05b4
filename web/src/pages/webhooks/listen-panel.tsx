import type { ListenSession } from "@ir21/sdk";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { Link } from "wouter";
import { api } from "../../api.ts";
import { useI18n } from "../../i18n/i18n.tsx";
import { ConfirmDialog, Dialog } from "../../ui/dialog.tsx";
import { ErrorNotice } from "../../ui/error-notice.tsx";
import { Loading, TableWrap } from "../../ui/layout-bits.tsx";
import { EventTypeChoice, type TestChoice } from "./event-type-choice.tsx";
import { EnumLabel } from "../../ui/names.tsx";
import { FiltersText } from "./filters-text.tsx";
import { LISTEN_COMMAND, LISTEN_SESSIONS, listenDeliveriesKey, useListenSessions, type EventType } from "./shared.ts";

/**
 * The account's listen sessions (`ir21 listen`): each with its filters and where it forwards, a link
 * to its deliveries, and End; plus "trigger a test event" to every open session. The stream itself is
 * the CLI's business: a browser tab is not where a developer's receiver runs.
 */
export function ListenPanel() {
  const { t } = useI18n();
  const sessions = useListenSessions();
  const [triggerOpen, setTriggerOpen] = useState(false);
  const items = sessions.data?.items ?? [];
  const open = items.filter((s) => s.status === "open");
  return (
    <section className="card" aria-labelledby="listen-title">
      <h2 id="listen-title">{t("listen.title")}</h2>
      <p>{t("listen.intro")}</p>
      <p className="hint">
        {t("listen.commandHint")} <code className="command">{LISTEN_COMMAND}</code>
      </p>
      <div className="actions">
        <button type="button" onClick={() => setTriggerOpen(true)} disabled={sessions.isPending || open.length === 0} aria-describedby={open.length === 0 ? "listen-trigger-hint" : undefined}>
          {t("listen.trigger")}
        </button>
        <button type="button" className="button-secondary" onClick={() => sessions.refetch()} disabled={sessions.isFetching}>
          {t("listen.refresh")}
        </button>
      </div>
      {sessions.data && open.length === 0 ? (
        <p id="listen-trigger-hint" className="hint">
          {t("listen.noOpen")}
        </p>
      ) : null}
      {sessions.isPending ? <Loading /> : null}
      {sessions.isError ? <ErrorNotice error={sessions.error} /> : null}
      {sessions.data && items.length === 0 ? <p className="muted">{t("listen.none")}</p> : null}
      {items.length > 0 ? (
        <TableWrap label={t("listen.tableLabel")}>
          <table>
            <thead>
              <tr>
                <th scope="col">{t("listen.session")}</th>
                <th scope="col">{t("common.status")}</th>
                <th scope="col">{t("webhooks.events")}</th>
                <th scope="col">{t("listen.forwardTo")}</th>
                <th scope="col">{t("listen.opened")}</th>
                <th scope="col">{t("common.actions")}</th>
              </tr>
            </thead>
            <tbody>
              {items.map((s) => (
                <SessionRow key={s.id} session={s} />
              ))}
            </tbody>
          </table>
        </TableWrap>
      ) : null}
      <TriggerDialog open={triggerOpen} onClose={() => setTriggerOpen(false)} openCount={open.length} />
    </section>
  );
}

function SessionRow({ session }: { session: ListenSession }) {
  const { t, tn, dateTime } = useI18n();
  return (
    <tr>
      <th scope="row">
        <Link href={`/webhooks/listen/${session.id}`}>
          <code>{session.id}</code>
        </Link>
      </th>
      <td>
        <SessionStatus session={session} />
      </td>
      <td>
        {session.events.length ? tn("webhooks.eventCount", session.events.length) : t("listen.allEvents")}
        <div className="muted small">
          <FiltersText countries={session.countries} operators={session.operators} />
        </div>
      </td>
      <td className="url">{session.forward_to ?? "—"}</td>
      <td>{dateTime(session.created_at)}</td>
      <td>{session.status === "open" ? <EndSessionButton session={session} /> : "—"}</td>
    </tr>
  );
}

export function SessionStatus({ session }: { session: ListenSession }) {
  const { tx } = useI18n();
  return session.status === "open" ? (
    <span className="badge badge-ok">
      <EnumLabel kind="listenStatus" value={session.status} />
    </span>
  ) : (
    <>
      <span className="badge badge-muted">
        <EnumLabel kind="listenStatus" value={session.status} />
      </span>
      {session.end_reason ? <div className="muted small">{tx("listen.endReason", { reason: <EnumLabel kind="listenEndReason" value={session.end_reason} /> })}</div> : null}
    </>
  );
}

/** End a session for good (the account's decision: it cannot be resumed), after a confirmation. */
export function EndSessionButton({ session }: { session: ListenSession }) {
  const { t } = useI18n();
  const queryClient = useQueryClient();
  const [confirm, setConfirm] = useState(false);
  const end = useMutation({
    mutationFn: () => api.webhooks.listen.end.mutate({ id: session.id }),
    onSuccess: () => {
      setConfirm(false);
      void queryClient.invalidateQueries({ queryKey: LISTEN_SESSIONS });
    },
  });
  return (
    <>
      <button type="button" className="button-danger-outline" onClick={() => setConfirm(true)} aria-label={t("listen.endNamed", { id: session.id })}>
        {t("listen.end")}
      </button>
      <ConfirmDialog
        open={confirm}
        title={t("listen.endTitle", { id: session.id })}
        confirmLabel={t("listen.endConfirm")}
        onConfirm={() => end.mutate()}
        onClose={() => setConfirm(false)}
        mutation={end}
      >
        <p>{t("listen.endBody")}</p>
      </ConfirmDialog>
    </>
  );
}

/** One test event of a chosen type to every open session of the account, whatever their filters. */
function TriggerDialog({ open, onClose, openCount }: { open: boolean; onClose: () => void; openCount: number }) {
  const { t, tn, txn } = useI18n();
  const queryClient = useQueryClient();
  const [type, setType] = useState<TestChoice>("ir21.operator.updated");
  const trigger = useMutation({
    mutationFn: () => api.webhooks.listen.trigger.mutate({ event_type: type as EventType }),
    onSuccess: (result) => {
      for (const d of result.deliveries) void queryClient.invalidateQueries({ queryKey: listenDeliveriesKey(d.session_id) });
    },
  });
  return (
    <Dialog
      open={open}
      title={t("listen.triggerTitle")}
      onClose={() => {
        trigger.reset();
        onClose();
      }}
      wide
    >
      <form
        className="form"
        onSubmit={(event) => {
          event.preventDefault();
          trigger.mutate();
        }}
      >
        <p>{tn("listen.triggerIntro", openCount)}</p>
        <EventTypeChoice legend={t("test.type")} value={type} onChange={setType} />
        <div className="actions">
          <button type="submit" disabled={trigger.isPending}>
            {t("listen.triggerSend")}
          </button>
        </div>
        {trigger.isError ? <ErrorNotice error={trigger.error} /> : null}
        {trigger.isSuccess ? (
          <div role="status" className="notice notice-info">
            <p>{txn("listen.triggered", trigger.data.deliveries.length, { type: <code>{trigger.data.event_type}</code>, command: <code>ir21 listen</code> })}</p>
            <ul className="plain">
              {trigger.data.deliveries.map((d) => (
                <li key={d.delivery_id}>
                  <Link href={`/webhooks/listen/${d.session_id}/deliveries/${d.delivery_id}`}>{t("listen.openDeliveryOf", { id: d.session_id })}</Link>
                </li>
              ))}
            </ul>
          </div>
        ) : null}
      </form>
    </Dialog>
  );
}
