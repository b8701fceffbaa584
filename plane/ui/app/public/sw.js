// The app's service worker: it shows the notifications the plane pushes and, when one is
// clicked, brings up its page. It caches nothing and leaves every request to the network.
//
// A push message is JSON: {"id", "kind", "subjectId", "title", "body", "url"}, where `url` is
// the app's page for the subject (such as /subshells/<id>).

self.addEventListener("install", () => {
  self.skipWaiting();
});

self.addEventListener("activate", (event) => {
  event.waitUntil(self.clients.claim());
});

/** `url` as an address of this origin; anything else becomes the inbox. */
function pageUrl(url) {
  try {
    const u = new URL(typeof url === "string" ? url : "/notifications", self.location.origin);
    return u.origin === self.location.origin ? u.href : new URL("/notifications", self.location.origin).href;
  } catch {
    return new URL("/notifications", self.location.origin).href;
  }
}

self.addEventListener("push", (event) => {
  let message = {};
  if (event.data) {
    try {
      message = event.data.json();
    } catch {
      message = { body: event.data.text() };
    }
  }
  const title = typeof message.title === "string" && message.title ? message.title : "termplane";
  const options = {
    body: typeof message.body === "string" ? message.body : "",
    icon: "/favicon.svg",
    data: { id: typeof message.id === "string" ? message.id : null, url: pageUrl(message.url) },
  };
  if (typeof message.id === "string") options.tag = message.id;
  event.waitUntil(self.registration.showNotification(title, options));
});

self.addEventListener("notificationclick", (event) => {
  event.notification.close();
  const data = event.notification.data || {};
  const url = pageUrl(data.url);
  event.waitUntil(
    (async () => {
      // Mark it read; the page opens either way.
      if (typeof data.id === "string" && /^[0-9a-f]{32}$/.test(data.id)) {
        await fetch(`/api/notifications/${data.id}/read`, { method: "POST", credentials: "same-origin" }).catch(() => undefined);
      }
      const windows = await self.clients.matchAll({ type: "window", includeUncontrolled: true });
      const same = windows.find((c) => c.url === url);
      if (same) return same.focus();
      return self.clients.openWindow(url);
    })(),
  );
});
