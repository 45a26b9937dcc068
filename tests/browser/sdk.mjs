// The page a frontend developer would write: the official SDK, in the browser, streaming from
// mockserver. The test clicks the buttons and reads what this page renders.
import OpenAI from "/openai/index.mjs";

const params = new URLSearchParams(location.search);
const client = new OpenAI({
  apiKey: params.get("key") || "sk-mock",
  baseURL: params.get("base"),
  dangerouslyAllowBrowser: true,
  maxRetries: 0,
});
const $ = (id) => document.getElementById(id);

async function run(kind, fn) {
  $(kind + "-output").textContent = "";
  $(kind + "-meta").textContent = "";
  $("error").textContent = "";
  try {
    $(kind + "-meta").textContent = await fn($(kind + "-output"), $("prompt").value);
  } catch (err) {
    // What an app shows: the status, the error code, and when it may retry.
    const retry = err.headers && err.headers.get ? err.headers.get("retry-after") : null;
    $("error").textContent = `${err.status} ${err.code} retry-after=${retry}`;
  }
}

async function streamChat(output, prompt) {
  const { data: stream, response } = await client.chat.completions
    .create({
      model: "gpt-4o-mini",
      messages: [{ role: "user", content: prompt }],
      stream: true,
      stream_options: { include_usage: true },
    })
    .withResponse();
  let chunks = 0;
  for await (const chunk of stream) {
    chunks += 1;
    output.textContent += chunk.choices[0]?.delta?.content ?? "";
  }
  return `${chunks} chunks; request ${response.headers.get("x-request-id")}`;
}

async function streamResponse(output, prompt) {
  const stream = client.responses.stream({ model: "gpt-4o-mini", input: prompt });
  let events = 0;
  for await (const event of stream) {
    events += 1;
    if (event.type === "response.output_text.delta") output.textContent += event.delta;
  }
  const final = await stream.finalResponse();
  return `${events} events; ${final.status}; ${final.output_text.length} characters`;
}

$("chat").addEventListener("click", () => run("chat", streamChat));
$("responses").addEventListener("click", () => run("responses", streamResponse));
$("chat").disabled = false;
$("responses").disabled = false;
document.title = "ready";
