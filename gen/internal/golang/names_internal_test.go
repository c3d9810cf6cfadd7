package golang

import (
	"reflect"
	"testing"
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
