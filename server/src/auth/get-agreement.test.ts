import { describe, expect, it } from "vitest";
import { startTestServer } from "../../testing/index.ts";

describe("GET /auth/agreement", () => {
  it("gives the current terms and privacy versions, anonymously", async () => {
    const other = await startTestServer({ env: { TERMS_VERSION: "2027-01-01", PRIVACY_VERSION: "2026-12-24" } });
    try {
      const { status, body } = await other.json("/auth/agreement");
      expect(status).toBe(200);
      expect(body.data).toEqual({ terms_version: "2027-01-01", privacy_version: "2026-12-24" });
    } finally {
      await other.close();
    }
  });
});
