"""The page's CSS and JavaScript (Gradio 6 takes them in launch())."""

CSS = """
#header { flex-direction: row !important; flex-wrap: nowrap !important; align-items: center; gap: 8px; }
#title { flex: 1 1 auto !important; min-width: 0 !important; }
#title h2 { margin: 0; }
#lang-toggle { flex: 0 0 auto !important; width: auto !important; }
#subtitle p, #provider-notice p { margin: 0; }
#chatbot .citation summary { cursor: pointer; font-weight: 600; }
#chatbot a.cite-link { text-decoration: none; font-weight: 600; }
#scenario li { margin: 0; }
/* Quick replies (web/quick_replies.py): compact chips that wrap under the answer, several to a row on a phone too. */
#chatbot .options {
  display: flex !important; flex-wrap: wrap; justify-content: flex-start !important; gap: 6px 8px !important;
  margin: 0 !important; padding: 6px 16px 4px !important; max-width: 100% !important; box-sizing: border-box;
}
#chatbot .options .option { flex: 0 0 auto; width: auto; padding: 6px 14px; border-radius: 999px; }
#turn-info { color: var(--body-text-color-subdued); font-size: 0.85em; }
#chat-input-row { flex-direction: row !important; flex-wrap: nowrap !important; gap: 8px; }
#chat-input-row > :first-child { flex: 1 1 auto !important; min-width: 0 !important; }
#send, #clear { flex: 0 0 auto !important; min-width: fit-content !important; white-space: nowrap; }
/* Colour legends drawn as HTML (charts.legend_html): they wrap on a narrow screen instead of being cut. */
.chart-legend { display: flex; flex-wrap: wrap; gap: 2px 14px; font-size: var(--text-sm); margin: 2px 0 6px; }
.chart-legend .legend-item { white-space: nowrap; }
.chart-legend .swatch {
  display: inline-block; width: 10px; height: 10px; margin-right: 5px; border-radius: 2px;
}
/* Vega puts the colour legend below the plot area, past the fixed height: let it show. */
.vega-embed { padding-bottom: 40px; }
.vega-embed svg.marks { overflow: visible; }

/* Gradio scopes rules inside @media to its content, so the page's side padding narrows with the screen here:
   32 px on a desktop, 10 px on a phone. */
.main.app {
  padding-left: clamp(10px, 4vw - 6px, 32px) !important;
  padding-right: clamp(10px, 4vw - 6px, 32px) !important;
}

/* A phone (390 x 844): the title, the chat and its input fit on the first screen. */
@media (max-width: 640px) {
  #subtitle, #provider-notice { font-size: var(--text-sm); }
  #chatbot { height: max(260px, calc(100svh - 440px)) !important; min-height: 0 !important; }
  #send, #clear { padding-left: 10px; padding-right: 10px; }
}
"""

# Citation links open and scroll to their passage (the Chatbot renders them as plain anchors).
JS = """
() => {
  document.addEventListener('click', (event) => {
    const link = event.target.closest && event.target.closest('a.cite-link');
    if (!link) return;
    const target = document.getElementById(link.getAttribute('href').slice(1));
    if (!target) return;
    event.preventDefault();
    target.open = true;
    target.scrollIntoView({behavior: 'smooth', block: 'center'});
  });
}
"""
