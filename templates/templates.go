// Package templates holds fencegen's non-Go text assets as an embed.FS,
// parsed once at init so that a broken template fails every test at once.
// Go code is emitted only through jennifer (package gen/internal/golang),
// never through text templates.
//
// Each template starts with a comment naming the data it expects.
package templates

import (
	"embed"
	"text/template"
)

//go:embed *.sql.tmpl
var FS embed.FS

// Templates are the parsed assets, by file name.
var Templates = template.Must(template.New("").Funcs(template.FuncMap{}).ParseFS(FS, "*.sql.tmpl"))
