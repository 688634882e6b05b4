import type { RegisterId, RegisterInfo } from "./types.ts";

const info = (id: RegisterId, country: string | null, publisher: string, title: string, encoding: RegisterInfo["encoding"], dateFrom: RegisterInfo["dateFrom"]): RegisterInfo => ({
  id,
  country,
  publisher,
  title,
  encoding,
  dateFrom,
});

const ofcom = (series: 3 | 5 | 7 | 8 | 9, what: string) =>
  info(`gb-ofcom-s${series}`, "GB", "Ofcom", `National Numbering Scheme, S${series}: 0${series} numbers (${what})`, "utf-8", "caller");
const arcep = (id: RegisterId, title: string, dateFrom: RegisterInfo["dateFrom"] = "latest_row_date") => info(id, "FR", "ARCEP", title, "windows-1252", dateFrom);

/** Every register the module reads (docs/registers.md has a section per register). */
export const REGISTERS: Readonly<Record<RegisterId, RegisterInfo>> = {
  "ca-cnac-co-codes": info("ca-cnac-co-codes", "CA", "CNAC (Canadian Numbering Administrator)", "Central office code status, every Canadian NPA-NXX (COCodeStatus_ALL)", "utf-8", "file"),
  "us-nanpa-npa": info("us-nanpa-npa", "US", "NANPA (North American Numbering Plan Administrator)", "Area code (NPA) report (npa_report.csv)", "utf-8", "file"),
  "gb-ofcom-s3": ofcom(3, "UK-wide"),
  "gb-ofcom-s5": ofcom(5, "corporate and VoIP"),
  "gb-ofcom-s7": ofcom(7, "mobile, personal and pager"),
  "gb-ofcom-s8": ofcom(8, "freephone and special services"),
  "gb-ofcom-s9": ofcom(9, "premium rate"),
  "ru-rossvyaz-def": info("ru-rossvyaz-def", "RU", "Rossvyaz / Ministry of Digital Development (Минцифры России)", "Register of the numbering resource (DEF-9xx; the ABC files share the layout)", "utf-8", "caller"),
  "fr-arcep-majnum": arcep("fr-arcep-majnum", "Number blocks and their operators (MAJNUM)"),
  "fr-arcep-majnfb": arcep("fr-arcep-majnfb", "Short numbers for emergency and public-interest services (MAJNFB)"),
  "fr-arcep-gelnum": arcep("fr-arcep-gelnum", "Frozen resources and the dates they reopen (GELNUM)", "caller"),
  "fr-arcep-majrio": arcep("fr-arcep-majrio", "RIO operator codes (MAJRIO)"),
  "fr-arcep-majmnc": arcep("fr-arcep-majmnc", "MCC-MNC codes (MAJMNC)"),
  "fr-arcep-majporta": arcep("fr-arcep-majporta", "Routing prefixes of ported numbers (MAJPORTA)"),
  "fr-arcep-majcpsn": arcep("fr-arcep-majcpsn", "National signalling point codes (MAJCPSN)"),
  "fr-arcep-majcpsi": arcep("fr-arcep-majcpsi", "International signalling point codes (MAJCPSI)"),
  "fr-arcep-majr1r2": arcep("fr-arcep-majr1r2", "Network identification codes R1R2 (MAJR1R2)"),
  "fr-arcep-majsdt": arcep("fr-arcep-majsdt", "Carrier selection prefixes (MAJSDT)"),
  "intl-mcc-mnc-list": info("intl-mcc-mnc-list", null, "mcc-mnc-list (community, from Wikipedia's Mobile country code pages)", "MCC/MNC list in the mcc-mnc-list package's JSON shape", "utf-8", "caller"),
  "intl-itu-e212": info("intl-itu-e212", null, "ITU (Operational Bulletin annex, converted to JSON)", "ITU E.212 list of mobile network codes", "utf-8", "caller"),
};
