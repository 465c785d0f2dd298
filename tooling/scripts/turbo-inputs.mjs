// The pure half of check-turbo-inputs.mjs: given turbo's dry-run JSON before and after one edit, which
// task hashes changed, and whether that is what the edit must do. A file that feeds a task but is not
// among its inputs lets turbo replay a stale result, the failure this check exists for.

/**
 * @param {{tasks: {taskId: string, task: string, hash: string}[]}} dry `turbo run … --dry=json`
 * @returns {Map<string, {task: string, hash: string}>} by task id
 */
export function taskHashes(dry) {
  return new Map(dry.tasks.map(({ taskId, task, hash }) => [taskId, { task, hash }]));
}

/**
 * @typedef {"change" | "keep" | "either"} Verdict  what the edit must do to one task's hash; "either"
 *   where turbo may over-invalidate (a rebuild that was not needed is slow, never stale)
 * @typedef {{edit: string, expect: (taskId: string, task: string) => Verdict}} Expectation
 */

/**
 * @param {Expectation} expectation
 * @param {Map<string, {task: string, hash: string}>} before
 * @param {Map<string, {task: string, hash: string}>} after
 * @returns {{changed: number, problems: string[]}} problems: one line per task on the wrong side
 */
export function compareHashes({ edit, expect }, before, after) {
  /** @type {string[]} */
  const problems = [];
  let changed = 0;
  for (const [taskId, { task, hash }] of before) {
    const now = after.get(taskId);
    if (now === undefined) {
      problems.push(`${edit}: ${taskId} is gone from the task graph`);
      continue;
    }
    const differs = now.hash !== hash;
    if (differs) changed++;
    const verdict = expect(taskId, task);
    if (verdict === "change" && !differs) {
      problems.push(`${edit}: ${taskId} kept its hash, so turbo would replay a stale result`);
    }
    if (verdict === "keep" && differs) {
      problems.push(`${edit}: ${taskId} changed its hash, but the edit is not among its inputs`);
    }
  }
  for (const taskId of after.keys()) {
    if (!before.has(taskId)) problems.push(`${edit}: ${taskId} appeared in the task graph`);
  }
  return { changed, problems: problems.sort() };
}
