/** Where ctxwin reports what a caller should know but need not handle (fallbacks, unknown models). */
export interface Logger {
  warn(message: string): void;
}

export const consoleLogger: Logger = { warn: (message) => console.warn(message) };
