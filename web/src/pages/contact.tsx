import { useMutation } from "@tanstack/react-query";
import { useId, useState, type FormEvent } from "react";
import { api } from "../api.ts";
import { useI18n } from "../i18n/i18n.tsx";
import { ErrorNotice } from "../ui/error-notice.tsx";
import { PageTitle } from "../ui/layout-bits.tsx";

/** docs/console.md "Contact": all fields required, trimmed, within these lengths. */
const LIMITS = { name: [1, 100], email: [3, 254], company: [1, 200], message: [10, 5000] } as const;
type Field = keyof typeof LIMITS;

/** The contact form: enterprise inquiries and lost access. Works signed in or not. */
export default function ContactPage() {
  const { t, number } = useI18n();
  const ids = { name: useId(), email: useId(), company: useId(), message: useId(), messageHint: useId(), rule: useId() };
  const [form, setForm] = useState<Record<Field, string>>({ name: "", email: "", company: "", message: "" });
  const submit = useMutation({ mutationFn: () => api.contact.submit.mutate({ name: form.name.trim(), email: form.email.trim(), company: form.company.trim(), message: form.message.trim() }) });
  const set = (field: Field) => (e: { currentTarget: { value: string } }) => setForm({ ...form, [field]: e.currentTarget.value });
  const ready = (Object.keys(LIMITS) as Field[]).every((f) => form[f].trim().length >= LIMITS[f][0] && form[f].trim().length <= LIMITS[f][1]);
  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    submit.mutate();
  };

  if (submit.isSuccess) {
    return (
      <>
        <PageTitle text={t("contact.sentTitle")} />
        <p role="status" className="notice notice-info">
          {t("contact.sent", { id: submit.data.id })}
        </p>
      </>
    );
  }
  return (
    <div className="narrow">
      <PageTitle text={t("contact.title")} />
      <p>{t("contact.intro")}</p>
      <p id={ids.rule} className="notice notice-warning">
        {t("contact.rule")}
      </p>
      <form onSubmit={onSubmit} className="card form" noValidate>
        <div className="field">
          <label htmlFor={ids.name}>{t("contact.name")}</label>
          <input id={ids.name} value={form.name} onChange={set("name")} maxLength={LIMITS.name[1]} autoComplete="name" required />
        </div>
        <div className="field">
          <label htmlFor={ids.email}>{t("contact.email")}</label>
          <input id={ids.email} type="email" value={form.email} onChange={set("email")} maxLength={LIMITS.email[1]} autoComplete="email" required />
        </div>
        <div className="field">
          <label htmlFor={ids.company}>{t("contact.company")}</label>
          <input id={ids.company} value={form.company} onChange={set("company")} maxLength={LIMITS.company[1]} autoComplete="organization" required />
        </div>
        <div className="field">
          <label htmlFor={ids.message}>{t("contact.message")}</label>
          <textarea id={ids.message} value={form.message} onChange={set("message")} maxLength={LIMITS.message[1]} rows={8} aria-describedby={`${ids.messageHint} ${ids.rule}`} required />
          <p id={ids.messageHint} className="hint">
            {t("contact.messageHint", { min: LIMITS.message[0], max: number(LIMITS.message[1]), n: number(form.message.trim().length) })}
          </p>
        </div>
        <p className="hint">{t("contact.noEmail")}</p>
        <div className="actions">
          <button type="submit" disabled={!ready || submit.isPending}>
            {t("contact.send")}
          </button>
        </div>
        {submit.isError ? <ErrorNotice error={submit.error} /> : null}
      </form>
    </div>
  );
}
