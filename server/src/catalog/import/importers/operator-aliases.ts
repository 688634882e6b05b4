/**
 * Range holders whose name in libphonenumber's carrier data does not match the operator's name or
 * brand in mcc-mnc-list, linked by hand (docs/catalog.md "Linking ranges to operators"). Every entry is
 * the same operator under another name: a rename, a rebrand, a merger into the listed company, an
 * abbreviation, a truncated name, or a brand several of the country's records share where one runs
 * the network. A holder that was only bought by another group and kept running separately, or whose
 * successor is not certain, stays unlinked: a wrong link is worse than none.
 *
 * `holder` is compared as the importer compares names (names.ts linkKey); `operator` is the operator id
 * the reference importer derives. reference.test.ts checks that every target exists and every entry
 * links at least one range, so a package update that renames either side shows up as a failing test.
 */
export interface OperatorAlias {
  country: string;
  holder: string;
  operator: string;
  /** Why this holder is that operator. */
  why: string;
  /**
   * The holder's network when the reference data names it (a row whose note says "former <holder>"):
   * stored as the ranges' network_id, so their numbers get that network rather than none.
   */
  network?: string;
}

export const OPERATOR_ALIASES: readonly OperatorAlias[] = [
  // India: mcc-mnc-list names operators by brand (Vi India, Jio, Uninor …).
  { country: "IN", holder: "Idea", operator: "in.vi-india", why: "Idea Cellular merged with Vodafone India in 2018 (the company renamed Vodafone Idea Ltd), brand Vi since 2020" },
  { country: "IN", holder: "Vodafone", operator: "in.vi-india", why: "Vodafone India merged into Vodafone Idea Ltd in 2018, brand Vi since 2020" },
  { country: "IN", holder: "Reliance Jio", operator: "in.jio", why: "Reliance Jio Infocomm, brand Jio; the word 'Reliance' alone is Reliance Communications, another operator, so the name matches two" },
  { country: "IN", holder: "Telewings", operator: "in.uninor", why: "Telewings Communications was the company behind the Uninor brand (Telenor India)" },
  { country: "IN", holder: "Telenor", operator: "in.uninor", why: "Uninor was renamed Telenor India in 2015-16; mcc-mnc-list keeps the brand Uninor" },
  // Chile: the carrier data names companies, mcc-mnc-list names brands or other group companies.
  { country: "CL", holder: "Compania De Telecomunicaciones De Chile S.A.", operator: "cl.telefonica-movil-chile", why: "Compañía de Telecomunicaciones de Chile (CTC) is Telefónica Chile's legal name; its mobile numbers are Movistar's, listed as Telefónica Móvil de Chile" },
  { country: "CL", holder: "Claro", operator: "cl.claro-chile-s-a", why: "Claro Chile S.A. runs the Claro network (730-03); Claro Servicios Empresariales (730-23, no network in service) also contains the word" },
  { country: "CL", holder: "Telefonica Del Sur S.A.", operator: "cl.blue-two-chile-s-a", why: "Telsur is Telefónica del Sur's brand; its mobile network (730-06, brand Telsur) is run by its subsidiary Blue Two Chile" },
  // Brazil
  { country: "BR", holder: "Telemig Celular", operator: "br.telefonica-brasil-s-a", why: "Telemig Celular was bought by Vivo in 2007-08 and merged into it; Vivo is Telefônica Brasil" },
  // Thailand: the acronyms name the parent company; a subsidiary uses the same brand.
  { country: "TH", holder: "AIS", operator: "th.advanced-info-service", why: "AIS is Advanced Info Service; its subsidiary Advanced Wireless Network uses the same brand" },
  { country: "TH", holder: "DTAC", operator: "th.total-access-public", why: "DTAC is Total Access Communication; its subsidiary DTAC TriNet uses the same brand" },
  { country: "TH", holder: "TOT Mobile", operator: "th.national-telecom-public", why: "TOT merged with CAT Telecom into National Telecom (NT) in 2021" },
  // Kiribati
  { country: "KI", holder: "ATHKL", operator: "ki.amalgamated-telecom-kiribati", why: "the initials of Amalgamated Telecom Holdings Kiribati Limited" },
  // Colombia
  { country: "CO", holder: "Tigo", operator: "co.colombia-movil-s-a-esp", why: "Colombia Móvil runs the Tigo mobile network (732-103, 732-111); UNE EPM, the group's fixed-line company, shares the brand" },
  // United Kingdom
  { country: "GB", holder: "Three", operator: "gb.hutchison-3g-uk", why: "Three UK is Hutchison 3G UK; mcc-mnc-list writes the brand as '3'" },
  { country: "GB", holder: "Orange", operator: "gb.ee", why: "Orange UK and T-Mobile UK merged into Everything Everywhere, renamed EE in 2012" },
  // Sweden: the carrier data cuts names at 20 characters.
  { country: "SE", holder: "MERCURY INTERNATIONA", operator: "se.mercury-international-carrier-services", why: "Mercury International Carrier Services, name cut at 20 characters" },
  { country: "SE", holder: "FINK TELECOM SERVIC", operator: "se.fink-telecom-services", why: "Fink Telecom Services, name cut at 20 characters" },
  { country: "SE", holder: "TeliaSonera", operator: "se.telia-sverige", why: "TeliaSonera Sverige was renamed Telia Sverige in 2016" },
  // Hungary
  { country: "HU", holder: "One", operator: "hu.vodafone-magyarorszag", why: "Vodafone Magyarország was renamed One Hungary in 2023" },
  // Guatemala
  { country: "GT", holder: "Telgua", operator: "gt.telecomunicaciones-guatemala-s-a", why: "TELGUA is the short name of Telecomunicaciones de Guatemala (brand Claro)" },
  // Nicaragua
  { country: "NI", holder: "Movistar", operator: "ni.telefonia-celular-nicaragua-s-a", why: "Telefonía Celular de Nicaragua was Movistar Nicaragua; Millicom bought it in 2019 and renamed the brand Tigo" },
  // Georgia
  // Guyana
  { country: "GY", holder: "GTT", operator: "gy.guyana-telephone-telegraph", why: "Guyana Telephone & Telegraph (GT&T) rebranded as GTT in 2019" },
  // Slovakia
  { country: "SK", holder: "T-Mobile (Slovak Telekom)", operator: "sk.slovak-telekom", why: "T-Mobile Slovensko merged into Slovak Telekom in 2010, as the holder name says" },
  // Australia
  { country: "AU", holder: "Vodafone", operator: "au.vodafone-hutchison-australia", why: "Vodafone Hutchison Australia runs the Vodafone network (505-03); Vodafone Network Pty Ltd is its subsidiary" },
  // Greece
  { country: "GR", holder: "Wind", operator: "gr.nova", why: "Wind Hellas was renamed Nova in 2022 (its networks 202-09/10 are listed as NOVA)" },
  // Dominican Republic
  { country: "DO", holder: "Tricom", operator: "do.altice", why: "Tricom was merged with Orange Dominicana into Altice Dominicana in 2017" },
  // Cambodia
  { country: "KH", holder: "Cellcard", operator: "kh.camgsm-royal", why: "CamGSM is the Cellcard company (456-01); its owner The Royal Group is listed again for 456-18 with the same brand" },
  // Faroe Islands
  { country: "FO", holder: "Faroese Telecom", operator: "fo.f-roya-tele", why: "the English name of Føroya Tele" },
  // North Macedonia
  { country: "MK", holder: "T-Mobile", operator: "mk.makedonski-telekom", why: "T-Mobile Macedonia merged into Makedonski Telekom in 2015" },
  // Austria
  { country: "AT", holder: "Three", operator: "at.hutchison-drei-austria", why: "Drei ('three') is Hutchison Drei Austria; mcc-mnc-list writes the brand as '3'" },
  { country: "AT", holder: "T-Mobile AT", operator: "at.t-mobile-austria", why: "T-Mobile Austria, brand Magenta since 2019" },
  { country: "AT", holder: "A1 TA", operator: "at.a1-telekom-austria", why: "A1 Telekom Austria's initials" },
  // New Caledonia
  { country: "NC", holder: "OPT-NC", operator: "nc.opt-new-caledonia", why: "OPT-NC is the Office des Postes et Télécommunications de Nouvelle-Calédonie (OPT New Caledonia)" },
  // Mali
  { country: "ML", holder: "Sotelma", operator: "ml.malitel", why: "Malitel is Sotelma's mobile service (Sotelma-Malitel)" },
  // Tonga
  { country: "TO", holder: "U-Call Tonga", operator: "to.tonga", why: "U-Call is the brand of Tonga Communications Corporation; 'Tonga' alone would also match Digicel (Tonga)" },
  // Germany
  { country: "DE", holder: "Eplus", operator: "de.telefonica-germany-ohg", why: "E-Plus was merged into Telefónica Germany in 2014" },
  // Bulgaria
  { country: "BG", holder: "Telenor", operator: "bg.yettel-bulgaria", why: "Telenor Bulgaria was renamed Yettel in 2022" },
  // Armenia
  { country: "AM", holder: "Team Telecom Armenia", operator: "am.veon-armenia", why: "Veon Armenia (Beeline) was renamed Team Telecom Armenia in 2022" },
  // South Africa
  { country: "ZA", holder: "Telkom Mobile", operator: "za.telkom-soc", why: "Telkom's mobile service; Telkom SA Ltd, the same company under its earlier name, is listed too, so the name matches two" },
  // Jamaica
  { country: "JM", holder: "Flow", operator: "jm.cable-wireless", why: "FLOW is Cable & Wireless Jamaica's brand; LIME (not operational) was its earlier brand and is listed with FLOW too" },
  // Certain links the name rules miss (issue 19).
  { country: "DE", holder: "T-Mobile", operator: "de.telekom-deutschland", why: "T-Mobile Deutschland was renamed Telekom Deutschland in 2010; its +49 151/160/170/171/175 prefixes are 262-01", network: "262-01" },
  // Checked against mcc-mnc-list's own rows (issue 19): the row's notes name the former holder.
  { country: "FR", holder: "Euroinformation Telecom", operator: "fr.bouygues-telecom-distribution", why: "mcc-mnc-list 208-26 'Bouygues Telecom - Distribution' (brand NRJ Mobile), note 'Former Euro-Information Telecom': Bouygues Telecom bought EI Telecom from Crédit Mutuel", network: "208-26" },
  { country: "GT", holder: "Movistar", operator: "gt.telecomunicaciones-guatemala-s-a", why: "mcc-mnc-list 704-03 'Claro, Telecomunicaciones de Guatemala', note 'former Movistar': América Móvil bought Telefónica Guatemala in 2019", network: "704-03" },
  { country: "PA", holder: "Telefónica Móviles", operator: "pa.grupo-comunicaciones-digitales-s-a", why: "mcc-mnc-list 714-02 'Tigo, Grupo de Comunicaciones Digitales', note 'Former Movistar': Millicom bought Telefónica Panamá in 2019" },
  { country: "NI", holder: "Claro", operator: "ni.empresa-nicaraguense-telecomunicaciones-s-a", why: "Claro Nicaragua is ENITEL (710-21, América Móvil); mcc-mnc-list 710-73's note says SERCOM merged with ENITEL in 2004 and became Claro in 2009, so the brand matched both records" },
  { country: "SE", holder: "Beepsend", operator: "se.twilio-sweden", why: "mcc-mnc-list 240-26 'Twilio Sweden AB', note 'Former Beepsend AB': Twilio bought Beepsend in 2018", network: "240-26" },
  { country: "DK", holder: "cbb mobil", operator: "dk.telenor-denmark", why: "cbb mobil is a brand of Telenor Denmark (bought by Sonofon in 2002; Sonofon was renamed Telenor in 2009); mcc-mnc-list names no cbb row, Telenor Denmark is 238-02" },
  // Renamed or taken over, each named in the successor's own mcc-mnc-list row ("Former <holder>") AND a
  // documented corporate event: a note alone can mean an MNC handed to another company (Belgium's
  // 206-09 "Proximus SA, Former Voxbone": Bandwidth, not Proximus, bought Voxbone), so it is not enough.
  { country: "BY", holder: "Velcom", operator: "by.a1-belarus", why: "mcc-mnc-list 257-01 'A1 Belarus', note 'Former velcom': Telekom Austria's velcom was renamed A1 in 2019", network: "257-01" },
  { country: "BH", holder: "VIVA", operator: "bh.stc-bahrain", why: "mcc-mnc-list 426-04 'Stc Bahrain', note 'Former VIVA': STC's VIVA Bahrain was rebranded stc in 2019", network: "426-04" },
  { country: "KW", holder: "VIVA", operator: "kw.saudi-telecom", why: "mcc-mnc-list 419-04 'STC, Saudi Telecom Company' (Kuwait), note 'Former VIVA': STC's VIVA Kuwait was rebranded stc in 2019", network: "419-04" },
  { country: "DO", holder: "Orange", operator: "do.altice", why: "mcc-mnc-list 370-01 'Altice Group', note 'Former Orange Dominicana': Altice bought Orange Dominicana in 2014 and rebranded it Altice in 2017", network: "370-01" },
  { country: "CK", holder: "Bluesky", operator: "ck.telecom-cook-islands", why: "mcc-mnc-list 548-01 'Vodafone, Telecom Cook Islands', note 'Former Bluesky': Bluesky Cook Islands was rebranded Vodafone in 2017", network: "548-01" },
  { country: "FI", holder: "AMT", operator: "fi.alands-telekommunikation", why: "mcc-mnc-list 244-14 'Ålcom, Ålands Telekommunikation', note 'Former Ålands Mobiltelefon (ÅMT)': ÅMT merged into Ålands Telekommunikation (Ålcom)", network: "244-14" },
  { country: "FR", holder: "Completel", operator: "fr.altice", why: "mcc-mnc-list 208-08 'SFR, Altice', note 'Former Completel': Numericable bought Completel (2007) and merged with SFR (Numericable-SFR, Altice) in 2014", network: "208-08" },
  { country: "GL", holder: "TELE Greenland A/S", operator: "gl.tusass-a-s", why: "mcc-mnc-list 290-01 'tusass, Tusass A/S', note 'Former TELE Greenland': TELE Greenland A/S was renamed Tusass in 2021", network: "290-01" },
  { country: "RS", holder: "Telenor", operator: "rs.telenor-serbia", why: "mcc-mnc-list 220-01 'Yettel, Telenor Serbia', note 'Former Telenor': Telenor Serbia was rebranded Yettel in 2022; the other 'Telenor' row (220-02, Telenor Montenegro) moved to Montenegro's MCC 297 in 2011, so Serbia's numbers are Telenor Serbia's", network: "220-01" },
  { country: "IE", holder: "Virgin Media", operator: "ie.upc", why: "mcc-mnc-list 272-15 'Virgin Mobile, UPC', note 'Former upc': UPC Ireland was renamed Virgin Media Ireland in 2015", network: "272-15" },
  { country: "FO", holder: "Vodafone", operator: "fo.nema", why: "mcc-mnc-list 288-02 'Nema', note 'Former Kall, Vodafone, Hey': Vodafone Faroe Islands was renamed Hey (2017), then Nema", network: "288-02" },
  { country: "HR", holder: "Tele2", operator: "hr.telemach", why: "mcc-mnc-list 219-02 'Telemach', note 'Former Tele2': United Group bought Tele2 Croatia in 2020 and renamed it Telemach", network: "219-02" },
  { country: "IT", holder: "3 Italia", operator: "it.wind-tre", why: "mcc-mnc-list 222-99 'WINDTRE, Wind Tre', note 'Former 3 Italia': H3G Italy and Wind merged into Wind Tre in 2016", network: "222-99" },
  { country: "CY", holder: "MTN", operator: "cy.monaco-telecom", why: "mcc-mnc-list 280-10 'Epic, Monaco Telecom', note 'Former MTN': Monaco Telecom bought MTN Cyprus in 2019 and rebranded it Epic", network: "280-10" },
  { country: "IE", holder: "Meteor", operator: "ie.eir", why: "mcc-mnc-list 272-03 'Eir, Eir Group', note 'Former Meteor': eir's mobile brand Meteor was merged into eir in 2017", network: "272-03" },
  { country: "IE", holder: "eMobile", operator: "ie.eir", why: "mcc-mnc-list 272-07 'Eir, Eir Group', note 'Former eMobile': eircom's eMobile, folded into Meteor and then eir", network: "272-07" },
  { country: "IL", holder: "Orange", operator: "il.partner", why: "mcc-mnc-list 425-01 and 425-10 'Partner Communications', notes 'Former Orange (until 2016)': Partner ran the Orange brand in Israel until 2016" },
  { country: "NO", holder: "NetCom", operator: "no.telia-norge", why: "mcc-mnc-list 242-02 'Telia Norge AS', note 'Former NetCom': NetCom was renamed Telia Norge in 2016", network: "242-02" },
  { country: "RW", holder: "TIGO", operator: "rw.airtel-rwanda", why: "mcc-mnc-list 635-13 'Airtel RWANDA', note 'Former Tigo' (635-14: 'Merged with Tigo'): Airtel bought Millicom's Tigo Rwanda in 2017-18", network: "635-13" },
  { country: "SB", holder: "Solomon Telekom", operator: "sb.our-telekom", why: "mcc-mnc-list 540-01 'BREEZE, Our Telekom', note 'Former Solomon Telekom Co Ltd': the company renamed itself Our Telekom", network: "540-01" },
  { country: "YE", holder: "MTN", operator: "ye.yemen-oman-united-telecom", why: "mcc-mnc-list 421-02 'YOU, Yemen Oman United Telecom', note 'Former Spacetel, MTN': MTN Yemen was sold and renamed YOU in 2021", network: "421-02" },
  { country: "LA", holder: "Beeline", operator: "la.tplus-digital-sole", why: "mcc-mnc-list 457-08 'TPLUS Digital', note 'Former Millicom (Tigo), VimpelCom (Beeline)': VEON sold Beeline Laos to the Lao government, which renamed it TPLUS", network: "457-08" },
  { country: "LK", holder: "Etisalat", operator: "lk.hutchison-telecommunications-lanka", why: "mcc-mnc-list 413-03 'Hutchison Telecommunications Lanka', note 'Former Etisalat; MNC withdrawn': Hutchison merged Etisalat Lanka into Hutch in 2018 (its network 413-03 is closed)" },
  { country: "ES", holder: "Lycamobile", operator: "es.xfera-moviles", why: "mcc-mnc-list 214-25 'Xfera Moviles S.A.U.' (folded into Xfera Móviles), note 'Former Lycamobile': MásMóvil (Yoigo's owner) bought Lycamobile Spain in 2020, approved by the CNMC on 28 May 2020; 214-25's status is unknown, so no network is named" },
  { country: "ES", holder: "Vodafone", operator: "es.vodafone-spain", why: "The holder matches by name; the entry names its network. Vodafone Spain's own subscribers are on 214-01 (214-06 serves resellers such as Lowi; 214-24, VODAFONE ESPAÑA, S.A.U.'s row folded into Vodafone Spain (operator-lineage.ts OPERATOR_MERGES), is Eroski Móvil's former MNC, used by MVNOs): with three differently named operational networks the rule of one name no longer picks 214-01, the operator's primary network", network: "214-01" },
  // Abbreviations, initials and renames of the same company (no note needed: the name says it).
  { country: "JM", holder: "C&W", operator: "jm.cable-wireless", why: "C&W is the usual abbreviation of Cable & Wireless (Jamaica), brand FLOW" },
  { country: "GD", holder: "C&W", operator: "gd.cable-wireless-grenada", why: "C&W is the usual abbreviation of Cable & Wireless (Grenada), brand FLOW (352-110)", network: "352-110" },
  { country: "SC", holder: "CWS", operator: "sc.cable-wireless-seychelles", why: "CWS is the initials of Cable & Wireless Seychelles (633-01)", network: "633-01" },
  { country: "BW", holder: "BTC Mobile", operator: "bw.botswana-telecommunications", why: "BTC is the initials of Botswana Telecommunications Corporation; its mobile network is 652-04 (brand beMobile)", network: "652-04" },
  { country: "CU", holder: "etecsa", operator: "cu.empresa-telecomunicaciones-cuba", why: "ETECSA is the initials of Empresa de Telecomunicaciones de Cuba S.A. (Cubacel, 368-01), Cuba's only mobile operator", network: "368-01" },
  { country: "PM", holder: "SPM Telecom", operator: "pm.st-pierre-et-miquelon-telecom", why: "SPM is the initials of Saint-Pierre-et-Miquelon: SPM Telecom is St. Pierre-et-Miquelon Télécom (brand Ameris)" },
  { country: "HR", holder: "A1 Telekom", operator: "hr.a1-hrvatska", why: "A1 Telekom Austria's Croatian company is A1 Hrvatska (219-10, brand A1 HR, note 'Former Vipnet'), the only A1 in Croatia", network: "219-10" },
  { country: "SZ", holder: "Swazi MTN", operator: "sz.mtn-eswatini", why: "Swaziland was renamed Eswatini in 2018 and MTN Swaziland with it: MTN Eswatini Limited (653-10)", network: "653-10" },
  { country: "PK", holder: "Jazz", operator: "pk.mobilink-pmcl", why: "Jazz is the brand of Mobilink (PMCL, 410-01, note 'Former Mobilink'); Warid (410-07, 'Former Warid Pakistan') merged into Mobilink in 2016-17 under the same brand, so the brand matched both records" },
  { country: "NE", holder: "Niger Telecoms", operator: "ne.la-societe-sahelienne-telecommunications", why: "Niger Telecoms was formed on 26 September 2016 by merging Sonitel with its mobile subsidiary SahelCom (614-01) (Agence Ecofin, 3 October 2016; Reuters, 29 September 2016)", network: "614-01" },
  { country: "TZ", holder: "Yas", operator: "tz.mic-tanzania", why: "MIC Tanzania's brand Tigo (640-02, brand tiGO) was renamed Yas on 26 November 2024 by its owner Axian (Mwananchi, 26 November 2024)", network: "640-02" },
  { country: "MG", holder: "Yas", operator: "mg.telma-mobile-s-a", why: "Axian renamed its operators Yas in 2024, Madagascar's among them (Mwananchi, 26 November 2024); Axian's Madagascar mobile operator is Telma (646-04)", network: "646-04" },
  { country: "GH", holder: "Telecel", operator: "gh.vodafone", why: "Telecel Group bought 70 % of Vodafone Ghana (620-02) in February 2023 and renamed it Telecel Ghana in March 2024 (GNA, 21 February 2023; Graphic Online, March 2024)", network: "620-02" },
  // Caribbean Netherlands and Curaçao: Chippie was the mobile brand of UTS (United Telecommunication Services).
  { country: "CW", holder: "Chippie", operator: "bq.liberty-latin-america", why: "Chippie was UTS's mobile brand in Curaçao (CommsUpdate, 12 February 2015: 'UTS/Chippie Curacao'); Liberty Latin America bought control of UTS in 2019 and runs it as FLOW: mcc-mnc-list 362-91 'FLOW, Liberty Latin America', note 'Curaçao; former Setel N.V., UTS'", network: "362-91" },
  { country: "BQ", holder: "Chippie", operator: "bq.liberty-latin-america", why: "Chippie Bonaire, St Eustatius and Saba were UTS's mobile subsidiaries (CommsUpdate, 12 February 2015); Liberty Latin America bought control of UTS in 2019: mcc-mnc-list 362-60 'FLOW, Liberty Latin America', note 'Bonaire, Saba, Sint Eustatius, Sint Maarten; former Radcomm N.V., UTS'", network: "362-60" },
  // Puerto Rico: SunCom's PR business became T-Mobile Puerto Rico, which mcc-mnc-list lists as T-Mobile US
  // under PR (310-260); T-Mobile US stays a US operator with PR among its territories.
  { country: "PR", holder: "SunCom Wireless Puerto Rico", operator: "us.t-mobile-us", why: "T-Mobile USA completed its acquisition of SunCom Wireless (Carolinas, Georgia, Tennessee, Puerto Rico, USVI) on 22 February 2008 and rebranded it T-Mobile in September 2008 (T-Mobile/SunCom press release; CommsUpdate 8 Sep 2008); mcc-mnc-list 310-490 'T-Mobile', note 'Former Triton PCS, SunCom', and T-Mobile's Puerto Rico row 310-260 'T-Mobile US', operational. No network named: no row says which PLMN SunCom's Puerto Rico numbers used" },
  { country: "RU", holder: "Beeline", operator: "ru.vimpel", why: "Beeline is VimpelCom's brand; mcc-mnc-list keeps a not-operational duplicate 'Beeline' record (250-28) beside the active Vimpel-Communications (250-99)" },
];
