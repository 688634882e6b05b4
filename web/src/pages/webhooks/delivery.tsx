import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { Link } from "wouter";
import { api } from "../../api.ts";
import { useI18n } from "../../i18n/i18n.tsx";
import { ErrorNotice } from "../../ui/error-notice.tsx";
import { Loading, PageTitle, TableWrap } from "../../ui/layout-bits.tsx";
import { DeliveryErrorText, EnumLabel } from "../../ui/names.tsx";
import { deliveriesKey, deliveryKey, listenDeliveryKey } from "./shared.ts";
import { EventTypeName } from "./subpage.tsx";
import type { WebhookAttempt, WebhookAttemptResponse } from "@ir21/sdk";

/**
 * One delivery: its state, every attempt with what the receiver answered, the event as sent, and for
 * a subscription a manual retry (same event id). `listen` shows a listen session's delivery instead
 * (`id` is then the session's): same record, no retry (the developer triggers another).
 */
export default function DeliveryPage({ id, deliveryId, listen = false }: { id: string; deliveryId: string; listen?: boolean }) {
  const { t, dateTime, number } = useI18n();
  const queryClient = useQueryClient();
  const delivery = useQuery({
    queryKey: listen ? listenDeliveryKey(id, deliveryId) : deliveryKey(id, deliveryId),
    queryFn: () => (listen ? api.webhooks.listen.getDelivery.query({ id, deliveryId }) : api.webhooks.getDelivery.query({ id, deliveryId })),
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
        <Link href="/webhooks">{t("nav.webhooks")}</Link> ›{" "}
        {listen ? <Link href={`/webhooks/listen/${id}`}>{t("listen.sessionTitle")}</Link> : <Link href={`/webhooks/${id}`}>{t("webhooks.detailTitle")}</Link>}
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
                  <code>{delivery.data.item.event_type}</code> <EventTypeName type={delivery.data.item.event_type} />{" "}
                  {delivery.data.event.test ? <span className="badge badge-muted">{t("delivery.test")}</span> : null}
                </dd>
              </div>
              <div>
                <dt>{t("common.status")}</dt>
                <dd>
                  <span className={`badge badge-${delivery.data.item.status}`}>
                    <EnumLabel kind="deliveryStatus" value={delivery.data.item.status} />
                  </span>
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
              {listen ? null : (
                <button type="button" onClick={() => retry.mutate()} disabled={retry.isPending}>
                  {t("delivery.retry")}
                </button>
              )}
              <button type="button" className="button-secondary" onClick={() => delivery.refetch()} disabled={delivery.isFetching}>
                {t("common.refresh")}
              </button>
            </div>
            <p className="hint">{listen ? t("listen.noRetry") : t("delivery.retryNote")}</p>
            {retry.isSuccess ? (
              <p role="status" className="notice notice-info">
                {t("delivery.retried")}
              </p>
            ) : null}
            {retry.isError ? <ErrorNotice error={retry.error} /> : null}
          </section>
          <h2>{t("delivery.attemptsTitle")}</h2>
          <Attempts attempts={delivery.data.attempts} />
          <h2>{t("delivery.payload")}</h2>
          <pre className="code-block" tabIndex={0} aria-label={t("delivery.payload")}>
            {JSON.stringify(delivery.data.event, null, 2)}
          </pre>
        </>
      ) : null}
    </>
  );
}

/**
 * Every attempt in a table (when, status, how long, error), then what the receiver answered to each:
 * its headers (credentials redacted by the server) and the start of its body. The last answer is
 * open, the earlier ones a click away.
 */
function Attempts({ attempts }: { attempts: WebhookAttempt[] }) {
  const { t, dateTime, number } = useI18n();
  if (attempts.length === 0) return <p className="muted">{t("delivery.noAttempts")}</p>;
  return (
    <>
      <TableWrap label={t("delivery.attemptsTitle")}>
        <table>
          <thead>
            <tr>
              <th scope="col">{t("delivery.attemptedAt")}</th>
              <th scope="col">{t("deliveries.response")}</th>
              <th scope="col" className="num">
                {t("delivery.duration")}
              </th>
              <th scope="col">{t("delivery.error")}</th>
            </tr>
          </thead>
          <tbody>
            {attempts.map((a) => (
              <tr key={a.id}>
                <th scope="row">{dateTime(a.attempted_at)}</th>
                <td>{a.response_status ?? "—"}</td>
                <td className="num">{t("delivery.ms", { n: number(a.duration_ms) })}</td>
                <td>{a.error ? <DeliveryErrorText error={a.error} /> : "—"}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </TableWrap>
      {attempts.map((a, index) =>
        a.response ? (
          <details key={a.id} className="answer-details" open={index === attempts.length - 1}>
            <summary>{t("delivery.answerOf", { at: dateTime(a.attempted_at), status: a.response_status ?? "—" })}</summary>
            <AttemptAnswer attempt={a} response={a.response} />
          </details>
        ) : null,
      )}
    </>
  );
}

function AttemptAnswer({ attempt, response }: { attempt: WebhookAttempt; response: WebhookAttemptResponse }) {
  const { t } = useI18n();
  const headers = Object.entries(response.headers);
  return (
    <div className="card">
      <h3>{t("delivery.responseHeaders")}</h3>
      {headers.length === 0 ? (
        <p className="muted">{t("delivery.noHeaders")}</p>
      ) : (
        <TableWrap label={t("delivery.responseHeadersOf", { id: attempt.id })}>
          <table className="headers-table">
            <tbody>
              {headers.map(([name, value]) => (
                <tr key={name}>
                  <th scope="row">
                    <code>{name}</code>
                  </th>
                  <td className="url">{value}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      )}
      <h3>{t("delivery.responseBody")}</h3>
      {response.body === "" ? (
        <p className="muted">{t("delivery.emptyBody")}</p>
      ) : (
        <pre className="code-block code-wrap" tabIndex={0} aria-label={t("delivery.responseBodyOf", { id: attempt.id })}>
          {response.body}
        </pre>
      )}
      {response.body_truncated ? <p className="hint">{t("delivery.bodyTruncated")}</p> : null}
    </div>
  );
}
