import { useId } from "react";
import { useI18n } from "../../i18n/i18n.tsx";
import { EVENT_TYPES, eventDescription, type EventType } from "./shared.ts";

/** "" stands for the contract's plain test event (no body: a summary of the subscription's first type). */
export type TestChoice = EventType | "";

/**
 * One event type chosen from all of the contract's, each with its one-line description (tied to its
 * radio button by aria-describedby, so the button's name stays the type itself). Radio buttons rather
 * than a <select>: an option cannot carry a description a screen reader announces.
 */
export function EventTypeChoice({
  legend,
  value,
  onChange,
  summaryOption,
  subscribed,
}: {
  legend: string;
  value: TestChoice;
  onChange: (value: TestChoice) => void;
  /** Offer the plain summary test first (a subscription's test, not a listen trigger). */
  summaryOption?: boolean;
  /** The types the endpoint subscribes to, marked as such. */
  subscribed?: readonly EventType[];
}) {
  const { t } = useI18n();
  const name = useId();
  const options: TestChoice[] = summaryOption ? ["", ...EVENT_TYPES] : [...EVENT_TYPES];
  return (
    <fieldset className="events">
      <legend>{legend}</legend>
      <ul className="event-options">
        {options.map((type) => {
          const hintId = `${name}-${type || "summary"}`;
          return (
            <li key={type || "summary"}>
              <label className="check">
                <input type="radio" name={name} value={type} checked={value === type} onChange={() => onChange(type)} aria-describedby={hintId} />
                {type ? <code>{type}</code> : t("test.summary")}
                {type && subscribed?.includes(type) ? <span className="badge badge-muted">{t("test.subscribed")}</span> : null}
              </label>
              <p id={hintId} className="hint">
                {type ? t(eventDescription(type)) : t("test.summaryDescription")}
              </p>
            </li>
          );
        })}
      </ul>
    </fieldset>
  );
}
