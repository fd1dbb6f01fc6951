// Chess Garden game page: keys, swipes and live updates. The page works without it:
// every step is a link. No inline script (the Content-Security-Policy forbids it).
"use strict";
(function () {
  var main = document.getElementById("game");
  var img = document.getElementById("board");
  if (!main || !img) { return; }
  var base = main.getAttribute("data-base");
  var version = main.getAttribute("data-version");
  var list = document.getElementById("moves");
  var headline = document.getElementById("headline");
  var where = document.getElementById("where");
  var steps = [];
  var current = Number(main.getAttribute("data-step"));

  function collect() {
    steps = [];
    var links = list.querySelectorAll("a.mv");
    for (var k = 0; k < links.length; k++) {
      var a = links[k];
      steps[Number(a.getAttribute("data-i"))] = a;
    }
  }

  function last() { return steps.length - 1; }

  function show(i, push) {
    if (i < 0 || i > last() || !steps[i]) { return; }
    var a = steps[i];
    current = i;
    img.src = a.getAttribute("data-img");
    img.alt = "The board after step " + i;
    if (headline) { headline.textContent = a.getAttribute("data-head"); }
    if (where) { where.textContent = (i === 0 ? "Start" : "Step " + i) + " of " + last(); }
    for (var k = 0; k < steps.length; k++) {
      var on = k === i;
      steps[k].classList.toggle("cur", on);
      if (on) { steps[k].setAttribute("aria-current", "step"); }
      else { steps[k].removeAttribute("aria-current"); }
    }
    document.getElementById("prev").href = base + "/" + Math.max(i - 1, 0);
    document.getElementById("next").href = base + "/" + Math.min(i + 1, last());
    a.scrollIntoView({ block: "nearest" });
    if (push !== false && window.history && history.replaceState) {
      history.replaceState(null, "", i === last() ? base : base + "/" + i);
    }
    if (i < last()) { new Image().src = steps[i + 1].getAttribute("data-img"); }
  }

  collect();

  list.addEventListener("click", function (e) {
    var a = e.target.closest ? e.target.closest("a.mv") : null;
    if (!a || e.ctrlKey || e.metaKey || e.shiftKey) { return; }
    e.preventDefault();
    show(Number(a.getAttribute("data-i")));
  });
  var nav = { first: function () { return 0; }, prev: function () { return current - 1; },
    next: function () { return current + 1; }, final: function () { return last(); } };
  Object.keys(nav).forEach(function (id) {
    var a = document.getElementById(id);
    if (!a) { return; }
    a.addEventListener("click", function (e) {
      if (e.ctrlKey || e.metaKey || e.shiftKey) { return; }
      e.preventDefault();
      show(Math.max(0, Math.min(nav[id](), last())));
    });
  });
  document.addEventListener("keydown", function (e) {
    if (e.altKey || e.ctrlKey || e.metaKey) { return; }
    var to = null;
    if (e.key === "ArrowLeft") { to = current - 1; }
    else if (e.key === "ArrowRight") { to = current + 1; }
    else if (e.key === "Home") { to = 0; }
    else if (e.key === "End") { to = last(); }
    if (to === null) { return; }
    e.preventDefault();
    show(Math.max(0, Math.min(to, last())));
  });

  var startX = null, startY = null;
  img.addEventListener("touchstart", function (e) {
    if (e.touches.length !== 1) { startX = null; return; }
    startX = e.touches[0].clientX; startY = e.touches[0].clientY;
  }, { passive: true });
  img.addEventListener("touchend", function (e) {
    if (startX === null || !e.changedTouches.length) { return; }
    var dx = e.changedTouches[0].clientX - startX, dy = e.changedTouches[0].clientY - startY;
    startX = null;
    if (Math.abs(dx) < 40 || Math.abs(dx) < Math.abs(dy)) { return; }
    show(Math.max(0, Math.min(current + (dx < 0 ? 1 : -1), last())));
  });

  // ----- live updates (server-sent events) -----
  function link(step) {
    var a = document.createElement("a");
    a.className = "mv" + (step.side ? " " + step.side : "");
    a.href = base + "/" + step.i;
    a.setAttribute("data-i", String(step.i));
    a.setAttribute("data-img", step.img);
    a.setAttribute("data-head", step.head);
    if (step.dice) {
      var d = document.createElement("span");
      d.className = "dice";
      d.textContent = "[" + step.dice.join(" ") + "]";
      a.appendChild(d);
      a.appendChild(document.createTextNode(" "));
    }
    a.appendChild(document.createTextNode(step.i === 0 ? "start" : step.text));
    return a;
  }

  function sideOf(a) {
    return a.classList.contains("white") ? "white" : a.classList.contains("black") ? "black" : null;
  }

  // Take the page's steps from ``n`` on off the list (and the rows left empty).
  function truncate(n) {
    for (var k = last(); k >= n; k--) {
      var a = steps[k], row = a.parentNode, gap = a.nextSibling;
      if (gap && gap.nodeType === 3) { row.removeChild(gap); }
      row.removeChild(a);
      if (!row.querySelector("a.mv")) { list.removeChild(row); }
    }
    steps.length = Math.max(0, Math.min(n, steps.length));
  }

  // One step at the end of the list, in the rows the server draws: the start alone, then
  // a numbered row each time White acts after Black.
  function add(step) {
    var row = list.lastElementChild;
    var previous = last() > 0 ? sideOf(steps[last()]) : null;
    if (step.i === 0 || !row || last() === 0 || (step.side === "white" && previous === "black")) {
      row = document.createElement("li");
      row.className = "turn";
      list.appendChild(row);
      if (step.i > 0) {
        var n = document.createElement("span");
        n.className = "n";
        n.textContent = list.querySelectorAll("span.n").length + 1 + ".";
        row.appendChild(n);
        row.appendChild(document.createTextNode(" "));
      }
    }
    var a = link(step);
    row.appendChild(a);
    row.appendChild(document.createTextNode(" "));
    steps[step.i] = a;
  }

  // An event: only the new steps ("first": where they start, right after the page's
  // last), or the whole list (a page's first event, or after a take-back).
  function update(data) {
    var atEnd = current === last();
    if (data.first === undefined) {
      truncate(0);
    } else if (data.first !== last() + 1) {
      return false;  // not the steps this page has: it asks for the whole list again
    }
    data.steps.forEach(add);
    main.setAttribute("data-last", String(last()));
    var status = document.getElementById("status");
    if (status) { status.textContent = data.status; }
    var clock = document.getElementById("clock");
    if (clock) { clock.textContent = data.clock; }
    show(atEnd ? last() : Math.min(current, last()), atEnd);
    return true;
  }

  var source = null;
  function follow() {
    source = new EventSource(base + "/events");  // its first event is the whole list
    var live = document.getElementById("live");
    source.onopen = function () { if (live) { live.hidden = false; } };
    source.onmessage = function (e) {
      var data = JSON.parse(e.data);
      if (data.v === version) { return; }
      if (update(data)) { version = data.v; return; }
      source.close();
      follow();
    };
    source.addEventListener("over", function (e) {
      source.close();
      var data = JSON.parse(e.data);
      if (data.v !== version) { window.location.replace(base); }
    });
  }
  if (main.getAttribute("data-live") === "1" && window.EventSource) { follow(); }
})();
