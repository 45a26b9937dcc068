// The theme centres the current page's link in the side navigation, so on a page in the
// second half of the list it scrolls the first entries (Home) under the sticky site title,
// even when the link would show with the list unscrolled. Undo that scroll when it is not
// needed: the list starts at Home whenever the current page's link fits without it.
"use strict";
(function () {
  const wrap = document.querySelector(".md-sidebar--primary .md-sidebar__scrollwrap");
  if (!wrap) return;
  function settle() {
    const active = wrap.querySelector(".md-nav__link--active[href]");
    if (!active || !active.clientHeight) return;
    const bottom = active.getBoundingClientRect().bottom - wrap.getBoundingClientRect().top + wrap.scrollTop;
    if (bottom <= wrap.clientHeight) wrap.scrollTop = 0;
  }
  // The theme scrolls once, after its first layout: answer its scroll, once.
  wrap.addEventListener("scroll", settle, { once: true });
})();
