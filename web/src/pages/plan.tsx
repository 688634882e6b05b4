import { useQuery } from "@tanstack/react-query";
import { Link } from "wouter";
import { api } from "../api.ts";
import { useI18n } from "../i18n/i18n.tsx";
import { ErrorNotice } from "../ui/error-notice.tsx";
import { Loading, PageTitle, TableWrap } from "../ui/layout-bits.tsx";

/** Plan (provisional pricing, payment disabled, the plan records) and billing (always empty). */
export default function PlanPage() {
  const { t, number, label } = useI18n();
  const plan = useQuery({ queryKey: ["console", "plan"], queryFn: () => api.console.plan.query() });
  // The plans the server ships have a name in each language; one the console does not know (a newer
  // server's) keeps the server's name.
  const planName = (id: string) => label("plan", id) ?? plan.data?.plans.find((p) => p.id === id)?.name ?? id;
  const billing = useQuery({ queryKey: ["console", "billing"], queryFn: () => api.console.billing.query() });
  return (
    <>
      <PageTitle text={t("plan.title")} />
      <p className="notice notice-info">{t("plan.provisional")}</p>
      {plan.isPending ? <Loading /> : null}
      {plan.isError ? <ErrorNotice error={plan.error} /> : null}
      {plan.data ? (
        <>
          <p>{t("plan.current", { plan: planName(plan.data.current_plan) })}</p>
          <TableWrap label={t("plan.plans")}>
            <table>
              <caption>{t("plan.plans")}</caption>
              <thead>
                <tr>
                  <th scope="col">{t("plan.name")}</th>
                  <th scope="col" className="num">
                    {t("plan.quota")}
                  </th>
                  <th scope="col" className="num">
                    {t("plan.rate")}
                  </th>
                  <th scope="col" className="num">
                    {t("plan.price")}
                  </th>
                </tr>
              </thead>
              <tbody>
                {plan.data.plans.map((p) => (
                  <tr key={p.id} className={p.id === plan.data.current_plan ? "row-current" : undefined}>
                    <th scope="row">
                      {planName(p.id)} {p.id === plan.data.current_plan ? <span className="badge badge-ok">{t("plan.yours")}</span> : null}
                    </th>
                    <td className="num">{number(p.monthly_quota)}</td>
                    <td className="num">{number(p.rate_limit_per_minute)}</td>
                    <td className="num">{p.price ? t("plan.perMonth", { amount: number(p.price.amount) }) : t("plan.byAgreement")}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableWrap>
          <p>
            {t("plan.change")} <Link href="/contact">{t("nav.contact")}</Link>
          </p>
        </>
      ) : null}
      <h2>{t("billing.title")}</h2>
      {billing.isError ? <ErrorNotice error={billing.error} /> : null}
      {billing.data ? <p className="muted">{billing.data.items.length === 0 ? t("billing.none") : null}</p> : null}
      <p className="hint">{t("billing.paymentDisabled")}</p>
    </>
  );
}
