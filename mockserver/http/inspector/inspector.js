// The mockserver inspector: a live view of /__mockserver/events, plus the control API.
// Vanilla JS, no build step. Every value from the server is rendered with textContent.
"use strict";
(function () {
  const API = "/__mockserver";
  const MAX_ROWS = 300;
  const $ = (id) => document.getElementById(id);
  const state = {
    rows: new Map(), // "handle\u0000seq" -> {call, tr}
    // Namespaces are known by handle ("ns_…", what the control API takes) and shown by label
    // ("sk-…a1b2"): the server never sends the API keys they are named by.
    selected: null, // the handle of the namespace the side panel shows (null: the default one)
    labels: new Map(), // handle -> label
    picked: false, // the user chose a namespace (else: follow the newest call)
    open: null, // key of the call shown in the detail pane
    scenario: null, // the selected namespace's active scenario, as last shown
    known: new Set(), // handles in the side list
  };
  const labelOf = (handle) => (handle === null ? "default" : state.labels.get(handle) || handle);
  const timers = {};

  function later(name, fn, ms) {
    clearTimeout(timers[name]);
    timers[name] = setTimeout(fn, ms);
  }

  function el(tag, attrs, text) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }

  async function api(method, path, body) {
    const init = { method, headers: { accept: "application/json" } };
    if (body !== undefined) {
      init.headers["content-type"] = "application/json";
      init.body = JSON.stringify(body);
    }
    const sep = path.includes("?") ? "&" : "?";
    const which = state.selected === null ? "" : sep + "namespace=" + encodeURIComponent(state.selected);
    const res = await fetch(API + path + which, init);
    const data = await res.json().catch(() => ({}));
    if (!res.ok) throw new Error((data.error && data.error.message) || res.status + " " + res.statusText);
    return data;
  }

  function notice(text, bad) {
    const n = $("notice");
    n.textContent = text;
    n.className = bad ? "notice bad" : "notice";
  }

  // --- namespaces and the side panel -------------------------------------------------------

  async function loadNamespaces() {
    const res = await fetch(API + "/namespaces?limit=100", { headers: { accept: "application/json" } });
    if (!res.ok) return;
    const list = $("namespaces");
    const data = (await res.json()).data;
    for (const ns of data) state.labels.set(ns.namespace, ns.label);
    if (state.selected !== null && !data.some((ns) => ns.namespace === state.selected)) {
      data.unshift({ namespace: state.selected, label: labelOf(state.selected), scenario: "", calls: 0 });
    }
    state.known = new Set(data.map((ns) => ns.namespace));
    list.replaceChildren(
      ...data.map((ns) => {
        const button = el("button", { type: "button", title: ns.label, "data-namespace": ns.namespace });
        if (ns.namespace === state.selected) button.setAttribute("aria-current", "true");
        button.append(
          el("span", { class: "name" }, ns.label),
          el("span", { class: "sub" }, (ns.scenario ? ns.scenario + " · " : "") + ns.calls + (ns.calls === 1 ? " call" : " calls"))
        );
        button.addEventListener("click", () => select(ns.namespace, true));
        return el("li").appendChild(button).parentNode;
      })
    );
  }

  function select(name, byUser) {
    if (byUser) state.picked = true;
    if (name === state.selected) return;
    state.selected = name;
    state.scenario = null;
    $("ns-name").textContent = labelOf(name);
    for (const b of $("namespaces").querySelectorAll("button")) {
      b.setAttribute("aria-current", String(b.dataset.namespace === name));
    }
    notice("");
    applyFilter();
    loadScenario();
  }

  async function loadScenario() {
    let sc;
    try {
      sc = await api("GET", "/scenario");
    } catch (err) {
      notice(err.message, true);
      return;
    }
    if (state.selected !== null && sc.namespace !== state.selected) return;
    $("sc-name").textContent = sc.name;
    $("sc-fallback").textContent = "fallback: " + sc.fallback;
    $("sc-desc").textContent = (sc.description || "").trim();
    const pending = $("sc-pending");
    pending.hidden = !sc.pending;
    pending.textContent = sc.pending + " one-off queued";
    if (sc.name !== state.scenario) {
      // Only when the scenario changed: a refresh must not undo what the user is choosing.
      state.scenario = sc.name;
      $("switch").value = sc.name;
    }
    const rows = sc.rules.map((r) => {
      const tr = el("tr", r.hits ? { class: "hit" } : {});
      tr.append(el("td", {}, r.id || "(unnamed)"), el("td", { class: "num" }, r.hits), el("td", { class: "num" }, r.replies));
      return tr;
    });
    if (!rows.length) {
      const tr = el("tr");
      tr.append(el("td", { colspan: "3", class: "muted" }, "no rules: every reply is generated"));
      rows.push(tr);
    }
    $("rules").replaceChildren(...rows);
  }

  // --- the journal --------------------------------------------------------------------------

  const keyOf = (call) => call.namespace + "\u0000" + call.seq;

  function cells(call) {
    const status = el("td", { class: "num s" + String(call.status)[0] }, call.status);
    const why = call.rule
      ? el("td", { class: "mono", title: call.rule }, call.rule)
      : call.miss
        ? el("td", { class: "miss", title: call.miss }, "miss: " + call.miss.split("\n")[0])
        : el("td", { class: "muted" }, call.api && call.status < 400 ? "generated" : "");
    const path = el("td", { class: "mono", title: call.path }, call.path);
    if (call.stream) path.append(el("span", { class: "stream" }, "stream"));
    return [
      el("td", { class: "num" }, call.seq),
      el("td", { class: "mono", title: call.label }, call.label),
      el("td", {}, call.method),
      path,
      el("td", { class: "mono" }, call.model || ""),
      why,
      el("td", { class: "reply", title: call.summary }, call.summary),
      status,
      el("td", { class: "num" }, call.duration_ms ? call.duration_ms.toFixed(1) : "…"),
    ];
  }

  function upsert(call, fresh) {
    state.labels.set(call.namespace, call.label);
    const key = keyOf(call);
    let row = state.rows.get(key);
    if (!row) {
      const tr = el("tr", { tabindex: "0", "data-key": key });
      tr.addEventListener("click", () => openCall(key));
      row = { call, tr };
      state.rows.set(key, row);
      $("calls").prepend(tr);
      if (state.rows.size > MAX_ROWS) {
        const oldest = state.rows.keys().next().value;
        state.rows.get(oldest).tr.remove();
        state.rows.delete(oldest);
      }
    }
    row.call = call;
    row.tr.replaceChildren(...cells(call));
    row.tr.setAttribute("aria-selected", String(key === state.open));
    row.tr.setAttribute("aria-label", call.method + " " + call.path + ", status " + call.status);
    row.tr.hidden = $("only-ns").checked && call.namespace !== state.selected;
    if (fresh && !state.picked && call.namespace !== state.selected) select(call.namespace, false);
    if (!state.known.has(call.namespace)) later("namespaces", loadNamespaces, 150);
    if (call.namespace === state.selected) later("scenario", loadScenario, 150);
  }

  function applyFilter() {
    const only = $("only-ns").checked;
    let shown = 0;
    for (const { call, tr } of state.rows.values()) {
      tr.hidden = only && call.namespace !== state.selected;
      if (!tr.hidden) shown += 1;
    }
    $("count").textContent = shown + (shown === 1 ? " call" : " calls");
    $("empty").hidden = state.rows.size > 0;
  }

  function dropNamespace(name) {
    for (const [key, row] of state.rows) {
      if (row.call.namespace === name) {
        row.tr.remove();
        state.rows.delete(key);
      }
    }
    if (state.open && !state.rows.has(state.open)) closeCall();
    applyFilter();
  }

  // --- one call in detail -------------------------------------------------------------------

  function pretty(value) {
    return value === null || value === undefined ? "(none)" : JSON.stringify(value, null, 2);
  }

  // One line per event; with each event's send time when the stream was paced event by event.
  function streamText(events, timing) {
    const paced = timing && timing.length >= events.length;
    return events
      .map((event, i) => (paced ? "+" + timing[i].toFixed(1) + " ms  " : "") + JSON.stringify(event))
      .join("\n");
  }

  function streamTitle(full) {
    const t = full.timing || [];
    const span = t.length ? ", first byte +" + t[0].toFixed(1) + " ms" : "";
    return "Response: " + full.response.length + " events" + span + ", done in " + full.duration_ms.toFixed(1) + " ms";
  }

  async function openCall(key) {
    const row = state.rows.get(key);
    if (!row) return;
    state.open = key;
    for (const r of state.rows.values()) r.tr.setAttribute("aria-selected", String(r.tr === row.tr));
    const call = row.call;
    $("detail").hidden = false;
    $("detail-title").textContent = "#" + call.seq + "  " + call.method + " " + call.path + "  →  " + call.status;
    $("detail-why").textContent = call.rule ? "" : call.miss || "";
    $("detail-request").textContent = "loading…";
    $("detail-response").textContent = "";
    const res = await fetch(API + "/calls/" + call.seq + "?namespace=" + encodeURIComponent(call.namespace));
    if (state.open !== key) return;
    if (!res.ok) {
      $("detail-request").textContent = "This call has left the journal.";
      return;
    }
    const full = await res.json();
    $("detail-why").className = full.rule || !full.miss ? "why" : "why miss";
    $("detail-why").textContent = [full.rule ? "rule " + full.rule : full.miss, full.summary]
      .filter(Boolean)
      .join("\n");
    $("detail-request").textContent = pretty(full.request);
    const streamed = full.stream && Array.isArray(full.response);
    $("detail-response-title").textContent = streamed
      ? streamTitle(full)
      : "Response, " + full.duration_ms.toFixed(1) + " ms";
    $("detail-response").textContent = streamed ? streamText(full.response, full.timing) : pretty(full.response);
  }

  function closeCall() {
    const key = state.open;
    state.open = null;
    $("detail").hidden = true;
    const row = key && state.rows.get(key);
    if (row) {
      row.tr.setAttribute("aria-selected", "false");
      row.tr.focus();
    }
  }

  function onKey(event) {
    const tr = event.target.closest && event.target.closest("#calls tr");
    if (event.key === "Escape" && state.open) {
      event.preventDefault();
      closeCall();
    } else if (tr && (event.key === "Enter" || event.key === " ")) {
      event.preventDefault();
      openCall(tr.dataset.key);
    } else if (tr && (event.key === "ArrowDown" || event.key === "ArrowUp")) {
      event.preventDefault();
      let next = event.key === "ArrowDown" ? tr.nextElementSibling : tr.previousElementSibling;
      while (next && next.hidden) next = event.key === "ArrowDown" ? next.nextElementSibling : next.previousElementSibling;
      if (next) next.focus();
    }
  }

  // --- actions ------------------------------------------------------------------------------

  async function act(fn, done) {
    try {
      notice(done(await fn()));
    } catch (err) {
      notice(err.message, true);
    }
  }

  function wire() {
    $("switch-form").addEventListener("submit", (e) => {
      e.preventDefault();
      const name = $("switch").value;
      act(() => api("PUT", "/scenario", { name }), (sc) => "Scenario " + sc.name + " is active in " + labelOf(state.selected) + ".");
    });
    $("fault-form").addEventListener("submit", (e) => {
      e.preventDefault();
      const preset = $("fault").value;
      act(() => api("POST", "/next", { error: { preset } }), () => "The next reply in " + labelOf(state.selected) + " fails with " + preset + ".");
    });
    $("reset").addEventListener("click", () => {
      const shown = labelOf(state.selected);
      act(() => api("POST", "/reset"), () => "Namespace " + shown + " was reset.");
    });
    $("only-ns").addEventListener("change", applyFilter);
    $("close-detail").addEventListener("click", closeCall);
    document.addEventListener("keydown", onKey);
  }

  // --- the live feed ------------------------------------------------------------------------

  function connect() {
    const live = $("live");
    const source = new EventSource(API + "/events");
    source.addEventListener("open", () => {
      live.textContent = "live";
      live.className = "live on";
    });
    source.addEventListener("error", () => {
      live.textContent = "reconnecting…";
      live.className = "live";
    });
    source.addEventListener("snapshot", (e) => {
      const { calls } = JSON.parse(e.data);
      state.rows.clear();
      $("calls").replaceChildren();
      for (const call of calls) upsert(call, false);
      if (!state.picked && calls.length) select(calls[calls.length - 1].namespace, false);
      applyFilter();
      loadNamespaces();
      loadScenario();
    });
    source.addEventListener("call", (e) => {
      upsert(JSON.parse(e.data), true);
      applyFilter();
      later("namespaces", loadNamespaces, 300);
    });
    source.addEventListener("state", (e) => {
      if (JSON.parse(e.data).namespace === state.selected) later("scenario", loadScenario, 50);
      later("namespaces", loadNamespaces, 300);
    });
    source.addEventListener("reset", (e) => {
      const { namespace } = JSON.parse(e.data);
      dropNamespace(namespace);
      if (namespace === state.selected) {
        // Its handle names nothing now: show the default namespace until a call comes.
        state.selected = null;
        state.picked = false;
        $("ns-name").textContent = labelOf(null);
        later("scenario", loadScenario, 50);
      }
      later("namespaces", loadNamespaces, 150);
    });
  }

  wire();
  applyFilter();
  connect();
})();
