import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { ReactNode } from "react";
import { Redirect, useLocation, useSearch } from "wouter";
import { api, isSignedOut } from "./api.ts";
import { ErrorNotice } from "./ui/error-notice.tsx";
import { Loading } from "./ui/layout-bits.tsx";

export const ME = ["auth", "me"] as const;

/** The signed-in user, or null without a live session (401). Other failures are errors. */
export function useMe() {
  return useQuery({
    queryKey: ME,
    queryFn: async () => {
      try {
        return (await api.auth.me.query()).user;
      } catch (error) {
        if (isSignedOut(error)) return null;
        throw error;
      }
    },
    staleTime: 60_000,
  });
}

/** Pages of the account: without a session they send the person to sign in, and back here after. */
export function RequireSession({ children }: { children: ReactNode }) {
  const me = useMe();
  const [location] = useLocation();
  const search = useSearch();
  if (me.isPending) return <Loading />;
  if (me.isError) return <ErrorNotice error={me.error} />;
  if (me.data === null) {
    const next = location + (search ? `?${search}` : "");
    return <Redirect to={`/sign-in?next=${encodeURIComponent(next)}`} replace />;
  }
  return <>{children}</>;
}

/** Sign out: the server revokes the session and clears the cookie; every cached answer is dropped. */
export function useSignOut() {
  const queryClient = useQueryClient();
  const [, navigate] = useLocation();
  return useMutation({
    mutationFn: () => api.auth.logout.mutate(),
    onSettled: () => {
      queryClient.clear();
      queryClient.setQueryData(ME, null);
      navigate("/sign-in?signed_out=1");
    },
  });
}
