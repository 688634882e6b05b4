import { Fragment } from "react";
import { useI18n } from "../../i18n/i18n.tsx";
import { useCountryNames } from "../../ui/names.tsx";

/**
 * A subscription's or listen session's filters: the countries by name (their codes after them), the
 * operators by id, as the filter holds them. Country names cost one metered query per page load, and
 * only on a page that shows a country filter (ui/names.tsx).
 */
export function FiltersText({ countries, operators }: { countries: readonly string[]; operators: readonly string[] }) {
  const { t, txn, lang } = useI18n();
  const countryNames = useCountryNames(countries.length > 0);
  if (!countries.length && !operators.length) return <>{t("webhooks.noFilter")}</>;
  return (
    <>
      {countries.length ? txn("webhooks.countriesList", countries.length, { list: countries.map(countryNames.text).join(lang === "zh-CN" ? "、" : ", ") }) : null}
      {countries.length && operators.length ? (lang === "zh-CN" ? "；" : "; ") : null}
      {operators.length
        ? txn("webhooks.operatorsList", operators.length, {
            list: operators.map((id, i) => (
              <Fragment key={id}>
                {i ? ", " : null}
                <code>{id}</code>
              </Fragment>
            )),
          })
        : null}
    </>
  );
}
