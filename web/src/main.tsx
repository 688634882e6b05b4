import { isIr21ApiError } from "@ir21/sdk";
import { MutationCache, QueryCache, QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { isSignedOut } from "./api.ts";
import { App, preloadPage } from "./app.tsx";
import { I18nProvider } from "./i18n/i18n.tsx";
import { ME } from "./session.tsx";
import "./styles.css";

// The app's routes live under /app (docs/console.md "Web console"); the server answers `/` with the
// same page, so move the address there before the router reads it.
if (!location.pathname.startsWith("/app")) history.replaceState(null, "", "/app/");
preloadPage(location.pathname);

const queryClient: QueryClient = new QueryClient({
  // A session revoked elsewhere (another tab's sign-out, revoke-others) shows up as a 401 on any call:
  // forget the user, and the pages send the person to sign in.
  queryCache: new QueryCache({ onError: (error) => isSignedOut(error) && queryClient.setQueryData(ME, null) }),
  mutationCache: new MutationCache({ onError: (error) => isSignedOut(error) && queryClient.setQueryData(ME, null) }),
  defaultOptions: {
    queries: {
      // Data queries are metered on the account: never repeat an answered request by ourselves. Only
      // a request that got no answer at all is tried again.
      retry: (count, error) => (isIr21ApiError(error) && error.status !== 0 ? false : count < 2),
      refetchOnWindowFocus: false,
    },
  },
});

createRoot(document.getElementById("root")!).render(
  <StrictMode>
    <I18nProvider>
      <QueryClientProvider client={queryClient}>
        <App />
      </QueryClientProvider>
    </I18nProvider>
  </StrictMode>,
);
