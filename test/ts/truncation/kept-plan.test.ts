// planKept's room for a named omission marker when a trim keeps the newest exchange past its
// target: what the request's limit leaves, but never more than the removal frees, the marker it
// replaces included (a trim never makes the request larger).
import { describe, expect, it } from "vitest";
import { getCounter, type MessageLike } from "ctxwin";
import { SmartTruncationStrategy } from "../../../ts/truncation/strategies.js";
import { planKept } from "../../../ts/truncation/kept-plan.js";
import { ROLE_CODES } from "../../../ts/messages/roles.js";

const counter = getCounter("gpt-4o");

/** The task, six small tool units of `unit` tokens, and a newest unit (the read the model answers next) of `newest`. */
function columns(unit: number, newest: number) {
  const messages: MessageLike[] = [];
  const roles: number[] = [];
  const tokens: number[] = [];
  const units: number[] = [];
  const add = (role: keyof typeof ROLE_CODES, count: number, u: number) => {
    messages.push({ role, content: `${role} ${messages.length}` });
    roles.push(ROLE_CODES[role]);
    tokens.push(count);
    units.push(u);
  };
  add("user", 100, -1);
  for (let u = 0; u < 6; u++) add("assistant", unit / 2, u), add("tool", unit / 2, u);
  add("assistant", 20, 6);
  add("tool", newest - 20, 6);
  return { messages, roles, tokens, flags: roles.map(() => 0), units };
}

describe("planKept: the marker's room past the target", () => {
  const strategy = new SmartTruncationStrategy();
  const target = 3200;
  const limit = 4000;

  it("is no more than the removal frees when no marker is replaced", () => {
    const history = columns(12, 3300);
    const plan = planKept(strategy, history, target, counter, limit);
    expect(plan?.markerIndex).toBeGreaterThanOrEqual(0);
    expect(plan?.tokens).toBeGreaterThan(target);
    const removed = 6 * 12;
    expect(plan?.markerTokens).toBe(removed);
  });

  it("takes the room of the marker it replaces too, within the limit and the marker's bound", () => {
    const history = columns(12, 3300);
    const bare = planKept(strategy, history, target, counter, limit);
    const plan = planKept(strategy, history, target, counter, limit, 150);
    expect(plan?.markerIndex).toBe(bare?.markerIndex);
    expect(plan?.markerTokens).toBeGreaterThan(bare?.markerTokens ?? 0);
    expect(plan?.markerTokens).toBeLessThanOrEqual(6 * 12 + 150);
    expect(plan?.markerTokens).toBeLessThanOrEqual(Math.floor(target / 16));
  });
});
