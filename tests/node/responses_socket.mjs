// The openai npm SDK's Responses WebSocket (ResponsesWS) against mockserver: run by
// tests/e2e/test_responses_socket_node.py, which scripts the replies and reads the JSON this
// prints. Usage: node responses_socket.mjs BASE_URL API_KEY
import OpenAI from 'openai';
import { ResponsesWS } from 'openai/resources/responses/ws';

const [baseURL, apiKey] = process.argv.slice(2);
const client = new OpenAI({ baseURL, apiKey, maxRetries: 0 });
const ws = new ResponsesWS(client);
const TERMINAL = new Set(['response.completed', 'response.failed', 'response.incomplete']);
const WEATHER = {
  type: 'function',
  name: 'get_weather',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};

await new Promise((resolve, reject) => {
  ws.socket.on('open', resolve);
  ws.socket.on('error', reject);
});

// Each response's events, by lane; the `error` events apart.
const waiting = new Map();
const errors = [];
ws.on('event', (event) => {
  const lane = event.stream_id ?? '';
  const entry = waiting.get(lane);
  if (!entry) return;
  entry.events.push(event);
  if (TERMINAL.has(event.type)) {
    waiting.delete(lane);
    entry.resolve(entry.events);
  }
});
ws.on('error', (error) => {
  errors.push(error.error ?? { message: error.message });
  const entry = waiting.get(error.error?.stream_id ?? '');
  if (entry) {
    waiting.delete(error.error?.stream_id ?? '');
    entry.resolve([error.error]);
  }
});

function create(body) {
  return new Promise((resolve) => {
    waiting.set(body.stream_id ?? '', { events: [], resolve });
    ws.send({ type: 'response.create', model: 'gpt-4o-mini', ...body });
  });
}

const text = (events) =>
  events.filter((e) => e.type === 'response.output_text.delta').map((e) => e.delta).join('');

const result = {};
const first = await create({ input: 'Say hello' });
result.create = { text: text(first), types: [first[0].type, first.at(-1).type] };

const asked = await create({ input: 'Weather in Rome?', tools: [WEATHER] });
const call = asked.at(-1).response.output.find((item) => item.type === 'function_call');
const answered = await create({
  previous_response_id: asked.at(-1).response.id,
  input: [{ type: 'function_call_output', call_id: call.call_id, output: '25C' }],
  tools: [WEATHER],
});
result.toolLoop = { call: [call.name, call.arguments], text: text(answered) };

const lanes = await Promise.all(['a', 'b'].map((lane) => create({ input: lane, stream_id: lane })));
result.lanes = lanes.map((events) => [...new Set(events.map((e) => e.stream_id))]);

const refused = await create({ input: 'too fast' });
result.error = { type: refused[0].type, status: refused[0].status, code: refused[0].error?.code };

ws.close();
console.log(JSON.stringify(result));
