import { Link } from "wouter";
import { useI18n } from "../../i18n/i18n.tsx";
import type { MessageKey } from "../../i18n/en.ts";
import { PageTitle } from "../../ui/layout-bits.tsx";
import { BrowseTab } from "./browse.tsx";
import { ChangesTab } from "./changes.tsx";
import { ExportsTab } from "./exports.tsx";
import { LookupTab } from "./lookup.tsx";

const TABS: Array<{ id: string; label: MessageKey }> = [
  { id: "lookup", label: "explorer.lookup" },
  { id: "browse", label: "explorer.browse" },
  { id: "changes", label: "explorer.changes" },
  { id: "exports", label: "explorer.exports" },
];

/**
 * The catalogue as the signed-in account sees it (full fields). Every query here is a web query,
 * metered on the account's monthly quota like its API keys' queries.
 */
export default function ExplorerPage({ tab }: { tab?: string }) {
  const { t } = useI18n();
  const current = TABS.find((x) => x.id === tab)?.id ?? "lookup";
  return (
    <>
      <PageTitle text={t("explorer.title")} />
      <p className="hint">{t("explorer.metered")}</p>
      <nav aria-label={t("explorer.sections")} className="subnav">
        <ul>
          {TABS.map((x) => (
            <li key={x.id}>
              <Link href={x.id === "lookup" ? "/explorer" : `/explorer/${x.id}`} aria-current={current === x.id ? "page" : undefined}>
                {t(x.label)}
              </Link>
            </li>
          ))}
        </ul>
      </nav>
      {current === "lookup" ? <LookupTab /> : current === "browse" ? <BrowseTab /> : current === "changes" ? <ChangesTab /> : <ExportsTab />}
    </>
  );
}
