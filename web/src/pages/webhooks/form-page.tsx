import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useId, useMemo, useState, type FormEvent } from "react";
import { Link, useLocation } from "wouter";
import { api, data } from "../../api.ts";
import { useI18n } from "../../i18n/i18n.tsx";
import { ErrorNotice } from "../../ui/error-notice.tsx";
import { Loading, PageTitle } from "../../ui/layout-bits.tsx";
import { MultiPicker } from "../../ui/multi-picker.tsx";
import { namesText, operatorNames, useCountryNames } from "../../ui/names.tsx";
import { SecretOnce } from "../../ui/secret.tsx";
import { EVENT_TYPES, WEBHOOKS, eventDescription, useWebhook, type EventType } from "./shared.ts";

const MAX_MATCHES = 30;

/** Create a subscription (the secret shown once afterwards) or edit one (`id`). */
export default function WebhookFormPage({ id }: { id?: string }) {
  const { t } = useI18n();
  const existing = useWebhook(id ?? "");
  if (id && existing.item === undefined) return existing.query.isError ? <ErrorNotice error={existing.query.error} /> : <Loading />;
  if (id && existing.item === null) return <p>{t("webhooks.notFound")}</p>;
  const item = id ? existing.item! : null;
  return <WebhookForm key={item?.id ?? "new"} initial={item ? { id: item.id, url: item.url, events: item.events, countries: item.countries, operators: item.operators } : null} />;
}

interface Initial {
  id: string;
  url: string;
  events: EventType[];
  countries: string[];
  operators: string[];
}

function WebhookForm({ initial }: { initial: Initial | null }) {
  const { t, tx, lang } = useI18n();
  const queryClient = useQueryClient();
  const [, navigate] = useLocation();
  const ids = { url: useId(), urlHint: useId(), events: useId() };
  const [url, setUrl] = useState(initial?.url ?? "https://");
  const [events, setEvents] = useState<EventType[]>(initial?.events ?? ["ir21.catalog.updated"]);
  const [countries, setCountries] = useState<string[]>(initial?.countries ?? []);
  const [operators, setOperators] = useState<string[]>(initial?.operators ?? []);
  const [countrySearch, setCountrySearch] = useState("");
  const [operatorSearch, setOperatorSearch] = useState("");
  const [created, setCreated] = useState<{ id: string; secret: string } | null>(null);

  // Both pickers read the catalogue through the data API, metered on the account like any web query.
  const countryNames = useCountryNames();
  const countryList = countryNames.query;
  const countryName = countryNames.text;
  const countryMatches = useMemo(() => {
    const items = countryList.data?.data.items;
    if (!items) return undefined;
    const q = countrySearch.trim().toLowerCase();
    const hits = q ? items.filter((c) => c.iso2.toLowerCase() === q || c.name.toLowerCase().includes(q) || (c.name_zh ?? "").includes(q) || c.calling_codes.some((cc) => cc === q.replace(/^\+/, ""))) : items;
    return hits.slice(0, MAX_MATCHES).map((c) => ({ value: c.iso2, label: countryName(c.iso2) }));
  }, [countryList.data, countrySearch, countryName]);

  const operatorQuery = useDebounced(operatorSearch.trim(), 300);
  const operatorParams = operatorQuery.length >= 2 ? { q: operatorQuery, ...(countries.length === 1 ? { country: countries[0] } : {}) } : countries.length === 1 ? { country: countries[0] } : null;
  const operatorList = useQuery({
    queryKey: ["data", "operators", operatorParams],
    queryFn: () => data.operators.list({ ...operatorParams!, limit: MAX_MATCHES }),
    enabled: operatorParams !== null,
    staleTime: 300_000,
  });
  const operatorOptions = operatorParams === null ? undefined : operatorList.data?.data.items.map((o) => ({ value: o.id, label: `${namesText(operatorNames(lang, o))} · ${o.id}` }));
  // The chosen operators by name once a search has shown them (a saved filter holds ids only).
  const [operatorLabels, setOperatorLabels] = useState<ReadonlyMap<string, string>>(new Map());
  useEffect(() => {
    if (operatorOptions?.some((o) => operatorLabels.get(o.value) !== o.label)) setOperatorLabels(new Map([...operatorLabels, ...operatorOptions.map((o) => [o.value, o.label] as const)]));
  }, [operatorOptions, operatorLabels]);

  const save = useMutation({
    mutationFn: async () => {
      const body = { url: url.trim(), events, countries, operators };
      if (initial) return { item: (await api.webhooks.update.mutate({ id: initial.id, ...body })).item, secret: null };
      return api.webhooks.create.mutate(body);
    },
    onSuccess: ({ item, secret }) => {
      void queryClient.invalidateQueries({ queryKey: WEBHOOKS });
      if (secret) setCreated({ id: item.id, secret });
      else navigate(`/webhooks/${item.id}`);
    },
  });

  if (created) {
    return (
      <>
        <PageTitle text={t("webhooks.createdTitle")} />
        <SecretOnce label={t("webhooks.signingSecret")} value={created.secret} warning={t("webhooks.secretShownOnce")} />
        <p className="hint">{t("webhooks.secretUse")}</p>
        <p>
          <Link href={`/webhooks/${created.id}`} className="button">
            {t("webhooks.continue")}
          </Link>
        </p>
      </>
    );
  }

  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate();
  };
  const toggleEvent = (type: EventType, on: boolean) => setEvents(on ? [...events, type] : events.filter((e) => e !== type));

  return (
    <>
      <PageTitle text={initial ? t("webhooks.editTitle") : t("webhooks.newTitle")} />
      <form onSubmit={submit} className="form" noValidate>
        <div className="field">
          <label htmlFor={ids.url}>{t("webhooks.url")}</label>
          <input id={ids.url} type="url" inputMode="url" value={url} onChange={(e) => setUrl(e.currentTarget.value)} aria-describedby={ids.urlHint} required maxLength={2048} spellCheck={false} />
          <p id={ids.urlHint} className="hint">
            {t("webhooks.urlHint")}
          </p>
        </div>
        <fieldset className="events">
          <legend>{t("webhooks.events")}</legend>
          <p className="hint">{tx("webhooks.eventsHint", { type: <code>ir21.catalog.updated</code> })}</p>
          <div className="actions">
            <button type="button" className="button-secondary" onClick={() => setEvents([...EVENT_TYPES])}>
              {t("webhooks.selectAll")}
            </button>
            <button type="button" className="button-secondary" onClick={() => setEvents([])}>
              {t("webhooks.selectNone")}
            </button>
          </div>
          <ul className="event-options">
            {EVENT_TYPES.map((type) => (
              <li key={type}>
                <label className="check">
                  <input type="checkbox" checked={events.includes(type)} onChange={(e) => toggleEvent(type, e.currentTarget.checked)} aria-describedby={`${ids.events}-${type}`} />
                  <code>{type}</code>
                </label>
                <p id={`${ids.events}-${type}`} className="hint">
                  {t(eventDescription(type))}
                </p>
              </li>
            ))}
          </ul>
        </fieldset>
        <MultiPicker
          legend={t("webhooks.countries")}
          hint={t("webhooks.countriesHint")}
          searchLabel={t("webhooks.searchCountries")}
          search={countrySearch}
          onSearch={setCountrySearch}
          selected={countries}
          onChange={setCountries}
          options={countryMatches}
          labelOf={countryName}
          status={countryList.isError ? <ErrorNotice error={countryList.error} /> : countryList.isPending ? <p className="muted">{t("common.loading")}</p> : null}
        />
        <MultiPicker
          legend={t("webhooks.operators")}
          hint={t("webhooks.operatorsHint")}
          searchLabel={t("webhooks.searchOperators")}
          search={operatorSearch}
          onSearch={setOperatorSearch}
          selected={operators}
          onChange={setOperators}
          options={operatorOptions}
          labelOf={(id) => operatorLabels.get(id) ?? id}
          status={operatorList.isError ? <ErrorNotice error={operatorList.error} /> : operatorParams !== null && operatorList.isPending ? <p className="muted">{t("common.loading")}</p> : null}
        />
        <div className="actions">
          <button type="submit" disabled={save.isPending || events.length === 0}>
            {initial ? t("common.save") : t("webhooks.create")}
          </button>
          <Link href={initial ? `/webhooks/${initial.id}` : "/webhooks"} className="button button-secondary">
            {t("common.cancel")}
          </Link>
        </div>
        {events.length === 0 ? <p className="hint">{t("webhooks.needOneEvent")}</p> : null}
        {save.isError ? <ErrorNotice error={save.error} title={t("webhooks.saveFailed")} /> : null}
      </form>
    </>
  );
}

function useDebounced<T>(value: T, ms: number): T {
  const [debounced, setDebounced] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setDebounced(value), ms);
    return () => clearTimeout(timer);
  }, [value, ms]);
  return debounced;
}
