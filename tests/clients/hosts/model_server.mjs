// A scripted model on loopback: speaks the three streaming model APIs the hosts call
// (Anthropic Messages, OpenAI Responses, Gemini streamGenerateContent) and plays one scripted
// session through editd's tools. It keeps no conversation state of its own: every request of
// the main conversation carries the tool results so far, and their count is the step to play.
// Requests the hosts make beside the conversation (titles, classifiers, token counts) get a
// short text answer and are otherwise ignored.
import http from "node:http";

// A tool result as the model received it: `isError` as the API flagged it (undefined when the
// API has no flag), `text` every string in it, joined, `raw` the API's own object.
function strings(value, out = []) {
  if (typeof value === "string") out.push(value);
  else if (Array.isArray(value)) value.forEach((v) => strings(v, out));
  else if (value && typeof value === "object") Object.values(value).forEach((v) => strings(v, out));
  return out;
}

// ---- Anthropic Messages (Claude Code) ----
const anthropic = {
  toolNames: (body) => (body.tools ?? []).map((t) => t.name),
  results(body) {
    const out = [];
    for (const m of body.messages ?? [])
      if (m.role === "user" && Array.isArray(m.content))
        for (const b of m.content)
          if (b.type === "tool_result")
            out.push({ id: b.tool_use_id, isError: b.is_error === true, text: strings(b.content).join("\n"), raw: b });
    return out;
  },
  reply(res, body, turn, n) {
    const id = `msg_${n}`;
    const blocks = turn.call
      ? [{ type: "tool_use", id: `toolu_${turn.step}`, name: turn.call.name, input: turn.call.args }]
      : [{ type: "text", text: turn.text }];
    const stop = turn.call ? "tool_use" : "end_turn";
    const usage = { input_tokens: 10, output_tokens: 5, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
    if (!body.stream) {
      return json(res, { id, type: "message", role: "assistant", model: body.model, content: blocks,
        stop_reason: stop, stop_sequence: null, usage });
    }
    const events = [["message_start", { type: "message_start", message: { id, type: "message",
      role: "assistant", model: body.model, content: [], stop_reason: null, stop_sequence: null, usage } }]];
    blocks.forEach((b, index) => {
      if (b.type === "tool_use") {
        events.push(["content_block_start", { type: "content_block_start", index,
          content_block: { type: "tool_use", id: b.id, name: b.name, input: {} } }]);
        events.push(["content_block_delta", { type: "content_block_delta", index,
          delta: { type: "input_json_delta", partial_json: JSON.stringify(b.input) } }]);
      } else {
        events.push(["content_block_start", { type: "content_block_start", index,
          content_block: { type: "text", text: "" } }]);
        events.push(["content_block_delta", { type: "content_block_delta", index,
          delta: { type: "text_delta", text: b.text } }]);
      }
      events.push(["content_block_stop", { type: "content_block_stop", index }]);
    });
    events.push(["message_delta", { type: "message_delta", delta: { stop_reason: stop, stop_sequence: null },
      usage: { output_tokens: 5 } }]);
    events.push(["message_stop", { type: "message_stop" }]);
    sse(res, events);
  },
};

// ---- OpenAI Responses (Codex CLI) ----
function responsesToolNames(tools = []) {
  const names = [];
  for (const t of tools) {
    if (t.type === "function") names.push(t.name);
    // Codex lists an MCP server's tools in a namespace (mcp__editd); a call names both.
    else if (t.type === "namespace") for (const f of t.tools ?? []) names.push(`${t.name}.${f.name}`);
    else if (t.name) names.push(t.name);
  }
  return names;
}
const openai = {
  toolNames: (body) => responsesToolNames(body.tools),
  results(body) {
    const out = [];
    for (const item of body.input ?? [])
      if (item.type === "function_call_output" || item.type === "custom_tool_call_output")
        out.push({ id: item.call_id, isError: undefined, raw: item,
          text: typeof item.output === "string" ? item.output : (item.output ?? []).map((c) => c.text ?? "").join("\n") });
    return out;
  },
  reply(res, body, turn, n) {
    const rid = `resp_${n}`;
    let item;
    if (turn.call) {
      const [namespace, name] = turn.call.name.includes(".") ? turn.call.name.split(".") : [null, turn.call.name];
      item = { type: "function_call", id: `fc_${turn.step}`, call_id: `call_${turn.step}`,
        name, arguments: JSON.stringify(turn.call.args), status: "completed" };
      if (namespace) item.namespace = namespace;
    } else {
      item = { type: "message", id: `msg_${n}`, role: "assistant", status: "completed",
        content: [{ type: "output_text", text: turn.text, annotations: [] }] };
    }
    const usage = { input_tokens: 10, input_tokens_details: { cached_tokens: 0 }, output_tokens: 5,
      output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 15 };
    const events = [
      ["response.created", { type: "response.created", response: { id: rid, object: "response", status: "in_progress" } }],
      ["response.output_item.added", { type: "response.output_item.added", output_index: 0, item }],
    ];
    if (!turn.call)
      events.push(["response.output_text.delta", { type: "response.output_text.delta", item_id: item.id,
        output_index: 0, content_index: 0, delta: turn.text }]);
    events.push(["response.output_item.done", { type: "response.output_item.done", output_index: 0, item }]);
    events.push(["response.completed", { type: "response.completed", response: { id: rid, object: "response",
      status: "completed", output: [item], usage } }]);
    sse(res, events);
  },
};

// ---- Gemini generateContent / streamGenerateContent (Gemini CLI) ----
const gemini = {
  toolNames: (body) => (body.tools ?? []).flatMap((t) => (t.functionDeclarations ?? []).map((f) => f.name)),
  results(body) {
    const out = [];
    for (const c of body.contents ?? [])
      for (const p of c.parts ?? [])
        if (p.functionResponse) {
          const r = p.functionResponse.response ?? {};
          out.push({ id: p.functionResponse.id, isError: "error" in r, text: strings(r).join("\n"), raw: p.functionResponse });
        }
    return out;
  },
  reply(res, body, turn, n, streaming) {
    const part = turn.call
      ? { functionCall: { name: turn.call.name, args: turn.call.args, id: `call_${turn.step}` } }
      : { text: turn.text };
    const chunk = { candidates: [{ content: { role: "model", parts: [part] }, finishReason: "STOP", index: 0 }],
      usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 5, totalTokenCount: 15 },
      modelVersion: "scripted", responseId: `r${n}` };
    if (!streaming) return json(res, chunk);
    res.writeHead(200, { "content-type": "text/event-stream" });
    res.end(`data: ${JSON.stringify(chunk)}\r\n\r\n`);
  },
};

// A value of a JSON schema's shape, for side requests that ask for JSON (Gemini CLI's router
// asks for {complexity_reasoning, complexity_score}).
function sample(schema = {}) {
  const type = String(schema.type ?? "object").toLowerCase();
  if (schema.enum) return schema.enum[0];
  if (type === "object")
    return Object.fromEntries(Object.entries(schema.properties ?? {}).map(([k, v]) => [k, sample(v)]));
  if (type === "array") return [];
  if (type === "integer" || type === "number") return 10;
  if (type === "boolean") return false;
  return "scripted";
}

export function sideText(api, body) {
  const schema = body.generationConfig?.responseJsonSchema ?? body.generationConfig?.responseSchema;
  return api === gemini && schema ? JSON.stringify(sample(schema)) : "OK";
}

function json(res, value, status = 200) {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(value));
}

function sse(res, events) {
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  for (const [event, data] of events) res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  res.end();
}

// script(api, toolNames) -> [{ call: {name, args}, check? }] and a final text. `session.play`
// decides each main-conversation turn; `session.log` keeps every request for the checks.
export async function startModelServer(session) {
  let n = 0;
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => {
      n += 1;
      const raw = Buffer.concat(chunks).toString("utf8");
      let body = {};
      try { body = raw ? JSON.parse(raw) : {}; } catch { /* not JSON */ }
      const url = req.url ?? "";
      session.log.push({ method: req.method, url, body });
      let api;
      let streaming = true;
      if (/\/v1\/messages\/count_tokens/.test(url)) return json(res, { input_tokens: 10 });
      if (/\/v1\/messages/.test(url)) api = anthropic;
      else if (/\/responses/.test(url)) api = openai;
      else if (/:countTokens/.test(url)) return json(res, { totalTokens: 10 });
      else if (/:streamGenerateContent/.test(url)) api = gemini;
      else if (/:generateContent/.test(url)) { api = gemini; streaming = false; }
      else if (/\/models/.test(url) && req.method === "GET") return json(res, { data: [], models: [] });
      else return json(res, { error: { message: `scripted model: no such endpoint ${url}` } }, 404);
      const turn = session.play(api, body);
      api.reply(res, body, turn, n, streaming);
    });
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { server, port: server.address().port };
}

export const apis = { anthropic, openai, gemini };
