package golang

import (
	"github.com/dave/jennifer/jen"

	"github.com/fencegen/fencegen/gen/internal/analyze"
	"github.com/fencegen/fencegen/gen/internal/catalog"
	"github.com/fencegen/fencegen/gen/internal/config"
)

const (
	mysqlDriverPkg = "github.com/go-sql-driver/mysql"
	// mysqltsvPkg encodes rows for LOAD DATA LOCAL INFILE, as in sqlc's
	// output.
	mysqltsvPkg = "github.com/hexon/mysqltsv"
)

// mysqlCopyFromRefusal is why a MySQL :copyfrom query cannot be
// generated, or "": sqlc sends it with LOAD DATA LOCAL INFILE through
// go-sql-driver/mysql's reader handlers, so sql_driver must name that
// driver, and its rows are encoded without a time zone, so no parameter
// may be a time.Time (sqlc's "values with a timezone are not yet
// supported"): one that sqlc's MySQL mapping declares time.Time, a NOT
// NULL date, time, datetime or timestamp.
func mysqlCopyFromRefusal(opts config.GoOptions, q *analyze.Query) string {
	if opts.SQLDriver != mysqlDriverPkg {
		return "query " + q.Name + ": :copyfrom on MySQL is sent with LOAD DATA LOCAL INFILE through github.com/go-sql-driver/mysql: set sql_driver: github.com/go-sql-driver/mysql"
	}
	for _, p := range q.Params {
		if !p.Known || !p.NotNull || p.Type.Schema != catalog.MySQLSchema {
			continue
		}
		switch p.Type.Name {
		case "date", "time", "datetime", "timestamp":
			return "query " + q.Name + ": values with a timezone are not yet supported (:copyfrom on MySQL, as in sqlc)"
		}
	}
	return ""
}

// mysqlCopyfrom emits a MySQL :copyfrom query in the copyfrom file, as
// sqlc's go-sql-driver/mysql template does: the rows are encoded by
// mysqltsv into a pipe that a registered reader handler gives to
// LOAD DATA LOCAL INFILE (MySQL docs, 15.2.9 "LOAD DATA Statement"),
// which is not atomic (the method's documentation says so).
func (e *emitter) mysqlCopyfrom(cf *jen.File, q *analyze.Query) {
	sig := e.signature(q)
	name := q.Name
	seq := "readerHandlerSequenceFor" + name
	conv := "convertRowsFor" + name
	structured := e.useParamsStruct(q)
	fields := e.paramFields(q)
	cf.Var().Id(seq).Uint32().Op("=").Lit(1)
	cf.Line()
	var appends []jen.Code
	for i, p := range q.Params {
		v := jen.Id("row")
		if structured && i < len(fields) {
			v = jen.Id("row").Dot(fields[i])
		}
		method := "AppendValue"
		switch t := e.paramType(p).String(); t {
		case "string":
			method = "AppendString"
		case "[]byte", "encoding/json.RawMessage":
			method = "AppendBytes"
		}
		appends = append(appends, jen.Id("e").Dot(method).Call(v))
	}
	cf.Func().Id(conv).Params(jen.Id("w").Op("*").Qual("io", "PipeWriter"), jen.Id(sig.rowArg).Index().Add(sig.rowType)).Block(
		jen.Id("e").Op(":=").Qual(mysqltsvPkg, "NewEncoder").Call(jen.Id("w"), jen.Lit(len(q.Params)), jen.Nil()),
		jen.For(jen.List(jen.Id("_"), jen.Id("row")).Op(":=").Range().Id(sig.rowArg)).Block(appends...),
		jen.Id("w").Dot("CloseWithError").Call(jen.Id("e").Dot("Close").Call()),
	)
	cf.Line()
	for _, d := range e.docLines(q) {
		cf.Comment("//" + d)
	}
	for _, l := range []string{
		name + " uses MySQL's LOAD DATA LOCAL INFILE and is not atomic.",
		"",
		"Errors and duplicate keys are treated as warnings and insertion will",
		"continue, even without an error for some cases.  Use this in a transaction",
		"and use SHOW WARNINGS to check for any problems and roll back if you want to.",
		"",
		"Check the documentation for more information:",
		"https://dev.mysql.com/doc/refman/8.0/en/load-data.html#load-data-error-handling",
	} {
		if l == "" {
			cf.Comment("")
			continue
		}
		cf.Comment(l)
	}
	table := "`" + q.InsertTable.Name + "`"
	if sc := modelSchema(q.InsertTable); sc != "" && sc != catalog.DefaultSchema {
		table = "`" + sc + "`." + table
	}
	cols := ""
	for i, p := range q.Params {
		if i > 0 {
			cols += ", "
		}
		cols += p.Name
	}
	db := jen.Id("q").Dot("db")
	if e.opts.EmitMethodsWithDBArgument {
		db = jen.Id("db")
	}
	body := []jen.Code{
		jen.List(jen.Id("pr"), jen.Id("pw")).Op(":=").Qual("io", "Pipe").Call(),
		jen.Defer().Id("pr").Dot("Close").Call(),
		jen.Id("rh").Op(":=").Qual("fmt", "Sprintf").Call(jen.Lit(name+"_%d"), jen.Qual("sync/atomic", "AddUint32").Call(jen.Op("&").Id(seq), jen.Lit(1))),
		jen.Qual(mysqlDriverPkg, "RegisterReaderHandler").Call(jen.Id("rh"), jen.Func().Params().Qual("io", "Reader").Id("{ return pr }")),
		jen.Defer().Qual(mysqlDriverPkg, "DeregisterReaderHandler").Call(jen.Id("rh")),
		jen.Go().Id(conv).Call(jen.Id("pw"), jen.Id(sig.rowArg)),
		jen.Comment("The string interpolation is necessary because LOAD DATA INFILE requires"),
		jen.Comment("the file name to be given as a literal string."),
		jen.List(jen.Id("result"), jen.Err()).Op(":=").Add(db).Dot("ExecContext").Call(jen.Id("ctx"),
			jen.Qual("fmt", "Sprintf").Call(jen.Lit("LOAD DATA LOCAL INFILE '%s' INTO TABLE "+table+" %s ("+cols+")"), jen.Lit("Reader::").Op("+").Id("rh"), jen.Qual(mysqltsvPkg, "Escaping"))),
		jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Lit(0), jen.Err())),
		jen.Return(jen.Id("result").Dot("RowsAffected").Call()),
	}
	cf.Func().Params(jen.Id("q").Op("*").Id("Queries")).Id(name).Params(sig.params...).Params(jen.Int64(), jen.Error()).Block(body...)
	cf.Line()
}
