import type { Operator, OperatorLineage } from "../../contract/catalog.ts";

/**
 * Operator lineage (docs/catalog.md "Lineage"): an operator that stopped running its network and was
 * merged into, renamed as, acquired by or split among other operators, with the source of that fact.
 * The reference importer writes each entry onto the operator record (`successor_id`, `lineage`); a
 * range keeps its original holder and operator, and the lookup also answers `current_operator` by
 * following the records to the end of the chain.
 *
 * Only certain successors are listed. A network shut down with its subscribers scattered (India's
 * Aircel, 2018) has none. A split is listed only when the division by area code was published:
 * Oi's mobile business, divided among TIM, Claro and Vivo by DDD in 2022.
 */
export interface LineageEntry {
  operator: string;
  /** The single successor; null for a split (see `successors`). */
  successor: string | null;
  /** When the successor took over (ISO date, as precise as the source). */
  date: string;
  reason: OperatorLineage["reason"];
  reference: string;
  /** A split: who took over which numbers, by E.164 prefix (calling code + area code). */
  successors?: { operator: string; prefixes: string[] }[];
}

/** Brazilian area codes (DDD) as E.164 prefixes: "11" -> "5511". */
const ddd = (...codes: number[]) => codes.map((code) => `55${code}`);

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
  // Certain from mcc-mnc-list's own notes on the closed network's or the successor's row.
  {
    operator: "at.orange-austria",
    successor: "at.hutchison-drei-austria",
    date: "2013-01",
    reason: "acquired",
    reference: "Hutchison 3G Austria bought Orange Austria (closed January 2013) and merged it into Drei; mcc-mnc-list 232-05 (3, Hutchison Drei Austria): 'former Orange Austria'",
  },
  {
    operator: "id.pt-natrindo-telepon-seluler",
    successor: "id.pt-xl-axiata-tbk",
    date: "2014",
    reason: "merged",
    reference: "XL Axiata bought AXIS (PT Natrindo Telepon Seluler) in 2014 and merged it; mcc-mnc-list 510-08: 'Merged with XL (MNC 11), MNC 08 no longer used'",
  },
  {
    operator: "bm.m3-wireless",
    successor: "bm.bermuda-digital",
    date: "2011",
    reason: "merged",
    reference: "mcc-mnc-list 350-02 (Mobility, M3 Wireless): 'Merged with CellOne in 2011'; 350-00 (One, Bermuda Digital Communications): 'Former CellOne'",
  },
  {
    operator: "hn.digicel-honduras",
    successor: "hn.servicios-comunicaciones-honduras-s-a-c-v",
    date: "2011",
    reason: "acquired",
    reference: "mcc-mnc-list 708-040 (Digicel de Honduras): 'Sold to Claro in 2011'; Claro Honduras is Servicios de Comunicaciones de Honduras (708-001)",
  },
  {
    operator: "br.tnl-pcs-oi",
    successor: null,
    date: "2022-04",
    reason: "split",
    reference:
      "Oi Móvel sold to TIM, Telefônica Brasil (Vivo) and Claro; approved by Anatel (January 2022) and CADE (9 February 2022), closed April 2022. " +
      "Subscribers divided by area code (DDD) as filed with CADE: TIM 29 DDDs, Claro 27, Vivo 11 (Exame and Agência Brasil/O Dia, 10 February 2022). " +
      "The network record 724-31 is listed as not operational.",
    successors: [
      {
        operator: "br.telecom-italia-mobile",
        prefixes: ddd(11, 16, 19, 21, 22, 24, 32, 51, 53, 54, 55, 61, 62, 63, 64, 65, 66, 67, 68, 69, 73, 75, 89, 93, 94, 95, 96, 97, 99),
      },
      {
        operator: "br.claro",
        prefixes: ddd(13, 14, 15, 17, 18, 27, 28, 31, 33, 34, 35, 37, 38, 43, 44, 45, 46, 47, 48, 49, 71, 74, 77, 79, 87, 91, 92),
      },
      { operator: "br.telefonica-brasil-s-a", prefixes: ddd(12, 41, 42, 81, 82, 83, 84, 85, 86, 88, 98) },
    ],
  },
];

/**
 * Rows of the reference data that are one operator listed twice under names that differ only in the
 * legal form ("Xfera Moviles SA" and "Xfera Moviles S.A.U."): the importer folds the duplicate into the
 * survivor (its networks and ranges move, its statuses count towards the survivor's) and the old id
 * still resolves to the survivor (GET /v1/operators/:id answers 200 with the survivor's record).
 */
export interface OperatorMerge {
  duplicate: string;
  survivor: string;
  reason: string;
}

export const OPERATOR_MERGES: readonly OperatorMerge[] = [
  {
    duplicate: "es.xfera-moviles-s-a-u",
    survivor: "es.xfera-moviles",
    reason: "Xfera Móviles S.A.U. (sociedad anónima unipersonal) is Xfera Móviles SA, brand Yoigo: the same company with its full legal form",
  },
  {
    duplicate: "es.telefonica-moviles-espana-s-a-u",
    survivor: "es.telefonica-moviles-espana",
    reason: "Telefónica Móviles España S.A.U. is Telefónica Móviles España (Movistar): the same company with its full legal form",
  },
  {
    duplicate: "mo.china-telecom",
    survivor: "mo.china-telecom-limitada",
    reason:
      "China Telecom (Macau) Company Limited and China Telecom (Macau) Limitada are the English and Portuguese names of one company; its CDMA network 455-02 closed in 2010, its LTE network 455-07 runs",
  },
  // Found by comparing every pair of operators of one country (docs/catalog.md "Near-duplicates and
  // listings", with the candidates rejected and why).
  {
    duplicate: "us.t-mobile",
    survivor: "us.t-mobile-us",
    reason:
      "mcc-mnc-list's 'T-Mobile' rows (310-200…310-800: the regional VoiceStream, Powertel, Aerial, SunCom and iWireless networks T-Mobile USA, Inc. absorbed; 310-490 'Former Triton PCS, SunCom' runs) and its 'T-Mobile US' rows (310-160, 310-260 …) are one operator: T-Mobile USA, Inc., which since the MetroPCS combination of 1 May 2013 operates as T-Mobile US, Inc. (Deutsche Telekom / T-Mobile US press release and Form 8-K, 1 May 2013)",
  },
  {
    duplicate: "za.telkom",
    survivor: "za.telkom-soc",
    reason:
      "Telkom SA Ltd (655-05) is Telkom SA SOC Ltd (655-02, 655-03) under its name before the Companies Act 71 of 2008, which has a state-owned company's name end in 'SOC Ltd' (s. 11); the same registered company",
  },
  {
    duplicate: "au.singtel-optus-proprietary",
    survivor: "au.singtel-optus",
    reason: "Singtel Optus Proprietary Ltd (505-90) is Singtel Optus Pty Ltd (505-02): 'Pty Ltd' abbreviates 'Proprietary Limited' (Corporations Act 2001 s. 148)",
  },
  {
    duplicate: "us.rsa-1",
    survivor: "us.rsa1-partnership",
    reason: "RSA 1 LP (311-430) and RSA1 Limited Partnership (312-160) are one Iowa partnership, brand Chat Mobility: 'LP' abbreviates 'Limited Partnership'",
  },
  {
    duplicate: "us.standing-rock-telecom",
    survivor: "us.standing-rock-telecommunications",
    reason:
      "Standing Rock Telecom (313-930) is Standing Rock Telecommunications (311-640), the tribally owned carrier of the Standing Rock reservation (North and South Dakota), brand Rock Wireless: 'Telecom' abbreviates the name",
  },
  {
    duplicate: "es.vodafone-espana-s-a-u",
    survivor: "es.vodafone-spain",
    reason: "VODAFONE ESPAÑA, S.A.U. (214-24, Eroski Móvil's MNC, acquired by Vodafone in 2018) is Vodafone Spain (214-01, 214-06): the company's Spanish legal name and its English name",
  },
  {
    duplicate: "my.telekom-malaysia-berhad-for-pstn-sms",
    survivor: "my.telekom-malaysia",
    reason: "'Telekom Malaysia Berhad for PSTN SMS' (502-14) names Telekom Malaysia Bhd (502-01, 502-11) and the MNC's purpose: 'Bhd' abbreviates 'Berhad'",
  },
  {
    duplicate: "no.tele2",
    survivor: "no.mobile-norway",
    reason: "The row 'Tele2 (Mobile Norway AS)' (242-04) names its company, Mobile Norway AS (242-24): Tele2 was its brand; both MNCs withdrawn",
  },
  {
    duplicate: "fi.teliasonera-finland",
    survivor: "fi.telia-finland",
    reason:
      "TeliaSonera Finland Oyj (244-92, brand Sonera, withdrawn) is Telia Finland Oyj (244-91, 'Former Sonera'): the company renamed when TeliaSonera became Telia and Sonera's name was dropped in Finland (Yle, 'Sonera no more: name change effective immediately', March 2017)",
  },
];

const MERGED = new Map(OPERATOR_MERGES.map((m) => [m.duplicate, m.survivor]));

/** The id an operator id resolves to: the survivor for a merged duplicate, else itself. */
export const survivingOperatorId = (id: string): string => MERGED.get(id) ?? id;

/**
 * The operator ids an operator filter matches (docs/webhooks.md "Merged operator ids"): each id and,
 * for a merged duplicate, its survivor. The one rule of every filter on operator ids (listings,
 * /v1/changes, webhook subscriptions, listen sessions), applied when the filter is used, not when it
 * is saved: a merge can arrive with a later import than the filter, and a duplicate's own events from
 * before the merge still carry its id. A survivor's id does not match its duplicate's old records.
 * @example
 * operatorFilterIds(["es.xfera-moviles-s-a-u", "gb.ee"]) // ["es.xfera-moviles-s-a-u", "es.xfera-moviles", "gb.ee"]
 */
export const operatorFilterIds = (ids: Iterable<string>): string[] => [...new Set([...ids].flatMap((id) => [id, survivingOperatorId(id)]))];

/** An entry as the record's `successor_id` and `lineage`. */
export function lineageOf(entry: LineageEntry): { successor_id: string | null; lineage: OperatorLineage } {
  return {
    successor_id: entry.successor,
    lineage: {
      date: entry.date,
      reason: entry.reason,
      reference: entry.reference,
      successors: entry.successors?.map((s) => ({ operator_id: s.operator, prefixes: [...s.prefixes] })) ?? null,
    },
  };
}

/**
 * The successor an operator's lineage names for a number: `successor_id`, or for a split the
 * successor whose prefixes start the number (digits, calling code first). Null when there is none.
 */
export function successorFor(operator: Operator, digits?: string): string | null {
  if (operator.successor_id) return operator.successor_id;
  if (!digits || !operator.lineage?.successors) return null;
  return operator.lineage.successors.find((s) => s.prefixes.some((p) => digits.startsWith(p)))?.operator_id ?? null;
}

/**
 * The end of an operator's lineage: itself when it has no successor (or a successor unknown to the
 * data). `digits` (the number or range prefix, calling code first) chooses among a split's successors;
 * without it a split operator is its own end.
 */
export function currentOperator(operators: ReadonlyMap<string, Operator>, operator: Operator, digits?: string): Operator {
  let current = operator;
  const seen = new Set<string>([operator.id]);
  for (;;) {
    const id = successorFor(current, digits);
    const next = id ? operators.get(id) : undefined;
    if (!next || seen.has(next.id)) return current;
    seen.add(next.id);
    current = next;
  }
}
