import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from "vitest";
import { createClient, isIr21ApiError, type ImsiLookup, type NumberLookup, type Operator, type PublicNumberLookup, type Selected } from "@ir21/sdk";
import { createApiKey, signIn, startTestServer, type TestServer } from "@ir21/server/testing";

/**
 * The SDK's `fields` (docs/api.md "Lookup fields", docs/sdk.md): the answer's type has only the fields
 * asked (checked by the type checker: `pnpm typecheck` runs over this file; vitest's expectTypeOf
 * asserts nothing at run time), and against a live server the answer is the whole answer's fields.
 */
let server: TestServer;
let apiKey: string;
beforeAll(async () => {
  server = await startTestServer({ dataset: "demo" });
  apiKey = (await createApiKey(server, await signIn(server))).key;
});
afterAll(() => server.close());

const full = () => createClient({ baseUrl: server.url, apiKey });
const anonymous = () => createClient({ baseUrl: server.url });

describe("the answer's type follows the fields asked", () => {
  it("top-level fields and dotted sub-fields, per projection", () => {
    type Full = ReturnType<typeof full>;
    type Anonymous = ReturnType<typeof anonymous>;
    const ask = <const F extends string>(fields: readonly F[]) => fields;

    // Only what was asked.
    type Small = Awaited<ReturnType<typeof small>>["data"];
    const small = (client: Full) => client.lookup("+8613912345678", { fields: ask(["number_type"]) });
    expectTypeOf<Small>().toEqualTypeOf<{ number_type: string | null }>();

    type Mixed = Awaited<ReturnType<typeof mixed>>["data"];
    const mixed = (client: Full) => client.lookup("+8613912345678", { fields: ["number", "valid", "operator.id", "network.mcc", "networks.mnc"] });
    expectTypeOf<Mixed>().toEqualTypeOf<{
      number: string;
      valid: boolean;
      operator: { id: string } | null;
      network: { mcc: string } | null;
      networks: { mnc: string }[];
    }>();
    // Paths as deep as the answer goes, each level narrowed.
    type Deep = Awaited<ReturnType<typeof deep>>["data"];
    const deep = (client: Full) => client.lookup("+8613912345678", { fields: ["operator.id", "operator.lineage.successors.operator_id", "range.source"] });
    expectTypeOf<Deep>().toEqualTypeOf<{
      operator: { id: string; lineage: { successors: { operator_id: string }[] | null } | null } | null;
      range: { source: string } | null;
    }>();
    expectTypeOf<Selected<NumberLookup, "operator.lineage" | "operator.lineage.successors.operator_id">>().toEqualTypeOf<{ operator: { lineage: Operator["lineage"] } | null }>();
    // @ts-expect-error no such field two dots down
    void ((client: Full) => client.lookup("+8613912345678", { fields: ["operator.lineage.heirs"] }));
    // A whole field wins over its sub-fields.
    expectTypeOf<Selected<NumberLookup, "operator" | "operator.id">>().toEqualTypeOf<{ operator: Operator | null }>();
    expectTypeOf<Selected<NumberLookup, "number">>().not.toHaveProperty("formats");

    // Without fields: the whole answer, as before.
    expectTypeOf<Awaited<ReturnType<Full["lookup"]>>["data"]>().toEqualTypeOf<NumberLookup>();

    // The public projection: only its fields may be asked.
    type PublicSmall = Awaited<ReturnType<typeof publicSmall>>["data"];
    const publicSmall = (client: Anonymous) => client.lookup("+8613912345678", { fields: ["number", "operator.name"] });
    expectTypeOf<PublicSmall>().toEqualTypeOf<{ number: string; operator: { name: string } | null }>();
    expectTypeOf<Selected<PublicNumberLookup, "range_holder">>().toEqualTypeOf<{ range_holder: string | null }>();
    // @ts-expect-error `range` is not in the public projection
    void ((client: Anonymous) => client.lookup("+8613912345678", { fields: ["range"] }));
    // @ts-expect-error no such field
    void ((client: Full) => client.lookup("+8613912345678", { fields: ["carrier"] }));
    // @ts-expect-error no such sub-field
    void ((client: Full) => client.lookup("+8613912345678", { fields: ["operator.mccmnc"] }));

    // The IMSI and the batch.
    type Imsi = Awaited<ReturnType<typeof imsi>>["data"];
    const imsi = (client: Full) => client.lookupImsi("460001234567890", { fields: ["mcc", "network.id"] });
    expectTypeOf<Imsi>().toEqualTypeOf<Selected<ImsiLookup, "mcc" | "network.id">>();
    expectTypeOf<Imsi>().toEqualTypeOf<{ mcc: string | null; network: { id: string } | null }>();
    type BatchItem = Awaited<ReturnType<typeof batch>>["data"]["items"][number];
    const batch = (client: Full) => client.lookupBatch(["+8613912345678"], { fields: ["number", "range_holder"] });
    expectTypeOf<BatchItem>().toEqualTypeOf<{ number: string; range_holder: string | null } | { number: string; error: { code: string; message: string } }>();
  });
});

describe("fields against a live server", () => {
  const pick = (answer: Record<string, unknown>, keys: string[]) => Object.fromEntries(Object.entries(answer).filter(([key]) => keys.includes(key)));

  it("lookup, IMSI and batch answer the whole answer's fields", async () => {
    const ir21 = full();
    const whole = (await ir21.lookup("+8613912345678")).data;
    const { data, meta } = await ir21.lookup("+8613912345678", { fields: ["number", "valid", "number_type", "range_holder", "operator.id"] });
    expect(data).toEqual({ ...pick(whole, ["number", "valid", "number_type", "range_holder"]), operator: whole.operator && { id: whole.operator.id } });
    expect(Object.keys(data)).toEqual(Object.keys(whole).filter((key) => ["number", "valid", "number_type", "range_holder", "operator"].includes(key)));
    expect(meta.dataset_version).toBe((await ir21.meta()).data.dataset_version);
    // Two dots down, typed and answered alike.
    const deep = (await ir21.lookup("+8613912345678", { fields: ["range.source", "operator.lineage.reason"] })).data;
    expect(deep).toEqual({
      operator: whole.operator && { lineage: whole.operator.lineage && { reason: whole.operator.lineage.reason } },
      range: whole.range && { source: whole.range.source },
    });

    const imsi = (await ir21.lookupImsi("460001234567890", { fields: ["mcc", "mnc"] })).data;
    const wholeImsi = (await ir21.lookupImsi("460001234567890")).data;
    expect(imsi).toEqual({ mcc: wholeImsi.mcc, mnc: wholeImsi.mnc });

    const numbers = ["+8613912345678", "nope", "+447700900123"];
    const items = (await ir21.lookupBatch(numbers, { fields: ["number", "range_holder"] })).data.items;
    const wholeItems = (await ir21.lookupBatch(numbers)).data.items;
    expect(items).toEqual(wholeItems.map((item) => ("error" in item ? item : pick(item, ["number", "range_holder"]))));
  });

  it("a field outside the public projection is refused to an anonymous client", async () => {
    const error = await anonymous()
      .lookup("+8613912345678", { fields: ["number", "range" as "number"] })
      .then(
        () => null,
        (e: unknown) => e,
      );
    expect(isIr21ApiError(error) && error.status === 400 && error.code === "INVALID_REQUEST" && /range/.test(error.message)).toBe(true);
  });
});
