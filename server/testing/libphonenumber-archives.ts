import { createHash } from "node:crypto";
import { cpSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import { zipSync } from "fflate";
import { pack } from "tar-stream";

/**
 * Release archives built in tests from a folder (docs/catalog.md "Carrier data from a libphonenumber
 * release"): the hand-written checkout fixtures/libphonenumber/libphonenumber-9.0.20/ as GitHub's
 * .tar.gz or a .zip, with a top folder as the releases have.
 */

export const FIXTURE_ROOT = fileURLToPath(new URL("../fixtures/libphonenumber/libphonenumber-9.0.20/", import.meta.url));

/**
 * A copy of the fixture under `dir/libphonenumber-<release>`, with lines of its resource files
 * replaced (`{"carrier/en/233.txt": [[from, to]]}`); each `from` must be in its file, so a fixture
 * edit that drops a line the test relies on fails here rather than passing unnoticed.
 */
export function fixtureVariant(dir: string, release: string, edits: Record<string, [string, string][]>): string {
  const root = join(dir, `libphonenumber-${release}`);
  cpSync(FIXTURE_ROOT, root, { recursive: true });
  for (const [file, replacements] of Object.entries(edits)) {
    const path = join(root, "resources", file);
    let text = readFileSync(path, "utf8");
    for (const [from, to] of replacements) {
      if (!text.includes(from)) throw new Error(`fixture ${file} has no ${JSON.stringify(from)}`);
      text = text.replace(from, to);
    }
    writeFileSync(path, text);
  }
  return root;
}

/** Every file of a folder as archive entries under `prefix` (`libphonenumber-9.0.20/…`). */
export function entriesOf(folder: string, prefix: string): [string, Buffer][] {
  const out: [string, Buffer][] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir).sort()) {
      const full = join(dir, name);
      if (statSync(full).isDirectory()) walk(full);
      else out.push([`${prefix}${relative(folder, full).split("\\").join("/")}`, readFileSync(full)]);
    }
  };
  walk(folder);
  return out;
}

/** A .tar.gz of the given entries, as GitHub's release archives are (top folder, regular files). */
export async function tarGz(entries: [string, Buffer][], extra: (p: ReturnType<typeof pack>) => void = () => {}): Promise<Buffer> {
  const archive = pack();
  const chunks: Buffer[] = [];
  archive.on("data", (c: unknown) => chunks.push(c as Buffer));
  const done = new Promise<void>((resolve) => archive.on("end", () => resolve()));
  for (const [name, content] of entries) archive.entry({ name, size: content.length }, content);
  extra(archive);
  archive.finalize();
  await done;
  return gzipSync(Buffer.concat(chunks));
}

export const zip = (entries: [string, Buffer][]) => Buffer.from(zipSync(Object.fromEntries(entries.map(([name, content]) => [name, new Uint8Array(content)]))));

/**
 * A stored set's digest written out independently of the code (source-sets.ts digestOf): sha256 over
 * "<sha256 of the file>  <path>\n" lines in path order, as `sha256sum` prints them.
 */
export function handDigest(files: Map<string, Buffer>): string {
  const sha = (data: Buffer | string) => createHash("sha256").update(data).digest("hex");
  return sha([...files.keys()].sort().map((path) => `${sha(files.get(path)!)}  ${path}\n`).join(""));
}
