import { useQuery } from "@tanstack/react-query";
import { useId } from "react";
import { Link } from "wouter";
import { api } from "../api.ts";
import { useI18n } from "../i18n/i18n.tsx";
import { DailyChart } from "../ui/daily-chart.tsx";
import { ErrorNotice } from "../ui/error-notice.tsx";
import { Loading, PageTitle, TableWrap } from "../ui/layout-bits.tsx";

/** The usage period is a calendar month in Asia/Shanghai (docs/console.md "Usage and quota"). */
const shanghaiDate = (lang: string, iso: string) => new Intl.DateTimeFormat(lang, { timeZone: "Asia/Shanghai", year: "numeric", month: "2-digit", day: "2-digit" }).format(new Date(iso));

/** Usage this period: used against the quota, the daily chart, by endpoint, business failures, next reset. */
export default function UsagePage() {
  const { t, tn, number, dateTime, lang } = useI18n();
  const meterId = useId();
  const usage = useQuery({ queryKey: ["console", "usage"], queryFn: () => api.console.usage.query() });
  if (usage.isPending) return <Loading />;
  if (usage.isError) return <ErrorNotice error={usage.error} />;
  const u = usage.data;
  const lastDay = new Date(Date.parse(u.period.end) - 1).toISOString();
  const percent = u.quota > 0 ? Math.min(100, (u.used / u.quota) * 100) : 0;
  return (
    <>
      <PageTitle text={t("usage.title")} />
      <p>
        {t("usage.period", { start: shanghaiDate(lang, u.period.start), end: shanghaiDate(lang, lastDay) })} <span className="muted">{t("usage.timeZone")}</span>
      </p>
      <section className="card" aria-labelledby={`${meterId}-title`}>
        <h2 id={`${meterId}-title`}>{t("usage.quotaTitle")}</h2>
        <label htmlFor={meterId} className="meter-label">
          {tn("usage.usedOf", u.quota, { used: number(u.used), quota: number(u.quota), percent: percent.toFixed(1) })}
        </label>
        <meter id={meterId} className="meter" min={0} max={u.quota} low={u.quota * 0.8} high={u.quota * 0.95} optimum={0} value={u.used}>
          {percent.toFixed(1)}%
        </meter>
        <dl className="facts">
          <div>
            <dt>{t("usage.remaining")}</dt>
            <dd>{number(Math.max(0, u.quota - u.used))}</dd>
          </div>
          <div>
            <dt>{t("usage.failures")}</dt>
            <dd>{number(u.failures)}</dd>
          </div>
          <div>
            <dt>{t("usage.resetsAt")}</dt>
            <dd>{dateTime(u.resets_at)}</dd>
          </div>
        </dl>
        <p className="hint">{t("usage.failuresNote")}</p>
        <p className="hint">
          {t("usage.planNote")} <Link href="/plan">{t("nav.plan")}</Link>
        </p>
      </section>
      <section className="card">
        <DailyChart daily={u.daily} label={t("usage.dailyTitle")} />
      </section>
      <section>
        <h2>{t("usage.byEndpoint")}</h2>
        {u.by_endpoint.length === 0 ? (
          <p className="muted">{t("usage.noQueries")}</p>
        ) : (
          <TableWrap label={t("usage.byEndpoint")}>
            <table>
              <thead>
                <tr>
                  <th scope="col">{t("usage.endpoint")}</th>
                  <th scope="col" className="num">
                    {t("usage.queries")}
                  </th>
                </tr>
              </thead>
              <tbody>
                {u.by_endpoint.map((row) => (
                  <tr key={row.endpoint}>
                    <th scope="row">
                      <code>{row.endpoint}</code>
                    </th>
                    <td className="num">{number(row.count)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableWrap>
        )}
      </section>
    </>
  );
}
