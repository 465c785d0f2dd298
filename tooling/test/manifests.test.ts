// What a registry page needs of each public package before its first publish: a description, keywords,
// a homepage, where to report bugs, the repository with the package's directory; and the version that
// makes `changeset version` produce the first release (0.0.0 until published).
import { describe, expect, it } from "vitest";
import { manifestProblems } from "../scripts/pack.mjs";
import { workspacePackages } from "../scripts/workspace.mjs";

const ROOT = new URL("../..", import.meta.url).pathname;
const published = workspacePackages(ROOT).filter(({ manifest }) => manifest.private !== true);

describe("the public packages' manifests", () => {
  it.each(published.map((pkg) => [pkg.name, pkg] as const))("%s has what a registry page needs", (_, pkg) => {
    expect(manifestProblems(pkg.manifest, pkg.dir)).toEqual([]);
  });

  it("manifestProblems names each missing field", () => {
    expect(
      manifestProblems(
        {
          description: "x",
          keywords: [],
          repository: { url: "git+https://example.org/r.git", directory: "packages/other" },
        },
        "packages/this",
      ),
    ).toEqual([
      'package.json: "keywords" must be a non-empty list of words',
      'package.json: no "homepage"',
      'package.json: no "bugs" (an issues URL)',
      'package.json: "repository.directory" is "packages/other", expected "packages/this"',
    ]);
  });
});
