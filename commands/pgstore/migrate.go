package pgstore

import (
	"context"
	"embed"
	"fmt"
	"io/fs"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"go.uber.org/zap"
)

// migrations holds the schema's SQL files, NNN_name.sql, applied in the
// order of NNN.
//
//go:embed migrations/*.sql
var migrations embed.FS

// migrateLock is the advisory lock's key: "mailbot" in ASCII.
const migrateLock = 0x6d61696c626f74

// migrateTimeout bounds the wait for the lock and the migration.
const migrateTimeout = 2 * time.Minute

// migration is one SQL file.
type migration struct {
	version int
	name    string
}

// migrate applies the migrations that the database lacks, in one
// transaction under an advisory lock, so that replicas starting together
// apply each once.
func migrate(ctx context.Context, pool *pgxpool.Pool, logger *zap.Logger) error {
	all, err := listMigrations()
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, migrateTimeout)
	defer cancel()
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock($1)", int64(migrateLock)); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
			version integer PRIMARY KEY, name text NOT NULL, applied timestamptz NOT NULL DEFAULT now())`); err != nil {
			return err
		}
		rows, _ := tx.Query(ctx, "SELECT version FROM schema_migrations")
		done, err := pgx.CollectRows(rows, pgx.RowTo[int])
		if err != nil {
			return err
		}
		for _, m := range all {
			if slices.Contains(done, m.version) {
				continue
			}
			sql, err := migrations.ReadFile("migrations/" + m.name)
			if err != nil {
				return err
			}
			if _, err := tx.Exec(ctx, string(sql)); err != nil {
				return fmt.Errorf("migration %s: %w", m.name, err)
			}
			if _, err := tx.Exec(ctx, "INSERT INTO schema_migrations (version, name) VALUES ($1, $2)", m.version, m.name); err != nil {
				return err
			}
			logger.Info("database migrated", zap.String("migration", m.name))
		}
		return nil
	})
}

// listMigrations returns the embedded migrations in order.
func listMigrations() ([]migration, error) {
	names, err := fs.Glob(migrations, "migrations/*.sql")
	if err != nil {
		return nil, err
	}
	var out []migration
	for _, path := range names {
		name := strings.TrimPrefix(path, "migrations/")
		num, _, _ := strings.Cut(name, "_")
		v, err := strconv.Atoi(num)
		if err != nil {
			return nil, fmt.Errorf("migration %s: the name does not start with a number", name)
		}
		out = append(out, migration{version: v, name: name})
	}
	slices.SortFunc(out, func(a, b migration) int { return a.version - b.version })
	return out, nil
}
