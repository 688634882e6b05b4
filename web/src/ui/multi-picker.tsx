import { useId, type ReactNode } from "react";
import { useI18n } from "../i18n/i18n.tsx";

export interface PickerOption {
  value: string;
  label: string;
}

/**
 * Choose several values from a long list with a search box: what is chosen shows as removable chips
 * above the search, the matches as checkboxes below it. Every control has a visible label.
 */
export function MultiPicker(props: {
  legend: string;
  hint?: string;
  searchLabel: string;
  search: string;
  onSearch: (value: string) => void;
  selected: string[];
  onChange: (values: string[]) => void;
  /** Matches of the current search; undefined while there is nothing to show (e.g. not loaded). */
  options: PickerOption[] | undefined;
  labelOf?: (value: string) => string;
  status?: ReactNode;
}) {
  const { t } = useI18n();
  const searchId = useId();
  const hintId = useId();
  const toggle = (value: string, on: boolean) => props.onChange(on ? [...props.selected, value] : props.selected.filter((v) => v !== value));
  return (
    <fieldset className="picker">
      <legend>{props.legend}</legend>
      {props.hint ? (
        <p id={hintId} className="hint">
          {props.hint}
        </p>
      ) : null}
      {props.selected.length ? (
        <ul className="chips" aria-label={t("picker.selected")}>
          {props.selected.map((value) => (
            <li key={value} className="chip">
              <span>{props.labelOf?.(value) ?? value}</span>
              <button type="button" className="chip-remove" onClick={() => toggle(value, false)} aria-label={t("picker.remove", { name: props.labelOf?.(value) ?? value })}>
                ×
              </button>
            </li>
          ))}
        </ul>
      ) : (
        <p className="muted">{t("picker.noneSelected")}</p>
      )}
      <label htmlFor={searchId}>{props.searchLabel}</label>
      <input id={searchId} type="search" value={props.search} onChange={(e) => props.onSearch(e.currentTarget.value)} aria-describedby={props.hint ? hintId : undefined} autoComplete="off" />
      {props.status}
      {props.options ? (
        props.options.length === 0 ? (
          <p className="muted">{t("picker.noMatches")}</p>
        ) : (
          <ul className="picker-options">
            {props.options.map((option) => (
              <li key={option.value}>
                <label className="check">
                  <input type="checkbox" checked={props.selected.includes(option.value)} onChange={(e) => toggle(option.value, e.currentTarget.checked)} />
                  <span>{option.label}</span>
                </label>
              </li>
            ))}
          </ul>
        )
      ) : null}
    </fieldset>
  );
}
