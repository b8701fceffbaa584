// The tabs of the settings pages.

import { Link, useRoute } from "../../router";

const TABS = [
  ["/settings/general", "General"],
  ["/settings/keys", "API keys"],
  ["/settings/users", "Users"],
  ["/settings/audit", "Audit log"],
  ["/settings/status", "Status"],
] as const;

export function Tabs() {
  const { path } = useRoute();
  return (
    <nav class="tabs" aria-label="Settings sections">
      {TABS.map(([href, label]) => (
        <Link key={href} href={href} class={path === href ? "tab tab-on" : "tab"} aria-current={path === href ? "page" : undefined}>
          {label}
        </Link>
      ))}
    </nav>
  );
}
