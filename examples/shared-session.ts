// One conversation, many workers: each turn is handled by a different process (as a job queue or
// a serverless function would), and every one of them continues the same context from the
// session's log. Then seed 000's /export and /import.
//
//   node --import tsx examples/shared-session.ts                     # JSONL files in a temp dir
//   REDIS_SOCKET=/run/redis/redis.sock node --import tsx examples/shared-session.ts   # Redis
//
// The "model" here is offline (it answers from the context it is given), so the example runs
// anywhere; swap in generateText or your client where `reply` is.
import { fork } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { FileSessionStore, MessageContextManager, type MessageLike, type SessionStore } from "ctxwin";
import { RedisSessionStore } from "ctxwin/session";

const SESSION = "support-ticket-42";

function storeFor(directory: string): SessionStore {
  const socket = process.env.REDIS_SOCKET;
  return socket ? new RedisSessionStore({ clientOptions: { socket: { path: socket } } }) : new FileSessionStore({ directory });
}

/** An offline stand-in for a model call: it says how much of the conversation it was sent. */
function reply(request: MessageLike[], question: string): string {
  const earlier = request.filter((m) => m.role === "user").length - 1;
  return `(worker ${process.pid}) Noted "${question}". I can see ${earlier} earlier question(s) in this conversation.`;
}

/** One turn, in its own process: open the session, add the question and the answer, flush. */
async function worker(directory: string, question: string): Promise<void> {
  const store = storeFor(directory);
  const context = await MessageContextManager.open({ model: "gpt-4o", session: { store, id: SESSION } });
  if (context.getMessages().length === 0) {
    context.setSystemPrompt("You are a support agent. Be brief.");
    context.metadata = { agent: "support-bot" };
  }
  context.addMessage({ role: "user", content: question });
  context.addMessage({ role: "assistant", content: reply(context.getContextForRequest() as MessageLike[], question) });
  await context.flush(); // durable before this worker reports the turn done
  await store.close();
}

async function main(): Promise<void> {
  const directory = mkdtempSync(join(tmpdir(), "ctxwin-shared-session-"));
  try {
    const questions = ["My invoice is wrong.", "It was charged twice on May 3.", "Can you refund one?"];
    for (const question of questions) {
      // A fresh process per turn: nothing carries over but the session's log.
      const child = fork(fileURLToPath(import.meta.url), ["--worker", directory, question], { execArgv: process.execArgv });
      const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
      if (code !== 0) throw new Error(`worker exited with ${code}`);
    }

    const store = storeFor(directory);
    const context = await MessageContextManager.open({ model: "gpt-4o", session: { store, id: SESSION } });
    console.log(
      `session ${SESSION}: ${context.getMessages().length} messages, ${context.tokenUsage} tokens, written by ${questions.length} processes`,
    );
    for (const m of context.getMessages()) console.log(`  ${m.role}: ${String(m.content)}`);

    // /export context.json, then /import it into a fresh manager (another tool, another machine).
    const file = join(directory, "context.json");
    writeFileSync(file, JSON.stringify(context.export(), null, 2));
    const imported = MessageContextManager.fromExport(readFileSync(file, "utf8"));
    console.log(`exported to ${file}; imported ${imported.getMessages().length} messages, agent ${String(imported.metadata.agent)}`);
    console.log(`round trip lossless: ${JSON.stringify(imported.getMessages()) === JSON.stringify(context.getMessages())}`);
    await store.close();
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}

const args = process.argv.slice(2);
if (args[0] === "--worker") await worker(args[1] as string, args[2] as string);
else await main();
