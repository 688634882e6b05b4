import { isIr21ApiError } from "@ir21/sdk";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useId, useRef, useState, type FormEvent } from "react";
import { Link, Redirect, useLocation, useSearch } from "wouter";
import { api } from "../api.ts";
import { maskPhone } from "../ui/phone.ts";
import { useI18n } from "../i18n/i18n.tsx";
import { ME, useMe } from "../session.tsx";
import { ErrorNotice } from "../ui/error-notice.tsx";
import { Loading, PageTitle } from "../ui/layout-bits.tsx";
import { useSecondsLeft } from "../ui/time.ts";

interface Challenge {
  id: string;
  phone: string;
  expiresAt: number;
}

/** Where to go after signing in: a path inside the app only (never another origin). */
function nextPath(search: string): string {
  const next = new URLSearchParams(search).get("next");
  return next && next.startsWith("/") && !next.startsWith("//") ? next : "/usage";
}

/**
 * The server says how many tries are left only in its message ("Wrong code; 3 attempts left"): the
 * contract's error body has no field for it. Read the number so it can be said in the reader's language.
 */
function attemptsLeftIn(message: string): number | null {
  const match = /(\d+) attempts? left/.exec(message);
  return match ? Number(match[1]) : null;
}

/**
 * Sign-in by SMS (docs/auth.md): the phone, the agreement with the server's current versions and a
 * required tick, a code with a resend countdown from `retry_after`, then the 6 digits.
 */
export function SignInPage() {
  const { t, duration } = useI18n();
  const me = useMe();
  const search = useSearch();
  const [, navigate] = useLocation();
  const queryClient = useQueryClient();
  const ids = { phone: useId(), phoneHint: useId(), agreed: useId(), code: useId(), codeHint: useId() };
  const codeInput = useRef<HTMLInputElement>(null);

  const agreement = useQuery({ queryKey: ["auth", "agreement"], queryFn: () => api.auth.agreement.query(), staleTime: Infinity });
  const [phone, setPhone] = useState("");
  const [agreed, setAgreed] = useState(false);
  const [code, setCode] = useState("");
  const [challenge, setChallenge] = useState<Challenge | null>(null);
  const [resendAt, setResendAt] = useState<number | null>(null);
  const resendLeft = useSecondsLeft(resendAt);
  const codeLeft = useSecondsLeft(challenge?.expiresAt ?? null);

  const agreementFields = () => ({ agreed: true as const, terms_version: agreement.data!.terms_version, privacy_version: agreement.data!.privacy_version });

  const onAgreementOutdated = (error: unknown) => {
    if (isIr21ApiError(error, "AGREEMENT_OUTDATED")) {
      setAgreed(false);
      void agreement.refetch();
    }
  };

  const sendCode = useMutation({
    mutationFn: () => api.auth.sendCode.mutate({ phone, ...agreementFields() }),
    onSuccess: (sent) => {
      const now = Date.now();
      setChallenge({ id: sent.challenge_id, phone, expiresAt: now + sent.expires_in * 1000 });
      setResendAt(now + sent.retry_after * 1000);
      setCode("");
      login.reset();
      queueMicrotask(() => codeInput.current?.focus());
    },
    onError: (error) => {
      onAgreementOutdated(error);
      // A limit's wait also holds back the button, so the countdown and the message agree.
      if (isIr21ApiError(error) && error.retryAfter) setResendAt(Date.now() + error.retryAfter * 1000);
    },
  });

  const login = useMutation({
    mutationFn: () => api.auth.login.mutate({ phone: challenge!.phone, challenge_id: challenge!.id, code, ...agreementFields() }),
    onSuccess: ({ user }) => {
      queryClient.setQueryData(ME, user);
      navigate(nextPath(search), { replace: true });
    },
    onError: onAgreementOutdated,
  });

  if (me.data) return <Redirect to={nextPath(search)} replace />;
  if (me.isPending || agreement.isPending) return <Loading />;
  if (agreement.isError) return <ErrorNotice error={agreement.error} />;

  const submitPhone = (event: FormEvent) => {
    event.preventDefault();
    sendCode.mutate();
  };
  const submitCode = (event: FormEvent) => {
    event.preventDefault();
    login.mutate();
  };
  const loginError = login.error;
  const attemptsLeft = isIr21ApiError(loginError, "CODE_INCORRECT") ? attemptsLeftIn(loginError.message) : null;
  const signedOut = new URLSearchParams(search).has("signed_out");

  return (
    <div className="narrow">
      <PageTitle text={t("signIn.title")} />
      {signedOut && !challenge ? (
        <p role="status" className="notice notice-info">
          {t("signIn.signedOut")}
        </p>
      ) : null}
      <p>{t("signIn.intro")}</p>

      <form onSubmit={submitPhone} className="card form" noValidate>
        <div className="field">
          <label htmlFor={ids.phone}>{t("signIn.phone")}</label>
          <input
            id={ids.phone}
            type="tel"
            inputMode="tel"
            autoComplete="tel"
            value={phone}
            onChange={(e) => setPhone(e.currentTarget.value)}
            aria-describedby={ids.phoneHint}
            required
            maxLength={32}
          />
          <p id={ids.phoneHint} className="hint">
            {t("signIn.phoneHint")}
          </p>
        </div>
        <div className="field field-check">
          <input id={ids.agreed} type="checkbox" checked={agreed} onChange={(e) => setAgreed(e.currentTarget.checked)} required />
          <label htmlFor={ids.agreed}>
            {t("signIn.agreement", { terms: agreement.data.terms_version, privacy: agreement.data.privacy_version })}
          </label>
        </div>
        <p className="hint">{t("signIn.agreementNote")}</p>
        <div className="actions">
          <button type="submit" disabled={!agreed || phone.trim() === "" || sendCode.isPending || resendLeft > 0}>
            {resendLeft > 0 ? t("signIn.resendIn", { time: duration(resendLeft) }) : challenge ? t("signIn.resend") : t("signIn.sendCode")}
          </button>
        </div>
        {sendCode.isError ? <ErrorNotice error={sendCode.error} /> : null}
      </form>

      {challenge ? (
        <form onSubmit={submitCode} className="card form" noValidate>
          <p role="status">
            {codeLeft > 0 ? t("signIn.codeSent", { phone: maskPhone(normalisePhone(challenge.phone)), time: duration(codeLeft) }) : t("signIn.codeExpired")}
          </p>
          <div className="field">
            <label htmlFor={ids.code}>{t("signIn.code")}</label>
            <input
              id={ids.code}
              ref={codeInput}
              className="code-input"
              inputMode="numeric"
              autoComplete="one-time-code"
              pattern="[0-9]{6}"
              maxLength={6}
              value={code}
              onChange={(e) => setCode(e.currentTarget.value.replace(/\D/g, "").slice(0, 6))}
              aria-describedby={ids.codeHint}
              required
            />
            <p id={ids.codeHint} className="hint">
              {t("signIn.codeHint")}
            </p>
          </div>
          <div className="actions">
            <button type="submit" disabled={code.length !== 6 || login.isPending}>
              {t("signIn.submit")}
            </button>
          </div>
          {loginError ? (
            <>
              {attemptsLeft !== null ? <p className="attempts">{t("signIn.attemptsLeft", { n: attemptsLeft })}</p> : null}
              <ErrorNotice error={loginError} />
            </>
          ) : null}
        </form>
      ) : null}

      <p className="muted">
        {t("signIn.lostAccess")} <Link href="/contact">{t("signIn.contact")}</Link>
      </p>
    </div>
  );
}

/** 13812345678 / +86 138-1234-5678 → +8613812345678, for showing where the code went. */
function normalisePhone(input: string): string {
  const digits = input.replace(/[\s-]/g, "").replace(/^(\+86|0086|86)(?=1\d{10}$)/, "");
  return /^1\d{10}$/.test(digits) ? `+86${digits}` : input;
}
