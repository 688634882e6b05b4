import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { useId, useState, type FormEvent } from "react";
import { data } from "../../api.ts";
import { useI18n } from "../../i18n/i18n.tsx";
import { useCursorPages } from "../../ui/cursor-pages.ts";
import { ErrorNotice } from "../../ui/error-notice.tsx";
import { Loading, Pager, TableWrap } from "../../ui/layout-bits.tsx";
import { CountryName } from "../../ui/names.tsx";
import { EventTypeName } from "../webhooks/subpage.tsx";

/** The change log since a dataset version (what webhooks announce; docs/api.md "/v1/changes"). */
export function ChangesTab() {
  const { t, dateTime } = useI18n();
  const ids = { since: useId(), sinceHint: useId() };
  const [since, setSince] = useState("none");
  const [asked, setAsked] = useState<string | null>(null);
  const pages = useCursorPages();
  const changes = useQuery({
    queryKey: ["data", "changes", asked, pages.cursor],
    queryFn: () => data.changes.list({ since: asked!, limit: 50, ...(pages.cursor ? { cursor: pages.cursor } : {}) }),
    enabled: asked !== null,
    placeholderData: keepPreviousData,
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    pages.reset();
    setAsked(since.trim() || "none");
  };
  return (
    <section aria-labelledby="changes-title">
      <h2 id="changes-title">{t("explorer.changes")}</h2>
      <form onSubmit={submit} className="card form inline-form" noValidate>
        <div className="field">
          <label htmlFor={ids.since}>{t("changes.since")}</label>
          <input id={ids.since} value={since} onChange={(e) => setSince(e.currentTarget.value)} aria-describedby={ids.sinceHint} className="mono" />
          <p id={ids.sinceHint} className="hint">
            {t("changes.sinceHint")}
          </p>
        </div>
        <button type="submit">{t("changes.show")}</button>
      </form>
      {changes.isFetching && !changes.data ? <Loading /> : null}
      {changes.isError ? <ErrorNotice error={changes.error} /> : null}
      {changes.data ? (
        <>
          <p>{t("changes.upTo", { version: changes.data.data.current_version })}</p>
          {changes.data.data.items.length === 0 ? (
            <p className="muted">{t("changes.none")}</p>
          ) : (
            <TableWrap label={t("explorer.changes")}>
              <table>
                <thead>
                  <tr>
                    <th scope="col">{t("changes.type")}</th>
                    <th scope="col">{t("changes.version")}</th>
                    <th scope="col">{t("browse.country")}</th>
                    <th scope="col">{t("browse.operator")}</th>
                    <th scope="col">{t("changes.occurred")}</th>
                  </tr>
                </thead>
                <tbody>
                  {changes.data.data.items.map((e) => (
                    <tr key={e.id}>
                      <th scope="row">
                        <code>{e.type}</code>
                        <div className="small">
                          <EventTypeName type={e.type} />
                        </div>
                      </th>
                      <td>{e.dataset_version}</td>
                      <td>{e.country_iso2 ? <CountryName iso2={e.country_iso2} /> : "—"}</td>
                      <td>{e.operator_id ? <code>{e.operator_id}</code> : "—"}</td>
                      <td>{dateTime(e.occurred_at)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </TableWrap>
          )}
          <Pager hasPrevious={pages.hasPrevious} hasNext={Boolean(changes.data.data.next_cursor)} onPrevious={pages.previous} onNext={() => pages.next(changes.data.data.next_cursor!)} />
        </>
      ) : null}
    </section>
  );
}
