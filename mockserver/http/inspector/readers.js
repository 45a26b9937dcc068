// How the inspector reads each API family's calls, one reader per family (the journal entry's
// ``api``): the request as a conversation, and the answer from the whole body or from the
// stream's events. Readers return plain data ({role, text, calls, note} turns; the answer's
// text, refusal, reasoning, calls, usage, finish, error); call.js draws it. A family adds one
// entry here. Vanilla JS, no build step.
"use strict";
(function () {
  const isObj = (v) => v !== null && typeof v === "object" && !Array.isArray(v);
  const list = (v) => (Array.isArray(v) ? v : []);
  const turn = (role, text, extra) => ({ role, text: text || "", calls: (extra && extra.calls) || [], note: (extra && extra.note) || "" });

  // The text of a message's content: a string, or parts (text, images, files, audio).
  function partsText(content) {
    if (typeof content === "string") return content;
    if (!Array.isArray(content)) return content === null || content === undefined ? "" : JSON.stringify(content);
    return content
      .map((p) => {
        if (typeof p === "string") return p;
        if (!isObj(p)) return "";
        if (typeof p.text === "string") return p.text;
        if (typeof p.refusal === "string") return "[refusal] " + p.refusal;
        if (p.type === "image_url" || p.type === "input_image" || p.type === "image") return "[image]";
        if (p.type === "input_file" || p.type === "file" || p.type === "document") return "[file]";
        if (p.type === "input_audio") return "[audio]";
        return "[" + (p.type || "part") + "]";
      })
      .join("\n");
  }

  // --- OpenAI: Chat Completions, Responses, legacy completions ------------------------------

  function chatConversation(body) {
    const out = [];
    for (const m of list(body.messages)) {
      if (!isObj(m)) continue;
      const role = String(m.role || "?");
      const calls = list(m.tool_calls).map((c) => ({
        id: c.id,
        name: (c.function && c.function.name) || c.type || "?",
        arguments: (c.function && c.function.arguments) || (c.custom && c.custom.input) || "",
      }));
      if (m.function_call) calls.push({ name: m.function_call.name, arguments: m.function_call.arguments });
      const note = role === "tool" ? "result of " + (m.tool_call_id || "?") : m.name ? m.name : "";
      out.push(turn(role, partsText(m.content), { calls, note }));
    }
    return out;
  }

  function chatMessage(answer, msg) {
    if (!isObj(msg)) return;
    if (typeof msg.content === "string") answer.text += msg.content;
    if (typeof msg.refusal === "string") answer.refusal += msg.refusal;
    if (typeof msg.reasoning_content === "string") answer.reasoning += msg.reasoning_content;
    for (const c of list(msg.tool_calls)) {
      answer.calls.push({ id: c.id, name: c.function ? c.function.name : c.type, arguments: c.function ? c.function.arguments : "" });
    }
  }

  function chatWhole(answer, body) {
    if (!Array.isArray(body.choices)) return false;
    const choice = body.choices[0] || {};
    if (typeof choice.text === "string") answer.text += choice.text; // legacy completions
    chatMessage(answer, choice.message);
    answer.finish = choice.finish_reason || null;
    answer.usage = body.usage || null;
    return true;
  }

  function chatChunks(answer, chunks) {
    const byIndex = new Map();
    for (const chunk of chunks) {
      if (!isObj(chunk)) continue;
      if (chunk.error) answer.error = chunk.error;
      if (chunk.usage) answer.usage = chunk.usage;
      const choice = Array.isArray(chunk.choices) ? chunk.choices[0] : null;
      if (!isObj(choice)) continue;
      if (typeof choice.text === "string") answer.text += choice.text; // legacy completions
      const d = choice.delta || {};
      if (typeof d.content === "string") answer.text += d.content;
      if (typeof d.refusal === "string") answer.refusal += d.refusal;
      if (typeof d.reasoning_content === "string") answer.reasoning += d.reasoning_content;
      for (const c of list(d.tool_calls)) {
        let call = byIndex.get(c.index);
        if (!call) {
          call = { id: "", name: "", arguments: "" };
          byIndex.set(c.index, call);
          answer.calls.push(call);
        }
        if (c.id) call.id = c.id;
        if (c.function && c.function.name) call.name += c.function.name;
        if (c.function && typeof c.function.arguments === "string") call.arguments += c.function.arguments;
      }
      if (choice.finish_reason) answer.finish = choice.finish_reason;
    }
  }

  function chatEventName(e) {
    const c = Array.isArray(e.choices) ? e.choices[0] : null;
    if (c && c.finish_reason) return "finish: " + c.finish_reason;
    if (c && c.delta && typeof c.delta.content === "string" && c.delta.content) return "delta " + JSON.stringify(c.delta.content);
    if (c && typeof c.text === "string" && c.text) return "text " + JSON.stringify(c.text);
    if (c && c.delta && c.delta.tool_calls) return "tool call delta";
    if (c && c.delta && c.delta.role) return "role: " + c.delta.role;
    if (e.usage) return "usage";
    return e.object || "event";
  }

  function chatCarriesText(e) {
    const c = Array.isArray(e.choices) ? e.choices[0] : null;
    const d = c && c.delta;
    return !!((c && typeof c.text === "string" && c.text) || (d && ((typeof d.content === "string" && d.content) || d.tool_calls || d.refusal)));
  }

  function responsesConversation(body) {
    const out = [];
    if (body.previous_response_id) out.push(turn("context", "continues " + body.previous_response_id));
    if (body.conversation) out.push(turn("context", "in conversation " + JSON.stringify(body.conversation)));
    if (typeof body.instructions === "string" && body.instructions) out.push(turn("instructions", body.instructions));
    const input = typeof body.input === "string" ? [{ role: "user", content: body.input }] : body.input;
    for (const item of list(input)) {
      if (!isObj(item)) continue;
      const type = item.type || "message";
      if (type === "message") {
        out.push(turn(String(item.role || "?"), partsText(item.content)));
      } else if (type === "function_call" || type === "custom_tool_call") {
        out.push(turn("assistant", "", { calls: [{ id: item.call_id, name: item.name, arguments: item.arguments || item.input || "" }] }));
      } else if (type === "function_call_output" || type === "custom_tool_call_output") {
        out.push(turn("tool", partsText(item.output), { note: "result of " + (item.call_id || "?") }));
      } else if (type === "reasoning") {
        out.push(turn("reasoning", partsText(item.summary)));
      } else if (type === "item_reference") {
        out.push(turn("context", "item " + item.id));
      } else {
        out.push(turn(type, JSON.stringify(item, null, 2)));
      }
    }
    return out;
  }

  function responsesWhole(answer, response) {
    if (response.object !== "response") return false;
    for (const item of list(response.output)) {
      if (item.type === "message") {
        for (const part of item.content || []) {
          if (part.type === "output_text") answer.text += part.text;
          if (part.type === "refusal") answer.refusal += part.refusal;
        }
      } else if (item.type === "function_call" || item.type === "custom_tool_call") {
        answer.calls.push({ id: item.call_id, name: item.name, arguments: item.arguments || item.input || "" });
      } else if (item.type === "reasoning") {
        answer.reasoning += (item.summary || []).map((s) => s.text).join("\n");
      }
    }
    answer.usage = response.usage || answer.usage;
    answer.finish = response.status || answer.finish;
    if (response.error) answer.error = response.error;
    return true;
  }

  function responsesEvents(answer, events) {
    const calls = new Map(); // item id -> call
    for (const e of events) {
      if (!isObj(e)) continue;
      const t = e.type;
      if (t === "response.output_text.delta") answer.text += e.delta;
      else if (t === "response.refusal.delta") answer.refusal += e.delta;
      else if (t === "response.reasoning_summary_text.delta") answer.reasoning += e.delta;
      else if (t === "response.reasoning_summary_part.added" && answer.reasoning) answer.reasoning += "\n";
      else if (t === "response.output_item.added" && isObj(e.item) && /call$/.test(e.item.type || "")) {
        const call = { id: e.item.call_id, name: e.item.name, arguments: "" };
        calls.set(e.item.id, call);
        answer.calls.push(call);
      } else if (t === "response.function_call_arguments.delta" || t === "response.custom_tool_call_input.delta") {
        const call = calls.get(e.item_id);
        if (call) call.arguments += e.delta;
      } else if (t === "response.completed" || t === "response.incomplete" || t === "response.failed") {
        answer.usage = e.response && e.response.usage;
        answer.finish = e.response && e.response.status;
        if (e.response && e.response.error) answer.error = e.response.error;
      } else if (t === "error") {
        answer.error = e.error || e;
      }
    }
  }

  // Events that name themselves (``type``): a text delta is one whose ``delta`` is text.
  const typedName = (e) => e.type || "event";
  const typedCarriesText = (e) => typeof e.delta === "string" && !!e.delta && /delta$/.test(e.type || "");

  // --- Anthropic Messages -------------------------------------------------------------------

  // A message's blocks (or parts) as turns: runs of text joined, a tool call ending the run it
  // follows, a tool result or thinking a turn of its own.
  function blockTurns(role) {
    const out = [];
    let text = [];
    const flush = (extra) => {
      if (text.length || extra) out.push(turn(role, text.join("\n"), extra));
      text = [];
    };
    return {
      text: (t) => text.push(t),
      call: (call) => flush({ calls: [call] }),
      apart: (own) => {
        flush();
        out.push(own);
      },
      done: () => {
        flush();
        return out;
      },
    };
  }

  function messagesBlocks(role, content) {
    if (typeof content === "string") return [turn(role, content)];
    const turns = blockTurns(role);
    for (const block of list(content)) {
      if (!isObj(block)) continue;
      if (block.type === "text") turns.text(block.text || "");
      else if (block.type === "tool_use") turns.call({ id: block.id, name: block.name, arguments: block.input });
      else if (block.type === "tool_result") {
        const text = partsText(block.content) + (block.is_error ? "\n[is_error]" : "");
        turns.apart(turn("tool", text, { note: "result of " + (block.tool_use_id || "?") }));
      } else if (block.type === "thinking") turns.apart(turn("reasoning", block.thinking || ""));
      else if (block.type === "redacted_thinking") turns.apart(turn("reasoning", "[redacted thinking]"));
      else turns.text(partsText([block]));
    }
    return turns.done();
  }

  function messagesConversation(body) {
    const out = [];
    if (body.system) out.push(turn("system", partsText(body.system)));
    for (const m of list(body.messages)) {
      if (isObj(m)) out.push(...messagesBlocks(String(m.role || "?"), m.content));
    }
    return out;
  }

  function messagesContent(answer, blocks) {
    for (const block of list(blocks)) {
      if (!isObj(block)) continue;
      if (block.type === "text") answer.text += block.text || "";
      else if (block.type === "tool_use") answer.calls.push({ id: block.id, name: block.name, arguments: block.input });
      else if (block.type === "thinking") answer.reasoning += block.thinking || "";
      else if (block.type === "redacted_thinking") answer.reasoning += "[redacted thinking]";
    }
  }

  function messagesWhole(answer, body) {
    if (body.type !== "message") return false;
    messagesContent(answer, body.content);
    if (body.stop_reason === "refusal" && !answer.text) answer.refusal = "refused (stop_reason: refusal)";
    answer.finish = body.stop_reason || null;
    answer.usage = body.usage || null;
    return true;
  }

  function messagesEvents(answer, events) {
    const calls = new Map(); // block index -> call
    for (const e of events) {
      if (!isObj(e)) continue;
      if (e.type === "message_start" && isObj(e.message)) answer.usage = e.message.usage || answer.usage;
      else if (e.type === "content_block_start" && isObj(e.content_block)) {
        const block = e.content_block;
        if (block.type === "tool_use") {
          const call = { id: block.id, name: block.name, arguments: "" };
          calls.set(e.index, call);
          answer.calls.push(call);
        } else if (block.type === "redacted_thinking") answer.reasoning += "[redacted thinking]";
      } else if (e.type === "content_block_delta" && isObj(e.delta)) {
        const d = e.delta;
        if (d.type === "text_delta") answer.text += d.text || "";
        else if (d.type === "thinking_delta") answer.reasoning += d.thinking || "";
        else if (d.type === "input_json_delta" && calls.has(e.index)) calls.get(e.index).arguments += d.partial_json || "";
      } else if (e.type === "message_delta") {
        if (isObj(e.delta) && e.delta.stop_reason) answer.finish = e.delta.stop_reason;
        if (isObj(e.usage)) answer.usage = Object.assign({}, answer.usage || {}, e.usage);
      } else if (e.type === "error") answer.error = e.error || e;
    }
  }

  function messagesEventName(e) {
    const d = isObj(e.delta) ? e.delta : null;
    if (e.type === "content_block_delta" && d && d.type === "text_delta") return "text " + JSON.stringify(d.text);
    if (e.type === "content_block_delta" && d) return d.type;
    if (e.type === "content_block_start" && isObj(e.content_block)) return "start " + e.content_block.type;
    if (e.type === "message_delta" && d && d.stop_reason) return "stop: " + d.stop_reason;
    return e.type || "event";
  }

  const messagesCarriesText = (e) => e.type === "content_block_delta" && isObj(e.delta) && e.delta.type !== "signature_delta";

  // --- Gemini generateContent ---------------------------------------------------------------

  function geminiParts(role, parts) {
    const turns = blockTurns(role);
    for (const part of list(parts)) {
      if (!isObj(part)) continue;
      if (part.thought && typeof part.text === "string") turns.apart(turn("reasoning", part.text));
      else if (typeof part.text === "string") turns.text(part.text);
      else if (isObj(part.functionCall)) turns.call({ id: part.functionCall.id, name: part.functionCall.name, arguments: part.functionCall.args });
      else if (isObj(part.functionResponse)) {
        const answered = part.functionResponse;
        turns.apart(turn("tool", JSON.stringify(answered.response, null, 2), { note: "result of " + (answered.name || "?") }));
      } else if (part.inlineData || part.fileData) {
        const mime = (part.inlineData || part.fileData).mimeType || "";
        turns.text(mime.startsWith("image/") ? "[image]" : "[file]");
      } else turns.text("[" + (Object.keys(part)[0] || "part") + "]");
    }
    return turns.done();
  }

  function geminiConversation(body) {
    const out = [];
    const system = body.systemInstruction || body.system_instruction;
    if (isObj(system)) out.push(turn("system", list(system.parts).map((p) => (isObj(p) && p.text) || "").join("\n")));
    for (const c of list(body.contents)) {
      if (isObj(c)) out.push(...geminiParts(c.role === "model" ? "assistant" : String(c.role || "user"), c.parts));
    }
    return out;
  }

  function geminiChunk(answer, chunk) {
    if (isObj(chunk.error)) answer.error = chunk.error;
    if (isObj(chunk.usageMetadata)) answer.usage = chunk.usageMetadata;
    if (isObj(chunk.promptFeedback) && chunk.promptFeedback.blockReason) {
      answer.refusal = "prompt blocked: " + chunk.promptFeedback.blockReason;
      answer.finish = chunk.promptFeedback.blockReason;
    }
    const candidate = list(chunk.candidates)[0];
    if (!isObj(candidate)) return;
    for (const part of list(candidate.content && candidate.content.parts)) {
      if (!isObj(part)) continue;
      if (part.thought && typeof part.text === "string") answer.reasoning += part.text;
      else if (typeof part.text === "string") answer.text += part.text;
      else if (isObj(part.functionCall)) answer.calls.push({ id: part.functionCall.id, name: part.functionCall.name, arguments: part.functionCall.args });
    }
    if (candidate.finishReason) answer.finish = candidate.finishReason;
  }

  function geminiWhole(answer, body) {
    if (!Array.isArray(body.candidates) && !isObj(body.promptFeedback)) return false;
    geminiChunk(answer, body);
    return true;
  }

  function geminiEvents(answer, events) {
    for (const chunk of events) if (isObj(chunk)) geminiChunk(answer, chunk);
  }

  function geminiEventName(e) {
    if (isObj(e.error)) return "error";
    const candidate = list(e.candidates)[0];
    if (isObj(candidate)) {
      const parts = list(candidate.content && candidate.content.parts);
      const text = parts.map((p) => (isObj(p) && !p.thought && typeof p.text === "string" ? p.text : "")).join("");
      if (text) return "text " + JSON.stringify(text);
      if (parts.some((p) => isObj(p) && p.functionCall)) return "functionCall";
      if (parts.some((p) => isObj(p) && p.thought)) return "thought";
      if (candidate.finishReason) return "finish: " + candidate.finishReason;
    }
    if (isObj(e.promptFeedback)) return "promptFeedback";
    return "chunk";
  }

  function geminiCarriesText(e) {
    const candidate = list(e.candidates)[0];
    return isObj(candidate) && list(candidate.content && candidate.content.parts).some((p) => isObj(p) && (typeof p.text === "string" || p.functionCall));
  }

  // --- Bedrock Runtime: Converse, and InvokeModel with an Anthropic body -------------------

  function converseBlocks(role, content) {
    const turns = blockTurns(role);
    for (const block of list(content)) {
      if (!isObj(block)) continue;
      if (typeof block.text === "string") turns.text(block.text);
      else if (isObj(block.toolUse)) turns.call({ id: block.toolUse.toolUseId, name: block.toolUse.name, arguments: block.toolUse.input });
      else if (isObj(block.toolResult)) {
        const result = block.toolResult;
        const text = list(result.content).map((c) => (isObj(c) && typeof c.text === "string" ? c.text : JSON.stringify(isObj(c) && "json" in c ? c.json : c))).join("\n");
        turns.apart(turn("tool", text, { note: "result of " + (result.toolUseId || "?") }));
      } else if (isObj(block.reasoningContent)) {
        const reasoning = block.reasoningContent.reasoningText;
        turns.apart(turn("reasoning", isObj(reasoning) ? reasoning.text || "" : "[redacted reasoning]"));
      } else turns.text("[" + (Object.keys(block)[0] || "block") + "]");
    }
    return turns.done();
  }

  function converseConversation(body) {
    const out = [];
    const system = list(body.system).map((s) => (isObj(s) && typeof s.text === "string" ? s.text : "")).filter(Boolean);
    if (system.length) out.push(turn("system", system.join("\n")));
    for (const m of list(body.messages)) {
      if (isObj(m)) out.push(...converseBlocks(String(m.role || "?"), m.content));
    }
    return out;
  }

  function converseContent(answer, content) {
    for (const block of list(content)) {
      if (!isObj(block)) continue;
      if (typeof block.text === "string") answer.text += block.text;
      else if (isObj(block.toolUse)) answer.calls.push({ id: block.toolUse.toolUseId, name: block.toolUse.name, arguments: block.toolUse.input });
      else if (isObj(block.reasoningContent) && isObj(block.reasoningContent.reasoningText)) answer.reasoning += block.reasoningContent.reasoningText.text || "";
    }
  }

  function converseWhole(answer, body) {
    if (!isObj(body.output)) return false;
    converseContent(answer, isObj(body.output.message) ? body.output.message.content : []);
    if (body.stopReason === "guardrail_intervened" || body.stopReason === "content_filtered") answer.refusal = "blocked (stopReason: " + body.stopReason + ")";
    answer.finish = body.stopReason || null;
    answer.usage = body.usage || null;
    return true;
  }

  // A Bedrock stream's exception: an event named ``…Exception`` (``throttlingException``).
  const converseException = (e) => Object.keys(e).find((k) => /Exception$/.test(k));

  function converseEvents(answer, events) {
    const calls = new Map(); // block index -> call
    for (const e of events) {
      if (!isObj(e)) continue;
      const failed = converseException(e);
      if (failed) answer.error = { type: failed, message: isObj(e[failed]) ? e[failed].message : "" };
      const start = e.contentBlockStart;
      if (isObj(start) && isObj(start.start) && isObj(start.start.toolUse)) {
        const call = { id: start.start.toolUse.toolUseId, name: start.start.toolUse.name, arguments: "" };
        calls.set(start.contentBlockIndex, call);
        answer.calls.push(call);
      }
      const delta = isObj(e.contentBlockDelta) ? e.contentBlockDelta.delta : null;
      if (isObj(delta)) {
        if (typeof delta.text === "string") answer.text += delta.text;
        else if (isObj(delta.toolUse) && calls.has(e.contentBlockDelta.contentBlockIndex)) calls.get(e.contentBlockDelta.contentBlockIndex).arguments += delta.toolUse.input || "";
        else if (isObj(delta.reasoningContent) && typeof delta.reasoningContent.text === "string") answer.reasoning += delta.reasoningContent.text;
      }
      if (isObj(e.messageStop)) answer.finish = e.messageStop.stopReason || answer.finish;
      if (isObj(e.metadata) && isObj(e.metadata.usage)) answer.usage = e.metadata.usage;
    }
  }

  function converseEventName(e) {
    const failed = converseException(e);
    if (failed) return failed;
    const delta = isObj(e.contentBlockDelta) ? e.contentBlockDelta.delta : null;
    if (isObj(delta) && typeof delta.text === "string") return "text " + JSON.stringify(delta.text);
    if (isObj(delta)) return "delta " + (Object.keys(delta)[0] || "");
    if (isObj(e.messageStop)) return "stop: " + e.messageStop.stopReason;
    return Object.keys(e).filter((k) => k !== "p")[0] || "event";
  }

  const converseCarriesText = (e) => isObj(e.contentBlockDelta);

  // InvokeModel's stream: ``chunk`` events whose base64 ``bytes`` hold Anthropic's own events.
  function unchunk(e) {
    if (!isObj(e) || !isObj(e.chunk) || typeof e.chunk.bytes !== "string") return e;
    try {
      const raw = atob(e.chunk.bytes);
      return JSON.parse(new TextDecoder().decode(Uint8Array.from(raw, (c) => c.charCodeAt(0))));
    } catch (err) {
      return e;
    }
  }

  // --- Ollama: /api/chat and /api/generate ------------------------------------------------

  function ollamaConversation(body) {
    const out = [];
    for (const m of list(body.messages)) {
      if (!isObj(m)) continue;
      const role = String(m.role || "?");
      if (typeof m.thinking === "string" && m.thinking) out.push(turn("reasoning", m.thinking));
      const calls = list(m.tool_calls).map((c) => ({ id: c.id, name: (c.function && c.function.name) || "?", arguments: c.function && c.function.arguments }));
      const images = list(m.images).map(() => "[image]");
      const text = [typeof m.content === "string" ? m.content : "", ...images].filter(Boolean).join("\n");
      out.push(turn(role, text, { calls, note: role === "tool" && m.tool_name ? "result of " + m.tool_name : "" }));
    }
    return out;
  }

  function ollamaGenerateConversation(body) {
    const out = [];
    if (typeof body.system === "string" && body.system) out.push(turn("system", body.system));
    const prompt = (typeof body.prompt === "string" ? body.prompt : "") + (typeof body.suffix === "string" ? "\n[suffix] " + body.suffix : "");
    out.push(turn("prompt", prompt));
    return out;
  }

  // One line of Ollama's answer (or the whole answer: the same shape, ``done: true``).
  function ollamaLine(answer, line) {
    if (typeof line.error === "string") answer.error = { type: "error", message: line.error };
    const m = isObj(line.message) ? line.message : null;
    if (m && typeof m.content === "string") answer.text += m.content;
    if (m && typeof m.thinking === "string") answer.reasoning += m.thinking;
    for (const c of list(m && m.tool_calls)) answer.calls.push({ id: c.id, name: c.function && c.function.name, arguments: c.function && c.function.arguments });
    if (typeof line.response === "string") answer.text += line.response;
    if (!m && typeof line.thinking === "string") answer.reasoning += line.thinking;
    if (line.done) {
      answer.finish = line.done_reason || "done";
      answer.usage = { input_tokens: line.prompt_eval_count, output_tokens: line.eval_count };
    }
  }

  function ollamaWhole(answer, body) {
    if (!("done" in body)) return false;
    ollamaLine(answer, body);
    return true;
  }

  function ollamaEvents(answer, lines) {
    for (const line of lines) if (isObj(line)) ollamaLine(answer, line);
  }

  function ollamaEventName(e) {
    if (typeof e.error === "string") return "error";
    if (e.done) return "done: " + (e.done_reason || "");
    const m = isObj(e.message) ? e.message : e;
    if (list(m.tool_calls).length) return "tool calls";
    const text = typeof m.content === "string" ? m.content : typeof e.response === "string" ? e.response : "";
    if (text) return "text " + JSON.stringify(text);
    if (typeof m.thinking === "string" && m.thinking) return "thinking";
    return "line";
  }

  function ollamaCarriesText(e) {
    const m = isObj(e.message) ? e.message : e;
    return !!((typeof m.content === "string" && m.content) || (typeof e.response === "string" && e.response) || list(m.tool_calls).length);
  }

  // --- the table ----------------------------------------------------------------------------

  const chat = { conversation: chatConversation, whole: chatWhole, events: chatChunks, eventName: chatEventName, carriesText: chatCarriesText };
  const responses = { conversation: responsesConversation, whole: responsesWhole, events: responsesEvents, eventName: typedName, carriesText: typedCarriesText };
  const completions = {
    conversation: (body) => [turn("prompt", partsText(body.prompt) + (typeof body.suffix === "string" ? "\n[suffix] " + body.suffix : ""))],
    whole: chatWhole,
    events: chatChunks,
    eventName: chatEventName,
    carriesText: chatCarriesText,
  };
  const messages = { conversation: messagesConversation, whole: messagesWhole, events: messagesEvents, eventName: messagesEventName, carriesText: messagesCarriesText };
  const converse = {
    conversation: converseConversation,
    whole: converseWhole,
    events: converseEvents,
    eventName: converseEventName,
    carriesText: converseCarriesText,
    isError: (e) => !!converseException(e),
  };
  const invoke = {
    conversation: messagesConversation,
    whole: messagesWhole,
    events: (answer, events) => messagesEvents(answer, events.map(unchunk)),
    eventName: (e) => converseException(e) || messagesEventName(unchunk(e)),
    carriesText: (e) => messagesCarriesText(unchunk(e)),
    isError: (e) => !!converseException(e) || unchunk(e).type === "error",
  };
  const ollamaShared = { whole: ollamaWhole, events: ollamaEvents, eventName: ollamaEventName, carriesText: ollamaCarriesText, isError: (e) => typeof e.error === "string" };
  const ollama_chat = Object.assign({ conversation: ollamaConversation }, ollamaShared);
  const ollama_generate = Object.assign({ conversation: ollamaGenerateConversation }, ollamaShared);
  const gemini = { conversation: geminiConversation, whole: geminiWhole, events: geminiEvents, eventName: geminiEventName, carriesText: geminiCarriesText };

  // The tools a request offers, by name, whatever the family's shape.
  function toolNames(body) {
    const names = [];
    const converse = isObj(body.toolConfig) ? list(body.toolConfig.tools) : [];
    for (const t of [...list(body.tools), ...converse]) {
      if (!isObj(t)) continue;
      if (Array.isArray(t.functionDeclarations || t.function_declarations)) {
        for (const f of t.functionDeclarations || t.function_declarations) names.push(f.name);
      } else if (isObj(t.toolSpec)) names.push(t.toolSpec.name);
      else names.push((t.function && t.function.name) || t.name || t.type || Object.keys(t)[0]);
    }
    return names;
  }

  // The reader of a call: by its API, else by its body's look (an entry journaled without an
  // API); null: not a conversation (an embedding, a moderation, a control call).
  function readerOf(api, body) {
    const found = window.MockReaders.byApi[api];
    if (found) return found;
    if (!isObj(body)) return null;
    if (Array.isArray(body.contents)) return gemini;
    if (Array.isArray(body.messages)) return chat;
    if (api === undefined || api === null) return body.input !== undefined || body.previous_response_id ? responses : null;
    return null;
  }

  window.MockReaders = { byApi: { chat, responses, completions, messages, gemini, converse, invoke, ollama_chat, ollama_generate }, readerOf, toolNames, partsText };
})();
