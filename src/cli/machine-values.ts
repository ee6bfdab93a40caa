/** What a machine value is: the kind `check --update` names in its warning. */
export type MachineWhat = 'project root' | 'home directory' | 'user name' | 'host name' | "today's date"

/**
 * Names that are also ordinary words, or the default account or host name of
 * a common system or image (`root`, `ubuntu`, `runner`, `vscode`): prose
 * says "package root", "test runner" or "open it in vscode" without naming
 * anyone's machine. Such a value counts only in the shapes below, never as a
 * bare word.
 */
const COMMON_NAMES: ReadonlySet<string> = new Set(
  [
    'root admin administrator user users guest dev devel developer test tester testing demo',
    'build builder runner worker node app apps web www data service server system sys daemon',
    'nobody default owner master main local localhost home work ubuntu debian fedora centos',
    'alpine arch pi git docker vagrant jenkins deploy deployer ci bot agent vscode codespace',
    'codespaces coder code operator postgres mysql redis nginx apache python cloud box host',
    'machine computer laptop desktop linux mac macbook android container sandbox',
  ]
    .join(' ')
    .split(' '),
)

/** A value this short or shorter counts only in the shapes below (`ci`, `dev`, `bob`). */
const SHORT = 3

/** A character that can be part of a name: `alice` ends where one of these does not follow. */
const NAME = String.raw`\p{L}\p{N}_\-`

function literal(value: string): string {
  return value.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')
}

/**
 * The patterns under which `value` counts as this machine's, for its kind
 * (why each shape is there: a user name in a path or a login, a host name
 * after `@` or `//`, a key naming either; the whole word only for a name
 * that prose does not use):
 *
 * - a path (project root, home directory): the whole path, as the start of
 *   a path (`/root` in `cd /root/x` or `"/root"`, not in `/srv/root` or
 *   `/rootfs`);
 * - a user name: a home directory (`/home/alice`, `/Users/alice`,
 *   `C:\Users\alice`), `~alice`, a login `alice@host`, a key
 *   (`USER=alice`, `user: alice`, `"username": "alice"`), and, unless the
 *   name is short or a common word, the name as a whole word;
 * - a host name: `user@box`, `ssh://box`, a key (`HOSTNAME=box`,
 *   `host: box`), and, unless short or common, the name as a whole word;
 * - a date: anywhere.
 *
 * Names compare case-sensitively (user and host names are lower case where
 * they are words, so "Root" in a heading is prose); the keys and `Users`
 * do not.
 */
export function machinePatterns(what: MachineWhat, value: string): RegExp[] {
  const v = literal(value)
  const end = String.raw`(?![${NAME}]|\.[${NAME}])`
  const word = (prefix: string, flags = 'u') => new RegExp(`${prefix}${v}${end}`, flags)
  switch (what) {
    case "today's date":
      return [new RegExp(v)]
    case 'project root':
    case 'home directory':
      return [new RegExp(`(?<![${NAME}.~])${v}${end}`, 'u')]
    case 'user name': {
      const shapes = [
        word(String.raw`(?:/home|/${ci('users')}|/usr/home|/var/home|/export/home|\\${ci('users')})[/\\]`),
        word(`(?<![${NAME}])~`),
        new RegExp(String.raw`(?<![${NAME}.@])${v}@[${NAME}.]*\p{L}`, 'u'),
        keyed(`${ci('user')}(?:_?${ci('name')})?|${ci('login')}|${ci('logname')}|${ci('owner')}`, v, end),
      ]
      return common(value) ? shapes : [...shapes, word(`(?<![${NAME}])`)]
    }
    case 'host name': {
      const shapes = [word(`(?<=[${NAME}]@|//)`), keyed(`${ci('host')}(?:_?${ci('name')})?`, v, end)]
      return common(value) ? shapes : [...shapes, word(`(?<![${NAME}.])`)]
    }
  }
}

/** `key: value`, `key=value`, `"key": "value"` (`keys` matches the key in any case). */
function keyed(keys: string, v: string, end: string): RegExp {
  return new RegExp(String.raw`(?<![${NAME}])["']?(?:${keys})["']?[ \t]*[:=][ \t]*["']?${v}${end}`, 'u')
}

/** A pattern matching `word` in any case (`[uU][sS]…`), for keys beside a value that is matched exactly. */
function ci(word: string): string {
  return [...word].map((c) => `[${c.toLowerCase()}${c.toUpperCase()}]`).join('')
}

function common(value: string): boolean {
  return value.length <= SHORT || COMMON_NAMES.has(value.toLowerCase())
}

/** Whether `text` holds `value` as this machine's `what` (see `machinePatterns`). */
export function holdsMachineValue(text: string, what: MachineWhat, value: string): boolean {
  return machinePatterns(what, value).some((pattern) => pattern.test(text))
}
