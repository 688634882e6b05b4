import type { Clock } from "../clock.ts";
import { API_KEY_PATTERN } from "../contract/api-keys.ts";
import type { Db } from "../db/db.ts";
import { writeTransaction } from "../db/transaction.ts";
import { AppError } from "../errors.ts";
import { newId } from "../ids.ts";

export interface InquiryInput {
  name: string;
  email: string;
  company: string;
  message: string;
}

/**
 * A six-digit run near a word that names a verification code (English or Chinese). A bare six-digit
 * number is not enough: Chinese postcodes have six digits too.
 */
const CODE_NEAR_KEYWORD =
  /(?:code|otp|verification|验证码|校验码|动态码|短信码)[^\d]{0,24}(?<!\d)\d{6}(?!\d)|(?<!\d)\d{6}(?!\d)[^\d]{0,12}(?:code|otp|验证码|校验码|动态码|短信码)/i;

/** Why a text may not be stored, or null when it is fine. */
export function secretInText(text: string): "api_key" | "sms_code" | null {
  if (API_KEY_PATTERN.test(text)) return "api_key";
  if (CODE_NEAR_KEYWORD.test(text)) return "sms_code";
  return null;
}

/**
 * Stores an enterprise inquiry. Nothing is sent anywhere: the platform keeps it for operators
 * (`ir21-server inquiries list`). Texts that carry an SMS code or a full API key are refused, because
 * the contract tells users never to submit them and storing them would make this table a secret store.
 */
export async function submitInquiry(
  db: Db,
  clock: Clock,
  input: InquiryInput,
  sender: { userId: string | null; ip: string | null },
): Promise<{ id: string }> {
  for (const field of ["name", "company", "message"] as const) {
    const found = secretInText(input[field]);
    if (found === "api_key") throw new AppError("SECRET_IN_INQUIRY", `${field}: remove the API key; describe the problem and the key's prefix only`);
    if (found === "sms_code") throw new AppError("SECRET_IN_INQUIRY", `${field}: remove the SMS verification code; never share codes`);
  }
  const now = clock.now().getTime();
  const id = newId("inq", now);
  await writeTransaction(db, (trx) => trx.insertInto("contact_inquiries").values({ id, ...input, user_id: sender.userId, ip: sender.ip, created_at: now }).execute());
  return { id };
}

export interface StoredInquiry extends InquiryInput {
  id: string;
  userId: string | null;
  ip: string | null;
  createdAt: Date;
}

/** Newest first, for the operators' command. */
export async function listInquiries(db: Db, options: { limit: number }): Promise<StoredInquiry[]> {
  const rows = await db
    .selectFrom("contact_inquiries")
    .selectAll()
    .orderBy("created_at", "desc")
    .orderBy("id", "desc")
    .limit(options.limit)
    .execute();
  return rows.map((r) => ({
    id: r.id,
    name: r.name,
    email: r.email,
    company: r.company,
    message: r.message,
    userId: r.user_id,
    ip: r.ip,
    createdAt: new Date(r.created_at),
  }));
}
