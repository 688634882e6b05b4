import type { Country, Network, NumberRange, Operator } from "@ir21/sdk";
import { useQuery } from "@tanstack/react-query";
import { useCallback, useMemo, type ReactNode } from "react";
import { data } from "../api.ts";
import { useI18n, type Lang } from "../i18n/i18n.tsx";
import { deliveryErrorCode, type EnumKind } from "../i18n/labels.ts";

/**
 * Names of catalogue records in the reader's language, with the other language's name beside them.
 *
 * The rule for Chinese (docs/console.md "Languages"): an operator, a network named after its operator
 * and a range holder are shown by their local name when that name is Chinese — the record's country
 * is one where Chinese is an official language (mainland China, Hong Kong, Macao, Taiwan, Singapore)
 * and the name is written in Chinese characters. In the reference catalogue the local names come from
 * libphonenumber's Chinese carrier files (mainland China and Hong Kong), which also write some Hong
 * Kong brands in Latin letters ("3", "Lycamobile"): those are no more Chinese than the English name,
 * which says more, so the English name stays. An IR.21 document's local name in another script (Thai,
 * Japanese) is not Chinese either. The English name is always there too, as a second line or in
 * parentheses; in English the local name is the second one.
 */
const CHINESE_SPEAKING = new Set(["CN", "HK", "MO", "TW", "SG"]);
const HAN = /\p{Script=Han}/u;

/** The record's local name when it is a Chinese name by the rule above, else null. */
export function chineseName(country: string | null | undefined, local: string | null | undefined): string | null {
  return local && country && CHINESE_SPEAKING.has(country) && HAN.test(local) ? local : null;
}

/** A name in one language; `lang` is set when it differs from the page's (an English name on a Chinese page). */
export interface Name {
  text: string;
  lang?: string;
}
/** What to call a record: in the reader's language first, then the other name when there is one. */
export interface Names extends Name {
  other?: Name;
}

/** English first and the local name second on an English page; on a Chinese page the other way round. */
function byLanguage(lang: Lang, english: string, local: string | null, chinese: string | null): Names {
  if (lang === "zh-CN") return chinese ? { text: chinese, other: { text: english, lang: "en" } } : { text: english, lang: "en" };
  return local && local !== english ? { text: english, other: { text: local, ...(chinese ? { lang: "zh" } : {}) } } : { text: english };
}

export const operatorNames = (lang: Lang, o: Pick<Operator, "country_iso2" | "name" | "name_local">): Names => byLanguage(lang, o.name, o.name_local, chineseName(o.country_iso2, o.name_local));

/**
 * A network has no local name of its own; one named after its operator (its brand or its name, as
 * "China Mobile" for 460-00) takes the operator's Chinese name.
 */
export function networkNames(lang: Lang, n: Pick<Network, "name">, operator: Pick<Operator, "country_iso2" | "name" | "name_local" | "brand"> | null | undefined): Names | null {
  const namedAfterOperator = operator && (n.name === null || n.name === operator.name || n.name === operator.brand);
  if (namedAfterOperator) {
    const chinese = chineseName(operator.country_iso2, operator.name_local);
    if (lang === "zh-CN" && chinese) return { text: chinese, ...(n.name ? { other: { text: n.name, lang: "en" } } : {}) };
  }
  if (n.name === null) return null;
  return lang === "zh-CN" ? { text: n.name, lang: "en" } : { text: n.name };
}

export const holderNames = (lang: Lang, r: Pick<NumberRange, "country_iso2" | "range_holder" | "range_holder_local">): Names | null =>
  r.range_holder ? byLanguage(lang, r.range_holder, r.range_holder_local, chineseName(r.country_iso2, r.range_holder_local)) : null;

/** "中国移动 (China Mobile)": for places that take a string (picker options, titles). */
export const namesText = (names: Names): string => (names.other ? `${names.text} (${names.other.text})` : names.text);

/** A record's name with the other name under it (`block`, in tables and cards) or after it in parentheses. */
export function Named({ names, block = true, children }: { names: Names; block?: boolean; children?: (name: ReactNode) => ReactNode }) {
  const name = <span lang={names.lang}>{names.text}</span>;
  return (
    <>
      {children ? children(name) : name}
      {names.other ? (
        block ? (
          <span className="muted small block" lang={names.other.lang}>
            {names.other.text}
          </span>
        ) : (
          <>
            {" "}
            <span className="muted" lang={names.other.lang}>
              ({names.other.text})
            </span>
          </>
        )
      ) : null}
    </>
  );
}

/**
 * Country names from the catalogue (`GET /v1/countries`: `name`, `name_zh`), fetched once per page
 * load and shared by every page that shows a country (a metered query, like the explorer's). `enabled`
 * false while the page has no country to name, so such a page costs nothing. Until they arrive (or if
 * they cannot), a country is its ISO code.
 */
export function useCountryNames(enabled = true) {
  const { lang } = useI18n();
  const countries = useQuery({ queryKey: ["data", "countries"], queryFn: () => data.countries.list(), staleTime: Infinity, enabled });
  const byCode = useMemo(() => new Map<string, Country>((countries.data?.data.items ?? []).map((c) => [c.iso2, c])), [countries.data]);
  /** The country's name in the reader's language, its ISO code as the other name. */
  const names = useCallback(
    (iso2: string): Names => {
      const country = byCode.get(iso2);
      if (!country) return { text: iso2 };
      const zh = lang === "zh-CN" && country.name_zh;
      return { text: zh || country.name, ...(lang === "zh-CN" && !zh ? { lang: "en" } : {}), other: { text: iso2 } };
    },
    [byCode, lang],
  );
  const text = useCallback((iso2: string) => namesText(names(iso2)), [names]);
  return { query: countries, names, text };
}

/** A country as its name with its ISO code after it: "中国 (CN)". */
export function CountryName({ iso2 }: { iso2: string | null | undefined }) {
  const countries = useCountryNames(Boolean(iso2));
  return iso2 ? <Named names={countries.names(iso2)} block={false} /> : <>—</>;
}

/**
 * An enumerated value as its label (labels.ts). A value the console has no text for (an open field's
 * new value from a newer server) is shown as code: what it is, marked as the raw value it is.
 */
export function EnumLabel({ kind, value }: { kind: EnumKind; value: string }) {
  const { label } = useI18n();
  return <>{label(kind, value) ?? <code>{value}</code>}</>;
}

/**
 * A delivery's or attempt's error: its kind in the reader's words, then the server's own sentence
 * (English, as the server writes it: like an error's `message`).
 */
export function DeliveryErrorText({ error }: { error: string }) {
  const { label } = useI18n();
  const code = deliveryErrorCode(error);
  const text = code ? label("deliveryError", code) : null;
  return (
    <>
      {text ? <span className="block">{text}</span> : null}
      <span className={text ? "muted small block" : undefined} lang="en">
        {error}
      </span>
    </>
  );
}
