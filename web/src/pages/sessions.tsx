import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { useLocation } from "wouter";
import { api } from "../api.ts";
import { useI18n } from "../i18n/i18n.tsx";
import { ME } from "../session.tsx";
import { ConfirmDialog } from "../ui/dialog.tsx";
import { ErrorNotice } from "../ui/error-notice.tsx";
import { Loading, PageTitle } from "../ui/layout-bits.tsx";
import { RevocableTable } from "../ui/revocable-table.tsx";

const SESSIONS = ["console", "sessions"] as const;

/** Sign-in sessions: the current one marked, revoke one, revoke all others (API keys stay valid). */
export default function SessionsPage() {
  const { t, tn, dateTime } = useI18n();
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
        <RevocableTable
          label={t("sessions.title")}
          items={sessions.data.items}
          name={{
            header: t("sessions.session"),
            cell: (session) => (
              <>
                <code>{session.id}</code> {session.current ? <span className="badge badge-ok">{t("sessions.current")}</span> : null}
              </>
            ),
          }}
          columns={[
            { header: t("sessions.signedIn"), cell: (session) => dateTime(session.created_at) },
            { header: t("sessions.expires"), cell: (session) => dateTime(session.expires_at) },
          ]}
          rowClassName={(session) => (session.current ? "row-current" : undefined)}
          revoke={{
            label: (session) => (session.current ? t("sessions.revokeCurrent") : t("sessions.revoke")),
            onClick: (session) => setRevoking({ id: session.id, current: session.current }),
          }}
        />
      ) : null}

      <section className="card">
        <h2>{t("sessions.othersTitle")}</h2>
        <p>{t("sessions.othersBody")}</p>
        <button type="button" className="button-danger" disabled={others === 0} onClick={() => setConfirmOthers(true)}>
          {t("sessions.revokeOthers")}
        </button>
        {revokedOthers !== null ? (
          <p role="status" className="notice notice-info">
            {tn("sessions.revokedOthers", revokedOthers)}
          </p>
        ) : null}
      </section>

      <ConfirmDialog
        open={revoking !== null}
        title={revoking?.current ? t("sessions.revokeCurrentTitle") : t("sessions.revokeTitle")}
        confirmLabel={revoking?.current ? t("sessions.revokeCurrent") : t("sessions.revoke")}
        onConfirm={() => revoking && revoke.mutate(revoking.id)}
        onClose={() => setRevoking(null)}
        mutation={revoke}
      >
        <p>{revoking?.current ? t("sessions.revokeCurrentBody") : t("sessions.revokeBody")}</p>
      </ConfirmDialog>
      <ConfirmDialog
        open={confirmOthers}
        title={t("sessions.revokeOthers")}
        confirmLabel={tn("sessions.revokeOthersConfirm", others)}
        onConfirm={() => revokeOthers.mutate()}
        onClose={() => setConfirmOthers(false)}
        mutation={revokeOthers}
      >
        <p>{t("sessions.othersBody")}</p>
      </ConfirmDialog>
    </>
  );
}
