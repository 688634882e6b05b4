import { describe, expect, it } from "vitest";
import { hash } from "node:crypto";
import type { Network, Operator } from "../../contract/catalog.ts";
import { contentHash, operators as operatorKind } from "../model/entities.ts";
import { currentOperator, successorFor } from "./lineage.ts";
import { networkOfNumber } from "./networks.ts";
import { unlistedReason } from "./listing.ts";

const operator = (id: string, status: Operator["status"], lineage: Partial<Pick<Operator, "successor_id" | "lineage">> = {}): Operator => ({
  id,
  country_iso2: id.slice(0, 2).toUpperCase(),
  name: id,
  name_local: null,
  brand: null,
  tadig: null,
  status,
  successor_id: null,
  lineage: null,
  listed: true,
  territories: [id.slice(0, 2).toUpperCase()],
  register_ids: [],
  source: "test",
  dataset_version: "v1",
  ...lineage,
});

const network = (id: string, operatorId: string, status: string, name: string, country = "BR"): Network => {
  const [mcc, mnc] = id.split("-") as [string, string];
  return { id, mcc, mnc, country_iso2: country, operator_id: operatorId, name, tadig: null, network_type: "national", status, technologies: [], bands: [], source: "test", dataset_version: "v1" };
};

describe("currentOperator", () => {
  const split = { date: "2022-04", reason: "split" as const, reference: "test", successors: [{ operator_id: "br.tim", prefixes: ["5521"] }, { operator_id: "br.vivo", prefixes: ["5541"] }] };
  const ops = new Map(
    [
      operator("br.bt", "inactive", { successor_id: "br.oi", lineage: { date: "2009", reason: "merged", reference: "test", successors: null } }),
      operator("br.oi", "inactive", { lineage: split }),
      operator("br.tim", "active"),
      operator("br.vivo", "active"),
      operator("xx.a", "inactive", { successor_id: "xx.b" }),
      operator("xx.b", "inactive", { successor_id: "xx.a" }),
    ].map((o) => [o.id, o]),
  );
  it("follows a chain through a split by the number's area code", () => {
    expect(currentOperator(ops, ops.get("br.bt")!, "5541984011234").id).toBe("br.vivo");
    expect(currentOperator(ops, ops.get("br.oi")!, "5521984011234").id).toBe("br.tim");
  });
  it("stops at a split without digits or with an area code it does not name, and on a cycle", () => {
    expect(currentOperator(ops, ops.get("br.oi")!).id).toBe("br.oi");
    expect(currentOperator(ops, ops.get("br.bt")!, "5511").id).toBe("br.oi");
    expect(successorFor(ops.get("br.oi")!, "5599")).toBeNull();
    expect(["xx.a", "xx.b"]).toContain(currentOperator(ops, ops.get("xx.a")!).id);
    expect(currentOperator(ops, ops.get("br.tim")!, "5521").id).toBe("br.tim");
  });
});

describe("networkOfNumber", () => {
  const country = "BR";
  it("the range's own network first", () => {
    const own = network("724-99", "br.x", "unknown", "X");
    expect(networkOfNumber({ rangeNetwork: own, networks: [network("724-01", "br.x", "operational", "X")], country })).toBe(own);
  });
  it("the only operational network, else the only one in the number's country", () => {
    const cm = [network("460-00", "cn.cm", "operational", "China Mobile", "CN"), network("460-02", "cn.cm", "not_operational", "China Mobile", "CN")];
    expect(networkOfNumber({ rangeNetwork: null, networks: cm, country: "CN" })?.id).toBe("460-00");
    const two = [network("234-10", "gb.o2", "operational", "O2", "GB"), network("234-02", "gb.o2", "operational", "O2 IoT", "GG")];
    expect(networkOfNumber({ rangeNetwork: null, networks: two, country: "GB" })?.id).toBe("234-10");
  });
  it("a closed holder's number gets its successor's network", () => {
    const oi = [network("724-31", "br.oi", "not_operational", "Oi")];
    const tim = [network("724-04", "br.tim", "operational", "TIM"), network("724-02", "br.tim", "operational", "TIM"), network("724-03", "br.tim", "operational", "TIM")];
    expect(networkOfNumber({ rangeNetwork: null, networks: oi, currentNetworks: tim, country })?.id).toBe("724-02");
    expect(networkOfNumber({ rangeNetwork: null, networks: oi, currentNetworks: [], country })?.id).toBe("724-31");
  });
  it("no network when the networks differ in name, or in India's circles", () => {
    const mixed = [network("724-05", "br.c", "operational", "Claro"), network("724-38", "br.c", "operational", "Claro IoT")];
    expect(networkOfNumber({ rangeNetwork: null, networks: mixed, country })).toBeNull();
    const vi = [network("404-20", "in.vi", "operational", "Vi India", "IN"), network("404-11", "in.vi", "operational", "Vi India", "IN")];
    expect(networkOfNumber({ rangeNetwork: null, networks: vi, country: "IN" })).toBeNull();
  });
});

describe("operator listing and storage", () => {
  it("keeps placeholder and composite rows out of listings, real names in", () => {
    for (const name of ["test", "Test network", "private networks", "Unassigned", "Celcom, DiGi, Maxis, Tune Talk, U Mobile, Unifi, XOX, Yes", "Shared Telus, Bell, and SaskTel"]) {
      expect(unlistedReason({ name, brand: null }), name).not.toBeNull();
    }
    for (const name of ["Telecomunicaciones de Guatemala, S.A.", "AT&T Mobility", "Test Telecom Ltd", "Bouygues Telecom - Distribution"]) {
      expect(unlistedReason({ name, brand: null }), name).toBeNull();
    }
  });

  it("a record without lineage keeps the content hash it had before the lineage fields existed (no update storm on upgrade)", () => {
    const { dataset_version: _version, ...record } = operator("cn.china-mobile", "active");
    // The hash as computed before the lineage fields: sha1 over the original fields' JSON values and
    // `territories` (whose migration, 0107, rehashes stored rows itself).
    const before = hash("sha1", JSON.stringify(["cn.china-mobile", "CN", "cn.china-mobile", null, null, null, "active", ["CN"], "test"]), "base64url");
    expect(contentHash(operatorKind, record)).toBe(before);
    expect(contentHash(operatorKind, { ...record, successor_id: "cn.other" })).not.toBe(before);
    expect(contentHash(operatorKind, { ...record, listed: false })).not.toBe(before);
  });
});
