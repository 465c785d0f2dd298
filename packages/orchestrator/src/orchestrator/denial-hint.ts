import type { ApprovalPolicy, SandboxMode } from "@conch/protocol";
import type { SandboxPolicy } from "@conch/sandbox-core";

/**
 * What the model is told when the sandbox blocked its command and the approval policy allows no retry
 * outside it. `canEscalate`: the tool has a `sandbox_permissions` field the model can set.
 */
export function denialHint(mode: SandboxMode, approvalPolicy: ApprovalPolicy, canEscalate: boolean): string {
  if (approvalPolicy === "on-request" && canEscalate) {
    return (
      `The sandbox (${mode}) appears to have blocked this command. If it needs to write outside the ` +
      'writable roots or use the network, run it again with sandbox_permissions "require_escalated" ' +
      "and a justification, and the user will be asked."
    );
  }
  if (approvalPolicy === "on-request") {
    return (
      `The sandbox (${mode}) appears to have blocked this command, and this tool cannot ask to run ` +
      "outside it. Change the command to stay within the writable roots."
    );
  }
  return (
    `The sandbox (${mode}) appears to have blocked this command. The approval policy is never, so it ` +
    "cannot run outside the sandbox; change the command to stay within the writable roots."
  );
}

// What git prints when the sandbox keeps it from changing a repository's config (`git config`, `git remote
// add`, `git branch -u`, `git checkout --track`): the config file is bound read-only, and git's rename of
// its lock file over it fails. Some of these commands exit 0 all the same.
const GIT_CONFIG_WRITE_FAILED = /could not (?:write|lock|commit) config file/i;

/** Did git fail to change a config file (in the sandbox: the repository's, which stays read-only)? */
export function looksLikeGitConfigWrite(output: string): boolean {
  return GIT_CONFIG_WRITE_FAILED.test(output);
}

/**
 * What the model is told when git could not change the repository's config in the sandbox: why that
 * file stays read-only, that what needed the setting did not happen, and how to ask. `canEscalate` as
 * for `denialHint`.
 */
export function gitConfigHint(approvalPolicy: ApprovalPolicy, canEscalate: boolean): string {
  const why =
    "git could not change the repository's config: the sandbox keeps .git/config (and hooks) read-only, " +
    "because a setting there can make the user's own git run programs later. Whatever needed the setting " +
    "did not happen (a remote, an upstream, a config value), even if git said otherwise. Commits, " +
    "branches, tags, rebases and merges need no config change and work in the sandbox.";
  if (approvalPolicy === "on-request" && canEscalate) {
    return `${why} To change the config, run the command again with sandbox_permissions "require_escalated" and a justification, and the user will be asked.`;
  }
  return `${why} Only the user can change it, outside the sandbox: tell them the command.`;
}

// What programs print when a connection or a name lookup fails for want of a network: curl (`Could not
// resolve host`, `Failed to connect to`, `Couldn't connect to server`), wget (`unable to resolve host
// address`), glibc's resolver messages as Python, git, pip, cargo and ssh pass them on (`Temporary
// failure in name resolution`, `Name or service not known`, `No address associated with hostname`),
// apt (`Temporary failure resolving`), macOS's (`nodename nor servname provided`), the errno texts of
// connect(2) (`Connection refused`, `Network is unreachable`, `No route to host`) and Node's codes
// (`getaddrinfo EAI_AGAIN`, `ECONNREFUSED`, ...). Read case-insensitively; each is specific enough that
// a failed command printing it under a sandbox without network most likely failed for that reason.
const NETWORK_FAILURE = new RegExp(
  [
    "connection refused",
    "could(?:n't| not) connect to server",
    "failed to connect to",
    "could not resolve (?:host|proxy)",
    "unable to resolve host",
    "temporary failure (?:in name resolution|resolving)",
    "name or service not known",
    "no address associated with hostname",
    "nodename nor servname provided",
    "getaddrinfo",
    "network is unreachable",
    "no route to host",
    "\\b(?:econnrefused|enetunreach|ehostunreach|enotfound|eai_again)\\b",
  ].join("|"),
  "i",
);

/**
 * Whether Conch's own sandbox cuts commands off the network: read-only, and workspace-write without
 * `network_access`. (External-sandbox's network is the outer sandbox's, which Conch cannot tell.)
 */
export function sandboxCutsNetwork(policy: SandboxPolicy): boolean {
  return policy.mode === "read-only" || (policy.mode === "workspace-write" && policy.networkAccess !== true);
}

/** Does a failed command's output say that a connection or a name lookup failed? */
export function looksLikeNetworkFailure(output: string): boolean {
  return NETWORK_FAILURE.test(output);
}

/**
 * What the model is told when a command failed for want of network in a sandbox without one (read-only,
 * or workspace-write without `network_access`): that there is none, that each command has a network
 * namespace of its own, and how to get network. `canEscalate` as for `denialHint`.
 */
export function noNetworkHint(
  mode: SandboxMode,
  approvalPolicy: ApprovalPolicy,
  canEscalate: boolean,
): string {
  const config =
    mode === "read-only" ? 'sandbox = "workspace-write" and network_access = true' : "network_access = true";
  const ask =
    approvalPolicy === "on-request" && canEscalate
      ? 'To use the network, run the command again with sandbox_permissions "require_escalated" and a ' +
        `justification, and the user will be asked; or the user can allow it for every command with ${config} in ` +
        "~/.config/conch/config.toml."
      : `Only the user can allow network, for every command, with ${config} in ~/.config/conch/config.toml.`;
  return (
    `The sandbox (${mode}) has no network, so connections and name lookups fail. This workspace's commands ` +
    "share one network namespace: a server one command or session starts is reachable from the others at " +
    `127.0.0.1; the host's own servers are not. ${ask}`
  );
}

/**
 * What the tools that start commands say of the network where the sandbox has none, once in their
 * description: the same facts as `noNetworkHint`, before anything fails.
 */
export function noNetworkDescription(
  mode: SandboxMode,
  approvalPolicy: ApprovalPolicy,
  canEscalate: boolean,
  allowlist = false,
): string {
  const ask =
    approvalPolicy === "on-request" && canEscalate
      ? ` A command that needs ${allowlist ? "another host" : "the network"} can ask for it with sandbox_permissions "require_escalated".`
      : "";
  const network = allowlist
    ? ` The sandbox (${mode}) reaches the network only through Conch's proxy (its variables are set): the hosts the user's network_allow lists; any other host is asked about or refused, with a line in the result.`
    : ` The sandbox (${mode}) has no network.`;
  return (
    `${network} This workspace's commands share one network namespace: a ` +
    `server one command starts is reachable from the others at 127.0.0.1; the host's own servers are not.${ask}`
  );
}
