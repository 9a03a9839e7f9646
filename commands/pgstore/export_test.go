package pgstore

import "github.com/jackc/pgx/v5"

// WithTracer lets a test see every statement the store sends: tr is the
// connections' tracer (a pgx.BatchTracer too, to see batches).
func WithTracer(tr pgx.QueryTracer) Option { return func(o *options) { o.tracer = tr } }
