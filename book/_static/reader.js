/* What the book adds to sphinx-book-theme's pages (both editions: html_js_files in _config.yml
   and ko/_config.yml; loaded in the head, not deferred). See reader.css. */
(function () {
  "use strict";

  /* 1. The theme follows the reader's system setting (html_context: default_mode: auto). The
     theme writes data-theme="auto" into the page and resolves it only in its deferred script;
     until then neither its light nor its dark colours apply. Resolve it now, as it will. */
  var root = document.documentElement;
  if (!root.dataset.theme || root.dataset.theme === "auto") {
    var dark = window.matchMedia && window.matchMedia("(prefers-color-scheme: dark)").matches;
    root.dataset.theme = dark ? "dark" : "light";
  }

  /* 2. Scroll boxes show that they scroll: every element of the article that scrolls
     horizontally (code, tables, wide outputs, display math) gets data-scroll = "end" (more to
     the right), "both", or "start" (scrolled to the end); reader.css fades that edge out. */
  function mark(box) {
    var max = box.scrollWidth - box.clientWidth;
    var state = max <= 1 ? "" : box.scrollLeft <= 1 ? "end" : box.scrollLeft >= max - 1 ? "start" : "both";
    if (state) {
      if (box.dataset.scroll !== state) box.dataset.scroll = state;
      if (!box.hasAttribute("tabindex")) box.setAttribute("tabindex", "0");   // scroll by keyboard
    } else if (box.dataset.scroll) {
      delete box.dataset.scroll;
    }
  }

  var boxes = [], seen = new WeakSet();
  function scan() {
    var article = document.querySelector(".bd-article") || document.querySelector("article");
    if (!article) return;
    article.querySelectorAll("*").forEach(function (el) {
      if (seen.has(el)) return;
      seen.add(el);
      var overflow = getComputedStyle(el).overflowX;
      if (overflow !== "auto" && overflow !== "scroll") return;
      boxes.push(el);
      el.addEventListener("scroll", function () { mark(el); }, { passive: true });
      if (window.ResizeObserver) new ResizeObserver(function () { mark(el); }).observe(el);
    });
    boxes.forEach(mark);
  }

  function ready() {
    scan();
    // content that changes size later: fonts, MathJax's typesetting, opened dropdowns
    if (document.fonts && document.fonts.ready) document.fonts.ready.then(scan);
    if (window.MathJax && MathJax.startup && MathJax.startup.promise) MathJax.startup.promise.then(scan);
    document.addEventListener("toggle", scan, true);
    window.addEventListener("load", scan);
  }

  /* 3. Search results: Sphinx quotes each page's text from its [role=main], which in this theme
     begins with the header's buttons (".ipynb", ".pdf") and the page's table of contents, so a
     summary could read "....pdf Halo regions Contents ...". Quote the article only, without the
     link to the other edition or the code cells, its formulas as plain text. (Registered before
     searchtools.js registers its own start.) */
  /* A formula as a summary can quote it: "\\(N = 2^{24}\\)" reads "N = 2^24" (no MathJax there). */
  var SYMBOLS = {lfloor: "⌊", rfloor: "⌋", lceil: "⌈", rceil: "⌉", times: "×", cdot: "·",
                 le: "≤", ge: "≥", sum: "Σ", ldots: "…", dots: "…", approx: "≈", bmod: " mod ",
                 text: ""};
  function plainTeX(tex) {
    return tex.replace(/\\[()[\]]/g, "").replace(/\\,/g, " ")
              .replace(/\\([a-zA-Z]+) ?/g, function (_, name) {
                return name in SYMBOLS ? SYMBOLS[name] : name + " "; })
              .replace(/[{}]/g, "").replace(/ +([⌋⌉])/g, "$1");
  }
  /* The article as a summary quotes it (the book's browser test quotes it the same way): no
     link to the other edition, no code cell, formulas as plain text, and a glossary's terms
     apart from their definition ("타일, tile: 한 블록이…", not "타일tile한 블록이…"). */
  function plainArticle(doc) {
    var article = doc.querySelector('[role="main"] article.bd-article');
    if (!article) return null;
    article.querySelectorAll(".edition-link, .cell_input").forEach(function (el) { el.remove(); });
    article.querySelectorAll(".math").forEach(function (el) { el.textContent = plainTeX(el.textContent); });
    article.querySelectorAll("dt").forEach(function (dt) {
      var next = dt.nextElementSibling;
      dt.after(next && next.tagName === "DT" ? ", " : ": ");   // beside the term, not in it
    });
    return article;
  }
  window.plainTeX = plainTeX; window.plainArticle = plainArticle;   // for the browser test

  function quoteTheArticleOnly() {
    if (typeof Search === "undefined" || !Search.htmlToText || Search._articleOnly) return;
    var original = Search.htmlToText;
    Search.htmlToText = function (htmlString, anchor) {
      var article = plainArticle(new DOMParser().parseFromString(htmlString, "text/html"));
      if (!article) return original(htmlString, anchor);
      return original('<div role="main">' + article.outerHTML + "</div>", anchor);
    };
    Search._articleOnly = true;
  }

  /* 4. A figure is drawn for the desktop column; on a phone its text is small. Each figure
     opens full size in its own tab when tapped, and on a narrow screen says so below it. */
  function enlargeable() {
    var ko = root.lang === "ko";
    document.querySelectorAll(".bd-article div.cell_output img").forEach(function (img) {
      var a = img.closest("a");   // Sphinx links each output image to itself
      if (!a) {
        a = document.createElement("a");
        a.href = img.src;
        img.parentNode.insertBefore(a, img);
        a.appendChild(img);
      }
      a.target = "_blank";
      a.rel = "noopener";
      a.classList.add("figure-full-size");
      a.title = ko ? "크게 보기" : "Open full size";
      a.dataset.hint = ko ? "눌러서 연 뒤 확대하세요 ↗" : "Tap to open it, then zoom in ↗";
    });
  }

  /* 5. A table's row names (kernels.tables.Table) break after a dot or a comma, nowhere else:
     "cupyx.ndimage.correlate1d" may take three lines on a phone, "tiled_loads_first" one. */
  function breakableNames() {
    document.querySelectorAll(".bd-article table.book-table th[scope=row]").forEach(function (th) {
      if (!th.children.length && /[.,]\S|, /.test(th.textContent)) {
        th.innerHTML = th.innerHTML.replace(/\.(?=\S)/g, ".<wbr>");
        th.classList.add("breakable");
      }
    });
  }

  function start() {
    quoteTheArticleOnly();
    enlargeable();
    breakableNames();
    ready();
  }
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
})();
