import { lazy, Suspense, useEffect, useRef, type ReactNode } from "react";
import { Link, Redirect, Route, Router, Switch, useLocation } from "wouter";
import { useI18n, type Lang } from "./i18n/i18n.tsx";
import type { MessageKey } from "./i18n/en.ts";
import { RequireSession, useMe, useSignOut } from "./session.tsx";
import { ErrorNotice } from "./ui/error-notice.tsx";
import { Loading, PageTitle } from "./ui/layout-bits.tsx";
import { SignInPage } from "./pages/sign-in.tsx";
import { maskPhone } from "./ui/phone.ts";

// Pages load on demand, so the first load carries the shell and the sign-in page only (the budget in
// docs/console.md "Web console": 200 KB of JavaScript, gzipped).
const PAGES = {
  usage: () => import("./pages/usage.tsx"),
  keys: () => import("./pages/keys.tsx"),
  sessions: () => import("./pages/sessions.tsx"),
  plan: () => import("./pages/plan.tsx"),
  webhooks: () => import("./pages/webhooks/list.tsx"),
  webhookForm: () => import("./pages/webhooks/form-page.tsx"),
  webhook: () => import("./pages/webhooks/detail.tsx"),
  delivery: () => import("./pages/webhooks/delivery.tsx"),
  listenSession: () => import("./pages/webhooks/listen-session.tsx"),
  explorer: () => import("./pages/explorer/explorer.tsx"),
  contact: () => import("./pages/contact.tsx"),
};
const UsagePage = lazy(PAGES.usage);
const KeysPage = lazy(PAGES.keys);
const SessionsPage = lazy(PAGES.sessions);
const PlanPage = lazy(PAGES.plan);
const WebhooksPage = lazy(PAGES.webhooks);
const WebhookFormPage = lazy(PAGES.webhookForm);
const WebhookPage = lazy(PAGES.webhook);
const DeliveryPage = lazy(PAGES.delivery);
const ListenSessionPage = lazy(PAGES.listenSession);
const ExplorerPage = lazy(PAGES.explorer);
const ContactPage = lazy(PAGES.contact);

/**
 * Starts loading the page a deep link opens while the session is being checked, rather than after:
 * one round trip less before the page is usable. (The modules are cached, so lazy() finds them.)
 */
export function preloadPage(path: string): void {
  const [, first = "", second = "", third = "", , fifth = ""] = path.replace(/^\/app/, "").split("/");
  const page =
    first === "webhooks"
      ? second === ""
        ? "webhooks"
        : second === "listen"
          ? fifth === ""
            ? "listenSession"
            : "delivery"
          : second === "new" || third === "edit"
            ? "webhookForm"
            : third === "deliveries"
              ? "delivery"
              : "webhook"
      : first === ""
        ? "usage"
        : first;
  if (page in PAGES) void PAGES[page as keyof typeof PAGES]().catch(() => {});
}

const NAV: Array<{ href: string; label: MessageKey }> = [
  { href: "/usage", label: "nav.usage" },
  { href: "/keys", label: "nav.keys" },
  { href: "/webhooks", label: "nav.webhooks" },
  { href: "/explorer", label: "nav.explorer" },
  { href: "/sessions", label: "nav.sessions" },
  { href: "/plan", label: "nav.plan" },
];

export function App() {
  return (
    <Router base="/app">
      <Shell>
        <Suspense fallback={<Loading />}>
          <Switch>
            <Route path="/">
              <Redirect to="/usage" replace />
            </Route>
            <Route path="/sign-in" component={SignInPage} />
            <Route path="/contact" component={ContactPage} />
            <Route path="/usage">{signedIn(<UsagePage />)}</Route>
            <Route path="/keys">{signedIn(<KeysPage />)}</Route>
            <Route path="/sessions">{signedIn(<SessionsPage />)}</Route>
            <Route path="/plan">{signedIn(<PlanPage />)}</Route>
            <Route path="/webhooks">{signedIn(<WebhooksPage />)}</Route>
            <Route path="/webhooks/new">{signedIn(<WebhookFormPage />)}</Route>
            <Route path="/webhooks/:id/edit">{(params) => signedIn(<WebhookFormPage id={params.id} />)}</Route>
            <Route path="/webhooks/listen/:sessionId/deliveries/:deliveryId">
              {(params) => signedIn(<DeliveryPage id={params.sessionId} deliveryId={params.deliveryId} listen />)}
            </Route>
            <Route path="/webhooks/listen/:sessionId">{(params) => signedIn(<ListenSessionPage id={params.sessionId} />)}</Route>
            <Route path="/webhooks/:id/deliveries/:deliveryId">{(params) => signedIn(<DeliveryPage id={params.id} deliveryId={params.deliveryId} />)}</Route>
            <Route path="/webhooks/:id">{(params) => signedIn(<WebhookPage id={params.id} />)}</Route>
            <Route path="/explorer/:tab?">{(params) => signedIn(<ExplorerPage tab={params.tab} />)}</Route>
            <Route component={NotFound} />
          </Switch>
        </Suspense>
      </Shell>
    </Router>
  );
}

const signedIn = (page: ReactNode) => <RequireSession>{page}</RequireSession>;

function NotFound() {
  const { t } = useI18n();
  return (
    <>
      <PageTitle text={t("notFound.title")} />
      <p>{t("notFound.body")}</p>
      <p>
        <Link href="/usage">{t("notFound.home")}</Link>
      </p>
    </>
  );
}

/** Marks navigations after the first page, so page titles take focus only then (see PageTitle). */
function useNavigationMarker() {
  const [location] = useLocation();
  const first = useRef(true);
  useEffect(() => {
    if (first.current) first.current = false;
    else document.body.dataset.navigated = "1";
  }, [location]);
}

function Shell({ children }: { children: ReactNode }) {
  const { t, lang, setLang } = useI18n();
  const me = useMe();
  const signOut = useSignOut();
  const [location] = useLocation();
  useNavigationMarker();
  const user = me.data ?? null;
  return (
    <>
      <a className="skip-link" href="#main">
        {t("nav.skip")}
      </a>
      <header className="site-header">
        <div className="brand-row">
          <Link href={user ? "/usage" : "/sign-in"} className="brand">
            ir21 <span className="brand-sub">{t("brand.console")}</span>
          </Link>
          <div className="header-tools">
            <label className="lang-switch">
              <span className="visually-hidden">{t("lang.label")}</span>
              <select value={lang} onChange={(e) => setLang(e.currentTarget.value as Lang)} aria-label={t("lang.label")}>
                <option value="en" lang="en">
                  English
                </option>
                <option value="zh-CN" lang="zh-CN">
                  简体中文
                </option>
              </select>
            </label>
            {user ? (
              <>
                <span className="account" title={t("account.signedInAs")}>
                  <span className="visually-hidden">{t("account.signedInAs")} </span>
                  {maskPhone(user.phone)}
                </span>
                <button type="button" className="button-secondary" onClick={() => signOut.mutate()} disabled={signOut.isPending}>
                  {t("account.signOut")}
                </button>
              </>
            ) : null}
          </div>
        </div>
        <nav aria-label={t("nav.label")} className="site-nav">
          <ul>
            {user
              ? NAV.map((item) => (
                  <li key={item.href}>
                    <Link href={item.href} aria-current={location === item.href || location.startsWith(`${item.href}/`) ? "page" : undefined}>
                      {t(item.label)}
                    </Link>
                  </li>
                ))
              : null}
            <li>
              <Link href="/contact" aria-current={location === "/contact" ? "page" : undefined}>
                {t("nav.contact")}
              </Link>
            </li>
            <li>
              <a href="/docs">{t("nav.docs")}</a>
            </li>
          </ul>
        </nav>
      </header>
      <main id="main" className="content">
        {signOut.isError ? <ErrorNotice error={signOut.error} /> : null}
        {children}
      </main>
      <footer className="site-footer">
        <p className="muted">{t("footer.text")}</p>
      </footer>
    </>
  );
}
