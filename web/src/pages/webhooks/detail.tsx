import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useId, useState, type FormEvent } from "react";
import { Link, useLocation } from "wouter";
import { api } from "../../api.ts";
import { useI18n } from "../../i18n/i18n.tsx";
import { ConfirmDialog, Dialog } from "../../ui/dialog.tsx";
import { ErrorNotice } from "../../ui/error-notice.tsx";
import { Loading } from "../../ui/layout-bits.tsx";
import { SecretOnce } from "../../ui/secret.tsx";
import { useSecondsLeft } from "../../ui/time.ts";
import { DeliveryTable, DeliveryToolbar, useDeliveryLog } from "./delivery-log.tsx";
import { EventTypeChoice, type TestChoice } from "./event-type-choice.tsx";
import { FiltersText } from "./filters-text.tsx";
import { WEBHOOKS, deliveriesKey, useWebhook } from "./shared.ts";
import { EventTypeList, SubpageNotFound, SubpageTitle } from "./subpage.tsx";
import type { WebhookSubscription } from "@ir21/sdk";

const RETRY_BATCH_MAX = 20;

/** One subscription: its settings and actions, its secret rotation, and its deliveries. */
export default function WebhookPage({ id }: { id: string }) {
  const { t } = useI18n();
  const { item, query } = useWebhook(id);
  if (item === undefined) return query.isError ? <ErrorNotice error={query.error} /> : <Loading />;
  if (item === null) return <SubpageNotFound title={t("webhooks.notFound")} />;
  return (
    <>
      <SubpageTitle title={t("webhooks.detailTitle")}>
        <span className="url subtitle">{item.url}</span>
      </SubpageTitle>
      <Settings item={item} />
      <Rotation item={item} />
      <Deliveries item={item} />
    </>
  );
}

function Settings({ item }: { item: WebhookSubscription }) {
  const { t, dateTime } = useI18n();
  const queryClient = useQueryClient();
  const [, navigate] = useLocation();
  const [confirmDelete, setConfirmDelete] = useState(false);
  const [testSent, setTestSent] = useState<string | null>(null);
  const [testOpen, setTestOpen] = useState(false);
  const [testType, setTestType] = useState<TestChoice>("");
  const refresh = () => queryClient.invalidateQueries({ queryKey: WEBHOOKS });
  const toggle = useMutation({ mutationFn: () => api.webhooks.update.mutate({ id: item.id, enabled: !item.enabled }), onSuccess: refresh });
  const remove = useMutation({
    mutationFn: () => api.webhooks.delete.mutate({ id: item.id }),
    onSuccess: async () => {
      await refresh();
      navigate("/webhooks");
    },
  });
  const sendTest = useMutation({
    // No type: the contract's plain test (a summary); a type: a realistic sample of it.
    mutationFn: () => api.webhooks.sendTest.mutate({ id: item.id, ...(testType ? { event_type: testType } : {}) }),
    onSuccess: (result) => {
      setTestSent(result.delivery_id);
      setTestOpen(false);
      void queryClient.invalidateQueries({ queryKey: deliveriesKey(item.id) });
    },
  });
  return (
    <section className="card" aria-labelledby="settings-title">
      <h2 id="settings-title">{t("webhooks.settings")}</h2>
      <dl className="facts facts-wide">
        <div>
          <dt>{t("webhooks.url")}</dt>
          <dd className="url">{item.url}</dd>
        </div>
        <div>
          <dt>{t("common.status")}</dt>
          <dd>{item.enabled ? <span className="badge badge-ok">{t("webhooks.enabled")}</span> : <span className="badge badge-muted">{t("webhooks.disabled")}</span>}</dd>
        </div>
        <div>
          <dt>{t("webhooks.events")}</dt>
          <dd>
            <EventTypeList events={item.events} />
          </dd>
        </div>
        <div>
          <dt>{t("webhooks.filters")}</dt>
          <dd>
            <FiltersText countries={item.countries} operators={item.operators} />
          </dd>
        </div>
        <div>
          <dt>{t("common.created")}</dt>
          <dd>{dateTime(item.created_at)}</dd>
        </div>
      </dl>
      <div className="actions">
        <button
          type="button"
          onClick={() => {
            sendTest.reset();
            setTestOpen(true);
          }}
        >
          {t("webhooks.sendTest")}
        </button>
        <Link href={`/webhooks/${item.id}/edit`} className="button button-secondary">
          {t("webhooks.edit")}
        </Link>
        <button type="button" className="button-secondary" onClick={() => toggle.mutate()} disabled={toggle.isPending}>
          {item.enabled ? t("webhooks.disable") : t("webhooks.enable")}
        </button>
        <button type="button" className="button-danger-outline" onClick={() => setConfirmDelete(true)}>
          {t("webhooks.delete")}
        </button>
      </div>
      {!item.enabled ? <p className="hint">{t("webhooks.disabledNote")}</p> : null}
      {testSent ? (
        <p role="status" className="notice notice-info">
          {t("webhooks.testQueued")}{" "}
          <Link href={`/webhooks/${item.id}/deliveries/${testSent}`}>{t("webhooks.openDelivery")}</Link>
        </p>
      ) : null}
      <Dialog open={testOpen} title={t("test.title")} onClose={() => setTestOpen(false)} wide>
        <form
          className="form"
          onSubmit={(event) => {
            event.preventDefault();
            sendTest.mutate();
          }}
        >
          <p>{t("test.intro")}</p>
          <EventTypeChoice legend={t("test.type")} value={testType} onChange={setTestType} summaryOption subscribed={item.events} />
          <div className="actions">
            <button type="submit" disabled={sendTest.isPending}>
              {t("test.send")}
            </button>
          </div>
          {sendTest.isError ? <ErrorNotice error={sendTest.error} /> : null}
        </form>
      </Dialog>
      {toggle.isError ? <ErrorNotice error={toggle.error} /> : null}
      <ConfirmDialog
        open={confirmDelete}
        title={t("webhooks.deleteTitle")}
        confirmLabel={t("webhooks.deleteConfirm")}
        onConfirm={() => remove.mutate()}
        onClose={() => setConfirmDelete(false)}
        mutation={remove}
      >
        <p>{t("webhooks.deleteBody")}</p>
      </ConfirmDialog>
    </section>
  );
}

function Rotation({ item }: { item: WebhookSubscription }) {
  const { t, duration, dateTime } = useI18n();
  const queryClient = useQueryClient();
  const graceId = useId();
  const graceHint = useId();
  const [open, setOpen] = useState(false);
  const [grace, setGrace] = useState("3600");
  const [rotated, setRotated] = useState<string | null>(null);
  const [confirmRevoke, setConfirmRevoke] = useState(false);
  const expiresAt = item.previous_secret_expires_at ? Date.parse(item.previous_secret_expires_at) : null;
  const left = useSecondsLeft(expiresAt);
  const refresh = () => queryClient.invalidateQueries({ queryKey: WEBHOOKS });
  const rotate = useMutation({
    mutationFn: () => api.webhooks.rotateSecret.mutate({ id: item.id, grace_seconds: Number(grace) }),
    onSuccess: (result) => {
      setRotated(result.secret);
      void refresh();
    },
  });
  const revokePrevious = useMutation({
    mutationFn: () => api.webhooks.revokePreviousSecret.mutate({ id: item.id }),
    onSuccess: () => {
      setConfirmRevoke(false);
      void refresh();
    },
  });
  const graceValue = Number(grace);
  const graceValid = grace.trim() !== "" && Number.isInteger(graceValue) && graceValue >= 0 && graceValue <= 86_400;
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (graceValid) rotate.mutate();
  };
  return (
    <section className="card" aria-labelledby="rotation-title">
      <h2 id="rotation-title">{t("rotation.title")}</h2>
      <p>{t("rotation.intro")}</p>
      {expiresAt !== null && left > 0 ? (
        <div className="notice notice-warning">
          <p role="timer" aria-live="off">
            {t("rotation.previousValid", { time: duration(left), at: dateTime(item.previous_secret_expires_at) })}
          </p>
          <button type="button" className="button-danger-outline" onClick={() => setConfirmRevoke(true)}>
            {t("rotation.revokePrevious")}
          </button>
        </div>
      ) : (
        <p className="muted">{t("rotation.noPrevious")}</p>
      )}
      <button
        type="button"
        onClick={() => {
          setRotated(null);
          rotate.reset();
          setOpen(true);
        }}
      >
        {t("rotation.rotate")}
      </button>
      <Dialog open={open} title={t("rotation.rotate")} onClose={() => setOpen(false)} wide>
        {rotated ? (
          <>
            <SecretOnce label={t("rotation.newSecret")} value={rotated} warning={t("webhooks.secretShownOnce")} />
            <p className="hint">{t("rotation.after")}</p>
            <div className="actions">
              <button type="button" onClick={() => setOpen(false)}>
                {t("keys.savedIt")}
              </button>
            </div>
          </>
        ) : (
          <form onSubmit={submit} className="form" noValidate>
            <div className="field">
              <label htmlFor={graceId}>{t("rotation.grace")}</label>
              <input id={graceId} type="number" inputMode="numeric" min={0} max={86400} step={1} value={grace} onChange={(e) => setGrace(e.currentTarget.value)} aria-describedby={graceHint} aria-invalid={!graceValid} required />
              <p id={graceHint} className="hint">
                {graceValid ? t("rotation.graceHint", { time: duration(graceValue) }) : t("rotation.graceInvalid")}
              </p>
            </div>
            <div className="actions">
              <button type="submit" disabled={!graceValid || rotate.isPending}>
                {t("rotation.rotateNow")}
              </button>
            </div>
            {rotate.isError ? <ErrorNotice error={rotate.error} /> : null}
          </form>
        )}
      </Dialog>
      <ConfirmDialog
        open={confirmRevoke}
        title={t("rotation.revokePrevious")}
        confirmLabel={t("rotation.revokePreviousConfirm")}
        onConfirm={() => revokePrevious.mutate()}
        onClose={() => setConfirmRevoke(false)}
        mutation={revokePrevious}
      >
        <p>{t("rotation.revokePreviousBody")}</p>
      </ConfirmDialog>
    </section>
  );
}

function Deliveries({ item }: { item: WebhookSubscription }) {
  const { t, tn } = useI18n();
  const queryClient = useQueryClient();
  const log = useDeliveryLog(deliveriesKey(item.id), (page) => api.webhooks.listDeliveries.query({ id: item.id, ...page }));
  const [selected, setSelected] = useState<string[]>([]);
  const retryBatch = useMutation({
    mutationFn: () => api.webhooks.retryDeliveries.mutate({ id: item.id, delivery_ids: selected }),
    onSuccess: () => {
      setSelected([]);
      void queryClient.invalidateQueries({ queryKey: deliveriesKey(item.id) });
    },
  });
  return (
    <section aria-labelledby="deliveries-title">
      <h2 id="deliveries-title">{t("deliveries.title")}</h2>
      <DeliveryToolbar log={log} onFilterChange={() => setSelected([])}>
        <button type="button" onClick={() => retryBatch.mutate()} disabled={selected.length === 0 || selected.length > RETRY_BATCH_MAX || retryBatch.isPending}>
          {t("deliveries.retrySelected", { n: selected.length })}
        </button>
      </DeliveryToolbar>
      <p className="hint">{t("deliveries.retryHint", { max: RETRY_BATCH_MAX })}</p>
      {selected.length > RETRY_BATCH_MAX ? <p className="notice notice-warning">{t("deliveries.tooMany", { max: RETRY_BATCH_MAX })}</p> : null}
      {retryBatch.isSuccess ? (
        <p role="status" className="notice notice-info">
          {tn("deliveries.retried", retryBatch.data.queued)}
        </p>
      ) : null}
      {retryBatch.isError ? <ErrorNotice error={retryBatch.error} /> : null}
      <DeliveryTable log={log} hrefOf={(d) => `/webhooks/${item.id}/deliveries/${d.id}`} retried selection={{ selected, setSelected }} />
    </section>
  );
}
