import type { ReactNode } from "react";
import { useI18n } from "../i18n/i18n.tsx";
import { TableWrap } from "./layout-bits.tsx";

/** A column: its header and what each row shows in it. */
export interface Column<T> {
  header: ReactNode;
  cell(item: T): ReactNode;
}

/**
 * The account's credentials that can be revoked one by one (API keys, sign-in sessions): a table
 * whose first column names the row, and whose last column (headed for screen readers only) holds the
 * row's Revoke button, which opens the page's confirmation.
 */
export function RevocableTable<T extends { id: string }>(props: {
  /** Names the scrollable region. */
  label: string;
  items: readonly T[];
  /** The column that names each row (its cells are row headers). */
  name: Column<T>;
  columns: Array<Column<T>>;
  rowClassName?(item: T): string | undefined;
  revoke: {
    label(item: T): string;
    /** A longer accessible name, when the visible label alone would not say which row it revokes. */
    accessibleName?(item: T): string;
    /** False for a row that cannot be revoked (any more): no button. */
    available?(item: T): boolean;
    onClick(item: T): void;
  };
}) {
  const { t } = useI18n();
  const { revoke } = props;
  return (
    <TableWrap label={props.label}>
      <table>
        <thead>
          <tr>
            <th scope="col">{props.name.header}</th>
            {props.columns.map((column, i) => (
              <th key={i} scope="col">
                {column.header}
              </th>
            ))}
            <th scope="col">
              <span className="visually-hidden">{t("common.actions")}</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {props.items.map((item) => (
            <tr key={item.id} className={props.rowClassName?.(item)}>
              <th scope="row">{props.name.cell(item)}</th>
              {props.columns.map((column, i) => (
                <td key={i}>{column.cell(item)}</td>
              ))}
              <td>
                {revoke.available?.(item) === false ? null : (
                  <button type="button" className="button-danger-outline" onClick={() => revoke.onClick(item)} aria-label={revoke.accessibleName?.(item)}>
                    {revoke.label(item)}
                  </button>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableWrap>
  );
}
