package catalog

// CREATE SEQUENCE and ALTER SEQUENCE.

import (
	"github.com/fencegen/fencegen/gen/internal/sqlparse"
)

// sequence applies CREATE SEQUENCE and ALTER SEQUENCE ... OWNED BY.
func (u *updater) sequence(n *sqlparse.Sequence) {
	var seq *Table
	if n.Create {
		s := u.schemaFor(n.Name.Schema, n.Name.Loc)
		if s == nil {
			return
		}
		if s.table(n.Name.Name) != nil {
			if !n.IfNotExists {
				u.errorf(n.Name.Loc, ErrExists, "relation %q already exists", n.Name.String())
			}
			return
		}
		seq = NewSequence(s.Name, n.Name.Name)
		seq.File = u.f.Name
		seq.Line, seq.Col = u.pos(n.Name.Loc)
		s.Tables = append(s.Tables, seq)
	} else {
		if !n.MissingOK && u.c.Table(n.Name.Schema, n.Name.Name) == nil {
			// sqlc keeps no sequences, and ALTER SEQUENCE of one that
			// does not exist passes.
			u.refusef(n.Name.Loc, "relation %q does not exist", n.Name.String())
			return
		}
		seq = u.userTable(n.Name, n.MissingOK)
		if seq == nil {
			return
		}
		if !seq.IsSequence {
			u.errorf(n.Name.Loc, ErrNotFound, "%q is not a sequence", n.Name.String())
			return
		}
	}
	switch {
	case n.OwnedByNone:
		seq.OwnedBy = nil
	case len(n.OwnedBy) >= 2:
		parts := n.OwnedBy
		tn := sqlparse.Name{Name: parts[len(parts)-2], Loc: n.Name.Loc}
		if len(parts) >= 3 {
			tn.Schema = parts[len(parts)-3]
		}
		t := u.userTable(tn, false)
		if t == nil {
			return
		}
		c := t.Column(parts[len(parts)-1])
		if c == nil {
			u.errorf(n.Name.Loc, ErrNotFound, "column %q of relation %q does not exist", parts[len(parts)-1], t.Name)
			return
		}
		seq.OwnedBy = c
	}
}

// columnSequence makes the sequence PostgreSQL creates for serial or
// identity column col, owned by it: named by the identity's SEQUENCE NAME
// option, or <table>_<column>_seq, numbered seq1, seq2, ... while the name
// is a relation of the schema (PostgreSQL source, transformColumnDefinition
// and ChooseRelationName). ALTER SEQUENCE and DROP SEQUENCE can name it.
// A temporary table's sequence is not kept: it lives in the session's own
// schema, gone with the session, and nothing in a schema refers to it.
func (u *updater) columnSequence(col *Column, name sqlparse.Name) {
	t := col.Table
	s := u.c.Schema(t.Schema)
	if name.Name != "" {
		s = u.c.Schema(name.Schema)
		if name.Schema == "" {
			s = u.c.Schema(t.Schema)
		}
	}
	if s == nil || s.Name == "pg_temp" {
		return
	}
	seqName := name.Name
	if seqName == "" {
		seqName = chooseName(t.Name, col.Name, "seq", func(n string) bool { return u.c.relationNameTaken(t, n) })
	} else if s.table(seqName) != nil {
		u.errorf(-1, ErrExists, "relation %q already exists", seqName)
		return
	}
	seq := NewSequence(s.Name, seqName)
	seq.OwnedBy = col
	seq.File, seq.Line, seq.Col = t.File, t.Line, t.Col
	s.Tables = append(s.Tables, seq)
}
