// `ctxwin --help` points at docs a user of the installed package can open: the page inside the
// package (docs/ is in the tarball's files) and the same page in the repository.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { packageRoot, runCtxwin } from "../support/cli.js";

describe("ctxwin --help", () => {
  it("names the installed docs page, which the package ships, and its repository URL", async () => {
    const help = await runCtxwin(["--help"]);
    expect(help.code).toBe(0);
    const page = /^Docs: (\S+)$/m.exec(help.stdout)?.[1];
    expect(page).toBe(join(packageRoot, "docs", "cli.md"));
    expect(existsSync(page!)).toBe(true);
    const pkg = JSON.parse(readFileSync(join(packageRoot, "package.json"), "utf8")) as { files: string[]; repository: { url: string } };
    expect(pkg.files).toContain("docs/cli.md");
    const url = /^\s+(https:\/\/\S+)$/m.exec(help.stdout)?.[1];
    expect(url).toBe(`${pkg.repository.url.replace(/^git\+/, "").replace(/\.git$/, "")}/blob/main/docs/cli.md`);
  });
});
