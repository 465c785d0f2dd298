import { describe, expect, it } from "vitest";
import { environmentDenyRead } from "./environment-deny.js";

describe("environmentDenyRead", () => {
  it("names what each variable moves: a file, a file in a moved directory, every entry of a list", () => {
    expect(
      environmentDenyRead({
        KUBECONFIG: "/k/one:relative:/k/two/:",
        DOCKER_CONFIG: "/d/",
        CARGO_HOME: "/c",
        GNUPGHOME: "/g//x/..",
        HISTFILE: "/h/hist",
        ZDOTDIR: "/z",
      }),
    ).toEqual([
      "/h/hist",
      "/z/.*history*",
      "/z/.*histfile*",
      "/z/.*_hist",
      "/k/one",
      "/k/two/",
      "/d/config.json",
      "/g",
      "/c/credentials*",
    ]);
  });

  it("moves every default entry under an XDG base directory with it", () => {
    const patterns = environmentDenyRead({ XDG_CONFIG_HOME: "/cfg", XDG_CACHE_HOME: "/cache" });
    expect(patterns).toContain("/cfg/gh");
    expect(patterns).toContain("/cfg/gcloud");
    expect(patterns).toContain("/cfg/fish/fish_history");
    expect(patterns).toContain("/cache/huggingface/token");
    expect(patterns.every((pattern) => pattern.startsWith("/cfg/") || pattern.startsWith("/cache/"))).toBe(
      true,
    );
  });

  it("ignores what is not an absolute path, and the root", () => {
    expect(
      environmentDenyRead({ HISTFILE: "-", LESSHISTFILE: "/", NETRC: "~/.netrc", KUBECONFIG: "/:/." }),
    ).toEqual([]);
  });
});
