import { useQuery } from "@tanstack/react-query";
import { useId, useState } from "react";
import { Link } from "wouter";
import { api } from "../../api.ts";
import { useI18n } from "../../i18n/i18n.tsx";
import { ErrorNotice } from "../../ui/error-notice.tsx";
import { Loading, PageTitle, Pager, TableWrap } from "../../ui/layout-bits.tsx";
import { useCursorPages } from "../../ui/cursor-pages.ts";
import { filtersText } from "./list.tsx";
import { EndSessionButton, SessionStatus } from "./listen-panel.tsx";
import { DELIVERY_STATUSES, listenDeliveriesKey, statusLabel, useListenSessions } from "./shared.ts";

const PAGE_SIZE = 20;

/** One listen session: its filters and state, End, and its deliveries (what the forwarder reported). */
export default function ListenSessionPage({ id }: { id: string }) {
  const { t, dateTime, number } = useI18n();
  const sessions = useListenSessions();
  const session = sessions.data?.items.find((s) => s.id === id);
  const statusId = useId();
  const [status, setStatus] = useState<(typeof DELIVERY_STATUSES)[number] | "">("");
  const pages = useCursorPages();
  const deliveries = useQuery({
    queryKey: [...listenDeliveriesKey(id), status, pages.cursor],
    queryFn: () => api.webhooks.listen.listDeliveries.query({ id, limit: PAGE_SIZE, ...(status ? { status } : {}), ...(pages.cursor ? { cursor: pages.cursor } : {}) }),
    // A delivery waits for the forwarder's report (at most 60 s): look again while one does.
    refetchInterval: (query) => (query.state.data?.items.some((d) => d.status === "pending") ? 3000 : false),
  });
  if (sessions.isPending) return <Loading />;
  if (sessions.isError) return <ErrorNotice error={sessions.error} />;
  if (!session) {
    return (
      <>
        <PageTitle text={t("listen.notFound")} />
        <Link href="/webhooks">{t("webhooks.backToList")}</Link>
      </>
    );
  }
  const items = deliveries.data?.items ?? [];
  return (
    <>
      <p className="breadcrumb">
        <Link href="/webhooks">{t("nav.webhooks")}</Link>
      </p>
      <PageTitle text={t("listen.sessionTitle")}>
        {t("listen.sessionTitle")} <code className="subtitle">{session.id}</code>
      </PageTitle>
      <section className="card" aria-labelledby="session-title">
        <h2 id="session-title">{t("webhooks.settings")}</h2>
        <dl className="facts facts-wide">
          <div>
            <dt>{t("common.status")}</dt>
            <dd>
              <SessionStatus session={session} />
            </dd>
          </div>
          <div>
            <dt>{t("webhooks.events")}</dt>
            <dd>
              {session.events.length ? (
                <ul className="plain">
                  {session.events.map((e) => (
                    <li key={e}>
                      <code>{e}</code>
                    </li>
                  ))}
                </ul>
              ) : (
                t("listen.allEvents")
              )}
            </dd>
          </div>
          <div>
            <dt>{t("webhooks.filters")}</dt>
            <dd>{filtersText(t, session.countries, session.operators)}</dd>
          </div>
          <div>
            <dt>{t("listen.forwardTo")}</dt>
            <dd className="url">{session.forward_to ?? "—"}</dd>
          </div>
          <div>
            <dt>{t("listen.opened")}</dt>
            <dd>{dateTime(session.created_at)}</dd>
          </div>
          <div>
            <dt>{t("listen.connected")}</dt>
            <dd>{dateTime(session.connected_at)}</dd>
          </div>
          {session.ended_at ? (
            <div>
              <dt>{t("listen.endedAt")}</dt>
              <dd>{dateTime(session.ended_at)}</dd>
            </div>
          ) : null}
        </dl>
        {session.status === "open" ? (
          <div className="actions">
            <EndSessionButton session={session} />
          </div>
        ) : null}
      </section>
      <section aria-labelledby="listen-deliveries-title">
        <h2 id="listen-deliveries-title">{t("deliveries.title")}</h2>
        <p className="hint">{t("listen.deliveriesHint")}</p>
        <div className="toolbar">
          <div className="field">
            <label htmlFor={statusId}>{t("deliveries.filter")}</label>
            <select
              id={statusId}
              value={status}
              onChange={(e) => {
                setStatus(e.currentTarget.value as typeof status);
                pages.reset();
              }}
            >
              <option value="">{t("deliveries.all")}</option>
              {DELIVERY_STATUSES.map((s) => (
                <option key={s} value={s}>
                  {t(statusLabel(s))}
                </option>
              ))}
            </select>
          </div>
          <button type="button" className="button-secondary" onClick={() => deliveries.refetch()} disabled={deliveries.isFetching}>
            {t("common.refresh")}
          </button>
        </div>
        {deliveries.isPending ? <Loading /> : null}
        {deliveries.isError ? <ErrorNotice error={deliveries.error} /> : null}
        {deliveries.data && items.length === 0 ? <p className="muted">{t("deliveries.none")}</p> : null}
        {items.length > 0 ? (
          <TableWrap label={t("deliveries.title")}>
            <table>
              <thead>
                <tr>
                  <th scope="col">{t("deliveries.event")}</th>
                  <th scope="col">{t("common.status")}</th>
                  <th scope="col">{t("deliveries.response")}</th>
                  <th scope="col">{t("common.created")}</th>
                </tr>
              </thead>
              <tbody>
                {items.map((d) => (
                  <tr key={d.id}>
                    <th scope="row">
                      <Link href={`/webhooks/listen/${id}/deliveries/${d.id}`}>
                        <code>{d.event_type}</code>
                      </Link>
                      <div className="muted small">{d.id}</div>
                    </th>
                    <td>
                      <span className={`badge badge-${d.status}`}>{t(statusLabel(d.status))}</span>
                    </td>
                    <td>{d.response_status ?? d.last_error ?? "—"}</td>
                    <td>{dateTime(d.created_at)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableWrap>
        ) : null}
        {deliveries.data ? (
          <Pager
            hasPrevious={pages.hasPrevious}
            hasNext={Boolean(deliveries.data.next_cursor)}
            onPrevious={pages.previous}
            onNext={() => deliveries.data.next_cursor && pages.next(deliveries.data.next_cursor)}
            summary={t("deliveries.summary", { page: pages.page, total: number(deliveries.data.total) })}
          />
        ) : null}
      </section>
    </>
  );
}
