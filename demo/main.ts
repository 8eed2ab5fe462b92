// Placeholder demo: proves the page bundles and runs a module. The real demo is a later issue.
const status = document.querySelector<HTMLParagraphElement>("#status");
if (status) status.textContent = "toolwire demo — coming soon";
