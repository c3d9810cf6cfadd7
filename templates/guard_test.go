package templates_test

import (
	"strings"
	"testing"

	"github.com/fencegen/fencegen/templates"
)

const (
	longOne = "a_very_long_table_name_that_goes_on_and_on_and_on_alpha_one"
	longTwo = "a_very_long_table_name_that_goes_on_and_on_and_on_alpha_two"
)

func TestGuardFunctionNames(t *testing.T) {
	seen := map[string]string{}
	for _, table := range []string{
		longOne, longTwo, "jobs", "app.jobs", `"app.jobs"`, `app."jobs"`, `"Jobs"`, `"user".jobs`,
		`"` + strings.Repeat("é", 40) + `"`, `"` + strings.Repeat("é", 40) + `x"`,
	} {
		fn, err := templates.GuardFunction(table)
		if err != nil {
			t.Fatalf("GuardFunction(%s): %v", table, err)
		}
		if again, _ := templates.GuardFunction(table); again != fn {
			t.Errorf("GuardFunction(%s) = %s, then %s", table, fn, again)
		}
		// The function's own name, unquoted, fits in an identifier.
		name := fn
		if i := strings.LastIndex(fn, ".fencegen_guard_"); i >= 0 {
			name = fn[i+1:]
		} else if i := strings.LastIndex(fn, `."fencegen_guard_`); i >= 0 {
			name = fn[i+1:]
		}
		name = strings.ReplaceAll(strings.Trim(name, `"`), `""`, `"`)
		if len(name) > templates.MaxIdentifier || !strings.HasPrefix(name, "fencegen_guard_") {
			t.Errorf("GuardFunction(%s) = %s: %d bytes, want at most %d, starting fencegen_guard_", table, fn, len(name), templates.MaxIdentifier)
		}
		if other, ok := seen[name]; ok && table != `app."jobs"` {
			t.Errorf("GuardFunction(%s) and GuardFunction(%s) both name %s", table, other, name)
		}
		seen[name] = table
	}
	// Quoting a name that needs no quotes names the same table.
	a, _ := templates.GuardFunction("app.jobs")
	b, _ := templates.GuardFunction(`app."jobs"`)
	if a != b || !strings.HasPrefix(a, "app.fencegen_guard_jobs_") {
		t.Errorf("app.jobs: %s and %s", a, b)
	}
	if fn, _ := templates.GuardFunction(`"Jobs"`); !strings.HasPrefix(fn, `"fencegen_guard_Jobs_`) {
		t.Errorf(`"Jobs": %s, want a quoted name`, fn)
	}
	for _, bad := range []string{"", `"x`, "a.b.c", "a..b", `"a"b`} {
		if fn, err := templates.GuardFunction(bad); err == nil {
			t.Errorf("GuardFunction(%q) = %s, want an error", bad, fn)
		}
	}
}

// TestTemplatesParse parses every template (Templates panics on one that
// does not), as the parse at init did for every test.
func TestTemplatesParse(t *testing.T) {
	tm := templates.Templates()
	if tm.Lookup("guard.sql.tmpl") == nil {
		t.Fatalf("guard.sql.tmpl is not among the parsed templates: %s", tm.DefinedTemplates())
	}
}
