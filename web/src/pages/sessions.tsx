import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { useLocation } from "wouter";
import { api } from "../api.ts";
import { useI18n } from "../i18n/i18n.tsx";
import { ME } from "../session.tsx";
import { ConfirmDialog } from "../ui/dialog.tsx";
import { ErrorNotice } from "../ui/error-notice.tsx";
import { Loading, PageTitle, TableWrap } from "../ui/layout-bits.tsx";

const SESSIONS = ["console", "sessions"] as const;

/** Sign-in sessions: the current one marked, revoke one, revoke all others (API keys stay valid). */
export default function SessionsPage() {
  const { t, dateTime } = useI18n();
  const queryClient = useQueryClient();
  const [, navigate] = useLocation();
  const sessions = useQuery({ queryKey: SESSIONS, queryFn: () => api.console.sessions.list.query() });
  const [revoking, setRevoking] = useState<{ id: string; current: boolean } | null>(null);
  const [confirmOthers, setConfirmOthers] = useState(false);
  const [revokedOthers, setRevokedOthers] = useState<number | null>(null);

  const revoke = useMutation({
    mutationFn: (id: string) => api.console.sessions.revoke.mutate({ id }),
    onSuccess: (result) => {
      setRevoking(null);
      if (result.current) {
        // Revoking this browser's own session is signing out.
        queryClient.clear();
        queryClient.setQueryData(ME, null);
        navigate("/sign-in?signed_out=1");
      } else void queryClient.invalidateQueries({ queryKey: SESSIONS });
    },
  });
  const revokeOthers = useMutation({
    mutationFn: () => api.console.sessions.revokeOthers.mutate(),
    onSuccess: (result) => {
      setConfirmOthers(false);
      setRevokedOthers(result.revoked);
      void queryClient.invalidateQueries({ queryKey: SESSIONS });
    },
  });

  const others = sessions.data?.items.filter((s) => !s.current).length ?? 0;
  return (
    <>
      <PageTitle text={t("sessions.title")} />
      <p>{t("sessions.intro")}</p>
      {sessions.isPending ? <Loading /> : null}
      {sessions.isError ? <ErrorNotice error={sessions.error} /> : null}
      {sessions.data ? (
        <TableWrap label={t("sessions.title")}>
          <table>
            <thead>
              <tr>
                <th scope="col">{t("sessions.session")}</th>
                <th scope="col">{t("sessions.signedIn")}</th>
                <th scope="col">{t("sessions.expires")}</th>
                <th scope="col">
                  <span className="visually-hidden">{t("common.actions")}</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {sessions.data.items.map((session) => (
                <tr key={session.id} className={session.current ? "row-current" : undefined}>
                  <th scope="row">
                    <code>{session.id}</code> {session.current ? <span className="badge badge-ok">{t("sessions.current")}</span> : null}
                  </th>
                  <td>{dateTime(session.created_at)}</td>
                  <td>{dateTime(session.expires_at)}</td>
                  <td>
                    <button type="button" className="button-danger-outline" onClick={() => setRevoking({ id: session.id, current: session.current })}>
                      {session.current ? t("sessions.revokeCurrent") : t("sessions.revoke")}
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      ) : null}

      <section className="card">
        <h2>{t("sessions.othersTitle")}</h2>
        <p>{t("sessions.othersBody")}</p>
        <button type="button" className="button-danger" disabled={others === 0} onClick={() => setConfirmOthers(true)}>
          {t("sessions.revokeOthers")}
        </button>
        {revokedOthers !== null ? (
          <p role="status" className="notice notice-info">
            {t("sessions.revokedOthers", { n: revokedOthers })}
          </p>
        ) : null}
      </section>

      <ConfirmDialog
        open={revoking !== null}
        title={revoking?.current ? t("sessions.revokeCurrentTitle") : t("sessions.revokeTitle")}
        confirmLabel={revoking?.current ? t("sessions.revokeCurrent") : t("sessions.revoke")}
        onConfirm={() => revoking && revoke.mutate(revoking.id)}
        onClose={() => {
          setRevoking(null);
          revoke.reset();
        }}
        busy={revoke.isPending}
        error={revoke.isError ? <ErrorNotice error={revoke.error} /> : null}
      >
        <p>{revoking?.current ? t("sessions.revokeCurrentBody") : t("sessions.revokeBody")}</p>
      </ConfirmDialog>
      <ConfirmDialog
        open={confirmOthers}
        title={t("sessions.revokeOthers")}
        confirmLabel={t("sessions.revokeOthersConfirm", { n: others })}
        onConfirm={() => revokeOthers.mutate()}
        onClose={() => {
          setConfirmOthers(false);
          revokeOthers.reset();
        }}
        busy={revokeOthers.isPending}
        error={revokeOthers.isError ? <ErrorNotice error={revokeOthers.error} /> : null}
      >
        <p>{t("sessions.othersBody")}</p>
      </ConfirmDialog>
    </>
  );
}
