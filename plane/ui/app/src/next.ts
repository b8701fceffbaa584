// Where to go after signing in: the address the person was on when the plane asked them to sign
// in (`/sign-in?next=…`), as long as it is a page of this app on this origin.

/** Where a sign-in lands when `next` is missing or refused. */
export const HOME = "/subshells";

/** Pages that must not be a sign-in's destination (they would send the person round again). */
const NOT_AFTER = new Set(["/sign-in", "/setup", "/"]);

/** Whether `text` holds something no plain path has: a backslash (browsers read it as `/`), a
 * control character or a blank (the URL parser drops tabs and newlines, so `/\t/evil` would
 * become `//evil`). */
function odd(text: string): boolean {
  return /[\\\s\u0000-\u001f\u007f]/.test(text);
}

/** The forms `text` takes when decoded again and again (a path encoded twice to slip `//` or
 * `\` past one decoding is refused for what it decodes to). */
function decodings(text: string): string[] | null {
  const out = [text];
  let cur = text;
  for (let i = 0; i < 4; i++) {
    let next: string;
    try {
      next = decodeURIComponent(cur);
    } catch {
      return null;
    }
    if (next === cur) return out;
    out.push(next);
    cur = next;
  }
  // Still changing after several decodings: nothing an app link looks like.
  return null;
}

/**
 * `next` as a path of this origin to navigate to, or `HOME`: only a path that starts with one
 * `/` (not `//`, not `/\`), holds no backslash, blank or control character in any of its
 * decodings, and that the browser resolves to this very origin. A page of the sign-in itself is
 * refused too.
 */
export function safeNext(next: string | null | undefined, origin: string = location.origin): string {
  if (!next || next.length > 2048) return HOME;
  const forms = decodings(next);
  if (!forms) return HOME;
  for (const f of forms) {
    if (!f.startsWith("/") || f.startsWith("//") || odd(f)) return HOME;
  }
  let url: URL;
  try {
    url = new URL(next, origin);
  } catch {
    return HOME;
  }
  if (url.origin !== origin || url.username || url.password) return HOME;
  if (NOT_AFTER.has(url.pathname)) return HOME;
  return url.pathname + url.search + url.hash;
}
