package main
import (
 _ "github.com/pganalyze/pg_query_go/v5"
 _ "github.com/jackc/pgx/v5"
 _ "github.com/jackc/pgx/v5/pgxpool"
 _ "github.com/redis/go-redis/v9"
 _ "github.com/dave/jennifer/jen"
)
func main(){}
