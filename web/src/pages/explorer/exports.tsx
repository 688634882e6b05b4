import { EXPORT_RESOURCES } from "@ir21/sdk";
import { useI18n } from "../../i18n/i18n.tsx";
import type { MessageKey } from "../../i18n/en.ts";

/**
 * Downloads as plain links: the browser streams the file to disk with the session cookie (same
 * origin) and the server's Content-Disposition names it, so a large export never sits in memory here.
 */
export function ExportsTab() {
  const { t } = useI18n();
  return (
    <section aria-labelledby="exports-title">
      <h2 id="exports-title">{t("explorer.exports")}</h2>
      <p>{t("exports.intro")}</p>
      <ul className="downloads">
        {EXPORT_RESOURCES.map((resource) => (
          <li key={resource}>
            <a href={`/v1/exports/${resource}.csv`} download>
              {t(`exports.${resource}` as MessageKey)} (CSV)
            </a>
          </li>
        ))}
        <li>
          <a href="/v1/snapshot" download>
            {t("exports.snapshot")} (JSON)
          </a>
        </li>
      </ul>
      <p className="hint">{t("exports.license")}</p>
    </section>
  );
}
