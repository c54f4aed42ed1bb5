// Read-only BPMN diagram for the definition version page (docs/ui.md, "Diagram").
//
// Progressive enhancement: the page already lists every node and transition (the accessible
// equivalent); this script only draws the same version. It finds each
// <figure data-bpmn-url="..."> and renders the XML fetched from that same-origin URL into the
// figure's .diagram-canvas. Anything that fails leaves a sentence in the figure and the list
// untouched. Bundled by scripts/build_ui.sh (esbuild) into ui/static/vendor/diagram.js; the
// page's CSP allows script and fetch from 'self' only, so nothing here is inline and every
// style is set through CSSOM (which bpmn-js does) or the bundled stylesheet.
import NavigatedViewer from "bpmn-js/lib/NavigatedViewer";

const FAILED = "Não foi possível desenhar o diagrama; a lista de etapas abaixo traz o mesmo conteúdo.";

function say(figure, text) {
  const status = figure.querySelector(".diagram-status");
  if (status) {
    status.textContent = text;
    status.hidden = text === "";
  }
}

async function fetchXml(url) {
  const response = await fetch(url, {
    credentials: "same-origin",
    headers: { Accept: "application/xml" },
  });
  if (!response.ok) {
    throw new Error(`diagram request failed: HTTP ${response.status}`);
  }
  return response.text();
}

// The drawing is one image to assistive technology (its text is the list's, in a worse order):
// role="img" on the svg itself, so the focusable canvas around it (keyboard panning) and the
// bpmn.io link stay outside the image's presentational children.
function label(canvas, figure) {
  const svg = canvas.querySelector("svg");
  const caption = figure.querySelector("figcaption");
  if (!svg) {
    return;
  }
  svg.setAttribute("role", "img");
  svg.setAttribute("aria-label", canvas.dataset.label || "Diagrama BPMN");
  if (caption && caption.id) {
    svg.setAttribute("aria-describedby", caption.id);
  }
}

async function render(figure) {
  const url = new URL(figure.dataset.bpmnUrl, window.location.href);
  const canvas = figure.querySelector(".diagram-canvas");
  if (url.origin !== window.location.origin || !canvas) {
    say(figure, FAILED);
    return;
  }
  try {
    const xml = await fetchXml(url);
    say(figure, "");
    canvas.hidden = false;
    const viewer = new NavigatedViewer({ container: canvas });
    await viewer.importXML(xml);
    viewer.get("canvas").zoom("fit-viewport", "auto");
    label(canvas, figure);
    figure.classList.add("diagram-ready");
  } catch (error) {
    canvas.hidden = true;
    canvas.replaceChildren();
    say(figure, FAILED);
    console.warn("tramita diagram:", error instanceof Error ? error.message : error);
  }
}

for (const figure of document.querySelectorAll("figure[data-bpmn-url]")) {
  render(figure);
}
