import type { ImsiLookup, Network, NumberLookup, Operator } from "@ir21/sdk";
import { useMutation } from "@tanstack/react-query";
import { useId, useState, type FormEvent, type ReactNode } from "react";
import { data } from "../../api.ts";
import { useI18n } from "../../i18n/i18n.tsx";
import { numberTypeKind } from "../../i18n/labels.ts";
import { ErrorNotice } from "../../ui/error-notice.tsx";
import { CountryName, EnumLabel, Named, holderNames, networkNames, operatorNames } from "../../ui/names.tsx";

type Answer = { kind: "number"; result: NumberLookup; version: string } | { kind: "imsi"; result: ImsiLookup; version: string };

/** Look up a phone number or an IMSI and read the answer as a card. */
export function LookupTab() {
  const { t } = useI18n();
  const ids = { kind: useId(), query: useId(), queryHint: useId(), country: useId(), countryHint: useId() };
  const [kind, setKind] = useState<"number" | "imsi">("number");
  const [query, setQuery] = useState("");
  const [country, setCountry] = useState("CN");
  const lookup = useMutation({
    mutationFn: async (): Promise<Answer> => {
      if (kind === "imsi") {
        const { data: result, meta } = await data.lookupImsi(query.trim());
        return { kind, result, version: meta.dataset_version };
      }
      const { data: result, meta } = await data.lookup(query.trim(), country.trim() ? { country: country.trim() } : {});
      return { kind, result, version: meta.dataset_version };
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    lookup.mutate();
  };
  return (
    <section aria-labelledby="lookup-title">
      <h2 id="lookup-title">{t("explorer.lookup")}</h2>
      <form onSubmit={submit} className="card form" noValidate>
        <fieldset className="inline-choices">
          <legend>{t("lookup.kind")}</legend>
          <label className="check">
            <input type="radio" name={ids.kind} checked={kind === "number"} onChange={() => setKind("number")} />
            {t("lookup.number")}
          </label>
          <label className="check">
            <input type="radio" name={ids.kind} checked={kind === "imsi"} onChange={() => setKind("imsi")} />
            {t("lookup.imsi")}
          </label>
        </fieldset>
        <div className="field">
          <label htmlFor={ids.query}>{kind === "number" ? t("lookup.numberLabel") : t("lookup.imsiLabel")}</label>
          <input id={ids.query} value={query} onChange={(e) => setQuery(e.currentTarget.value)} inputMode={kind === "number" ? "tel" : "numeric"} aria-describedby={ids.queryHint} required maxLength={32} />
          <p id={ids.queryHint} className="hint">
            {kind === "number" ? t("lookup.numberHint") : t("lookup.imsiHint")}
          </p>
        </div>
        {kind === "number" ? (
          <div className="field">
            <label htmlFor={ids.country}>{t("lookup.country")}</label>
            <input id={ids.country} value={country} onChange={(e) => setCountry(e.currentTarget.value.toUpperCase())} maxLength={2} aria-describedby={ids.countryHint} className="short" />
            <p id={ids.countryHint} className="hint">
              {t("lookup.countryHint")}
            </p>
          </div>
        ) : null}
        <div className="actions">
          <button type="submit" disabled={query.trim() === "" || lookup.isPending}>
            {t("lookup.submit")}
          </button>
        </div>
      </form>
      {lookup.isError ? <ErrorNotice error={lookup.error} /> : null}
      {lookup.data ? <AnswerCard answer={lookup.data} /> : null}
    </section>
  );
}

function AnswerCard({ answer }: { answer: Answer }) {
  const { t, lang } = useI18n();
  const r = answer.result;
  const number = answer.kind === "number" ? answer.result : null;
  const operator: Operator | null = r.operator;
  const network: Network | null = r.network;
  const range = r.range;
  const networkName = network ? networkNames(lang, network, operator) : null;
  // Location and time zones are optional fields of the answer (issue 19's enrichment): shown only
  // when the answer carries them, "Unknown" when it carries them as null.
  const extra = r as unknown as { location?: unknown; time_zones?: unknown; time_zone?: unknown };
  const timeZones = extra.time_zones !== undefined ? extra.time_zones : extra.time_zone;
  return (
    <article className="card answer" aria-labelledby="answer-title">
      <h3 id="answer-title">
        {number ? number.number : (answer.result as ImsiLookup).imsi}{" "}
        {number ? number.valid ? <span className="badge badge-ok">{t("lookup.valid")}</span> : <span className="badge badge-failed">{t("lookup.invalid")}</span> : null}
      </h3>
      <dl className="facts facts-wide">
        {number?.validation_reason ? <Fact term={t("lookup.whyInvalid")} value={<EnumLabel kind="validationReason" value={number.validation_reason} />} /> : null}
        <Fact term={t("lookup.countryTerm")} value={r.country_iso2 ? <CountryName iso2={r.country_iso2} /> : null} />
        {/* The answer's `note` is this warning in English, for API clients: the card says it in the reader's language. */}
        {number ? <Fact term={t("lookup.rangeHolder")} value={<RangeHolder lookup={number} />} note={number.range_holder ? t("lookup.rangeHolderNote") : undefined} /> : null}
        <Fact term={t("lookup.operator")} value={operator ? <Named names={operatorNames(lang, operator)} /> : null} />
        {operator?.brand && operator.brand !== operator.name ? <Fact term={t("browse.brand")} value={<span lang={lang === "zh-CN" ? "en" : undefined}>{operator.brand}</span>} /> : null}
        <Fact
          term={t("lookup.network")}
          value={
            network ? (
              <>
                {network.mcc}-{network.mnc} {networkName ? <Named names={networkName} /> : null}
              </>
            ) : null
          }
        />
        {network?.technologies.length ? <Fact term={t("lookup.technologies")} value={network.technologies.join(", ")} /> : null}
        {network?.tadig || operator?.tadig ? <Fact term="TADIG" value={network?.tadig ?? operator?.tadig ?? null} /> : null}
        {number ? <Fact term={t("lookup.numberType")} value={number.number_type ? <EnumLabel kind="numberKind" value={numberTypeKind(number.number_type)} /> : null} /> : null}
        <Fact
          term={t("lookup.rangeKind")}
          value={
            range ? (
              <>
                <EnumLabel kind="numberKind" value={range.kind} /> · <EnumLabel kind="numberPlan" value={range.plan} />
              </>
            ) : null
          }
        />
        {number?.match ? <Fact term={t("lookup.prefix")} value={number.match.prefix} /> : null}
        {answer.kind === "imsi" ? <Fact term="MCC / MNC" value={`${answer.result.mcc ?? "—"} / ${answer.result.mnc ?? "—"}`} /> : null}
        {extra.location !== undefined ? <Fact term={t("lookup.location")} value={locationText(extra.location, lang)} /> : null}
        {timeZones !== undefined ? <Fact term={t("lookup.timeZones")} value={timeZonesText(timeZones)} /> : null}
        <Fact term={t("lookup.version")} value={answer.version} />
      </dl>
    </article>
  );
}

/**
 * The number's range holder in the reader's language: the answer names it in English; its range
 * carries the local name too. None named: why not (the answer's `range_holder_reason`).
 */
function RangeHolder({ lookup }: { lookup: NumberLookup }) {
  const { t, tx, lang } = useI18n();
  if (!lookup.range_holder) {
    return <span className="muted">{lookup.range_holder_reason ? tx("lookup.noHolder", { reason: <EnumLabel kind="holderReason" value={lookup.range_holder_reason} /> }) : t("lookup.unknown")}</span>;
  }
  const names = lookup.range && lookup.range.range_holder === lookup.range_holder ? holderNames(lang, lookup.range) : null;
  return <Named names={names ?? { text: lookup.range_holder, ...(lang === "zh-CN" ? { lang: "en" } : {}) }} />;
}

function Fact({ term, value, note }: { term: string; value: ReactNode; note?: string }) {
  const { t } = useI18n();
  return (
    <div>
      <dt>{term}</dt>
      <dd>
        {value ?? <span className="muted">{t("lookup.unknown")}</span>}
        {note && value ? <span className="hint block">{note}</span> : null}
      </dd>
    </div>
  );
}

/**
 * A location as text in the reader's language: a plain string, or an object with one name per
 * language (`{en, zh}`, `{name, name_zh}`, …; the other language when the reader's is missing).
 */
function locationText(value: unknown, lang: string): string | null {
  if (value === null || value === undefined) return null;
  if (typeof value === "string") return value.trim() === "" ? null : value;
  if (typeof value !== "object" || Array.isArray(value)) return String(value);
  const names = value as Record<string, unknown>;
  const keys = lang === "zh-CN" ? ["zh", "zh-CN", "zh_CN", "zh_hans", "name_zh", "en", "name_en", "name"] : ["en", "name_en", "name", "zh", "zh-CN", "zh_CN", "name_zh"];
  for (const key of keys) {
    const name = names[key];
    if (typeof name === "string" && name.trim() !== "") return name;
  }
  return null;
}

/** IANA time zones as text: a list ("Asia/Shanghai, Asia/Urumqi") or one name. */
function timeZonesText(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  if (Array.isArray(value)) return value.length ? value.map(String).join(", ") : null;
  return String(value);
}
