// A pseudo-terminal for tests of interactive commands: tmux runs the command in a detached
// session on a private server socket, tests type with send-keys and read the screen with
// capture-pane, as a person sees it (wrapped lines joined; -e keeps the colours).
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";

export class TmuxScreen {
  private readonly socket = `ctxwin-test-${process.pid}-${randomBytes(4).toString("hex")}`;
  private readonly target = "main";

  /** Starts `command` (a shell command line) in a terminal of `width` x `height`. */
  constructor(command: string, options: { cwd: string; env?: Record<string, string>; width?: number; height?: number }) {
    const env = Object.entries(options.env ?? {}).flatMap(([k, v]) => ["-e", `${k}=${v}`]);
    this.tmux([
      "-f",
      "/dev/null",
      "new-session",
      "-d",
      "-s",
      this.target,
      "-x",
      String(options.width ?? 160),
      "-y",
      String(options.height ?? 50),
      "-c",
      options.cwd,
      ...env,
      command,
    ]);
    // Keep the screen after the command exits, and all of its history.
    this.tmux(["set-option", "-t", this.target, "remain-on-exit", "on"]);
    this.tmux(["set-option", "-t", this.target, "history-limit", "50000"]);
  }

  private tmux(args: string[]): string {
    return execFileSync("tmux", ["-L", this.socket, ...args], { encoding: "utf8" });
  }

  /** Types `text` and presses Enter. */
  type(text: string): void {
    this.tmux(["send-keys", "-t", this.target, "-l", text]);
    this.tmux(["send-keys", "-t", this.target, "Enter"]);
  }

  /** Presses a key by tmux's name for it ("C-d", "C-c"). */
  press(key: string): void {
    this.tmux(["send-keys", "-t", this.target, key]);
  }

  /** Everything on the screen and in its history; `colours` keeps the escape sequences. */
  capture(colours = false): string {
    return this.tmux(["capture-pane", "-p", "-J", "-S", "-", "-t", this.target, ...(colours ? ["-e"] : [])]);
  }

  /** Waits until `predicate` holds for the screen's text, and returns that text. */
  async waitFor(predicate: (screen: string) => boolean, what: string, timeoutMs = 15000): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    let screen = "";
    while (Date.now() < deadline) {
      screen = this.capture();
      if (predicate(screen)) return screen;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`timed out waiting for ${what}; the screen:\n${screen}`);
  }

  /** Whether the command has exited. */
  exited(): boolean {
    return this.tmux(["display-message", "-p", "-t", this.target, "#{pane_dead}"]).trim() === "1";
  }

  close(): void {
    try {
      this.tmux(["kill-server"]);
    } catch {
      // already gone
    }
  }
}
