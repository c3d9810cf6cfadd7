package catalog

import (
	"strings"

	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/fencegen/fencegen/gen/internal/diag"
	"github.com/fencegen/fencegen/gen/internal/sqlparse"
	"github.com/fencegen/fencegen/gen/internal/writes"
)

// offStrings records, for Validate while a table is fenced, a schema
// statement PostgreSQL may read otherwise than fencegen does when
// standard_conforming_strings is off (issue 24; see sqlparse.OffValue):
// fencegen reads every text as PostgreSQL does with it on, its default,
// and cannot see a server's setting, nor always a database's or role's
// (the migration tool's session takes them).
//   - Any statement where a backslash takes a quote ('a\'): the text
//     after it reads as other tokens, so as another statement.
//   - A backslash in any ordinary string constant of a statement that
//     is not a table's, domain's or index's definition or an INSERT:
//     its value changes, and a function's AS string, a DO block, a
//     trigger's arguments, a COMMENT (a fence mark) or a setting's value
//     is code or a name to fencegen. (A function's dollar-quoted body is
//     read when a query or a trigger runs it: writes.Body.)
//   - A statement that sets standard_conforming_strings to other than
//     on, or client_encoding to other than UTF8: the database's or
//     role's later sessions, the server's, or the rest of the
//     migration's session.
func (u *updater) offStrings() {
	if u.s.Raw == nil {
		return
	}
	text := string(u.f.Src[u.s.Start:u.s.End])
	const fix = "write it as an escape string E'...' with the backslash doubled, which reads alike under both settings"
	if at := sqlparse.OffTokens(text); at >= 0 {
		u.offError(u.s.Start+at, "a backslash before a quote in this string constant: with standard_conforming_strings off (a server, database, role or session setting fencegen cannot always see) the constant goes on past that quote, so PostgreSQL runs another statement than the one fencegen reads; "+fix)
		return
	}
	switch u.s.Raw.Node.(type) {
	case *pg.Node_CreateStmt, *pg.Node_AlterTableStmt, *pg.Node_CreateDomainStmt, *pg.Node_AlterDomainStmt, *pg.Node_IndexStmt, *pg.Node_InsertStmt:
		// Data: a changed value changes no statement.
	default:
		if at := sqlparse.OffValue(text, false); at >= 0 {
			u.offError(u.s.Start+at, "a backslash in this string constant of a "+writes.CommandTag(u.s.Raw)+" statement: with standard_conforming_strings off (a server, database, role or session setting fencegen cannot always see) PostgreSQL reads it as an escape, so a body, name or setting this statement gives is not the one fencegen reads; "+fix)
			return
		}
	}
	var set *pg.VariableSetStmt
	what := "the rest of the migration's session"
	switch {
	case u.s.Raw.GetVariableSetStmt() != nil:
		set = u.s.Raw.GetVariableSetStmt()
	case u.s.Raw.GetAlterRoleSetStmt() != nil:
		set, what = u.s.Raw.GetAlterRoleSetStmt().GetSetstmt(), "every later session of the role"
	case u.s.Raw.GetAlterDatabaseSetStmt() != nil:
		set, what = u.s.Raw.GetAlterDatabaseSetStmt().GetSetstmt(), "every later session of the database"
	case u.s.Raw.GetAlterSystemStmt() != nil:
		set, what = u.s.Raw.GetAlterSystemStmt().GetSetstmt(), "every session of the server"
	case u.s.Raw.GetCreateFunctionStmt() != nil || u.s.Raw.GetAlterFunctionStmt() != nil:
		var opts []*pg.Node
		if cf := u.s.Raw.GetCreateFunctionStmt(); cf != nil {
			opts = cf.Options
		} else {
			opts = u.s.Raw.GetAlterFunctionStmt().Actions
		}
		for _, o := range opts {
			if d := o.GetDefElem(); d != nil && d.Defname == "set" {
				if s := d.Arg.GetVariableSetStmt(); s != nil && s.Name == "standard_conforming_strings" {
					set, what = s, "the function's body"
				}
			}
		}
	}
	if set != nil && set.Name == "client_encoding" && u.s.Raw.GetCreateFunctionStmt() == nil && u.s.Raw.GetAlterFunctionStmt() == nil && !writes.UTF8Setting(set) {
		// In SJIS, BIG5 or GBK a byte before a backslash starts a
		// character, so a constant ends elsewhere (trial r24 N3).
		u.offError(u.s.Start, "sets client_encoding to other than UTF8 for "+what+": PostgreSQL then reads a byte before a backslash as the first of a character (SJIS, BIG5, GBK), so a string constant may end elsewhere than fencegen reads it and texts fencegen reads as one statement may run as others; leave it UTF8")
		return
	}
	if set == nil || set.Name != "standard_conforming_strings" || writes.SettingOn(set) {
		return
	}
	u.offError(u.s.Start, "sets standard_conforming_strings to other than on for "+what+": PostgreSQL then reads a backslash in an ordinary string constant as an escape, a quote included, so texts fencegen reads as one statement may run as others; leave it on (write escapes as E'...' strings)")
}

func (u *updater) offError(loc int, msg string) {
	line, col := u.pos(loc)
	u.c.offStringErrors.AddErr(&diag.Error{File: u.f.Name, Line: line, Col: col, Err: ErrFence, Msg: strings.TrimSpace(msg)})
}
