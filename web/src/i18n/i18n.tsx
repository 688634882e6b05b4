import { createContext, Fragment, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from "react";
import { en, type MessageKey, type PluralKey } from "./en.ts";
import { enumKey, type EnumKind } from "./labels.ts";
import { zh } from "./zh.ts";

/**
 * UI text in English and Simplified Chinese. Hand-rolled rather than a library (i18next, lingui):
 * two languages, plain `{name}` placeholders and the platform's Intl for numbers and dates is all the
 * console needs, and a typed key set makes a missing translation a compile error (zh.ts is
 * `Record<MessageKey, string>`). Counts take the form of their plural category by the platform's
 * Intl.PluralRules (`tn`): English "1 type" / "2 types"; Chinese has one form. The choice is kept in
 * localStorage under `ir21.lang` — a display preference, never anything of the session.
 */
export type Lang = "en" | "zh-CN";
const MESSAGES: Record<Lang, Partial<Record<MessageKey, string>>> = { en, "zh-CN": zh };
const STORAGE_KEY = "ir21.lang";

export function preferredLang(): Lang {
  try {
    const saved = localStorage.getItem(STORAGE_KEY);
    if (saved === "en" || saved === "zh-CN") return saved;
  } catch {
    // Storage can be disabled; the browser's languages decide then.
  }
  const first = (navigator.languages?.length ? navigator.languages : [navigator.language]).find((l) => /^(zh|en)\b/i.test(l));
  return first && /^zh/i.test(first) ? "zh-CN" : "en";
}

export type Vars = Record<string, string | number>;

export interface I18n {
  lang: Lang;
  setLang(lang: Lang): void;
  t(key: MessageKey, vars?: Vars): string;
  /** A count's text in the plural form the language uses for `n` (given to the text as `{n}`). */
  tn(key: PluralKey, n: number, vars?: Vars): string;
  /**
   * A text whose placeholders are elements, e.g. an event type set as code inside a sentence:
   * `tx("webhooks.eventsHint", { type: <code>ir21.catalog.updated</code> })`.
   */
  tx(key: MessageKey, vars: Record<string, ReactNode>): ReactNode;
  /** `tx` for a count's text, in its plural form (`{n}` is the count). */
  txn(key: PluralKey, n: number, vars: Record<string, ReactNode>): ReactNode;
  /** The label of an enumerated value (labels.ts), or null when the console has none for it. */
  label(kind: EnumKind, value: string): string | null;
  number(value: number): string;
  /** Date and time in the reader's time zone, e.g. "2026-09-08 14:03". */
  dateTime(iso: string | null | undefined): string;
  date(iso: string | null | undefined): string;
  /** A duration in seconds as "1 h 02 min" / "45 s". */
  duration(seconds: number): string;
}

const Context = createContext<I18n | null>(null);

export function I18nProvider({ children }: { children: ReactNode }) {
  const [lang, setLangState] = useState<Lang>(preferredLang);
  useEffect(() => {
    document.documentElement.lang = lang;
  }, [lang]);
  const setLang = useCallback((next: Lang) => {
    setLangState(next);
    try {
      localStorage.setItem(STORAGE_KEY, next);
    } catch {
      // Not kept: the switch still applies to this page.
    }
  }, []);
  const value = useMemo<I18n>(() => {
    const messages = MESSAGES[lang];
    const numberFormat = new Intl.NumberFormat(lang);
    const dateTimeFormat = new Intl.DateTimeFormat(lang, { year: "numeric", month: "2-digit", day: "2-digit", hour: "2-digit", minute: "2-digit", hour12: false });
    const dateFormat = new Intl.DateTimeFormat(lang, { year: "numeric", month: "2-digit", day: "2-digit" });
    const pluralRules = new Intl.PluralRules(lang);
    const t = (key: MessageKey, vars?: Vars) => {
      const text = messages[key] ?? en[key];
      return vars ? text.replace(/\{(\w+)\}/g, (whole, name: string) => (name in vars ? String(vars[name]) : whole)) : text;
    };
    // A language has the forms of the categories it uses; every count has `.other`.
    const pluralForm = (key: PluralKey, n: number): MessageKey => {
      const form = `${key}.${pluralRules.select(n)}` as MessageKey;
      return form in messages ? form : (`${key}.other` as MessageKey);
    };
    return {
      lang,
      setLang,
      t,
      tn: (key, n, vars) => t(pluralForm(key, n), { ...vars, n }),
      tx: (key, vars) => withElements(messages[key] ?? en[key], vars),
      txn: (key, n, vars) => withElements(t(pluralForm(key, n), { n }), vars),
      label(kind, value) {
        const key = enumKey(kind, value);
        return key ? t(key) : null;
      },
      number: (value) => numberFormat.format(value),
      dateTime: (iso) => (iso ? dateTimeFormat.format(new Date(iso)) : "—"),
      date: (iso) => (iso ? dateFormat.format(new Date(iso)) : "—"),
      duration(seconds) {
        const s = Math.max(0, Math.ceil(seconds));
        if (s < 60) return t("time.seconds", { s });
        const m = Math.floor(s / 60);
        if (m < 60) return t("time.minutesSeconds", { m, s: String(s % 60).padStart(2, "0") });
        const h = Math.floor(m / 60);
        if (h < 48) return t("time.hoursMinutes", { h, m: String(m % 60).padStart(2, "0") });
        return t("time.days", { d: Math.round(h / 24) });
      },
    };
  }, [lang, setLang]);
  return <Context.Provider value={value}>{children}</Context.Provider>;
}

/** "Sent to {n}: {type}" with `type` an element: the text's parts with the elements in their places. */
function withElements(text: string, vars: Record<string, ReactNode>): ReactNode {
  return text.split(/(\{\w+\})/).map((part, i) => {
    const name = /^\{(\w+)\}$/.exec(part)?.[1];
    return name !== undefined && name in vars ? <Fragment key={i}>{vars[name]}</Fragment> : part;
  });
}

export function useI18n(): I18n {
  const value = useContext(Context);
  if (!value) throw new Error("useI18n outside I18nProvider");
  return value;
}
