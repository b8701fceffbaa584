// Starts the interactive API reference on the element that names the document's address.
// Loaded as a file (never inline) so that the page's Content-Security-Policy can stay 'self'.
(function () {
  "use strict";
  var host = document.getElementById("reference");
  if (!host || typeof window.SwaggerUIBundle !== "function") {
    return;
  }
  window.ui = window.SwaggerUIBundle({
    url: host.getAttribute("data-document"),
    domNode: host,
    deepLinking: true,
    validatorUrl: null,
    displayOperationId: true,
    defaultModelsExpandDepth: 0,
    tryItOutEnabled: false
  });
})();
