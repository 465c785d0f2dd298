/**
 * Values that are credentials whatever the variable is called (`FOO=sk-…`): the published shapes of
 * the usual providers' tokens, private key blocks, webhook URLs that are their own secret, and URLs
 * that carry credentials. Each token shape starts where a run of token characters starts (the
 * lookbehind), and every repetition is bounded or followed by a character it cannot match, so a test
 * costs time linear in the value's length: no value, however long or crafted, makes it backtrack.
 */
const TOKEN_SHAPES: readonly string[] = [
  // OpenAI, Anthropic, OpenRouter, DeepSeek and the like: a known family, or a long random run.
  "sk-(?:ant|proj|svcacct|admin|or-v1)-[A-Za-z0-9_-]{20}",
  "sk-(?=[A-Za-z]{0,19}[0-9])(?=[0-9]{0,19}[A-Za-z])[A-Za-z0-9]{20}",
  // Groq, xAI, Perplexity, Replicate.
  "gsk_[A-Za-z0-9]{20}",
  "xai-[A-Za-z0-9]{20}",
  "pplx-[A-Za-z0-9]{20}",
  "r8_[A-Za-z0-9]{20}",
  // Stripe secret and restricted keys, and webhook signing secrets.
  "[rs]k_(?:live|test)_[A-Za-z0-9]{16}",
  "whsec_[A-Za-z0-9]{24}",
  // AWS access key ids (long-lived and session), and the other IAM unique ids that sign nothing but
  // share the shape, which the ids' documentation lists.
  "(?:AKIA|ASIA|ABIA|ACCA|A3T[A-Z0-9])[A-Z0-9]{16}(?![A-Za-z0-9])",
  // Slack bot, user, app-level and refresh tokens.
  "xox[abeoprs]-[A-Za-z0-9-]{10}",
  "xapp-[0-9]-[A-Za-z0-9-]{10}",
  // GitHub classic and fine-grained tokens; GitLab's token families.
  "gh[oprsu]_[A-Za-z0-9]{36}",
  "github_pat_[A-Za-z0-9_]{22}",
  "gl(?:pat|dt|rt|ptt|cbt|oas|soat|ft|imt|agent)-[A-Za-z0-9_-]{20}",
  // Google API keys, OAuth client secrets and access tokens.
  "AIza[A-Za-z0-9_-]{35}",
  "GOCSPX-[A-Za-z0-9_-]{24}",
  "ya29\\.[A-Za-z0-9_-]{20}",
  // npm, PyPI (a macaroon, base64 of its version byte), Hugging Face.
  "npm_[A-Za-z0-9]{36}",
  "pypi-AgE[A-Za-z0-9_-]{20}",
  "hf_[A-Za-z0-9]{30}",
  // HashiCorp Vault service and batch tokens, Terraform Cloud, Docker Hub, DigitalOcean, Tailscale.
  "hv[sb]\\.[A-Za-z0-9_-]{24}",
  "[A-Za-z0-9]{14}\\.atlasv1\\.[A-Za-z0-9_-]{20}",
  "dckr_pat_[A-Za-z0-9_-]{20}",
  "do[opr]_v1_[a-f0-9]{64}",
  "tskey-[a-z]{3,10}-[A-Za-z0-9]{8}",
  // SendGrid, Linear, Shopify, Sentry, Grafana, Postman, Atlassian, PlanetScale, Supabase.
  "SG\\.[A-Za-z0-9_-]{22}\\.[A-Za-z0-9_-]{20}",
  "lin_(?:api|oauth)_[A-Za-z0-9]{32}",
  "shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}",
  "sntry[su]_[A-Za-z0-9_=+/-]{32}",
  "gl(?:sa|c)_[A-Za-z0-9_=+/-]{32}",
  "PMAK-[a-f0-9]{24}-[a-f0-9]{34}",
  "ATATT3[A-Za-z0-9_=-]{32}",
  "pscale_(?:tkn|pw|oauth)_[A-Za-z0-9_.=-]{32}",
  "sbp_[a-f0-9]{40}",
  // An age secret key (SOPS and the like).
  "AGE-SECRET-KEY-1[A-Z0-9]{32}",
  // A JSON Web Token: a base64url JSON header and payload, then a signature.
  "eyJ[A-Za-z0-9_-]{4,}\\.eyJ[A-Za-z0-9_-]{4,}\\.",
];

// One expression: a token shape begins only where a run of token characters begins.
const TOKEN = new RegExp(`(?<![A-Za-z0-9_-])(?:${TOKEN_SHAPES.join("|")})`);

/**
 * Shapes that hold wherever they appear, whatever the case: a private key block, a webhook URL (the
 * URL is the credential), a URL with `user:password@` in any scheme (`postgres://`, `redis://:pw@`,
 * `mongodb+srv://`, `amqp://`, `git+ssh://`), one with any user at all in a scheme whose user part is
 * a token when there is no password (`https://TOKEN@github.com`), an HTTP Authorization header (git's
 * `http.extraHeader` in GIT_CONFIG_PARAMETERS), and a credential in a query or connection string
 * (`?access_token=`, `;Password=`, an Azure SAS `&sig=`, a presigned S3 or GCS URL's signature).
 */
const TEXT_SHAPES: readonly string[] = [
  "-----BEGIN [A-Z0-9 ]{0,40}PRIVATE KEY",
  "https?://hooks\\.slack\\.com/(?:services|workflows|triggers)/",
  "https?://(?:[a-z0-9-]+\\.)?discord(?:app)?\\.com/api/webhooks/",
  "(?<![a-z0-9+.-])[a-z][a-z0-9+.-]{0,31}://[^\\s/?#@:]*:[^\\s/@]+@",
  "(?:https?|wss?|ftps?)://[^\\s/?#@]+@",
  "authorization:\\s{0,8}(?:basic|bearer|token|bot)\\s{1,8}[A-Za-z0-9+/=._~-]{8}",
  "(?:^|[?&;\\s])(?:access_token|api[_-]?key|auth_token|client_secret|password|passwd|private_token|secret|token|sig|signature|x-amz-signature|x-amz-security-token|x-goog-signature|x-goog-credential)=[^&;\\s]",
];

const TEXT = new RegExp(TEXT_SHAPES.join("|"), "i");

/** Whether `value` holds a credential by its shape alone (see TOKEN_SHAPES and TEXT_SHAPES). */
export function looksLikeSecretValue(value: string): boolean {
  return TOKEN.test(value) || TEXT.test(value);
}
