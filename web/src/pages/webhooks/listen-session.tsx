import { api } from "../../api.ts";
import { useI18n } from "../../i18n/i18n.tsx";
import { ErrorNotice } from "../../ui/error-notice.tsx";
import { Loading } from "../../ui/layout-bits.tsx";
import { DeliveryTable, DeliveryToolbar, useDeliveryLog } from "./delivery-log.tsx";
import { FiltersText } from "./filters-text.tsx";
import { EndSessionButton, SessionStatus } from "./listen-panel.tsx";
import { listenDeliveriesKey, useListenSessions } from "./shared.ts";
import { EventTypeList, SubpageNotFound, SubpageTitle } from "./subpage.tsx";

/** One listen session: its filters and state, End, and its deliveries (what the forwarder reported). */
export default function ListenSessionPage({ id }: { id: string }) {
  const { t, dateTime } = useI18n();
  const sessions = useListenSessions();
  const session = sessions.data?.items.find((s) => s.id === id);
  const log = useDeliveryLog(listenDeliveriesKey(id), (page) => api.webhooks.listen.listDeliveries.query({ id, ...page }));
  if (sessions.isPending) return <Loading />;
  if (sessions.isError) return <ErrorNotice error={sessions.error} />;
  if (!session) return <SubpageNotFound title={t("listen.notFound")} />;
  return (
    <>
      <SubpageTitle title={t("listen.sessionTitle")}>
        <code className="subtitle">{session.id}</code>
      </SubpageTitle>
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
              {session.events.length ? <EventTypeList events={session.events} /> : t("listen.allEvents")}
            </dd>
          </div>
          <div>
            <dt>{t("webhooks.filters")}</dt>
            <dd>
              <FiltersText countries={session.countries} operators={session.operators} />
            </dd>
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
        <DeliveryToolbar log={log} />
        <DeliveryTable log={log} hrefOf={(d) => `/webhooks/listen/${id}/deliveries/${d.id}`} />
      </section>
    </>
  );
}
