import type { Network, NumberRange } from "@ir21/sdk";
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { useId, useState } from "react";
import { Link, useSearch } from "wouter";
import { data } from "../../api.ts";
import { useI18n } from "../../i18n/i18n.tsx";
import { useCursorPages } from "../../ui/cursor-pages.ts";
import { ErrorNotice } from "../../ui/error-notice.tsx";
import { Loading, Pager, TableWrap } from "../../ui/layout-bits.tsx";

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
  const { t, tn, lang } = useI18n();
  const filterId = useId();
  const [filter, setFilter] = useState("");
  const countries = useQuery({ queryKey: ["data", "countries"], queryFn: () => data.countries.list(), staleTime: Infinity });
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
                {items.map((c) => (
                  <tr key={c.iso2}>
                    <th scope="row">
                      <Link href={browseHref({ country: c.iso2 })}>{lang === "zh-CN" && c.name_zh ? c.name_zh : c.name}</Link>
                    </th>
                    <td>{c.iso2}</td>
                    <td>{c.calling_codes.map((cc) => `+${cc}`).join(", ")}</td>
                    <td>{c.mccs.join(", ")}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableWrap>
        </>
      ) : null}
    </section>
  );
}

function CountryView({ iso2 }: { iso2: string }) {
  const { t } = useI18n();
  const searchId = useId();
  const [search, setSearch] = useState("");
  const q = search.trim();
  const pages = useCursorPages();
  const operators = useQuery({
    queryKey: ["data", "operators", iso2, q.length >= 2 ? q : "", pages.cursor],
    queryFn: () => data.operators.list({ country: iso2, limit: PAGE, ...(q.length >= 2 ? { q } : {}), ...(pages.cursor ? { cursor: pages.cursor } : {}) }),
    placeholderData: keepPreviousData,
  });
  return (
    <>
      <p className="breadcrumb">
        <Link href="/explorer/browse">{t("browse.countries")}</Link> › {iso2}
      </p>
      <section aria-labelledby="operators-title">
        <h2 id="operators-title">{t("browse.operatorsIn", { country: iso2 })}</h2>
        <div className="field">
          <label htmlFor={searchId}>{t("browse.searchOperators")}</label>
          <input
            id={searchId}
            type="search"
            value={search}
            onChange={(e) => {
              setSearch(e.currentTarget.value);
              pages.reset();
            }}
          />
        </div>
        {operators.isPending ? <Loading /> : null}
        {operators.isError ? <ErrorNotice error={operators.error} /> : null}
        {operators.data ? (
          operators.data.data.items.length === 0 ? (
            <p className="muted">{t("browse.noOperators")}</p>
          ) : (
            <TableWrap label={t("browse.operatorsIn", { country: iso2 })}>
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
                  {operators.data.data.items.map((o) => (
                    <tr key={o.id}>
                      <th scope="row">
                        <Link href={browseHref({ country: iso2, operator: o.id })}>{o.name}</Link>
                        <div className="muted small">{o.id}</div>
                      </th>
                      <td>{o.brand ?? "—"}</td>
                      <td>{o.tadig ?? "—"}</td>
                      <td>{o.status}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </TableWrap>
          )
        ) : null}
        {operators.data ? <Pager hasPrevious={pages.hasPrevious} hasNext={Boolean(operators.data.data.next_cursor)} onPrevious={pages.previous} onNext={() => pages.next(operators.data.data.next_cursor!)} /> : null}
      </section>
      <NetworksTable query={{ country: iso2 }} title={t("browse.networksIn", { country: iso2 })} />
    </>
  );
}

function NetworksTable({ query, title }: { query: { country?: string; operator?: string }; title: string }) {
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
          <NetworkRows title={title} items={networks.data.data.items} />
        )
      ) : null}
      {networks.data ? <Pager hasPrevious={pages.hasPrevious} hasNext={Boolean(networks.data.data.next_cursor)} onPrevious={pages.previous} onNext={() => pages.next(networks.data.data.next_cursor!)} /> : null}
    </section>
  );
}

function NetworkRows({ title, items }: { title: string; items: Network[] }) {
  const { t } = useI18n();
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
          {items.map((n) => (
            <tr key={n.id}>
              <th scope="row">
                {n.mcc}-{n.mnc}
              </th>
              <td>{n.name ?? "—"}</td>
              <td>{n.operator_id ?? "—"}</td>
              <td>{n.technologies.join(", ") || "—"}</td>
              <td>{n.status}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableWrap>
  );
}

function OperatorView({ id, country }: { id: string; country: string | null }) {
  const { t, number } = useI18n();
  const operator = useQuery({ queryKey: ["data", "operator", id], queryFn: () => data.operators.get(id) });
  const o = operator.data?.data;
  return (
    <>
      <p className="breadcrumb">
        <Link href="/explorer/browse">{t("browse.countries")}</Link>
        {country ? (
          <>
            {" "}
            › <Link href={browseHref({ country })}>{country}</Link>
          </>
        ) : null}{" "}
        › {o?.name ?? id}
      </p>
      {operator.isPending ? <Loading /> : null}
      {operator.isError ? <ErrorNotice error={operator.error} /> : null}
      {o ? (
        <section className="card" aria-labelledby="operator-title">
          <h2 id="operator-title">{o.name}</h2>
          <dl className="facts facts-wide">
            <div>
              <dt>ID</dt>
              <dd>
                <code>{o.id}</code>
              </dd>
            </div>
            <div>
              <dt>{t("browse.brand")}</dt>
              <dd>{o.brand ?? "—"}</dd>
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
              <dd>{o.source}</dd>
            </div>
          </dl>
        </section>
      ) : null}
      {o ? <NetworkRowsSection title={t("browse.networksOf", { operator: o.name })} items={o.networks} /> : null}
      <RangesSection operator={id} />
    </>
  );
}

function NetworkRowsSection({ title, items }: { title: string; items: Network[] }) {
  const { t } = useI18n();
  return (
    <section>
      <h2>{title}</h2>
      {items.length === 0 ? <p className="muted">{t("browse.noNetworks")}</p> : <NetworkRows title={title} items={items} />}
    </section>
  );
}

function RangesSection({ operator }: { operator: string }) {
  const { t } = useI18n();
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
            <option value="mobile">mobile</option>
            <option value="fixed_line_or_mobile">fixed_line_or_mobile</option>
            <option value="pager">pager</option>
            <option value="fixed">fixed</option>
            <option value="other">other</option>
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
            <option value="e164">E.164</option>
            <option value="e212">E.212</option>
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
                    <td>{r.kind}</td>
                    <td>{r.plan}</td>
                    <td>{r.range_holder_local ?? r.range_holder ?? "—"}</td>
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
