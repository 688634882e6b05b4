import type { ReactNode } from "react";
import { Link } from "wouter";
import { useI18n } from "../../i18n/i18n.tsx";
import type { EventType } from "@ir21/sdk";
import { PageTitle } from "../../ui/layout-bits.tsx";
import { EnumLabel } from "../../ui/names.tsx";

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

/** Event types, one a line: the type as receivers match it, then its name in the reader's language. */
export function EventTypeList({ events }: { events: readonly EventType[] }) {
  return (
    <ul className="plain">
      {events.map((e) => (
        <li key={e}>
          <code>{e}</code> <EventTypeName type={e} />
        </li>
      ))}
    </ul>
  );
}

/** An event type's name in the reader's language ("Operator changed"), beside the type itself. */
export function EventTypeName({ type }: { type: EventType }) {
  return (
    <span className="muted">
      <EnumLabel kind="eventType" value={type} />
    </span>
  );
}
