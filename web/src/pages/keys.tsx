import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useId, useState, type FormEvent } from "react";
import { api } from "../api.ts";
import { useI18n } from "../i18n/i18n.tsx";
import { ConfirmDialog, Dialog } from "../ui/dialog.tsx";
import { ErrorNotice } from "../ui/error-notice.tsx";
import { Loading, PageTitle } from "../ui/layout-bits.tsx";
import { RevocableTable } from "../ui/revocable-table.tsx";
import { SecretOnce } from "../ui/secret.tsx";

const KEYS = ["console", "apiKeys"] as const;

/** API keys (docs/console.md "API keys"): list, create (the key shown once), revoke with confirmation. */
export default function KeysPage() {
  const { t, dateTime } = useI18n();
  const queryClient = useQueryClient();
  const nameId = useId();
  const keys = useQuery({ queryKey: KEYS, queryFn: () => api.console.apiKeys.list.query() });
  const [name, setName] = useState("");
  const [created, setCreated] = useState<{ key: string; name: string } | null>(null);
  const [revoking, setRevoking] = useState<{ id: string; name: string } | null>(null);

  const create = useMutation({
    mutationFn: (keyName: string) => api.console.apiKeys.create.mutate({ name: keyName }),
    onSuccess: ({ key, item }) => {
      setCreated({ key, name: item.name });
      setName("");
      void queryClient.invalidateQueries({ queryKey: KEYS });
    },
  });
  const revoke = useMutation({
    mutationFn: (id: string) => api.console.apiKeys.revoke.mutate({ id }),
    onSuccess: () => {
      setRevoking(null);
      void queryClient.invalidateQueries({ queryKey: KEYS });
    },
  });

  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate(name.trim());
  };

  return (
    <>
      <PageTitle text={t("keys.title")} />
      <p>{t("keys.intro")}</p>
      <p className="notice notice-info">{t("keys.rotation")}</p>

      <form onSubmit={submit} className="card form inline-form">
        <div className="field">
          <label htmlFor={nameId}>{t("keys.name")}</label>
          <input id={nameId} value={name} onChange={(e) => setName(e.currentTarget.value)} maxLength={64} required placeholder={t("keys.namePlaceholder")} />
        </div>
        <button type="submit" disabled={name.trim() === "" || create.isPending}>
          {t("keys.create")}
        </button>
      </form>
      {create.isError ? <ErrorNotice error={create.error} /> : null}

      <h2>{t("keys.listTitle")}</h2>
      {keys.isPending ? <Loading /> : null}
      {keys.isError ? <ErrorNotice error={keys.error} /> : null}
      {keys.data && keys.data.items.length === 0 ? <p className="muted">{t("keys.none")}</p> : null}
      {keys.data && keys.data.items.length > 0 ? (
        <RevocableTable
          label={t("keys.listTitle")}
          items={keys.data.items}
          name={{ header: t("keys.name"), cell: (key) => key.name }}
          columns={[
            { header: t("keys.prefix"), cell: (key) => <code>{key.prefix}…</code> },
            { header: t("common.created"), cell: (key) => dateTime(key.created_at) },
            { header: t("keys.lastUsed"), cell: (key) => (key.last_used_at ? dateTime(key.last_used_at) : t("keys.neverUsed")) },
            {
              header: t("common.status"),
              cell: (key) => (key.revoked_at ? <span className="badge badge-muted">{t("keys.revokedAt", { at: dateTime(key.revoked_at) })}</span> : <span className="badge badge-ok">{t("keys.active")}</span>),
            },
          ]}
          revoke={{
            label: () => t("keys.revoke"),
            accessibleName: (key) => t("keys.revokeNamed", { name: key.name }),
            available: (key) => !key.revoked_at,
            onClick: (key) => setRevoking({ id: key.id, name: key.name }),
          }}
        />
      ) : null}

      <Dialog open={created !== null} title={t("keys.createdTitle", { name: created?.name ?? "" })} onClose={() => setCreated(null)} wide>
        {created ? <SecretOnce label={t("keys.theKey")} value={created.key} warning={t("keys.shownOnce")} /> : null}
        <p className="hint">{t("keys.usage")}</p>
        <div className="actions">
          <button type="button" onClick={() => setCreated(null)}>
            {t("keys.savedIt")}
          </button>
        </div>
      </Dialog>

      <ConfirmDialog
        open={revoking !== null}
        title={t("keys.revokeTitle", { name: revoking?.name ?? "" })}
        confirmLabel={t("keys.revokeConfirm")}
        onConfirm={() => revoking && revoke.mutate(revoking.id)}
        onClose={() => setRevoking(null)}
        mutation={revoke}
      >
        <p>{t("keys.revokeBody")}</p>
      </ConfirmDialog>
    </>
  );
}
