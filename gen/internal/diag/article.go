package diag

import "strings"

// A is w after its indefinite article, as a message writes it: "an
// UPDATE", "an index", "a DELETE", "a trigger", "an event", and "a" where
// a vowel letter is sounded as a consonant ("a UNION", "a unique index",
// "a USE", "a one-row ...").
func A(w string) string {
	l := strings.ToLower(w)
	for _, p := range []string{"uni", "use", "usa", "usi", "usu", "uti", "ute", "eu", "one", "once"} {
		if strings.HasPrefix(l, p) {
			return "a " + w
		}
	}
	if l != "" && strings.ContainsRune("aeiou", rune(l[0])) {
		return "an " + w
	}
	return "a " + w
}
