import type { RegisterFamilyId } from "../national-registers.ts";

/**
 * Register holders that are certainly an operator of the reference data (docs/catalog.md "National
 * registers"): the regulator names the company by its identifier in the register (CNAC's OCN, the
 * Russian register's INN, Ofcom's provider name); each entry says why that company runs the catalogue
 * operator's mobile network. Only the company running the network: a wireline affiliate of the same
 * group (Bell Canada, TELUS's incumbent OCNs) stays unlinked and becomes an operator record of its own,
 * as does every holder not listed here. A wrong link is worse than none.
 *
 * ARCEP's operator codes need no entry: MAJMNC, the regulator's own list of MNC assignments, says which
 * code holds which French MNC, and a code is linked to the operator whose networks those are
 * (register-records.ts).
 */
export interface RegisterOperatorLink {
  family: RegisterFamilyId;
  /** The holder's identifier in the register (for Ofcom, which has none, the provider's name). */
  holder: string;
  operator: string;
  reason: string;
}

export const REGISTER_OPERATOR_LINKS: readonly RegisterOperatorLink[] = [
  // CNAC: the wireless companies' own OCNs (the same companies NANPA's reports name, nanpa-operators.ts).
  { family: "ca-cnac", holder: "6574", operator: "ca.bell-mobility", reason: "Bell Mobility, Bell's wireless company (302-610/640/690)" },
  { family: "ca-cnac", holder: "8821", operator: "ca.rogers", reason: "Rogers Communications Canada Inc. (Wireless), Rogers Wireless (302-720)" },
  { family: "ca-cnac", holder: "8301", operator: "ca.telus-mobility", reason: "TELUS Mobility, TELUS's wireless company (302-220)" },
  { family: "ca-cnac", holder: "8303", operator: "ca.telus-mobility", reason: "TELUS Mobility (a second OCN of the same company)" },
  { family: "ca-cnac", holder: "5643", operator: "ca.fido-solutions", reason: "Fido Solutions Inc., Rogers' Fido brand's company (302-370)" },
  { family: "ca-cnac", holder: "8306", operator: "ca.videotron", reason: "Videotron Ltd., Videotron's wireless network (302-500/510/520)" },
  // The Russian register: the holder's INN is the company's tax number.
  { family: "ru-rossvyaz", holder: "7740000076", operator: "ru.mobile-telesystems", reason: "ПАО «МТС», INN 7740000076: Mobile TeleSystems (MTS, 250-01)" },
  { family: "ru-rossvyaz", holder: "7812014560", operator: "ru.megafon", reason: "ПАО «МегаФон», INN 7812014560: MegaFon (250-02)" },
  { family: "ru-rossvyaz", holder: "7713076301", operator: "ru.vimpel", reason: "ПАО «ВымпелКом», INN 7713076301: Vimpel-Communications, Beeline (250-99)" },
  { family: "ru-rossvyaz", holder: "7743895280", operator: "ru.tele2", reason: "ООО «Т2 Мобайл», INN 7743895280: Tele2 Russia's operating company (250-20)" },
  { family: "ru-rossvyaz", holder: "7701725181", operator: "ru.scartel", reason: "ООО «Скартел», INN 7701725181: Scartel, Yota (250-11)" },
  { family: "ru-rossvyaz", holder: "7736264044", operator: "ru.sberbank-telecom", reason: "ООО «Сбербанк-Телеком», INN 7736264044: Sberbank-Telecom, SberMobile (250-50)" },
  { family: "ru-rossvyaz", holder: "2308210371", operator: "ru.k-telecom", reason: "ООО «К-Телеком», INN 2308210371: K-Telecom, +7Telecom (250-32)" },
  { family: "ru-rossvyaz", holder: "7841482919", operator: "ru.miatel", reason: "ООО «МиАТел», INN 7841482919: Miatel (250-16)" },
  { family: "ru-rossvyaz", holder: "7707049388", operator: "ru.rostelecom", reason: "ПАО «Ростелеком», INN 7707049388: Rostelecom (250-39)" },
  // Ofcom: the provider's name as Ofcom writes it.
  { family: "gb-ofcom", holder: "Telefonica UK Limited", operator: "gb.telefonica-europe", reason: "Telefónica UK, O2 (234-10)" },
  { family: "gb-ofcom", holder: "Vodafone Limited", operator: "gb.vodafone", reason: "Vodafone UK (234-15)" },
  { family: "gb-ofcom", holder: "Hutchison 3G UK Ltd", operator: "gb.hutchison-3g-uk", reason: "Three UK (234-20)" },
  { family: "gb-ofcom", holder: "EE Limited ( TM)", operator: "gb.ee", reason: "EE, its T-Mobile UK numbers (234-30)" },
  { family: "gb-ofcom", holder: "EE Limited (Orange)", operator: "gb.ee", reason: "EE, its Orange UK numbers (234-33)" },
  { family: "gb-ofcom", holder: "Lycamobile (UK) Limited", operator: "gb.lycamobile-uk", reason: "Lycamobile UK (234-26)" },
  { family: "gb-ofcom", holder: "Sure (Guernsey) Limited", operator: "gb.sure", reason: "Sure (Guernsey) (234-55)" },
  { family: "gb-ofcom", holder: "FleXtel Limited", operator: "gb.flextel", reason: "FleXtel (234-17)" },
];
