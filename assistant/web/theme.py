"""The page's CSS and JavaScript (Gradio 6 takes them in launch())."""

CSS = """
#title h2 { margin-bottom: 0; }
#chatbot .citation summary { cursor: pointer; font-weight: 600; }
#chatbot a.cite-link { text-decoration: none; font-weight: 600; }
#scenario li { margin: 0; }
#turn-info { color: var(--body-text-color-subdued); font-size: 0.85em; }
/* Vega puts the colour legend below the plot area, past the fixed height: let it show. */
.vega-embed { padding-bottom: 40px; }
.vega-embed svg.marks { overflow: visible; }
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
