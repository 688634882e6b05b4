import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { Link } from "wouter";
import { api } from "../../api.ts";
import { useI18n } from "../../i18n/i18n.tsx";
import { ErrorNotice } from "../../ui/error-notice.tsx";
import { Loading, PageTitle, TableWrap } from "../../ui/layout-bits.tsx";
import { deliveriesKey, deliveryKey, statusLabel } from "./shared.ts";

/** One delivery: its state, every attempt, the event as sent, and a manual retry (same event id). */
export default function DeliveryPage({ id, deliveryId }: { id: string; deliveryId: string }) {
  const { t, dateTime, number } = useI18n();
  const queryClient = useQueryClient();
  const delivery = useQuery({
    queryKey: deliveryKey(id, deliveryId),
    queryFn: () => api.webhooks.getDelivery.query({ id, deliveryId }),
    refetchInterval: (query) => (query.state.data?.item.status === "pending" ? 3000 : false),
  });
  const retry = useMutation({
    mutationFn: () => api.webhooks.retryDelivery.mutate({ id, deliveryId }),
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: deliveriesKey(id) });
    },
  });
  return (
    <>
      <p className="breadcrumb">
        <Link href="/webhooks">{t("nav.webhooks")}</Link> › <Link href={`/webhooks/${id}`}>{t("webhooks.detailTitle")}</Link>
      </p>
      <PageTitle text={t("delivery.title")} />
      {delivery.isPending ? <Loading /> : null}
      {delivery.isError ? <ErrorNotice error={delivery.error} /> : null}
      {delivery.data ? (
        <>
          <section className="card">
            <dl className="facts facts-wide">
              <div>
                <dt>{t("delivery.id")}</dt>
                <dd>
                  <code>{delivery.data.item.id}</code>
                </dd>
              </div>
              <div>
                <dt>{t("delivery.eventId")}</dt>
                <dd>
                  <code>{delivery.data.item.event_id}</code>
                </dd>
              </div>
              <div>
                <dt>{t("deliveries.event")}</dt>
                <dd>
                  <code>{delivery.data.item.event_type}</code> {delivery.data.event.test ? <span className="badge badge-muted">{t("delivery.test")}</span> : null}
                </dd>
              </div>
              <div>
                <dt>{t("common.status")}</dt>
                <dd>
                  <span className={`badge badge-${delivery.data.item.status}`}>{t(statusLabel(delivery.data.item.status))}</span>
                </dd>
              </div>
              <div>
                <dt>{t("deliveries.attempts")}</dt>
                <dd>{number(delivery.data.item.attempts)}</dd>
              </div>
              <div>
                <dt>{t("deliveries.nextAttempt")}</dt>
                <dd>{delivery.data.item.next_attempt_at ? dateTime(delivery.data.item.next_attempt_at) : "—"}</dd>
              </div>
            </dl>
            <div className="actions">
              <button type="button" onClick={() => retry.mutate()} disabled={retry.isPending}>
                {t("delivery.retry")}
              </button>
              <button type="button" className="button-secondary" onClick={() => delivery.refetch()} disabled={delivery.isFetching}>
                {t("common.refresh")}
              </button>
            </div>
            <p className="hint">{t("delivery.retryNote")}</p>
            {retry.isSuccess ? (
              <p role="status" className="notice notice-info">
                {t("delivery.retried")}
              </p>
            ) : null}
            {retry.isError ? <ErrorNotice error={retry.error} /> : null}
          </section>
          <h2>{t("delivery.attemptsTitle")}</h2>
          {delivery.data.attempts.length === 0 ? (
            <p className="muted">{t("delivery.noAttempts")}</p>
          ) : (
            <TableWrap label={t("delivery.attemptsTitle")}>
              <table>
                <thead>
                  <tr>
                    <th scope="col">{t("delivery.attemptedAt")}</th>
                    <th scope="col">{t("deliveries.response")}</th>
                    <th scope="col">{t("delivery.error")}</th>
                  </tr>
                </thead>
                <tbody>
                  {delivery.data.attempts.map((a) => (
                    <tr key={a.id}>
                      <th scope="row">{dateTime(a.attempted_at)}</th>
                      <td>{a.response_status ?? "—"}</td>
                      <td>{a.error ?? "—"}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </TableWrap>
          )}
          <h2>{t("delivery.payload")}</h2>
          <pre className="code-block" tabIndex={0} aria-label={t("delivery.payload")}>
            {JSON.stringify(delivery.data.event, null, 2)}
          </pre>
        </>
      ) : null}
    </>
  );
}
