// The plane's refusals about accounts, in words for the administrator.

import { ApiError } from "../../api";
import type { User } from "../../types";

/** The plane's refusals about accounts, explained for the account `u`. */
export function explain(e: unknown, u: User): unknown {
  if (!(e instanceof ApiError)) return e;
  const again = (text: string) => e.withMessage(text);
  switch (e.code) {
    case "LAST_ADMIN":
      return again(
        `${u.displayName} is the last enabled administrator, and the plane always keeps one. Make another account an administrator first.`,
      );
    case "CANNOT_DISABLE_SELF":
      return again("You cannot do this to your own account; another administrator can. Your own password changes on the Account page.");
    case "USER_HAS_LIVE_SUBSHELLS": {
      const live = Number(e.metadata?.["live"] ?? 0);
      const listed = e.metadata?.["subshells"];
      const names = Array.isArray(listed)
        ? listed.map((s) => (s as { name?: unknown } | null)?.name).filter((n): n is string => typeof n === "string" && n !== "")
        : [];
      const what = live === 1 ? "1 live subshell" : `${live} live subshells`;
      const which = names.length > 0 ? ` (${names.join(", ")})` : "";
      return again(`${u.displayName} has ${what}${which}. Terminate ${live === 1 ? "it" : "them"} under Subshells first, then delete the account.`);
    }
    default:
      return e;
  }
}
