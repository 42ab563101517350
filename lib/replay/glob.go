package replay

import (
	"errors"
	"fmt"
	"path"
	"strings"
)

// maxGlobAlternatives bounds what brace expansion may make of one pattern,
// so a pattern taken from a pack cannot explode ({a,b}{c,d}... doubles).
const maxGlobAlternatives = 256

// globber matches slash-separated paths against a pattern: path.Match per
// element, "**" for any number of elements (none included), and {a,b}
// alternatives.
type globber struct {
	alts [][]string // each alternative, split into elements
}

// compileGlob checks and compiles pattern. Like the paths of file tools it
// may not be absolute or hold a ".." element.
func compileGlob(pattern string) (*globber, error) {
	switch {
	case pattern == "":
		return nil, errors.New("empty pattern")
	case strings.ContainsRune(pattern, 0):
		return nil, errors.New("the pattern holds a NUL byte")
	case strings.HasPrefix(pattern, "/"):
		return nil, fmt.Errorf("%s is absolute; patterns are relative to the workspace", pattern)
	case hasDriveLetter(pattern):
		return nil, fmt.Errorf("%s has a drive letter; patterns are relative to the workspace", pattern)
	}
	alts, err := expandBraces(pattern)
	if err != nil {
		return nil, err
	}
	g := &globber{}
	for _, a := range alts {
		// Braces can make an alternative absolute or give it a drive
		// letter that the whole pattern does not show: {/etc,x}/passwd,
		// A{,}:/x.
		switch {
		case strings.HasPrefix(a, "/"):
			return nil, fmt.Errorf("%s has an absolute alternative %s; patterns are relative to the workspace", pattern, a)
		case hasDriveLetter(a):
			return nil, fmt.Errorf("%s has an alternative with a drive letter, %s; patterns are relative to the workspace", pattern, a)
		}
		var elems []string
		for _, el := range strings.Split(a, "/") {
			switch {
			case el == "" || el == ".":
				continue
			case el == "..":
				return nil, fmt.Errorf("%s leaves the workspace", pattern)
			case strings.EqualFold(el, ".ctx"):
				return nil, fmt.Errorf("%s enters a .ctx store", pattern)
			case el == "**":
				if len(elems) > 0 && elems[len(elems)-1] == "**" {
					continue // a/**/**/b is a/**/b
				}
			default:
				if _, err := path.Match(el, ""); err != nil {
					return nil, fmt.Errorf("%s is not a valid pattern: %v", pattern, err)
				}
			}
			elems = append(elems, el)
		}
		if len(elems) == 0 {
			return nil, fmt.Errorf("%s matches nothing but the directory itself", pattern)
		}
		if elems[len(elems)-1] == "**" {
			// src/** is what is inside src, not src itself.
			elems = append(elems, "*")
		}
		g.alts = append(g.alts, elems)
	}
	return g, nil
}

// hasDriveLetter reports whether p starts with a Windows drive (C:).
func hasDriveLetter(p string) bool {
	return len(p) >= 2 && p[1] == ':' && (p[0]|0x20 >= 'a' && p[0]|0x20 <= 'z')
}

// expandBraces turns a{b,c}d into abd and acd, nested braces included. A
// brace without its partner, or with no comma, stays literal.
func expandBraces(p string) ([]string, error) {
	open := -1
	depth := 0
	for i := 0; i < len(p); i++ {
		switch p[i] {
		case '\\':
			i++
		case '{':
			if depth == 0 {
				open = i
			}
			depth++
		case '}':
			if depth == 0 {
				continue
			}
			depth--
			if depth > 0 {
				continue
			}
			parts := splitTopLevel(p[open+1 : i])
			if len(parts) < 2 {
				open = -1
				continue
			}
			rests, err := expandBraces(p[i+1:])
			if err != nil {
				return nil, err
			}
			var out []string
			for _, part := range parts {
				heads, err := expandBraces(p[:open] + part)
				if err != nil {
					return nil, err
				}
				for _, h := range heads {
					for _, r := range rests {
						if len(out) == maxGlobAlternatives {
							return nil, fmt.Errorf("the pattern expands to more than %d alternatives", maxGlobAlternatives)
						}
						out = append(out, h+r)
					}
				}
			}
			return out, nil
		}
	}
	return []string{p}, nil
}

// splitTopLevel splits s at the commas outside nested braces.
func splitTopLevel(s string) []string {
	var parts []string
	depth, start := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '{':
			depth++
		case '}':
			depth--
		case ',':
			if depth == 0 {
				parts = append(parts, s[start:i])
				start = i + 1
			}
		}
	}
	return append(parts, s[start:])
}

// prefix returns the leading directories every alternative names
// literally, where a walk can start instead of at the top.
func (g *globber) prefix() string {
	var common []string
	for i, alt := range g.alts {
		var lit []string
		for _, el := range alt[:len(alt)-1] {
			if el == "**" || strings.ContainsAny(el, `*?[\`) {
				break
			}
			lit = append(lit, el)
		}
		if i == 0 {
			common = lit
			continue
		}
		n := 0
		for n < len(common) && n < len(lit) && common[n] == lit[n] {
			n++
		}
		common = common[:n]
	}
	return strings.Join(common, "/")
}

// match reports whether the clean relative path p matches an alternative.
func (g *globber) match(p string) bool {
	elems := strings.Split(p, "/")
	for _, alt := range g.alts {
		if matchElems(alt, elems) {
			return true
		}
	}
	return false
}

// matchElems matches pattern elements against path elements in
// O(len(pat) * len(name)) time however many "**" there are: ok[j] says
// whether the pattern so far matches the first j path elements.
func matchElems(pat, name []string) bool {
	ok := make([]bool, len(name)+1)
	ok[0] = true
	for _, el := range pat {
		next := make([]bool, len(name)+1)
		if el == "**" {
			seen := false
			for j := range ok {
				seen = seen || ok[j]
				next[j] = seen
			}
		} else {
			for j := 1; j <= len(name); j++ {
				if ok[j-1] {
					if m, _ := path.Match(el, name[j-1]); m {
						next[j] = true
					}
				}
			}
		}
		ok = next
	}
	return ok[len(name)]
}
