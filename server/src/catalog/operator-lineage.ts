import type { Operator } from "../contract/catalog.ts";

/**
 * Operator lineage (docs/catalog.md "Lineage"): an operator that stopped running its network and was
 * merged into, renamed as or acquired by another, with the source of that fact. A range keeps its
 * original holder and operator; the lookup also answers `current_operator` by following these
 * entries to the end of the chain. Only certain successors are listed: a network shut down with its
 * subscribers scattered (India's Aircel, 2018) or split between several buyers (Oi's mobile business,
 * divided among TIM, Vivo and Claro by area code in 2022) has none.
 */
export interface LineageEntry {
  operator: string;
  successor: string;
  /** When the successor took over (ISO date, as precise as the source). */
  date: string;
  reason: "merged" | "acquired" | "renamed";
  reference: string;
}

export const OPERATOR_LINEAGE: readonly LineageEntry[] = [
  {
    operator: "in.tata-docomo",
    successor: "in.airtel",
    date: "2019-07",
    reason: "acquired",
    reference: "Bharti Airtel took over Tata Teleservices' consumer mobile business; DoT approval and merger effective July 2019",
  },
  {
    operator: "in.uninor",
    successor: "in.airtel",
    date: "2018-05",
    reason: "acquired",
    reference: "Bharti Airtel acquired Telenor India (Uninor); DoT approval May 2018, subscribers migrated to Airtel",
  },
  {
    operator: "br.brasil-telecom-gsm",
    successor: "br.tnl-pcs-oi",
    date: "2009",
    reason: "merged",
    reference: "Oi (Telemar/TNL) bought Brasil Telecom in 2008-09 and merged its GSM network into Oi",
  },
];

/** The end of an operator's lineage: itself when it has no successor (or a successor unknown to the data). */
export function currentOperator(operators: ReadonlyMap<string, Operator>, operator: Operator): Operator {
  let current = operator;
  const seen = new Set<string>();
  for (;;) {
    const entry = OPERATOR_LINEAGE.find((e) => e.operator === current.id);
    const next = entry ? operators.get(entry.successor) : undefined;
    if (!next || seen.has(next.id)) return current;
    seen.add(current.id);
    current = next;
  }
}
