import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useId, useState, type FormEvent } from "react";
import { api } from "../api.ts";
import { useI18n } from "../i18n/i18n.tsx";
import { ConfirmDialog, Dialog } from "../ui/dialog.tsx";
import { ErrorNotice } from "../ui/error-notice.tsx";
import { Loading, PageTitle, TableWrap } from "../ui/layout-bits.tsx";
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
        <TableWrap label={t("keys.listTitle")}>
          <table>
            <thead>
              <tr>
                <th scope="col">{t("keys.name")}</th>
                <th scope="col">{t("keys.prefix")}</th>
                <th scope="col">{t("common.created")}</th>
                <th scope="col">{t("keys.lastUsed")}</th>
                <th scope="col">{t("common.status")}</th>
                <th scope="col">
                  <span className="visually-hidden">{t("common.actions")}</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {keys.data.items.map((key) => (
                <tr key={key.id}>
                  <th scope="row">{key.name}</th>
                  <td>
                    <code>{key.prefix}…</code>
                  </td>
                  <td>{dateTime(key.created_at)}</td>
                  <td>{key.last_used_at ? dateTime(key.last_used_at) : t("keys.neverUsed")}</td>
                  <td>{key.revoked_at ? <span className="badge badge-muted">{t("keys.revokedAt", { at: dateTime(key.revoked_at) })}</span> : <span className="badge badge-ok">{t("keys.active")}</span>}</td>
                  <td>
                    {key.revoked_at ? null : (
                      <button type="button" className="button-danger-outline" onClick={() => setRevoking({ id: key.id, name: key.name })} aria-label={t("keys.revokeNamed", { name: key.name })}>
                        {t("keys.revoke")}
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
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
        onClose={() => {
          setRevoking(null);
          revoke.reset();
        }}
        busy={revoke.isPending}
        error={revoke.isError ? <ErrorNotice error={revoke.error} /> : null}
      >
        <p>{t("keys.revokeBody")}</p>
      </ConfirmDialog>
    </>
  );
}
