// Starts the interactive API reference on the element that names the document's address.
// Loaded as a file (never inline) so that the page's Content-Security-Policy can stay 'self'.
(function () {
  "use strict";
  var host = document.getElementById("reference");
  if (!host || typeof window.SwaggerUIBundle !== "function") {
    return;
  }

  // Swagger UI's own dark mode (a class on <html>) follows the system's scheme, as the rest of
  // the reference does.
  var dark = window.matchMedia ? window.matchMedia("(prefers-color-scheme: dark)") : null;
  function followScheme() {
    document.documentElement.classList.toggle("dark-mode", Boolean(dark && dark.matches));
  }
  followScheme();
  if (dark && dark.addEventListener) {
    dark.addEventListener("change", followScheme);
  }

  // Swagger UI renders some controls without an accessible name (the servers list and a
  // parameter's list of values: swagger-api/swagger-ui#9954, #6512) and code blocks that
  // scroll but cannot be reached from the keyboard. Whenever it renders, name those controls
  // and let the code blocks take focus. (A MutationObserver's callback runs before the next
  // frame is painted, so no one sees them unnamed.)
  function mend() {
    host.querySelectorAll("select:not([aria-label]):not([aria-labelledby])").forEach(function (select) {
      var row = select.closest("tr[data-param-name]");
      var label = select.id === "servers" ? "Server" : null;
      if (!label && row) {
        label = "Value of " + row.getAttribute("data-param-name");
      }
      if (label) {
        select.setAttribute("aria-label", label);
      }
    });
    host.querySelectorAll("pre:not([tabindex])").forEach(function (pre) {
      pre.setAttribute("tabindex", "0");
    });
  }
  new MutationObserver(mend).observe(host, { childList: true, subtree: true });

  window.ui = window.SwaggerUIBundle({
    url: host.getAttribute("data-document"),
    domNode: host,
    // Deep links put each operation's path, as a link, inside the button that opens it: an
    // interactive control nested in another, which screen readers and keyboards cannot use
    // (swagger-api/swagger-ui#9570, #10704). So the reference does without them.
    deepLinking: false,
    validatorUrl: null,
    displayOperationId: true,
    defaultModelsExpandDepth: 0,
    tryItOutEnabled: false,
    // The highlighter colours examples below AA contrast (swagger-api/swagger-ui#9586):
    // examples are shown as plain text, in the reference's own colours.
    syntaxHighlight: false
  });
})();
