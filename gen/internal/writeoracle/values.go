package writeoracle

import (
	"context"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
)

// typeInfo is what the oracle needs of a type to write a value of it.
type typeInfo struct {
	format   string // format_type(oid, NULL)
	name     string // the base type's typname (a domain's base)
	category string // the base type's typcategory
	kind     string // the base type's typtype (b, c, d, e, p, r, m)
	labels   []string
	elem     *typeInfo // an array's element type
}

type typeCache map[uint32]*typeInfo

func (c typeCache) get(ctx context.Context, conn *pgx.Conn, oid uint32) (*typeInfo, error) {
	if ti, ok := c[oid]; ok {
		return ti, nil
	}
	// A domain stands for its base type (domains over domains included).
	var format, name, category, kind string
	var elem uint32
	var labels []string
	err := conn.QueryRow(ctx, `
WITH RECURSIVE base(oid, depth) AS (
    SELECT $1::oid, 0
    UNION ALL
    SELECT t.typbasetype, b.depth + 1 FROM base b JOIN pg_type t ON t.oid = b.oid
    WHERE t.typtype = 'd' AND b.depth < 20
)
SELECT format_type($1::oid, NULL), t.typname, t.typcategory::text, t.typtype::text, t.typelem,
       coalesce(array(SELECT enumlabel::text FROM pg_enum WHERE enumtypid = t.oid ORDER BY enumsortorder), '{}')
FROM base b JOIN pg_type t ON t.oid = b.oid
ORDER BY b.depth DESC LIMIT 1`, oid).Scan(&format, &name, &category, &kind, &elem, &labels)
	if err != nil {
		return nil, fmt.Errorf("type %d: %w", oid, err)
	}
	ti := &typeInfo{format: format, name: name, category: category, kind: kind, labels: labels}
	c[oid] = ti
	if category == "A" && elem != 0 {
		e, err := c.get(ctx, conn, elem)
		if err != nil {
			return nil, err
		}
		ti.elem = e
	}
	return ti, nil
}

// literal is the k-th candidate value (k = 1 or 2) of the type as an SQL
// string literal, or NULL when the oracle has none: the same k gives every
// column and parameter of a kind the same value, so that a seeded row
// matches the equality conditions of a statement bound with that k.
func (t *typeInfo) literal(k int) string {
	v, ok := t.text(k)
	if !ok {
		return "NULL"
	}
	return "'" + strings.ReplaceAll(v, "'", "''") + "'"
}

func (t *typeInfo) text(k int) (string, bool) {
	switch t.kind {
	case "c", "p":
		return "", false
	case "e":
		if len(t.labels) == 0 {
			return "", false
		}
		return t.labels[(k-1)%len(t.labels)], true
	case "r":
		return "empty", true
	case "m":
		return "{}", true
	}
	switch t.name {
	case "uuid":
		return fmt.Sprintf("00000000-0000-0000-0000-%012d", k), true
	case "json", "jsonb":
		return fmt.Sprint(k), true
	case "bytea":
		return fmt.Sprintf("\\x%02x", k), true
	case "time", "timetz":
		return fmt.Sprintf("0%d:00:00", k), true
	case "inet", "cidr":
		return fmt.Sprintf("10.0.0.%d", k), true
	case "macaddr":
		return fmt.Sprintf("08:00:2b:01:02:0%d", k), true
	case "macaddr8":
		return fmt.Sprintf("08:00:2b:01:02:03:04:0%d", k), true
	case "xml":
		return "<a/>", true
	case "point":
		return fmt.Sprintf("(%d,%d)", k, k), true
	case "tsquery", "tsvector":
		return "a", true
	case "pg_lsn":
		return fmt.Sprintf("0/%d", k), true
	}
	switch t.category {
	case "N", "S":
		return fmt.Sprint(k), true
	case "B":
		return fmt.Sprint(k == 1), true
	case "D":
		return fmt.Sprintf("2020-01-0%d 00:00:00", k), true
	case "T":
		return fmt.Sprintf("%d seconds", k), true
	case "V":
		return fmt.Sprint(k % 2), true
	case "A":
		if t.elem == nil {
			return "{}", true
		}
		e, ok := t.elem.text(k)
		if !ok {
			return "{}", true
		}
		return `{"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(e) + `"}`, true
	}
	return "", false
}
