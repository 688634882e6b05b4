import type { Network, NumberRange, Operator } from "@ir21/sdk";
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { useId, useState } from "react";
import { Link, useSearch } from "wouter";
import { data } from "../../api.ts";
import { useI18n } from "../../i18n/i18n.tsx";
import { useCursorPages } from "../../ui/cursor-pages.ts";
import { ErrorNotice } from "../../ui/error-notice.tsx";
import { Loading, Pager, TableWrap } from "../../ui/layout-bits.tsx";
import { NUMBER_KINDS, NUMBER_PLANS } from "../../i18n/labels.ts";
import { CountryName, EnumLabel, Named, holderNames, networkNames, operatorNames, useCountryNames } from "../../ui/names.tsx";

const PAGE = 25;

/** Countries → operators → networks and number ranges; where you are is in the address (deep links). */
export function BrowseTab() {
  const params = new URLSearchParams(useSearch());
  const country = params.get("country");
  const operator = params.get("operator");
  if (operator) return <OperatorView id={operator} country={country} />;
  if (country) return <CountryView iso2={country} />;
  return <CountriesView />;
}

const browseHref = (query: Record<string, string>) => `/explorer/browse?${new URLSearchParams(query).toString()}`;

function CountriesView() {
  const { t, tn } = useI18n();
  const filterId = useId();
  const [filter, setFilter] = useState("");
  const { query: countries, names } = useCountryNames();
  const q = filter.trim().toLowerCase();
  const items = countries.data?.data.items.filter((c) => !q || c.iso2.toLowerCase() === q || c.name.toLowerCase().includes(q) || (c.name_zh ?? "").includes(q) || c.calling_codes.includes(q.replace(/^\+/, ""))) ?? [];
  return (
    <section aria-labelledby="countries-title">
      <h2 id="countries-title">{t("browse.countries")}</h2>
      <div className="field">
        <label htmlFor={filterId}>{t("browse.filterCountries")}</label>
        <input id={filterId} type="search" value={filter} onChange={(e) => setFilter(e.currentTarget.value)} />
      </div>
      {countries.isPending ? <Loading /> : null}
      {countries.isError ? <ErrorNotice error={countries.error} /> : null}
      {countries.data ? (
        <>
          <p className="muted">{tn("browse.shown", countries.data.data.items.length, { shown: items.length })}</p>
          <TableWrap label={t("browse.countries")}>
            <table>
              <thead>
                <tr>
                  <th scope="col">{t("browse.country")}</th>
                  <th scope="col">ISO</th>
                  <th scope="col">{t("browse.callingCodes")}</th>
                  <th scope="col">MCC</th>
                </tr>
              </thead>
              <tbody>
                {items.map((c) => {
                  const name = names(c.iso2);
                  return (
                    <tr key={c.iso2}>
                      <th scope="row">
                        <Link href={browseHref({ country: c.iso2 })} lang={name.lang}>
                          {name.text}
                        </Link>
                      </th>
                      <td>{c.iso2}</td>
                      <td>{c.calling_codes.map((cc) => `+${cc}`).join(", ")}</td>
                      <td>{c.mccs.join(", ")}</td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </TableWrap>
        </>
      ) : null}
    </section>
  );
}

/**
 * Every operator of a country, in one query of up to 1,000 (the largest country has a few hundred):
 * the table pages and searches them here, so typing a search costs no query, and the networks table
 * names each network's operator from them.
 */
function useCountryOperators(iso2: string) {
  return useQuery({
    queryKey: ["data", "operators", iso2, "all"],
    queryFn: async () => {
      const all: Operator[] = [];
      for await (const operator of data.operators.iterate({ country: iso2, limit: 1000 })) all.push(operator);
      return all;
    },
    staleTime: 300_000,
  });
}

function CountryView({ iso2 }: { iso2: string }) {
  const { t, tn, lang } = useI18n();
  const searchId = useId();
  const [search, setSearch] = useState("");
  const [offset, setOffset] = useState(0);
  const countryName = useCountryNames().text(iso2);
  const operators = useCountryOperators(iso2);
  const q = search.trim().toLowerCase();
  const matches = (operators.data ?? []).filter((o) => !q || [o.name, o.brand, o.name_local, o.id].some((field) => field?.toLowerCase().includes(q)));
  const shown = matches.slice(offset, offset + PAGE);
  const byId = new Map((operators.data ?? []).map((o) => [o.id, o]));
  return (
    <>
      <p className="breadcrumb">
        <Link href="/explorer/browse">{t("browse.countries")}</Link> › {countryName}
      </p>
      <section aria-labelledby="operators-title">
        <h2 id="operators-title">{t("browse.operatorsIn", { country: countryName })}</h2>
        <div className="field">
          <label htmlFor={searchId}>{t("browse.searchOperators")}</label>
          <input
            id={searchId}
            type="search"
            value={search}
            onChange={(e) => {
              setSearch(e.currentTarget.value);
              setOffset(0);
            }}
          />
        </div>
        {operators.isPending ? <Loading /> : null}
        {operators.isError ? <ErrorNotice error={operators.error} /> : null}
        {operators.data ? (
          matches.length === 0 ? (
            <p className="muted">{t("browse.noOperators")}</p>
          ) : (
            <>
              <p className="muted">{tn("browse.operatorsShown", operators.data.length, { shown: matches.length })}</p>
              <TableWrap label={t("browse.operatorsIn", { country: countryName })}>
                <table>
                  <thead>
                    <tr>
                      <th scope="col">{t("browse.operator")}</th>
                      <th scope="col">{t("browse.brand")}</th>
                      <th scope="col">TADIG</th>
                      <th scope="col">{t("common.status")}</th>
                    </tr>
                  </thead>
                  <tbody>
                    {shown.map((o) => (
                      <tr key={o.id}>
                        <th scope="row">
                          <Named names={operatorNames(lang, o)}>{(name) => <Link href={browseHref({ country: iso2, operator: o.id })}>{name}</Link>}</Named>
                          <div className="muted small">
                            <code>{o.id}</code>
                          </div>
                        </th>
                        <td lang={lang === "zh-CN" ? "en" : undefined}>{o.brand ?? "—"}</td>
                        <td>{o.tadig ?? "—"}</td>
                        <td>
                          <EnumLabel kind="operatorStatus" value={o.status} />
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </TableWrap>
            </>
          )
        ) : null}
        {operators.data ? <Pager hasPrevious={offset > 0} hasNext={offset + PAGE < matches.length} onPrevious={() => setOffset(Math.max(0, offset - PAGE))} onNext={() => setOffset(offset + PAGE)} /> : null}
      </section>
      <NetworksTable query={{ country: iso2 }} title={t("browse.networksIn", { country: countryName })} operatorOf={(id) => byId.get(id)} />
    </>
  );
}

function NetworksTable({ query, title, operatorOf }: { query: { country?: string; operator?: string }; title: string; operatorOf: (id: string) => Operator | undefined }) {
  const { t } = useI18n();
  const pages = useCursorPages();
  const networks = useQuery({
    queryKey: ["data", "networks", query, pages.cursor],
    queryFn: () => data.networks.list({ ...query, limit: PAGE, ...(pages.cursor ? { cursor: pages.cursor } : {}) }),
    placeholderData: keepPreviousData,
  });
  return (
    <section>
      <h2>{title}</h2>
      {networks.isPending ? <Loading /> : null}
      {networks.isError ? <ErrorNotice error={networks.error} /> : null}
      {networks.data ? (
        networks.data.data.items.length === 0 ? (
          <p className="muted">{t("browse.noNetworks")}</p>
        ) : (
          <NetworkRows title={title} items={networks.data.data.items} operatorOf={operatorOf} />
        )
      ) : null}
      {networks.data ? <Pager hasPrevious={pages.hasPrevious} hasNext={Boolean(networks.data.data.next_cursor)} onPrevious={pages.previous} onNext={() => pages.next(networks.data.data.next_cursor!)} /> : null}
    </section>
  );
}

/** Networks with their names and operators in the reader's language (ui/names.tsx); an operator not at hand stays its id. */
function NetworkRows({ title, items, operatorOf }: { title: string; items: Network[]; operatorOf: (id: string) => Operator | undefined }) {
  const { t, lang } = useI18n();
  return (
    <TableWrap label={title}>
      <table>
        <thead>
          <tr>
            <th scope="col">MCC-MNC</th>
            <th scope="col">{t("browse.networkName")}</th>
            <th scope="col">{t("browse.operator")}</th>
            <th scope="col">{t("browse.technologies")}</th>
            <th scope="col">{t("common.status")}</th>
          </tr>
        </thead>
        <tbody>
          {items.map((n) => {
            const operator = n.operator_id ? operatorOf(n.operator_id) : undefined;
            const name = networkNames(lang, n, operator);
            return (
              <tr key={n.id}>
                <th scope="row">
                  {n.mcc}-{n.mnc}
                </th>
                <td>{name ? <Named names={name} /> : "—"}</td>
                <td>{operator ? <Named names={operatorNames(lang, operator)} /> : n.operator_id ? <code>{n.operator_id}</code> : "—"}</td>
                <td>{n.technologies.join(", ") || "—"}</td>
                <td>
                  <EnumLabel kind="networkStatus" value={n.status} />
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </TableWrap>
  );
}

function OperatorView({ id, country }: { id: string; country: string | null }) {
  const { t, number, lang } = useI18n();
  const countryNames = useCountryNames(Boolean(country));
  const operator = useQuery({ queryKey: ["data", "operator", id], queryFn: () => data.operators.get(id) });
  const o = operator.data?.data;
  const names = o ? operatorNames(lang, o) : null;
  return (
    <>
      <p className="breadcrumb">
        <Link href="/explorer/browse">{t("browse.countries")}</Link>
        {country ? (
          <>
            {" "}
            › <Link href={browseHref({ country })}>{countryNames.text(country)}</Link>
          </>
        ) : null}{" "}
        › {names?.text ?? id}
      </p>
      {operator.isPending ? <Loading /> : null}
      {operator.isError ? <ErrorNotice error={operator.error} /> : null}
      {o && names ? (
        <section className="card" aria-labelledby="operator-title">
          <h2 id="operator-title">
            <span lang={names.lang}>{names.text}</span>
            {names.other ? (
              <span className="subtitle" lang={names.other.lang}>
                {names.other.text}
              </span>
            ) : null}
          </h2>
          <dl className="facts facts-wide">
            <div>
              <dt>ID</dt>
              <dd>
                <code>{o.id}</code>
              </dd>
            </div>
            <div>
              <dt>{t("browse.country")}</dt>
              <dd>
                <CountryName iso2={o.country_iso2} />
              </dd>
            </div>
            <div>
              <dt>{t("common.status")}</dt>
              <dd>
                <EnumLabel kind="operatorStatus" value={o.status} />
              </dd>
            </div>
            <div>
              <dt>{t("browse.brand")}</dt>
              <dd lang={lang === "zh-CN" ? "en" : undefined}>{o.brand ?? "—"}</dd>
            </div>
            <div>
              <dt>{t("lookup.localName")}</dt>
              <dd>{o.name_local ?? "—"}</dd>
            </div>
            <div>
              <dt>TADIG</dt>
              <dd>{o.tadig ?? "—"}</dd>
            </div>
            <div>
              <dt>{t("browse.rangeCount")}</dt>
              <dd>{t("browse.rangeCounts", { total: number(o.number_range_counts.total), mobile: number(o.number_range_counts.mobile), fixed: number(o.number_range_counts.fixed) })}</dd>
            </div>
            <div>
              <dt>{t("browse.source")}</dt>
              <dd>
                <code>{o.source}</code>
              </dd>
            </div>
          </dl>
        </section>
      ) : null}
      {o && names ? <NetworkRowsSection title={t("browse.networksOf", { operator: names.text })} items={o.networks} operatorOf={(operatorId) => (operatorId === o.id ? o : undefined)} /> : null}
      <RangesSection operator={id} />
    </>
  );
}

function NetworkRowsSection({ title, items, operatorOf }: { title: string; items: Network[]; operatorOf: (id: string) => Operator | undefined }) {
  const { t } = useI18n();
  return (
    <section>
      <h2>{title}</h2>
      {items.length === 0 ? <p className="muted">{t("browse.noNetworks")}</p> : <NetworkRows title={title} items={items} operatorOf={operatorOf} />}
    </section>
  );
}

function RangesSection({ operator }: { operator: string }) {
  const { t, label } = useI18n();
  const ids = { kind: useId(), plan: useId(), prefix: useId() };
  const [kind, setKind] = useState<NumberRange["kind"] | "">("");
  const [plan, setPlan] = useState<NumberRange["plan"] | "">("");
  const [prefix, setPrefix] = useState("");
  const pages = useCursorPages();
  const filters = { operator, ...(kind ? { kind } : {}), ...(plan ? { plan } : {}), ...(/^\d+$/.test(prefix) ? { prefix } : {}) };
  const ranges = useQuery({
    queryKey: ["data", "ranges", filters, pages.cursor],
    queryFn: () => data.numberRanges.list({ ...filters, limit: PAGE, ...(pages.cursor ? { cursor: pages.cursor } : {}) }),
    placeholderData: keepPreviousData,
  });
  return (
    <section aria-labelledby="ranges-title">
      <h2 id="ranges-title">{t("browse.ranges")}</h2>
      <div className="toolbar">
        <div className="field">
          <label htmlFor={ids.kind}>{t("browse.kind")}</label>
          <select
            id={ids.kind}
            value={kind}
            onChange={(e) => {
              setKind(e.currentTarget.value as typeof kind);
              pages.reset();
            }}
          >
            <option value="">{t("browse.any")}</option>
            {NUMBER_KINDS.map((k) => (
              <option key={k} value={k}>
                {label("numberKind", k)}
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor={ids.plan}>{t("browse.plan")}</label>
          <select
            id={ids.plan}
            value={plan}
            onChange={(e) => {
              setPlan(e.currentTarget.value as typeof plan);
              pages.reset();
            }}
          >
            <option value="">{t("browse.any")}</option>
            {NUMBER_PLANS.map((p) => (
              <option key={p} value={p}>
                {label("numberPlan", p)}
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor={ids.prefix}>{t("browse.prefix")}</label>
          <input
            id={ids.prefix}
            inputMode="numeric"
            value={prefix}
            onChange={(e) => {
              setPrefix(e.currentTarget.value.replace(/\D/g, ""));
              pages.reset();
            }}
            className="short"
          />
        </div>
      </div>
      {ranges.isPending ? <Loading /> : null}
      {ranges.isError ? <ErrorNotice error={ranges.error} /> : null}
      {ranges.data ? (
        ranges.data.data.items.length === 0 ? (
          <p className="muted">{t("browse.noRanges")}</p>
        ) : (
          <TableWrap label={t("browse.ranges")}>
            <table>
              <thead>
                <tr>
                  <th scope="col">{t("browse.prefix")}</th>
                  <th scope="col">{t("browse.kind")}</th>
                  <th scope="col">{t("browse.plan")}</th>
                  <th scope="col">{t("lookup.rangeHolder")}</th>
                  <th scope="col">MCC-MNC</th>
                </tr>
              </thead>
              <tbody>
                {ranges.data.data.items.map((r) => (
                  <tr key={r.id}>
                    <th scope="row">{r.prefix ?? (r.start && r.end ? `${r.start}–${r.end}` : "—")}</th>
                    <td>
                      <EnumLabel kind="numberKind" value={r.kind} />
                    </td>
                    <td>
                      <EnumLabel kind="numberPlan" value={r.plan} />
                    </td>
                    <td>
                      <RangeHolderName range={r} />
                    </td>
                    <td>{r.mcc && r.mnc ? `${r.mcc}-${r.mnc}` : "—"}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableWrap>
        )
      ) : null}
      {ranges.data ? <Pager hasPrevious={pages.hasPrevious} hasNext={Boolean(ranges.data.data.next_cursor)} onPrevious={pages.previous} onNext={() => pages.next(ranges.data.data.next_cursor!)} /> : null}
    </section>
  );
}

function RangeHolderName({ range }: { range: NumberRange }) {
  const { lang } = useI18n();
  const names = holderNames(lang, range);
  return names ? <Named names={names} /> : <>—</>;
}
