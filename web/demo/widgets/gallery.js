// Widget gallery pages: shows each `input` event and the widget's new .value.
const show = (v) => {
  if (ArrayBuffer.isView(v)) return `[${Array.from(v, (x) => +x.toFixed(4)).join(', ')}]`;
  if (Array.isArray(v)) return `[${v.map(show).join(', ')}]`;
  if (v && typeof v === 'object') return `{ ${Object.entries(v).map(([k, x]) => `${k}: ${show(x)}`).join(', ')} }`;
  return typeof v === 'number' ? String(+v.toFixed(4)) : String(v);
};
for (const log of document.querySelectorAll('[data-log-for]')) {
  const el = document.querySelector(log.dataset.logFor);
  el?.addEventListener('input', () => {
    log.textContent = `input → .value = ${show(el.value)}`;
  });
}
