package golang

import (
	"regexp"
	"strings"
	"sync"
)

// inflectSingular is github.com/jinzhu/inflection v1.0.0's Singular (the
// rules sqlc's internal/inflection singularises table names with, from
// Rails' ActiveSupport inflections), without its cost at start-up: the
// library compiles all 112 of its regular expressions when the program
// starts (about 5% of a small project's run, BENCHMARKS.md). Here each is
// compiled on first use, and tried only when the word could match it: an
// ASCII word must end, in lower case, with one of the rule's endings (or
// start with its prefix), which every string its expression matches does.
// Singular's result is the replacement of the first rule, in the
// library's order, whose expression matches; the word unchanged when none
// does. TestInflectSingular and FuzzInflectSingular compare it with the
// library.
func inflectSingular(word string) string {
	ascii := true
	for i := 0; i < len(word); i++ {
		if word[i] >= 0x80 {
			// Case-insensitive matching folds some other letters onto
			// ASCII ones (U+017F onto s, U+212A onto k): no filter.
			ascii = false
			break
		}
	}
	lower := strings.ToLower(word)
	for i := range inflectRules {
		r := &inflectRules[i]
		if ascii && !r.mayMatch(lower) {
			continue
		}
		re := inflectCompiled[i].get(r.pattern)
		if re.MatchString(word) {
			return re.ReplaceAllString(word, r.replace)
		}
	}
	return word
}

// inflectRule is one regular expression of jinzhu/inflection's singular
// rules as its compile function builds them: pattern and replace are the
// expression and its replacement; ends (lower case) are the endings of
// which a word must have one for pattern to match it, prefix (lower case)
// what it must start with instead, when ends is nil.
type inflectRule struct {
	pattern, replace string
	ends             []string
	prefix           string
}

// mayMatch reports whether the rule's expression can match a word whose
// lower-case form is lower (ASCII).
func (r *inflectRule) mayMatch(lower string) bool {
	if r.ends == nil {
		return strings.HasPrefix(lower, r.prefix)
	}
	for _, e := range r.ends {
		if strings.HasSuffix(lower, e) {
			return true
		}
	}
	return false
}

// lazyRegexp is a regular expression compiled on first use.
type lazyRegexp struct {
	once sync.Once
	re   *regexp.Regexp
}

func (l *lazyRegexp) get(pattern string) *regexp.Regexp {
	l.once.Do(func() { l.re = regexp.MustCompile(pattern) })
	return l.re
}

// inflectCompiled holds inflectRules' compiled expressions, by index.
var inflectCompiled [len(inflectRules)]lazyRegexp

// inflectRules are jinzhu/inflection v1.0.0's singular rules in the order
// Singular tries them: each uncountable word (whole, any case), each
// irregular plural (upper case, title case, as written), then the regular
// rules from the last to the first, each in upper case, as written and
// case-insensitive.
var inflectRules = [...]inflectRule{
	{"^(?i)(equipment)$", "${1}", []string{"equipment"}, ""},
	{"^(?i)(information)$", "${1}", []string{"information"}, ""},
	{"^(?i)(rice)$", "${1}", []string{"rice"}, ""},
	{"^(?i)(money)$", "${1}", []string{"money"}, ""},
	{"^(?i)(species)$", "${1}", []string{"species"}, ""},
	{"^(?i)(series)$", "${1}", []string{"series"}, ""},
	{"^(?i)(fish)$", "${1}", []string{"fish"}, ""},
	{"^(?i)(sheep)$", "${1}", []string{"sheep"}, ""},
	{"^(?i)(jeans)$", "${1}", []string{"jeans"}, ""},
	{"^(?i)(police)$", "${1}", []string{"police"}, ""},
	{"PEOPLE$", "PERSON", []string{"people"}, ""},
	{"People$", "Person", []string{"people"}, ""},
	{"people$", "person", []string{"people"}, ""},
	{"MEN$", "MAN", []string{"men"}, ""},
	{"Men$", "Man", []string{"men"}, ""},
	{"men$", "man", []string{"men"}, ""},
	{"CHILDREN$", "CHILD", []string{"children"}, ""},
	{"Children$", "Child", []string{"children"}, ""},
	{"children$", "child", []string{"children"}, ""},
	{"SEXES$", "SEX", []string{"sexes"}, ""},
	{"Sexes$", "Sex", []string{"sexes"}, ""},
	{"sexes$", "sex", []string{"sexes"}, ""},
	{"MOVES$", "MOVE", []string{"moves"}, ""},
	{"Moves$", "Move", []string{"moves"}, ""},
	{"moves$", "move", []string{"moves"}, ""},
	{"MOMBIES$", "MOMBIE", []string{"mombies"}, ""},
	{"Mombies$", "Mombie", []string{"mombies"}, ""},
	{"mombies$", "mombie", []string{"mombies"}, ""},
	{"(DATABASE)S$", "${1}", []string{"databases"}, ""},
	{"(database)s$", "${1}", []string{"databases"}, ""},
	{"(?i)(database)s$", "${1}", []string{"databases"}, ""},
	{"(QUIZ)ZES$", "${1}", []string{"zes"}, ""},
	{"(quiz)zes$", "${1}", []string{"zes"}, ""},
	{"(?i)(quiz)zes$", "${1}", []string{"zes"}, ""},
	{"(MATR)ICES$", "${1}IX", []string{"ices"}, ""},
	{"(matr)ices$", "${1}ix", []string{"ices"}, ""},
	{"(?i)(matr)ices$", "${1}ix", []string{"ices"}, ""},
	{"(VERT|IND)ICES$", "${1}EX", []string{"ices"}, ""},
	{"(vert|ind)ices$", "${1}ex", []string{"ices"}, ""},
	{"(?i)(vert|ind)ices$", "${1}ex", []string{"ices"}, ""},
	{"^(OX)EN", "${1}", nil, "oxen"},
	{"^(ox)en", "${1}", nil, "oxen"},
	{"(?i)^(ox)en", "${1}", nil, "oxen"},
	{"(ALIAS|STATUS)(ES)?$", "${1}", []string{"alias", "status", "aliases", "statuses"}, ""},
	{"(alias|status)(es)?$", "${1}", []string{"alias", "status", "aliases", "statuses"}, ""},
	{"(?i)(alias|status)(es)?$", "${1}", []string{"alias", "status", "aliases", "statuses"}, ""},
	{"(OCTOP|VIR)(US|I)$", "${1}US", []string{"us", "i"}, ""},
	{"(octop|vir)(us|i)$", "${1}us", []string{"us", "i"}, ""},
	{"(?i)(octop|vir)(us|i)$", "${1}us", []string{"us", "i"}, ""},
	{"^(A)X[IE]S$", "${1}XIS", []string{"xis", "xes"}, ""},
	{"^(a)x[ie]s$", "${1}xis", []string{"xis", "xes"}, ""},
	{"(?i)^(a)x[ie]s$", "${1}xis", []string{"xis", "xes"}, ""},
	{"(CRIS|TEST)(IS|ES)$", "${1}IS", []string{"is", "es"}, ""},
	{"(cris|test)(is|es)$", "${1}is", []string{"is", "es"}, ""},
	{"(?i)(cris|test)(is|es)$", "${1}is", []string{"is", "es"}, ""},
	{"(SHOE)S$", "${1}", []string{"shoes"}, ""},
	{"(shoe)s$", "${1}", []string{"shoes"}, ""},
	{"(?i)(shoe)s$", "${1}", []string{"shoes"}, ""},
	{"(O)ES$", "${1}", []string{"oes"}, ""},
	{"(o)es$", "${1}", []string{"oes"}, ""},
	{"(?i)(o)es$", "${1}", []string{"oes"}, ""},
	{"(BUS)(ES)?$", "${1}", []string{"bus", "buses"}, ""},
	{"(bus)(es)?$", "${1}", []string{"bus", "buses"}, ""},
	{"(?i)(bus)(es)?$", "${1}", []string{"bus", "buses"}, ""},
	{"^(M|L)ICE$", "${1}OUSE", []string{"ice"}, ""},
	{"^(m|l)ice$", "${1}ouse", []string{"ice"}, ""},
	{"(?i)^(m|l)ice$", "${1}ouse", []string{"ice"}, ""},
	{"(X|CH|SS|SH)ES$", "${1}", []string{"xes", "ches", "sses", "shes"}, ""},
	{"(x|ch|ss|sh)es$", "${1}", []string{"xes", "ches", "sses", "shes"}, ""},
	{"(?i)(x|ch|ss|sh)es$", "${1}", []string{"xes", "ches", "sses", "shes"}, ""},
	{"(C)OOKIES$", "${1}OOKIE", []string{"cookies"}, ""},
	{"(c)ookies$", "${1}ookie", []string{"cookies"}, ""},
	{"(?i)(c)ookies$", "${1}ookie", []string{"cookies"}, ""},
	{"(M)OVIES$", "${1}OVIE", []string{"movies"}, ""},
	{"(m)ovies$", "${1}ovie", []string{"movies"}, ""},
	{"(?i)(m)ovies$", "${1}ovie", []string{"movies"}, ""},
	{"(S)ERIES$", "${1}ERIES", []string{"series"}, ""},
	{"(s)eries$", "${1}eries", []string{"series"}, ""},
	{"(?i)(s)eries$", "${1}eries", []string{"series"}, ""},
	{"([^AEIOUY]|QU)IES$", "${1}Y", []string{"ies"}, ""},
	{"([^aeiouy]|qu)ies$", "${1}y", []string{"ies"}, ""},
	{"(?i)([^aeiouy]|qu)ies$", "${1}y", []string{"ies"}, ""},
	{"([LR])VES$", "${1}F", []string{"lves", "rves"}, ""},
	{"([lr])ves$", "${1}f", []string{"lves", "rves"}, ""},
	{"(?i)([lr])ves$", "${1}f", []string{"lves", "rves"}, ""},
	{"(TIVE)S$", "${1}", []string{"tives"}, ""},
	{"(tive)s$", "${1}", []string{"tives"}, ""},
	{"(?i)(tive)s$", "${1}", []string{"tives"}, ""},
	{"(HIVE)S$", "${1}", []string{"hives"}, ""},
	{"(hive)s$", "${1}", []string{"hives"}, ""},
	{"(?i)(hive)s$", "${1}", []string{"hives"}, ""},
	{"([^F])VES$", "${1}FE", []string{"ves"}, ""},
	{"([^f])ves$", "${1}fe", []string{"ves"}, ""},
	{"(?i)([^f])ves$", "${1}fe", []string{"ves"}, ""},
	{"(^ANALY)(SIS|SES)$", "${1}SIS", []string{"sis", "ses"}, ""},
	{"(^analy)(sis|ses)$", "${1}sis", []string{"sis", "ses"}, ""},
	{"(?i)(^analy)(sis|ses)$", "${1}sis", []string{"sis", "ses"}, ""},
	{"((A)NALY|(B)A|(D)IAGNO|(P)ARENTHE|(P)ROGNO|(S)YNOP|(T)HE)(SIS|SES)$", "${1}SIS", []string{"sis", "ses"}, ""},
	{"((a)naly|(b)a|(d)iagno|(p)arenthe|(p)rogno|(s)ynop|(t)he)(sis|ses)$", "${1}sis", []string{"sis", "ses"}, ""},
	{"(?i)((a)naly|(b)a|(d)iagno|(p)arenthe|(p)rogno|(s)ynop|(t)he)(sis|ses)$", "${1}sis", []string{"sis", "ses"}, ""},
	{"([TI])A$", "${1}UM", []string{"ta", "ia"}, ""},
	{"([ti])a$", "${1}um", []string{"ta", "ia"}, ""},
	{"(?i)([ti])a$", "${1}um", []string{"ta", "ia"}, ""},
	{"(N)EWS$", "${1}EWS", []string{"news"}, ""},
	{"(n)ews$", "${1}ews", []string{"news"}, ""},
	{"(?i)(n)ews$", "${1}ews", []string{"news"}, ""},
	{"(SS)$", "${1}", []string{"ss"}, ""},
	{"(ss)$", "${1}", []string{"ss"}, ""},
	{"(?i)(ss)$", "${1}", []string{"ss"}, ""},
	{"S$", "", []string{"s"}, ""},
	{"s$", "", []string{"s"}, ""},
	{"(?i)s$", "", []string{"s"}, ""},
}
