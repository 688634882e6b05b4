import type { Network } from "../contract/catalog.ts";

/**
 * The one network a linked number gets (docs/catalog.md "The number's network"). libphonenumber's
 * carrier data names a holder, not a PLMN, so the network is chosen by rule, first match wins:
 *
 * 1. the range's own network (an IR.21 document names it);
 * 2. when the holder runs no operational network and its lineage names a current operator, that
 *    operator's network by rules 3-4 (Oi's numbers in DDD 11 are served by TIM's network, not by Oi's
 *    closed 724-31);
 * 3. the holder's only operational network, else its only operational network in the number's country;
 * 4. the holder's only network, whatever its status (the reference data leaves many statuses blank).
 *
 * Otherwise null: an operator with several operational networks in the country (China Mobile's
 * 460-00, 460-02, 460-07 …) gives no way to tell which one a range uses; `networks` lists them all and
 * `primary_network` picks one by its own documented rule.
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
  return networks.length === 1 ? networks[0]! : null;
}
