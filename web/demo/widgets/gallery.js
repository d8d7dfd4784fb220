// Widget gallery pages: shows each `input` event and the widget's new .value,
// and gives every code snippet a Copy button.
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
for (const pre of document.querySelectorAll('pre.snippet')) {
  const button = document.createElement('button');
  button.type = 'button';
  button.className = 'copy';
  button.textContent = 'Copy';
  button.addEventListener('click', async () => {
    try {
      // some browsers leave the promise pending (a permission prompt nobody sees): give up after a second
      await Promise.race([navigator.clipboard.writeText(pre.textContent), new Promise((_, no) => setTimeout(() => no(new Error('no answer')), 1000))]);
      button.textContent = 'Copied';
    } catch {
      const range = document.createRange(); // no clipboard access: select the text for the reader to copy
      range.selectNodeContents(pre);
      getSelection().removeAllRanges();
      getSelection().addRange(range);
      button.textContent = 'Selected: press Ctrl+C';
    }
    setTimeout(() => (button.textContent = 'Copy'), 2000);
  });
  const wrap = document.createElement('div');
  wrap.className = 'snippet-wrap';
  pre.replaceWith(wrap);
  wrap.append(button, pre);
}
