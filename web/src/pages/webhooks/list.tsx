import { Link } from "wouter";
import { useI18n } from "../../i18n/i18n.tsx";
import { ErrorNotice } from "../../ui/error-notice.tsx";
import { Loading, PageTitle, TableWrap } from "../../ui/layout-bits.tsx";
import { FiltersText } from "./filters-text.tsx";
import { ListenPanel } from "./listen-panel.tsx";
import { useWebhooks } from "./shared.ts";

/** The account's webhook subscriptions. */
export default function WebhooksPage() {
  const { t, tn, dateTime } = useI18n();
  const webhooks = useWebhooks();
  return (
    <>
      <PageTitle text={t("webhooks.title")} />
      <p>{t("webhooks.intro")}</p>
      <p>
        <Link href="/webhooks/new" className="button">
          {t("webhooks.new")}
        </Link>
      </p>
      {webhooks.isPending ? <Loading /> : null}
      {webhooks.isError ? <ErrorNotice error={webhooks.error} /> : null}
      {webhooks.data && webhooks.data.items.length === 0 ? <p className="muted">{t("webhooks.none")}</p> : null}
      {webhooks.data && webhooks.data.items.length > 0 ? (
        <TableWrap label={t("webhooks.title")}>
          <table>
            <thead>
              <tr>
                <th scope="col">{t("webhooks.url")}</th>
                <th scope="col">{t("webhooks.events")}</th>
                <th scope="col">{t("webhooks.filters")}</th>
                <th scope="col">{t("common.status")}</th>
                <th scope="col">{t("common.created")}</th>
              </tr>
            </thead>
            <tbody>
              {webhooks.data.items.map((w) => (
                <tr key={w.id}>
                  <th scope="row">
                    <Link href={`/webhooks/${w.id}`} className="url">
                      {w.url}
                    </Link>
                  </th>
                  <td>{tn("webhooks.eventCount", w.events.length)}</td>
                  <td>
                    <FiltersText countries={w.countries} operators={w.operators} />
                  </td>
                  <td>{w.enabled ? <span className="badge badge-ok">{t("webhooks.enabled")}</span> : <span className="badge badge-muted">{t("webhooks.disabled")}</span>}</td>
                  <td>{dateTime(w.created_at)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      ) : null}
      <ListenPanel />
    </>
  );
}
