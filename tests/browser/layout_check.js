// What the layout test measures, in the page: every control inside its box, no column of the
// journal cut short, no select narrower than its longest choice, the miss not scrolling apart,
// rule ids and namespaces each on one line.
// (Evaluated by tests/browser/test_inspector_call.py; returns the problems found.)
() => {
  const bad = [];
  const within = (inner, outer, what) => {
    const a = inner.getBoundingClientRect(), b = outer.getBoundingClientRect();
    if (a.width === 0 && a.height === 0) return;
    if (a.left < b.left - 0.5 || a.right > b.right + 0.5) bad.push(what + ' ' + Math.round(a.left) + '..' + Math.round(a.right) + ' outside ' + Math.round(b.left) + '..' + Math.round(b.right));
  };
  const doc = document.documentElement;
  if (doc.scrollWidth > window.innerWidth) bad.push('page scrolls sideways: ' + doc.scrollWidth);
  for (const n of document.querySelectorAll('.side button, .side select, .side input, .side label, .side table'))
    within(n, document.querySelector('.side'), 'side ' + (n.id || n.tagName));
  for (const n of document.querySelectorAll('.filters > label, .filters select, .filters input, .journal-head > *'))
    within(n, document.querySelector('.main'), 'journal ' + (n.id || n.tagName));
  for (const n of document.querySelectorAll('#detail .tools button, #detail h2, #detail .why, #detail .cols > div, #timeline-svg'))
    within(n, document.querySelector('#detail'), 'detail ' + (n.id || n.className || n.tagName));
  // From 1024 px the time and the rule (or "miss → generated") read whole too.
  const columns = '#calls td.c-path, #calls td.c-seq, #calls td.c-status, #calls td.c-model, .calls th' +
    (window.innerWidth >= 1024 ? ', #calls td.c-ms, #calls td.c-rule' : '');
  // Cut short: its text is wider than its box (an ellipsis only hides the rest).
  const cut = (node) => {
    const range = document.createRange();
    range.selectNodeContents(node);
    const style = getComputedStyle(node);
    const room = node.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
    return node.offsetWidth > 0 && (node.scrollWidth > node.clientWidth + 1 || range.getBoundingClientRect().width > room + 0.5);
  };
  for (const n of document.querySelectorAll(columns))
    if (cut(n)) bad.push('cut: ' + n.textContent);
  // A rule's id on one line (never broken in two), whole; a namespace on one line.
  const lines = (node) => {  // boxes of one line overlap; the next line's start below them
    const range = document.createRange();
    range.selectNodeContents(node);
    let count = 0, bottom = -Infinity;
    for (const r of [...range.getClientRects()].filter(r => r.width > 0).sort((a, b) => a.top - b.top)) {
      const next = r.top >= bottom - 1;
      if (next) count += 1;
      bottom = next ? r.bottom : Math.max(bottom, r.bottom);
    }
    return count;
  };
  for (const n of document.querySelectorAll('#rules td:first-child:not([colspan])')) {
    if (lines(n) > 1) bad.push('rule broken over lines: ' + n.textContent);
    if (cut(n)) bad.push('rule cut: ' + n.textContent);
  }
  for (const n of document.querySelectorAll('#namespaces button'))
    if (lines(n) > 1) bad.push('namespace over lines: ' + n.textContent);
  const reply = document.querySelector('#calls td.c-reply');
  if (reply && reply.getBoundingClientRect().width < 100) bad.push('reply column ' + reply.getBoundingClientRect().width);
  // The longest choice of each select fits in it (no clipped dropdown).
  const ctx = document.createElement('canvas').getContext('2d');
  for (const s of document.querySelectorAll('.side select')) {
    ctx.font = getComputedStyle(s).font;
    const widest = Math.max(...[...s.options].map(o => ctx.measureText(o.text).width));
    if (widest + 24 > s.getBoundingClientRect().width) bad.push('select ' + s.id + ' clips ' + Math.round(widest) + ' in ' + Math.round(s.getBoundingClientRect().width));
  }
  const why = document.querySelector('#detail-why');
  if (why.scrollHeight > why.clientHeight + 1) bad.push('the miss scrolls in its own box');
  return bad;
}
