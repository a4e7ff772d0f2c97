// A tool-calling loop on the openai npm package. trajguard starts it as a `command` agent and
// hands it the run's endpoint in TRAJGUARD_API_BASE: every call made there is recorded as the
// run's trajectory, so this agent writes no ATIF file. If AGENT_LOG_DIR is set, it also writes
// its own log of the run there (<seed>.json), which the test compares with the captured row.
// In a conversation it answers every user message in one episode (see nextUserMessage).
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import OpenAI from "openai";

const env = process.env;
const client = new OpenAI({ baseURL: env.TRAJGUARD_API_BASE, apiKey: env.TRAJGUARD_API_KEY, maxRetries: 0 });
const params = JSON.parse(env.TRAJGUARD_PARAMS || "{}");
const maxSteps = Number(env.TRAJGUARD_MAX_STEPS || 4);

const tools = [
  {
    type: "function",
    function: {
      name: "calculator",
      description: "Evaluate an arithmetic expression such as 17 * 23.",
      parameters: {
        type: "object",
        properties: { expression: { type: "string" } },
        required: ["expression"],
      },
    },
  },
];

function calculator(args) {
  const expression = String(args.expression ?? "");
  if (!/^[\d\s+\-*/().]+$/.test(expression)) return `error: cannot evaluate ${JSON.stringify(expression)}`;
  try {
    const value = Function(`"use strict"; return (${expression});`)();
    return Number.isFinite(value) ? String(value) : "error: not a finite number";
  } catch (error) {
    return `error: ${error.message}`;
  }
}

const messages = [];
if (env.TRAJGUARD_SYSTEM_PROMPT) messages.push({ role: "system", content: env.TRAJGUARD_SYSTEM_PROMPT });

const log = { calls: [], tool_results: [], final_output: null, stopped: null, user_messages: [] };

// One answer to the last user message: model calls and tool runs until the model answers in text.
async function answer() {
  for (let step = 0; step < maxSteps; step++) {
    const response = await client.chat.completions.create({
      model: env.TRAJGUARD_MODEL,
      messages,
      tools,
      temperature: params.temperature ?? Number(env.TRAJGUARD_TEMPERATURE),
    });
    const message = response.choices[0].message;
    log.calls.push({ content: message.content, tool_calls: message.tool_calls ?? [], usage: response.usage });
    messages.push(message);
    if (!message.tool_calls?.length) return message.content ?? "";
    for (const call of message.tool_calls) {
      let args = null;
      try {
        args = JSON.parse(call.function.arguments || "{}");
      } catch {
        args = null;
      }
      const parsed = args !== null && typeof args === "object" && !Array.isArray(args);
      const result = call.function.name === "calculator" ? calculator(parsed ? args : {}) : `error: unknown tool ${call.function.name}`;
      // arguments that are not a JSON object are logged as the raw text the model wrote
      const logged = parsed ? args : { _raw: call.function.arguments };
      log.tool_results.push({ id: call.id, name: call.function.name, arguments: logged, result });
      messages.push({ role: "tool", tool_call_id: call.id, content: result });
    }
  }
  return null;
}

// In a conversation (a scenario with turns: or user:), each answer is handed over at
// TRAJGUARD_CONVERSATION_URL, which answers with the user's next message (null: it is over).
async function nextUserMessage(answered) {
  const url = env.TRAJGUARD_CONVERSATION_URL;
  if (!url) return null;
  const response = await fetch(url, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ answer: answered }),
  });
  if (!response.ok) throw new Error(`conversation endpoint: ${response.status} ${await response.text()}`);
  return (await response.json()).message;
}

let userMessage = env.TRAJGUARD_INPUT;
while (userMessage !== null && userMessage !== undefined) {
  log.user_messages.push(userMessage);
  messages.push({ role: "user", content: userMessage });
  log.final_output = await answer();
  if (log.final_output === null) break;
  userMessage = await nextUserMessage(log.final_output);
}
if (log.final_output === null) {
  log.stopped = "max_steps";
  // tells trajguard the run ended without an answer (an agent_error, not an ok run)
  writeFileSync(env.TRAJGUARD_AGENT_ERROR, JSON.stringify({ reason: "max_steps", message: `no answer within ${maxSteps} steps` }));
}

if (env.AGENT_LOG_DIR) {
  mkdirSync(env.AGENT_LOG_DIR, { recursive: true });
  writeFileSync(join(env.AGENT_LOG_DIR, `${env.TRAJGUARD_SEED}.json`), JSON.stringify(log, null, 2));
}
process.stdout.write(`${log.final_output ?? ""}\n`);
