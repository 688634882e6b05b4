import { describe, expect, it } from "vitest";
import { BlockedUrlError, checkUrl, createUrlPolicy, forbiddenAddressReason, vetUrl, type HostResolver } from "./url-policy.ts";

const publicResolver: HostResolver = async () => [{ address: "93.184.215.14", family: 4 }];
const policy = createUrlPolicy([], publicResolver);

async function reasonFor(url: string, resolver: HostResolver = publicResolver, allow: string[] = []): Promise<string> {
  try {
    await vetUrl(url, createUrlPolicy(allow, resolver));
    return "allowed";
  } catch (error) {
    if (error instanceof BlockedUrlError) return error.reason;
    throw error;
  }
}

describe("forbiddenAddressReason", () => {
  it.each([
    "127.0.0.1", "127.255.255.254", "10.0.0.1", "172.16.0.1", "192.168.1.1", "100.64.0.1", "100.100.100.200", "169.254.169.254",
    "169.254.0.1", "0.0.0.0", "255.255.255.255", "224.0.0.1", "240.0.0.1", "192.0.0.1", "192.0.2.1", "198.18.0.1", "192.88.99.1",
    "::1", "::", "::ffff:127.0.0.1", "::ffff:7f00:1", "::ffff:a9fe:a9fe", "::ffff:10.0.0.1", "::7f00:1", "::5efe:7f00:1", "::ffff:0:7f00:1",
    "64:ff9b::7f00:1", "64:ff9b::808:808", "64:ff9b:1::1", "2002:7f00:1::1", "2002:808:808::1", "2001::1", "2001:0:4136:e378::1", "2001:db8::1",
    "fc00::1", "fd00:ec2::254", "fe80::1", "fec0::1", "ff02::1", "100::1", "5f00::1", "3fff::1", "fe80::1%eth0",
  ])("refuses %s", (address) => {
    expect(forbiddenAddressReason(address)).not.toBeNull();
  });

  it.each(["93.184.215.14", "8.8.8.8", "1.1.1.1", "2606:4700:4700::1111", "2a00:1450:4001:80b::200e"])("allows public %s", (address) => {
    expect(forbiddenAddressReason(address)).toBeNull();
  });
});

describe("checkUrl / vetUrl at save time", () => {
  it.each([
    ["http://hooks.example.com/", "scheme"],
    ["ftp://hooks.example.com/", "scheme"],
    ["https://user:pass@hooks.example.com/", "credentials"],
    ["https://user@hooks.example.com/", "credentials"],
    ["https://hooks.example.com/#frag", "invalid_url"],
    ["not a url", "invalid_url"],
    [`https://hooks.example.com/${"a".repeat(2100)}`, "invalid_url"],
    ["https://localhost/", "host"],
    ["https://localhost./", "host"],
    ["https://api.localhost/", "host"],
    ["https://printer.local/", "host"],
    ["https://metadata.google.internal/computeMetadata/v1/", "host"],
    ["https://METADATA.GOOGLE.INTERNAL./", "host"],
    ["https://intranet/", "host"],
    ["https://127.0.0.1/", "address"],
    ["https://127.1/", "address"],
    ["https://2130706433/", "address"],
    ["https://0177.0.0.1/", "address"],
    ["https://0x7f.1/", "address"],
    ["https://0x7f000001/", "address"],
    ["https://%31%32%37.0.0.1/", "address"],
    ["https://０x7f.1/", "address"],
    ["https://0/", "address"],
    ["https://[::1]/", "address"],
    ["https://[::]/", "address"],
    ["https://[::ffff:127.0.0.1]/", "address"],
    ["https://[::ffff:a9fe:a9fe]/", "address"],
    ["https://169.254.169.254/latest/meta-data/", "address"],
    ["https://[fd00:ec2::254]/", "address"],
    ["https://10.1.2.3:8443/hook", "address"],
    ["https://100.64.0.1/", "address"],
    ["https://[fc00::1]/", "address"],
    ["https://[fe80::1]/", "address"],
    ["https://0.0.0.0/", "address"],
    ["https://[2002:7f00:1::1]/", "address"],
    ["https://[64:ff9b::7f00:1]/", "address"],
    ["https://[::7f00:1]/", "address"],
    ["https://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/", "address"],
  ])("refuses %s (%s)", async (url, reason) => {
    expect(await reasonFor(url)).toBe(reason);
  });

  it.each([
    ["every address private", [{ address: "10.0.0.1", family: 4 as const }]],
    ["one of them private", [{ address: "93.184.215.14", family: 4 as const }, { address: "10.0.0.1", family: 4 as const }]],
    ["a mapped loopback", [{ address: "::ffff:127.0.0.1", family: 6 as const }]],
    ["the metadata address", [{ address: "169.254.169.254", family: 4 as const }]],
    ["the IPv6 metadata address", [{ address: "fd00:ec2::254", family: 6 as const }]],
  ])("refuses a public-looking name that resolves to %s", async (_label, answer) => {
    expect(await reasonFor("https://hooks.example.com/ir21", async () => answer)).toBe("address");
  });

  it("refuses a name that does not resolve", async () => {
    expect(await reasonFor("https://hooks.example.com/", async () => { throw Object.assign(new Error("getaddrinfo ENOTFOUND"), { code: "ENOTFOUND" }); })).toBe("dns");
    expect(await reasonFor("https://hooks.example.com/", async () => [])).toBe("dns");
  });

  it("allows a public https URL and a public IP literal, keeping path and query", async () => {
    const { target } = await vetUrl("https://Hooks.Example.com:8443/ir21?x=1", policy);
    expect(target.host).toBe("hooks.example.com");
    expect(target.url.toString()).toBe("https://hooks.example.com:8443/ir21?x=1");
    expect(await reasonFor("https://93.184.215.14/hook")).toBe("allowed");
    expect(await reasonFor("https://[2606:4700:4700::1111]/hook")).toBe("allowed");
  });

  it("WEBHOOK_ALLOW_HOSTS exempts exactly the listed hosts, and only those may use http", async () => {
    const loopback: HostResolver = async () => [{ address: "127.0.0.1", family: 4 }];
    expect(await reasonFor("http://127.0.0.1:9999/hook", loopback, ["127.0.0.1"])).toBe("allowed");
    expect(await reasonFor("http://localhost:9999/hook", loopback, ["localhost"])).toBe("allowed");
    expect(await reasonFor("http://127.0.0.2:9999/hook", loopback, ["127.0.0.1"])).toBe("scheme");
    expect(await reasonFor("https://127.0.0.2:9999/hook", loopback, ["127.0.0.1"])).toBe("address");
    expect(await reasonFor("http://hooks.example.com/", publicResolver, ["127.0.0.1"])).toBe("scheme");
    // Exact, trailing dot included: `localhost.` is another spelling, not the listed host.
    expect(await reasonFor("https://localhost./", loopback, ["localhost"])).toBe("host");
    expect(await reasonFor("http://localhost./", loopback, ["localhost"])).toBe("scheme");
    expect(await reasonFor("http://LOCALHOST:9999/", loopback, ["localhost"])).toBe("allowed");
    // The default policy: no exemptions.
    expect(await reasonFor("http://127.0.0.1:9999/hook", loopback)).toBe("scheme");
    expect(await reasonFor("https://127.0.0.1:9999/hook", loopback)).toBe("address");
  });

  it("checkUrl does no DNS", () => {
    let called = false;
    const watching = createUrlPolicy([], async () => {
      called = true;
      return [];
    });
    expect(checkUrl("https://hooks.example.com/", watching).host).toBe("hooks.example.com");
    expect(called).toBe(false);
  });
});
