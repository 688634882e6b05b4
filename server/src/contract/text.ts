import { z } from "zod";

/**
 * What names and free text may not contain (docs/api.md "Text fields"), refused with 400 wherever a
 * person types text that others will see: control characters (they corrupt logs, terminals, CSV and
 * the console's display), bidirectional overrides and isolates (they make `key‮txt.exe` read as
 * something else: "Trojan Source", CVE-2021-42574), and lone UTF-16 surrogates (not text at all;
 * MySQL's utf8mb4 refuses them). Zero-width joiners stay allowed: scripts and emoji need them.
 */
const CONTROL = "\\u0000-\\u0008\\u000B\\u000C\\u000E-\\u001F\\u007F-\\u009F";
const LINE_BREAKS = "\\u000A\\u000D\\u2028\\u2029";
const BIDI = "\\u061C\\u200E\\u200F\\u202A-\\u202E\\u2066-\\u2069";
const IN_LINE = new RegExp(`[${CONTROL}\\u0009${LINE_BREAKS}${BIDI}]`, "u");
const IN_TEXT = new RegExp(`[${CONTROL}\\u2028\\u2029${BIDI}]`, "u");
/** Without the u flag, so each UTF-16 unit is seen: a high surrogate not followed by a low one, or a low one alone. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** The first refused character of `value` as `U+XXXX at position n`, or null when the text is acceptable. */
export function unsafeCharacter(value: string, options: { multiline?: boolean } = {}): string | null {
  const lone = LONE_SURROGATE.exec(value);
  if (lone) return `an unpaired surrogate at position ${lone.index}`;
  const match = (options.multiline ? IN_TEXT : IN_LINE).exec(value);
  if (!match) return null;
  return `U+${match[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")} at position ${match.index}`;
}

/**
 * The shared refinement for names and free text: `.check(plainText())` on a string schema refuses
 * control and bidi-override characters (and, unless `multiline`, tabs and line breaks) with a message
 * naming the first one. `multiline` allows tab, LF and CR (a message body).
 * @example
 * const Name = z.string().trim().min(1).max(64).check(plainText());
 * const Message = z.string().trim().min(10).max(5000).check(plainText({ multiline: true }));
 */
export function plainText(options: { multiline?: boolean } = {}) {
  return z.superRefine<string>((value, ctx) => {
    const found = unsafeCharacter(value, options);
    if (found) ctx.addIssue({ code: "custom", message: `must not contain control or bidirectional-override characters (${found})`, input: value });
  });
}
