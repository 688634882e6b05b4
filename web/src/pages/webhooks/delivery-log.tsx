import type { DeliveryStatus, WebhookDelivery } from "@ir21/sdk";
import { useQuery } from "@tanstack/react-query";
import { useId, useState, type ReactNode } from "react";
import { Link } from "wouter";
import { useI18n } from "../../i18n/i18n.tsx";
import { ErrorNotice } from "../../ui/error-notice.tsx";
import { Loading, Pager, TableWrap } from "../../ui/layout-bits.tsx";
import { useCursorPages } from "../../ui/cursor-pages.ts";
import { DeliveryErrorText, EnumLabel } from "../../ui/names.tsx";
import { DELIVERY_STATUSES } from "./shared.ts";
import { EventTypeName } from "./subpage.tsx";

/**
 * A delivery log as the console shows it, for a subscription (detail.tsx) and for a listen session
 * (listen-session.tsx): a status filter and Refresh, the deliveries newest first, a page at a time.
 */

const PAGE_SIZE = 20;

export type DeliveryFilter = DeliveryStatus | "";

/** What a page request takes beyond the log's own id. */
export interface DeliveryPageQuery {
  limit: number;
  status?: DeliveryStatus;
  cursor?: string;
}

export interface DeliveryPage {
  items: WebhookDelivery[];
  total: number;
  next_cursor: string | null;
}

/** The log's filter, its pages and the page shown; `key` is the log's query key (shared.ts). */
export function useDeliveryLog(key: readonly unknown[], fetchPage: (query: DeliveryPageQuery) => Promise<DeliveryPage>) {
  const [status, setStatus] = useState<DeliveryFilter>("");
  const pages = useCursorPages();
  const deliveries = useQuery({
    queryKey: [...key, status, pages.cursor],
    queryFn: () => fetchPage({ limit: PAGE_SIZE, ...(status ? { status } : {}), ...(pages.cursor ? { cursor: pages.cursor } : {}) }),
    // While something is on its way (a listen delivery waits for the forwarder's report, at most 60 s), look again now and then.
    refetchInterval: (query) => (query.state.data?.items.some((d) => d.status === "pending") ? 3000 : false),
  });
  return { status, setStatus, pages, deliveries, items: deliveries.data?.items ?? [] };
}

export type DeliveryLog = ReturnType<typeof useDeliveryLog>;

/** The status filter (which starts the listing again) and Refresh, then the log's own actions. */
export function DeliveryToolbar({ log, onFilterChange, children }: { log: DeliveryLog; onFilterChange?: () => void; children?: ReactNode }) {
  const { t, label } = useI18n();
  const statusId = useId();
  return (
    <div className="toolbar">
      <div className="field">
        <label htmlFor={statusId}>{t("deliveries.filter")}</label>
        <select
          id={statusId}
          value={log.status}
          onChange={(e) => {
            log.setStatus(e.currentTarget.value as DeliveryFilter);
            log.pages.reset();
            onFilterChange?.();
          }}
        >
          <option value="">{t("deliveries.all")}</option>
          {DELIVERY_STATUSES.map((s) => (
            <option key={s} value={s}>
              {label("deliveryStatus", s)}
            </option>
          ))}
        </select>
      </div>
      <button type="button" className="button-secondary" onClick={() => log.deliveries.refetch()} disabled={log.deliveries.isFetching}>
        {t("common.refresh")}
      </button>
      {children}
    </div>
  );
}

/** Deliveries chosen for a batch action, on this page or earlier ones. */
export interface DeliverySelection {
  selected: string[];
  setSelected(ids: string[]): void;
}

/**
 * The page of deliveries (loading, error, none, the table) and the pager. A subscription's log
 * (`retried`) also shows attempts and the next attempt, and may offer a selection.
 */
export function DeliveryTable({ log, hrefOf, retried, selection }: { log: DeliveryLog; hrefOf: (delivery: WebhookDelivery) => string; retried?: boolean; selection?: DeliverySelection }) {
  const { t, dateTime, number } = useI18n();
  const { deliveries, items, pages } = log;
  return (
    <>
      {deliveries.isPending ? <Loading /> : null}
      {deliveries.isError ? <ErrorNotice error={deliveries.error} /> : null}
      {deliveries.data && items.length === 0 ? <p className="muted">{t("deliveries.none")}</p> : null}
      {items.length > 0 ? (
        <TableWrap label={t("deliveries.title")}>
          <table>
            <thead>
              <tr>
                {selection ? (
                  <th scope="col">
                    <SelectPage items={items} selection={selection} />
                  </th>
                ) : null}
                <th scope="col">{t("deliveries.event")}</th>
                <th scope="col">{t("common.status")}</th>
                {retried ? (
                  <th scope="col" className="num">
                    {t("deliveries.attempts")}
                  </th>
                ) : null}
                <th scope="col">{t("deliveries.response")}</th>
                <th scope="col">{t("common.created")}</th>
                {retried ? <th scope="col">{t("deliveries.nextAttempt")}</th> : null}
              </tr>
            </thead>
            <tbody>
              {items.map((d) => (
                <tr key={d.id}>
                  {selection ? (
                    <td>
                      <input
                        type="checkbox"
                        checked={selection.selected.includes(d.id)}
                        onChange={(e) => selection.setSelected(e.currentTarget.checked ? [...selection.selected, d.id] : selection.selected.filter((s) => s !== d.id))}
                        aria-label={t("deliveries.select", { id: d.id })}
                      />
                    </td>
                  ) : null}
                  <th scope="row">
                    <Link href={hrefOf(d)}>
                      <code>{d.event_type}</code>
                    </Link>
                    <div className="small">
                      <EventTypeName type={d.event_type} />
                    </div>
                    <div className="muted small">{d.id}</div>
                  </th>
                  <td>
                    <span className={`badge badge-${d.status}`}>
                      <EnumLabel kind="deliveryStatus" value={d.status} />
                    </span>
                  </td>
                  {retried ? <td className="num">{number(d.attempts)}</td> : null}
                  <td>{d.response_status ?? (d.last_error ? <DeliveryErrorText error={d.last_error} /> : "—")}</td>
                  <td>{dateTime(d.created_at)}</td>
                  {retried ? <td>{d.next_attempt_at ? dateTime(d.next_attempt_at) : "—"}</td> : null}
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
    </>
  );
}

/** Selects (or unselects) every delivery of the page shown, keeping the choices made on other pages. */
function SelectPage({ items, selection }: { items: WebhookDelivery[]; selection: DeliverySelection }) {
  const { t } = useI18n();
  const { selected, setSelected } = selection;
  const allOnPage = items.length > 0 && items.every((d) => selected.includes(d.id));
  return (
    <input
      type="checkbox"
      aria-label={t("deliveries.selectPage")}
      checked={allOnPage}
      onChange={(e) => setSelected(e.currentTarget.checked ? [...new Set([...selected, ...items.map((d) => d.id)])] : selected.filter((s) => !items.some((d) => d.id === s)))}
    />
  );
}
