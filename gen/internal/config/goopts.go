package config

import "github.com/goccy/go-yaml/ast"

// goFields are sqlc's Go options, shared by version 2's gen.go and
// version 1's packages (which add path, and have no rename).
func (l *loader) goFields(e *entry) fields {
	o := &e.pkg.Go
	return fields{
		"package":                           record(&e.goPackage, l.str(&o.Package)),
		"sql_package":                       record(&e.sqlPackage, l.str(&o.SQLPackage)),
		"sql_driver":                        record(&e.sqlDriver, l.str(&o.SQLDriver)),
		"emit_json_tags":                    l.boolean(&o.EmitJSONTags),
		"emit_db_tags":                      l.boolean(&o.EmitDBTags),
		"json_tags_case_style":              l.str(&o.JSONTagsCaseStyle),
		"json_tags_id_uppercase":            l.boolean(&o.JSONTagsIDUppercase),
		"emit_interface":                    l.boolean(&o.EmitInterface),
		"emit_exact_table_names":            l.boolean(&o.EmitExactTableNames),
		"emit_empty_slices":                 l.boolean(&o.EmitEmptySlices),
		"emit_exported_queries":             l.boolean(&o.EmitExportedQueries),
		"emit_pointers_for_null_types":      l.boolean(&o.EmitPointersForNullTypes),
		"emit_pointers_for_null_enum_types": l.boolPtr(&o.EmitPointersForNullEnumTypes),
		"emit_result_struct_pointers":       l.boolean(&o.EmitResultStructPointers),
		"emit_params_struct_pointers":       l.boolean(&o.EmitParamsStructPointers),
		"emit_methods_with_db_argument":     l.boolean(&o.EmitMethodsWithDBArgument),
		"emit_enum_valid_method":            l.boolean(&o.EmitEnumValidMethod),
		"emit_all_enum_values":              l.boolean(&o.EmitAllEnumValues),
		"emit_prepared_queries":             l.boolean(&o.EmitPreparedQueries),
		"emit_sql_as_comment":               l.boolean(&o.EmitSQLAsComment),
		"query_parameter_limit":             record(&e.paramLimit, l.intPtr(&o.QueryParameterLimit)),
		"initialisms":                       l.list(&o.Initialisms),
		"inflection_exclude_table_names":    l.list(&o.InflectionExcludeTableNames),
		"overrides": func(k string, v ast.Node) {
			o.Overrides = l.overrides(k, v)
		},
		"output_db_file_name":       l.str(&o.OutputDBFileName),
		"output_models_file_name":   l.str(&o.OutputModelsFileName),
		"output_querier_file_name":  l.str(&o.OutputQuerierFileName),
		"output_copyfrom_file_name": l.str(&o.OutputCopyfromFileName),
		"output_batch_file_name":    l.str(&o.OutputBatchFileName),
		"output_files_suffix":       l.str(&o.OutputFilesSuffix),
		// Not an sqlc v1.31.1 option ("field output_query_files_directory
		// not found"); later sqlc writes the query files in that
		// directory, which fencegen does not: refused, as v1.31.1
		// refuses it, rather than ignored.
		"output_query_files_directory": func(k string, v ast.Node) {
			l.errorf(v, "output_query_files_directory is not an sqlc v1.31.1 option (sqlc v1.31.1 refuses it; later sqlc writes the query files in that directory): fencegen writes every file in out; remove the key")
		},
		"build_tags":          l.str(&o.BuildTags),
		"omit_unused_structs": l.boolean(&o.OmitUnusedStructs),
		"omit_sqlc_version":   l.boolean(&o.OmitSQLCVersion),
		"wrap_errors":         l.boolean(&o.WrapErrors),
		"sqlc_untyped_params": l.boolean(&o.SqlcUntypedParams),
		"postgresql_types":    record(&e.pgTypes, l.boolPtr(&o.PostgreSQLTypes)),
		"mysql_types":         record(&e.myTypes, l.boolPtr(&o.MySQLTypes)),
	}
}
