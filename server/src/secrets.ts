import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { randomToken } from "./ids.ts";
import type { Config } from "./config.ts";

export interface ServerSecrets {
  /** Keys the SHA-256 of session secrets and other server-side HMACs. */
  session: string;
  /** Keys the HMAC of SMS codes, so a database dump does not reveal codes. */
  otpPepper: string;
}

/**
 * Secrets from the environment, or, on the embedded default (never in production, which config
 * refuses), generated once into DATA_DIR/secrets.json with mode 0600 so restarts keep sessions valid.
 */
export function resolveSecrets(config: Config): ServerSecrets {
  if (config.secrets.session && config.secrets.otpPepper) {
    return { session: config.secrets.session, otpPepper: config.secrets.otpPepper };
  }
  const path = join(config.dataDir, "secrets.json");
  let stored: Partial<ServerSecrets> = {};
  if (existsSync(path)) stored = JSON.parse(readFileSync(path, "utf8")) as Partial<ServerSecrets>;
  const secrets: ServerSecrets = {
    session: config.secrets.session ?? stored.session ?? randomToken(32),
    otpPepper: config.secrets.otpPepper ?? stored.otpPepper ?? randomToken(32),
  };
  if (secrets.session !== stored.session || secrets.otpPepper !== stored.otpPepper) {
    mkdirSync(config.dataDir, { recursive: true, mode: 0o700 });
    const tmp = `${path}.${process.pid}.tmp`;
    writeFileSync(tmp, JSON.stringify(secrets, null, 2), { mode: 0o600 });
    renameSync(tmp, path);
    chmodSync(path, 0o600);
  }
  return secrets;
}
