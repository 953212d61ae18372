// What a MessageContextManager is built from: its options grouped (grouped-options.ts), checked, and
// every default chosen, in one place, so that the constructor only wires the parts together.
import { ContextLimits } from "../budget/context-limits.js";
import { UsageCalibration } from "../budget/usage-calibration.js";
import type { ProgressiveCompactionOptions } from "../compaction/progressive-compaction.js";
import type { MessageLike } from "../messages/types.js";
import type { SummaryModel } from "../models/summary-model.js";
import { describe, rangeError, requireString, typeError } from "../runtime/errors.js";
import type { Logger } from "../runtime/logger.js";
import { getCounter } from "../tokens/get-counter.js";
import type { TokenCounter } from "../tokens/token-counter.js";
import type { TruncationStrategy } from "../truncation/strategies.js";
import { groupManagerOptions } from "./grouped-options.js";
import { checkFactory, type MessageFactory } from "./inserted-messages.js";
import { type MessageContextManagerOptions, strategyFor, type TrimEvent, TruncationMode } from "./options.js";
import { checkPolicyOptions, levelOptions, type PolicyOptions } from "./policy-options.js";

export interface ManagerSetup<M extends MessageLike> extends PolicyOptions {
  model: string;
  mode: TruncationMode;
  summarizer: SummaryModel | undefined;
  limits: ContextLimits;
  counter: TokenCounter;
  autoTruncate: boolean;
  strategy: TruncationStrategy;
  onTrim: ((event: TrimEvent<M>) => void) | undefined;
  logger: Logger | undefined;
  calibration: UsageCalibration;
  pinFirstUserMessage: boolean;
  createMessage: MessageFactory<M> | undefined;
  /** What the compaction levels are built with. */
  levels: Omit<ProgressiveCompactionOptions, "onBreaker">;
  /** The groups the manager hands on as they are. */
  session: MessageContextManagerOptions<M>["session"];
  cost: MessageContextManagerOptions<M>["cost"];
  timing: NonNullable<MessageContextManagerOptions<M>["compaction"]>["timing"];
}

export function managerSetup<M extends MessageLike>(given: MessageContextManagerOptions<M>): ManagerSetup<M> {
  if (given === null || typeof given !== "object") throw typeError(`options must be an object, got ${describe(given)}`);
  // The flat names of 0.x become the grouped form here, once.
  const options = groupManagerOptions(given);
  const { compaction: c, warnings: w } = options;
  const model = requireString(options.model, "options.model");
  const mode = options.mode ?? TruncationMode.SMART;
  if (!Object.values(TruncationMode).includes(mode)) {
    throw rangeError(`options.mode must be one of ${Object.values(TruncationMode).join(", ")}, got ${describe(mode)}`);
  }
  const limits =
    options.limits instanceof ContextLimits
      ? options.limits
      : ContextLimits.forModel(model, options.limits ?? {}, {
          logger: options.logger,
          unknownModel: options.unknownModel ?? "error",
          where: "options.model",
        });
  const counter = options.counter ?? getCounter(model, { logger: options.logger });
  const policy = checkPolicyOptions(c, w);
  const strategy = c.strategy ?? strategyFor(mode);
  const levels = levelOptions(c, {
    mode,
    effectiveLimit: limits.effectiveLimit,
    trimAt: policy.trimAt,
    trimTo: policy.trimTo,
    strategy,
    logger: options.logger,
  });
  if (options.calibration !== undefined && !(options.calibration instanceof UsageCalibration)) {
    throw typeError(`options.calibration must be a UsageCalibration, got ${describe(options.calibration)}`);
  }
  const pinFirstUserMessage = c.pinFirstUserMessage ?? true;
  if (typeof pinFirstUserMessage !== "boolean") {
    throw typeError(`options.compaction.pinFirstUserMessage must be a boolean, got ${describe(pinFirstUserMessage)}`);
  }
  return {
    ...policy,
    model,
    mode,
    summarizer: c.summarizer,
    limits,
    counter,
    autoTruncate: c.autoTruncate ?? true,
    strategy,
    onTrim: c.onTrim,
    logger: options.logger,
    calibration: options.calibration ?? new UsageCalibration(),
    pinFirstUserMessage,
    createMessage: checkFactory<M>(options.createMessage as unknown),
    levels,
    session: options.session,
    cost: options.cost,
    timing: c.timing,
  };
}
