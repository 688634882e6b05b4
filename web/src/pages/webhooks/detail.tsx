import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useId, useState, type FormEvent } from "react";
import { Link, useLocation } from "wouter";
import { api } from "../../api.ts";
import { useI18n } from "../../i18n/i18n.tsx";
import { ConfirmDialog, Dialog } from "../../ui/dialog.tsx";
import { ErrorNotice } from "../../ui/error-notice.tsx";
import { Loading, PageTitle, Pager, TableWrap } from "../../ui/layout-bits.tsx";
import { useCursorPages } from "../../ui/cursor-pages.ts";
import { SecretOnce } from "../../ui/secret.tsx";
import { useSecondsLeft } from "../../ui/time.ts";
import { EventTypeChoice, type TestChoice } from "./event-type-choice.tsx";
import { filtersText } from "./list.tsx";
import { DELIVERY_STATUSES, WEBHOOKS, deliveriesKey, statusLabel, useWebhook } from "./shared.ts";
import type { WebhookSubscription } from "@ir21/sdk";

const RETRY_BATCH_MAX = 20;
const PAGE_SIZE = 20;

/** One subscription: its settings and actions, its secret rotation, and its deliveries. */
export default function WebhookPage({ id }: { id: string }) {
  const { t } = useI18n();
  const { item, query } = useWebhook(id);
  if (item === undefined) return query.isError ? <ErrorNotice error={query.error} /> : <Loading />;
  if (item === null) {
    return (
      <>
        <PageTitle text={t("webhooks.notFound")} />
        <Link href="/webhooks">{t("webhooks.backToList")}</Link>
      </>
    );
  }
  return (
    <>
      <p className="breadcrumb">
        <Link href="/webhooks">{t("nav.webhooks")}</Link>
      </p>
      <PageTitle text={t("webhooks.detailTitle")}>
        {t("webhooks.detailTitle")} <span className="url subtitle">{item.url}</span>
      </PageTitle>
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
            <ul className="plain">
              {item.events.map((e) => (
                <li key={e}>
                  <code>{e}</code>
                </li>
              ))}
            </ul>
          </dd>
        </div>
        <div>
          <dt>{t("webhooks.filters")}</dt>
          <dd>{filtersText(t, item.countries, item.operators)}</dd>
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
        onClose={() => {
          setConfirmDelete(false);
          remove.reset();
        }}
        busy={remove.isPending}
        error={remove.isError ? <ErrorNotice error={remove.error} /> : null}
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
        onClose={() => {
          setConfirmRevoke(false);
          revokePrevious.reset();
        }}
        busy={revokePrevious.isPending}
        error={revokePrevious.isError ? <ErrorNotice error={revokePrevious.error} /> : null}
      >
        <p>{t("rotation.revokePreviousBody")}</p>
      </ConfirmDialog>
    </section>
  );
}

function Deliveries({ item }: { item: WebhookSubscription }) {
  const { t, dateTime, number } = useI18n();
  const queryClient = useQueryClient();
  const statusId = useId();
  const [status, setStatus] = useState<(typeof DELIVERY_STATUSES)[number] | "">("");
  const pages = useCursorPages();
  const [selected, setSelected] = useState<string[]>([]);
  const deliveries = useQuery({
    queryKey: [...deliveriesKey(item.id), status, pages.cursor],
    queryFn: () => api.webhooks.listDeliveries.query({ id: item.id, limit: PAGE_SIZE, ...(status ? { status } : {}), ...(pages.cursor ? { cursor: pages.cursor } : {}) }),
    // While something is on its way, look again now and then.
    refetchInterval: (query) => (query.state.data?.items.some((d) => d.status === "pending") ? 3000 : false),
  });
  const retryBatch = useMutation({
    mutationFn: () => api.webhooks.retryDeliveries.mutate({ id: item.id, delivery_ids: selected }),
    onSuccess: () => {
      setSelected([]);
      void queryClient.invalidateQueries({ queryKey: deliveriesKey(item.id) });
    },
  });
  const toggle = (id: string, on: boolean) => setSelected(on ? [...selected, id] : selected.filter((s) => s !== id));
  const items = deliveries.data?.items ?? [];
  const allOnPage = items.length > 0 && items.every((d) => selected.includes(d.id));
  return (
    <section aria-labelledby="deliveries-title">
      <h2 id="deliveries-title">{t("deliveries.title")}</h2>
      <div className="toolbar">
        <div className="field">
          <label htmlFor={statusId}>{t("deliveries.filter")}</label>
          <select
            id={statusId}
            value={status}
            onChange={(e) => {
              setStatus(e.currentTarget.value as typeof status);
              pages.reset();
              setSelected([]);
            }}
          >
            <option value="">{t("deliveries.all")}</option>
            {DELIVERY_STATUSES.map((s) => (
              <option key={s} value={s}>
                {t(statusLabel(s))}
              </option>
            ))}
          </select>
        </div>
        <button type="button" className="button-secondary" onClick={() => deliveries.refetch()} disabled={deliveries.isFetching}>
          {t("common.refresh")}
        </button>
        <button type="button" onClick={() => retryBatch.mutate()} disabled={selected.length === 0 || selected.length > RETRY_BATCH_MAX || retryBatch.isPending}>
          {t("deliveries.retrySelected", { n: selected.length })}
        </button>
      </div>
      <p className="hint">{t("deliveries.retryHint", { max: RETRY_BATCH_MAX })}</p>
      {selected.length > RETRY_BATCH_MAX ? <p className="notice notice-warning">{t("deliveries.tooMany", { max: RETRY_BATCH_MAX })}</p> : null}
      {retryBatch.isSuccess ? (
        <p role="status" className="notice notice-info">
          {t("deliveries.retried", { n: retryBatch.data.queued })}
        </p>
      ) : null}
      {retryBatch.isError ? <ErrorNotice error={retryBatch.error} /> : null}
      {deliveries.isPending ? <Loading /> : null}
      {deliveries.isError ? <ErrorNotice error={deliveries.error} /> : null}
      {deliveries.data && items.length === 0 ? <p className="muted">{t("deliveries.none")}</p> : null}
      {items.length > 0 ? (
        <TableWrap label={t("deliveries.title")}>
          <table>
            <thead>
              <tr>
                <th scope="col">
                  <input
                    type="checkbox"
                    aria-label={t("deliveries.selectPage")}
                    checked={allOnPage}
                    onChange={(e) => setSelected(e.currentTarget.checked ? [...new Set([...selected, ...items.map((d) => d.id)])] : selected.filter((s) => !items.some((d) => d.id === s)))}
                  />
                </th>
                <th scope="col">{t("deliveries.event")}</th>
                <th scope="col">{t("common.status")}</th>
                <th scope="col" className="num">
                  {t("deliveries.attempts")}
                </th>
                <th scope="col">{t("deliveries.response")}</th>
                <th scope="col">{t("common.created")}</th>
                <th scope="col">{t("deliveries.nextAttempt")}</th>
              </tr>
            </thead>
            <tbody>
              {items.map((d) => (
                <tr key={d.id}>
                  <td>
                    <input type="checkbox" checked={selected.includes(d.id)} onChange={(e) => toggle(d.id, e.currentTarget.checked)} aria-label={t("deliveries.select", { id: d.id })} />
                  </td>
                  <th scope="row">
                    <Link href={`/webhooks/${item.id}/deliveries/${d.id}`}>
                      <code>{d.event_type}</code>
                    </Link>
                    <div className="muted small">{d.id}</div>
                  </th>
                  <td>
                    <span className={`badge badge-${d.status}`}>{t(statusLabel(d.status))}</span>
                  </td>
                  <td className="num">{number(d.attempts)}</td>
                  <td>{d.response_status ?? d.last_error ?? "—"}</td>
                  <td>{dateTime(d.created_at)}</td>
                  <td>{d.next_attempt_at ? dateTime(d.next_attempt_at) : "—"}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      ) : null}
      {deliveries.data ? (
        <Pager
          hasPrevious={pages.hasPrevious}
          hasNext={Boolean(deliveries.data.next_cursor)}
          onPrevious={pages.previous}
          onNext={() => deliveries.data.next_cursor && pages.next(deliveries.data.next_cursor)}
          summary={t("deliveries.summary", { page: pages.page, total: number(deliveries.data.total) })}
        />
      ) : null}
    </section>
  );
}
