// The inspector's view of one call: the conversation as a person reads it, the answer
// assembled from the body or the stream's deltas, the stream's timeline (SVG), copy as curl.
// Vanilla JS, no build step; every value from the server is rendered with textContent.
"use strict";
(function () {
  const SVG = "http://www.w3.org/2000/svg";

  function el(tag, attrs, text) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }

  function svg(tag, attrs, text) {
    const node = document.createElementNS(SVG, tag);
    for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, String(v));
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }

  const isObj = (v) => v !== null && typeof v === "object" && !Array.isArray(v);

  function jsonText(raw) {
    if (typeof raw !== "string") return JSON.stringify(raw, null, 2);
    try {
      return JSON.stringify(JSON.parse(raw), null, 2);
    } catch (err) {
      return raw; // arguments that are not JSON (yet): shown as they came
    }
  }

  // --- the conversation ---------------------------------------------------------------------

  function message(role, text, extra) {
    const box = el("div", { class: "msg role-" + role.replace(/[^a-z_]/g, "") });
    box.append(el("div", { class: "who" }, role + (extra && extra.note ? " · " + extra.note : "")));
    if (text) box.append(el("div", { class: "text" }, text));
    for (const call of (extra && extra.calls) || []) box.append(toolCall(call));
    return box;
  }

  function toolCall(call) {
    const box = el("div", { class: "call" });
    box.append(el("div", { class: "call-name" }, "→ " + call.name + (call.id ? "  (" + call.id + ")" : "")));
    box.append(el("pre", { class: "args" }, jsonText(call.arguments)));
    return box;
  }

  const R = () => window.MockReaders;

  // The request as a person reads it, as its family's reader reads it (readers.js): its
  // messages, contents or input items, then the tools offered.
  function conversation(full) {
    const request = full.request;
    if (!isObj(request)) return [el("p", { class: "muted" }, request === null || request === undefined ? "No request body." : "See the raw request.")];
    const reader = R().readerOf(full.api, request);
    if (reader === null) return [el("p", { class: "muted" }, "Not a conversation: see the raw request.")];
    const items = reader.conversation(request).map((t) => message(t.role, t.text, { calls: t.calls, note: t.note }));
    const tools = R().toolNames(request);
    if (tools.length) items.push(el("p", { class: "tools muted" }, "tools offered: " + tools.join(", ")));
    return items;
  }

  // --- the answer, assembled ----------------------------------------------------------------

  function blankAnswer() {
    return { text: "", refusal: "", reasoning: "", calls: [], usage: null, finish: null, error: null };
  }

  // What the answer said, from the body (or, for a stream, from its deltas in order: the events
  // that reached the client).
  function assemble(full, events) {
    const answer = blankAnswer();
    const body = full.response;
    if (full.status >= 400 && isObj(body)) {
      // ``{"error": {…}}``, Ollama's ``{"error": "…"}``, Bedrock's ``{"message": "…"}``
      answer.error = typeof body.error === "string" ? { message: body.error } : body.error || body;
      return answer;
    }
    const reader = R().readerOf(full.api, full.request);
    if (reader === null) return null;
    if (full.stream && Array.isArray(events)) reader.events(answer, events);
    else if (!isObj(body) || !reader.whole(answer, body)) return null;
    return answer;
  }

  function usageText(usage) {
    if (!isObj(usage)) return "";
    const get = (...names) => names.map((n) => usage[n]).find((v) => typeof v === "number");
    const parts = [
      ["in", get("prompt_tokens", "input_tokens", "promptTokenCount", "inputTokens")],
      ["out", get("completion_tokens", "output_tokens", "candidatesTokenCount", "outputTokens")],
      ["total", get("total_tokens", "totalTokenCount", "totalTokens")],
    ];
    const details = usage.completion_tokens_details || usage.output_tokens_details || {};
    const reasoning = typeof details.reasoning_tokens === "number" ? details.reasoning_tokens : usage.thoughtsTokenCount;
    if (typeof reasoning === "number") parts.push(["reasoning", reasoning]);
    const cached = get("cache_read_input_tokens", "cachedContentTokenCount");
    if (cached) parts.push(["cached", cached]);
    return parts.filter(([, v]) => v !== undefined).map(([k, v]) => k + " " + v).join(" · ");
  }

  // ``miss``: the call's miss explanation, shown above the answer (an error that repeats it
  // says so rather than saying it twice).
  function answerView(answer, miss) {
    if (answer === null) return [el("p", { class: "muted" }, "No model answer to assemble: see the raw response.")];
    const out = [];
    if (answer.error) {
      const e = answer.error;
      const repeats = miss && typeof e.message === "string" && e.message.startsWith(miss.split("\n")[0]);
      const said = repeats ? ": no rule matched (the explanation is above)" : e.message ? ": " + e.message : "";
      out.push(el("div", { class: "answer-error" }, [e.type, e.status, e.code].filter(Boolean).join(" · ") + said));
    }
    if (answer.reasoning) out.push(el("h4", {}, "reasoning summary"), el("div", { class: "text reasoning", id: "answer-reasoning" }, answer.reasoning));
    if (answer.text || (!answer.refusal && !answer.calls.length && !answer.error)) {
      out.push(el("h4", {}, "text"), el("div", { class: "text", id: "answer-text" }, answer.text));
    }
    if (answer.refusal) out.push(el("h4", {}, "refusal"), el("div", { class: "text refusal", id: "answer-refusal" }, answer.refusal));
    if (answer.calls.length) {
      out.push(el("h4", {}, answer.calls.length === 1 ? "tool call" : answer.calls.length + " tool calls"));
      for (const call of answer.calls) out.push(toolCall(call));
    }
    const meta = [answer.finish ? "finish: " + answer.finish : "", usageText(answer.usage)].filter(Boolean).join("   ");
    if (meta) out.push(el("p", { class: "usage muted", id: "answer-usage" }, meta));
    return out;
  }

  // --- the stream's timeline ----------------------------------------------------------------

  // An event's name on the timeline, and whether it carries the answer (the first that does
  // is the first token), as the call's family reads them.
  function eventName(full, e) {
    if (!isObj(e)) return String(e);
    const reader = R().readerOf(full.api, full.request);
    if (reader && reader.isError && reader.isError(e)) return reader.eventName(e);
    if (e.type === "error" || (isObj(e.error) && !Array.isArray(e.choices))) return "error";
    return reader ? reader.eventName(e) : e.type || "event";
  }

  // Is the event a stream's error (``error``, an ``error`` object, a family's own: Bedrock's
  // ``…Exception``)?
  function failure(full, e) {
    if (!isObj(e)) return false;
    if (e.type === "error" || (isObj(e.error) && !Array.isArray(e.choices))) return true;
    const reader = R().readerOf(full.api, full.request);
    return !!(reader && reader.isError && reader.isError(e));
  }

  function carriesText(full, e) {
    const reader = R().readerOf(full.api, full.request);
    return isObj(e) && !!reader && reader.carriesText(e);
  }

  // When each event reached the socket, from the entry's timing (ms per write): a paced stream
  // writes each event on its own; an unpaced one leaves in one write, so its events have no times
  // of their own; a cut stream wrote only its first len(timing) events.
  function eventTimes(full) {
    const events = Array.isArray(full.response) ? full.response : [];
    const timing = Array.isArray(full.timing) ? full.timing : [];
    if (full.cut) {
      return { mode: "cut", sent: Math.min(timing.length, events.length), times: events.map((_, i) => (i < timing.length ? timing[i] : null)) };
    }
    const errorAt = events.findIndex((e) => failure(full, e));
    if (errorAt >= 0 && timing.length > 1) {
      // A scripted error ended it: the journal keeps what was sent, the events before the
      // error, then its error event (and, on the Responses API, the response.failed after it).
      return { mode: "early", sent: errorAt, times: events.map((_, i) => (i < timing.length ? timing[i] : null)), endedAt: timing[Math.min(errorAt, timing.length - 1)] };
    }
    if (timing.length >= events.length && timing.length > 1) {
      return { mode: "paced", sent: events.length, times: events.map((_, i) => timing[i]), extra: timing.length - events.length };
    }
    const at = timing.length ? timing[timing.length - 1] : full.duration_ms || 0;
    return { mode: "one-write", sent: events.length, times: events.map(() => at) };
  }

  function timelineNote(full, plan, events) {
    const ms = (v) => v.toFixed(1) + " ms";
    if (plan.mode === "one-write") {
      return "Sent in one write at +" + ms(plan.times[0] || 0) + ": an unpaced stream leaves in a single write, so its " +
        events.length + " events have no times of their own (a scenario latency paces a stream one write per event).";
    }
    const sentTimes = plan.times.filter((t) => t !== null);
    const first = sentTimes.length ? sentTimes[0] : null;
    const ttftIndex = events.findIndex((e, i) => plan.times[i] !== null && carriesText(full, e));
    let gap = 0;
    let gapAt = 0;
    for (let i = 1; i < sentTimes.length; i += 1) {
      if (sentTimes[i] - sentTimes[i - 1] > gap) {
        gap = sentTimes[i] - sentTimes[i - 1];
        gapAt = i;
      }
    }
    const parts = [];
    if (first !== null) parts.push("first byte +" + ms(first));
    if (ttftIndex >= 0) parts.push("first token +" + ms(plan.times[ttftIndex]));
    if (gap > 0) parts.push("longest gap " + ms(gap) + " before event " + (gapAt + 1));
    if (plan.mode === "cut") parts.push("cut after " + plan.sent + " of " + events.length + " events: the rest never reached the client");
    if (plan.mode === "early") {
      parts.push("ended after " + plan.sent + " events: a scripted error took the place of the rest (its error event is listed where they would have been)");
    }
    if (plan.extra > 2) parts.push("the stream also wrote " + (plan.extra - 2) + " keep-alive comments, so times are approximate");
    parts.push("done at +" + ms(full.duration_ms || 0));
    return parts.join(" · ");
  }

  function timeline(full, width) {
    const events = Array.isArray(full.response) ? full.response : [];
    const plan = eventTimes(full);
    const W = Math.max(200, Math.floor(width));
    const H = 74;
    const left = 8;
    const right = 8;
    const axisY = 46;
    const known = plan.times.filter((t) => t !== null);
    const end = Math.max(full.duration_ms || 0, known.length ? Math.max(...known) : 0, 0.1);
    const x = (t) => left + (t / end) * (W - left - right);
    const root = svg("svg", { width: W, height: H, viewBox: "0 0 " + W + " " + H, role: "img", id: "timeline-svg", class: "timeline-svg" });
    root.append(svg("title", {}, events.length + " events on a time axis from the request (0 ms) to its end (" + end.toFixed(1) + " ms)"));
    root.append(svg("line", { x1: left, x2: W - right, y1: axisY, y2: axisY, class: "axis" }));
    for (let i = 0; i <= 4; i += 1) {
      const t = (end * i) / 4;
      const tx = x(t);
      root.append(svg("line", { x1: tx, x2: tx, y1: axisY, y2: axisY + 4, class: "axis" }));
      root.append(svg("text", { x: tx, y: axisY + 16, class: "tick", "text-anchor": i === 0 ? "start" : i === 4 ? "end" : "middle" }, t.toFixed(t >= 100 ? 0 : 1) + " ms"));
    }
    const cutAt = plan.mode === "cut" ? (known.length ? known[known.length - 1] : 0) : plan.mode === "early" ? plan.endedAt : null;
    if (cutAt !== null) {
      root.append(svg("line", { x1: x(cutAt), x2: x(cutAt), y1: 4, y2: axisY, class: "cut-line" }));
      root.append(svg("text", { x: Math.min(x(cutAt) + 4, W - 60), y: 12, class: "cut-label" }, plan.mode === "early" ? "error" : "cut"));
    }
    const ttftIndex = events.findIndex((e, i) => plan.times[i] !== null && carriesText(full, e));
    events.forEach((e, i) => {
      const sent = plan.times[i] !== null;
      const t = sent ? plan.times[i] : cutAt || 0;
      const stack = plan.mode === "one-write" ? (i % 8) * 4 : 0;
      const cls = "mark" + (sent ? " sent" : " unsent") + (i === ttftIndex ? " ttft" : "") + (failure(full, e) ? " bad" : "");
      const mark = svg("rect", {
        x: x(t) - 1.5 + (sent ? 0 : 6 + (i - plan.sent) * 3),
        y: 18 + stack - (plan.mode === "one-write" ? 14 : 0),
        width: 3,
        height: plan.mode === "one-write" ? 12 : 24,
        class: cls,
        "data-index": i,
      });
      mark.append(svg("title", {}, "#" + (i + 1) + " " + eventName(full, e) + (sent ? " at +" + t.toFixed(1) + " ms" : " (never sent)")));
      root.append(mark);
    });
    return { svg: root, note: timelineNote(full, plan, events), plan };
  }

  // --- the headers --------------------------------------------------------------------------

  // Response headers a person looks for first: how long to wait, which request it was (named
  // in the summary line), and how much budget is left (marked in the list).
  const SUMMARY = /^(retry-after|x-request-id|request-id|x-amzn-requestid|x-amzn-errortype)$/;
  const NOTABLE = /^(retry-after|retry-after-ms|x-request-id|request-id|x-amzn-requestid|x-amzn-errortype|x-ratelimit-remaining-(requests|tokens)|anthropic-ratelimit-(requests|tokens)-remaining)$/;

  function headerTable(headers, id) {
    const names = Object.keys(isObj(headers) ? headers : {});
    if (!names.length) return el("p", { class: "muted", id }, "none kept");
    const table = el("table", { class: "header-list", id });
    for (const name of names) {
      const tr = el("tr", NOTABLE.test(name) ? { class: "notable" } : {});
      tr.append(el("th", { scope: "row" }, name), el("td", {}, headers[name]));
      table.append(tr);
    }
    return table;
  }

  // The call's headers as the journal kept them (a credential's value masked), and the
  // summary line that names the notable ones.
  function headersView(full) {
    const response = isObj(full.response_headers) ? full.response_headers : {};
    const request = isObj(full.request_headers) ? full.request_headers : {};
    const notable = Object.keys(response).filter((n) => SUMMARY.test(n));
    const count = Object.keys(request).length + " request, " + Object.keys(response).length + " response";
    const summary = notable.length ? notable.map((n) => n + " " + response[n]).join(" · ") : count;
    const cols = el("div", { class: "cols" });
    const left = el("div");
    left.append(el("h4", {}, "request"), headerTable(request, "request-headers"));
    const right = el("div");
    right.append(el("h4", {}, "response"), headerTable(response, "response-headers"));
    cols.append(left, right);
    return { summary, body: cols };
  }

  // --- copy as curl -------------------------------------------------------------------------

  const shellQuote = (s) => "'" + String(s).replace(/'/g, "'\\''") + "'";

  // A curl command that sends this call again. The page never knows a namespace's key: the
  // command reads it from $OPENAI_API_KEY (and says which key it needs when that is unset).
  function curl(call, full, origin) {
    const lines = ["curl -sS" + (full.stream ? " -N" : "") + (call.method !== "GET" && call.method !== "POST" ? " -X " + call.method : "") + " " + shellQuote(origin + call.path)];
    if (full.request !== null && full.request !== undefined) lines.push("-H 'Content-Type: application/json'");
    if (!call.default) {
      const hint = "set OPENAI_API_KEY to the key of namespace " + call.label;
      lines.push('-H "Authorization: Bearer ${OPENAI_API_KEY:?' + hint.replace(/["$`\\}]/g, "") + '}"');
    }
    if (full.request !== null && full.request !== undefined) lines.push("--data-raw " + shellQuote(JSON.stringify(full.request)));
    return lines.join(" \\\n  ");
  }

  window.MockCall = { conversation, assemble, answerView, timeline, eventTimes, headersView, curl };
})();
