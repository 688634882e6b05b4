import type { SourceDescriptor } from "../../contract/catalog.ts";

const DAY_MS = 86_400_000;

/**
 * How old a source is today and whether it is stale (docs/catalog.md "Sources and their dates"): days
 * since its publication, and whether that is past the refresh interval its publisher keeps, compared
 * with `now` (the server's clock), never with another source.
 * @example
 * datedSource(source, clock.now().getTime()) // { ...source, age_days: 247, stale: true }
 */
export function datedSource(source: SourceDescriptor, now: number): SourceDescriptor {
  const published = source.published_at === null ? null : Date.parse(source.published_at);
  const age = published === null ? null : Math.max(0, Math.floor((now - published) / DAY_MS));
  const stale = age === null || source.refresh_interval_days === undefined ? null : age > source.refresh_interval_days;
  return { ...source, age_days: age, stale };
}

/**
 * How often the packaged sources' publishers refresh them, in days (docs/catalog.md "Sources and their
 * dates"): libphonenumber releases about every two weeks (a release touching carrier data, monthly or
 * so: 60 days allows a missed one); the Wikipedia-derived MCC/MNC list is edited continuously but
 * packaged irregularly; ISO country names change rarely; NANPA's code reports daily.
 */
export const REFRESH_INTERVAL_DAYS: Record<string, number> = {
  "libphonenumber-carrier": 60,
  "libphonenumber-geocoding": 60,
  "libphonenumber-js": 60,
  "mcc-mnc-list": 180,
  "i18n-iso-countries": 365,
  nanpa: 14,
};
