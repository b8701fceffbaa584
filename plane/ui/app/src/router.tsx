// Client-side routes on the History API: the plane answers every app path with the same page.

import type { AnchorHTMLAttributes, ComponentChildren } from "preact";
import { createStore, useStore } from "./store";

export interface Location {
  path: string;
  query: URLSearchParams;
}

function current(): Location {
  return { path: location.pathname, query: new URLSearchParams(location.search) };
}

export const route = createStore<Location>(current());

window.addEventListener("popstate", () => route.set(current()));

export function navigate(to: string, opts: { replace?: boolean } = {}): void {
  const target = new URL(to, location.origin);
  const same = target.pathname + target.search === location.pathname + location.search;
  const url = target.pathname + target.search + target.hash;
  if (opts.replace || same) history.replaceState(null, "", url);
  else history.pushState(null, "", url);
  route.set(current());
  if (!same) window.scrollTo(0, 0);
}

export function useRoute(): Location {
  return useStore(route);
}

/** Matches `pattern` (`/subshells/:id`) against `path`; the named parts, or null. */
export function match(pattern: string, path: string): Record<string, string> | null {
  const p = pattern.split("/").filter(Boolean);
  const s = path.split("/").filter(Boolean);
  if (p.length !== s.length) return null;
  const out: Record<string, string> = {};
  for (let i = 0; i < p.length; i++) {
    const part = p[i]!;
    if (part.startsWith(":")) out[part.slice(1)] = decodeURIComponent(s[i]!);
    else if (part !== s[i]) return null;
  }
  return out;
}

type LinkProps = AnchorHTMLAttributes<HTMLAnchorElement> & { href: string; children?: ComponentChildren };

/** An anchor that navigates in the page (a modified click still opens a new tab). */
export function Link({ href, children, onClick, ...rest }: LinkProps) {
  return (
    <a
      href={href}
      {...rest}
      onClick={(e) => {
        if (onClick) (onClick as (ev: MouseEvent) => void)(e);
        if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
        e.preventDefault();
        navigate(href);
      }}
    >
      {children}
    </a>
  );
}
