import type { ReactNode } from "react";
import { Link } from "wouter";
import { useI18n } from "../../i18n/i18n.tsx";
import { PageTitle } from "../../ui/layout-bits.tsx";

/**
 * The frame of a page under Webhooks that shows one thing (a subscription, a listen session): a
 * breadcrumb back to the list and the page's title followed by what it is about.
 */
export function SubpageTitle({ title, children }: { title: string; children: ReactNode }) {
  const { t } = useI18n();
  return (
    <>
      <p className="breadcrumb">
        <Link href="/webhooks">{t("nav.webhooks")}</Link>
      </p>
      <PageTitle text={title}>
        {title} {children}
      </PageTitle>
    </>
  );
}

/** Such a page when its subscription or session does not exist (or is another account's). */
export function SubpageNotFound({ title }: { title: string }) {
  const { t } = useI18n();
  return (
    <>
      <PageTitle text={title} />
      <Link href="/webhooks">{t("webhooks.backToList")}</Link>
    </>
  );
}

/** Event types, one a line. */
export function EventTypeList({ events }: { events: readonly string[] }) {
  return (
    <ul className="plain">
      {events.map((e) => (
        <li key={e}>
          <code>{e}</code>
        </li>
      ))}
    </ul>
  );
}
