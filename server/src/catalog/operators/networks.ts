import type { Network } from "../../contract/catalog.ts";

/**
 * The one network a linked number gets (docs/catalog.md "The number's network"). libphonenumber's
 * carrier data names a holder, not a PLMN, so the network is chosen by rule, first match wins:
 *
 * 1. the range's own network (an IR.21 document names it);
 * 2. when the holder runs no operational network and its lineage names a current operator, that
 *    operator's network by rules 3-4 (Oi's numbers in DDD 11 are served by TIM's network, not by Oi's
 *    closed 724-31);
 * 3. the holder's only operational network, else its only operational network in the number's country;
 * 4. the holder's only network, whatever its status (the reference data leaves many statuses blank);
 * 5. several operational networks in the country that all carry one name, the same network under
 *    several MNCs (TIM Brasil's 724-02/03/04, Vivo's 724-06/10/11/23): the lowest MCC-MNC, the one
 *    `primary_network` names. Not where MNCs are licence areas (India's telecom circles: Vi India has a
 *    network per circle, and which circle a number belongs to is not in the data).
 *
 * Otherwise null: several differently named operational networks (a mobile and an IoT network …)
 * give no way to tell which one a range uses; `networks` lists them and `primary_network` picks one.
 */
export function networkOfNumber(input: {
  /** The range's own network, when the range names one. */
  rangeNetwork: Network | null;
  /** Every network of the range's operator. */
  networks: readonly Network[];
  /** Every network of the current operator (lineage), when it differs from the range's operator. */
  currentNetworks?: readonly Network[];
  /** The number's country. */
  country: string | null;
}): Network | null {
  if (input.rangeNetwork) return input.rangeNetwork;
  const runs = input.networks.some(isOperational);
  if (!runs && input.currentNetworks?.length) {
    const successor = soleNetwork(input.currentNetworks, input.country);
    if (successor) return successor;
  }
  return soleNetwork(input.networks, input.country);
}

const isOperational = (network: Network) => network.status === "operational";

function soleNetwork(networks: readonly Network[], country: string | null): Network | null {
  const operational = networks.filter(isOperational);
  if (operational.length === 1) return operational[0]!;
  const inCountry = operational.filter((n) => n.country_iso2 === country);
  if (inCountry.length === 1) return inCountry[0]!;
  if (networks.length === 1) return networks[0]!;
  if (inCountry.length > 1 && country && !LICENCE_AREA_COUNTRIES.has(country) && new Set(inCountry.map((n) => n.name)).size === 1) {
    return [...inCountry].sort((a, b) => a.mcc.localeCompare(b.mcc) || a.mnc.localeCompare(b.mnc))[0]!;
  }
  return null;
}

/** Countries whose MNCs are licence areas (India's telecom circles; reference.ts BRAND_IS_OPERATOR). */
const LICENCE_AREA_COUNTRIES = new Set(["IN"]);
