package agenttest

import (
	"strconv"
	"unicode/utf16"
)

// claudeFolderMax is the longest project folder name Claude Code uses
// whole; a longer one is cut there and given a hash suffix.
const claudeFolderMax = 200

// ClaudeProjectFolder is the name of the folder under
// $CLAUDE_CONFIG_DIR/projects where Claude Code 2.1.328 keeps the sessions
// of the working directory dir (docs/RESTORE.md, "Each agent's store"):
// every UTF-16 code unit of dir outside [A-Za-z0-9] becomes "-" (so a
// character outside the BMP becomes "--"); a name longer than 200 units is
// cut to 200 and followed by "-" and the base-36 absolute value of the
// Java-style 32-bit hash of dir (h = 31*h + unit, over the UTF-16 units).
// (CLAUDE_CODE_PROJECT_DIR_NAME, when it is a name of at most 64 of
// [A-Za-z0-9_-] and CLAUDE_CONFIG_DIR is set, replaces the rule.)
func ClaudeProjectFolder(dir string) string {
	units := utf16.Encode([]rune(dir))
	name := make([]byte, len(units))
	for i, u := range units {
		if u < 128 && isAlnum(byte(u)) {
			name[i] = byte(u)
		} else {
			name[i] = '-'
		}
	}
	if len(name) <= claudeFolderMax {
		return string(name)
	}
	var h int32
	for _, u := range units {
		h = h*31 + int32(u)
	}
	abs := int64(h)
	if abs < 0 {
		abs = -abs
	}
	return string(name[:claudeFolderMax]) + "-" + strconv.FormatInt(abs, 36)
}

func isAlnum(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}
