// Resolved rules as sandbox-core gives them on a Mac (canonical paths: /private/tmp, /private/var), for
// the golden profiles and the evaluator's table. Pure data: nothing here touches the file system.
import type { HiddenPath, SandboxRules } from "@conch/sandbox-core";

export const HOME = "/Users/dev";
export const WS = "/Users/dev/project";
export const STATE = "/Users/dev/.local/state/conch";
export const SPILL: string = `${STATE}/spill/3f2a9c`;
export const TMP: string = `${STATE}/tmp/3f2a9c`;
export const HOST_TMPDIR = "/private/var/folders/x1/abc123/T";
export const PROXY_PORT = 41234;

const HIDDEN: HiddenPath[] = [
  { path: `${HOME}/.ssh`, type: "dir", readable: [] },
  { path: `${HOME}/.aws`, type: "dir", readable: [] },
  { path: `${HOME}/.netrc`, type: "file", readable: [] },
  { path: STATE, type: "dir", readable: [SPILL] },
];

const GIT_CONTROL = ["config", "hooks", "objects/info/alternates", "remotes", "branches"].map(
  (name) => `${WS}/.git/${name}`,
);

function workspaceWrite(overrides: Partial<SandboxRules> = {}): SandboxRules {
  return {
    mode: "workspace-write",
    readableRoots: ["/"],
    writableRoots: [{ root: WS, readOnlySubpaths: [] }],
    tmp: { kind: "private", source: TMP, targets: ["/private/tmp", HOST_TMPDIR] },
    hidden: HIDDEN,
    network: false,
    ...overrides,
  };
}

/** The golden cases: a name each, the rules, and the options the backend would pass. */
export const CASES: Readonly<Record<string, { readonly rules: SandboxRules; readonly proxyPort?: number }>> =
  {
    "read-only": {
      rules: {
        mode: "read-only",
        readableRoots: ["/"],
        writableRoots: [],
        tmp: { kind: "empty", targets: ["/private/tmp", HOST_TMPDIR] },
        hidden: HIDDEN,
        network: false,
      },
    },
    "workspace-write": { rules: workspaceWrite() },
    "workspace-write-git": {
      rules: workspaceWrite({
        writableRoots: [{ root: WS, readOnlySubpaths: GIT_CONTROL }],
        gitWatch: {
          roots: [WS],
          startedAt: 0,
          absent: [`${WS}/.git/commondir`, `${WS}/.git/config.worktree`],
          gitDirs: [{ path: `${WS}/.git`, nested: [] }],
          newRepositories: [],
          operations: [],
          repositories: [],
        },
      }),
    },
    "hidden-in-workspace": {
      rules: workspaceWrite({
        hidden: [
          ...HIDDEN,
          { path: `${WS}/config/secrets.json`, type: "file", readable: [] },
          { path: `${WS}/.env`, type: "file", readable: [] },
        ],
      }),
    },
    "network-allowlist": { rules: workspaceWrite(), proxyPort: PROXY_PORT },
    "network-on": { rules: workspaceWrite({ network: true }) },
    "root-holds-host-tmp": {
      rules: workspaceWrite({ writableRoots: [{ root: "/private/var/folders/x1", readOnlySubpaths: [] }] }),
    },
    "odd-paths": {
      rules: workspaceWrite({
        writableRoots: [
          {
            root: '/Users/dev/my "odd" (proj) \\ ñ ;x',
            readOnlySubpaths: ['/Users/dev/my "odd" (proj) \\ ñ ;x/.git'],
          },
        ],
        hidden: [{ path: "/Users/dev/#secret $HOME *", type: "dir", readable: [] }],
      }),
    },
  };
