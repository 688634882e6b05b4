// Sign in to the console from a Node script (as the CLI does), keep the session in a 0600 file, and
// create an API key. Run: node console-sign-in.ts 13800138000
import { chmodSync, readFileSync, writeFileSync } from "node:fs";
import { createInterface } from "node:readline/promises";
import { AGREEMENT_VERSION, createConsoleClient, isIr21ApiError, type SessionCookieJar } from "@ir21/sdk";

const file = `${process.env.HOME}/.ir21-session`;

// The session cookie is a credential: owner-only file, rewritten whenever the server changes it.
const fileJar: SessionCookieJar = {
  get: () => {
    try {
      return readFileSync(file, "utf8").trim() || null;
    } catch {
      return null;
    }
  },
  set: (cookie) => {
    writeFileSync(file, cookie ?? "", { mode: 0o600 });
    chmodSync(file, 0o600);
  },
};

const ir21 = createConsoleClient({ baseUrl: process.env.IR21_BASE_URL ?? "http://localhost:8787", cookies: fileJar, retry: true });
const agreement = { agreed: true, terms_version: AGREEMENT_VERSION, privacy_version: AGREEMENT_VERSION } as const;

const me = await ir21.auth.me.query().catch(() => null);
if (me === null) {
  const phone = process.argv[2]!;
  const { challenge_id } = await ir21.auth.sendCode.mutate({ phone, ...agreement });
  const prompt = createInterface({ input: process.stdin, output: process.stdout });
  const code = (await prompt.question("SMS code: ")).trim();
  prompt.close();
  try {
    const { user } = await ir21.auth.login.mutate({ phone, challenge_id, code, ...agreement });
    console.log(`signed in as ${user.phone}`);
  } catch (error) {
    if (isIr21ApiError(error, "CODE_INCORRECT")) console.error(error.message); // says how many attempts remain
    throw error;
  }
}

const { key, item } = await ir21.console.apiKeys.create.mutate({ name: "example script" });
console.log(`new key ${item.prefix}… (shown once): ${key}`);
