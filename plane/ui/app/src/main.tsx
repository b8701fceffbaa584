import { render } from "preact";
import "@xterm/xterm/css/xterm.css";
import "./styles.css";
import { App } from "./App";

// Menus (`<details class="menu">`) behave as menus: one open at a time, closed by Escape (focus
// back on its button), by a click outside it, and by choosing one of its items.
function closeMenus(except: Element | null): void {
  for (const d of document.querySelectorAll<HTMLDetailsElement>("details.menu[open]")) {
    if (d !== except) d.open = false;
  }
}

document.addEventListener("click", (e) => {
  const target = e.target instanceof Element ? e.target : null;
  const menu = target?.closest("details.menu") ?? null;
  closeMenus(menu);
  if (menu instanceof HTMLDetailsElement && target?.closest("button, a") && !target.closest("summary")) {
    // After the item's own handler has run.
    window.setTimeout(() => (menu.open = false), 0);
  }
});

document.addEventListener("keydown", (e) => {
  if (e.key !== "Escape") return;
  const open = document.querySelectorAll<HTMLDetailsElement>("details.menu[open]");
  if (!open.length) return;
  const last = open[open.length - 1];
  closeMenus(null);
  last.querySelector("summary")?.focus();
});

render(<App />, document.getElementById("app")!);
