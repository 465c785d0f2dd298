import { describe, expect, it } from "vitest";
import { looksLikeSecretValue } from "./secret-values.js";

// Fakes of each shape, assembled at run time so no scanner mistakes the source for a leak.
const run = (chars: string, length: number): string =>
  chars.repeat(Math.ceil(length / chars.length)).slice(0, length);
const MIXED = run("aZ3kQ9xW", 64);

const SECRETS: readonly (readonly [string, string])[] = [
  ["an OpenAI key", `sk-${run("Ab3", 48)}`],
  ["an OpenAI project key", `sk-proj-${run("a_B-3", 60)}`],
  ["an Anthropic key", `sk-ant-api03-${run("x_Y-9", 90)}AA`],
  ["a DeepSeek key (lowercase hex)", `sk-${run("0f3a9c", 32)}`],
  ["an OpenRouter key", `sk-or-v1-${run("0f3a9c", 64)}`],
  ["an AWS access key id", `AKIA${run("Q7", 16)}`],
  ["an AWS session key id", `ASIA${run("Z2", 16)}`],
  ["a Slack webhook URL", `https://hooks.slack.com/services/T0000/B0000/${run("x", 24)}`],
  ["a Discord webhook URL", `https://discord.com/api/webhooks/123/${run("x", 24)}`],
  ["a Slack bot token", `xoxb-1234-5678-${run("aB", 24)}`],
  ["a Slack user token", `xoxp-1234-5678-${run("aB", 24)}`],
  ["a Slack app token", `xapp-1-A0-${run("aB", 24)}`],
  ...["ghp", "gho", "ghu", "ghs", "ghr"].map(
    (prefix) => [`a GitHub ${prefix}_ token`, `${prefix}_${MIXED.slice(0, 36)}`] as const,
  ),
  ["a GitHub fine-grained token", `github_pat_${run("A1b_", 82)}`],
  ["a GitLab token", `glpat-${run("aB3_", 20)}`],
  ["a Google API key", `AIza${run("Sy-_3b", 35)}`],
  ["a Google OAuth secret", `GOCSPX-${run("aB3_", 28)}`],
  ["a Stripe live key", `sk_live_${MIXED.slice(0, 24)}`],
  ["a Stripe restricted key", `rk_live_${MIXED.slice(0, 24)}`],
  ["an npm token", `npm_${MIXED.slice(0, 36)}`],
  ["a PyPI token", `pypi-AgEIcHlwaS5vcmc${run("aB3_", 40)}`],
  ["a Hugging Face token", `hf_${MIXED.slice(0, 34)}`],
  ["a JWT", `eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.${run("aB3_", 43)}`],
  ["an RSA key block", "-----BEGIN RSA PRIVATE KEY-----\nMIIE\n-----END RSA PRIVATE KEY-----"],
  ["an OpenSSH key block", "-----BEGIN OPENSSH PRIVATE KEY-----\nb3Bl"],
  ["a plain key block", "-----BEGIN PRIVATE KEY-----\nMIIE"],
  ["an https URL with user:token", "https://user:abc123@example.com/repo.git"],
  ["an https URL with a bare token as user", "https://abc123def@github.com/o/r.git"],
  ["a postgres URL", "postgres://app:s3cret@db:5432/app"],
  ["a redis URL with only a password", "redis://:s3cret@cache:6379/0"],
  ["an amqp URL", "amqp://guest:guest@mq/vhost"],
  ["a git+ssh URL with a password", "git+ssh://git:pw@host/r"],
  ["a mongodb+srv URL", "mongodb+srv://u:p@cluster0.example.net/db"],
  ["a URL with a password in a list", "a b https://u:p@h/x"],
  ["an Authorization header in git's config", "'http.extraheader=Authorization: Basic dXNlcjpwYXNz'"],
  ["a bearer header", "AUTHORIZATION: Bearer abcdef0123456789"],
  ["a token in a query string", "https://api.example.com/v1?access_token=abcdef"],
  ["a password in a connection string", "Server=db;Database=app;Password=hunter2;"],
  ["a Groq key", `gsk_${MIXED.slice(0, 52)}`],
  ["an xAI key", `xai-${MIXED.slice(0, 60)}`],
  ["a Perplexity key", `pplx-${MIXED.slice(0, 48)}`],
  ["a Replicate token", `r8_${MIXED.slice(0, 37)}`],
  ["a Vault service token", `hvs.${run("CAESIaB3_-", 90)}`],
  ["a Terraform Cloud token", `${MIXED.slice(0, 14)}.atlasv1.${run("aB3_-", 67)}`],
  ["a Docker Hub token", `dckr_pat_${run("aB3_-", 27)}`],
  ["a DigitalOcean token", `dop_v1_${run("0f3a9c", 64)}`],
  ["a Tailscale key", `tskey-auth-${MIXED.slice(0, 12)}-${MIXED.slice(0, 30)}`],
  ["a SendGrid key", `SG.${run("aB3_-", 22)}.${run("aB3_-", 43)}`],
  ["a Linear key", `lin_api_${MIXED.slice(0, 40)}`],
  ["a Shopify token", `shpat_${run("0f3a9c", 32)}`],
  ["a Sentry token", `sntrys_${run("eyJpYXQiOjE2", 60)}`],
  ["a Grafana service account token", `glsa_${MIXED.slice(0, 32)}_${run("0f3a9c", 8)}`],
  ["a Postman key", `PMAK-${run("0f3a9c", 24)}-${run("0f3a9c", 34)}`],
  ["an Atlassian token", `ATATT3x${run("aB3_-=", 180)}`],
  ["a PlanetScale token", `pscale_tkn_${MIXED.slice(0, 43)}`],
  ["a Supabase token", `sbp_${run("0f3a9c", 40)}`],
  ["an age secret key", `AGE-SECRET-KEY-1${run("QZ7", 58)}`],
  ["an Azure SAS URL", "https://acct.blob.core.windows.net/c/b?sv=2022-11-02&se=2030&sig=abc%3D"],
  ["a presigned S3 URL", "https://b.s3.amazonaws.com/k?X-Amz-Credential=AKID&X-Amz-Signature=0f3a"],
  ["a token after other text", `Bearer sk-${run("Ab3", 48)}`],
  ["a token on a later line", `first line\nghp_${MIXED.slice(0, 36)}`],
];

const ORDINARY: readonly (readonly [string, string])[] = [
  ["a PATH", "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin:/home/u/.cargo/bin"],
  ["LS_COLORS", "rs=0:di=01;34:ln=01;36:mh=00:pi=40;33:so=01;35:*.tar=01;31:*.key=00;33:*.jwt=01;32:"],
  ["a git sha", "4b825dc642cb6eb9a060e54bf8d69288fbee4904"],
  ["a UUID", "123e4567-e89b-12d3-a456-426614174000"],
  ["a path with sk- in a word", "/home/u/projects/sk-learn-tutorial-notebooks-2024"],
  ["a task name", "desk-booking-service-frontend-2025"],
  ["sk- and only digits", "sk-12345678901234567890"],
  ["a word ending in gsk", "/opt/flagsk_settings_2024_release_candidate_x"],
  ["an ssh URL with a user", "ssh://git@github.com/o/r.git"],
  ["an scp-style remote", "git@github.com:o/r.git"],
  ["a URL with a colon and @ in the path", "https://example.com/a:b@c"],
  ["a proxy without credentials", "http://proxy.internal:3128"],
  ["a D-Bus address", "unix:path=/run/user/1000/bus,guid=4b825dc642cb6eb9a060e54bf8d69288"],
  ["an email address", "someone@example.com"],
  ["a base64 blob without a JWT's shape", "eyJhdXRocyI6e319"],
  ["a public key", "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGb3x someone@host"],
  ["a public key block", "-----BEGIN PUBLIC KEY-----\nMIIB"],
  ["an AWS-like word that is too short", "AKIAXYZ"],
  ["a lowercase akia run", `akia${run("q7", 16)}`],
  ["a Java option", "-Xmx2g -Dfile.encoding=UTF-8"],
  ["an empty value", ""],
  ["the word authorization in prose", "authorization: see the docs"],
];

describe("looksLikeSecretValue", () => {
  it.each(SECRETS)("drops %s", (_, value) => {
    expect(looksLikeSecretValue(value)).toBe(true);
  });

  it.each(ORDINARY)("keeps %s", (_, value) => {
    expect(looksLikeSecretValue(value)).toBe(false);
  });

  it("answers for long crafted values without backtracking through them", () => {
    const long = 1 << 18;
    const crafted = [
      "eyJ".repeat(long / 3),
      `eyJ${"a".repeat(long)}.eyJ${"b".repeat(long)}`,
      "sk-".repeat(long / 3),
      `x://${"a".repeat(long)}:${"b".repeat(long)}`,
      "a://".repeat(long / 4),
      `https://${"a".repeat(long)}`,
      "-----BEGIN ".repeat(long / 11),
      `${"A".repeat(long)}KIA`,
    ];
    expect(crafted.map(looksLikeSecretValue)).toEqual([
      false,
      false,
      false,
      false,
      false,
      false,
      false,
      false,
    ]);
  });
});
