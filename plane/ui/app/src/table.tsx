// A table of rows, one a thing (a key, an account, a node), as the app's lists show them: a
// header of column names and, on a phone, each cell labelled with its column's name (the
// `responsive` layout reads `data-label`). A column of buttons has its name for screen readers
// only.

import type { ComponentChildren } from "preact";
import { Fragment } from "preact";

/** Attributes of a row or a cell beyond its content (`data-*`, `title`). */
export type Attrs = Record<string, string | number | undefined>;

export interface Column<T> {
  /** The column's name: its header and each cell's `data-label`. */
  label: string;
  /** A column of actions: the name is for screen readers only, and the cells have no label. */
  actions?: boolean;
  /** The cells' class. */
  class?: string;
  /** Each cell's own attributes (a `title` with the whole text of a cut-off value, say). */
  attrs?: (row: T) => Attrs;
  cell: (row: T) => ComponentChildren;
}

export interface Detail {
  /** The detail cell's id (what the row's button `aria-controls`). */
  id: string;
  content: ComponentChildren;
}

export function Table<T>({
  rows,
  columns,
  rowKey,
  rowAttrs,
  detail,
  testId,
}: {
  rows: readonly T[];
  /** A column left out (`false`, `null`) is not shown. */
  columns: readonly (Column<T> | false | null | undefined)[];
  rowKey: (row: T) => string | number;
  rowAttrs?: (row: T) => Attrs;
  /** A row of its own below a row, across every column, while it has something to show. */
  detail?: (row: T) => Detail | null;
  testId?: string;
}) {
  const shown = columns.filter((c): c is Column<T> => !!c);
  return (
    <table class="table responsive" data-testid={testId}>
      <thead>
        <tr>
          {shown.map((c) => (
            <th key={c.label} scope="col">
              {c.actions ? <span class="sr-only">{c.label}</span> : c.label}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {rows.map((row) => {
          const more = detail?.(row) ?? null;
          return (
            <Fragment key={rowKey(row)}>
              <tr {...rowAttrs?.(row)}>
                {shown.map((c) => (
                  <td key={c.label} data-label={c.actions ? "" : c.label} class={c.class} {...c.attrs?.(row)}>
                    {c.cell(row)}
                  </td>
                ))}
              </tr>
              {more ? (
                <tr class="detail-row">
                  <td colSpan={shown.length} id={more.id}>
                    {more.content}
                  </td>
                </tr>
              ) : null}
            </Fragment>
          );
        })}
      </tbody>
    </table>
  );
}
