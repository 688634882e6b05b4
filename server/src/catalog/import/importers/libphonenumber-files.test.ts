import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { entriesOf, FIXTURE_ROOT, tarGz, zip } from "../../../../testing/libphonenumber-archives.ts";
import { olderRelease } from "./data-versions.ts";
import { digestOf, pomVersion, readResourceInput, validateResources } from "./libphonenumber-files.ts";

/**
 * libphonenumber resource files (docs/catalog.md "Carrier data from a libphonenumber release"):
 * fixtures/libphonenumber/libphonenumber-9.0.20/ is a hand-written repository checkout in Google's
 * layout and text format (carrier en/zh for +86, en for +233, geocoding en/zh/de for +86, map_data.txt,
 * pom.xml). The same files are read as a folder, as the resources/ folder, as a .tar.gz and as a .zip
 * built here; expectations are the files' lines, read off by hand.
 */

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "lpn-files-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The kept files, read off the fixture by hand: carrier en/zh, geocoding en/zh (de skipped), time zones. */
const KEPT = ["carrier/en/233.txt", "carrier/en/86.txt", "carrier/zh/86.txt", "geocoding/en/86.txt", "geocoding/zh/86.txt", "timezones/map_data.txt"];

describe("reading libphonenumber resource files", () => {
  it("reads the repository root, the resources folder, a .tar.gz and a .zip to the same files and release", async () => {
    const entries = entriesOf(FIXTURE_ROOT, "libphonenumber-9.0.20/");
    const tgz = join(dir, "libphonenumber-9.0.20.tar.gz");
    writeFileSync(tgz, await tarGz(entries));
    const zipped = join(dir, "libphonenumber-9.0.20.zip");
    writeFileSync(zipped, zip(entries));
    const results = await Promise.all([FIXTURE_ROOT, join(FIXTURE_ROOT, "resources"), tgz, zipped].map((p) => readResourceInput(p)));
    for (const read of results) {
      expect([...read.files.keys()].sort()).toEqual(KEPT);
      expect(read.release).toBe("9.0.20");
      expect(read.files.get("carrier/zh/86.txt")!.toString("utf8")).toContain("86139|中国移动");
    }
    expect(new Set(results.map((r) => digestOf(r.files))).size).toBe(1);
  });

  it("names the version by the archive's top folder, by pom.xml's project version (not its parent's), else by a content digest", async () => {
    const tagArchive = join(dir, "v9.0.20.tar.gz");
    writeFileSync(tagArchive, await tarGz(entriesOf(FIXTURE_ROOT, "libphonenumber-9.0.20/")));
    expect((await readResourceInput(tagArchive)).release).toBe("9.0.20");
    // java/pom.xml is libphonenumber-parent 9.0.20 (its <parent> oss-parent 7); the root pom.xml is the
    // build parent, 1.0-SNAPSHOT, which names no release.
    expect(pomVersion(readFileSync(join(FIXTURE_ROOT, "java", "pom.xml"), "utf8"))).toBe("9.0.20");
    expect(pomVersion(readFileSync(join(FIXTURE_ROOT, "pom.xml"), "utf8"))).toBeNull();
    const checkout = join(dir, "checkout");
    cpSync(FIXTURE_ROOT, checkout, { recursive: true });
    expect((await readResourceInput(checkout)).release).toBe("9.0.20");
    const archived = join(dir, "checkout.zip");
    writeFileSync(archived, zip(entriesOf(FIXTURE_ROOT, "checkout/")));
    expect((await readResourceInput(archived)).release).toBe("9.0.20");
    rmSync(join(checkout, "java"), { recursive: true });
    const unnamed = validateResources(await readResourceInput(checkout), checkout);
    expect(unnamed.release).toBeNull();
    expect(unnamed.version).toMatch(/^sha256:[0-9a-f]{16}$/);
    expect(unnamed.version).toBe(`sha256:${unnamed.digest.slice(0, 16)}`);
  });

  it("refuses bad input listing every problem: missing path, no carrier files, malformed lines, corrupt archives, traversal", async () => {
    await expect(readResourceInput(join(dir, "nowhere"))).rejects.toThrow(/nowhere: no such file or folder/);

    const onlyGeo = join(dir, "only-geo");
    mkdirSync(join(onlyGeo, "resources", "geocoding", "en"), { recursive: true });
    writeFileSync(join(onlyGeo, "resources", "geocoding", "en", "86.txt"), "8610|Beijing\n");
    const geoOnly = await readResourceInput(onlyGeo);
    expect([...geoOnly.files.keys()]).toEqual(["geocoding/en/86.txt"]);
    expect(() => validateResources(geoOnly, onlyGeo)).toThrow(/only-geo: no carrier files/);

    const malformed = new Map([
      ["carrier/en/86.txt", Buffer.from("# comment\n86139 China Mobile\n1201|Verizon\n86130|China Unicom\n86130|China Unicom\n")],
      ["timezones/map_data.txt", Buffer.from("86|Asia/Shanghai&not a zone\n")],
    ]);
    let message = "";
    try {
      validateResources({ files: malformed, release: "9.0.20" }, "x");
    } catch (error) {
      message = (error as Error).message;
      expect(error).toMatchObject({ code: "INVALID_DATASET" });
    }
    expect(message).toContain("nothing was changed. 4 problem(s)");
    expect(message).toContain('resources/carrier/en/86.txt:2: "86139 China Mobile" is not prefix|value');
    expect(message).toContain("resources/carrier/en/86.txt:3: prefix 1201 does not start with the file's calling code 86");
    expect(message).toContain("resources/carrier/en/86.txt:5: prefix 86130 is listed twice");
    expect(message).toContain('resources/timezones/map_data.txt:1: "Asia/Shanghai&not a zone" is not a list of time zones');

    const corrupt = join(dir, "libphonenumber-9.0.21.tar.gz");
    writeFileSync(corrupt, Buffer.from("this is not gzip at all"));
    await expect(readResourceInput(corrupt)).rejects.toThrow(/not a readable \.tar\.gz archive/);
    const truncated = join(dir, "libphonenumber-9.0.22.zip");
    writeFileSync(truncated, zip(entriesOf(FIXTURE_ROOT, "libphonenumber-9.0.22/")).subarray(0, 300));
    await expect(readResourceInput(truncated)).rejects.toThrow(/not a readable \.zip archive \(no central directory/);
    // Cut inside an entry, with a directory record pasted on: the entry never completes.
    const whole = zip(entriesOf(FIXTURE_ROOT, "libphonenumber-9.0.23/"));
    const cut = join(dir, "libphonenumber-9.0.23.zip");
    writeFileSync(cut, Buffer.concat([whole.subarray(0, 200), whole.subarray(whole.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06])))]));
    await expect(readResourceInput(cut)).rejects.toThrow(/not a readable \.zip archive/);

    const evilTar = join(dir, "evil.tar.gz");
    writeFileSync(evilTar, await tarGz([...entriesOf(FIXTURE_ROOT, "libphonenumber-9.0.20/"), ["libphonenumber-9.0.20/../../etc/resources/carrier/en/1.txt", Buffer.from("1201|X\n")]]));
    await expect(readResourceInput(evilTar)).rejects.toThrow(/entry "libphonenumber-9\.0\.20\/\.\.\/\.\.\/etc\/resources\/carrier\/en\/1\.txt" points outside the archive \(path traversal\)/);
    const evilZip = join(dir, "evil.zip");
    writeFileSync(evilZip, zip([...entriesOf(FIXTURE_ROOT, "libphonenumber-9.0.20/"), ["/abs/resources/carrier/en/1.txt", Buffer.from("1201|X\n")]]));
    await expect(readResourceInput(evilZip)).rejects.toThrow(/entry "\/abs\/resources\/carrier\/en\/1\.txt" points outside the archive/);

    const linked = join(dir, "linked.tar.gz");
    writeFileSync(linked, await tarGz(entriesOf(FIXTURE_ROOT, "libphonenumber-9.0.20/"), (p) => p.entry({ name: "libphonenumber-9.0.20/resources/carrier/en/44.txt", type: "symlink", linkname: "/etc/passwd" })));
    await expect(readResourceInput(linked)).rejects.toThrow(/resources\/carrier\/en\/44\.txt" is a link or special file/);

    const other = join(dir, "notes.txt");
    writeFileSync(other, "hello");
    await expect(readResourceInput(other)).rejects.toThrow(/not a folder, \.tar\.gz, \.tgz or \.zip/);
  });

  it("compares loaded releases with the validity metadata's: numeric parts, snapshots as their number, digests unknown", () => {
    expect(olderRelease("9.0.20", "9.0.43")).toBe(true);
    expect(olderRelease("9.0.100", "9.0.43")).toBe(false);
    expect(olderRelease("9.0.43", "9.0.43")).toBe(false);
    expect(olderRelease("9.0.21-SNAPSHOT", "9.0.43")).toBe(true);
    expect(olderRelease("9.0.43-SNAPSHOT", "9.0.43")).toBe(true);
    expect(olderRelease("9.0.44-SNAPSHOT", "9.0.43")).toBe(false);
    expect(olderRelease("sha256:0123456789abcdef", "9.0.43")).toBeNull();
    expect(olderRelease(null, "9.0.43")).toBeNull();
  });
});
