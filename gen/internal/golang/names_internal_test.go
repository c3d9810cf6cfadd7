package golang

import (
	"reflect"
	"testing"

	"github.com/fencegen/fencegen/gen/internal/config"
)

func TestStructName(t *testing.T) {
	n := newNamer([]string{"ID", "api"}, map[string]string{"ip_protocol": "IPProtocol"}, false, nil)
	for in, want := range map[string]string{
		"user_id":     "UserId", // initialisms match as spelt: "ID" is not "id"
		"Foo_ID":      "FooID",
		"api_url":     "APIUrl",
		"a$b":         "AB",
		"x.y":         "XY",
		"9lives":      "_9lives",
		"ünï_x":       "ÜnïX",
		"ip_protocol": "IPProtocol",
		"userId":      "UserId",
	} {
		if got := n.structName(in); got != want {
			t.Errorf("structName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestJSONName(t *testing.T) {
	for _, tt := range []struct {
		name, style string
		idUpper     bool
		want        string
	}{
		{"user_id", "", false, "user_id"},
		{"user_id", "none", true, "user_id"},
		{"user_id", "camel", false, "userId"},
		{"user_id", "camel", true, "userID"},
		{"id", "camel", true, "id"},
		{"id", "pascal", false, "ID"},
		{"foo_bar_id", "pascal", false, "FooBarID"},
		{"createdAt", "snake", false, "created_at"},
		{"HTTPCode", "snake", false, "httpcode"},
		{"aBcD", "snake", false, "a_bc_d"},
		{"created_At", "snake", false, "created_at"},
	} {
		if got := jsonName(tt.name, tt.style, tt.idUpper); got != tt.want {
			t.Errorf("jsonName(%q, %q, %v) = %q, want %q", tt.name, tt.style, tt.idUpper, got, tt.want)
		}
	}
}

func TestParseStructTag(t *testing.T) {
	got := parseStructTag(`validate:"required,min=1" json:"-" x:"a \"b\""  broken`)
	want := map[string]string{"validate": "required,min=1", "json": "-", "x": `a "b"`}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("parseStructTag = %q, want %q", got, want)
	}
}

func TestQueryFileName(t *testing.T) {
	for _, tt := range [][3]string{
		{"sql/query.sql", "", "query.sql.go"},
		{"query.sql", "_gen", "query.sql_gen.go"},
		{"query.sql", "_gen.go", "query.sql_gen.go"},
	} {
		if got := queryFileName(tt[0], tt[1]); got != tt[2] {
			t.Errorf("queryFileName(%q, %q) = %q, want %q", tt[0], tt[1], got, tt[2])
		}
	}
}

// TestOverrideImportNames checks the name an override's go_type is
// qualified with and the alias its import is written with, by sqlc's
// rules (opts/go_type.go at v1.31.1: the string form qualifies with the
// last path element less "go-" and writes no alias; the object form
// without package writes an alias, the element lower-cased with "_" for
// other characters than [a-zA-Z0-9_], unless the element is made of
// those characters only, and for a /vN path the element before it),
// and fencegen's own where sqlc's code would not compile (the string
// form's yaml.v3, pgvector-go, v2: an alias of Go's conventional name).
// TestNamesMatchSqlc compares a selection with sqlc's output.
func TestOverrideImportNames(t *testing.T) {
	spec := func(s string) config.GoType { return config.GoType{Spec: s} }
	obj := func(imp, pkg string) config.GoType { return config.GoType{Import: imp, Package: pkg, Type: "T"} }
	for _, tt := range []struct {
		in          config.GoType
		qual, alias string
	}{
		// String form, sqlc's rule: last element less "go-", no alias.
		{spec("github.com/google/uuid.UUID"), "uuid", ""},
		{spec("github.com/shopspring/decimal.Decimal"), "decimal", ""},
		{spec("github.com/x/go-types.Money"), "types", ""},
		{spec("github.com/gofrs/go-uuid.UUID"), "uuid", ""},
		{spec("github.com/Rhymond/go-money.Money"), "money", ""},
		{spec("github.com/x/go-go.T"), "go_go", "go_go"}, // sqlc: go.T, a keyword
		{spec("github.com/x/go-gopher.T"), "gopher", ""}, // one "go-" only
		{spec("github.com/x/Upper.T"), "Upper", ""},
		{spec("github.com/x/snake_case.T"), "snake_case", ""},
		{spec("time.Time"), "time", ""},
		{spec("*time.Time"), "time", ""},
		{spec("[]github.com/x/go-types.Money"), "types", ""},
		{spec("*github.com/x/go-types.Money"), "types", ""},
		{spec("encoding/json.RawMessage"), "json", ""},
		{spec("net/netip.Addr"), "netip", ""},
		// String form, where sqlc's qualifier is not a package name: an
		// alias of Go's conventional name.
		{spec("gopkg.in/yaml.v3.Node"), "yaml", "yaml"},
		{spec("gopkg.in/guregu/null.v4.String"), "null", "null"},
		{spec("github.com/pgvector/pgvector-go.Vector"), "pgvector", "pgvector"},
		{spec("github.com/x/uuid-go.UUID"), "uuid", "uuid"},
		{spec("github.com/x/foo-bar.T"), "foo", "foo"},
		{spec("github.com/x/go-foo-bar.T"), "foo", "foo"},
		{spec("github.com/x/foo.go.T"), "foo", "foo"},
		{spec("github.com/jackc/pgx/v5.Conn"), "pgx", "pgx"},
		{spec("github.com/x/thing/v3.Dotted"), "thing", "thing"},
		{spec("github.com/x/go-thing/v2.T"), "thing", "thing"},
		{spec("github.com/x/thing/v10.T"), "thing", "thing"},
		// Object form without package: sqlc's alias rule.
		{obj("github.com/google/uuid", ""), "uuid", ""},
		{obj("github.com/x/Upper", ""), "Upper", ""},
		{obj("github.com/x/snake_case", ""), "snake_case", ""},
		{obj("github.com/x/go-geo", ""), "go_geo", "go_geo"},
		{obj("github.com/x/Go-Geo", ""), "go_geo", "go_geo"},
		{obj("gopkg.in/yaml.v3", ""), "yaml_v3", "yaml_v3"},
		{obj("gopkg.in/guregu/null.v4", ""), "null_v4", "null_v4"},
		{obj("github.com/pgvector/pgvector-go", ""), "pgvector_go", "pgvector_go"},
		{obj("github.com/x/things/v2", ""), "things", "things"},
		{obj("github.com/redis/go-redis/v9", ""), "go_redis", "go_redis"},
		{obj("github.com/x/Things/v2", ""), "things", "things"},
		{obj("github.com/x/café", ""), "caf_", "caf_"},
		{obj("v2", ""), "v2", ""}, // a lone version element is a name
		{obj("github.com/x/v", ""), "v", ""},
		{obj("github.com/x/vx", ""), "vx", ""},
		// Object form with package: always that alias.
		{obj("github.com/x/decimal", "dec"), "dec", "dec"},
		{obj("github.com/x/stuff", "stuff"), "stuff", "stuff"},
		{obj("gopkg.in/yaml.v3", "yaml"), "yaml", "yaml"},
	} {
		gt, alias := parseGoType(tt.in, pgtypePkg)
		o := override{goType: gt, alias: alias}
		if got := o.importName(); got != tt.qual || alias != tt.alias {
			t.Errorf("%+v: qualifier %q, alias %q; want %q, %q", tt.in, got, alias, tt.qual, tt.alias)
		}
	}
}

// TestPackageName checks Go's conventional package name of an import
// path, the name an import without an alias is referred to by.
func TestPackageName(t *testing.T) {
	for in, want := range map[string]string{
		"github.com/jackc/pgx/v5":         "pgx",
		"github.com/jackc/pgx/v5/pgtype":  "pgtype",
		"github.com/pgvector/pgvector-go": "pgvector",
		"github.com/x/go-types":           "types",
		"gopkg.in/yaml.v3":                "yaml",
		"github.com/x/foo.bar":            "foo",
		"github.com/x/Upper":              "Upper",
		"context":                         "context",
		"database/sql/driver":             "driver",
		"v2":                              "v2",
		"github.com/x/v2x":                "v2x",
	} {
		if got := packageName(in); got != want {
			t.Errorf("packageName(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestArgName checks sqlc's name of a method's only argument
// (result.go's argName at v1.31.1): parts split at "_" only, the first
// lower-cased whole, "id" parts "ID" whatever the initialisms, the
// others title-cased; and paramName's where that is no Go identifier.
func TestArgName(t *testing.T) {
	n := newNamer([]string{"id", "url", "api"}, nil, false, nil)
	plain := newNamer([]string{"ID"}, nil, false, nil)
	for _, tt := range []struct {
		n        *namer
		in, want string
	}{
		{n, "user_id", "userID"},
		{plain, "user_id", "userID"}, // "id" whatever the initialisms
		{n, "id", "id"},
		{n, "ID", "id"},
		{n, "html_url", "htmlUrl"}, // initialisms do not apply
		{n, "api_key", "apiKey"},
		{n, "url", "url"},
		{n, "CamelCol", "camelcol"},
		{n, "userId", "userid"},
		{n, "user_ID", "userID"}, // title-cased: ID stays ID
		{n, "a__b", "aB"},
		{n, "_private", "Private"},
		{n, "x_1", "x1"},
		{n, "café_au_lait", "caféAuLait"},
		{n, "type", "type"}, // a keyword: escaped by escapeArg
		{n, "select", "select"},
		{n, "Mixed Case", "mixedCase"}, // sqlc: "mixed case"
		{n, "2fa", "_2fa"},             // sqlc: 2fa
		{n, "a-b", "ab"},               // sqlc: a-b
		{n, "col.x", "colX"},           // sqlc: col.x
	} {
		if got := tt.n.argName(tt.in); got != tt.want {
			t.Errorf("argName(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestObjectTypeWithoutImport checks a go_type {type: time.Time} with
// neither import nor package: sqlc writes the type as given and imports
// the package of the types it knows by that spelling.
func TestObjectTypeWithoutImport(t *testing.T) {
	for _, tt := range []struct{ typ, pkg, name string }{
		{"time.Time", "time", "Time"},
		{"json.RawMessage", "encoding/json", "RawMessage"},
		{"net.IP", "net", "IP"},
		{"net.HardwareAddr", "net", "HardwareAddr"},
		{"netip.Addr", "net/netip", "Addr"},
		{"netip.Prefix", "net/netip", "Prefix"},
		{"sql.NullString", "database/sql", "NullString"},
		{"sql.NullTime", "database/sql", "NullTime"},
		{"uuid.UUID", "github.com/google/uuid", "UUID"},
		{"uuid.NullUUID", "github.com/google/uuid", "NullUUID"},
		{"pq.NullTime", "github.com/lib/pq", "NullTime"},
		{"pqtype.Inet", "github.com/sqlc-dev/pqtype", "Inet"},
		{"pgvector.Vector", "github.com/pgvector/pgvector-go", "Vector"},
		{"int32", "", "int32"},
		{"string", "", "string"},
		{"foo.Bar", "", "foo.Bar"}, // sqlc writes it as is, unimported
	} {
		gt, alias := parseGoType(config.GoType{Type: tt.typ, Pointer: true}, pgtypePkg)
		if gt.pkg != tt.pkg || gt.name != tt.name || !gt.pointer || alias != "" {
			t.Errorf("{type: %s}: %+v, alias %q; want package %q, name %q, a pointer, no alias", tt.typ, gt, alias, tt.pkg, tt.name)
		}
	}
}
