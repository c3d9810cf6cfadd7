package migrations

import (
	"strings"
	"testing"
)

// TestDownStart cuts each file where its tool or sqlc v1.31.1 stops
// reading (the "|"), and nowhere in files both read to the end.
func TestDownStart(t *testing.T) {
	for _, src := range []string{
		// goose: every "--" and the first "+goose" removed, trimmed, any case.
		"-- +goose Up\nCREATE TABLE t (id int);\n|-- +goose Down\nDROP TABLE t;\n",
		"-- +goose Up\n|---- +goose Down\n",
		"-- +goose Up\n|-- +gooseDown\n",
		"-- +goose Up\n|--+goose  DOWN \r\n",
		"-- +goose Up\n|--\t+goose\tdown\n",
		"-- +goose Up\n -- +goose Down\n-- + goose Down\n--+goose Down +goose\n", // goose refuses the first and third
		"-- +goose Up\n|-- +goose Down +goose\n",                                 // sqlc's prefix
		"-- +goose Up\n-- the +goose down marker follows\n--\n\n  \t+GOOSE   DOWN\n",
		// sqlc: a lowered line starting with its marker.
		"x\n|-- +GOOSE DOWNWARD\n",
		"x\n|-- +Migrate DOWN\n",
		"x\n|-- MIGRATE:DOWN\n",
		"x\n|---- CREATE ABOVE / DROP BELOW ----\n",
		// sql-migrate: "-- +migrate " then the field Down.
		"-- +migrate Up\n|-- +migrate \tDown notransaction\n",
		"--  +migrate Down\n-- +migrateDown\n",
		"|-- +migrate Downward\n", // sqlc's prefix
		// dbmate: (?m)^--\s*migrate:down(\s*$|\s+\S+).
		"-- migrate:up\n|--migrate:down\n",
		"-- migrate:up\n|--   migrate:down transaction:false\n",
		"-- migrate:up\nSELECT 'x -- migrate:down';\n-- migrate: down\n",
		// tern: the divider, anywhere, in this case.
		"CREATE TABLE t (id int);\n|---- create above / drop below ----\n",
		"-- tern: |---- create above / drop below ----\n",
		"----  create above / drop below ----\n---- create above / drop below---\n",
		"no marker here\n",
		"",
	} {
		want := strings.Index(src, "|")
		text := strings.Replace(src, "|", "", 1)
		if got := DownStart([]byte(text)); got != want {
			t.Errorf("DownStart(%q) = %d, want %d", text, got, want)
		}
	}
}
