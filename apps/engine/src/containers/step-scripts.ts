/**
 * The shell text the engine runs inside step containers. Kept POSIX sh so it works in busybox,
 * Alpine and Debian images alike. Values reach the scripts through the environment, never by
 * pasting them into the text, so quoting cannot break and secrets stay out of `ps`.
 * @module
 */

/**
 * Set-up shared by every shell step: reset the exports file the first time a build touches a
 * reused volume, and define `cf_export`.
 */
const PREAMBLE =
  [
    'set -e',
    '__sluice_dir=/codefresh/volume/.sluice',
    'if [ "$(cat "$__sluice_dir/build-id" 2>/dev/null)" != "$CF_BUILD_ID" ]; then',
    '  mkdir -p "$__sluice_dir"',
    '  : > /codefresh/volume/env_vars_to_export',
    '  printf \'%s\\n\' "$CF_BUILD_ID" > "$__sluice_dir/build-id"',
    'fi',
    'cf_export() {',
    '  __sluice_mask=',
    '  for __sluice_arg in "$@"; do if [ "$__sluice_arg" = "--mask" ]; then __sluice_mask=1; fi; done',
    '  for __sluice_arg in "$@"; do',
    '    if [ "$__sluice_arg" = "--mask" ]; then continue; fi',
    '    case "$__sluice_arg" in',
    '      [A-Za-z_]*=*) ;;',
    '      *) echo "cf_export: expected NAME=value, got \'$__sluice_arg\'" >&2; return 1 ;;',
    '    esac',
    '    __sluice_name="${__sluice_arg%%=*}"',
    '    __sluice_value="${__sluice_arg#*=}"',
    '    if [ -n "$__sluice_mask" ]; then',
    '      printf \'%s\\n\' "$__sluice_value" | while IFS= read -r __sluice_line; do',
    // On both streams: Docker copies stdout and stderr separately, so a marker on stdout alone
    // can arrive after the value is printed on stderr.
    '        printf \'%s%s\\n\' "$SLUICE_MASK_MARKER" "$__sluice_line"',
    '        printf \'%s%s\\n\' "$SLUICE_MASK_MARKER" "$__sluice_line" >&2',
    '      done',
    '    fi',
    '    printf \'%s=%s\\n\' "$__sluice_name" "$__sluice_value" >> /codefresh/volume/env_vars_to_export',
    '    export "$__sluice_name=$__sluice_value"',
    '  done',
    '}',
  ].join('\n') + '\n';

export function freestyleScript(commands: readonly string[]): string {
  return `${PREAMBLE}${commands.join('\n')}\n`;
}

/**
 * When the clone is the engine's read of the pipeline's definition (repository-definition.ts):
 * the file `$SLUICE_DEFINITION_PATH` is taken from git's objects at HEAD, never from the working
 * tree, so no symlink is followed and nothing outside the repository is read; a file that is
 * missing (73), not a regular file (74: a symlink, a directory, a submodule) or over
 * `$SLUICE_DEFINITION_LIMIT` bytes (75) ends the container with that code. It and the commit go
 * to `$SLUICE_DEFINITION_OUT` and `.sha` beside it, on the build volume, for the engine to read.
 */
const DEFINITION_READ = String.raw`if [ -n "$SLUICE_DEFINITION_PATH" ]; then
  out="$SLUICE_DEFINITION_OUT"
  mkdir -p "$(dirname "$out")"
  find "$(dirname "$out")" -name 'definition-*' -mmin +60 -exec rm -f {} + 2>/dev/null || true
  git rev-parse HEAD > "$out.sha"
  entry=$(git ls-tree HEAD -- "$SLUICE_DEFINITION_PATH")
  [ -n "$entry" ] || exit 73
  mode=$(printf '%s' "$entry" | cut -d' ' -f1)
  if [ "$mode" != 100644 ] && [ "$mode" != 100755 ]; then echo "$mode" > "$out.mode"; exit 74; fi
  size=$(git cat-file -s "HEAD:$SLUICE_DEFINITION_PATH")
  if [ "$size" -gt "$SLUICE_DEFINITION_LIMIT" ]; then echo "$size" > "$out.size"; exit 75; fi
  git cat-file blob "HEAD:$SLUICE_DEFINITION_PATH" > "$out"
  echo "Read $SLUICE_DEFINITION_PATH ($size bytes)"
fi
`;

/**
 * Clones or refreshes `$SLUICE_CLONE_URL` into `$SLUICE_CLONE_DIR` at `$SLUICE_CLONE_REVISION`
 * (branch, tag or sha; the remote's default branch when empty). A cached clone on the reused
 * volume is fetched into, and untracked files not ignored by .gitignore are purged.
 */
export const CLONE_SCRIPT = String.raw`${PREAMBLE}
dir="$SLUICE_CLONE_DIR"
rev="$SLUICE_CLONE_REVISION"
depth=
[ -n "$SLUICE_CLONE_DEPTH" ] && depth="--depth=$SLUICE_CLONE_DEPTH"
git config --global advice.detachedHead false
git config --global init.defaultBranch main
git config --global --add safe.directory '*'
# Never ask on a terminal: a refused login fails the step at once.
export GIT_TERMINAL_PROMPT=0
# Credentials reach git through a helper or a key file, never the URL, so neither the URL
# printed nor .git/config holds them.
if [ -n "$SLUICE_GIT_USERNAME$SLUICE_GIT_PASSWORD" ]; then
  git config --global credential.helper '!f() { echo "username=$SLUICE_GIT_USERNAME"; echo "password=$SLUICE_GIT_PASSWORD"; }; f'
fi
if [ -n "$SLUICE_GIT_SSH_KEY" ]; then
  if ! command -v ssh >/dev/null 2>&1; then
    echo "The git image has no ssh client, which a git integration with an SSH key needs: use an image with one (sluice run --git-image), or a token" >&2
    exit 1
  fi
  key=$(mktemp)
  printf '%s\n' "$SLUICE_GIT_SSH_KEY" > "$key"
  chmod 600 "$key"
  # The step's home may be read-only or shared: known hosts go beside the key, not in ~/.ssh.
  export GIT_SSH_COMMAND="ssh -i $key -o IdentitiesOnly=yes -o StrictHostKeyChecking=accept-new -o UserKnownHostsFile=$key.known_hosts -o BatchMode=yes -o LogLevel=ERROR"
fi
if [ -d "$dir/.git" ]; then
  echo "Using the cached clone in $dir"
  cd "$dir"
  git remote set-url origin "$SLUICE_CLONE_URL"
else
  echo "Cloning $SLUICE_CLONE_DISPLAY_URL into $dir"
  rm -rf "$dir"
  mkdir -p "$dir"
  cd "$dir"
  git init -q
  git remote add origin "$SLUICE_CLONE_URL"
fi
if [ -z "$rev" ]; then
  rev=$(git ls-remote --symref origin HEAD | sed -n 's#^ref: refs/heads/\(.*\)[[:space:]]HEAD$#\1#p')
  [ -n "$rev" ] || rev=main
fi
if printf '%s' "$rev" | grep -Eq '^[0-9a-f]{7,40}$'; then
  if ! git fetch -q $depth origin "$rev" 2>/dev/null; then
    git fetch -q origin '+refs/heads/*:refs/remotes/origin/*' '+refs/tags/*:refs/tags/*'
    git checkout -qf "$rev"
  else
    git checkout -qf FETCH_HEAD
  fi
else
  git fetch -q $depth origin "$rev"
  git checkout -qf -B "$rev" FETCH_HEAD
fi
git clean -qfd
echo "Checked out $rev at $(git rev-parse HEAD)"
git log -1 --format='%an: %s'
${DEFINITION_READ}`;
