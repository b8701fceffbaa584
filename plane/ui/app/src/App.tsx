// The shell: decides between first run, sign-in and the signed-in layout, and routes pages.

import { useEffect, useState } from "preact/hooks";
import { feedStatus, startFeed, stopFeed, subshells } from "./live";
import { startUnread, stopUnread, unread, unreadLabel } from "./notifications";
import { safeNext } from "./next";
import { Link, match, navigate, useRoute } from "./router";
import { boot, instanceName, session, signOut } from "./session";
import { useStore } from "./store";
import { ConfirmHost, Toasts } from "./ui";
import { AccountPage } from "./pages/Account";
import { SetupPage, SignInPage } from "./pages/Auth";
import { ChannelPage, ChannelsPage } from "./pages/Channels";
import { FilesPage } from "./pages/Files";
import { NodesPage } from "./pages/Nodes";
import { NotificationsPage } from "./pages/Notifications";
import { AuditPage } from "./pages/settings/AuditPage";
import { GeneralPage } from "./pages/settings/GeneralPage";
import { KeysPage } from "./pages/settings/KeysPage";
import { StatusPage } from "./pages/settings/StatusPage";
import { UsersPage } from "./pages/settings/UsersPage";
import { RecordingPage } from "./pages/Recording";
import { SubshellPage } from "./pages/Subshell";
import { SubshellsPage } from "./pages/Subshells";
import { OverviewPage } from "./pages/Overview";
import { WorkspacesPage } from "./pages/Workspaces";

/** Keeps `--vvh` at the visual viewport's height, so the layout shrinks above an on-screen keyboard. */
function trackViewport() {
  const vv = window.visualViewport;
  const set = () => {
    const h = vv ? vv.height : window.innerHeight;
    document.documentElement.style.setProperty("--vvh", `${Math.round(h)}px`);
    if (vv && vv.offsetTop > 0) window.scrollTo(0, 0);
  };
  set();
  vv?.addEventListener("resize", set);
  vv?.addEventListener("scroll", set);
  window.addEventListener("resize", set);
}
trackViewport();

export function App() {
  const s = useStore(session);
  const { path } = useRoute();

  useEffect(() => {
    void boot();
  }, []);

  // Keep the address bar in step with what is shown.
  useEffect(() => {
    if (s.kind === "setup" && path !== "/setup") navigate("/setup", { replace: true });
    if (s.kind === "signed-out" && path !== "/sign-in") {
      const next = path === "/" || path === "/setup" ? "" : `?next=${encodeURIComponent(path + location.search)}`;
      navigate(`/sign-in${next}`, { replace: true });
    }
    // Read the address as it is now, not as it was when this render was made: a sign-in may
    // have gone on to where the person was going in the meantime.
    const now = location.pathname;
    if (s.kind === "signed-in" && (now === "/" || now === "/sign-in" || now === "/setup")) {
      const next = now === "/sign-in" ? new URLSearchParams(location.search).get("next") : null;
      navigate(safeNext(next), { replace: true });
    }
  }, [s.kind, path]);

  useEffect(() => {
    if (s.kind === "signed-in") {
      startFeed();
      startUnread();
    } else {
      stopFeed();
      stopUnread();
    }
  }, [s.kind]);

  switch (s.kind) {
    case "loading":
      return (
        <main class="auth" id="main">
          <p class="muted" role="status">
            Loading…
          </p>
        </main>
      );
    case "unreachable":
      return (
        <main class="auth" id="main">
          <div class="auth-card">
            <h1>The plane cannot be reached</h1>
            <p>{s.message}</p>
            <button type="button" class="btn btn-primary" onClick={() => location.reload()}>
              Try again
            </button>
          </div>
        </main>
      );
    case "setup":
      return (
        <>
          <SetupPage />
          <Toasts />
        </>
      );
    case "signed-out":
      return (
        <>
          <SignInPage />
          <Toasts />
        </>
      );
    case "signed-in":
      return <Shell isAdmin={s.me.isAdmin} name={s.me.displayName} path={path} />;
  }
}

function NavLink({
  href,
  label,
  path,
  prefix,
  children,
}: {
  href: string;
  label: string;
  path: string;
  prefix?: string;
  children?: preact.ComponentChildren;
}) {
  const on = path === href || path.startsWith(`${prefix ?? href}/`);
  return (
    <Link href={href} class={on ? "nav-link nav-on" : "nav-link"} aria-current={on ? "page" : undefined}>
      {label}
      {children}
    </Link>
  );
}

function Shell({ isAdmin, name, path }: { isAdmin: boolean; name: string; path: string }) {
  const instance = useStore(instanceName);
  const feed = useStore(feedStatus);
  const all = useStore(subshells);
  const unreadCount = useStore(unread);
  const [menu, setMenu] = useState(false);
  const attention = Object.values(all).filter((x) => x.status === "needs_attention").length;
  const paneId = match("/subshells/:id", path)?.["id"];
  const channelId = match("/channels/:id", path)?.["id"];
  const recordingOf = match("/subshells/:id/recording", path)?.["id"];

  useEffect(() => setMenu(false), [path]);
  useEffect(() => {
    if (!paneId) document.title = instance || "termplane";
  }, [path, instance, paneId]);

  let page;
  if (paneId) page = <SubshellPage id={paneId} key={paneId} />;
  else if (recordingOf) page = <RecordingPage id={recordingOf} key={recordingOf} />;
  else if (path === "/subshells") page = <SubshellsPage />;
  else if (path === "/overview") page = <OverviewPage />;
  else if (path === "/nodes") page = <NodesPage />;
  else if (path === "/workspaces") page = <WorkspacesPage />;
  else if (path === "/files") page = <FilesPage />;
  else if (path === "/channels") page = <ChannelsPage />;
  else if (channelId) page = <ChannelPage id={channelId} key={channelId} />;
  else if (path === "/notifications") page = <NotificationsPage />;
  else if (path === "/account") page = <AccountPage />;
  else if (path.startsWith("/settings")) {
    if (!isAdmin) page = <NotAllowed />;
    else if (path === "/settings/keys") page = <KeysPage />;
    else if (path === "/settings/users") page = <UsersPage />;
    else if (path === "/settings/audit") page = <AuditPage />;
    else if (path === "/settings/status") page = <StatusPage />;
    else if (path === "/settings" || path === "/settings/general") page = <GeneralPage />;
    else page = <NotFound />;
  } else page = <NotFound />;

  return (
    <div class={paneId ? "shell shell-pane" : "shell"}>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="top">
        <Link href="/subshells" class="brand" aria-label={`${instance || "termplane"}: subshells`}>
          <span class="brand-mark" aria-hidden="true">
            ❯_
          </span>
          <span class="brand-name">{instance || "termplane"}</span>
        </Link>
        <button
          type="button"
          class="btn btn-ghost nav-toggle"
          aria-expanded={menu}
          aria-controls="nav"
          onClick={() => setMenu(!menu)}
        >
          <span aria-hidden="true">☰</span> Menu
          {unreadCount ? (
            <>
              <span class="count" aria-hidden="true">
                {unreadLabel(unreadCount)}
              </span>
              <span class="sr-only"> ({unreadLabel(unreadCount)} unread notifications)</span>
            </>
          ) : null}
        </button>
        <nav id="nav" class={menu ? "nav nav-open" : "nav"} aria-label="Main">
          <NavLink href="/subshells" label={attention ? `Subshells (${attention} need attention)` : "Subshells"} path={path} />
          <NavLink href="/overview" label="Overview" path={path} />
          <NavLink href="/nodes" label="Nodes" path={path} />
          <NavLink href="/workspaces" label="Workspaces" path={path} />
          <NavLink href="/files" label="Files" path={path} />
          <NavLink href="/channels" label="Channels" path={path} />
          {isAdmin ? <NavLink href="/settings/general" label="Settings" path={path} prefix="/settings" /> : null}
          <a class="nav-link" href="/docs">
            API
          </a>
          <span class="nav-spacer" />
          {feed !== "live" ? (
            <span class="badge badge-warn" role="status">
              {feed === "connecting" ? "Connecting" : "Offline, retrying"}
            </span>
          ) : null}
          <NavLink href="/notifications" label="Inbox" path={path}>
            {unreadCount ? (
              <>
                <span class="count" aria-hidden="true" data-testid="unread" data-count={unreadCount}>
                  {unreadLabel(unreadCount)}
                </span>
                <span class="sr-only"> ({unreadLabel(unreadCount)} unread)</span>
              </>
            ) : null}
          </NavLink>
          <NavLink href="/account" label={name} path={path} />
          <button type="button" class="btn btn-ghost nav-link" onClick={() => void signOut()}>
            Sign out
          </button>
        </nav>
      </header>
      <main id="main" class={paneId ? "main main-pane" : "main"} tabIndex={-1}>
        {page}
      </main>
      <Toasts />
      <ConfirmHost />
    </div>
  );
}

function NotFound() {
  return (
    <div class="page">
      <h1>Not found</h1>
      <p>
        Nothing lives at this address. <Link href="/subshells">Go to subshells</Link>.
      </p>
    </div>
  );
}

function NotAllowed() {
  return (
    <div class="page">
      <h1>Administrators only</h1>
      <p>
        Settings are for administrators. <Link href="/subshells">Go to subshells</Link>.
      </p>
    </div>
  );
}
