// The house rule for commit messages (CONTRIBUTING.md): a subject of at most 72 characters that
// says what changed, then a blank line and a body that says why. Checked by the commit-msg hook
// (scripts/hooks/commit-msg) on each new message and by the test command on every commit made
// since the rule began (scripts/check-commits.mjs). Merge commits are git's own words: not checked.

/** The longest subject line. */
export const SUBJECT_MAX = 72;

/** The problems of one commit message (git's text, comment lines already stripped or not). */
export function messageProblems(message) {
  const lines = message
    .replace(/\r\n/g, '\n')
    .split('\n')
    .filter((line) => !line.startsWith('#'));
  while (lines.length > 0 && lines.at(-1).trim() === '') lines.pop();
  const [subject = '', separator, ...body] = lines;
  const problems = [];
  if (subject.trim() === '') return ['the subject line is empty'];
  if (subject.length > SUBJECT_MAX) {
    problems.push(
      `the subject has ${subject.length} characters (at most ${SUBJECT_MAX}): say what changed ` +
        'in fewer words and move the rest to the body',
    );
  }
  const joined = separator !== undefined && separator.trim() !== '';
  if (joined) {
    problems.push('the second line must be empty: a blank line between the subject and the body');
  }
  if (!joined && body.every((line) => line.trim() === '')) {
    problems.push('there is no body: after a blank line, say why the change was made');
  }
  return problems;
}
