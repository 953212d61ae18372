// Adversarial messages (fast-check) through addMessage -> flush -> reopen, on the memory, file and
// Redis stores, one manager and two at once on one session (issue 39). Every add is accepted or
// refused with a short coded error that changes nothing; what the log cannot hold and give back is
// exactly what is refused; every flush resolves (nothing wedges it), the session reopens to the
// view the manager holds, and the log holds every accepted message once, in order.
// CTXWIN_HOSTILE_RUNS sets the memory store's runs (the file and Redis stores run a sixth).
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ContextLimits, MessageContextManager, type MessageLike, type SessionStore } from "ctxwin";
import { everyStore } from "./support/every-store.js";
import { isCoded, operations, type Operation } from "./support/hostile-messages.js";

const RUNS = Number(process.env.CTXWIN_HOSTILE_RUNS ?? 120);

const STORES = everyStore("ctxwin-hostile-", RUNS);

const options = (store: SessionStore, id: string) => ({
  model: "gpt-4o",
  logger: { warn: () => {} },
  limits: new ContextLimits({ model: "gpt-4o", maxTokens: 1200, maxOutputTokens: 0, reservedTokens: 0 }),
  session: { store, id },
});

async function loggedMessages(store: SessionStore, id: string): Promise<MessageLike[]> {
  const out: MessageLike[] = [];
  for await (const record of store.scan(id)) {
    const entry = record.entry as { type: string; summary?: boolean; message?: MessageLike };
    if (entry.type === "message" && entry.summary !== true) out.push(entry.message as MessageLike);
  }
  return out;
}

/** Applies `ops`; returns the messages the manager accepted, in order. */
async function drive(cm: MessageContextManager, ops: readonly Operation[], yieldBetween: boolean): Promise<MessageLike[]> {
  const accepted: MessageLike[] = [];
  for (const op of ops) {
    if (yieldBetween) await new Promise((r) => setImmediate(r));
    switch (op.op) {
      case "add": {
        const message = op.message.make();
        const before = cm.getMessages();
        try {
          cm.addMessage(message);
        } catch (error) {
          expect(isCoded(error), `${op.message.spliced}: ${String(error)}`).toBe(true);
          expect(op.message.safe, `a message a log can hold was refused (${op.message.spliced}): ${String(error)}`).toBe(false);
          const after = cm.getMessages();
          expect(after).toHaveLength(before.length);
          after.forEach((m, i) => expect(m).toBe(before[i]));
          break;
        }
        expect(op.message.safe, `accepted what a log cannot hold: ${op.message.spliced}`).toBe(true);
        accepted.push(message);
        break;
      }
      case "trim":
        cm.truncate(300);
        break;
      case "clear":
        cm.clear();
        break;
      case "flush":
        await cm.flush();
        break;
    }
  }
  await cm.flush();
  return accepted;
}

let sessions = 0;

describe.each(STORES)("adversarial messages through addMessage, flush and reopen on the %s store", (_name, makeStore, runs) => {
  it("refused with a code and no change, or accepted, logged once in order and reopened equal", async () => {
    const store = makeStore();
    try {
      await fc.assert(
        fc.asyncProperty(operations(), async (ops) => {
          const id = `hostile-${sessions++}`;
          const cm = await MessageContextManager.open(options(store, id));
          const accepted = await drive(cm, ops, false);
          const reopened = await MessageContextManager.open(options(store, id));
          expect(reopened.getMessages()).toEqual(cm.getMessages());
          expect(reopened.export().turns).toEqual(cm.export().turns);
          expect(await loggedMessages(store, id)).toEqual(accepted);
        }),
        { numRuns: runs },
      );
    } finally {
      await store.close();
    }
  }, 300_000);

  it("two managers at once on one session: every message either accepted is logged once, each in its writer's order", async () => {
    const store = makeStore();
    try {
      await fc.assert(
        fc.asyncProperty(operations(15), operations(15), async (left, right) => {
          const id = `hostile-pair-${sessions++}`;
          const [a, b] = await Promise.all([
            MessageContextManager.open(options(store, id)),
            MessageContextManager.open(options(store, id)),
          ]);
          const [fromA, fromB] = await Promise.all([drive(a, left, true), drive(b, right, true)]);
          const logged = await loggedMessages(store, id);
          expect(logged).toHaveLength(fromA.length + fromB.length);
          const key = (m: MessageLike) => JSON.stringify(m);
          const loggedKeys = logged.map(key);
          // Each writer's messages appear in the log in its order: a subsequence of it. Matched in
          // order, since two messages may be equal (a plain message carries no call id; seed
          // 808558002 wrote the same one twice, and indexOf found the first for both).
          const inOrder = (own: readonly MessageLike[]) => {
            let at = 0;
            for (const message of own) {
              const wanted = key(message);
              while (at < loggedKeys.length && loggedKeys[at] !== wanted) at++;
              if (at === loggedKeys.length) return false;
              at++;
            }
            return true;
          };
          expect(inOrder(fromA)).toBe(true);
          expect(inOrder(fromB)).toBe(true);
          // Whoever opens the session now gets a history, not an error.
          await MessageContextManager.open(options(store, id));
        }),
        { numRuns: Math.max(1, Math.round(runs / 3)) },
      );
    } finally {
      await store.close();
    }
  }, 300_000);
});
