// adopt applies a style sheet from script. The console's Content-Security-Policy has
// no 'unsafe-inline' for styles, so a <style> element a library writes (xterm does, for
// its colours and cell sizes) is ignored; a constructed CSSStyleSheet is not inline
// markup and applies. Only the lazy chunks use it (their libraries' CSS).
export function adopt(css) {
  const sheet = new CSSStyleSheet();
  sheet.replaceSync(css);
  document.adoptedStyleSheets = [...document.adoptedStyleSheets, sheet];
  return sheet;
}

// mirror copies the text of every <style> element inside root, now and as it changes,
// into adopted sheets, and answers a function that stops and removes them.
export function mirror(root) {
  const sheets = new Map();
  const copy = () => {
    for (const el of root.querySelectorAll('style')) {
      let s = sheets.get(el);
      if (!s) { s = adopt(''); sheets.set(el, s); }
      s.replaceSync(el.textContent);
    }
  };
  copy();
  const watch = new MutationObserver(copy);
  watch.observe(root, { subtree: true, childList: true, characterData: true });
  return () => {
    watch.disconnect();
    const gone = new Set(sheets.values());
    document.adoptedStyleSheets = document.adoptedStyleSheets.filter((s) => !gone.has(s));
  };
}
