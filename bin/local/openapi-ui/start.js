// Starts Swagger UI on the page /openapi.html (bin/local/openapi.ts): renders the description the
// local runtime serves at /openapi.json. A separate file, not an inline script, so the page's
// Content-Security-Policy allows only the core's own scripts.
const element = document.getElementById('reference');
window.ui = window.SwaggerUIBundle({
  url: element.dataset.description,
  domNode: element,
  deepLinking: true,
  docExpansion: 'none',
  defaultModelsExpandDepth: 0,
  displayOperationId: false,
  tryItOutEnabled: false,
  // Nothing leaves the page: no validator badge (it would call an outside service).
  validatorUrl: null,
  presets: [window.SwaggerUIBundle.presets.apis],
});
