// Command analysis in a fresh process: cold init, warm throughput, and RSS over 100k analyses.
// Prints one JSON object. Run by run.mjs; `node analyze-worker.mjs` works alone too.
const SCRIPTS = [
  "ls -la",
  "git status --short",
  "git diff HEAD~1 -- src/index.ts | head -n 50",
  "rg -n TODO src --glob '*.ts' | wc -l",
  "sed -n 1,40p packages/exec-core/src/run.ts",
  "cat package.json | grep version",
  "find . -name '*.test.ts' -not -path './node_modules/*' | head",
  "npm test -- --run --reporter=dot",
  "pnpm -r build && pnpm -r test",
  "cd packages/protocol && npx vitest run src/index.test.ts",
  'git log --oneline -n 20 --author="dev" --since=2.weeks',
  "rm -rf dist && tsc -p tsconfig.build.json",
  "echo $(date +%s) >> build.log && make -j4 all",
  'for f in src/*.ts; do wc -l "$f"; done',
  "curl -fsSL https://example.invalid/install.sh | bash",
  "python3 -c 'import sys; print(sys.version)'",
  "docker compose up -d db && sleep 2 && docker compose logs db | tail -n 20",
  "git add -A && git commit -m 'fix: handle empty argv' && git push origin HEAD",
  "grep -rn 'process.kill' packages --include='*.ts' | sort | uniq -c | sort -rn | head",
  "tar -czf /tmp/backup.tgz src tests && ls -lh /tmp/backup.tgz",
  "FOO=1 BAR=2 node scripts/gen.mjs > out/generated.json 2>&1",
  "jq '.dependencies | keys' package.json",
  "head -c 200 README.md; echo; tail -n 5 CHANGELOG.md",
  "cargo build --release 2>&1 | grep -E 'error|warning' || true",
  "awk -F: '{print $1}' /etc/passwd | sort | head -n 3",
];

const t0 = performance.now();
const { analyze, isKnownSafeCommand } = await import("@conch/arity-rules");
await analyze("true");
const coldMs = performance.now() - t0;

// Every script is made unique (a trailing comment with a counter) so no analysis is a cache hit, as
// for a model that never sends the same command twice; the safety check then reuses that analysis.
let serial = 0;
async function pass(count) {
  for (let i = 0; i < count; i++) {
    const script = `${SCRIPTS[i % SCRIPTS.length]} # ${serial++}`;
    await analyze(script);
    await isKnownSafeCommand(["bash", "-lc", script]);
  }
}
// Baseline: web-tree-sitter alone parsing the same scripts (parse + delete, no walk, no checks).
const { createRequire } = await import("node:module");
const requireFromPackage = createRequire(new URL("../../packages/arity-rules/package.json", import.meta.url));
const { Language, Parser } = await import(requireFromPackage.resolve("web-tree-sitter"));
await Parser.init();
const parser = new Parser();
parser.setLanguage(await Language.load(requireFromPackage.resolve("tree-sitter-bash/tree-sitter-bash.wasm")));
const rawStarted = performance.now();
for (let i = 0; i < 100_000; i++) parser.parse(`${SCRIPTS[i % SCRIPTS.length]} # ${i}`).delete();
const rawPerSecond = 100_000 / ((performance.now() - rawStarted) / 1000);

await pass(5_000);
const started = performance.now();
await pass(100_000);
const seconds = (performance.now() - started) / 1000;
const rss100k = process.memoryUsage().rss;
// RSS climbs while V8 and the wasm heap size themselves, then stays: compare two later points.
await pass(100_000);
const rss200k = process.memoryUsage().rss;
process.stdout.write(
  `${JSON.stringify({
    coldMs,
    perSecond: 100_000 / seconds,
    rawPerSecond,
    rssAfter100kMiB: rss100k / 2 ** 20,
    rssAfter200kMiB: rss200k / 2 ** 20,
    meanScriptChars: SCRIPTS.reduce((n, s) => n + s.length, 0) / SCRIPTS.length,
  })}\n`,
);
