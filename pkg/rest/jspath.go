package rest

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// jsPath is PostgREST's jwt-role-claim-key: where in a token's claims the
// role is, as a path of keys and array indexes, e.g. .role,
// ."https://example.com/claims".role or .realm_access.roles[0].
// PostgREST's filter steps ([?(@ == "x")]) are not supported.
type jsPath []jsStep

type jsStep struct {
	key   string
	index int
	isIdx bool
}

func parseJSPath(s string) (jsPath, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, fmt.Errorf("must not be empty")
	}
	var p jsPath
	for i := 0; i < len(s); {
		switch s[i] {
		case '.':
			i++
			if i < len(s) && s[i] == '"' {
				end := strings.IndexByte(s[i+1:], '"')
				if end < 0 {
					return nil, fmt.Errorf("unterminated quoted key in %q", s)
				}
				p = append(p, jsStep{key: s[i+1 : i+1+end]})
				i += end + 2
				continue
			}
			start := i
			for i < len(s) && s[i] != '.' && s[i] != '[' {
				i++
			}
			if i == start {
				return nil, fmt.Errorf("empty key in %q", s)
			}
			p = append(p, jsStep{key: s[start:i]})
		case '[':
			end := strings.IndexByte(s[i:], ']')
			if end < 0 {
				return nil, fmt.Errorf("unterminated index in %q", s)
			}
			n, err := strconv.Atoi(s[i+1 : i+end])
			if err != nil || n < 0 {
				return nil, fmt.Errorf("only keys and array indexes are supported, got %q", s)
			}
			p = append(p, jsStep{index: n, isIdx: true})
			i += end + 1
		default:
			return nil, fmt.Errorf("must start each step with . or [, got %q", s)
		}
	}
	return p, nil
}

// lookup returns the string at p in the claims, if there is one.
func (p jsPath) lookup(claims []byte) (string, bool) {
	var v any
	if err := json.Unmarshal(claims, &v); err != nil {
		return "", false
	}
	for _, st := range p {
		switch cur := v.(type) {
		case map[string]any:
			if st.isIdx {
				return "", false
			}
			v = cur[st.key]
		case []any:
			if !st.isIdx || st.index >= len(cur) {
				return "", false
			}
			v = cur[st.index]
		default:
			return "", false
		}
	}
	s, ok := v.(string)
	return s, ok
}

// isRole says whether p is the default .role.
func (p jsPath) isRole() bool { return len(p) == 1 && !p[0].isIdx && p[0].key == "role" }
