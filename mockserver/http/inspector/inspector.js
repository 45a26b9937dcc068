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
    full: null, // that call, whole (GET /calls/<n>)
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
          el("span", { class: "scenario-of" }, ns.scenario ? ns.scenario + " ·" : ""),
          el("span", { class: "count" }, ns.calls + (ns.calls === 1 ? " call" : " calls"))
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
    if (![...$("switch").options].some((o) => o.value === sc.name)) {
      $("switch").append(el("option", { value: sc.name }, sc.name)); // a scenario sent by PUT
    }
    if (sc.name !== state.scenario) {
      // Only when the scenario changed: a refresh must not undo what the user is choosing.
      state.scenario = sc.name;
      $("switch").value = sc.name;
    }
    const rows = sc.rules.map((r) => {
      const tr = el("tr", r.hits ? { class: "hit" } : {});
      tr.append(el("td", { title: r.id || "" }, r.id || "(unnamed)"), el("td", { class: "num" }, r.hits), el("td", { class: "num" }, r.replies));
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

  // A time in its 64 px column: tenths of a ms up to 10 s, whole ms up to 100 s, then seconds.
  function msText(ms) {
    if (ms < 10000) return ms.toFixed(1);
    return ms < 100000 ? String(Math.round(ms)) : Math.round(ms / 1000) + " s";
  }

  // A call sent over a Responses WebSocket: marked so, with its lane (stream_id) if it named one.
  function socketMark(lane) {
    const title = "Sent over the Responses WebSocket" + (lane ? ", on lane " + lane : "") + ".";
    return el("span", { class: "socket", title }, lane ? "socket · " + lane : "socket");
  }

  function cells(call) {
    const status = el("td", { class: "num c-status s" + String(call.status)[0] }, call.status);
    const why = call.rule
      ? el("td", { class: "mono c-rule", title: call.rule }, call.rule)
      : call.miss
        ? el("td", { class: "miss c-rule", title: call.miss }, call.status < 400 ? "miss → generated" : "miss")
        : el("td", { class: "muted c-rule" }, call.api && call.status < 400 ? "generated" : "");
    const path = el("td", { class: "mono c-path", title: call.method + " " + call.path });
    if (call.method !== "POST") path.append(el("span", { class: "method" }, call.method + " "));
    path.append(document.createTextNode(call.path));
    const reply = el("td", { class: "reply c-reply", title: call.summary });
    if (call.cut) {
      const cut = "The stream was cut: only its first events reached the client.";
      reply.append(el("span", { class: "stream cut", title: cut }, "stream cut"));
      reply.title = cut + " " + call.summary;
    }
    if (call.socket !== null && call.socket !== undefined) {
      reply.append(socketMark(call.socket)); // a socket's calls are streams: this says so
    } else if (call.stream && !call.cut) {
      reply.append(el("span", { class: "stream" }, "stream"));
    }
    reply.append(document.createTextNode(call.summary));
    const seq = el("td", { class: "num c-seq", title: "call " + call.number + " of the server, #" + call.seq + " of " + call.label });
    seq.append(el("b", {}, call.number || "–"), el("span", { class: "sub" }, " #" + call.seq));
    return [
      seq,
      el("td", { class: "mono c-ns", title: call.label }, call.label),
      path,
      el("td", { class: "mono c-model", title: call.model || "" }, call.model || ""),
      why,
      reply,
      status,
      el("td", { class: "num c-ms", title: call.duration_ms ? call.duration_ms.toFixed(1) + " ms" : "" }, call.duration_ms ? msText(call.duration_ms) : "…"),
    ];
  }

  // --- filters ------------------------------------------------------------------------------

  function filters() {
    return {
      status: $("f-status").value,
      rule: $("f-rule").value,
      path: $("f-path").value,
      ns: $("f-ns").value.trim().toLowerCase(),
      text: $("f-text").value.trim().toLowerCase(),
      only: $("only-ns").checked,
    };
  }

  // A rule's id; "generated" for a turn no rule answered (with or without a miss: the fallback
  // generated it); "miss" for a turn refused because no rule matched.
  const ruleOf = (call) =>
    call.rule ? "rule:" + call.rule : call.api && call.status < 400 ? "generated" : call.miss ? "miss" : "none";

  function matches(call, f) {
    if (f.only && call.namespace !== state.selected) return false;
    if (f.status === "miss" ? !call.miss : f.status && String(call.status)[0] !== f.status) return false;
    if (f.rule && ruleOf(call) !== f.rule) return false;
    if (f.path && call.path !== f.path) return false;
    if (f.ns && !(call.label.toLowerCase().includes(f.ns) || call.namespace.toLowerCase().includes(f.ns))) return false;
    if (f.text) {
      const hay = [call.method, call.path, call.model, call.rule, call.miss, call.summary, call.label, call.status].join("\n").toLowerCase();
      if (!hay.includes(f.text)) return false;
    }
    return true;
  }

  // The rule and path choices: what the journal holds, the current choice kept.
  function refreshChoices() {
    const rules = new Map([["generated", "generated"], ["miss", "miss"]]);
    const paths = new Set();
    for (const { call } of state.rows.values()) {
      if (call.rule) rules.set("rule:" + call.rule, call.rule);
      paths.add(call.path);
    }
    fill($("f-rule"), [...rules].sort((a, b) => a[1].localeCompare(b[1])));
    fill($("f-path"), [...paths].sort().map((p) => [p, p]));
  }

  function fill(select, pairs) {
    const kept = select.value;
    const options = [el("option", { value: "" }, "any")];
    for (const [value, text] of pairs) options.push(el("option", { value }, text));
    if (kept && !pairs.some(([v]) => v === kept)) options.push(el("option", { value: kept }, kept.replace(/^rule:/, "")));
    const same = select.options.length === options.length && options.every((o, i) => select.options[i].value === o.value);
    if (!same) {
      select.replaceChildren(...options);
      select.value = kept;
    }
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
    row.tr.hidden = !matches(call, filters());
    // The panel follows the newest call, unless the user picked a namespace or opened a call
    // (then it shows the opened call's namespace).
    if (fresh && !state.picked && !state.open && call.namespace !== state.selected) select(call.namespace, false);
    if (!state.known.has(call.namespace)) later("namespaces", loadNamespaces, 150);
    if (call.namespace === state.selected) later("scenario", loadScenario, 150);
  }

  function applyFilter() {
    const f = filters();
    let shown = 0;
    for (const { call, tr } of state.rows.values()) {
      tr.hidden = !matches(call, f);
      if (!tr.hidden) shown += 1;
    }
    const all = state.rows.size;
    $("count").textContent = (shown === all ? "" : shown + " of ") + all + (all === 1 ? " call" : " calls");
    $("empty").hidden = all > 0;
    $("filtered").hidden = all === 0 || shown > 0;
  }

  function dropNamespace(name) {
    for (const [key, row] of state.rows) {
      if (row.call.namespace === name) {
        row.tr.remove();
        state.rows.delete(key);
      }
    }
    if (state.open && !state.rows.has(state.open)) closeCall();
    refreshChoices();
    applyFilter();
  }

  // --- one call in detail -------------------------------------------------------------------

  function pretty(value) {
    return value === null || value === undefined ? "(none)" : JSON.stringify(value, null, 2);
  }

  // One line per event; with each event's send time when the stream was paced event by event.
  function streamText(events, plan) {
    return events
      .map((event, i) => {
        const t = plan.times[i];
        const at = plan.mode === "one-write" ? "" : t === null ? "(not sent)  " : "+" + t.toFixed(1) + " ms  ";
        return at + JSON.stringify(event);
      })
      .join("\n");
  }

  function streamTitle(full, plan) {
    const how = plan.mode === "one-write" ? ", one write" : plan.mode === "paced" ? "" : ", ended after " + plan.sent;
    return "Response: " + full.response.length + " events" + how + ", done in " + full.duration_ms.toFixed(1) + " ms";
  }

  function showView(raw) {
    $("view-raw").hidden = !raw;
    $("view-readable").hidden = raw;
    $("tab-raw").setAttribute("aria-pressed", String(raw));
    $("tab-readable").setAttribute("aria-pressed", String(!raw));
  }

  function showExport(title, hint, text) {
    $("export").hidden = false;
    $("export-notice").textContent = "";
    $("export-title").textContent = title;
    $("export-hint").textContent = hint;
    $("export-text").textContent = text;
  }

  // Said beside the export's Copy button, where the eyes are (not in the side panel).
  function copyNotice(text) {
    $("export-notice").textContent = text;
  }

  async function copyExport() {
    const text = $("export-text").textContent;
    try {
      await navigator.clipboard.writeText(text);
      copyNotice("Copied.");
    } catch (err) {
      // No clipboard (a page on a plain-HTTP host, or no permission): select it for Ctrl+C.
      const range = document.createRange();
      range.selectNodeContents($("export-text"));
      const sel = window.getSelection();
      sel.removeAllRanges();
      sel.addRange(range);
      copyNotice("Selected: press Ctrl+C to copy.");
    }
  }

  function renderCall(call, full) {
    const M = window.MockCall;
    state.full = full;
    $("detail-why").className = full.rule || !full.miss ? "why" : "why miss";
    $("detail-why").textContent = [full.rule ? "rule " + full.rule : full.miss, full.rule || full.miss ? "" : full.summary]
      .filter(Boolean)
      .join("\n");
    $("detail-why").hidden = !$("detail-why").textContent;
    $("detail-request").textContent = pretty(full.request);
    const headers = M.headersView(full);
    $("headers-summary").textContent = headers.summary;
    $("headers").replaceChildren(headers.body);
    $("headers-box").hidden = false;
    $("conversation").replaceChildren(...M.conversation(full));
    const streamed = full.stream && Array.isArray(full.response);
    const plan = streamed ? M.eventTimes(full) : null;
    const events = streamed ? full.response.slice(0, plan.sent) : null;
    $("answer").replaceChildren(...M.answerView(M.assemble(full, events), full.miss));
    if (plan && plan.mode !== "paced" && plan.mode !== "one-write") {
      $("answer").append(el("p", { class: "answer-error", id: "answer-ended" }, plan.mode === "cut" ? "The stream was cut here." : "A scripted error ended the stream here."));
    }
    $("answer-title").textContent = streamed
      ? "Answer, assembled from " + events.length + (events.length < full.response.length ? " events that reached the client" : " events")
      : "Answer, " + full.duration_ms.toFixed(1) + " ms";
    $("detail-response-title").textContent = streamed ? streamTitle(full, plan) : "Response, " + full.duration_ms.toFixed(1) + " ms";
    $("detail-response").textContent = streamed ? streamText(full.response, plan) : pretty(full.response);
    $("timeline-box").hidden = !streamed;
    if (streamed) drawTimeline();
  }

  function drawTimeline() {
    const full = state.full;
    if (!full || !full.stream || !Array.isArray(full.response) || $("timeline-box").hidden) return;
    const drawn = window.MockCall.timeline(full, $("timeline").clientWidth || 600);
    $("timeline").replaceChildren(drawn.svg);
    $("timeline-count").textContent = full.response.length + " events";
    $("timeline-note").textContent = drawn.note;
  }

  async function openCall(key) {
    const row = state.rows.get(key);
    if (!row) return;
    state.open = key;
    state.full = null;
    for (const r of state.rows.values()) r.tr.setAttribute("aria-selected", String(r.tr === row.tr));
    const call = row.call;
    if (call.namespace !== state.selected) select(call.namespace, false); // its rules, its hits
    $("detail").hidden = false;
    $("export").hidden = true;
    $("export-text").textContent = "";
    const over = call.socket === null || call.socket === undefined ? "" : "   (WebSocket" + (call.socket ? ", lane " + call.socket : "") + ")";
    $("detail-title").textContent = "Call " + call.number + " · #" + call.seq + " of " + call.label + "   " + call.method + " " + call.path + over + "  →  " + call.status;
    $("detail-why").textContent = call.rule ? "" : call.miss || "";
    $("detail-request").textContent = "loading…";
    $("detail-response").textContent = "";
    $("conversation").replaceChildren(el("p", { class: "muted" }, "loading…"));
    $("answer").replaceChildren();
    $("timeline-box").hidden = true;
    $("headers-box").hidden = true;
    const res = await fetch(API + "/calls/" + call.seq + "?namespace=" + encodeURIComponent(call.namespace));
    if (state.open !== key) return;
    if (!res.ok) {
      $("detail-request").textContent = "This call has left the journal.";
      $("conversation").replaceChildren(el("p", { class: "muted" }, "This call has left the journal."));
      return;
    }
    renderCall(call, await res.json());
  }

  function copyCurl() {
    const row = state.open && state.rows.get(state.open);
    if (!row || !state.full) return;
    const hint = row.call.default
      ? "Sends this request again, in the default namespace."
      : "Sends this request again, in namespace " + row.call.label + ": the page never sees keys, so the command takes it from $OPENAI_API_KEY.";
    showExport("curl", hint, window.MockCall.curl(row.call, state.full, location.origin));
    copyExport();
  }

  async function saveRule() {
    const row = state.open && state.rows.get(state.open);
    if (!row) return;
    const call = row.call;
    const res = await fetch(API + "/calls/" + call.seq + "/rule?namespace=" + encodeURIComponent(call.namespace));
    const data = await res.json().catch(() => ({}));
    if (!res.ok) {
      showExport("No rule", "", (data.error && data.error.message) || res.status + " " + res.statusText);
      return;
    }
    showExport("rule " + data.id, "Paste under a scenario's rules: (the conversion mockserver record uses for distilled rules).", data.yaml);
    copyExport();
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
    for (const id of ["only-ns", "f-status", "f-rule", "f-path"]) $(id).addEventListener("change", applyFilter);
    for (const id of ["f-ns", "f-text"]) $(id).addEventListener("input", applyFilter);
    $("filters").addEventListener("submit", (e) => e.preventDefault());
    $("close-detail").addEventListener("click", closeCall);
    $("tab-raw").addEventListener("click", () => showView(true));
    $("tab-readable").addEventListener("click", () => {
      showView(false);
      drawTimeline();
    });
    $("copy-curl").addEventListener("click", copyCurl);
    $("save-rule").addEventListener("click", saveRule);
    $("export-copy").addEventListener("click", copyExport);
    $("export-close").addEventListener("click", () => ($("export").hidden = true));
    window.addEventListener("resize", () => later("timeline", drawTimeline, 100));
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
      refreshChoices();
      if (!state.picked && !state.open && calls.length) select(calls[calls.length - 1].namespace, false);
      applyFilter();
      loadNamespaces();
      loadScenario();
    });
    source.addEventListener("call", (e) => {
      upsert(JSON.parse(e.data), true);
      later("choices", refreshChoices, 100);
      applyFilter();
      later("namespaces", loadNamespaces, 150);
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
